/* Unit tests: durations in the summary, as a person reads them; its
 * cut stacks and the hint for JIT code; --pg-queries' time model. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/summary.h"
#include "profile/cut.h"

static void durations(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(format_duration(10000000ULL, b, sizeof(b)), "10 ms");
	assert_string_equal(format_duration(100000ULL, b, sizeof(b)), "100 us");
	assert_string_equal(format_duration(1500000ULL, b, sizeof(b)), "1.5 ms");
	assert_string_equal(format_duration(2500000000ULL, b, sizeof(b)), "2.5 s");
	assert_string_equal(format_duration(500ULL, b, sizeof(b)), "500 ns");
	assert_string_equal(format_duration(1ULL, b, sizeof(b)), "1 ns");
	assert_string_equal(format_duration(0ULL, b, sizeof(b)), "0 ns");
	/* the largest interval the options take: days, not a 14-digit rate */
	assert_string_equal(format_duration(100000000ULL * 1000000000ULL, b, sizeof(b)), "1157 days");
	assert_string_equal(format_duration(INT64_MAX, b, sizeof(b)), "106752 days");
}

static void time_model(void **state)
{
	(void)state;
	const struct pg_wait_table *pg15 = pg_wait_table_for(15);
	struct pg_time t = PG_TIME_INIT;
	size_t upd = (size_t)pg_time_entry(&t, "query=7 UPDATE b SET x = x + $1");
	size_t idle = (size_t)pg_time_entry(&t, "idle");
	size_t sel = (size_t)pg_time_entry(&t, "query=-3 SELECT $1");
	pg_time_add(&t, upd, 30, false, true, 0x03000005u, pg15); /* Lock:transactionid */
	pg_time_add(&t, upd, 10, true, true, 0, pg15);
	pg_time_add(&t, idle, 50, false, true, 0x06000000u, pg15);
	pg_time_add(&t, sel, 10, true, true, 0, pg15);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	summary_time_model(f, &t, 200, false);
	fclose(f);
	assert_string_equal(text,
		"  queries (--pg-queries) 2 seen, in 25.0% of the 200 samples taken; the heaviest, waits as shares of each one's samples:\n"
		"     1.  20.0% of the samples, on CPU  25.0%: query=7 UPDATE b SET x = x + $1\n"
		"        waits: Lock:transactionid 75.0%\n"
		"     2.   5.0% of the samples, on CPU 100.0%: query=-3 SELECT $1\n"
		"        waits: none\n"
		"  sessions not in a query idle 25.0%\n");
	free(text);
	/* the same from the report's reads */
	text = NULL;
	f = open_memstream(&text, &len);
	summary_time_model(f, &t, 200, true);
	fclose(f);
	assert_non_null(strstr(text,
		"  queries (--pg-queries) 2 seen, in 25.0% of the 200 reads taken (the report's: every "
		"process's state at every tick, read without a stop; on CPU: no wait event); the "
		"heaviest, waits as shares of each one's reads:\n"
		"     1.  20.0% of the reads, on CPU  25.0%: query=7 UPDATE b SET x = x + $1\n"));
	free(text);
	/* samples read while parsed, counted under their statement's id */
	t.renamed_samples = 3;
	text = NULL;
	f = open_memstream(&text, &len);
	summary_time_model(f, &t, 200, false);
	fclose(f);
	assert_non_null(strstr(text, "  sessions not in a query idle 25.0%\n"
				     "  read while parsed      3 samples of statements read before the server "
				     "computed their id, counted under the id the run saw for the same text\n"));
	free(text);
	/* nothing seen */
	pg_time_free(&t);
	text = NULL;
	f = open_memstream(&text, &len);
	summary_time_model(f, &t, 0, false);
	fclose(f);
	assert_string_equal(text, "  queries (--pg-queries) 0 seen, in 0.0% of the 0 samples taken\n");
	free(text);
}

/* A process's line names it as its root frames do: comm, then its
 * backend type or title where it has one. */
static void process_heads(void **state)
{
	(void)state;
	static const struct {
		pid_t pid;
		const char *comm, *words;
		size_t threads;
		const char *want;
	} cases[] = {
		{ 1234, "postgres", "client backend", 1,
		  "  process 1234   postgres client backend 1 thread now" },
		{ 77, "postgres", "logical replication launcher", 1,
		  "  process 77     postgres logical replication launcher 1 thread now" },
		{ 9, "sleep", "pp_server: worker 1", 1, "  process 9      sleep pp_server: worker 1 1 thread now" },
		{ 4242, "blocked", NULL, 2, "  process 4242   blocked         2 threads now" },
		{ 4243, "blocked", "", 3, "  process 4243   blocked         3 threads now" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		assert_non_null(f);
		summary_process_head(f, cases[i].pid, cases[i].comm, cases[i].words, cases[i].threads);
		fclose(f);
		assert_string_equal(text, cases[i].want);
		free(text);
	}
	/* without a sampler (a run that did not start) nothing is named */
	assert_null(sampler_process_words(NULL, 1234));
}

/* The summary of a run of no process with this result. */
static char *summary_text(const struct options *o, const struct sampler_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	summary_print(f, o, NULL, 0, NULL, r);
	fclose(f);
	return text;
}

/* ... with these samples, cut as the tally c says. */
static char *summary_of(uint64_t samples, struct cuts *c)
{
	struct options o = { .interval_ns = 10000000 };
	struct sampler_result r = { .samples = samples, .cut = cut_tally(c) };
	return summary_text(&o, &r);
}

/* The self-check's line: which thread, both figures, what to do. */
/* A table of at most 10 rows: all of 12, 10 of 13 and the rest summed. */
static void rows_shown(void **state)
{
	(void)state;
	assert_int_equal(summary_rows_shown(0, 10), 0);
	assert_int_equal(summary_rows_shown(10, 10), 10);
	assert_int_equal(summary_rows_shown(12, 10), 12);
	assert_int_equal(summary_rows_shown(13, 10), 10);
	assert_int_equal(summary_rows_shown(3001, 10), 10);
}

/* Each line of text within 100 columns, else the test fails naming it. */
static void lines_fit(const char *text)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n > 100)
			fail_msg("%zu columns: '%.*s'", n, (int)n, p);
		p += n + (nl != NULL);
	}
}

/* The self-check's warning: how many threads, what to do, then the
 * worst one's figures on a second line; both within 100 columns with a
 * 15-character name and a 7-digit id. */
static void self_check_line(void **state)
{
	(void)state;
	struct options o = { .interval_ns = 100000 };
	struct thread_figures t = { .pid = 1, .tid = 1234, .comm = "burst0" };
	t.check = (struct selfcheck_verdict){ true, 2.1, 7.9, 0.4, 20 };
	char line[512];
	summary_check_line(&o, &t, SELFCHECK_ON_CPU, 1, line, sizeof(line));
	assert_non_null(strstr(line, "warning: 1 thread's CPU time misread: "));
	assert_non_null(strstr(line, "-d 1ms or more)\n  thread 1234 (burst0) ran 7.9% by "
				     "schedstat, in 2.1% of samples (+-0.4)"));
	assert_null(strchr(line, '\n') ? strchr(strchr(line, '\n') + 1, '\n') : "no second line");
	o.interval_ns = 10000000; /* at 10 ms: the CPU, not the interval */
	summary_check_line(&o, &t, SELFCHECK_ON_CPU, 3, line, sizeof(line));
	assert_non_null(strstr(line, "warning: 3 threads' CPU time misread: sample less often, or "
				     "with a spare CPU\n  worst: thread 1234 (burst0)"));
	/* queued for a CPU: its own figures */
	t.queue_check = (struct selfcheck_verdict){ true, 52.0, 60.8, 1.1, 20 };
	summary_check_line(&o, &t, SELFCHECK_QUEUED, 1, line, sizeof(line));
	assert_non_null(strstr(line, "warning: 1 thread's wait for a CPU misread: sample with a spare CPU"));
	assert_non_null(strstr(line, "\n  thread 1234 (burst0) queued 60.8% by schedstat, "
				     "in 52.0% of samples (+-1.1)"));
	/* the widest: "ptrace_profiler: " before it */
	struct thread_figures wide = { .pid = 1, .tid = 4194304, .comm = "abcdefghijklmno" };
	wide.check = (struct selfcheck_verdict){ true, 100.0, 100.0, 10.0, 20 };
	wide.queue_check = wide.check;
	for (size_t k = 0; k < 2; k++) {
		char text[600];
		summary_check_line(&o, &wide, k ? SELFCHECK_QUEUED : SELFCHECK_ON_CPU, 4096, line,
				   sizeof(line));
		snprintf(text, sizeof(text), "ptrace_profiler: %s", line);
		lines_fit(text);
	}
}

static void cut_stacks(void **state)
{
	(void)state;
	struct cuts c;
	cuts_start(&c);
	char *text = summary_of(5960, &c);
	assert_non_null(strstr(text, "\n  cut stacks             0 of 5960 samples end in [truncated]\n"));
	assert_null(strstr(text, "PreserveFramePointer"));
	free(text);

	cut_count(&c, "[libc.so.6]", false, 3);
	cut_count(&c, "[anon]", true, 94990);
	cut_count(&c, "[libjvm.so]", false, 7);
	text = summary_of(95114, &c);
	if (!strstr(text, "\n  cut stacks             95000 of 95114 samples end in [truncated], "
			  "most in [anon] (94990)\n") ||
	    !strstr(text, "-XX:+PreserveFramePointer") || !strstr(text, "/tmp/perf-PID.map"))
		fail_msg("%s", text);
	free(text);
	cuts_end(&c);

	/* cut where no JIT is: no hint about JITs */
	cuts_start(&c);
	cut_count(&c, "[libfoo.so]", false, 2);
	text = summary_of(10, &c);
	assert_non_null(strstr(text, "2 of 10 samples end in [truncated], most in [libfoo.so] (2)\n"));
	assert_null(strstr(text, "PreserveFramePointer"));
	free(text);
	cuts_end(&c);
}

/* The host's steal: said from half a per cent of the CPUs' time. */
static void host_steal(void **state)
{
	(void)state;
	struct options o = { .interval_ns = 100000 };
	struct sampler_result r = { .samples = 10 };
	const double shares[] = { -1, 0, 0.0049, 0.023 };
	for (size_t i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
		r.steal_share = shares[i];
		char *text = summary_text(&o, &r);
		const char *line = strstr(text, "\n  host steal             ");
		if (shares[i] < 0.005)
			assert_null(line);
		else if (!line || !strstr(line, " 2.3% of the CPUs' time went to other guests"))
			fail_msg("%s", text);
		free(text);
	}
}

/* The cost line, after the rate's two: the threads' stopped share; then
 * our CPU, per sample and of the machine, and how idle the machine was -
 * "below ours" only when it was: ours came out of others' work. */
static void cost_line(void **state)
{
	(void)state;
	struct options o = { .interval_ns = 1000000 };
	/* 100 ticks of 2 threads in 1 s, stopped 2 ms in all: 0.1 % each */
	struct sampler_result r = { .samples = 200, .ticks = 100, .rounds = 100,
				    .wall_ns = 1000000000, .cpus = 2, .cpu_ns = 200000000 };
	r.frozen.total_ns = 2000000;
	const double idle[] = { -1, 0.004, 0.5 };
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++) {
		r.idle_known = idle[i] >= 0;
		r.idle_share = idle[i];
		char *text = summary_text(&o, &r);
		const char *line = strstr(text, "\n  cost                   threads stopped 0.100% of "
					  "their time\n  profiler CPU           1000.0 us per sample, "
					  "10.00% of the machine's 2 CPUs");
		const char *next = line ? strchr(line + 1, '\n') : NULL;
		next = next ? strchr(next + 1, '\n') : NULL;
		if (!line || !next)
			fail_msg("%s", text);
		char *two = strndup(line + 1, (size_t)(next - line - 1));
		const char *want = i == 0 ? "of the machine's 2 CPUs" :
				   i == 1 ? "; 0.4% idle, below ours" : "; 50.0% idle";
		size_t n = strlen(two), w = strlen(want);
		if (n < w || strcmp(two + n - w, want) != 0)
			fail_msg("'%s' does not end with '%s'", two, want);
		/* right after the rate's lines */
		const char *rounds = strstr(text, "\n  rounds ");
		if (!strstr(text, "\n  rate ") || !rounds || strchr(rounds + 1, '\n') != line)
			fail_msg("%s", text);
		free(two);
		free(text);
	}
}

/* Processes that exited are summed in one line unless there are at most
 * two of them; those still running come first. */
static void exited_processes_summed(void **state)
{
	(void)state;
	struct options o = { .interval_ns = 10000000 };
	struct sampler_result r = { .samples = 0, .ticks = 1 };
	static struct target ts[30];
	const size_t counts[] = { 30, 3 };
	for (size_t c = 0; c < 2; c++) {
		size_t n = counts[c];
		for (size_t i = 0; i < n; i++) {
			ts[i] = (struct target){ .pid = (pid_t)(1000 + i), .exited = i % 6 != 0 };
			snprintf(ts[i].comm, sizeof(ts[i].comm), "p%zu", i);
		}
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		assert_non_null(f);
		summary_print(f, &o, ts, n, NULL, &r);
		fclose(f);
		size_t lines = 0;
		for (const char *p = text; (p = strstr(p, "\n  process ")); p++)
			lines++;
		if (c == 0) { /* 5 running, 25 exited */
			if (lines != 5 || !strstr(text, "\n  and 25 processes that exited, 0 samples\n") ||
			    !strstr(text, "\n  process 1000 "))
				fail_msg("%s", text);
		} else { /* 1 running, 2 exited: all listed, the running one first */
			const char *first = strstr(text, "\n  process ");
			if (lines != 3 || strstr(text, "that exited") || !first ||
			    strncmp(first, "\n  process 1000 ", 16) != 0)
				fail_msg("%s", text);
		}
		free(text);
	}
}

/* The summary fits a screen: with every figure at its widest, no line
 * over 100 columns; how samples were read and timed only with -v. */
static void fits_a_screen(void **state)
{
	(void)state;
	struct options o = { .interval_ns = 1000 * 1000 * 1000ULL - 1 };
	struct sampler_result r = {
		/* a day at 100 us: 9 digits of ticks */
		.samples = 99999999999ULL, .ticks = 999999999ULL, .rounds = 999999999ULL,
		.merged_ticks = 999999999ULL, .skipped_ticks = 999999999ULL,
		.wall_ns = 99999ULL * 1000000000ULL, .cpus = 2, .cpu_ns = 99998ULL * 1000000000ULL,
		.idle_known = true, .idle_share = 0.001, .unwind_failures = 99999999999ULL,
		.stop_timeouts = 99999, .naming_ns = 9999000000ULL, .images_opened = 999,
		.maps_reads = 999, .peak_rss_kb = 99999999, .steal_share = 0.999, .nice = 19,
		.realtime = true, .peeked = 5, .reused = 5, .still = 5, .queued = 3,
	};
	r.detach.threads = 99999;
	r.detach.ns = 99999999999ULL;
	r.frozen.total_ns = 1000;
	char *text = summary_text(&o, &r);
	lines_fit(text);
	if (strstr(text, "without a stop") || strstr(text, "sampler priority") ||
	    strstr(text, "queued for a CPU") || strstr(text, "\n  round "))
		fail_msg("mechanics without -v:\n%s", text);
	free(text);
	o.verbose = true;
	text = summary_text(&o, &r);
	if (!strstr(text, "\n  without a stop ") || !strstr(text, "\n  sampler priority ") ||
	    !strstr(text, "\n  queued for a CPU ") || !strstr(text, "\n  round "))
		fail_msg("mechanics missing with -v:\n%s", text);
	free(text);
}

/* Re-reads of the maps skipped: said only when some were, with the
 * addresses ("+" past those told apart), look-ups, slowest read, wait. */
static void maps_not_reread(void **state)
{
	(void)state;
	struct options o = { .interval_ns = 1000000 };
	struct sampler_result r = { .samples = 10, .naming_ns = 1000000, .maps_reads = 3 };
	char *text = summary_text(&o, &r);
	if (strstr(text, "maps not re-read"))
		fail_msg("%s", text);
	free(text);
	r.maps_skipped = 1866;
	r.maps_skipped_addrs = 1;
	r.maps_read_max_ns = 12600000;
	r.maps_wait_max_ns = 629000000;
	text = summary_text(&o, &r);
	if (!strstr(text, "\n  maps not re-read       1 address left unknown (1866 look-ups): "
		    "slowest read 12.6 ms, longest wait 629 ms\n"))
		fail_msg("%s", text);
	free(text);
	r.maps_skipped_addrs = 4096;
	r.maps_skipped_more = true;
	text = summary_text(&o, &r);
	if (!strstr(text, "  maps not re-read       4096+ addresses left unknown ("))
		fail_msg("%s", text);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(self_check_line),
		cmocka_unit_test(rows_shown),
		cmocka_unit_test(durations),
		cmocka_unit_test(process_heads),
		cmocka_unit_test(time_model),
		cmocka_unit_test(cut_stacks),
		cmocka_unit_test(host_steal),
		cmocka_unit_test(cost_line),
		cmocka_unit_test(fits_a_screen),
		cmocka_unit_test(exited_processes_summed),
		cmocka_unit_test(maps_not_reread),
	};
	return cmocka_run_group_tests_name("summary", tests, NULL, NULL);
}
