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
#include <stddef.h>
#include <stdint.h>

#define OVERHEAD_WINDOW_NS 250000000ULL /* the sliding window's time constant */
/* A running thread still gets this many stops a second at least, so that
 * its ticks borrow a stack at most half a second old.  Not a share of its
 * ticks: one in 200, as before, was 50 stops a second at -d 100us, and on a
 * loaded machine, where a stop costs a CPU-bound thread its place on the
 * CPU (1-3 ms each here), that alone was over a 1 % budget. */
#define OVERHEAD_MIN_STOPS_PER_S 2.0
#define OVERHEAD_START_RATE 0.01     /* of the ticks that need a stop, at first */
#define OVERHEAD_RAMP_NS 25000000ULL /* the rate at most doubles in this time */
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
	bool resumed;       /* its wait for a CPU after our last resume: */
	uint64_t wait_at_resume_ns, runs_at_resume, resumed_ns; /* its schedstat then */
	uint64_t waited_after_ns; /* in all (not decayed): for the summary */
	bool resumed_running;     /* the last resume ended a stop that took
				     it off a CPU: its wait is also */
	uint64_t waited_after_running_ns; /* in here (the summary) */
};

/* What the stops that took a thread off a CPU cost it, measured on the
 * thread itself.  Its schedstat (time on a CPU, run count) is read in
 * every stop, while it is stopped, when neither moves.  Between two such
 * stops whose run count grew by one - only our resume put it back on a
 * CPU, nothing took it off but the second stop - the wall time it was
 * not on a CPU belongs to the stops: the end of the first (its wake-up,
 * its wait for a CPU) and the start of the second (from its way off the
 * CPU to our resume).  Over many such pairs the mean is a stop's whole
 * time off its CPU, the wake-up of an idle CPU included, which neither
 * our clock nor its wait for a CPU shows (stop_cost.h). */
struct overhead_offcpu {
	bool known;              /* the last stop's counters, of one that
				    took it off a CPU */
	uint64_t at_ns;          /* when they were read (it was stopped) */
	uint64_t run_ns, runs;   /* its time on a CPU, its run count */
	uint64_t sum_ns, pairs;  /* off a CPU between pairs, and how many */
};

/* A stop of the thread, running when taken (was_running) or not; its
 * schedstat read while it was stopped, at at_ns. */
void overhead_offcpu_stop(struct overhead_offcpu *o, bool was_running, uint64_t run_ns,
			  uint64_t runs, uint64_t at_ns);

/* Starts a thread's budget at now_ns: its first tick stopped, the rate
 * low (OVERHEAD_START_RATE) until its costs are measured. */
void overhead_thread_start(struct overhead_thread *t, uint64_t now_ns);

/* A tick that needs a stop of the thread, at now_ns: may it have one?
 * budget: the share allowed (0: no bound: always).  Decays the window,
 * adjusts the rate, spends a stop's credit. */
bool overhead_may_stop(struct overhead_thread *t, uint64_t now_ns, double budget);

/* A stop of the thread kept it stopped frozen_ns. */
void overhead_stopped(struct overhead_thread *t, uint64_t frozen_ns);

/* We resumed it at resumed_ns, its schedstat then (read while stopped)
 * wait_ns queued and runs: the wait for a CPU that follows is the stop's
 * too.  The kernel adds a wait to schedstat only when the wait ends, so
 * it is counted at the first look (overhead_looked) that finds the thread
 * has run since: as far as its queued time grew, at most the time since
 * the resume, against the budget; in waited_after_ns, divided by the
 * times it was put on a CPU since (a thread that competes for a CPU
 * queues anyway), and in waited_after_running_ns too when the stop took
 * it off a CPU (was_running). */
void overhead_note_resume(struct overhead_thread *t, uint64_t wait_ns, uint64_t runs,
			  uint64_t resumed_ns, bool was_running);
void overhead_looked(struct overhead_thread *t, uint64_t wait_ns, uint64_t runs, uint64_t now_ns);

/* Its stopped share over the window, now. */
double overhead_share(const struct overhead_thread *t);

/* Pure: the rate of stops that keeps the thread within 70 % of budget:
 * what a stop costs it (stopped_ns / stops) times how often it needs one
 * (needs / wall_ns) is what every such tick stopped would cost; the rate
 * is the budget's share of that, lowered again by budget / share while
 * the window is over budget (stopped_ns / wall_ns), within
 * [overhead_floor, 1]; 1 when no stop has been measured yet. */
double overhead_next_rate(double budget, double wall_ns, double needs, double stops,
			 double stopped_ns);

/* Pure: the lowest rate, OVERHEAD_MIN_STOPS_PER_S for a thread that needs
 * needs stops in wall_ns (at most 1). */
double overhead_floor(double wall_ns, double needs);

/* Pure: the scale of the tick interval (1: as asked) that keeps the
 * sampler's CPU within 70 % of budget of the machine's cpus CPUs: its CPU
 * per tick (cpu_ns / ticks, lately) times the ticks asked for per ns
 * (1 / interval_ns), against budget * cpus; within [1,
 * OVERHEAD_MAX_SCALE]; 1 before anything was measured. */
double overhead_next_scale(double budget, int cpus, double cpu_ns, double ticks,
			   double interval_ns);

/* Pure: the same beside the report's reads (activity_reads.h), which
 * took reads_share of a CPU (their time over the wall time): the rounds
 * get the 70 % less that, and never less than the (1 - part) the reads
 * leave them.  reads_share 0: overhead_next_scale's. */
double overhead_next_scale_beside(double budget, int cpus, double cpu_ns, double ticks,
				  double interval_ns, double reads_share, double part);

/* Pure: the scale of the reads' interval (1: as asked) that keeps them
 * within part of the 70 % of budget, at per_read_ns a read tick; within
 * [1, OVERHEAD_MAX_SCALE]; 1 before anything was measured. */
double overhead_reads_scale(double budget, int cpus, double per_read_ns, double interval_ns,
			    double part);

/* What the bound makes of the rate, said once at the start (0.3 s in,
 * from the CPU the rounds took): "ptrace_profiler:
 * --max-overhead 1%: about 22 ticks a second, not the 1000 of -d 1ms (a
 * round costs 455 us of our CPU); -n 5000 takes about 3.8 min".  Into
 * out; 0 (out "") when the rate held is near the one asked (scale < 1.5):
 * nothing to say.  count is -n, 0 none. */
size_t overhead_rate_line(char *out, size_t outsz, double budget, uint64_t interval_ns,
			  double scale, uint64_t count, double round_cpu_ns);

#endif
