/* Unit tests: tick deadlines, and the ticks a round stands for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "sample/schedule.h"

#define D 100000ULL /* -d 100us */

/* Exponential with mean d (a Poisson process): ticks fall anywhere,
 * also in the half interval after the last one. */
static void intervals_around_d(void **state)
{
	(void)state;
	struct schedule sc;
	schedule_start(&sc, D, 0, 12345);
	uint64_t sum = 0, below_half = 0, above_3d = 0, n = 200000;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t iv = schedule_interval(&sc);
		assert_true(iv >= 1);
		sum += iv;
		below_half += iv < D / 2;
		above_3d += iv > 3 * D;
	}
	double mean = (double)sum / (double)n;
	assert_true(mean > 0.99 * D && mean < 1.01 * D);
	/* P(< d/2) = 1 - e^-0.5 = 0.393; P(> 3d) = e^-3 = 0.050 */
	assert_true(fabs((double)below_half / (double)n - 0.393) < 0.005);
	assert_true(fabs((double)above_3d / (double)n - 0.050) < 0.003);
	/* -d 1ns: never a zero interval (the round loop would not end) */
	schedule_start(&sc, 1, 0, 7);
	for (int i = 0; i < 1000; i++)
		assert_true(schedule_interval(&sc) >= 1);
}

/* A quick round stands for its own tick; the next is due after it. */
static void quick_round(void **state)
{
	(void)state;
	struct schedule sc;
	schedule_start(&sc, D, 1000000, 1);
	struct round_ticks rt = schedule_round(&sc, 1000020, 1000030);
	assert_true(rt.stands_for >= 1);
	assert_int_equal(rt.missed, 0);
	assert_true(sc.due_ns > 1000030); /* the next is due after it */
}

/* A round that ran for 10 intervals (a stop of a running thread is slow
 * here): the ticks due meanwhile stand with it, none is dropped. */
static void long_round_keeps_its_ticks(void **state)
{
	(void)state;
	uint64_t total = 0;
	struct schedule sc;
	schedule_start(&sc, D, 0, 99);
	uint64_t t = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t began = sc.due_ns + 20000; /* woke 20 us late */
		struct round_ticks rt = schedule_round(&sc, began, began + 10 * D);
		assert_int_equal(rt.missed, 0);
		assert_true(rt.stands_for >= 1);
		total += rt.stands_for;
		t = began + 10 * D;
	}
	/* every tick due is counted once: as many as the time holds */
	double expected = (double)t / D;
	assert_true(total > 0.98 * expected && total < 1.02 * expected);
}

/* The tick a followed thread's timer is armed for (resume_here.h): the
 * first the rounds to come find due at or after a time, not drawn from
 * the schedule itself; the ticks before it stand with its round. */
static void first_from_is_a_tick_to_come(void **state)
{
	(void)state;
	struct schedule sc;
	schedule_start(&sc, D, 0, 4242);
	for (int i = 0; i < 1000; i++) {
		struct schedule before = sc;
		uint64_t from = sc.due_ns + 150000; /* 1.5 d ahead */
		uint64_t t = schedule_first_from(&sc, from, 64);
		assert_memory_equal(&before, &sc, sizeof(sc)); /* a copy's draws */
		assert_true(t >= from);
		/* a quick round, then the next rounds' ticks until t: one of them */
		schedule_round(&sc, sc.due_ns + 10, sc.due_ns + 20);
		while (sc.due_ns < t) {
			assert_true(sc.due_ns < from); /* t is the first at from or later */
			schedule_round(&sc, sc.due_ns + 10, sc.due_ns + 20);
		}
		assert_true(sc.due_ns == t);
	}
	/* none of the next ticks far enough: 0 */
	assert_int_equal(schedule_first_from(&sc, sc.due_ns + 1000 * D, 4), 0);
}

/* Woken late within an interval: that tick stands with the round; a stall
 * of several intervals before it began: those are missed. */
static void stall_is_missed(void **state)
{
	(void)state;
	struct schedule sc;
	schedule_start(&sc, D, 0, 5);
	struct round_ticks rt = schedule_round(&sc, 20 * D, 20 * D + 10000);
	assert_true(rt.missed >= 8 && rt.missed <= 32); /* 19 on average */
	assert_true(rt.stands_for >= 1 && rt.stands_for <= 8);
	/* a stall of hours at -d 100ns ends at once */
	schedule_start(&sc, 100, 0, 5);
	rt = schedule_round(&sc, 3600ULL * 1000000000ULL, 3600ULL * 1000000000ULL + 1000);
	assert_true(rt.missed > 35000000000ULL && rt.missed < 37000000000ULL);
	assert_true(sc.due_ns > 3600ULL * 1000000000ULL + 1000);
}

/* What a naming that ran past the tick makes the loop miss, estimated
 * before the loop counts it: what schedule_round counts on average, at
 * the interval the ticks have now - spaced by --max-overhead, far fewer
 * than at -d. */
static void missed_expected_as_the_loop_counts(void **state)
{
	(void)state;
	/* not late by a whole interval: none */
	assert_int_equal(schedule_missed_expected(D, 1000000, 1000000), 0);
	assert_int_equal(schedule_missed_expected(D, 1000000, 999000), 0);
	assert_int_equal(schedule_missed_expected(D, 1000000, 1000000 + D), 0);
	/* 1.4 intervals late: 0.4 of a tick, none; 1.6: one */
	assert_int_equal(schedule_missed_expected(D, 1000000, 1000000 + 14 * D / 10), 0);
	assert_int_equal(schedule_missed_expected(D, 1000000, 1000000 + 16 * D / 10), 1);
	/* 300 ms late at -d 100us: 2999; the same with the ticks spaced
	 * 50 times (5 ms apart): 59 */
	assert_int_equal(schedule_missed_expected(D, 0, 300000000), 2999);
	assert_int_equal(schedule_missed_expected(50 * D, 0, 300000000), 59);
	assert_int_equal(schedule_missed_expected(0, 0, 300000000), 0);
	/* against the loop: rounds that began k intervals late, many seeds */
	for (uint64_t spaced = 1; spaced <= 64; spaced *= 8) {
		uint64_t iv = spaced * D, late = 37 * iv + iv / 3, counted = 0, n = 2000;
		for (uint64_t seed = 1; seed <= n; seed++) {
			struct schedule sc;
			schedule_start(&sc, iv, 1000000, seed);
			counted += schedule_round(&sc, 1000000 + late, 1000000 + late + 1000).missed;
		}
		double mean = (double)counted / (double)n;
		uint64_t expected = schedule_missed_expected(iv, 1000000, 1000000 + late);
		assert_int_equal(expected, 36);
		assert_true(fabs(mean - (double)expected) < 1.0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intervals_around_d),
		cmocka_unit_test(quick_round),
		cmocka_unit_test(long_round_keeps_its_ticks),
		cmocka_unit_test(stall_is_missed),
		cmocka_unit_test(first_from_is_a_tick_to_come),
		cmocka_unit_test(missed_expected_as_the_loop_counts),
	};
	return cmocka_run_group_tests_name("schedule", tests, NULL, NULL);
}
