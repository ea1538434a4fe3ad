/* priority.h - when the profiler gets a CPU.
 *
 * Sampling: a tick must land when it is due, also on the CPU where a
 * target thread runs.  A thread that wakes there otherwise runs its whole
 * burst before the profiler gets the CPU back, and no tick ever sees it
 * running: threads that work 0.5 ms every 10 ms showed 2.4 % of their
 * samples in that work instead of 5.1 %.  The sampler asks, on kernels
 * that take one (EEVDF, Linux 6.12 and later), for a 0.1 ms scheduler
 * slice: its wake-up then comes before the rest of a running task's slice,
 * and the same threads showed 4.1-4.8 % (5.1-5.4).  It does not ask for a
 * higher priority: at nice -20 it preempted everything at every tick, and
 * what it then saw was the server it had just disturbed - PostgreSQL
 * backends waiting for a client we had taken the CPU from: 44-48 % of
 * samples in Client:ClientRead where pg_stat_activity, sampled meanwhile,
 * said 26 %; with the slice alone 18-19 % against 14-19 %.
 *
 * Naming, after detaching: at the nice value the profiler was started
 * with, on the kernel's own slice.  The target is no longer ours then,
 * and the profile is what the user waits for: at nice 19 naming took
 * 5.7 s on a loaded server (run it under nice to keep it low).  The
 * threads that write and push windows (continuous.h, push.h) run at nice
 * 19 from their start: they work while the target is sampled.
 */
#ifndef PTRACE_PROFILER_PRIORITY_H
#define PTRACE_PROFILER_PRIORITY_H

#include <pthread.h>
#include <stdbool.h>

struct priority_report {
	int nice;        /* the nice value the sampler runs at (its own) */
	bool short_slice; /* the 0.1 ms slice was accepted */
};

/* For the sampling loop: the short slice, at the nice value we have.
 * Fills *r. */
void priority_for_sampling(struct priority_report *r);

/* After detaching: the kernel's own slice again, at our own nice value. */
void priority_for_naming(void);

/* Starts fn(arg) on a thread of its own at nice 19 that takes no signal
 * (they are the sampler's: SIGCHLD above all); the caller's signal mask
 * is as it was.  0, or an errno value (ENOMEM, pthread_create's). */
int priority_start_background(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
