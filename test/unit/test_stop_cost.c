/* Unit tests: a stop's unseen cost, measured on a child of ours
 * (stop_cost.h): the child is stopped as many times as asked and sees
 * the stops in its clock; the figure is never negative. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sample/stop_cost.h"

static void a_child_of_ours_is_stopped_and_counts_it(void **state)
{
	(void)state;
	struct stop_cost c;
	stop_cost_measure(&c);
	assert_true(c.known);
	assert_int_equal(c.stops, STOP_COST_STOPS);
	assert_true(c.held_us > 0);
	assert_true(c.lost_us > 0);
	/* (how the two compare is time: judged by 27-overhead, not here,
	 * where the sanitizer's build runs it too) */
	assert_true(c.extra_us >= 0);
	assert_true(c.extra_us <= c.lost_us);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_child_of_ours_is_stopped_and_counts_it),
	};
	return cmocka_run_group_tests_name("stop_cost", tests, NULL, NULL);
}
