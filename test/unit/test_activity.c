#define _GNU_SOURCE
/* Unit tests: the reads' series (activity.h) - reads counted per bucket
 * under their texts (process, event, statement), each bucket's ticks,
 * buckets in time order, and the texts one copy each. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "profile/activity.h"

#define MS 1000000ULL

struct rows {
	struct activity_row r[32];
	size_t n;
};

static int keep(const struct activity_row *r, void *arg)
{
	struct rows *out = arg;
	if (out->n < 32)
		out->r[out->n++] = *r;
	return 0;
}

static const struct activity_row *find_q(const struct rows *rs, uint32_t bucket, uint32_t root,
					 uint32_t event, uint32_t query)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i].bucket == bucket && rs->r[i].root == root && rs->r[i].event == event &&
		    rs->r[i].query == query)
			return &rs->r[i];
	return NULL;
}

static const struct activity_row *find(const struct rows *rs, uint32_t bucket, uint32_t root,
				       uint32_t event)
{
	return find_q(rs, bucket, root, event, ACTIVITY_NONE);
}

/* Three ticks in bucket 0, one in bucket 2 (none in 1): each bucket's
 * ticks row first, its reads by root and event, nothing for bucket 1. */
static void reads_counted_by_bucket(void **state)
{
	(void)state;
	uint64_t start = 5000 * MS;
	struct activity *a = activity_new(start);
	assert_non_null(a);
	uint32_t be = activity_text_id(a, "postgres[42] client backend");
	uint32_t cp = activity_text_id(a, "postgres[43] checkpointer");
	uint32_t cpu = activity_text_id(a, "On CPU (PostgreSQL state)");
	uint32_t io = activity_text_id(a, "event=IO:WALSync (PostgreSQL state)");
	assert_int_equal(activity_text_id(a, "postgres[42] client backend"), be);
	assert_string_equal(activity_text(a, io), "event=IO:WALSync (PostgreSQL state)");
	assert_null(activity_text(a, 99));
	for (int t = 0; t < 3; t++) {
		assert_int_equal(activity_tick(a, start + (uint64_t)t * 30 * MS), 0);
		activity_add(a, be, t < 2 ? cpu : io, ACTIVITY_NONE);
		activity_add(a, cp, io, ACTIVITY_NONE);
	}
	assert_int_equal(activity_tick(a, start + 250 * MS), 2);
	activity_add(a, be, cpu, ACTIVITY_NONE);
	uint32_t q = activity_text_id(a, "query=7 SELECT 1");
	activity_add(a, be, cpu, q); /* another statement: another cell */
	activity_add(a, be, cpu, q);
	activity_add(a, ACTIVITY_NONE, cpu, ACTIVITY_NONE); /* out of memory for its text: not counted */
	assert_int_equal(activity_end(a), 0);
	assert_int_equal(activity_reads(a), 9);
	assert_int_equal(activity_ticks(a), 4);

	struct rows rs = { .n = 0 };
	assert_int_equal(activity_pass(a, keep, &rs), 0);
	assert_int_equal(rs.n, 2 + 3 + 2);
	assert_int_equal(rs.r[0].root, ACTIVITY_NONE); /* the ticks come first */
	assert_int_equal(rs.r[0].bucket, 0);
	assert_int_equal(rs.r[0].count, 3);
	assert_int_equal(find(&rs, 0, be, cpu)->count, 2);
	assert_int_equal(find(&rs, 0, be, io)->count, 1);
	assert_int_equal(find(&rs, 0, cp, io)->count, 3);
	assert_int_equal(find(&rs, 2, ACTIVITY_NONE, ACTIVITY_NONE)->count, 1);
	assert_int_equal(find(&rs, 2, be, cpu)->count, 1);
	assert_int_equal(find_q(&rs, 2, be, cpu, q)->count, 2);
	for (size_t i = 1; i < rs.n; i++)
		assert_true(rs.r[i].bucket >= rs.r[i - 1].bucket);
	/* a second pass reads the same */
	struct rows again = { .n = 0 };
	assert_int_equal(activity_pass(a, keep, &again), 0);
	assert_int_equal(again.n, rs.n);
	assert_memory_equal(again.r, rs.r, rs.n * sizeof(rs.r[0]));
	activity_free(a);
}

/* A tick before the start (a clock read early) counts in bucket 0; a
 * tick in the current bucket's past does not go back. */
static void times_never_go_back(void **state)
{
	(void)state;
	struct activity *a = activity_new(1000 * MS);
	assert_non_null(a);
	assert_int_equal(activity_tick(a, 999 * MS), 0);
	assert_int_equal(activity_tick(a, 1350 * MS), 3);
	assert_int_equal(activity_tick(a, 1290 * MS), 3);
	assert_int_equal(activity_end(a), 0);
	activity_free(a);
}

/* The pass stops at the first nonzero answer and returns it. */
static int stop_at_first(const struct activity_row *r, void *arg)
{
	(void)r;
	(*(int *)arg)++;
	return 7;
}

static void pass_stops_when_asked(void **state)
{
	(void)state;
	struct activity *a = activity_new(0);
	assert_non_null(a);
	activity_tick(a, 0);
	activity_add(a, activity_text_id(a, "x"), activity_text_id(a, "y"), ACTIVITY_NONE);
	assert_int_equal(activity_end(a), 0);
	int calls = 0;
	assert_int_equal(activity_pass(a, stop_at_first, &calls), 7);
	assert_int_equal(calls, 1);
	activity_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_counted_by_bucket),
		cmocka_unit_test(times_never_go_back),
		cmocka_unit_test(pass_stops_when_asked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
