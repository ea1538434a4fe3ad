/* Unit tests: folded and stap output text. */
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

#include "options.h"
#include "output/output.h"
#include "output/frame_role.h"
#include "profile_fixture.h"
#include "written.h"

static const char *const user[] = { "_start", "main", "work" };
static const uint64_t user_ip[] = { 0x401000, 0x401100, 0x401234 };
static const char *const kernel[] = { "entry_SYSCALL_64_after_hwframe_[k]", "do_nanosleep_[k]" };

static struct sample_view sleeping(void)
{
	return (struct sample_view){ .thread = "db_writer", .state = "S (sleeping)", .user = user,
				     .user_ip = user_ip, .n_user = 3, .kernel = kernel, .n_kernel = 2 };
}

static void frames_root_first(void **state)
{
	(void)state;
	struct sample_view v = sleeping();
	const char *out[16];
	assert_int_equal(sample_frames(&v, out, 16), 7);
	assert_string_equal(out[0], "db_writer");
	assert_string_equal(out[1], "S (sleeping)");
	assert_string_equal(out[2], "_start");
	assert_string_equal(out[4], "work");
	assert_string_equal(out[5], "entry_SYSCALL_64_after_hwframe_[k]");
	assert_string_equal(out[6], "do_nanosleep_[k]");
	assert_int_equal(sample_frames(&v, out, 3), 3); /* bounded */
}

/* t as folded lines (the caller frees them). */
static char *folded_of(struct stack_table *t)
{
	struct written w;
	assert_int_equal(output_folded(written_open(&w), t), 0);
	return written_text(&w);
}

/* v as one stap block (the caller frees it). */
static char *stap_text(const struct sample_view *v)
{
	struct written w;
	assert_int_equal(output_stap_sample(written_open(&w), v), 0);
	return written_text(&w);
}

static void folded_text(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	struct sample_view v = sleeping();
	const char *frames[16];
	size_t n = sample_frames(&v, frames, 16);
	stack_table_add(t, frames, n, 2);
	const char *running[] = { "db_writer", "R (running)", "_start", "main" };
	stack_table_add(t, running, 4, 3);

	char *text = folded_of(t);
	assert_string_equal(text,
		"db_writer;R (running);_start;main 3\n"
		"db_writer;S (sleeping);_start;main;work;entry_SYSCALL_64_after_hwframe_[k];do_nanosleep_[k] 2\n");
	free(text);
	stack_table_free(t);
}

static void stap_block(void **state)
{
	(void)state;
	struct sample_view v = sleeping();
	char *text = stap_text(&v);
	assert_string_equal(text,
		" 0x0000000000000000 : do_nanosleep_[k]+0x0\n"
		" 0x0000000000000000 : entry_SYSCALL_64_after_hwframe_[k]+0x0\n"
		" 0x0000000000401234 : work+0x0\n"
		" 0x0000000000401100 : main+0x0\n"
		" 0x0000000000401000 : _start+0x0\n"
		" S (sleeping)\n"
		"1\n"
		"\n");
	free(text);
}

/* stackcollapse-stap.pl's rules, per line: a line of digits (after white
 * space) closes the stack with that count; blank lines are skipped;
 * otherwise leading white space goes, then everything from the last '+',
 * then everything up to the last " : " (greedy .*); an empty frame is "-";
 * the frame is put in front. */
static void collapse_stap(const char *text, char *out, size_t outsz)
{
	char stack[4096] = "";
	out[0] = '\0';
	char *copy = strdup(text), *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (line[0] && strspn(line, "0123456789") == strlen(line)) {
			snprintf(out + strlen(out), outsz - strlen(out), "%s %s\n", stack, line);
			stack[0] = '\0';
			continue;
		}
		if (!*line)
			continue;
		char *plus = strrchr(line, '+');
		if (plus)
			*plus = '\0';
		char *sep = strstr(line, " : ");
		char *last = NULL;
		while (sep) {
			last = sep;
			sep = strstr(sep + 1, " : ");
		}
		if (last)
			line = last + 3;
		if (!*line)
			line = "-";
		char tmp[2 * sizeof(stack) + 2];
		snprintf(tmp, sizeof(tmp), "%s%s%s", line, stack[0] ? ";" : "", stack);
		size_t keep = strlen(tmp) < sizeof(stack) ? strlen(tmp) : sizeof(stack) - 1;
		memcpy(stack, tmp, keep);
		stack[keep] = '\0';
	}
	free(copy);
}

/* One sample in stap format, as stackcollapse-stap.pl would fold it. */
static void stap_collapsed(const struct sample_view *v, char *out, size_t outsz)
{
	char *text = stap_text(v);
	collapse_stap(text, out, outsz);
	free(text);
}

static void stap_collapses_like_folded(void **state)
{
	(void)state;
	/* A name with '+' and " : " in it survives the collapse rules. */
	const char *const odd_user[] = { "main", "operator+ : x" };
	struct sample_view v = { .thread = "t", .state = "R (running)", .user = odd_user,
				 .n_user = 2, .kernel = kernel, .n_kernel = 1 };
	char collapsed[4096];
	stap_collapsed(&v, collapsed, sizeof(collapsed));
	/* The thread name is not part of the original format. */
	assert_string_equal(collapsed,
		"R (running);main;operator+ :x;entry_SYSCALL_64_after_hwframe_[k] 1\n");
}

static void oracle_state_under_the_thread(void **state)
{
	(void)state;
	struct sample_view v = sleeping();
	v.app_state = "event=db file sequential read (Oracle state)";
	const char *out[16];
	assert_int_equal(sample_frames(&v, out, 16), 8);
	assert_string_equal(out[0], "db_writer");
	assert_string_equal(out[1], "event=db file sequential read (Oracle state)");
	assert_string_equal(out[2], "S (sleeping)");
	char collapsed[4096];
	stap_collapsed(&v, collapsed, sizeof(collapsed));
	assert_string_equal(collapsed,
		"event=db file sequential read (Oracle state);S (sleeping);_start;main;work;"
		"entry_SYSCALL_64_after_hwframe_[k];do_nanosleep_[k] 1\n");
}

static void query_frame_under_the_root(void **state)
{
	(void)state;
	struct sample_view v = sleeping();
	v.thread = "postgres[42] client backend";
	v.query = "query=-17 SELECT $1";
	v.app_state = "event=Client:ClientRead (PostgreSQL state)";
	const char *out[16];
	assert_int_equal(sample_frames(&v, out, 16), 9);
	assert_string_equal(out[1], "query=-17 SELECT $1");
	assert_string_equal(out[2], "event=Client:ClientRead (PostgreSQL state)");
	assert_string_equal(out[3], "S (sleeping)");
	assert_int_equal(frame_code_start(out, 9), 4);
	assert_int_equal(frame_role_at(out, 4, 1), FRAME_APP_STATE);
	assert_int_equal(frame_role_at(out, 4, 3), FRAME_OS_STATE);
	char collapsed[4096];
	stap_collapsed(&v, collapsed, sizeof(collapsed));
	assert_string_equal(collapsed,
		"query=-17 SELECT $1;event=Client:ClientRead (PostgreSQL state);S (sleeping);"
		"_start;main;work;entry_SYSCALL_64_after_hwframe_[k];do_nanosleep_[k] 1\n");
	/* a state word alone, without an application state */
	v.query = "idle in transaction (aborted)";
	v.app_state = NULL;
	assert_int_equal(sample_frames(&v, out, 16), 8);
	assert_int_equal(frame_code_start(out, 8), 3);
}

static void code_start_finds_the_os_state(void **state)
{
	(void)state;
	const char *plain[] = { "t", "R (running)", "main" };
	assert_int_equal(frame_code_start(plain, 3), 2);
	const char *ours[] = { "t", "t (stopped by ptrace_profiler)", "main" };
	assert_int_equal(frame_code_start(ours, 3), 2);
	/* an Oracle event named like an OS state is still the application's */
	const char *oracle[] = { "t", "A (Oracle state)", "? (unknown)", "main" };
	assert_int_equal(frame_code_start(oracle, 4), 3);
	const char *nopg[] = { "t", "idle", "[no PostgreSQL state]", "S (sleeping)", "main" };
	assert_int_equal(frame_code_start(nopg, 5), 4);
	assert_true(frame_is_app_state("[no PostgreSQL state]"));
	assert_false(frame_is_app_state("query=1 SELECT (x state)"));
	/* a query text that looks like anything is no OS state: it has a prefix */
	assert_false(frame_is_os_state("query=1 X (y)"));
	assert_false(frame_is_os_state("R (running"));
	assert_true(frame_is_os_state("? (unknown)"));
	/* another tool's folded text has no OS state: the old rule */
	const char *foreign[] = { "java", "main", "run", "work" };
	assert_int_equal(frame_code_start(foreign, 4), 2);
	const char *one[] = { "java" };
	assert_int_equal(frame_code_start(one, 1), 1);
}

/* A failed write is reported with its own errno, whatever errno held
 * before (the sampler's summary quotes it). */
static void write_errors_are_reported(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	struct sample_view v = sleeping();
	errno = ENOENT;
	assert_int_equal(output_stap_sample(f, &v), -1);
	assert_int_equal(errno, ENOSPC);
	fclose(f);
	FILE *ro = fopen("/dev/null", "r"); /* not open for writing */
	assert_non_null(ro);
	errno = 0;
	assert_int_equal(output_stap_sample(ro, &v), -1);
	assert_int_equal(errno, EBADF);
	fclose(ro);
}

static void stap_without_ips_or_frames(void **state)
{
	(void)state;
	const char *const u[] = { "main", "spin" };
	struct sample_view v = { .thread = "t", .state = "R (running)", .user = u, .n_user = 2 };
	char *text = stap_text(&v);
	assert_string_equal(text,
		" 0x0000000000000000 : spin+0x0\n"
		" 0x0000000000000000 : main+0x0\n"
		" R (running)\n"
		"1\n"
		"\n");
	free(text);

	struct sample_view bare = { .thread = "t", .state = "D (disk sleep)" };
	text = stap_text(&bare);
	assert_string_equal(text, " D (disk sleep)\n1\n\n");
	free(text);

	const char *const k[] = { "io_schedule_[k]" };
	struct sample_view konly = { .thread = "t", .state = "D (disk sleep)", .kernel = k, .n_kernel = 1 };
	text = stap_text(&konly);
	assert_string_equal(text, " 0x0000000000000000 : io_schedule_[k]+0x0\n D (disk sleep)\n1\n\n");
	free(text);
}

static void stap_hostile_names_survive(void **state)
{
	(void)state;
	/* name, as the collapse gives it back */
	const char *cases[][2] = {
		{ "plain", "plain" },
		{ "operator+", "operator+" },
		{ "a+b+c", "a+b+c" },
		{ "x : y", "x :y" },
		{ "x  : y", "x  :y" },
		{ "x :  y", "x :y" },       /* every space that would make " : " */
		{ "a : : b", "a :: b" },
		{ " : ", " :" },
		{ ": x", ":x" },            /* with the separator's space */
		{ "  : x", "  :x" },
		{ "x :y", "x :y" },         /* not " : ": left alone */
		{ "x: y", "x: y" },
		{ "trailing : ", "trailing :" },
		{ "  lead", "  lead" },     /* after " : ", white space stays */
		{ "12345", "12345" },       /* digits in a frame line: no count */
		{ "std::vector<int>::at", "std::vector<int>::at" },
		{ "[unknown]", "[unknown]" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const u[] = { "main", cases[i][0] };
		struct sample_view v = { .thread = "t", .state = "R (running)", .user = u, .n_user = 2 };
		char collapsed[512], want[512];
		stap_collapsed(&v, collapsed, sizeof(collapsed));
		snprintf(want, sizeof(want), "R (running);main;%s 1\n", cases[i][1]);
		if (strcmp(collapsed, want) != 0)
			fail_msg("'%s' came back as '%s'", cases[i][0], collapsed);
	}
}

static void stap_state_lines_survive(void **state)
{
	(void)state;
	/* The state lines are bare as in the original output, unless the
	 * collapse would cut them: then they go in a frame line. */
	const char *cases[][2] = {
		{ "event=db file sequential read (Oracle state)",
		  "event=db file sequential read (Oracle state)" },
		{ "event=enq: TX - row lock contention (Oracle state)",
		  "event=enq: TX - row lock contention (Oracle state)" },
		{ "event=a+b (Oracle state)", "event=a+b (Oracle state)" },
		{ "event=x : y (Oracle state)", "event=x :y (Oracle state)" },
		{ "12", "12" },
		{ " lead", " lead" },
		{ "1 2", "1 2" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sample_view v = { .thread = "t", .app_state = cases[i][0], .state = "S (sleeping)" };
		char collapsed[512], want[512];
		stap_collapsed(&v, collapsed, sizeof(collapsed));
		snprintf(want, sizeof(want), "%s;S (sleeping) 1\n", cases[i][1]);
		if (strcmp(collapsed, want) != 0)
			fail_msg("'%s' came back as '%s'", cases[i][0], collapsed);
	}
	/* The plain case is the original's bare line. */
	struct sample_view v = { .thread = "t", .app_state = "On CPU (Oracle state)", .state = "R (running)" };
	char *text = stap_text(&v);
	assert_string_equal(text, " R (running)\n On CPU (Oracle state)\n1\n\n");
	free(text);
}

static void stap_many_samples_fold_like_folded(void **state)
{
	(void)state;
	/* Several blocks in one stream: each is one sample of count 1, and
	 * the collapse finds the folded stacks minus the thread name. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct sample_view a = sleeping();
	const char *const u[] = { "_start", "main" };
	struct sample_view b = { .thread = "db_writer", .state = "R (running)", .user = u, .n_user = 2 };
	assert_int_equal(output_stap_sample(f, &a), 0);
	assert_int_equal(output_stap_sample(f, &b), 0);
	assert_int_equal(output_stap_sample(f, &a), 0);
	fclose(f);
	char collapsed[4096];
	collapse_stap(text, collapsed, sizeof(collapsed));
	assert_string_equal(collapsed,
		"S (sleeping);_start;main;work;entry_SYSCALL_64_after_hwframe_[k];do_nanosleep_[k] 1\n"
		"R (running);_start;main 1\n"
		"S (sleeping);_start;main;work;entry_SYSCALL_64_after_hwframe_[k];do_nanosleep_[k] 1\n");
	free(text);
}

static void folded_empty_and_single(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	char *text = folded_of(t);
	assert_string_equal(text, "");
	free(text);

	stack_table_add(t, (const char *const[]){ "only" }, 1, 42);
	text = folded_of(t);
	assert_string_equal(text, "only 42\n");
	free(text);
	stack_table_free(t);
}

/* A last frame whose tail reads as a number ("f 7") would be a second
 * count: flamegraph.pl takes "r;f 7 5" for a differential line of 7 and
 * 5, and --diff refuses it.  Its blank is written '_'; a frame before the
 * last, or a tail that is no number, is left as it is. */
static void folded_count_stays_the_only_count(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	const char *const stacks[][3] = {
		{ "a 7", "S (sleeping)", "f 7" },   /* the root keeps its blank */
		{ "b", "R (running)", "g 1.5" },
		{ "c", "R (running)", "h 12." },
		{ "d", "R (running)", "k .5" },     /* not a number to flamegraph.pl */
		{ "e", "R (running)", "m 12a" },
		{ "f", "R (running)", "n 1.2.3" },
		{ "g", "R (running)", "p  42" },    /* only the blank next to it */
		{ "h", "R (running)", "42" },
	};
	for (size_t i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++)
		stack_table_add(t, stacks[i], 3, i + 1);
	char *text = folded_of(t);
	assert_string_equal(text,
		"a 7;S (sleeping);f_7 1\n"
		"b;R (running);g_1.5 2\n"
		"c;R (running);h_12. 3\n"
		"d;R (running);k .5 4\n"
		"e;R (running);m 12a 5\n"
		"f;R (running);n 1.2.3 6\n"
		"g;R (running);p _42 7\n"
		"h;R (running);42 8\n");
	/* each line: one count, at the end, after the only blank-number tail */
	for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
		const char *end = strchr(line, '\n'), *sp = end;
		while (sp > line && sp[-1] != ' ')
			sp--;
		const char *before = sp - 1; /* the blank */
		while (before > line && before[-1] >= '0' && before[-1] <= '9')
			before--;
		assert_false(before < sp - 1 && before > line && before[-1] == ' ');
	}
	free(text);
	stack_table_free(t);
}

static void folded_write_error(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	/* Fully buffered: the error shows when the buffer goes out. */
	struct stack_table *t = stack_table_new();
	stack_table_add(t, (const char *const[]){ "a", "b" }, 2, 1);
	assert_int_equal(output_folded(f, t), -1);
	fclose(f);
	stack_table_free(t);
}

/* A stream whose writes fail and set no errno (a cookie, a library's
 * stream): a failure then is EIO, never an errno left from before. */
static ssize_t refuse(void *cookie, const char *buf, size_t n)
{
	(void)cookie, (void)buf, (void)n;
	return -1;
}

static void write_error_without_errno_is_eio(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "ptrace_profiler -p 42", "db (PID 42)", 1000000);
	size_t w = fixture_thread(&fx, 42, 43, "db", "db_writer");
	fixture_sample(&fx, w, 1000000, 1000000,
		       (const char *[]){ "db_writer", "S (sleeping)", "main", "work", NULL });
	const enum output_format all[] = { FORMAT_FOLDED, FORMAT_STAP, FORMAT_SVG,
					   FORMAT_SPEEDSCOPE, FORMAT_PPROF, FORMAT_PERF_SCRIPT };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = refuse });
		assert_non_null(f);
		errno = ENOENT; /* stale, from some call before */
		assert_int_equal(output_write(f, all[i], fixture_profile(&fx)), -1);
		if (errno != EIO)
			fail_msg("%s: errno %d (%s), expected EIO", format_name(all[i]), errno,
				 strerror(errno));
		fclose(f);
	}
	fixture_free(&fx);
}

/* The same for the stap block the sampler writes as it goes: a stream
 * that fails without an errno is EIO, not what errno held before. */
static void stap_sample_error_without_errno_is_eio(void **state)
{
	(void)state;
	FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = refuse });
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	struct sample_view v = sleeping();
	errno = ENOENT; /* stale, from some call before */
	assert_int_equal(output_stap_sample(f, &v), -1);
	assert_int_equal(errno, EIO);
	fclose(f);
}

static void frames_bounded_everywhere(void **state)
{
	(void)state;
	struct sample_view v = sleeping();
	v.app_state = "On CPU (Oracle state)";
	const char *out[16];
	for (size_t max = 0; max <= 8; max++) {
		for (size_t i = 0; i < 16; i++)
			out[i] = "untouched";
		assert_int_equal(sample_frames(&v, out, max), max);
		assert_string_equal(out[max], "untouched");
	}
	assert_int_equal(sample_frames(&v, out, 16), 8);
	assert_string_equal(out[7], "do_nanosleep_[k]");
	struct sample_view bare = { .thread = "t", .state = "R (running)" };
	assert_int_equal(sample_frames(&bare, out, 16), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames_root_first),
		cmocka_unit_test(folded_text),
		cmocka_unit_test(stap_block),
		cmocka_unit_test(stap_collapses_like_folded),
		cmocka_unit_test(oracle_state_under_the_thread),
		cmocka_unit_test(query_frame_under_the_root),
		cmocka_unit_test(code_start_finds_the_os_state),
		cmocka_unit_test(write_errors_are_reported),
		cmocka_unit_test(stap_without_ips_or_frames),
		cmocka_unit_test(stap_hostile_names_survive),
		cmocka_unit_test(stap_state_lines_survive),
		cmocka_unit_test(stap_many_samples_fold_like_folded),
		cmocka_unit_test(folded_empty_and_single),
		cmocka_unit_test(folded_count_stays_the_only_count),
		cmocka_unit_test(folded_write_error),
		cmocka_unit_test(frames_bounded_everywhere),
		cmocka_unit_test(write_error_without_errno_is_eio),
		cmocka_unit_test(stap_sample_error_without_errno_is_eio),
	};
	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
