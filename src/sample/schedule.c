/* schedule.c - tick deadlines and what a round stands for (schedule.h). */
#include "sample/schedule.h"

#include <math.h>
#include <stddef.h>

/* Past this many intervals, ticks are counted by the mean interval, not
 * drawn one by one (a stall of seconds at -d 100ns). */
#define DRAWN_MAX 64

void schedule_start(struct schedule *sc, uint64_t interval_ns, uint64_t start_ns, uint64_t seed)
{
	sc->interval_ns = interval_ns ? interval_ns : 1;
	/* splitmix64 of the seed: xorshift's first draws from a small state
	 * (a seed of 5) are tiny, and -ln of a tiny u is a huge interval */
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	sc->rng = (z ^ (z >> 31)) | 1;
	sc->due_ns = start_ns;
}

uint64_t schedule_interval(struct schedule *sc)
{
	sc->rng ^= sc->rng << 13;
	sc->rng ^= sc->rng >> 7;
	sc->rng ^= sc->rng << 17;
	/* exponential, mean d: u in (0, 1], -ln(u) in [0, 44.4) */
	double u = (double)((sc->rng >> 11) + 1) / 9007199254740992.0;
	double i = -log(u) * (double)sc->interval_ns;
	return i >= 1 ? (uint64_t)i : 1;
}

/* Moves *due past until (due > until), counting the ticks passed (and
 * keeping their times in rt, when given). */
static uint64_t pass(struct schedule *sc, uint64_t *due, uint64_t until, struct round_ticks *rt)
{
	uint64_t n = 0;
	if (*due <= until && (until - *due) / sc->interval_ns > DRAWN_MAX) {
		uint64_t bulk = (until - *due) / sc->interval_ns;
		n += bulk;
		*due += bulk * sc->interval_ns;
	}
	for (; *due <= until; *due += schedule_interval(sc)) {
		if (rt && rt->n_timed < ROUND_TICKS_TIMED)
			rt->timed_ns[rt->n_timed++] = *due;
		n++;
	}
	return n;
}

struct round_ticks schedule_round(struct schedule *sc, uint64_t began_ns, uint64_t ended_ns)
{
	struct round_ticks rt = { .stands_for = 1 };
	uint64_t due = sc->due_ns + schedule_interval(sc);
	/* due a whole interval or more before it began: a stall, missed */
	if (began_ns > sc->interval_ns)
		rt.missed = pass(sc, &due, began_ns - sc->interval_ns, NULL);
	rt.stands_for += pass(sc, &due, ended_ns, &rt); /* they stand with it */
	sc->due_ns = due;
	return rt;
}

uint64_t schedule_first_from(const struct schedule *sc, uint64_t from_ns, unsigned most)
{
	struct schedule ahead = *sc;
	uint64_t due = ahead.due_ns;
	for (unsigned i = 0; i < most; i++) {
		due += schedule_interval(&ahead);
		if (due >= from_ns)
			return due;
	}
	return 0;
}

uint64_t schedule_missed_expected(uint64_t interval_ns, uint64_t due_ns, uint64_t began_ns)
{
	if (!interval_ns || began_ns <= due_ns || began_ns - due_ns <= interval_ns)
		return 0;
	return (began_ns - due_ns - interval_ns + interval_ns / 2) / interval_ns;
}
