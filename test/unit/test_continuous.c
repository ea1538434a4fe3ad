/* Unit tests: continuous profiling's pure parts - window file names (UTC,
 * extensions), separators, the Pyroscope ingest URL (escaping of names and
 * labels), label and application name rules, the sample rate, and the
 * bounded queue between the sampler and the sender (drop-oldest, counts). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <cmocka.h>

#include "base/bqueue.h"
#include "output/pyroscope.h"
#include "continuous/window.h"

/* 2026-11-23 14:00:00 UTC */
#define T0 1795442400ULL
#define NS 1000000000ULL

static void stamp_is_utc(void **state)
{
	(void)state;
	char s[WINDOW_STAMP_LEN + 1];
	setenv("TZ", "Asia/Tokyo", 1); /* the local zone must not matter */
	tzset();
	assert_string_equal(window_stamp(T0 * NS, s), "20261123T140000Z");
	assert_string_equal(window_stamp(T0 * NS + 499999999ULL, s), "20261123T140000Z");
	/* rounded as the push rounds from=: the file and the push agree */
	assert_string_equal(window_stamp(T0 * NS + 500000000ULL, s), "20261123T140001Z");
	assert_string_equal(window_stamp((T0 + 3599) * NS, s), "20261123T145959Z");
	assert_string_equal(window_stamp(0, s), "19700101T000000Z");
	/* a leap day, and the turn of a year */
	assert_string_equal(window_stamp(1709164800ULL * NS, s), "20240229T000000Z");
	assert_string_equal(window_stamp(1767225599ULL * NS, s), "20251231T235959Z");
	unsetenv("TZ");
	tzset();
}

static void file_names(void **state)
{
	(void)state;
	const char *cases[][2] = {
		{ "out.folded", "out.20261123T140000Z.folded" },
		{ "db.speedscope.json", "db.20261123T140000Z.speedscope.json" },
		{ "db.pb.gz", "db.20261123T140000Z.pb.gz" },
		{ "db.svg", "db.20261123T140000Z.svg" },
		{ "profile", "profile.20261123T140000Z" },
		{ "/var/tmp/x.y/profile", "/var/tmp/x.y/profile.20261123T140000Z" },
		{ "/var/tmp/x.y/p.folded", "/var/tmp/x.y/p.20261123T140000Z.folded" },
		{ "a.b.c.folded", "a.b.c.20261123T140000Z.folded" },
		{ ".folded", ".folded.20261123T140000Z" },
		{ "dir/.hidden", "dir/.hidden.20261123T140000Z" },
		{ "trailing.", "trailing..20261123T140000Z" },
		{ "x.json", "x.20261123T140000Z.json" },
		{ "x.gz", "x.20261123T140000Z.gz" },
		{ "speedscope.json", "speedscope.20261123T140000Z.json" },
		{ "d/.pb.gz", "d/.pb.20261123T140000Z.gz" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[256];
		int n = window_file_name(cases[i][0], T0, out, sizeof(out));
		if (n < 0 || strcmp(out, cases[i][1]) != 0)
			fail_msg("'%s' gave '%s', expected '%s'", cases[i][0], n < 0 ? "(error)" : out,
				 cases[i][1]);
		assert_int_equal(n, (int)strlen(cases[i][1]));
	}
	char small[20];
	assert_int_equal(window_file_name("out.folded", T0, small, sizeof(small)), -1);
}

static void separators(void **state)
{
	(void)state;
	char buf[128];
	assert_string_equal(window_separator(FORMAT_FOLDED, "w", buf, sizeof(buf)), "\n");
	assert_string_equal(window_separator(FORMAT_PERF_SCRIPT, "window 20261123T140000Z", buf,
					     sizeof(buf)),
			    "# ptrace_profiler: window 20261123T140000Z\n");
	assert_non_null(window_separator(FORMAT_STAP, "w", buf, sizeof(buf)));
	assert_null(window_separator(FORMAT_SVG, "w", buf, sizeof(buf)));
	assert_null(window_separator(FORMAT_SPEEDSCOPE, "w", buf, sizeof(buf)));
	assert_null(window_separator(FORMAT_PPROF, "w", buf, sizeof(buf)));
}

static void escape(void **state)
{
	(void)state;
	char out[128];
	assert_int_equal(pyroscope_escape("a-Z_0.9~", out, sizeof(out)), 8);
	assert_string_equal(out, "a-Z_0.9~");
	pyroscope_escape("db.wall{env=prod,region=eu/1}", out, sizeof(out));
	assert_string_equal(out, "db.wall%7Benv%3Dprod%2Cregion%3Deu%2F1%7D");
	pyroscope_escape("a b&c?d#e%f+g\"", out, sizeof(out));
	assert_string_equal(out, "a%20b%26c%3Fd%23e%25f%2Bg%22");
	pyroscope_escape("\xc3\xa9", out, sizeof(out));
	assert_string_equal(out, "%C3%A9");
	assert_int_equal(pyroscope_escape("{}", out, 6), -1); /* 6 chars + NUL */
	assert_int_equal(pyroscope_escape("{}", out, 7), 6);
}

static void ingest_url(void **state)
{
	(void)state;
	struct pyroscope_label l[2] = { { "env", "prod" }, { "host", "db-01.example.com" } };
	char url[1024];
	int n = pyroscope_ingest_url("http://127.0.0.1:4040", "postgres", l, 2, T0, T0 + 10, 100,
				     url, sizeof(url));
	assert_string_equal(url, "http://127.0.0.1:4040/ingest?name=postgres.wall%7Benv%3Dprod%2C"
				 "host%3Ddb-01.example.com%7D&from=1795442400&until=1795442410"
				 "&sampleRate=100&spyName=ptrace_profiler&format=folded");
	assert_int_equal(n, (int)strlen(url));
	/* no labels: an empty set; a base with a path and trailing slashes */
	pyroscope_ingest_url("https://h/pyroscope//", "a/b-c.d", NULL, 0, 1, 2, 1, url, sizeof(url));
	assert_string_equal(url, "https://h/pyroscope/ingest?name=a%2Fb-c.d.wall%7B%7D&from=1&until=2"
				 "&sampleRate=1&spyName=ptrace_profiler&format=folded");
	assert_int_equal(pyroscope_ingest_url("http://h", "a", NULL, 0, 1, 2, 1, url, 40), -1);
	/* the most labels, the longest values: it fits the documented bound */
	struct pyroscope_label many[PYROSCOPE_LABELS_MAX];
	for (int i = 0; i < PYROSCOPE_LABELS_MAX; i++) {
		memset(many[i].key, 'k', PYROSCOPE_KEY_MAX);
		many[i].key[PYROSCOPE_KEY_MAX] = '\0';
		many[i].key[0] = (char)('a' + i);
		memset(many[i].value, '%', PYROSCOPE_VALUE_MAX);
		many[i].value[PYROSCOPE_VALUE_MAX] = '\0';
	}
	static char big[16384];
	assert_true(pyroscope_ingest_url("http://h", "a", many, PYROSCOPE_LABELS_MAX, 1, 2, 1, big,
					 sizeof(big)) > 0);
}

static void labels(void **state)
{
	(void)state;
	struct pyroscope_label l;
	char err[256];
	assert_int_equal(pyroscope_parse_label("env=prod", &l, err, sizeof(err)), 0);
	assert_string_equal(l.key, "env");
	assert_string_equal(l.value, "prod");
	assert_int_equal(pyroscope_parse_label("_x9=a=b", &l, err, sizeof(err)), -1);
	assert_int_equal(pyroscope_parse_label("region=eu-west-1:a/b.c", &l, err, sizeof(err)), 0);
	assert_string_equal(l.value, "eu-west-1:a/b.c");
	struct { const char *text, *must; } bad[] = {
		{ "env", "expected KEY=VALUE" },
		{ "=prod", "invalid label key ''" },
		{ "9env=prod", "invalid label key '9env'" },
		{ "__name__=x", "invalid label key '__name__'" },
		{ "__x=1", "invalid label key '__x'" },
		{ "e.v=1", "invalid label key 'e.v'" },
		{ "e v=1", "invalid label key 'e v'" },
		{ "env=", "invalid label value ''" },
		{ "env=a b", "invalid label value 'a b'" },
		{ "env=a,b", "invalid label value 'a,b'" },
		{ "env=a}", "invalid label value 'a}'" },
		{ "env={a", "invalid label value '{a'" },
		{ "env=a\"", "invalid label value 'a\"'" },
		{ "env=a\\", "invalid label value 'a\\'" },
		{ "env=a\tb", "invalid label value" },
		{ "env=\xc3\xa9", "invalid label value" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (pyroscope_parse_label(bad[i].text, &l, err, sizeof(err)) != -1)
			fail_msg("accepted '%s'", bad[i].text);
		if (!strstr(err, bad[i].must) || !strstr(err, "--label") || strchr(err, '\n'))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].text, err, bad[i].must);
	}
	char key[80], text[300];
	memset(key, 'k', 65);
	key[65] = '\0';
	snprintf(text, sizeof(text), "%s=1", key);
	assert_int_equal(pyroscope_parse_label(text, &l, err, sizeof(err)), -1);
	key[64] = '\0';
	snprintf(text, sizeof(text), "%s=1", key);
	assert_int_equal(pyroscope_parse_label(text, &l, err, sizeof(err)), 0);
	char value[200];
	memset(value, 'v', 129);
	value[129] = '\0';
	snprintf(text, sizeof(text), "k=%s", value);
	assert_int_equal(pyroscope_parse_label(text, &l, err, sizeof(err)), -1);
	value[128] = '\0';
	snprintf(text, sizeof(text), "k=%s", value);
	assert_int_equal(pyroscope_parse_label(text, &l, err, sizeof(err)), 0);
}

static void app_names(void **state)
{
	(void)state;
	assert_true(pyroscope_app_name_ok("postgres"));
	assert_true(pyroscope_app_name_ok("team/db-01.main_x"));
	assert_false(pyroscope_app_name_ok(""));
	assert_false(pyroscope_app_name_ok("a b"));
	assert_false(pyroscope_app_name_ok("a{b"));
	assert_false(pyroscope_app_name_ok("a,b"));
	assert_false(pyroscope_app_name_ok("a=b"));
	char long_name[120];
	memset(long_name, 'a', 101);
	long_name[101] = '\0';
	assert_false(pyroscope_app_name_ok(long_name));
	long_name[100] = '\0';
	assert_true(pyroscope_app_name_ok(long_name));
	char out[PYROSCOPE_NAME_MAX + 1];
	assert_string_equal(pyroscope_app_name_from("postgres: walwriter", out), "postgres__walwriter");
	assert_string_equal(pyroscope_app_name_from("kworker/0:1", out), "kworker/0_1");
	assert_string_equal(pyroscope_app_name_from("", out), "unknown");
	memset(long_name, 'b', 119);
	long_name[119] = '\0';
	assert_int_equal(strlen(pyroscope_app_name_from(long_name, out)), PYROSCOPE_NAME_MAX);
	assert_true(pyroscope_app_name_ok(out));
}

static void parts_by_root(void **state)
{
	(void)state;
	char out[PYROSCOPE_VALUE_MAX + 1];
	assert_string_equal(pyroscope_label_value_from("client backend", out), "client_backend");
	assert_string_equal(pyroscope_label_value_from("nginx: worker {1}", out), "nginx:_worker__1_");
	assert_string_equal(pyroscope_label_value_from("", out), "unknown");
	struct pyroscope_label l;
	char err[256];
	char kv[PYROSCOPE_VALUE_MAX + 32];
	snprintf(kv, sizeof(kv), "backend_type=%s", pyroscope_label_value_from("a \"b\",c=d\\", out));
	assert_int_equal(pyroscope_parse_label(kv, &l, err, sizeof(err)), 0); /* always valid */
	/* a window grouped by type: each root's lines, counted */
	const char text[] =
		"autovacuum launcher;event=Activity:AutoVacuumMain (PostgreSQL state);S (sleeping);main 98\n"
		"client backend;idle;S (sleeping);main;secure_read 22\n"
		"client backend;query=1 SELECT $1;R (running);main 41\n"
		"postmaster 3\n"
		"client_backend;R (running) 1\n";
	struct pyroscope_part *parts;
	size_t n;
	assert_int_equal(pyroscope_split_roots(text, sizeof(text) - 1, &parts, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(parts[0].root, "autovacuum_launcher");
	assert_int_equal(parts[0].samples, 98);
	assert_string_equal(parts[1].root, "client_backend"); /* both spellings */
	assert_int_equal(parts[1].samples, 22 + 41 + 1);
	assert_string_equal(parts[1].text,
		"client backend;idle;S (sleeping);main;secure_read 22\n"
		"client backend;query=1 SELECT $1;R (running);main 41\n"
		"client_backend;R (running) 1\n");
	assert_string_equal(parts[2].root, "postmaster");
	assert_string_equal(parts[2].text, "postmaster 3\n");
	pyroscope_parts_free(parts, n);
	/* nothing, and a last line without its newline */
	assert_int_equal(pyroscope_split_roots("", 0, &parts, &n), 0);
	assert_int_equal(n, 0);
	pyroscope_parts_free(parts, n);
	assert_int_equal(pyroscope_split_roots("a;b 2", 5, &parts, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(parts[0].samples, 2);
	assert_string_equal(parts[0].text, "a;b 2");
	pyroscope_parts_free(parts, n);
}

/* A window of many roots and many lines: every part keeps its lines whole
 * and in order, however often its text and the list of parts grow. */
static void parts_of_a_large_window(void **state)
{
	(void)state;
	enum { ROOTS = 300, LINES = 20000 };
	size_t cap = (size_t)LINES * 48;
	char *text = malloc(cap);
	assert_non_null(text);
	size_t len = 0;
	for (unsigned i = 0; i < LINES; i++)
		len += (size_t)snprintf(text + len, cap - len, "type%u;f%u;leaf %u\n", i % ROOTS,
					i, i % 7 + 1);
	struct pyroscope_part *parts;
	size_t n;
	assert_int_equal(pyroscope_split_roots(text, len, &parts, &n), 0);
	assert_int_equal(n, ROOTS);
	for (unsigned r = 0; r < ROOTS; r++) {
		char root[32], line[64];
		snprintf(root, sizeof(root), "type%u", r);
		assert_string_equal(parts[r].root, root);
		uint64_t samples = 0;
		const char *at = parts[r].text;
		for (unsigned i = r; i < LINES; i += ROOTS) {
			int k = snprintf(line, sizeof(line), "%s;f%u;leaf %u\n", root, i, i % 7 + 1);
			if (strncmp(at, line, (size_t)k) != 0)
				fail_msg("part %u: '%.40s' where '%s' was due", r, at, line);
			at += k;
			samples += i % 7 + 1;
		}
		assert_int_equal(*at, '\0');
		assert_int_equal((size_t)(at - parts[r].text), parts[r].len);
		assert_int_equal(parts[r].samples, samples);
	}
	pyroscope_parts_free(parts, n);
	free(text);
}

static void urls(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(pyroscope_check_url("http://127.0.0.1:4040", err, sizeof(err)), 0);
	assert_int_equal(pyroscope_check_url("https://pyro.example.com/prefix/", err, sizeof(err)), 0);
	const char *bad[] = { "", "127.0.0.1:4040", "ftp://h", "http://", "http:///x", "http://h?x=1",
			      "http://h#f", "http://h x", "http://h\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (pyroscope_check_url(bad[i], err, sizeof(err)) != -1)
			fail_msg("accepted '%s'", bad[i]);
		assert_non_null(strstr(err, "--push"));
	}
}

static void sample_rate(void **state)
{
	(void)state;
	assert_int_equal(pyroscope_sample_rate(10000000ULL), 100);   /* 10 ms */
	assert_int_equal(pyroscope_sample_rate(1000000ULL), 1000);   /* 1 ms */
	assert_int_equal(pyroscope_sample_rate(100000ULL), 10000);   /* 100 us */
	assert_int_equal(pyroscope_sample_rate(3000000ULL), 333);    /* 333.3 */
	assert_int_equal(pyroscope_sample_rate(1500000ULL), 667);    /* 666.7 rounds up */
	assert_int_equal(pyroscope_sample_rate(1999999999ULL), 1);   /* 0.5000000003 */
	assert_int_equal(pyroscope_sample_rate(3000000000ULL), 1);   /* 0.33: at least 1 */
	assert_int_equal(pyroscope_sample_rate(1ULL), 1000000000);
}

static void push_seconds(void **state)
{
	(void)state;
	uint64_t from, until;
	pyroscope_window_seconds(T0 * NS + 300000000ULL, (T0 + 10) * NS + 300000000ULL, &from, &until);
	assert_int_equal(from, T0);
	assert_int_equal(until, T0 + 10);
	/* shorter than a second within one second: until is still after from */
	pyroscope_window_seconds(T0 * NS + 100, T0 * NS + 900, &from, &until);
	assert_int_equal(from, T0);
	assert_int_equal(until, T0 + 1);
	/* a window that ends a hair before a second, then a short last one
	 * from there: they meet and do not share their seconds (CI saw both
	 * named T0..T0+1 when ends were rounded down) */
	uint64_t f2, u2;
	pyroscope_window_seconds(T0 * NS + 1000, (T0 + 1) * NS - 1000, &from, &until);
	pyroscope_window_seconds((T0 + 1) * NS - 1000, (T0 + 1) * NS + 400000000ULL, &f2, &u2);
	assert_int_equal(from, T0);
	assert_int_equal(until, T0 + 1);
	assert_int_equal(f2, T0 + 1);
	assert_int_equal(u2, T0 + 2);
}

/* Windows that follow one another, as --period cuts them: each starts
 * where the last ended, a round (under half a second) after a second it
 * was due at.  Their stamps are distinct and increasing, their seconds
 * meet, and each is its start rounded or the second after (90-continuous
 * once saw 4 windows write 3 files: starts .49 and 1.51 s past a second
 * both rounded to the same one, and the third file replaced the second). */
static void window_seconds_follow(void **state)
{
	(void)state;
	uint32_t rnd = 12345;
	for (int run = 0; run < 50; run++) {
		rnd = rnd * 1103515245u + 12345u;
		uint64_t base = T0 * NS + rnd % NS; /* the first start's fraction */
		uint64_t last = 0, prev_from = 0, prev_until = 0, start = base;
		char prev[WINDOW_STAMP_LEN + 1] = "";
		for (int k = 1; k <= 40; k++) {
			rnd = rnd * 1103515245u + 12345u;
			uint64_t jitter = (rnd >> 8) % (NS / 2 - 1); /* the round that cut it */
			uint64_t end = base + (uint64_t)k * NS + jitter;
			if (k == 40)
				end = start + (rnd >> 4) % NS; /* a short last window */
			uint64_t from, until;
			char s[WINDOW_STAMP_LEN + 1];
			window_seconds(start, end, &last, &from, &until);
			assert_true(until > from);
			assert_int_equal(last, until);
			uint64_t rounded = (start + NS / 2) / NS;
			assert_true(from >= rounded && from <= rounded + 1);
			if (k == 1)
				assert_int_equal(from, rounded); /* as the push rounds it */
			else {
				assert_int_equal(from, prev_until); /* they meet */
				assert_true(from > prev_from);
				assert_true(strcmp(window_stamp_second(from, s), prev) > 0);
			}
			window_stamp_second(from, prev);
			prev_from = from;
			prev_until = until;
			start = end;
		}
	}
	/* the case CI met: rounded each alone, two starts collide */
	char a[WINDOW_STAMP_LEN + 1], b[WINDOW_STAMP_LEN + 1];
	uint64_t s1 = T0 * NS + NS + NS / 2 + 10000000ULL, s2 = T0 * NS + 2 * NS + NS / 2 - 1000;
	assert_string_equal(window_stamp(s1, a), window_stamp(s2, b));
	uint64_t last = 0, f1, u1, f2, u2;
	window_seconds(s1, s2, &last, &f1, &u1);
	window_seconds(s2, s2 + NS, &last, &f2, &u2);
	assert_int_equal(f1, T0 + 2);
	assert_int_equal(u1, T0 + 3);
	assert_int_equal(f2, T0 + 3);
	assert_int_equal(u2, T0 + 4);
}

/* --- the bounded queue ---------------------------------------------- */

static int freed;
static void count_free(void *p)
{
	(void)p;
	freed++;
}

static void queue_fifo_and_drop_oldest(void **state)
{
	(void)state;
	int v[10];
	struct bqueue *q = bqueue_new(3);
	assert_non_null(q);
	struct bqueue_counts c;
	for (int i = 0; i < 3; i++)
		assert_null(bqueue_push(q, &v[i]));
	/* full: each push hands back the oldest */
	assert_ptr_equal(bqueue_push(q, &v[3]), &v[0]);
	assert_ptr_equal(bqueue_push(q, &v[4]), &v[1]);
	bqueue_counts(q, &c);
	assert_int_equal(c.length, 3);
	assert_int_equal(c.pushed, 5);
	assert_int_equal(c.dropped, 2);
	/* what is left comes out oldest first */
	assert_ptr_equal(bqueue_pop(q, 1), &v[2]);
	assert_ptr_equal(bqueue_pop(q, 1), &v[3]);
	assert_null(bqueue_push(q, &v[5]));
	assert_ptr_equal(bqueue_pop(q, 1), &v[4]);
	assert_ptr_equal(bqueue_pop(q, 1), &v[5]);
	/* empty: a deadline in the past returns at once */
	assert_null(bqueue_pop(q, 1));
	bqueue_counts(q, &c);
	assert_int_equal(c.length, 0);
	assert_int_equal(c.dropped, 2);
	/* items still in it are freed with the queue */
	freed = 0;
	bqueue_push(q, &v[6]);
	bqueue_push(q, &v[7]);
	bqueue_free(q, count_free);
	assert_int_equal(freed, 2);
	assert_null(bqueue_new(0));
}

static void queue_capacity_one(void **state)
{
	(void)state;
	int v[4];
	struct bqueue *q = bqueue_new(1);
	assert_null(bqueue_push(q, &v[0]));
	assert_ptr_equal(bqueue_push(q, &v[1]), &v[0]);
	assert_ptr_equal(bqueue_push(q, &v[2]), &v[1]);
	assert_ptr_equal(bqueue_pop(q, 1), &v[2]);
	struct bqueue_counts c;
	bqueue_counts(q, &c);
	assert_int_equal(c.pushed, 3);
	assert_int_equal(c.dropped, 2);
	bqueue_free(q, NULL);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

static void queue_deadline(void **state)
{
	(void)state;
	struct bqueue *q = bqueue_new(2);
	uint64_t t0 = mono_ns();
	assert_null(bqueue_pop(q, t0 + 50000000ULL));
	uint64_t waited = mono_ns() - t0;
	assert_true(waited >= 50000000ULL);
	assert_true(waited < 2000000000ULL);
	bqueue_free(q, NULL);
}

struct consumer {
	struct bqueue *q;
	int got;
	int sum;
};

static void *consume(void *arg)
{
	struct consumer *c = arg;
	int *item;
	while ((item = bqueue_pop(c->q, 0))) {
		c->got++;
		c->sum += *item;
	}
	return NULL;
}

/* A producer that never waits and a consumer: every item is either
 * consumed or counted as dropped, and close wakes the consumer. */
static void queue_threads(void **state)
{
	(void)state;
	static int v[20000];
	struct consumer c = { bqueue_new(4), 0, 0 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, consume, &c), 0);
	int dropped_sum = 0, dropped = 0;
	for (int i = 0; i < 20000; i++) {
		v[i] = 1;
		int *old = bqueue_push(c.q, &v[i]);
		if (old) {
			dropped++;
			dropped_sum += *old;
		}
	}
	bqueue_close(c.q);
	pthread_join(t, NULL);
	struct bqueue_counts counts;
	bqueue_counts(c.q, &counts);
	assert_int_equal(counts.pushed, 20000);
	assert_int_equal(counts.dropped, (uint64_t)dropped);
	assert_int_equal(c.got + dropped, 20000);
	assert_int_equal(c.sum + dropped_sum, 20000);
	assert_true(counts.closed);
	bqueue_free(c.q, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stamp_is_utc),
		cmocka_unit_test(file_names),
		cmocka_unit_test(separators),
		cmocka_unit_test(escape),
		cmocka_unit_test(ingest_url),
		cmocka_unit_test(labels),
		cmocka_unit_test(app_names),
		cmocka_unit_test(parts_by_root),
		cmocka_unit_test(parts_of_a_large_window),
		cmocka_unit_test(urls),
		cmocka_unit_test(sample_rate),
		cmocka_unit_test(push_seconds),
		cmocka_unit_test(window_seconds_follow),
		cmocka_unit_test(queue_fifo_and_drop_oldest),
		cmocka_unit_test(queue_capacity_one),
		cmocka_unit_test(queue_deadline),
		cmocka_unit_test(queue_threads),
	};
	return cmocka_run_group_tests_name("continuous", tests, NULL, NULL);
}
