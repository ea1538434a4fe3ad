/* Unit tests: the report (out_html.c) - its data is JSON with every stack's
 * dimensions found from its frames (state, event, type, statement,
 * process, idle), every sample four small numbers, and a name that would end a
 * <script> stays inside it. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output/output.h"
#include "profile/activity.h"
#include "json_mini.h"
#include "profile_fixture.h"
#include "written.h"

static char *html_of(const struct profile *p)
{
	struct written w;
	assert_int_equal(output_html(written_open(&w), p), 0);
	return written_text(&w);
}

/* The data: "const D = {...};" cut out of the page and parsed. */
static const struct jval *data_of(struct jdoc *d, const char *page, char **json)
{
	const char *a = strstr(page, "const D = ");
	assert_non_null(a);
	a += strlen("const D = ");
	const char *b = strstr(a, "};\n");
	assert_non_null(b);
	*json = strndup(a, (size_t)(b - a + 1));
	size_t root = json_parse(d, *json);
	if (d->err)
		fail_msg("not JSON: %s at '%.40s'", d->err, d->p);
	return &d->v[root];
}

/* A fixture's report: the page, and its data parsed. */
struct report_read {
	char *page, *json;
	struct jdoc d;
	const struct jval *r;
};

static void read_report(struct report_read *rr, struct fixture *fx)
{
	rr->page = html_of(fixture_profile(fx));
	rr->r = data_of(&rr->d, rr->page, &rr->json);
}

static void report_read_free(struct report_read *rr)
{
	json_free(&rr->d);
	free(rr->json);
	free(rr->page);
}

/* values[kinds[stack * 6 + dim]] */
static const char *value(const struct jdoc *d, const struct jval *r, size_t stack, size_t dim)
{
	const struct jval *k = jat(d, jget(d, r, "kinds"), stack * 6 + dim);
	return jat(d, jget(d, r, "values"), (size_t)k->num)->str;
}

/* The samples made whole as the page makes them (report.html): time and
 * weight in 0.1 ms, stack, thread, four to a sample, n samples. */
static void samples_whole(const struct jdoc *d, const struct jval *r, double *out, size_t n)
{
	const struct jval *S = jget(d, r, "S");
	size_t threads = jget(d, r, "threads")->n_kids;
	double *last = calloc(threads, sizeof(double)), t = 0;
	char *seen = calloc(threads, 1);
	double every = (double)(((uint64_t)jget(d, r, "interval_ns")->num + 50000) / 100000);
	assert_int_equal(S->n_kids, 4 * n);
	for (size_t i = 0; i < n; i++) {
		size_t h = (size_t)jat(d, S, 4 * i + 3)->num;
		assert_true(h < threads);
		t += jat(d, S, 4 * i)->num;
		out[4 * i] = t;
		out[4 * i + 1] = jat(d, S, 4 * i + 1)->num + (seen[h] ? t - last[h] : every);
		out[4 * i + 2] = jat(d, S, 4 * i + 2)->num;
		out[4 * i + 3] = (double)h;
		last[h] = t;
		seen[h] = 1;
	}
	free(last);
	free(seen);
}

static double idle(const struct jdoc *d, const struct jval *r, size_t stack)
{
	return jat(d, jget(d, r, "kinds"), stack * 6 + 5)->num;
}

static void dimensions_from_frames(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "ptrace_profiler -p 9 --subprocesses", "postgres (PID 9)", 10000000);
	size_t b = fixture_thread(&fx, 10, 10, "postgres", "postgres");
	size_t c = fixture_thread(&fx, 11, 11, "postgres", "postgres");
	/* a session waiting on a lock in a statement, then idle in ClientRead */
	fixture_sample(&fx, b, 10000000, 10000000, (const char *[]){ "postgres[10] client backend",
		"query=42 UPDATE t SET a = $1", "event=Lock:relation (PostgreSQL state)", "S (sleeping)",
		"main", "ProcSleep", NULL });
	fixture_sample(&fx, b, 20000000, 10000000, (const char *[]){ "postgres[10] client backend", "idle",
		"event=Client:ClientRead (PostgreSQL state)", "S (sleeping)", "main", "secure_read", NULL });
	/* a checkpointer in its main loop (idle), then on CPU */
	fixture_sample(&fx, c, 10000000, 10000000, (const char *[]){ "postgres[11] checkpointer",
		"event=Activity:CheckpointerMain (PostgreSQL state)", "S (sleeping)", "main", NULL });
	fixture_sample(&fx, c, 20050000, 10050000, (const char *[]){ "postgres[11] checkpointer",
		"On CPU (PostgreSQL state)", "R (running)", "main", "CheckpointWriteDelay", NULL });
	/* the postmaster asleep in its select: no wait reported, no session */
	size_t pm = fixture_thread(&fx, 9, 9, "postgres", "postgres");
	fixture_sample(&fx, pm, 10000000, 10000000, (const char *[]){ "postgres[9] postmaster",
		"On CPU (PostgreSQL state)", "S (sleeping)", "main", "__select", NULL });
	struct report_read rr;
	read_report(&rr, &fx);
	const struct jdoc d = rr.d;
	const struct jval *r = rr.r;
	assert_int_equal(jget(&d, r, "stacks")->n_kids, 5);
	assert_int_equal(jget(&d, r, "kinds")->n_kids, 5 * 6);
	/* the stacks' ids are the table's order: find each by its event */
	int seen = 0;
	for (size_t s = 0; s < 5; s++) {
		const char *ev = value(&d, r, s, 1);
		if (strcmp(value(&d, r, s, 2), "postmaster") == 0) {
			assert_string_equal(ev, "CPU");
			assert_true(idle(&d, r, s) == 1);
			seen |= 16;
			continue;
		}
		if (strcmp(ev, "Lock:relation") == 0) {
			assert_string_equal(value(&d, r, s, 0), "S (sleeping)");
			assert_string_equal(value(&d, r, s, 2), "client backend");
			assert_string_equal(value(&d, r, s, 3), "query=42 UPDATE t SET a = $1");
			assert_string_equal(value(&d, r, s, 4), "postgres[10] client backend");
			assert_true(idle(&d, r, s) == 0);
			seen |= 1;
		} else if (strcmp(ev, "Client:ClientRead") == 0) {
			assert_string_equal(value(&d, r, s, 3), "idle");
			assert_true(idle(&d, r, s) == 1); /* an idle session's read */
			seen |= 2;
		} else if (strcmp(ev, "Activity:CheckpointerMain") == 0) {
			assert_string_equal(value(&d, r, s, 2), "checkpointer");
			assert_string_equal(value(&d, r, s, 3), "-");
			assert_true(idle(&d, r, s) == 1); /* a main loop */
			seen |= 4;
		} else if (strcmp(ev, "CPU") == 0) {
			assert_string_equal(value(&d, r, s, 0), "R (running)");
			assert_true(idle(&d, r, s) == 0);
			seen |= 8;
		}
	}
	assert_int_equal(seen, 31);
	/* every sample four numbers: the time since the one before and the
	 * weight less the usual, in 0.1 ms, stack, thread */
	const struct jval *S = jget(&d, r, "S");
	assert_int_equal(S->n_kids, 5 * 4);
	static const double dt[] = { 100, 100, -100, 101, -101 }; /* (c's: rounded) */
	for (size_t i = 0; i < 5; i++) {
		assert_true(jat(&d, S, 4 * i)->num == dt[i]);
		assert_true(jat(&d, S, 4 * i + 1)->num == 0); /* each weight the usual */
	}
	assert_true(jat(&d, S, 3)->num == (double)b);
	/* made whole as the page does: c's second sample at 20.1 ms, 10.1 ms */
	double whole[5 * 4];
	samples_whole(&d, r, whole, 5);
	assert_true(whole[12] == 201 && whole[13] == 101);
	assert_true(whole[4] == 200 && whole[5] == 100 && whole[16] == 100 && whole[17] == 100);
	report_read_free(&rr);
	fixture_free(&fx);
}

/* The reads (activity.h): each row its bucket (delta), pair, count, the
 * ticks' rows with pair -1; each pair its event, type, process and
 * statement as values, and idle for a main loop's wait and ClientRead
 * outside a transaction (or with no statement read). */
static void reads_as_rows_and_pairs(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "ptrace_profiler -p 9 --subprocesses", "postgres (PID 9)", 1000000);
	size_t b = fixture_thread(&fx, 10, 10, "postgres", "postgres");
	fixture_sample(&fx, b, 1000000, 1000000, (const char *[]){ "postgres[10] client backend",
		"On CPU (PostgreSQL state)", "R (running)", "main", NULL });
	struct activity *a = activity_new(0);
	assert_non_null(a);
	uint32_t be = activity_text_id(a, "postgres[10] client backend");
	uint32_t cp = activity_text_id(a, "postgres[11] checkpointer");
	uint32_t cpu = activity_text_id(a, "On CPU (PostgreSQL state)");
	uint32_t lock = activity_text_id(a, "event=Lock:relation (PostgreSQL state)");
	uint32_t main_loop = activity_text_id(a, "event=Activity:CheckpointerMain (PostgreSQL state)");
	uint32_t client = activity_text_id(a, "event=Client:ClientRead (PostgreSQL state)");
	uint32_t in_tx = activity_text_id(a, "idle in transaction");
	activity_tick(a, 1000000);
	activity_add(a, be, cpu, ACTIVITY_NONE);
	activity_add(a, cp, main_loop, ACTIVITY_NONE);
	activity_tick(a, 2000000);
	activity_add(a, be, cpu, ACTIVITY_NONE);
	activity_add(a, cp, main_loop, ACTIVITY_NONE);
	activity_tick(a, 250000000); /* bucket 2 */
	activity_add(a, be, lock, ACTIVITY_NONE);
	activity_add(a, be, client, ACTIVITY_NONE);
	activity_add(a, be, client, in_tx); /* waiting on its client in a transaction: not idle */
	assert_int_equal(activity_end(a), 0);
	fx.p.activity = a;
	struct report_read rr;
	read_report(&rr, &fx);
	const struct jdoc d = rr.d;
	const struct jval *r = rr.r;
	assert_true(jget(&d, r, "read_bucket_ns")->num == 100000000);
	const struct jval *R = jget(&d, r, "R"), *RK = jget(&d, r, "RK"), *V = jget(&d, r, "values");
	/* bucket 0: ticks 2, then two pairs; bucket 2: ticks 1, three pairs */
	assert_int_equal(R->n_kids, 3 * 7);
	static const double want[] = { 0, -1, 2, 0, 0, 2, 0, 1, 2, 2, -1, 1, 0, 2, 1, 0, 3, 1, 0, 4, 1 };
	for (size_t i = 0; i < 21; i++)
		assert_true(jat(&d, R, i)->num == want[i]);
	assert_int_equal(RK->n_kids, 5 * 5);
	static const char *const pairs[5][4] = {
		{ "CPU", "client backend", "postgres[10] client backend", "-" },
		{ "Activity:CheckpointerMain", "checkpointer", "postgres[11] checkpointer", "-" },
		{ "Lock:relation", "client backend", "postgres[10] client backend", "-" },
		{ "Client:ClientRead", "client backend", "postgres[10] client backend", "-" },
		{ "Client:ClientRead", "client backend", "postgres[10] client backend", "idle in transaction" },
	};
	static const double idle_want[5] = { 0, 1, 0, 1, 0 };
	for (size_t k = 0; k < 5; k++) {
		for (size_t c = 0; c < 4; c++)
			assert_string_equal(jat(&d, V, (size_t)jat(&d, RK, 5 * k + c)->num)->str, pairs[k][c]);
		assert_true(jat(&d, RK, 5 * k + 4)->num == idle_want[k]);
	}
	report_read_free(&rr);
	/* no reads: no R */
	fx.p.activity = NULL;
	read_report(&rr, &fx);
	assert_null(jget(&rr.d, rr.r, "R"));
	report_read_free(&rr);
	activity_free(a);
	fixture_free(&fx);
}

/* No PostgreSQL: the event is the OS state, the type the comm. */
static void a_program_without_states(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "ptrace_profiler -p 7,8", "2 processes", 1000000);
	size_t t = fixture_thread(&fx, 7, 7, "split", "split");
	fixture_sample(&fx, t, 1000000, 1000000, (const char *[]){ "split[7]/cpu", "R (running)", "main",
		"cpu_work", NULL });
	struct report_read rr;
	read_report(&rr, &fx);
	const struct jdoc d = rr.d;
	const struct jval *r = rr.r;
	assert_string_equal(value(&d, r, 0, 1), "R (running)");
	assert_string_equal(value(&d, r, 0, 2), "split");
	assert_string_equal(value(&d, r, 0, 4), "split[7]");
	assert_true(idle(&d, r, 0) == 0);
	report_read_free(&rr);
	fixture_free(&fx);
}

/* The target's names are bytes anyone could choose: "</script>" in one
 * must not end the page's script, nor open markup. */
static void hostile_names_stay_in_the_script(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "cmd </script><b>x</b>", "t & <i>", 1000000);
	size_t t = fixture_thread(&fx, 1, 1, "p", "p");
	const char *evil = "</script><script>alert(1)</script>";
	fixture_sample(&fx, t, 1000000, 1000000, (const char *[]){ "p", "R (running)", evil, NULL });
	struct report_read rr;
	read_report(&rr, &fx);
	const char *data = strstr(rr.page, "const D = ");
	assert_non_null(data);
	assert_null(strstr(data, "alert(1)</script>"));
	assert_null(strstr(data, "<b>"));
	const struct jdoc d = rr.d;
	const struct jval *r = rr.r;
	const struct jval *frames = jget(&d, r, "frames");
	int found = 0;
	for (size_t i = 0; i < frames->n_kids; i++)
		found += strcmp(jat(&d, frames, i)->str, evil) == 0;
	assert_int_equal(found, 1); /* decoded back whole */
	assert_string_equal(jget(&d, r, "command")->str, "cmd </script><b>x</b>");
	report_read_free(&rr);
	fixture_free(&fx);
}

/* Half an hour in, a sample still takes a few bytes, and comes back whole:
 * three threads at 10 ms (random intervals, as the ticks fall), a weight
 * now and then not the usual one (a round that stood for more). */
static void a_long_run_stays_small(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "c", "t", 10000000);
	size_t th[3];
	for (int i = 0; i < 3; i++)
		th[i] = fixture_thread(&fx, 20 + i, 20 + i, "p", "p");
	enum { ROUNDS = 3000, N = 3 * ROUNDS };
	static uint64_t when[N], weight[N];
	uint64_t t = 1790000000000ULL, x = 12345, prev = 0;
	for (size_t k = 0; k < ROUNDS; k++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t gap = 1000000 + (x >> 33) % 19000000; /* 1-20 ms */
		t += gap;
		for (int i = 0; i < 3; i++) {
			size_t n = 3 * k + (size_t)i;
			when[n] = t;
			weight[n] = k ? t - prev : 10000000;
			if (n % 97 == 0)
				weight[n] += 3000000;
			fixture_sample(&fx, th[i], when[n], weight[n],
				       (const char *[]){ "p", i ? "S (sleeping)" : "R (running)", "main", NULL });
		}
		prev = t;
	}
	struct report_read rr;
	read_report(&rr, &fx);
	const char *a = strstr(rr.page, "\"S\":["), *b = a ? strstr(a, "]") : NULL;
	assert_non_null(b);
	double per = (double)(b - a) / N;
	/* (absolute times and weights: 17 bytes and more) */
	if (per > 10)
		fail_msg("%.1f bytes a sample (<= 10)", per);
	static double whole[4 * N];
	samples_whole(&rr.d, rr.r, whole, N);
	for (size_t n = 0; n < N; n++) {
		assert_true(whole[4 * n] == (double)((when[n] + 50000) / 100000));
		assert_true(whole[4 * n + 1] == (double)((weight[n] + 50000) / 100000));
	}
	report_read_free(&rr);
	fixture_free(&fx);
}

/* A profile without its samples (a format that keeps no time) is refused. */
static void needs_the_samples(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "c", "t", 1000000);
	size_t t = fixture_thread(&fx, 1, 1, "p", "p");
	fixture_sample(&fx, t, 1000000, 1000000, (const char *[]){ "p", "R (running)", "main", NULL });
	struct written w;
	errno = 0;
	assert_int_equal(output_html(written_open(&w), fixture_profile_as(&fx, 0)), -1);
	assert_int_equal(errno, EINVAL);
	free(written_text(&w));
	fixture_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dimensions_from_frames),
		cmocka_unit_test(a_program_without_states),
		cmocka_unit_test(reads_as_rows_and_pairs),
		cmocka_unit_test(hostile_names_stay_in_the_script),
		cmocka_unit_test(a_long_run_stays_small),
		cmocka_unit_test(needs_the_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
