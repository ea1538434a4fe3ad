/* Unit tests: --dump's frame lines (eu-stack -i's numbering, inlined
 * frames marked, file:line kept, the module after "in") and its options. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cli/modes.h"
#include "options.h"

static void frame_lines(void **state)
{
	(void)state;
	char line[256];
	size_t n = dump_frame_line(line, sizeof(line), 3, 0x7fa4bb7a9ce3ULL,
				   "__pthread_clockjoin_ex (pthread_join_common.c:102)", "libc.so.6");
	assert_string_equal(line, "    #3   0x00007fa4bb7a9ce3 __pthread_clockjoin_ex (pthread_join_common.c:102) in libc.so.6\n");
	assert_int_equal(n, strlen(line));
	dump_frame_line(line, sizeof(line), 0, 0x55c8609042d0ULL, "poll_inlined (parked.c:62)_[i]", "parked");
	assert_string_equal(line, "    #0   0x000055c8609042d0 poll_inlined (parked.c:62) [inlined] in parked\n");
	dump_frame_line(line, sizeof(line), 12, 0x1000, "[anon]", "");
	assert_string_equal(line, "    #12  0x0000000000001000 [anon]\n");
	dump_frame_line(line, sizeof(line), 1234, 0x10, "_[i]", "m"); /* only the suffix: a name */
	assert_string_equal(line, "    #1234 0x0000000000000010 _[i] in m\n");
	/* cut, never overrun */
	n = dump_frame_line(line, 16, 1, 0x10, "a_long_function_name", "libx.so");
	assert_int_equal(n, 15);
	assert_int_equal(strlen(line), 15);
}

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

static void dump_options(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	assert_int_equal(parse(&o, err, (const char *const[]){ "--dump", "-p", "7,8", "--tid", "9",
							   "--pg-wait-events", "-o", "x.txt", NULL }),
			 PARSE_OK);
	assert_int_equal(o.mode, MODE_DUMP);
	assert_int_equal(o.n_pids, 2);
	assert_true(o.pg_wait_events);
	struct { const char *words[8]; const char *message; } bad[] = {
		{ { "--dump" }, "--dump needs -p PID: the threads of which process?" },
		{ { "--dump", "--", "ls" }, "--dump needs -p PID: a command just started has nothing to show" },
		{ { "--dump", "-p", "1", "-d", "1ms" }, "--dump takes one look and writes text: -d does not go with it" },
		{ { "--dump", "-p", "1", "-t", "1s" }, "--dump takes one look and writes text: -t does not go with it" },
		{ { "--dump", "-p", "1", "--format", "folded" },
		  "--dump takes one look and writes text: --format does not go with it" },
		{ { "--dump", "-p", "1", "--subprocesses" },
		  "--dump takes one look and writes text: --subprocesses does not go with it" },
		{ { "--dump", "-p", "1", "--period", "1s" },
		  "--dump takes one look and writes text: --period does not go with it" },
		{ { "--diff", "a", "b", "--dump" }, "--diff and --dump do not go together: one mode at a time" },
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
		cmocka_unit_test(frame_lines),
		cmocka_unit_test(dump_options),
	};
	return cmocka_run_group_tests_name("dump", tests, NULL, NULL);
}
