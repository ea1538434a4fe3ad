/* out_folded.c - folded and stap text. */
#include "output/output.h"
#include "output/frame_role.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Where a frame ends in a blank and a number ("f 7", "f 1.5"): the
 * blank's index, else SIZE_MAX.  As a line's last frame such a tail would
 * be a count: flamegraph.pl reads "a;f 7 50" as a differential line of
 * 7 and 50 samples, and --diff refuses it as a diff's own output. */
static size_t count_like_tail(const char *frame)
{
	size_t n = strlen(frame), i = n;
	while (i > 0 && isdigit((unsigned char)frame[i - 1]))
		i--;
	if (i > 0 && frame[i - 1] == '.') { /* "1.5", "1." */
		size_t dot = i - 1;
		i = dot;
		while (i > 0 && isdigit((unsigned char)frame[i - 1]))
			i--;
		if (i == dot)
			return SIZE_MAX; /* ".5": no digit before the dot */
	} else if (i == n) {
		return SIZE_MAX; /* no digit at the end */
	}
	return i > 0 && isspace((unsigned char)frame[i - 1]) ? i - 1 : SIZE_MAX;
}

/* Names are frame_sanitize()'d: no ';' splits a frame, no newline a line.
 * What is left to keep the count the line's only one is the last frame's
 * tail: its blank is written '_'. */
static void print_folded(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	FILE *f = arg;
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(';', f);
		size_t blank = i + 1 == n ? count_like_tail(frames[i]) : SIZE_MAX;
		if (blank == SIZE_MAX) {
			fputs(frames[i], f);
			continue;
		}
		fwrite(frames[i], 1, blank, f);
		fputc('_', f);
		fputs(frames[i] + blank + 1, f);
	}
	fprintf(f, " %" PRIu64 "\n", count);
}

int output_folded(FILE *f, const struct stack_table *t)
{
	stack_table_visit_sorted(t, print_folded, f);
	/* A full disk or a closed pipe shows only once the buffer goes out. */
	return fflush(f) != 0 || ferror(f) ? -1 : 0;
}

/* stackcollapse-stap.pl, per line: drops leading white space, then from
 * the last '+' on, then everything up to the last " : ".  A frame line is
 * " 0x<ip> : NAME+0x0", so the last '+' is ours, and no " : " may follow
 * our own: a space that would complete one is dropped ("a : b" becomes
 * "a :b").  The separator's space counts, so ": x" becomes ":x". */
static void stap_frame(FILE *f, uint64_t addr, const char *name)
{
	fprintf(f, " 0x%016" PRIx64 " : ", addr);
	char prev2 = ':', prev1 = ' ';
	for (const char *p = name; *p; p++) {
		if (*p == ' ' && prev2 == ' ' && prev1 == ':')
			continue;
		fputc(*p, f);
		prev2 = prev1;
		prev1 = *p;
	}
	fputs("+0x0\n", f);
}

/* Would stackcollapse-stap.pl take " TEXT" as it is?  Not if it has a '+'
 * or " : " (cut), starts with white space (stripped), or is blank or all
 * digits (a blank line or the count). */
static bool stap_bare_ok(const char *text)
{
	if (!text[0] || isspace((unsigned char)text[0]) || strchr(text, '+') ||
	    strstr(text, " : "))
		return false;
	return text[strspn(text, "0123456789 \t")] != '\0';
}

/* The state lines as the original tool wrote them: " S (sleeping)".  Text
 * the collapse would mangle goes in a frame line instead. */
static void stap_state(FILE *f, const char *text)
{
	if (stap_bare_ok(text))
		fprintf(f, " %s\n", text);
	else
		stap_frame(f, 0, text);
}

int output_stap_sample(FILE *f, const struct sample_view *s)
{
	errno = 0; /* what a failure reports is its own errno, or EIO */
	for (size_t i = s->n_kernel; i-- > 0;)
		stap_frame(f, 0, s->kernel[i]);
	for (size_t i = s->n_user; i-- > 0;)
		stap_frame(f, s->user_ip ? s->user_ip[i] : 0, s->user[i]);
	stap_state(f, s->state);
	if (s->app_state)
		stap_state(f, s->app_state);
	if (s->query)
		stap_state(f, s->query);
	fputs("1\n\n", f);
	if (!ferror(f))
		return 0;
	if (!errno)
		errno = EIO;
	return -1;
}

/* A sample of the profile as the stap writer takes it: the stack's frames
 * split at their kinds (profile.h). */
struct stap_pass {
	FILE *f;
	const struct stack_table *t;
	const char **frames;
	size_t max;
};

static int stap_one(const struct profile_sample *s, void *arg)
{
	struct stap_pass *sp = arg;
	size_t n = stack_table_frames(sp->t, s->stack, sp->frames, sp->max, NULL);
	if (n == 0)
		return 0;
	size_t code = frame_code_start(sp->frames, n), kernel = code;
	while (kernel < n && frame_role_at(sp->frames, code, kernel) != FRAME_KERNEL)
		kernel++;
	struct sample_view v = {
		.thread = sp->frames[0],
		.state = code >= 2 ? sp->frames[code - 1] : "",
		.user = sp->frames + code,
		.n_user = kernel - code,
		.kernel = sp->frames + kernel,
		.n_kernel = n - kernel,
	};
	/* between the root and the OS state: the query, the app state */
	for (size_t i = 1; i + 1 < code; i++) {
		if (frame_is_app_state(sp->frames[i]))
			v.app_state = sp->frames[i];
		else
			v.query = sp->frames[i];
	}
	return output_stap_sample(sp->f, &v);
}

int output_stap(FILE *f, const struct profile *p)
{
	struct stap_pass sp = { f, p->stacks, NULL, stack_table_max_depth(p->stacks) };
	sp.frames = malloc(sp.max * sizeof(*sp.frames));
	if (!sp.frames)
		return -1;
	int rc = sample_pass(p, stap_one, &sp);
	free(sp.frames);
	return rc;
}

