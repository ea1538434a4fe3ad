/* overhead.h - --max-overhead: a bound on what sampling costs, kept
 * while sampling.
 *
 * Two costs, one budget (a share, e.g. 1 %):
 *   - each target thread is kept stopped at most that share of its wall
 *     time, over a sliding window (OVERHEAD_WINDOW_NS), counting every
 *     stop we cause, from the interrupt (or the trap) to PTRACE_CONT;
 *   - the sampler's own CPU time is at most that share of the machine's
 *     (all its CPUs): on a busy server it is a cost to the server too.
 * A thread that would cost more is stopped at fewer of the ticks that
 * need a stop (a thread that runs: blocked threads are read without one
 * and cost nothing), the share that gets one held by a controller; the
 * ticks that had none are counted with its next stop, in the state and
 * stack that stop saw - the ticks stay where they fell, only the stack
 * seen is shared by its neighbours, never an earlier one.  When the
 * sampler itself costs more, the ticks come less often (still at random
 * intervals).  Each is raised again when the cost allows.
 *
 * The controllers are pure functions, unit-tested.
 */
#ifndef PTRACE_PROFILER_SAMPLE_OVERHEAD_H
#define PTRACE_PROFILER_SAMPLE_OVERHEAD_H

#include <stdbool.h>
#include <stdint.h>

#define OVERHEAD_WINDOW_NS 250000000ULL /* the sliding window's time constant */
#define OVERHEAD_MIN_RATE 0.005         /* at least one stop in 200 such ticks */
#define OVERHEAD_MAX_SCALE 1000.0       /* ticks at most 1000 times rarer */
#define OVERHEAD_NOT_STOPPED "[not stopped: --max-overhead]"

/* One thread's budget. */
struct overhead_thread {
	double rate;        /* of its ticks that need a stop, the share that gets one */
	double credit;      /* stops earned, spent one at a time */
	/* over the window (decayed sums) */
	double stopped_ns;  /* its stopped time */
	double wall_ns;     /* the window's time */
	double needs;       /* ticks that needed a stop */
	double stops;       /* stops made */
	uint64_t last_ns;   /* when the sums were last decayed */
	double lowest_rate; /* the lowest rate held, for the summary */
	uint64_t owed;      /* ticks that needed a stop and had none yet */
	bool resumed;       /* its wait for a CPU after our last resume: */
	uint64_t wait_at_resume_ns, resumed_ns; /* its schedstat then */
};

/* Starts a thread's budget at now_ns: every stop allowed. */
void overhead_thread_start(struct overhead_thread *t, uint64_t now_ns);

/* A tick that needs a stop of the thread, at now_ns: may it have one?
 * budget: the share allowed (0: no bound: always).  Decays the window,
 * adjusts the rate, spends a stop's credit. */
bool overhead_may_stop(struct overhead_thread *t, uint64_t now_ns, double budget);

/* A stop of the thread kept it stopped frozen_ns. */
void overhead_stopped(struct overhead_thread *t, uint64_t frozen_ns);

/* We resumed it at resumed_ns, its schedstat's queued time wait_ns: the
 * wait for a CPU that follows is the stop's too, counted at its next look
 * (overhead_looked) as far as its queued time grew, at most the time
 * since. */
void overhead_note_resume(struct overhead_thread *t, uint64_t wait_ns, uint64_t resumed_ns);
void overhead_looked(struct overhead_thread *t, uint64_t wait_ns, uint64_t now_ns);

/* Its stopped share over the window, now. */
double overhead_share(const struct overhead_thread *t);

/* Pure: the rate of stops that keeps the thread within 70 % of budget:
 * what a stop costs it (stopped_ns / stops) times how often it needs one
 * (needs / wall_ns) is what every such tick stopped would cost; the rate
 * is the budget's share of that, lowered again by budget / share while
 * the window is over budget (stopped_ns / wall_ns), within
 * [OVERHEAD_MIN_RATE, 1]; 1 when no stop has been measured yet. */
double overhead_next_rate(double budget, double wall_ns, double needs, double stops,
			 double stopped_ns);

/* Pure: the scale of the tick interval (1: as asked) that keeps the
 * sampler's CPU within 70 % of budget of the machine's cpus CPUs: its CPU
 * per tick (cpu_ns / ticks, lately) times the ticks asked for per ns
 * (1 / interval_ns), against budget * cpus; within [1,
 * OVERHEAD_MAX_SCALE]; 1 before anything was measured. */
double overhead_next_scale(double budget, int cpus, double cpu_ns, double ticks,
			   double interval_ns);

#endif
