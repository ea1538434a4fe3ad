/* Unit tests: --max-overhead's controllers (overhead.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sample/overhead.h"

#define MS 1000000.0

/* A CPU-bound thread at -d 100us: every tick needs a stop (10 000 a
 * second), each keeps it stopped 20 us: 20 % of its time.  For 1 % it may
 * have one stop in 29 such ticks (0.7 of the budget), fewer while its
 * window is over the budget already. */
static void rate_from_costs(void **state)
{
	(void)state;
	/* its window held at that rate (87.5 stops: 0.7 % of it stopped) */
	double rate = overhead_next_rate(0.01, 250 * MS, 2500, 87.5, 87.5 * 20000.0);
	assert_true(fabs(rate - 0.035) < 0.001);
	/* the same stops, but the window 2 % stopped (waits after them): half */
	rate = overhead_next_rate(0.01, 250 * MS, 2500, 250, 250 * 20000.0);
	assert_true(fabs(rate - 0.0175) < 0.0005);
	/* every tick stopped so far (20 %): the floor */
	assert_true(overhead_next_rate(0.01, 250 * MS, 2500, 2500, 2500 * 20000.0) ==
		    OVERHEAD_MIN_RATE);
	/* within budget already: every tick */
	assert_true(overhead_next_rate(0.5, 250 * MS, 2500, 2500, 2500 * 20000.0) == 1);
	/* nothing measured yet: every tick */
	assert_true(overhead_next_rate(0.01, 250 * MS, 10, 0, 0) == 1);
	/* a hopeless budget: the floor */
	assert_true(overhead_next_rate(1e-9, 250 * MS, 2500, 2500, 2500 * 20000.0) ==
		    OVERHEAD_MIN_RATE);
}

/* The sampler at 40 us of CPU per tick, asked one every 100 us, on 2
 * CPUs: 20 % of the machine.  For 1 %: ticks 29 times rarer. */
static void scale_from_costs(void **state)
{
	(void)state;
	double scale = overhead_next_scale(0.01, 2, 1000 * 40000.0, 1000, 100000);
	assert_true(fabs(scale - 28.6) < 0.1);
	assert_true(overhead_next_scale(0.5, 2, 1000 * 40000.0, 1000, 100000) == 1);
	assert_true(overhead_next_scale(0.01, 2, 0, 0, 100000) == 1);
	assert_true(overhead_next_scale(1e-9, 2, 1000 * 40000.0, 1000, 100000) == OVERHEAD_MAX_SCALE);
}

/* Driven tick by tick, a thread whose stops cost 20 us each at 10 000
 * needs a second settles near the budget, and the ticks with no stop
 * are few enough to be owed, not lost. */
static void a_thread_kept_within_budget(void **state)
{
	(void)state;
	struct overhead_thread t;
	overhead_thread_start(&t, 0);
	uint64_t stopped = 0, stops = 0, ticks = 0;
	for (uint64_t now = 100000; now <= 2000000000ULL; now += 100000) {
		ticks++;
		if (overhead_may_stop(&t, now, 0.01)) {
			overhead_stopped(&t, 20000);
			stopped += 20000;
			stops++;
		}
	}
	double share = (double)stopped / 2e9;
	assert_true(share < 0.01);
	assert_true(share > 0.004);
	assert_true(t.lowest_rate < 0.06);
	assert_true(overhead_share(&t) < 0.01);
	/* no bound: every tick */
	overhead_thread_start(&t, 0);
	for (int i = 0; i < 100; i++)
		assert_true(overhead_may_stop(&t, (uint64_t)i * 100000, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_from_costs),
		cmocka_unit_test(scale_from_costs),
		cmocka_unit_test(a_thread_kept_within_budget),
	};
	return cmocka_run_group_tests_name("overhead", tests, NULL, NULL);
}
