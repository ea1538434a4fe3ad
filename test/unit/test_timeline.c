/* Unit tests: the timeline's samples read back with named ids, and those
 * ids renumbered when the named stacks merge (stack_table_rename). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "profile/timeline.h"

/* The samples' named stacks, in order, into out: how many. */
static size_t read_stacks(struct timeline *tl, uint32_t *out, size_t max)
{
	const struct sample_source *src = timeline_source(tl);
	assert_non_null(src);
	assert_int_equal(src->rewind(src->arg), 0);
	struct profile_sample smp;
	size_t n = 0;
	int r;
	while ((r = src->next(src->arg, &smp)) == 1 && n < max)
		out[n++] = smp.stack;
	assert_int_equal(r, 0);
	return n;
}

static void renumbered_after_a_merge(void **state)
{
	(void)state;
	struct timeline *tl = timeline_new();
	assert_non_null(tl);
	uint32_t a = timeline_new_stack(tl), b = timeline_new_stack(tl), c = timeline_new_stack(tl);
	assert_int_equal(timeline_add(tl, 10, 1, a, 0), 0);
	assert_int_equal(timeline_add(tl, 20, 1, b, 0), 0);
	assert_int_equal(timeline_add(tl, 30, 1, c, 1), 0);
	assert_int_equal(timeline_add(tl, 40, 1, b, 1), 0);
	/* named stacks 0, 1, 2; then 1 merged into 0, 2 became 1 */
	assert_int_equal(timeline_name(tl, a, 0), 0);
	assert_int_equal(timeline_name(tl, b, 1), 0);
	assert_int_equal(timeline_name(tl, c, 2), 0);
	uint32_t got[8];
	assert_int_equal(read_stacks(tl, got, 8), 4);
	assert_int_equal(got[1], 1);
	const uint32_t map[] = { 0, 0, 1 };
	timeline_renumber(tl, map, 3);
	assert_int_equal(read_stacks(tl, got, 8), 4);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 0);
	assert_int_equal(got[2], 1);
	assert_int_equal(got[3], 0);
	/* an id beyond the map stays (a map of a smaller table) */
	const uint32_t short_map[] = { 5 };
	timeline_renumber(tl, short_map, 1);
	assert_int_equal(read_stacks(tl, got, 8), 4);
	assert_int_equal(got[0], 5);
	assert_int_equal(got[2], 1);
	timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(renumbered_after_a_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
