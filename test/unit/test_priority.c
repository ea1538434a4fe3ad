/* Unit tests: the lift (priority.h) puts a paused sampler back under
 * SCHED_FIFO when the tick is due, and a cancelled one never does.
 * Skipped without the right to SCHED_FIFO (not root, no RLIMIT_RTPRIO). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <time.h>
#include <cmocka.h>

#include "base/clock.h"
#include "base/priority.h"

/* The caller's policy, without SCHED_RESET_ON_FORK. */
static int policy(void)
{
	return sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
}

static void spin_until(uint64_t t)
{
	while (now_ns() < t)
		;
}

static void test_lifted_when_due(void **state)
{
	(void)state;
	struct priority_report r;
	priority_for_sampling(&r);
	if (!r.realtime)
		skip();
	struct priority_lift *l = priority_lift_new(&r);
	assert_non_null(l);
	priority_pause(&r);
	assert_int_equal(policy(), SCHED_OTHER);
	uint64_t due = now_ns() + 20000000;
	priority_lift_at(l, due);
	spin_until(due - 5000000);
	int early = policy();
	assert_true(early == SCHED_OTHER || now_ns() >= due); /* not before */
	while (policy() != SCHED_FIFO && now_ns() < due + 1000000000ULL)
		;
	assert_int_equal(policy(), SCHED_FIFO);
	assert_true(now_ns() >= due);
	print_message("lifted %.2f ms after it was due\n", (double)(now_ns() - due) / 1e6);
	assert_int_equal(priority_lift_count(l), 1);
	/* armed, then cancelled: never lifted */
	priority_pause(&r);
	due = now_ns() + 10000000;
	priority_lift_at(l, due);
	priority_lift_cancel(l);
	spin_until(due + 20000000);
	assert_int_equal(policy(), SCHED_OTHER);
	assert_int_equal(priority_lift_count(l), 1);
	/* re-armed earlier than a cancelled time it still sleeps for */
	due = now_ns() + 40000000;
	priority_lift_at(l, due);
	priority_lift_cancel(l);
	uint64_t sooner = now_ns() + 5000000;
	priority_lift_at(l, sooner);
	while (policy() != SCHED_FIFO && now_ns() < sooner + 1000000000ULL)
		;
	assert_int_equal(policy(), SCHED_FIFO);
	assert_true(now_ns() >= sooner && now_ns() < due); /* the sooner time */
	assert_int_equal(priority_lift_count(l), 2);
	priority_lift_free(l);
	priority_for_naming();
}

/* Not real-time: no lift, and every call on it does nothing. */
static void test_none_without_realtime(void **state)
{
	(void)state;
	struct priority_report r = { .realtime = false };
	struct priority_lift *l = priority_lift_new(&r);
	assert_null(l);
	priority_lift_at(l, now_ns());
	priority_lift_cancel(l);
	assert_int_equal(priority_lift_count(l), 0);
	priority_lift_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lifted_when_due),
		cmocka_unit_test(test_none_without_realtime),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
