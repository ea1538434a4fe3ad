/* Unit tests: interval/count/pid parsing and the command line. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "options.h"

static void interval_units(void **state)
{
	(void)state;
	uint64_t ns;
	assert_int_equal(parse_interval("100us", &ns), 0);
	assert_int_equal(ns, 100000);
	assert_int_equal(parse_interval("250ns", &ns), 0);
	assert_int_equal(ns, 250);
	assert_int_equal(parse_interval("2s", &ns), 0);
	assert_int_equal(ns, 2000000000ULL);
	assert_int_equal(parse_interval("10ms", &ns), 0);
	assert_int_equal(ns, 10000000);
	assert_int_equal(parse_interval("1.5ms", &ns), 0);
	assert_int_equal(ns, 1500000);
	assert_int_equal(parse_interval("0.25s", &ns), 0);
	assert_int_equal(ns, 250000000);
}

static void interval_bare_number_is_ms(void **state)
{
	(void)state;
	uint64_t ns;
	assert_int_equal(parse_interval("20", &ns), 0);
	assert_int_equal(ns, 20000000);
}

static void interval_rejects(void **state)
{
	(void)state;
	const char *bad[] = { "", "0", "0ms", "0.0s", "-5ms", "+5ms", " 5ms", "5 ms", "5ms ",
			      "abc", "10xs", "5parsecs", "1e3ms", "1.ms", ".5ms", "1.5ns",
			      "1.2.3ms", "99999999999999999999s", "18446744073709551616us",
			      "18446744073709551615s", "5MS", "5m", "ms" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t ns = 42;
		if (parse_interval(bad[i], &ns) != -1)
			fail_msg("accepted '%s' as %llu ns", bad[i], (unsigned long long)ns);
		assert_int_equal(ns, 42); /* untouched on error */
	}
	uint64_t ns;
	assert_int_equal(parse_interval(NULL, &ns), -1);
}

static void interval_largest(void **state)
{
	(void)state;
	uint64_t ns;
	/* INT64_MAX ns is the ceiling (about 292 years). */
	assert_int_equal(parse_interval("9223372036854775807ns", &ns), 0);
	assert_int_equal(ns, (uint64_t)INT64_MAX);
	assert_int_equal(parse_interval("9223372036854775808ns", &ns), -1);
}

static void count_and_pid(void **state)
{
	(void)state;
	uint64_t n;
	pid_t pid;
	assert_int_equal(parse_count("5000", &n), 0);
	assert_int_equal(n, 5000);
	const char *bad[] = { "", "0", "-1", "1.5", "12a", " 1", "+3", "99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_count(bad[i], &n) != -1)
			fail_msg("count accepted '%s'", bad[i]);
	assert_int_equal(parse_pid("1234", &pid), 0);
	assert_int_equal(pid, 1234);
	assert_int_equal(parse_pid("0", &pid), -1);
	assert_int_equal(parse_pid("abc", &pid), -1);
	assert_int_equal(parse_pid("2147483648", &pid), -1);
}

/* Runs options_parse over a NULL-terminated word list. */
static enum parse_result parse(struct options *o, char *err, const char *const *words)
{
	static char *argv[64];
	int argc = 0;
	argv[argc++] = "ptrace_profiler";
	for (; *words; words++)
		argv[argc++] = (char *)*words;
	argv[argc] = NULL;
	return options_parse(argc, argv, o, err, 256);
}

static void command_line_defaults_and_values(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	const char *w1[] = { "-p", "42", NULL };
	assert_int_equal(parse(&o, err, w1), PARSE_OK);
	assert_int_equal(o.n_pids, 1);
	assert_int_equal(o.pids[0], 42);
	assert_int_equal(o.interval_ns, DEFAULT_INTERVAL_NS);
	assert_int_equal(o.count, 0);
	assert_int_equal(o.duration_ns, 0);
	assert_null(o.output_path);
	assert_null(o.command);
	assert_int_equal(o.format, FORMAT_FOLDED);

	const char *w2[] = { "--pid", "7", "--delay", "100us", "--count", "5000", "--duration",
			     "3s", "--output", "x.folded", "--format", "stap", NULL };
	assert_int_equal(parse(&o, err, w2), PARSE_OK);
	assert_int_equal(o.n_pids, 1);
	assert_int_equal(o.pids[0], 7);
	assert_int_equal(o.interval_ns, 100000);
	assert_int_equal(o.count, 5000);
	assert_int_equal(o.duration_ns, 3000000000ULL);
	assert_string_equal(o.output_path, "x.folded");
	assert_int_equal(o.format, FORMAT_STAP);

	const char *w3[] = { "-d", "5", "-n", "3", "-t", "1s", "-o", "f", "-p", "9", NULL };
	assert_int_equal(parse(&o, err, w3), PARSE_OK);
	assert_int_equal(o.interval_ns, 5000000); /* bare number: ms */
	assert_int_equal(o.count, 3);
	assert_int_equal(o.n_pids, 1);
	assert_int_equal(o.pids[0], 9);
	assert_int_equal(o.ksuseopc_addr, 0);

	const char *w4[] = { "-p", "9", "--ksuseopc", "139984506261505", "--ksusetim", "0x7f4fe4002003",
			     "--event-names", "ev.sed", NULL };
	assert_int_equal(parse(&o, err, w4), PARSE_OK);
	assert_int_equal(o.ksuseopc_addr, 139984506261505ULL);
	assert_int_equal(o.ksusetim_addr, 0x7f4fe4002003ULL);
	assert_string_equal(o.event_names, "ev.sed");
	assert_false(o.subprocesses);

	const char *w5[] = { "-p", "9", "--subprocesses", NULL };
	assert_int_equal(parse(&o, err, w5), PARSE_OK);
	assert_true(o.subprocesses);
	const char *w6[] = { "--subprocesses", "--", "make", "-j2", NULL };
	assert_int_equal(parse(&o, err, w6), PARSE_OK);
	assert_true(o.subprocesses);
	assert_string_equal(o.command[0], "make");
}

static void pid_and_tid_lists(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	char pids[] = "10,20,30";
	const char *w[] = { "-p", pids, "--tid", "11,21", NULL };
	assert_int_equal(parse(&o, err, w), PARSE_OK);
	assert_int_equal(o.n_pids, 3);
	assert_int_equal(o.pids[2], 30);
	assert_int_equal(o.n_tids, 2);
	assert_int_equal(o.tids[1], 21);
	assert_string_equal(pids, "10,20,30"); /* the argument is left as it was */

	char many[MAX_PIDS * 4 + 8] = "";
	for (int i = 1; i <= MAX_PIDS + 1; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%d", i > 1 ? "," : "", i);
	const char *w2[] = { "-p", many, NULL };
	assert_int_equal(parse(&o, err, w2), PARSE_ERROR);
	assert_non_null(strstr(err, "too many pids"));
}

static void command_line_launch(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	const char *w[] = { "-d", "1ms", "--", "./prog", "-p", "arg", NULL };
	assert_int_equal(parse(&o, err, w), PARSE_OK);
	assert_non_null(o.command);
	assert_string_equal(o.command[0], "./prog");
	assert_string_equal(o.command[1], "-p"); /* the command's own options stay its own */
	assert_string_equal(o.command[2], "arg");
	assert_null(o.command[3]);
	assert_int_equal(o.interval_ns, 1000000);
}

/* Each bad command line fails with a message naming the bad value. */
static void command_line_errors(void **state)
{
	(void)state;
	struct {
		const char *words[8];
		const char *must_name;
	} cases[] = {
		{ { "-p", "1", "-d", "10xs" }, "'10xs'" },
		{ { "-p", "1", "-d", "0" }, "'0'" },
		{ { "-p", "1", "-d", "-5ms" }, "'-5ms'" },
		{ { "-p", "1", "-n", "0" }, "'0'" },
		{ { "-p", "1", "-n", "1.5" }, "'1.5'" },
		{ { "-p", "1", "-t", "5parsecs" }, "'5parsecs'" },
		{ { "-p", "abc" }, "'abc'" },
		{ { "-p", "0" }, "'0'" },
		{ { "-p", "1", "--format", "json" }, "'json'" },
		{ { "-p", "1", "--bogus" }, "'--bogus'" },
		{ { "-p", "1", "-x" }, "'-x'" },
		{ { "-p" }, "-p" },
		{ { "-p", "1", "--delay" }, "--delay" },
		{ { NULL }, "no target" },
		{ { "-d", "1ms" }, "no target" },
		{ { "-p", "1", "--", "ls" }, "'ls'" },
		{ { "-p", "1,x,3" }, "'x'" },
		{ { "-p", "1,,3" }, "''" },
		{ { "-p", "1,2,1" }, "'1'" },
		{ { "-p", "1", "--tid", "5,0" }, "'0'" },
		{ { "--tid", "5" }, "--tid needs -p" },
		{ { "-p", "1", "--ksuseopc", "4096" }, "go together" },
		{ { "-p", "1", "--ksusetim", "4096" }, "go together" },
		{ { "-p", "1", "--ksuseopc", "zz", "--ksusetim", "5" }, "'zz'" },
		{ { "-p", "1", "--ksuseopc", "4096", "--ksusetim", "0" }, "'0'" },
		{ { "-p", "1", "--event-names", "ev.sed" }, "'ev.sed'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct options o;
		char err[256];
		if (parse(&o, err, cases[i].words) != PARSE_ERROR)
			fail_msg("case %zu accepted", i);
		if (!strstr(err, cases[i].must_name))
			fail_msg("case %zu: '%s' does not name %s", i, err, cases[i].must_name);
		assert_null(strchr(err, '\n')); /* one line */
	}
}

static void pg_wait_events_option(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	assert_int_equal(parse(&o, err, (const char *const[]){ "-p", "7", NULL }), PARSE_OK);
	assert_false(o.pg_wait_events);
	assert_int_equal(parse(&o, err, (const char *const[]){ "-p", "7", "--pg-wait-events",
							   "--subprocesses", NULL }), PARSE_OK);
	assert_true(o.pg_wait_events);
	assert_true(o.subprocesses);
	/* with --tid, several pids, a command */
	assert_int_equal(parse(&o, err, (const char *const[]){ "--pg-wait-events", "-p", "7,8",
							   "--tid", "9", NULL }), PARSE_OK);
	assert_true(o.pg_wait_events);
	assert_int_equal(parse(&o, err, (const char *const[]){ "--pg-wait-events", "--", "postgres",
							   "-D", "x", NULL }), PARSE_OK);
	assert_true(o.pg_wait_events);
	assert_string_equal(o.command[0], "postgres");
}

static void pg_queries_idle_and_grouping(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	assert_int_equal(parse(&o, err, (const char *const[]){ "-p", "7", NULL }), PARSE_OK);
	assert_false(o.pg_queries);
	assert_false(o.no_idle);
	assert_int_equal(o.group_by, GROUP_PID); /* today's roots by default */
	assert_int_equal(parse(&o, err, (const char *const[]){ "-p", "7", "--subprocesses",
							   "--pg-queries", "--no-idle", "--group-by",
							   "type", NULL }), PARSE_OK);
	assert_true(o.pg_queries);
	assert_true(o.no_idle);
	assert_int_equal(o.group_by, GROUP_TYPE);
	const char *const names[] = { "pid", "type", "all", "thread" };
	for (int g = 0; g < 4; g++) {
		assert_int_equal(parse(&o, err, (const char *const[]){ "--group-by", names[g], "-p",
								   "7", NULL }), PARSE_OK);
		assert_int_equal(o.group_by, (enum group_by)g);
	}
	/* --no-idle is no PostgreSQL option: any target */
	assert_int_equal(parse(&o, err, (const char *const[]){ "--no-idle", "--", "sleep", "1",
							   NULL }), PARSE_OK);
	/* a type's label is the user's own unless grouping by type */
	assert_int_equal(parse(&o, err, (const char *const[]){ "-p", "7", "--push", "http://x",
							   "--label", "backend_type=a", NULL }),
			 PARSE_OK);
	assert_int_equal(parse(&o, err, (const char *const[]){ "-p", "7", "--push", "http://x",
							   "--group-by", "type", "--label",
							   "env=prod", NULL }), PARSE_OK);
}

static void help_and_version_exit_ok(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	/* stdout is not checked here (the integration tests read it). */
	FILE *saved = stdout;
	stdout = fopen("/dev/null", "w");
	enum parse_result h = parse(&o, err, (const char *const[]){ "--help", NULL });
	enum parse_result v = parse(&o, err, (const char *const[]){ "-V", NULL });
	fclose(stdout);
	stdout = saved;
	assert_int_equal(h, PARSE_EXIT_OK);
	assert_int_equal(v, PARSE_EXIT_OK);
}

static void interval_exact_values(void **state)
{
	(void)state;
	struct {
		const char *text;
		uint64_t ns;
	} ok[] = {
		{ "1ns", 1 },
		{ "0.5us", 500 },
		{ "1.5us", 1500 },
		{ "0.001ms", 1000 },
		{ "1.000000001s", 1000000001ULL },
		{ "00010ms", 10000000 },
		{ "0.1", 100000 },            /* bare: ms */
		{ "9223372036s", 9223372036000000000ULL },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t ns = 0;
		if (parse_interval(ok[i].text, &ns) != 0 || ns != ok[i].ns)
			fail_msg("'%s' gave %llu, not %llu", ok[i].text, (unsigned long long)ns,
				 (unsigned long long)ok[i].ns);
	}
	const char *bad[] = { "9223372037s", "18446744073709551615ns", "1.0000000001s",
			      "0x10ms", "inf", "nan", "1,5ms", "1.5 ms", "10ms\n", "\t10ms",
			      "1e-3s", "10msms", "10sm", "0.0000001ms", "0ns", "0.000s" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t ns;
		if (parse_interval(bad[i], &ns) != -1)
			fail_msg("accepted '%s'", bad[i]);
	}
}

static void count_bounds(void **state)
{
	(void)state;
	uint64_t n;
	assert_int_equal(parse_count("9223372036854775807", &n), 0);
	assert_int_equal(n, (uint64_t)INT64_MAX);
	assert_int_equal(parse_count("9223372036854775808", &n), -1);
	assert_int_equal(parse_count("18446744073709551616", &n), -1);
	assert_int_equal(parse_count("007", &n), 0);
	assert_int_equal(n, 7);
	assert_int_equal(parse_count(NULL, &n), -1);
	pid_t pid;
	assert_int_equal(parse_pid("2147483647", &pid), 0);
	assert_int_equal(pid, 2147483647);
	const char *bad[] = { "", "-5", "12abc", " 12", "12 ", "+12", "0x10", "4294967297" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pid = 99;
		if (parse_pid(bad[i], &pid) != -1)
			fail_msg("pid accepted '%s'", bad[i]);
		assert_int_equal(pid, 99);
	}
}

static void pid_list_direct(void **state)
{
	(void)state;
	pid_t out[4];
	const char *bad = "x";
	assert_int_equal(parse_pid_list("7", out, 4, &bad), 1);
	assert_int_equal(out[0], 7);
	assert_int_equal(parse_pid_list("1,2,3,4", out, 4, &bad), 4); /* exactly max */
	assert_int_equal(out[3], 4);

	const char *text = "1,2,3,4,5";
	assert_int_equal(parse_pid_list(text, out, 4, &bad), -1);
	assert_null(bad); /* too long, nothing wrong with an item */

	struct {
		const char *text;
		size_t bad_at; /* offset of the item blamed */
	} cases[] = {
		{ "", 0 }, { ",", 0 }, { "1,", 2 }, { ",1", 0 }, { "1,,2", 2 },
		{ "1,2,1", 4 }, { "5,x7,6", 2 }, { "5,0", 2 }, { "5,-3", 2 },
		{ "3,99999999999999999999999", 2 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bad = NULL;
		if (parse_pid_list(cases[i].text, out, 4, &bad) != -1)
			fail_msg("list accepted '%s'", cases[i].text);
		if (bad != cases[i].text + cases[i].bad_at)
			fail_msg("'%s': blamed offset %td, not %zu", cases[i].text,
				 bad ? bad - cases[i].text : -1, cases[i].bad_at);
	}
}

/* Runs parse() with stdout and stderr caught; returns what was printed. */
static char *parse_caught(struct options *o, char *err, const char *const *words,
			  enum parse_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	FILE *saved_out = stdout, *saved_err = stderr;
	stdout = mem;
	stderr = mem;
	*r = parse(o, err, words);
	stdout = saved_out;
	stderr = saved_err;
	fclose(mem);
	return text;
}

static void exact_error_messages(void **state)
{
	(void)state;
	struct {
		const char *words[10];
		const char *message;
	} cases[] = {
		{ { "-p", "1", "-d", "10xs" },
		  "invalid interval '10xs' for -d: expected a positive number with unit ns, us, ms or s" },
		{ { "-p", "1", "-d", "1ns" },
		  "invalid interval '1ns' for -d: at least 50us (a round takes 20-45 us: shorter ones would run back to back and stop the target most of its time)" },
		{ { "-p", "1", "-t", "0" },
		  "invalid duration '0' for -t: expected a positive number with unit ns, us, ms or s" },
		{ { "-p", "1", "-n", "0" }, "invalid count '0' for -n: expected a positive integer" },
		{ { "-p", "1", "--format", "json" },
		  "unknown format 'json' for --format: expected folded, stap, svg, speedscope, pprof, perf-script or html" },
		{ { "-p", "1", "--format", "SVG" },
		  "unknown format 'SVG' for --format: expected folded, stap, svg, speedscope, pprof, perf-script or html" },
		{ { "-p", "1", "--format", "" },
		  "unknown format '' for --format: expected folded, stap, svg, speedscope, pprof, perf-script or html" },
		{ { "-p", "1", "--foo" }, "unknown option '--foo'" },
		{ { "-p", "1", "--foo=bar" }, "unknown option '--foo'" },
		{ { "-q", "-p", "1" }, "unknown option '-q'" },
		{ { "--help=yes" }, "option '--help' takes no value" },
		{ { "--d", "5", "-p", "1" }, "ambiguous option '--d'" },
		{ { "-d", "5" }, "no target: give -p PID or -- COMMAND" },
		{ { "-p", "1", "-n" }, "option '-n' needs a value" },
		{ { "-p", "1", "--output" }, "option '--output' needs a value" },
		{ { "-p", "1", "-o", "" }, "invalid output file '' for -o" },
		{ { "-p", "1", "--tid", "2", "--subprocesses" },
		  "--subprocesses and --tid do not go together: --tid names threads of the processes given with -p" },
		{ { "-p", "1", "--subprocesses", "--ksuseopc", "1", "--ksusetim", "2" },
		  "--subprocesses and --ksuseopc do not go together: the Oracle addresses are one session's" },
		{ { "-p", "1", "--pg-wait-events", "--ksuseopc", "1", "--ksusetim", "2" },
		  "--pg-wait-events and --ksuseopc do not go together: one application state per sample (PostgreSQL's or Oracle's)" },
		{ { "-p", "1", "--pg-wait-events=yes" }, "option '--pg-wait-events' takes no value" },
		{ { "-p", "1", "--pg-wait" , "--pg-waits" }, "unknown option '--pg-waits'" },
		{ { "--pg-wait-events" }, "no target: give -p PID or -- COMMAND" },
		{ { "-p", "1", "--pg-wait-events", "--event-names", "x" },
		  "--event-names 'x' needs --ksuseopc and --ksusetim" },
		{ { "-p", "1", "--pg-queries", "--ksuseopc", "1", "--ksusetim", "2" },
		  "--pg-queries and --ksuseopc do not go together: one application state per sample (PostgreSQL's or Oracle's)" },
		{ { "-p", "1", "--group-by", "threads" },
		  "invalid grouping 'threads' for --group-by: expected pid, thread, type or all" },
		{ { "-p", "1", "--group-by", "" },
		  "invalid grouping '' for --group-by: expected pid, thread, type or all" },
		{ { "-p", "1", "--group-by" }, "option '--group-by' needs a value" },
		{ { "--dump", "-p", "1", "--no-idle" },
		  "--dump takes one look and writes text: --no-idle does not go with it" },
		{ { "--dump", "-p", "1", "--group-by", "all" },
		  "--dump takes one look and writes text: --group-by does not go with it" },
		{ { "--diff", "a", "b", "--pg-queries" },
		  "--diff compares two profiles and takes no target: --pg-queries does not go with it" },
		/* the option table says which modes each option goes with
		 * (issue 32): these were accepted and ignored */
		{ { "--dump", "-p", "1", "--max-overhead", "1%" },
		  "--dump takes one look and writes text: --max-overhead does not go with it" },
		{ { "--diff", "a", "b", "--lines" },
		  "--diff compares two profiles and takes no target: --lines does not go with it" },
		{ { "--diff", "a", "b", "-d", "1ms" },
		  "--diff compares two profiles and takes no target: -d does not go with it" },
		{ { "--top", "-p", "1", "--label", "k=v" },
		  "--top draws on the terminal: --label does not go with it" },
		/* the first given is named */
		{ { "--dump", "-p", "1", "--verbose", "-n", "5" },
		  "--dump takes one look and writes text: -v does not go with it" },
		{ { "-p", "1", "--push", "http://x", "--group-by", "type", "--label", "backend_type=a" },
		  "--label backend_type=a with --group-by type: that label is the profiler's, each type's own" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct options o;
		char err[256];
		enum parse_result r;
		char *printed = parse_caught(&o, err, cases[i].words, &r);
		assert_int_equal(r, PARSE_ERROR);
		assert_string_equal(err, cases[i].message);
		assert_string_equal(printed, ""); /* main() prints the message */
		free(printed);
	}
}

static void every_option_needs_its_value(void **state)
{
	(void)state;
	const char *opts[] = { "-p", "--pid", "--tid", "-d", "--delay", "-n", "--count", "-t",
			       "--duration", "-o", "--output", "--format", "--ksuseopc",
			       "--ksusetim", "--event-names", "--period", "--push", "--app-name",
			       "--label", "--push-queue" };
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		struct options o;
		char err[256], want[64];
		enum parse_result r;
		const char *words[] = { opts[i], NULL };
		char *printed = parse_caught(&o, err, words, &r);
		assert_int_equal(r, PARSE_ERROR);
		snprintf(want, sizeof(want), "option '%s' needs a value", opts[i]);
		assert_string_equal(err, want);
		assert_string_equal(printed, "");
		free(printed);
	}
}

static void every_error_prints_nothing(void **state)
{
	(void)state;
	const char *const lines[][6] = {
		{ "-p", "x" }, { "-d", "1e3ms", "-p", "1" }, { "-n", "-5", "-p", "1" },
		{ "-t", "5 ms", "-p", "1" }, { "--bogus" }, { "-p", "1", "--", "ls" }, { "-Z" },
		{ "-p", "1", "--tid", "1,1" }, { NULL },
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct options o;
		char err[256];
		enum parse_result r;
		char *printed = parse_caught(&o, err, lines[i], &r);
		assert_int_equal(r, PARSE_ERROR);
		assert_string_equal(printed, "");
		assert_true(err[0] != '\0');
		free(printed);
	}
}

static void help_text(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	enum parse_result r;
	const char *const words[][2] = { { "-h" }, { "--help" }, { "--he" } };
	for (size_t i = 0; i < 3; i++) {
		char *help = parse_caught(&o, err, words[i], &r);
		assert_int_equal(r, PARSE_EXIT_OK);
		const char *must[] = {
			"Usage: ptrace_profiler -p PID", "-- COMMAND [ARGS...]", "-d, --delay",
			"-n, --count", "-t, --duration", "-o, --output", "--format", "-h, --help",
			"-V, --version", "ptrace_profiler -p 1234 -d 100us -n 5000 > out.folded",
			"flamegraph.pl out.folded > out.svg", "-- ./myprog",
			"--format stap | stackcollapse-stap.pl | flamegraph.pl > out.svg",
			"folded", "svg", "speedscope", "pprof", "perf-script", ".speedscope.json",
			".pb.gz", "-o db.svg", "go tool pprof -top", "--period TIME", "--push URL",
			"--app-name NAME", "--label KEY=VALUE", "--push-queue N", "SIGUSR1",
		};
		for (size_t m = 0; m < sizeof(must) / sizeof(must[0]); m++)
			if (!strstr(help, must[m]))
				fail_msg("help lacks '%s'", must[m]);
		/* a row added to the format table is a line of --format's help,
		 * and its extension is in -o's */
		for (size_t f = 0; format_nth(f); f++) {
			char line[64];
			snprintf(line, sizeof(line), "  %s  ", format_nth(f)->name);
			if (!strstr(help, line))
				fail_msg("help has no line for --format %s", format_nth(f)->name);
			if (format_nth(f)->extension && !strstr(help, format_nth(f)->extension))
				fail_msg("help lacks '%s'", format_nth(f)->extension);
		}
		/* Fits a terminal. */
		for (const char *line = help; *line; ) {
			size_t n = strcspn(line, "\n");
			if (n > 90)
				fail_msg("help line too long: %.*s", (int)n, line);
			line += n + (line[n] != '\0');
		}
		free(help);
	}
}

/* --help and the parser come from one table: every option --help names is
 * one the parser knows, by that very name. */
static void help_names_what_parses(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	enum parse_result r;
	char *help = parse_caught(&o, err, (const char *const[]){ "--help", NULL }, &r);
	assert_int_equal(r, PARSE_EXIT_OK);
	size_t checked = 0;
	for (const char *p = help; (p = strstr(p, "--")); ) {
		size_t n = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
		char word[64];
		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		p += n;
		if (n == 2)
			continue; /* "--" before COMMAND */
		char *printed = parse_caught(&o, err, (const char *const[]){ word, NULL }, &r);
		free(printed);
		if (r == PARSE_ERROR && (strstr(err, "unknown option") || strstr(err, "ambiguous")))
			fail_msg("--help names '%s', which does not parse: %s", word, err);
		checked++;
	}
	assert_true(checked >= 23);
	free(help);
}

static void version_text(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	enum parse_result r;
	const char *const words[][4] = { { "-V" }, { "--version" }, { "-p", "1", "-V" } };
	for (size_t i = 0; i < 3; i++) {
		char *v = parse_caught(&o, err, words[i], &r);
		assert_int_equal(r, PARSE_EXIT_OK);
		assert_string_equal(v, "ptrace_profiler " PROFILER_VERSION "\n");
		free(v);
	}
}

static void parses_again_after_an_early_return(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	enum parse_result r;
	/* -V returns with getopt in the middle of "-Vn"; the next parse must
	 * not carry on from there. */
	free(parse_caught(&o, err, (const char *const[]){ "-Vn", "3", NULL }, &r));
	assert_int_equal(r, PARSE_EXIT_OK);
	assert_int_equal(parse(&o, err, (const char *const[]){ "-p", "5", NULL }), PARSE_OK);
	assert_int_equal(o.pids[0], 5);
	assert_int_equal(o.count, 0);
	/* Likewise after an error in a cluster. */
	assert_int_equal(parse(&o, err, (const char *const[]){ "-qV", NULL }), PARSE_ERROR);
	assert_int_equal(parse(&o, err, (const char *const[]){ "-n", "4", "-p", "6", NULL }), PARSE_OK);
	assert_int_equal(o.pids[0], 6);
	assert_int_equal(o.count, 4);
}

static void command_without_double_dash(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	/* Options end at the first operand: "-d 5" belongs to the command. */
	const char *w[] = { "-n", "3", "./prog", "-d", "5", NULL };
	assert_int_equal(parse(&o, err, w), PARSE_OK);
	assert_string_equal(o.command[0], "./prog");
	assert_string_equal(o.command[1], "-d");
	assert_int_equal(o.interval_ns, DEFAULT_INTERVAL_NS);
	assert_int_equal(o.count, 3);
	assert_int_equal(o.n_pids, 0);
	/* ... and is exclusive with -p like the "--" form. */
	const char *w2[] = { "-p", "1", "./prog", NULL };
	assert_int_equal(parse(&o, err, w2), PARSE_ERROR);
	assert_non_null(strstr(err, "mutually exclusive"));
	/* A bare "--" after -p is no command. */
	const char *w3[] = { "-p", "1", "--", NULL };
	assert_int_equal(parse(&o, err, w3), PARSE_OK);
	assert_null(o.command);
}

static void later_values_replace_earlier(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	const char *w[] = { "-d", "1s", "-d", "2ms", "--format", "stap", "--format", "folded",
			    "-p", "3", "-p", "4,5", NULL };
	assert_int_equal(parse(&o, err, w), PARSE_OK);
	assert_int_equal(o.interval_ns, 2000000);
	assert_int_equal(o.format, FORMAT_FOLDED);
	assert_int_equal(o.n_pids, 2);
	assert_int_equal(o.pids[0], 4);
}

static void every_format_by_name(void **state)
{
	(void)state;
	const struct { const char *name; enum output_format format; } cases[] = {
		{ "folded", FORMAT_FOLDED }, { "stap", FORMAT_STAP }, { "svg", FORMAT_SVG },
		{ "speedscope", FORMAT_SPEEDSCOPE }, { "pprof", FORMAT_PPROF },
		{ "perf-script", FORMAT_PERF_SCRIPT }, { "html", FORMAT_HTML },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct options o;
		char err[256];
		const char *w[] = { "-p", "1", "--format", cases[i].name, NULL };
		assert_int_equal(parse(&o, err, w), PARSE_OK);
		assert_int_equal(o.format, cases[i].format);
		/* and the name it is printed with is the one it is asked by */
		assert_string_equal(format_name(cases[i].format), cases[i].name);
	}
	enum output_format f = FORMAT_SVG;
	const char *bad[] = { "Folded", "svg ", "perf_script", "perf", "json", "pb", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_format(bad[i], &f) != -1)
			fail_msg("format '%s' accepted", bad[i]);
	assert_int_equal(f, FORMAT_SVG); /* untouched */
	assert_int_equal(parse_format(NULL, &f), -1);
	/* the table lists each of them once, in --help's order, and ends */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct format_info *fi = format_nth(i);
		assert_non_null(fi);
		assert_int_equal(fi->format, cases[i].format);
		assert_ptr_equal(format_info(cases[i].format), fi);
	}
	assert_null(format_nth(sizeof(cases) / sizeof(cases[0])));
	assert_null(format_info((enum output_format)99));
}

/* --format's error names every word of the table, and --period's rules
 * read the table's facts (streams, one profile a file) for each format. */
static void format_rules_come_from_the_table(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	const char *unknown[] = { "-p", "1", "--format", "xml", NULL };
	assert_int_equal(parse(&o, err, unknown), PARSE_ERROR);
	for (size_t i = 0; format_nth(i); i++)
		if (!strstr(err, format_nth(i)->name))
			fail_msg("'%s' does not name %s", err, format_nth(i)->name);
	for (size_t i = 0; format_nth(i); i++) {
		const struct format_info *fi = format_nth(i);
		const char *to_stdout[] = { "-p", "1", "--period", "1s", "--format", fi->name, NULL };
		const char *to_file[] = { "-p", "1", "--period", "1s", "--format", fi->name,
					  "-o", "x", NULL };
		bool stdout_ok = !fi->streams && fi->separator != SEPARATE_NONE;
		if ((parse(&o, err, to_stdout) == PARSE_OK) != stdout_ok)
			fail_msg("--period --format %s to stdout: %s", fi->name,
				 stdout_ok ? err : "accepted");
		if ((parse(&o, err, to_file) == PARSE_OK) != !fi->streams)
			fail_msg("--period --format %s -o x: %s", fi->name,
				 fi->streams ? "accepted" : err);
	}
	/* what the table says of each, so the loop above tests something */
	assert_true(format_info(FORMAT_STAP)->streams);
	assert_int_equal(format_info(FORMAT_FOLDED)->separator, SEPARATE_BLANK);
	assert_int_equal(format_info(FORMAT_PERF_SCRIPT)->separator, SEPARATE_COMMENT);
	assert_int_equal(format_info(FORMAT_SPEEDSCOPE)->separator, SEPARATE_NONE);
}

static void output_name_picks_the_format(void **state)
{
	(void)state;
	const struct { const char *path; enum output_format format; } cases[] = {
		{ "out.svg", FORMAT_SVG },
		{ "/tmp/db.speedscope.json", FORMAT_SPEEDSCOPE },
		{ "db.pb.gz", FORMAT_PPROF },
		{ "report.html", FORMAT_HTML },
		{ "db.folded", FORMAT_FOLDED },
		{ "db.json", FORMAT_FOLDED },      /* only .speedscope.json */
		{ "db.gz", FORMAT_FOLDED },        /* only .pb.gz */
		{ "db.svg.folded", FORMAT_FOLDED },
		{ "svg", FORMAT_FOLDED },          /* a name, not a suffix */
		{ ".svg", FORMAT_FOLDED },         /* nothing before the dot */
		{ "db.SVG", FORMAT_FOLDED },
		{ "out", FORMAT_FOLDED },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct options o;
		char err[256];
		const char *w[] = { "-p", "1", "-o", cases[i].path, NULL };
		assert_int_equal(parse(&o, err, w), PARSE_OK);
		if (o.format != cases[i].format)
			fail_msg("-o %s gave format %s", cases[i].path, format_name(o.format));
		assert_int_equal(format_for_path(cases[i].path), cases[i].format);
	}
	/* the extension's length, which a window's file name keeps whole */
	enum output_format f = FORMAT_STAP;
	assert_int_equal(format_extension("db.speedscope.json", &f), 16);
	assert_int_equal(f, FORMAT_SPEEDSCOPE);
	assert_int_equal(format_extension("db.pb.gz", &f), 6);
	assert_int_equal(f, FORMAT_PPROF);
	assert_int_equal(format_extension("x.svg", NULL), 4);
	f = FORMAT_STAP;
	assert_int_equal(format_extension(".pb.gz", &f), 0); /* nothing before it */
	assert_int_equal(format_extension("db.folded", &f), 0);
	assert_int_equal(f, FORMAT_STAP);                    /* untouched */
}

static void explicit_format_wins_over_the_name(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	/* before and after -o */
	const char *w1[] = { "-p", "1", "--format", "folded", "-o", "x.svg", NULL };
	assert_int_equal(parse(&o, err, w1), PARSE_OK);
	assert_int_equal(o.format, FORMAT_FOLDED);
	const char *w2[] = { "-p", "1", "-o", "x.pb.gz", "--format", "perf-script", NULL };
	assert_int_equal(parse(&o, err, w2), PARSE_OK);
	assert_int_equal(o.format, FORMAT_PERF_SCRIPT);
	const char *w3[] = { "-p", "1", "--format", "svg", "-o", "x.folded", NULL };
	assert_int_equal(parse(&o, err, w3), PARSE_OK);
	assert_int_equal(o.format, FORMAT_SVG);
	/* the last -o names the file, and the format */
	const char *w4[] = { "-p", "1", "-o", "x.svg", "-o", "x.speedscope.json", NULL };
	assert_int_equal(parse(&o, err, w4), PARSE_OK);
	assert_int_equal(o.format, FORMAT_SPEEDSCOPE);
	/* stdout: the default, or what was asked */
	const char *w5[] = { "-p", "1", "--format", "pprof", NULL };
	assert_int_equal(parse(&o, err, w5), PARSE_OK);
	assert_int_equal(o.format, FORMAT_PPROF);
	assert_null(o.output_path);
}

static void continuous_options(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	const char *none[] = { "-p", "1", NULL };
	assert_int_equal(parse(&o, err, none), PARSE_OK);
	assert_int_equal(o.period_ns, 0);
	assert_null(o.push_url);
	assert_int_equal(o.push_queue, DEFAULT_PUSH_QUEUE);
	const char *period[] = { "-p", "1", "--period", "60s", "-o", "db.folded", NULL };
	assert_int_equal(parse(&o, err, period), PARSE_OK);
	assert_int_equal(o.period_ns, 60000000000ULL);
	/* --push alone: windows of 10 s */
	const char *push[] = { "-p", "1", "--push", "http://127.0.0.1:4040", "--label", "env=prod",
			       "--label", "host=db1", "--app-name", "pg.main", "--push-queue", "3",
			       NULL };
	assert_int_equal(parse(&o, err, push), PARSE_OK);
	assert_int_equal(o.period_ns, DEFAULT_PUSH_PERIOD_NS);
	assert_string_equal(o.push_url, "http://127.0.0.1:4040");
	assert_string_equal(o.app_name, "pg.main");
	assert_int_equal(o.n_labels, 2);
	assert_string_equal(o.labels[0].key, "env");
	assert_string_equal(o.labels[1].value, "db1");
	assert_int_equal(o.push_queue, 3);
	/* with an explicit period, and svg files: allowed with -o */
	const char *svg[] = { "-p", "1", "--period", "1s", "-o", "x.svg", "--push", "http://h", NULL };
	assert_int_equal(parse(&o, err, svg), PARSE_OK);
	assert_int_equal(o.period_ns, 1000000000ULL);
	assert_int_equal(o.format, FORMAT_SVG);
	/* --push without -o: folded is what it sends, and may be asked for */
	const char *push_folded[] = { "-p", "1", "--push", "http://h", "--format", "folded", NULL };
	assert_int_equal(parse(&o, err, push_folded), PARSE_OK);
	/* with -o any format is written there, pushed or not */
	const char *push_file[] = { "-p", "1", "--push", "http://h", "--format", "speedscope", "-o",
				    "x.json", NULL };
	assert_int_equal(parse(&o, err, push_file), PARSE_OK);
	assert_int_equal(o.format, FORMAT_SPEEDSCOPE);
	/* folded and perf-script to stdout can follow one another */
	const char *stream[] = { "-p", "1", "--period", "2s", "--format", "perf-script", NULL };
	assert_int_equal(parse(&o, err, stream), PARSE_OK);

	struct { const char *words[12]; const char *message; } bad[] = {
		{ { "-p", "1", "--period", "0.5s" },
		  "invalid period '0.5s' for --period: at least 1s (windows are named and pushed to the second)" },
		{ { "-p", "1", "--period", "soon" },
		  "invalid period 'soon' for --period: expected a positive number with unit ns, us, ms or s" },
		{ { "-p", "1", "--period", "1s", "-d", "2s" },
		  "--period is shorter than the interval (-d): a window would hold no round" },
		{ { "-p", "1", "--period", "1s", "--format", "stap" },
		  "--format stap is written sample by sample: it has no windows (--period, --push)" },
		{ { "-p", "1", "--period", "1s", "--format", "svg" },
		  "--period with --format svg to stdout: one document per file, give -o FILE" },
		{ { "-p", "1", "--period", "1s", "--format", "pprof" },
		  "--period with --format pprof to stdout: one document per file, give -o FILE" },
		{ { "-p", "1", "--period", "1s", "--format", "speedscope" },
		  "--period with --format speedscope to stdout: one document per file, give -o FILE" },
		/* --push without -o writes nothing: another format would be kept for no one */
		{ { "-p", "1", "--push", "http://h", "--format", "speedscope" },
		  "--push sends folded stacks and writes nothing without -o: --format speedscope needs -o FILE" },
		{ { "-p", "1", "--push", "http://h", "--format", "pprof" },
		  "--push sends folded stacks and writes nothing without -o: --format pprof needs -o FILE" },
		{ { "-p", "1", "--push", "http://h", "--format", "perf-script" },
		  "--push sends folded stacks and writes nothing without -o: --format perf-script needs -o FILE" },
		{ { "-p", "1", "--push", "http://h", "--format", "svg" },
		  "--push sends folded stacks and writes nothing without -o: --format svg needs -o FILE" },
		{ { "-p", "1", "--push", "http://h", "--format", "stap" },
		  "--format stap is written sample by sample: it has no windows (--period, --push)" },
		{ { "-p", "1", "--push", "127.0.0.1:4040" },
		  "invalid URL '127.0.0.1:4040' for --push: expected http://HOST[:PORT][/PATH] or https://..." },
		{ { "-p", "1", "--push", "http://h/x?a=1" },
		  "invalid URL 'http://h/x?a=1' for --push: no query, fragment, space or control character: the profiler adds /ingest?..." },
		{ { "-p", "1", "--app-name", "db" }, "--app-name needs --push URL" },
		{ { "-p", "1", "--label", "a=b" }, "--label needs --push URL" },
		{ { "-p", "1", "--push-queue", "4" }, "--push-queue needs --push URL" },
		{ { "-p", "1", "--push", "http://h", "--app-name", "my app" },
		  "invalid application name 'my app' for --app-name: expected 1 to 100 of A-Z a-z 0-9 _ . - /" },
		{ { "-p", "1", "--push", "http://h", "--label", "env" },
		  "invalid label 'env' for --label: expected KEY=VALUE" },
		{ { "-p", "1", "--push", "http://h", "--label", "a=1", "--label", "a=2" },
		  "label key 'a' given twice for --label ('a=2')" },
		{ { "-p", "1", "--push", "http://h", "--push-queue", "0" },
		  "invalid queue length '0' for --push-queue: expected an integer from 1 to 1000" },
		{ { "-p", "1", "--push", "http://h", "--push-queue", "1001" },
		  "invalid queue length '1001' for --push-queue: expected an integer from 1 to 1000" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (parse(&o, err, bad[i].words) != PARSE_ERROR)
			fail_msg("case %zu accepted", i);
		if (strcmp(err, bad[i].message) != 0)
			fail_msg("case %zu: '%s', expected '%s'", i, err, bad[i].message);
	}
	/* at most 16 labels */
	const char *many[64] = { "-p", "1", "--push", "http://h" };
	int n = 4;
	char text[17][16];
	for (int i = 0; i < 17; i++) {
		snprintf(text[i], sizeof(text[i]), "k%d=v", i);
		many[n++] = "--label";
		many[n++] = text[i];
	}
	many[n] = NULL;
	assert_int_equal(parse(&o, err, many), PARSE_ERROR);
	assert_string_equal(err, "too many labels at 'k16=v' for --label (at most 16)");
	many[n - 2] = NULL;
	assert_int_equal(parse(&o, err, many), PARSE_OK);
	assert_int_equal(o.n_labels, 16);
}

/* --max-overhead: a percentage above 0, at most 100. */
static void shares(void **state)
{
	(void)state;
	double v;
	assert_int_equal(parse_share("1%", &v), 0);
	assert_true(v == 0.01);
	assert_int_equal(parse_share("0.5%", &v), 0);
	assert_true(v == 0.005);
	assert_int_equal(parse_share("2", &v), 0);
	assert_true(v == 0.02);
	assert_int_equal(parse_share("100%", &v), 0);
	assert_true(v == 1);
	const char *bad[] = { "", "0", "0%", "-1%", "+1", " 1", "101%", "1%%", "1 %", "%",
			      "1e2", "0x1", "one", "1.2.3", ".", "1%x", NULL };
	for (int i = 0; bad[i]; i++)
		assert_int_equal(parse_share(bad[i], &v), -1);
}

static void diff_option(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	assert_int_equal(parse(&o, err, (const char *const[]){ "-p", "1", NULL }), PARSE_OK);
	assert_int_equal(o.mode, MODE_RECORD);
	/* two files, options before and after them */
	const char *w[] = { "--diff-counts", "--diff", "a.folded", "b.folded", "-o", "d.svg", NULL };
	assert_int_equal(parse(&o, err, w), PARSE_OK);
	assert_int_equal(o.mode, MODE_DIFF);
	assert_string_equal(o.diff_before, "a.folded");
	assert_string_equal(o.diff_after, "b.folded");
	assert_true(o.diff_counts);
	assert_int_equal(o.format, FORMAT_SVG);
	const char *w2[] = { "--diff=a", "b", NULL };
	assert_int_equal(parse(&o, err, w2), PARSE_OK);
	assert_string_equal(o.diff_after, "b");
	assert_int_equal(o.format, FORMAT_FOLDED);
	assert_false(o.diff_counts);
	assert_false(o.diff_shares); /* counts, by default (mode_diff) */
	const char *w4[] = { "--diff", "a", "b", "--diff-shares", NULL };
	assert_int_equal(parse(&o, err, w4), PARSE_OK);
	assert_true(o.diff_shares);
	/* a first word that is not an option is still a command */
	const char *w3[] = { "top", NULL };
	assert_int_equal(parse(&o, err, w3), PARSE_OK);
	assert_int_equal(o.mode, MODE_RECORD);
	assert_string_equal(o.command[0], "top");

	struct { const char *words[8]; const char *message; } bad[] = {
		{ { "--diff" }, "option '--diff' needs two files: --diff BEFORE AFTER" },
		{ { "--diff", "a" }, "option '--diff' needs two files: --diff BEFORE AFTER" },
		{ { "--diff", "a", "-o", "x" },
		  "option '--diff' needs two files: --diff BEFORE AFTER, not '-o' after 'a'" },
		{ { "--diff", "", "b" }, "invalid file '' for --diff" },
		{ { "--diff", "a", "b", "-p", "1" },
		  "--diff compares two profiles and takes no target: -p does not go with it" },
		{ { "--diff", "a", "b", "c" },
		  "--diff compares two profiles and takes no target: COMMAND does not go with it ('c')" },
		{ { "--diff", "a", "b", "--period", "1s" },
		  "--diff compares two profiles and takes no target: --period does not go with it" },
		{ { "--diff", "a", "b", "--format", "speedscope" },
		  "--diff writes folded or svg, not --format speedscope" },
		{ { "--diff", "a", "b", "-o", "x.pb.gz" }, "--diff writes folded or svg, not --format pprof" },
		{ { "-p", "1", "--diff-counts" }, "--diff-counts needs --diff BEFORE AFTER" },
		{ { "-p", "1", "--diff-shares" }, "--diff-shares needs --diff BEFORE AFTER" },
		{ { "--diff", "a", "b", "--diff-shares", "--diff-counts" },
		  "--diff-counts and --diff-shares are mutually exclusive" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (parse(&o, err, bad[i].words) != PARSE_ERROR)
			fail_msg("case %zu accepted", i);
		if (strcmp(err, bad[i].message) != 0)
			fail_msg("case %zu: '%s', expected '%s'", i, err, bad[i].message);
	}
}

static void top_option(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	const char *w[] = { "--top", "-p", "7", "-d", "1ms", "-t", "30s", "--subprocesses",
			    "--pg-wait-events", NULL };
	assert_int_equal(parse(&o, err, w), PARSE_OK);
	assert_int_equal(o.mode, MODE_TOP);
	assert_int_equal(o.interval_ns, 1000000);
	assert_int_equal(o.period_ns, 0); /* its windows are the mode's */
	assert_true(o.subprocesses && o.pg_wait_events);
	const char *w2[] = { "--top", "-d", "1s", "--", "./prog", "-x", NULL };
	assert_int_equal(parse(&o, err, w2), PARSE_OK);
	assert_int_equal(o.mode, MODE_TOP);
	assert_string_equal(o.command[0], "./prog");
	/* an option, not a subcommand: the word top is a program to launch */
	const char *w3[] = { "-d", "1ms", "top", "-b", NULL };
	assert_int_equal(parse(&o, err, w3), PARSE_OK);
	assert_int_equal(o.mode, MODE_RECORD);
	assert_string_equal(o.command[0], "top");
	assert_string_equal(o.command[1], "-b");

	struct { const char *words[8]; const char *message; } bad[] = {
		{ { "--top", "-p", "1", "-o", "x.folded" }, "--top draws on the terminal: -o does not go with it" },
		{ { "--top", "-p", "1", "--format", "svg" }, "--top draws on the terminal: --format does not go with it" },
		{ { "--top", "-p", "1", "--period", "10s" }, "--top draws on the terminal: --period does not go with it" },
		{ { "--top", "-p", "1", "--push", "http://h:4040" }, "--top draws on the terminal: --push does not go with it" },
		{ { "--top", "-p", "1", "-d", "1.5s" },
		  "invalid interval '1.5s' for -d with --top: at most 1s (the screen is redrawn every second)" },
		{ { "--top", "--dump", "-p", "1" }, "--dump and --top do not go together: one mode at a time" },
		{ { "--dump", "--top", "-p", "1" }, "--dump and --top do not go together: one mode at a time" },
		{ { "--top", "--diff", "a", "b" }, "--diff and --top do not go together: one mode at a time" },
		{ { "--top" }, "no target: give -p PID or -- COMMAND" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (parse(&o, err, bad[i].words) != PARSE_ERROR)
			fail_msg("case %zu accepted", i);
		if (strcmp(err, bad[i].message) != 0)
			fail_msg("case %zu: '%s', expected '%s'", i, err, bad[i].message);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shares),
		cmocka_unit_test(interval_units),
		cmocka_unit_test(interval_bare_number_is_ms),
		cmocka_unit_test(interval_rejects),
		cmocka_unit_test(interval_largest),
		cmocka_unit_test(count_and_pid),
		cmocka_unit_test(command_line_defaults_and_values),
		cmocka_unit_test(pid_and_tid_lists),
		cmocka_unit_test(command_line_launch),
		cmocka_unit_test(command_line_errors),
		cmocka_unit_test(help_and_version_exit_ok),
		cmocka_unit_test(pg_wait_events_option),
		cmocka_unit_test(interval_exact_values),
		cmocka_unit_test(count_bounds),
		cmocka_unit_test(pid_list_direct),
		cmocka_unit_test(exact_error_messages),
		cmocka_unit_test(every_option_needs_its_value),
		cmocka_unit_test(every_error_prints_nothing),
		cmocka_unit_test(help_text),
		cmocka_unit_test(help_names_what_parses),
		cmocka_unit_test(version_text),
		cmocka_unit_test(parses_again_after_an_early_return),
		cmocka_unit_test(command_without_double_dash),
		cmocka_unit_test(later_values_replace_earlier),
		cmocka_unit_test(every_format_by_name),
		cmocka_unit_test(format_rules_come_from_the_table),
		cmocka_unit_test(output_name_picks_the_format),
		cmocka_unit_test(explicit_format_wins_over_the_name),
		cmocka_unit_test(continuous_options),
		cmocka_unit_test(diff_option),
		cmocka_unit_test(top_option),
		cmocka_unit_test(pg_queries_idle_and_grouping),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
