/* Unit tests: Oracle addresses, event-name files and state frames. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "db/oracle.h"

static void addresses(void **state)
{
	(void)state;
	uint64_t a;
	assert_int_equal(parse_address("139984506261505", &a), 0);
	assert_int_equal(a, 139984506261505ULL);
	assert_int_equal(parse_address("0x7f4fe4001001", &a), 0);
	assert_int_equal(a, 0x7f4fe4001001ULL);
	assert_int_equal(parse_address("0X10", &a), 0);
	assert_int_equal(a, 16);
	const char *bad[] = { "", "0", "0x0", "0x", "-5", "12ab", "0xzz", " 12", "99999999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_address(bad[i], &a) != -1)
			fail_msg("accepted '%s'", bad[i]);
}

static struct event_names *from_text(const char *text, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct event_names *n = oracle_names_read(f, "names.sed", err, 256);
	fclose(f);
	return n;
}

static void sed_format(void **state)
{
	(void)state;
	char err[256];
	struct event_names *n = from_text(
		"s/\\<event#=146\\>/event=db file sequential read/g\n"
		"s/\\<event#=3\\>/event=direct path read\\/temp/g\n"
		"\n"
		"s/\\<event#=2000\\>/event=log file sync/g\n", err);
	assert_non_null(n);
	assert_string_equal(oracle_event_name(n, 146), "db file sequential read");
	assert_string_equal(oracle_event_name(n, 3), "direct path read/temp");
	assert_string_equal(oracle_event_name(n, 2000), "log file sync");
	assert_null(oracle_event_name(n, 147));
	assert_null(oracle_event_name(n, 4000000));
	oracle_names_free(n);
}

static void tab_format(void **state)
{
	(void)state;
	char err[256];
	struct event_names *n = from_text("# event#\tname\n146\tdb file sequential read\n7\tenq: TX - row lock contention\r\n", err);
	assert_non_null(n);
	assert_string_equal(oracle_event_name(n, 146), "db file sequential read");
	assert_string_equal(oracle_event_name(n, 7), "enq: TX - row lock contention");
	oracle_names_free(n);
}

static void malformed_lines_name_file_and_line(void **state)
{
	(void)state;
	struct {
		const char *text;
		const char *where;
	} cases[] = {
		{ "146\tok\nnonsense\n", "names.sed:2:" },
		{ "s/\\<event#=x\\>/event=a/g\n", "names.sed:1:" },
		{ "1\tok\n\ns/\\<event#=5\\>/event=a/gx\n", "names.sed:3:" },
		{ "s/\\<event#=5\\>/name=a/g\n", "names.sed:1:" },
		{ "5\t\n", "names.sed:1:" },
		{ "99999999\tbig\n", "names.sed:1:" },
		{ "s/\\<event#=5\\>/event=/g\n", "names.sed:1:" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256] = "";
		struct event_names *n = from_text(cases[i].text, err);
		if (n)
			fail_msg("case %zu accepted", i);
		if (strncmp(err, cases[i].where, strlen(cases[i].where)) != 0)
			fail_msg("case %zu: '%s' does not start with %s", i, err, cases[i].where);
	}
	char err[256];
	assert_null(oracle_names_load("/nonexistent/names.sed", err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent/names.sed"));
}

static void state_frames(void **state)
{
	(void)state;
	char err[256], out[128];
	struct event_names *n = from_text("146\tdb file sequential read\n9\tevil;name\n", err);
	oracle_state_frame(146, 120, n, out, sizeof(out));
	assert_string_equal(out, "On CPU (Oracle state)");
	oracle_state_frame(146, 0, n, out, sizeof(out));
	assert_string_equal(out, "event=db file sequential read (Oracle state)");
	oracle_state_frame(147, 0, n, out, sizeof(out));
	assert_string_equal(out, "event#=147 (Oracle state)");
	oracle_state_frame(147, -1, NULL, out, sizeof(out));
	assert_string_equal(out, "event#=147 (Oracle state)");
	oracle_state_frame(9, 0, n, out, sizeof(out));
	assert_string_equal(out, "event=evil:name (Oracle state)");
	/* the words of a copy, as a recording and --dump both write them */
	assert_string_equal(oracle_words_frame(true, 146, 0, n, out, sizeof(out)),
			    "event=db file sequential read (Oracle state)");
	assert_string_equal(oracle_words_frame(false, 146, 0, n, out, sizeof(out)),
			    "[unreadable] (Oracle state)");
	oracle_names_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(addresses),
		cmocka_unit_test(sed_format),
		cmocka_unit_test(tab_format),
		cmocka_unit_test(malformed_lines_name_file_and_line),
		cmocka_unit_test(state_frames),
	};
	return cmocka_run_group_tests_name("oracle", tests, NULL, NULL);
}
