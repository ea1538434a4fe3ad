/* placement.h - which CPUs the sampler runs on.
 *
 * A sampler that shares a CPU with a target thread that runs sees it
 * late or not at all: its wake-up at a tick does not preempt the thread
 * (the scheduler lets a running task finish its slice), so the tick lands
 * when the thread's burst is over, and what it sees then is the thread
 * asleep.  The two end up on one CPU on their own: the thread we resume
 * is woken by us, and the kernel places a woken task near its waker
 * (measured here, a 2-vCPU VM whose kernel packs tasks onto busy vCPUs:
 * 60-100 % of the stops of a thread working 1 ms every 10 ms found it on
 * our CPU, and the sampler's ticks landed in its work 4 % of the time
 * against 10 %; pinned apart by hand, 10.1 % against 10.05 %).
 *
 * So after each round the sampler leaves the CPUs where target threads
 * run or wait to run now, as long as one of the CPUs it may use (its
 * affinity when it started: the user's taskset is respected) is left:
 * its affinity becomes those CPUs minus the wanted ones.  Where every CPU
 * is wanted it may run on any: then it is one more thread that wants a
 * CPU (docs/limitations.md).  A move costs the sampler about 25 us here,
 * a change that keeps its CPU 1 us; the target nothing.
 */
#ifndef PTRACE_PROFILER_SAMPLE_PLACEMENT_H
#define PTRACE_PROFILER_SAMPLE_PLACEMENT_H

#include <sched.h> /* cpu_set_t: its users define _GNU_SOURCE */
#include <stdbool.h>

struct placement {
	bool on;           /* moves are allowed (and the affinity was read) */
	cpu_set_t allowed; /* the sampler's affinity at the start */
	cpu_set_t current; /* the affinity it has now */
	unsigned moves;    /* affinity changes made */
};

/* Reads the sampler's affinity; on = false when it cannot, or when there
 * is one CPU only. */
void placement_start(struct placement *pl, bool wanted);

/* Pure: the affinity the sampler should have, given the CPUs target
 * threads want now: the allowed CPUs minus the wanted ones, or all the
 * allowed ones when every one is wanted (a narrower affinity left from
 * an earlier round would tie the sampler to a CPU as busy as the rest).
 * When none is wanted it stays as it is: a thread between its bursts
 * sleeps on the CPU it will wake on, and a sampler free to go anywhere
 * drifts back to it (measured: 3.7 % of ticks in a burst of 10 %).
 * false: keep the current one; true: *out is the new one.  (my_cpu is
 * where it runs: moving costs a migration only when it is wanted.) */
bool placement_choose(const cpu_set_t *allowed, const cpu_set_t *current, const cpu_set_t *wanted,
		      int my_cpu, cpu_set_t *out);

/* Applies placement_choose; returns the CPU moved to (as reported by the
 * kernel after the move), or -1 when it stayed. */
int placement_apply(struct placement *pl, const cpu_set_t *wanted, int my_cpu);

/* Back to the affinity it started with (before naming). */
void placement_end(struct placement *pl);

#endif
