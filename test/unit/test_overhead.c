/* Unit tests: --max-overhead's controllers (overhead.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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
	/* every tick stopped so far (20 %): 20 times lower again */
	rate = overhead_next_rate(0.01, 250 * MS, 2500, 2500, 2500 * 20000.0);
	assert_true(fabs(rate - 0.00175) < 0.00001);
	/* within budget already: every tick */
	assert_true(overhead_next_rate(0.5, 250 * MS, 2500, 2500, 2500 * 20000.0) == 1);
	/* the floor: 2 stops a second of the 10 000 it needs */
	assert_true(fabs(overhead_floor(250 * MS, 2500) - 0.0002) < 1e-9);
	/* one that needs a stop a second: every one */
	assert_true(overhead_floor(1000 * MS, 1) == 1);
	/* nothing measured yet: every tick */
	assert_true(overhead_next_rate(0.01, 250 * MS, 10, 0, 0) == 1);
	/* a hopeless budget: the floor */
	assert_true(overhead_next_rate(1e-9, 250 * MS, 2500, 2500, 2500 * 20000.0) ==
		    overhead_floor(250 * MS, 2500));
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

/* Beside the report's reads: 1 % of 2 CPUs at 70 % is 14 ms a second.
 * Reads of 100 us a tick asked every 1 ms would take 100 ms a second:
 * spaced to take 60 % of it (8.4 ms), 11.9 times rarer.  Rounds of
 * 1 ms each then get what the reads left: with the reads at 8.4 ms a
 * second, 5.6 ms (179 times rarer than every 1 ms); reads taking more
 * than their part still leave the rounds 40 %. */
static void reads_take_their_part(void **state)
{
	(void)state;
	assert_true(fabs(overhead_reads_scale(0.01, 2, 100000, 1000000, 0.6) - 11.9) < 0.1);
	assert_true(overhead_reads_scale(0.01, 2, 1000, 1000000, 0.6) == 1);
	assert_true(overhead_reads_scale(0.01, 2, 0, 1000000, 0.6) == 1);
	double rounds = overhead_next_scale_beside(0.01, 2, 10 * 1e6, 10, 1000000, 0.0084, 0.6);
	assert_true(fabs(rounds - 178.6) < 0.5);
	double most = overhead_next_scale_beside(0.01, 2, 10 * 1e6, 10, 1000000, 0.5, 0.6);
	assert_true(fabs(most - 1e6 / (0.4 * 0.014 * 1e6)) < 0.5);
	assert_true(overhead_next_scale_beside(0.01, 2, 10 * 1e6, 10, 1000000, 0, 0.6) ==
		    overhead_next_scale(0.01, 2, 10 * 1e6, 10, 1000000));
}

/* The rate the bound holds, said at the start: the ticks a second, those
 * -d asks, what a round costs, and how long -n takes; nothing where the
 * rate is near the one asked. */
static void rate_said(void **state)
{
	(void)state;
	char line[256];
	assert_true(overhead_rate_line(line, sizeof(line), 0.01, 1000000, 45.5, 0, 455000) > 0);
	assert_string_equal(line, "ptrace_profiler: --max-overhead 1%: about 22 ticks a second, not "
				  "the 1000 of -d 1ms (a round costs 455 us of our CPU)");
	overhead_rate_line(line, sizeof(line), 0.005, 100000, 500, 5000, 187000);
	assert_string_equal(line, "ptrace_profiler: --max-overhead 0.5%: about 20 ticks a second, "
				  "not the 10000 of -d 100us (a round costs 187 us of our CPU); -n "
				  "5000 takes about 4.2 min");
	overhead_rate_line(line, sizeof(line), 0.01, 10000000, 20, 50, 90000);
	assert_string_equal(line, "ptrace_profiler: --max-overhead 1%: about 5.0 ticks a second, not "
				  "the 100 of -d 10ms (a round costs 90 us of our CPU); -n 50 takes "
				  "about 10 s");
	overhead_rate_line(line, sizeof(line), 0.01, 1500000, 2, 0, 90000);
	assert_non_null(strstr(line, " of -d 1500us "));
	assert_int_equal(overhead_rate_line(line, sizeof(line), 0.01, 1000000, 1.4, 0, 1000), 0);
	assert_string_equal(line, "");
	assert_int_equal(overhead_rate_line(line, 20, 0.01, 1000000, 45.5, 0, 455000), 19);
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

/* After our resume the thread waits for a CPU; schedstat shows the wait
 * only once it ran.  A look before that counts nothing yet and keeps
 * waiting; the first look after it ran counts the wait, at most the time
 * since the resume, once. */
static void wait_after_resume_counted_once_run(void **state)
{
	(void)state;
	struct overhead_thread t;
	overhead_thread_start(&t, 0);
	overhead_stopped(&t, 20000);
	overhead_note_resume(&t, 1000000, 50, 100000, false);
	overhead_looked(&t, 1000000, 50, 150000); /* still queued: nothing yet */
	assert_true(t.waited_after_ns == 0);
	overhead_looked(&t, 1060000, 51, 250000); /* ran after 60 us queued */
	assert_true(t.waited_after_ns == 60000);
	assert_true(fabs(t.stopped_ns - 80000.0) < 1);
	overhead_looked(&t, 2000000, 60, 400000); /* later waits are not ours */
	assert_true(t.waited_after_ns == 60000);
	/* a wait longer than the time since the resume: what we can owe */
	overhead_note_resume(&t, 2000000, 60, 1000000, false);
	overhead_looked(&t, 9000000, 61, 1100000);
	assert_true(t.waited_after_ns == 160000);
	/* put on a CPU 4 times since: the budget counts the whole wait, the
	 * summary's estimate a quarter of it */
	double before = t.stopped_ns;
	overhead_note_resume(&t, 9000000, 61, 2000000, false);
	overhead_looked(&t, 9400000, 65, 3000000);
	assert_true(t.waited_after_ns == 260000);
	assert_true(fabs(t.stopped_ns - before - 400000.0) < 1);
}

/* Off a CPU between two stops that found it running, with one run
 * between (our resume's): the wall time less its time on a CPU.  A pair
 * with another run between (it slept, or was preempted), or a stop of a
 * thread not running, tells nothing. */
static void offcpu_between_running_stops(void **state)
{
	(void)state;
	struct overhead_offcpu o = { 0 };
	overhead_offcpu_stop(&o, true, 1000000, 10, 5000000);
	assert_true(o.pairs == 0); /* one stop: no pair yet */
	overhead_offcpu_stop(&o, true, 1070000, 11, 5100000); /* 70 us on, 30 off */
	assert_true(o.pairs == 1 && o.sum_ns == 30000);
	overhead_offcpu_stop(&o, true, 1100000, 13, 5200000); /* ran twice */
	assert_true(o.pairs == 1 && o.sum_ns == 30000);
	overhead_offcpu_stop(&o, false, 1150000, 14, 5300000); /* was not running */
	assert_true(o.pairs == 1);
	overhead_offcpu_stop(&o, true, 1200000, 15, 5400000); /* after one not running */
	assert_true(o.pairs == 1);
	overhead_offcpu_stop(&o, true, 1280000, 16, 5500000); /* 80 on, 20 off */
	assert_true(o.pairs == 2 && o.sum_ns == 50000);
	/* counters that cannot be (more on a CPU than the wall time) */
	overhead_offcpu_stop(&o, true, 1480000, 17, 5600000);
	assert_true(o.pairs == 2 && o.sum_ns == 50000);
}

/* The wait after a resume that ended a stop of a running thread is
 * counted apart too. */
static void wait_after_running_stop_apart(void **state)
{
	(void)state;
	struct overhead_thread t;
	overhead_thread_start(&t, 0);
	overhead_note_resume(&t, 1000000, 50, 100000, true);
	overhead_looked(&t, 1010000, 51, 200000);
	overhead_note_resume(&t, 1010000, 51, 300000, false);
	overhead_looked(&t, 1030000, 52, 400000);
	assert_true(t.waited_after_ns == 30000);
	assert_true(t.waited_after_running_ns == 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_from_costs),
		cmocka_unit_test(reads_take_their_part),
		cmocka_unit_test(wait_after_resume_counted_once_run),
		cmocka_unit_test(offcpu_between_running_stops),
		cmocka_unit_test(wait_after_running_stop_apart),
		cmocka_unit_test(scale_from_costs),
		cmocka_unit_test(rate_said),
		cmocka_unit_test(a_thread_kept_within_budget),
	};
	return cmocka_run_group_tests_name("overhead", tests, NULL, NULL);
}
