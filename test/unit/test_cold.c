#define _GNU_SOURCE
/* Unit tests: threads asleep for long, their full looks in turn (cold.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sample/cold.h"

/* A thousand cold threads at 3.3 us a full look: at 10 ms a two-hundredth
 * of the interval holds 15 of them (every 66th round), at 1 ms 1 or 2
 * (every 660th); an idle server's 7 at 1 ms every 5th round. */
static void full_looks_in_turn(void **state)
{
	(void)state;
	assert_int_equal(cold_look_every(1000, 3300, 10000000), 66);
	assert_int_equal(cold_look_every(1000, 3300, 1000000), 660);
	assert_int_equal(cold_look_every(7, 3300, 1000000), 5);
	assert_int_equal(cold_look_every(10, 3300, 10000000), 1); /* all at every tick */
	assert_int_equal(cold_look_every(0, 3300, 1000000), 1);
	assert_int_equal(cold_look_every(1000, 0, 1000000), 660); /* untimed: the guess */
	assert_int_equal(cold_look_every(5, 3300, 5), 5); /* no budget: one a round */
}

/* Cold after COLD_QUIET_LOOKS reused looks asleep; hot again at once. */
static void cold_and_hot(void **state)
{
	(void)state;
	struct sampled_thread st;
	memset(&st, 0, sizeof(st));
	for (int i = 0; i < COLD_QUIET_LOOKS - 1; i++)
		cold_after_look(&st, ACT_REUSE, 'S');
	assert_false(st.cold.on);
	cold_after_look(&st, ACT_REUSE, 'D');
	assert_true(st.cold.on);
	assert_int_equal(st.cold.last_state, 'D');
	cold_after_look(&st, ACT_PEEK, 'S'); /* it ran */
	assert_false(st.cold.on);
	for (int i = 0; i < COLD_QUIET_LOOKS; i++)
		cold_after_look(&st, ACT_REUSE, 'S');
	assert_true(st.cold.on);
	cold_after_look(&st, ACT_QUEUED, 'R'); /* woken, waiting for a CPU */
	assert_false(st.cold.on);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_looks_in_turn),
		cmocka_unit_test(cold_and_hot),
	};
	return cmocka_run_group_tests_name("cold", tests, NULL, NULL);
}
