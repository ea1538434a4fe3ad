/* Unit tests: folded and stap output text. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output.h"

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

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(output_folded(f, t), 0);
	fclose(f);
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
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(output_stap_sample(f, &v), 0);
	fclose(f);
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

/* stackcollapse-stap.pl's rules, per line: a line of digits closes the
 * stack with that count; blank lines are skipped; otherwise leading space
 * goes, then everything from the last '+', then everything up to " : ";
 * the frame is put in front. */
static void collapse_stap(const char *text, char *out, size_t outsz)
{
	char stack[4096] = "";
	out[0] = '\0';
	char *copy = strdup(text), *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strspn(line, "0123456789") == strlen(line) && line[0]) {
			snprintf(out + strlen(out), outsz - strlen(out), "%s %s\n", stack, line);
			stack[0] = '\0';
			continue;
		}
		while (*line == ' ')
			line++;
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
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	output_stap_sample(f, v);
	fclose(f);
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
		"R (running);main;operator+: x;entry_SYSCALL_64_after_hwframe_[k] 1\n");
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

static void write_errors_are_reported(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	struct sample_view v = sleeping();
	assert_int_equal(output_stap_sample(f, &v), -1);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames_root_first),
		cmocka_unit_test(folded_text),
		cmocka_unit_test(stap_block),
		cmocka_unit_test(stap_collapses_like_folded),
		cmocka_unit_test(oracle_state_under_the_thread),
		cmocka_unit_test(write_errors_are_reported),
	};
	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
