/* Unit tests: the time model's table (--pg-queries' summary): entries by
 * frame, on-CPU and wait-event counts, the heaviest first. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "db/pgtime.h"

#define WALSYNC 0x0a000046u    /* IO:WALSync in 15 */
#define CLIENTREAD 0x06000000u /* Client:ClientRead */
#define TXID 0x03000005u       /* Lock:transactionid in 15 */

static void entries_by_frame(void **state)
{
	(void)state;
	struct pg_time t = PG_TIME_INIT;
	long a = pg_time_entry(&t, "query=1 SELECT $1");
	long idle = pg_time_entry(&t, "idle");
	assert_true(a >= 0 && idle >= 0 && a != idle);
	assert_int_equal(pg_time_entry(&t, "query=1 SELECT $1"), a); /* the same, found */
	assert_true(pg_time_is_query(t.e[a].frame));
	assert_false(pg_time_is_query(t.e[idle].frame));
	/* many: the index keeps finding them as it grows */
	char frame[64];
	for (int i = 0; i < 1000; i++) {
		snprintf(frame, sizeof(frame), "query=%d UPDATE t", i + 100);
		assert_int_equal(pg_time_entry(&t, frame), 2 + i);
	}
	snprintf(frame, sizeof(frame), "query=%d UPDATE t", 500);
	assert_int_equal(pg_time_entry(&t, frame), 2 + 400);
	pg_time_free(&t);
	assert_int_equal(t.n, 0);
	pg_time_free(&t); /* twice is fine */
}

static void counts_and_events(void **state)
{
	(void)state;
	const struct pg_wait_table *pg15 = pg_wait_table_for(15);
	struct pg_time t = PG_TIME_INIT;
	long q = pg_time_entry(&t, "query=7 UPDATE b SET x = x + $1");
	assert_int_equal(pg_time_add(&t, (size_t)q, 5, true, true, 0, pg15), 0);
	assert_int_equal(pg_time_add(&t, (size_t)q, 3, false, true, WALSYNC, pg15), 0);
	assert_int_equal(pg_time_add(&t, (size_t)q, 4, false, true, TXID, pg15), 0);
	assert_int_equal(pg_time_add(&t, (size_t)q, 1, false, true, 0x0a00ffffu, pg15), 0);
	assert_int_equal(pg_time_add(&t, (size_t)q, 2, false, true, WALSYNC, NULL), 0);
	assert_int_equal(pg_time_add(&t, (size_t)q, 9, false, false, TXID, pg15), 0); /* no word */
	const struct pg_time_entry *e = &t.e[q];
	assert_int_equal(e->samples, 24);
	assert_int_equal(e->on_cpu, 5);
	const struct pg_time_event *top[4];
	assert_int_equal(pg_time_top_events(e, top, 4), 3); /* 0 is no wait */
	/* 5 WALSync (named at its first sight), 4 transactionid, 1 unnamed */
	assert_string_equal(top[0]->name, "IO:WALSync");
	assert_int_equal(top[0]->samples, 5);
	assert_string_equal(top[1]->name, "Lock:transactionid");
	assert_string_equal(top[2]->name, "0x0a00ffff");
	assert_int_equal(pg_time_top_events(e, top, 2), 2);
	pg_time_free(&t);
}

static void heaviest_queries_first(void **state)
{
	(void)state;
	struct pg_time t = PG_TIME_INIT;
	uint64_t weight[] = { 3, 9, 1, 9, 0, 4 };
	char frame[32];
	for (size_t i = 0; i < 6; i++) {
		snprintf(frame, sizeof(frame), "query=%zu X", i);
		long k = pg_time_entry(&t, frame);
		if (weight[i])
			pg_time_add(&t, (size_t)k, weight[i], false, false, 0, NULL);
	}
	long idle = pg_time_entry(&t, "idle"); /* a state, never a query */
	pg_time_add(&t, (size_t)idle, 100, false, true, CLIENTREAD, NULL);
	size_t top[10];
	assert_int_equal(pg_time_top(&t, top, 10), 5); /* the one with none is out */
	size_t want[] = { 1, 3, 5, 0, 2 };            /* ties in first-seen order */
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(top[i], want[i]);
	assert_int_equal(pg_time_top(&t, top, 2), 2);
	assert_int_equal(top[0], 1);
	assert_int_equal(top[1], 3);
	assert_int_equal(pg_time_top(&t, top, 0), 0);
	pg_time_free(&t);
}

/* After the run: the entry of a statement read while parsed (its text's
 * hash) counted under the server id's entry for the same text. */
static void parsed_shapes_merged(void **state)
{
	(void)state;
	const struct pg_wait_table *pg15 = pg_wait_table_for(15);
	struct pg_shape_ids m = PG_SHAPE_IDS_INIT;
	struct pg_time t = PG_TIME_INIT;
	/* first seen while parsed, then with its id; another text never had one */
	long parsed = pg_time_entry(&t, "query=hash:-9 SELECT $1 FROM a");
	long idle = pg_time_entry(&t, "idle");
	long known = pg_time_entry(&t, "query=42 SELECT $1 FROM a");
	long other = pg_time_entry(&t, "query=hash:-5 SELECT $1 FROM b");
	long lone = pg_time_entry(&t, "query=hash:-7 SELECT $1 FROM c"); /* its id's entry never made */
	pg_time_add(&t, (size_t)parsed, 2, true, true, 0, pg15);
	pg_time_add(&t, (size_t)parsed, 1, false, true, WALSYNC, pg15);
	pg_time_add(&t, (size_t)known, 10, true, true, 0, pg15);
	pg_time_add(&t, (size_t)known, 4, false, true, TXID, pg15);
	pg_time_add(&t, (size_t)known, 2, false, true, WALSYNC, pg15);
	pg_time_add(&t, (size_t)idle, 50, false, true, CLIENTREAD, pg15);
	pg_time_add(&t, (size_t)other, 6, true, true, 0, pg15);
	pg_time_add(&t, (size_t)lone, 3, true, true, 0, pg15);
	/* without ids seen: nothing changes */
	assert_int_equal(pg_time_merge_shapes(&t, &m), 0);
	assert_int_equal(t.n, 5);
	assert_int_equal(t.renamed_samples, 0);
	pg_shape_ids_note(&m, (uint64_t)-9, 42);
	pg_shape_ids_note(&m, (uint64_t)-7, 77);
	assert_int_equal(pg_time_merge_shapes(&t, &m), 2);
	assert_int_equal(t.n, 4);
	assert_int_equal(t.renamed_samples, 6); /* 3 read while parsed, 3 alone */
	/* the merged entry where its first frame was, its counts summed */
	assert_string_equal(t.e[0].frame, "query=42 SELECT $1 FROM a");
	assert_int_equal(t.e[0].samples, 19);
	assert_int_equal(t.e[0].on_cpu, 12);
	const struct pg_time_event *top[4];
	assert_int_equal(pg_time_top_events(&t.e[0], top, 4), 2);
	assert_string_equal(top[0]->name, "Lock:transactionid");
	assert_int_equal(top[0]->samples, 4);
	assert_string_equal(top[1]->name, "IO:WALSync");
	assert_int_equal(top[1]->samples, 3);
	assert_string_equal(t.e[1].frame, "idle");
	assert_int_equal(t.e[1].samples, 50);
	assert_string_equal(t.e[2].frame, "query=hash:-5 SELECT $1 FROM b");
	assert_string_equal(t.e[3].frame, "query=77 SELECT $1 FROM c"); /* renamed alone */
	assert_int_equal(t.e[3].samples, 3);
	/* found by their frames, the old ones gone */
	assert_int_equal(pg_time_entry(&t, "query=42 SELECT $1 FROM a"), 0);
	assert_int_equal(pg_time_entry(&t, "query=77 SELECT $1 FROM c"), 3);
	assert_int_equal(pg_time_entry(&t, "query=hash:-9 SELECT $1 FROM a"), 4); /* a new one */
	/* again: nothing left to rename */
	pg_time_free(&t);
	assert_int_equal(pg_time_merge_shapes(&t, &m), 0);
	pg_shape_ids_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parsed_shapes_merged),
		cmocka_unit_test(entries_by_frame),
		cmocka_unit_test(counts_and_events),
		cmocka_unit_test(heaviest_queries_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
