/* priority.h - when the profiler gets a CPU.
 *
 * Sampling: a tick must land when it is due, also on a CPU where a target
 * thread runs.  Under the normal policy a woken sampler does not preempt
 * a running thread before the rest of its slice: the tick lands when the
 * thread's burst is over, and no tick sees it working.  Asking for a 0.1
 * ms slice (EEVDF, Linux 6.12 and later) helped when the sampler had used
 * little CPU, not otherwise: a thread working 1 ms every 10 ms showed 3.7
 * to 7.8 % of its ticks in that work at -d 100us against 10-11 %.  The
 * sampler therefore runs under SCHED_FIFO at the lowest real-time
 * priority: its wake-up preempts at once, its rounds are short (tens of
 * microseconds), and between rounds it sleeps.  Measured: that thread's
 * work within 0.6 points of its own clock at 100 us, 200 us, 500 us and
 * 1 ms (5 runs each), and PostgreSQL's wait events under pgbench within
 * 4 points of pg_stat_activity.  (At nice -20, long ago and before the
 * sampler kept off its targets' CPUs, it sampled the backends it had just
 * disturbed: 44-48 % in Client:ClientRead against 26 %.)  Where the policy
 * is refused (no CAP_SYS_NICE, no RLIMIT_RTPRIO), the short slice.  Work
 * between ticks that is not a round (naming a --period window) runs under
 * the normal policy.
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
#include <stdint.h>

struct priority_report {
	int nice;        /* the nice value the sampler runs at (its own) */
	bool realtime;   /* SCHED_FIFO was accepted */
	bool short_slice; /* else: the 0.1 ms slice was accepted */
};

/* For the sampling loop: the short slice, at the nice value we have.
 * Fills *r. */
void priority_for_sampling(struct priority_report *r);

/* Between ticks, work that is not a round (naming a window): the normal
 * policy while it runs (pause), the sampling one again (resume).  Cheap
 * (a system call each) and only when the sampler is real-time. */
void priority_pause(const struct priority_report *r);
void priority_resume(const struct priority_report *r);

/* A lift, for naming between ticks.  Paused, the sampler waits for a CPU
 * as any thread under the normal policy does, and on a busy machine that
 * is behind the targets' own threads: --top on MariaDB at -d 10ms (both
 * CPUs kept busy by sysbench) sampled 38-56 % of its ticks, in gaps of up
 * to 750 ms.  A lift is a thread of ours under SCHED_FIFO that sleeps
 * until the next tick is due and then puts the paused sampler back under
 * SCHED_FIFO itself: the sampler gets a CPU at once, its naming stops at
 * the next stack (program_name_batch looks at the clock between stacks)
 * and the tick lands.  Until then naming keeps the normal policy, so a
 * slow first look-up (a large file's debug info, hundreds of ms) never
 * holds a CPU from the target.
 *
 * priority_lift_new: made by the sampler's thread (the one lifted), only
 * when r says it is real-time; NULL otherwise or when no thread could be
 * made (naming is then as it was, paused until done).  priority_lift_at
 * arms it for due_ns (CLOCK_MONOTONIC), priority_lift_cancel disarms it
 * (both cheap: a mutex, and a signal only to a lift idle in its wait);
 * priority_lift_count: the times it lifted the sampler. */
struct priority_lift;
struct priority_lift *priority_lift_new(const struct priority_report *r);
void priority_lift_at(struct priority_lift *l, uint64_t due_ns);
void priority_lift_cancel(struct priority_lift *l);
uint64_t priority_lift_count(const struct priority_lift *l);
void priority_lift_free(struct priority_lift *l);

/* After detaching: the kernel's own slice again, at our own nice value. */
void priority_for_naming(void);

/* Starts fn(arg) on a thread of its own at nice 19 that takes no signal
 * (they are the sampler's: SIGCHLD above all); the caller's signal mask
 * is as it was.  0, or an errno value (ENOMEM, pthread_create's). */
int priority_start_background(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
