/* Unit tests: the statement normalizer - numbers, strings and their
 * escapes, dollar quotes, IN lists, comments, space, existing parameters,
 * multi-byte text, cuts in the middle of a character, and the hash. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "db/pgquery.h"

static const char *norm(const char *raw)
{
	static char buf[512];
	uint64_t h;
	pg_query_normalize(raw, strlen(raw), buf, sizeof(buf), &h);
	return buf;
}

static uint64_t hash_of(const char *raw)
{
	char buf[512];
	uint64_t h;
	pg_query_normalize(raw, strlen(raw), buf, sizeof(buf), &h);
	return h;
}

struct example {
	const char *raw, *normalized;
};

static void check(const struct example *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(norm(e[i].raw), e[i].normalized) != 0)
			fail_msg("%s\n  gave     %s\n  expected %s", e[i].raw, norm(e[i].raw), e[i].normalized);
}
#define CHECK(examples) check(examples, sizeof(examples) / sizeof(examples[0]))

static void numbers(void **state)
{
	(void)state;
	static const struct example e[] = {
		{ "SELECT 1", "SELECT $1" },
		{ "select abalance from pgbench_accounts where aid = 4711;",
		  "select abalance from pgbench_accounts where aid = $1" },
		{ "select 1.5, .5, 5., 1e10, 1.5E-3, 2e+7", "select $1, $2, $3, $4, $5, $6" },
		{ "select 0x1F, 0o17, 0b101, 1_000_000", "select $1, $2, $3, $4" },
		{ "select 0x1e-5", "select $1-$2" }, /* hex: minus five, no exponent */
		{ "select t1.c2 from t1", "select t1.c2 from t1" }, /* digits in names */
		{ "select a-1, a - 1, a+-1", "select a-$1, a - $2, a+$3" },
		{ "select -1, - 2, x = -3, f(-4), (-5)", "select $1, $2, x = $3, f($4), ($5)" },
		{ "update t set v = v + -7 where id = -8", "update t set v = v + $1 where id = $2" },
		{ "select 5 - -3", "select $1 - $2" },
		{ "select x[1:2], y[-1]", "select x[$1:$2], y[$3]" },
		{ "select a[1]-2", "select a[$1]-$2" },
		{ "select 1::int, 2::numeric(10,2)", "select $1::int, $2::numeric($3,$4)" },
		{ "select 123abc", "select $1" },
		{ "select true, false, null", "select true, false, null" },
	};
	CHECK(e);
}

static void strings(void **state)
{
	(void)state;
	static const struct example e[] = {
		{ "select 'a'", "select $1" },
		{ "select 'it''s', 'x;y'", "select $1, $2" },
		{ "select E'\\'', e'a\\\\', 'b'", "select $1, $2, $3" },
		{ "select E'\\\\' || 'c'", "select $1 || $2" },
		{ "select 'a\\', 'b'", "select $1, $2" }, /* standard strings: \ is a character */
		{ "select U&'d\\0061t\\+000061', B'101', X'1F', N'n'", "select $1, $2, $3, $4" },
		{ "select date '2024-01-01', interval '1 day', '5'::int",
		  "select date $1, interval $2, $3::int" },
		{ "select 'a' 'b'", "select $1 $2" },
		{ "select \"it's\", \"a\"\"b\" from \"T;1\"", "select \"it's\", \"a\"\"b\" from \"T;1\"" },
		{ "select U&\"d\\0061t\"", "select U&\"d\\0061t\"" },
		{ "select ex'1'", "select ex$1" }, /* only E, B, X, N, U& prefix a string */
		{ "select 'unterminated", "select $1" },
		{ "select E'unterminated\\", "select $1" },
		{ "select 'a\nb', 'c\td'", "select $1, $2" },
	};
	CHECK(e);
}

static void dollar_quotes(void **state)
{
	(void)state;
	static const struct example e[] = {
		{ "select $$it's$$", "select $1" },
		{ "do $body$ begin perform 1; end $body$", "do $1" },
		{ "select $a$ $$ $b$ $a$, 2", "select $1, $2" },
		{ "select $x$ unterminated", "select $1" },
		{ "select a$b, a$$b$$", "select a$b, a$$b$$" }, /* $ inside identifiers */
		{ "select $1, $2 + 5", "select $1, $2 + $3" },
		{ "select $3 + 1, $1", "select $3 + $4, $1" }, /* after the highest */
		{ "insert into t values ($1, 'x', $12)", "insert into t values ($1, $13, $12)" },
		{ "select $", "select $" },
	};
	CHECK(e);
}

static void in_lists(void **state)
{
	(void)state;
	static const struct example e[] = {
		{ "select * from t where id in (1, 2, 3)", "select * from t where id in ($1 /*, ... */)" },
		{ "select * from t where id IN(1)", "select * from t where id IN($1 /*, ... */)" },
		{ "select * from t where id in ( -1 ,'a'::text, 2.5 ) and x = 4",
		  "select * from t where id in ($1 /*, ... */) and x = $2" },
		{ "select * from t where id in (1, x)", "select * from t where id in ($1, x)" },
		{ "select * from t where id in ($1, $2)", "select * from t where id in ($1, $2)" },
		{ "select * from t where id in (select 1)", "select * from t where id in (select $1)" },
		{ "select * from t where id not in ('a', 'b')",
		  "select * from t where id not in ($1 /*, ... */)" },
		{ "select f(1, 2)", "select f($1, $2)" }, /* not after IN */
		{ "select * from t where id in (1, 2", "select * from t where id in ($1, $2" },
	};
	CHECK(e);
	/* one shape whatever the length */
	assert_int_equal(hash_of("select * from t where id in (1, 2, 3)"),
			 hash_of("select * from t where id in (4)"));
}

static void comments_and_space(void **state)
{
	(void)state;
	static const struct example e[] = {
		{ "  select\n\t1 ;  ", "select $1" },
		{ "select 1 -- the answer\n, 2", "select $1 , $2" },
		{ "select /* a /* nested */ comment */ 1", "select $1" },
		{ "select/**/1", "select $1" },
		{ "select 1 /* unterminated", "select $1" },
		{ "select 1 -- to the end", "select $1" },
		{ "select 1; select 2;", "select $1; select $2" },
		{ "select 1 ; ; ", "select $1" },
		{ "select 2 --;\n;", "select $1" },
		{ "select a--b\n+1", "select a +$1" },
		{ "select 4 / 2 * 1", "select $1 / $2 * $3" },
		{ "", "" },
		{ " \n ", "" },
		{ "-- nothing", "" },
	};
	CHECK(e);
	assert_int_equal(hash_of("select 1"), hash_of("  select 2 -- x\n"));
	assert_int_not_equal(hash_of("select 1"), hash_of("select 1 from t"));
}

static void multibyte(void **state)
{
	(void)state;
	static const struct example e[] = {
		{ "select 'é' from café where naïve = 'ü'", "select $1 from café where naïve = $2" },
		{ "select \"日本\" from 表", "select \"日本\" from 表" },
		{ "select x from t\xff", "select x from t?" }, /* not UTF-8 */
		{ "select \xc3", "select ?" },                  /* cut in a character */
		{ "select \xe6\x97", "select ??" },
		{ "select \xed\xa0\x80", "select ???" },        /* a surrogate */
		{ "select \xc0\xaf", "select ??" },             /* overlong */
	};
	CHECK(e);
}

/* The text kept: at most outsz - 1 bytes, whole characters only, and the
 * hash of everything. */
static void cut(void **state)
{
	(void)state;
	char out[PG_QUERY_TEXT_MAX + 1];
	uint64_t h, whole;
	const char *q = "select aaaaaaaaaa, bbbbbbbbbb, cccccccccc, dddddddddd, eeeeeeeeee, "
			"ffffffffff, gggggggggg from t where x = 1";
	size_t n = pg_query_normalize(q, strlen(q), out, sizeof(out), &h);
	assert_int_equal(n, PG_QUERY_TEXT_MAX);
	assert_int_equal(strlen(out), PG_QUERY_TEXT_MAX);
	assert_memory_equal(out, q, PG_QUERY_TEXT_MAX);
	whole = hash_of(q);
	assert_int_equal(h, whole);
	/* a two-byte character across the limit is left out whole */
	char q2[200];
	memset(q2, 'a', 79);
	strcpy(q2 + 79, "é and more");
	n = pg_query_normalize(q2, strlen(q2), out, sizeof(out), &h);
	assert_int_equal(n, 79);
	/* only len bytes are read, and a NUL ends the text */
	n = pg_query_normalize("select 12345", 9, out, sizeof(out), &h);
	assert_string_equal(out, "select $1");
	n = pg_query_normalize("select 1\0 garbage", 17, out, sizeof(out), &h);
	assert_string_equal(out, "select $1");
	/* the smallest buffer */
	n = pg_query_normalize("select 1", 8, out, 1, &h);
	assert_int_equal(n, 0);
	assert_string_equal(out, "");
	assert_int_equal(h, hash_of("select 7"));
}

/* The hash is FNV-1a 64 of the normalized text: documented, so fixed. */
static void hash_is_fnv1a(void **state)
{
	(void)state;
	assert_int_equal(hash_of(""), 0xcbf29ce484222325ULL);
	assert_int_equal(hash_of("a"), 0xaf63dc4c8601ec8cULL);
	assert_int_equal(hash_of("select 42"), hash_of("select $1"));
}

/* pgbench's own statements, as a client backend holds them. */
static void pgbench(void **state)
{
	(void)state;
	static const struct example e[] = {
		{ "UPDATE pgbench_accounts SET abalance = abalance + -3172 WHERE aid = 52187;",
		  "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2" },
		{ "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (7, 1, 52187, -3172, "
		  "CURRENT_TIMESTAMP);",
		  "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, "
		  "CURRENT_TIMESTAMP)" },
		{ "SELECT abalance FROM pgbench_accounts WHERE aid = $1",
		  "SELECT abalance FROM pgbench_accounts WHERE aid = $1" },
	};
	CHECK(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers),
		cmocka_unit_test(strings),
		cmocka_unit_test(dollar_quotes),
		cmocka_unit_test(in_lists),
		cmocka_unit_test(comments_and_space),
		cmocka_unit_test(multibyte),
		cmocka_unit_test(cut),
		cmocka_unit_test(hash_is_fnv1a),
		cmocka_unit_test(pgbench),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
