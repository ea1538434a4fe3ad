/* Unit tests: interval/count/pid parsing and the command line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
	static char *argv[32];
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
