/* schedule.h - when the ticks fall, and which ticks a round stands for.
 *
 * Ticks are absolute deadlines at random intervals, exponential with mean
 * -d: a Poisson process, whose ticks see the target's states in the
 * shares of time it spends in them, whatever its rhythm.  A fixed
 * interval can run in lockstep with a target's own timer and never see
 * the work it does after each tick; intervals uniform in [d/2, 3d/2], as
 * before, never fell in the half interval after a tick - where the
 * sampler's own round and its aftermath are - and counted two threads
 * spinning beside 500 idle ones on a CPU 90 % of their samples against
 * 71-75 % by schedstat.  Their times are drawn in advance and do not
 * depend on what the target does.
 *
 * A round does not always end before the next tick is due: stopping a
 * thread that runs costs tens of microseconds here, at -d 100us a round
 * with one running thread took 110 us on average.  Such ticks are not
 * dropped: a tick that falls due while a round runs is counted with that
 * round's observations, the nearest we have of that moment (a thread the
 * round stopped is frozen in the state it shows; one that changed since
 * its look is read again then: round.c, mid_round_pass).  Dropping them, as the
 * sampler did before, drops ticks exactly when threads run: a thread that
 * works 1 ms every 10 ms showed 3-4 % of its time in that work at -d
 * 100us, against 10 % by its own clock.  So do the ticks that fell due
 * while the sampler woke up for a round (20-70 us here).  Ticks due a
 * whole interval or more before a round began fell in a stall of the
 * sampler (it had no CPU, or named a window): they are missed, and
 * counted as such.
 *
 * Pure: no clock is read here; unit-tested.
 */
#ifndef PTRACE_PROFILER_SAMPLE_SCHEDULE_H
#define PTRACE_PROFILER_SAMPLE_SCHEDULE_H

#include <stdint.h>

struct schedule {
	uint64_t interval_ns; /* -d: the mean interval */
	uint64_t rng;         /* xorshift state */
	uint64_t due_ns;      /* the tick the next round serves */
};

/* The first tick is due at start_ns.  seed: any value (0 is mended). */
void schedule_start(struct schedule *sc, uint64_t interval_ns, uint64_t start_ns, uint64_t seed);

/* The next interval: exponential with mean d, at least 1 ns. */
uint64_t schedule_interval(struct schedule *sc);

#define ROUND_TICKS_TIMED 64 /* the times kept of the ticks due during a round */

struct round_ticks {
	uint64_t stands_for; /* the tick it served, and those due while it ran */
	uint64_t missed;     /* due an interval or more before it began */
	/* when the ticks due while it ran fell due, the first of them (a
	 * thread it kept stopped was frozen at those, not running) */
	unsigned n_timed;
	uint64_t timed_ns[ROUND_TICKS_TIMED];
};

/* A round began at began_ns to serve the tick due at sc->due_ns, and
 * ended at ended_ns: the ticks it stands for and the ticks missed before
 * it; sc->due_ns becomes the first tick due after ended_ns. */
struct round_ticks schedule_round(struct schedule *sc, uint64_t began_ns, uint64_t ended_ns);

/* The first of the ticks after the one due now (sc->due_ns) that falls
 * at from_ns or later, as the rounds to come will find them due (their
 * draws are made now, on a copy); 0 when none of the next most does.
 * (A round that ends before from_ns serves the one due now: the ticks
 * between stand with the round that begins at the one returned.) */
uint64_t schedule_first_from(const struct schedule *sc, uint64_t from_ns, unsigned most);

/* The ticks schedule_round will count missed, on average, when the round
 * that serves the tick due at due_ns begins at began_ns (held up between
 * ticks, naming a window): those due after it and an interval or more
 * before began_ns, at the mean interval the schedule has now (-d spaced
 * by --max-overhead, not -d itself), to the nearest whole tick. */
uint64_t schedule_missed_expected(uint64_t interval_ns, uint64_t due_ns, uint64_t began_ns);

#endif
