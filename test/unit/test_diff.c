/* Unit tests: --diff's parts (diff.h) - folded text read line by line and
 * refused with the file and line, two profiles merged (grown, shrunk, new
 * and vanished stacks, repeated stacks summed), in folded text order,
 * shares and the scaled first column, raw counts, the colour rule, and the
 * two-count lines flamegraph.pl reads. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output/diff.h"
#include "written.h"

/* --- reading ------------------------------------------------------------ */

struct seen {
	char lines[16][256]; /* "a|b|c=COUNT" */
	size_t n;
};

static int remember(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	struct seen *s = arg;
	char *out = s->lines[s->n++];
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), 256 - strlen(out), "%s%s", i ? "|" : "", frames[i]);
	snprintf(out + strlen(out), 256 - strlen(out), "=%llu", (unsigned long long)count);
	return 0;
}

static int read_text(const char *text, size_t len, struct seen *s, char *err)
{
	FILE *f = fmemopen((void *)text, len, "r");
	assert_non_null(f);
	memset(s, 0, sizeof(*s));
	int rc = folded_read(f, "p.folded", remember, s, err, 256);
	fclose(f);
	return rc;
}

static void reads_folded_lines(void **state)
{
	(void)state;
	static const char text[] =
		"main;a;b 10\n"
		"\n"
		"db_main;S (sleeping);read;pipe_read_[k] 7\r\n" /* spaces in frames, CRLF */
		"one 0\n"
		"x;y\t3\n"                                     /* a tab before the count */
		"trailing 5   \n"                              /* blanks after it */
		"last 18446744073709551615";                   /* no newline, the largest */
	struct seen s;
	char err[256];
	if (read_text(text, sizeof(text) - 1, &s, err) != 0)
		fail_msg("%s", err);
	assert_int_equal(s.n, 6);
	assert_string_equal(s.lines[0], "main|a|b=10");
	assert_string_equal(s.lines[1], "db_main|S (sleeping)|read|pipe_read_[k]=7");
	assert_string_equal(s.lines[2], "one=0");
	assert_string_equal(s.lines[3], "x|y=3");
	assert_string_equal(s.lines[4], "trailing=5");
	assert_string_equal(s.lines[5], "last=18446744073709551615");
}

static void refuses_what_is_not_folded(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *message;
	} cases[] = {
		{ "a;b 1\nnonsense\n", "p.folded:2: not a folded stack 'nonsense' (expected frame;frame;... COUNT)" },
		{ "a;b five\n", "p.folded:1: not a folded stack 'a;b five' (expected frame;frame;... COUNT)" },
		{ "a;b -5\n", "p.folded:1: not a folded stack 'a;b -5' (expected frame;frame;... COUNT)" },
		{ "a;b 1.5\n", "p.folded:1: not a folded stack 'a;b 1.5' (expected frame;frame;... COUNT)" },
		{ "a;b 18446744073709551616\n",
		  "p.folded:1: not a folded stack 'a;b 18446744073709551616' (expected frame;frame;... COUNT)" },
		{ "\n\n 12\n", "p.folded:3: a count without a stack ' 12'" },
		{ "a;b 31 33\n", "p.folded:1: two counts 'a;b 31 33': the output of a diff, not a profile" },
		{ "a;b 3\x01\n", "p.folded:1: not a folded stack 'a;b 3?' (expected frame;frame;... COUNT)" },
		{ "# comment 1\nx\n", "p.folded:2: not a folded stack 'x' (expected frame;frame;... COUNT)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct seen s;
		char err[256] = "";
		if (read_text(cases[i].text, strlen(cases[i].text), &s, err) != -1)
			fail_msg("case %zu accepted", i);
		if (strcmp(err, cases[i].message) != 0)
			fail_msg("case %zu: '%s', expected '%s'", i, err, cases[i].message);
	}
	/* a NUL byte, and a line long past the excerpt */
	struct seen s;
	char err[256];
	assert_int_equal(read_text("a;b 1\nx\0y 2\n", 12, &s, err), -1);
	assert_string_equal(err, "p.folded:2: a NUL byte: not folded text");
	char longline[300];
	memset(longline, 'f', sizeof(longline));
	longline[sizeof(longline) - 1] = '\0';
	assert_int_equal(read_text(longline, strlen(longline), &s, err), -1);
	assert_string_equal(err, "p.folded:1: not a folded stack "
				 "'ffffffffffffffffffffffffffffffffffffffff..' (expected frame;frame;... COUNT)");
}

/* --- merging -------------------------------------------------------------- */

static void diff_of(struct stack_diff *d, const char *before, const char *after, bool raw)
{
	FILE *b = fmemopen((void *)before, strlen(before), "r");
	FILE *a = fmemopen((void *)after, strlen(after), "r");
	char err[256];
	if (stack_diff_read_streams(d, b, "before", a, "after", raw, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	fclose(b);
	fclose(a);
}

static char *two_counts(const struct stack_diff *d)
{
	struct written w;
	assert_int_equal(output_diff_folded(written_open(&w), d), 0);
	return written_text(&w);
}

static void merges_grown_shrunk_new_and_gone(void **state)
{
	(void)state;
	struct stack_diff d;
	diff_of(&d, "main;a;x 10\nmain;b 30\nmain;gone 20\nmain;a;y 40\n",
		"main;new 5\nmain;a;y 15\nmain;a;x 50\nmain;b 30\n", false);
	assert_int_equal(d.total_before, 100);
	assert_int_equal(d.total_after, 100);
	char *text = two_counts(&d);
	assert_string_equal(text, "main;a;x 10 50\n"
				  "main;a;y 40 15\n"
				  "main;b 30 30\n"
				  "main;gone 20 0\n"
				  "main;new 0 5\n");
	free(text);
	stack_diff_free(&d);
	/* a stack seen twice in one file counts twice; text order is bytes */
	diff_of(&d, "b 1\nb 2\nB 4\na;b 1\na 1\n", "a 1\n", true);
	text = two_counts(&d);
	assert_string_equal(text, "B 4 0\na 1 1\na;b 1 0\nb 3 0\n");
	free(text);
	stack_diff_free(&d);
}

/* Files from any tool: their frames come out as ours would (frame.h) -
 * bytes that are not UTF-8 as U+FFFD, controls as '?' - so the diff's
 * text is valid UTF-8 and stacks that read the same are one; an empty
 * frame stays empty. */
static void frames_sanitized_as_ours(void **state)
{
	(void)state;
	struct stack_diff d;
	diff_of(&d, "main;caf\xff;x\x1b 3\nmain;caf\xc3\xa9 4\n",
		"main;caf\xfe;x\x1b 2\nmain;;e 1\nmain;caf\xc3\xa9 5\n", true);
	char *text = two_counts(&d);
	assert_string_equal(text, "main;;e 0 1\n"
				  "main;caf\xc3\xa9 4 5\n"
				  "main;caf\xef\xbf\xbd;x? 3 2\n");
	free(text);
	stack_diff_free(&d);
}

static void shares_scale_the_first_column(void **state)
{
	(void)state;
	struct stack_diff d;
	/* BEFORE twice as long: the same split, nothing changed */
	diff_of(&d, "main;a 60\nmain;b 140\n", "main;a 30\nmain;b 70\n", false);
	char *text = two_counts(&d);
	assert_string_equal(text, "main;a 30 30\nmain;b 70 70\n");
	free(text);
	assert_true(stack_diff_delta(&d, 60, 30) == 0);
	assert_int_equal(stack_diff_before_column(&d, 3), 2); /* 1.5 rounds up */
	stack_diff_free(&d);
	/* raw: as they are */
	diff_of(&d, "main;a 60\nmain;b 140\n", "main;a 30\nmain;b 70\n", true);
	text = two_counts(&d);
	assert_string_equal(text, "main;a 60 30\nmain;b 140 70\n");
	free(text);
	assert_true(stack_diff_delta(&d, 60, 30) == -30);
	stack_diff_free(&d);
	/* shares: a third of 300 before, a half of 100 after */
	diff_of(&d, "a 100\nb 200\n", "a 50\nb 50\n", false);
	assert_true(fabs(stack_diff_delta(&d, 100, 50) - (0.5 - 1.0 / 3)) < 1e-12);
	stack_diff_free(&d);
	/* an empty profile has shares 0; empty files make an empty diff */
	diff_of(&d, "", "a 5\n", false);
	assert_true(stack_diff_delta(&d, 0, 5) == 1);
	assert_int_equal(stack_diff_before_column(&d, 0), 0);
	stack_diff_free(&d);
	diff_of(&d, "\n", "", false);
	assert_int_equal(d.n, 0);
	text = two_counts(&d);
	assert_string_equal(text, "");
	free(text);
	stack_diff_free(&d);
}

static void colour_rule(void **state)
{
	(void)state;
	char c[32];
	diff_colour(0, 0.4, c, sizeof(c));
	assert_string_equal(c, "rgb(220,220,220)"); /* no change: grey */
	diff_colour(0.1, 0, c, sizeof(c));
	assert_string_equal(c, "rgb(220,220,220)"); /* nothing changed anywhere */
	diff_colour(0.4, 0.4, c, sizeof(c));
	assert_string_equal(c, "rgb(255,80,80)");   /* the largest growth: deep red */
	diff_colour(-0.4, 0.4, c, sizeof(c));
	assert_string_equal(c, "rgb(80,80,255)");   /* the largest shrinkage: deep blue */
	diff_colour(0.2, 0.4, c, sizeof(c));
	assert_string_equal(c, "rgb(255,145,145)"); /* half: half as deep */
	diff_colour(-0.1, 0.4, c, sizeof(c));
	assert_string_equal(c, "rgb(178,178,255)");
	diff_colour(1e-9, 0.4, c, sizeof(c));
	assert_string_equal(c, "rgb(255,210,210)"); /* a trace: a pale tint, still red */
	diff_colour(-2, 1, c, sizeof(c));
	assert_string_equal(c, "rgb(80,80,255)");   /* past the largest: clamped */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_folded_lines),
		cmocka_unit_test(refuses_what_is_not_folded),
		cmocka_unit_test(merges_grown_shrunk_new_and_gone),
		cmocka_unit_test(frames_sanitized_as_ours),
		cmocka_unit_test(shares_scale_the_first_column),
		cmocka_unit_test(colour_rule),
	};
	return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
