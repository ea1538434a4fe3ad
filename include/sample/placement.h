/* placement.h - which CPUs the sampler runs on.
 *
 * Two ways, chosen after every round:
 *
 * FOLLOW, for a thread our stops keep finding at the end of a system call
 * (a SCHED_FIFO sampler only, root's): it sleeps on the CPU where that
 * thread runs, so that its tick is that CPU's own timer interrupt
 * and wakes it there: a real-time task preempts the thread at once, at
 * the very instruction the interrupt found it on in user mode, or, in the
 * kernel (a kernel without preemption of system calls, as many servers
 * run), where the call ends.  A stop asked from another CPU lands at the
 * thread's next return to user mode instead: the interrupt that carries
 * it took 20-45 us here, and a thread that enters the kernel every few
 * microseconds (pread, recv, futex on cached data) was always caught
 * leaving a system call - sysmix, 65 % of its time in user code by its
 * own clock, showed 0.1 % there.  Its cost: the round itself holds the
 * thread's CPU (a thread that works in bursts, followed at 100 us, spent
 * half its bursts waiting for it), so only such threads are followed:
 * more than half of the last stops of a thread running on another CPU
 * found it leaving a call.  Threads move: after each round it goes
 * where the threads it resumed are now (the kernel wakes a resumed thread
 * on an idle CPU rather than on ours, which we hold), and looks again
 * after the move, since the CPU it left may have pulled the thread over.
 *
 * KEEP OFF, otherwise: the round runs beside the threads, not in their
 * way; and a SCHED_OTHER sampler's wake-up at a tick does not preempt a
 * running thread (the scheduler lets it finish its slice), so a sampler
 * that shares a CPU with a target thread sees it
 * late or not at all (measured here, a 2-vCPU VM whose kernel packs tasks
 * onto busy vCPUs: 60-100 % of the stops of a thread working 1 ms every
 * 10 ms found it on our CPU, and the ticks landed in its work 4 % of the
 * time against 10 %; pinned apart by hand, 10.1 % against 10.05 %).  So
 * after each round it leaves the CPUs where target threads run or wait
 * to run now, as long as one of the CPUs it may use is left.  Where every
 * CPU is wanted it may run on any (docs/limitations.md).
 *
 * Either way it keeps to the CPUs it was started on (the user's taskset).
 * A move costs the sampler about 25 us here, a change that keeps its CPU
 * 1 us; in FOLLOW the thread is preempted from our arrival until we sleep.
 */
#ifndef PTRACE_PROFILER_SAMPLE_PLACEMENT_H
#define PTRACE_PROFILER_SAMPLE_PLACEMENT_H

#include <sched.h> /* cpu_set_t: its users define _GNU_SOURCE */
#include <stdbool.h>

enum placement_way {
	PLACE_KEEP_OFF, /* off the CPUs target threads want */
	PLACE_FOLLOW,   /* on the CPU a followed thread runs on */
};

struct placement {
	bool on;           /* moves are allowed (and the affinity was read) */
	bool can_follow;   /* a real-time sampler: FOLLOW is possible */
	enum placement_way way; /* the last move's */
	cpu_set_t allowed; /* the sampler's affinity at the start */
	cpu_set_t current; /* the affinity it has now */
	unsigned moves;    /* affinity changes made */
	unsigned follows;  /* of them, to a followed thread's CPU */
};

/* Reads the sampler's affinity; on = false when it cannot, or when there
 * is one CPU only.  can_follow: a real-time sampler. */
void placement_start(struct placement *pl, bool wanted, bool can_follow);

/* Pure: the affinity a KEEP OFF sampler should have, given the CPUs
 * target threads want now: the allowed CPUs minus the wanted ones, or all
 * the allowed ones when every one is wanted (a narrower affinity left from
 * an earlier round would tie the sampler to a CPU as busy as the rest).
 * When none is wanted it stays as it is: a thread between its bursts
 * sleeps on the CPU it will wake on, and a sampler free to go anywhere
 * drifts back to it (measured: 3.7 % of ticks in a burst of 10 %).
 * false: keep the current one; true: *out is the new one.  (my_cpu is
 * where it runs: moving costs a migration only when it is wanted.) */
bool placement_choose(const cpu_set_t *allowed, const cpu_set_t *current, const cpu_set_t *wanted,
		      int my_cpu, cpu_set_t *out);

/* Pure: the affinity a FOLLOW sampler should have: one CPU, where a target
 * thread runs now - the one it is on if that is wanted (a move costs),
 * else the lowest allowed one wanted.  None wanted: it stays (the thread
 * between bursts sleeps on the CPU it will wake on, ours if it last ran
 * there).  false: keep the current one; true: *out is the new one. */
bool placement_follow(const cpu_set_t *allowed, const cpu_set_t *current, const cpu_set_t *wanted,
		      cpu_set_t *out);

/* Applies placement_follow to the CPUs of followed threads when there are
 * any (and the sampler can), else placement_choose to the CPUs all target
 * threads want; returns the CPU moved to (as reported by the kernel after
 * the move), or -1 when it stayed. */
int placement_apply(struct placement *pl, const cpu_set_t *wanted, const cpu_set_t *followed,
		    int my_cpu);

/* Another thread of ours moved the sampler to cpu alone (resume_here.h):
 * its affinity is that one now. */
void placement_moved(struct placement *pl, int cpu);

/* Back to the affinity it started with (before naming). */
void placement_end(struct placement *pl);

#endif
