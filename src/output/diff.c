/* diff.c - two folded profiles side by side (diff.h): reading folded
 * text, merging two profiles, shares and colours of a change, and the
 * two-count lines flamegraph.pl reads. */
#define _GNU_SOURCE
#include "output/diff.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/frame.h"


/* --- reading ------------------------------------------------------------ */

__attribute__((format(printf, 3, 4)))
static int refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The start of a line as a message may show it: at most 40 characters,
 * anything unprintable as '?'. */
static const char *excerpt(const char *line, size_t len, char *out, size_t outsz)
{
	size_t n = 0;
	for (size_t i = 0; i < len && n + 4 < outsz && i < 40; i++)
		out[n++] = isprint((unsigned char)line[i]) ? line[i] : '?';
	if (len > 40 && n + 3 < outsz)
		out[n++] = '.', out[n++] = '.';
	out[n] = '\0';
	return out;
}

/* "123": a whole number that fits; -1 for anything else. */
static int parse_whole(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		uint64_t digit = (uint64_t)(s[i] - '0');
		if (!isdigit((unsigned char)s[i]) || v > (UINT64_MAX - digit) / 10)
			return -1;
		v = v * 10 + digit;
	}
	*out = v;
	return 0;
}

/* Where the blank before the last word of line[0..len) is; len if none. */
static size_t last_blank(const char *line, size_t len)
{
	size_t i = len;
	while (i > 0 && line[i - 1] != ' ' && line[i - 1] != '\t')
		i--;
	return i ? i - 1 : len;
}

/* One line: its frames split at ';' in place, and its count.  0, or -1
 * with the reason in err (without the file and line: the caller's). */
static int parse_line(char *line, size_t len, const char **frames, size_t max, size_t *n,
		      uint64_t *count, char *err, size_t errlen)
{
	char shown[64];
	size_t blank = last_blank(line, len);
	if (blank == len || parse_whole(line + blank + 1, len - blank - 1, count) != 0)
		return refuse(err, errlen, "not a folded stack '%s' (expected frame;frame;... COUNT)",
			      excerpt(line, len, shown, sizeof(shown)));
	size_t end = blank;
	while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t'))
		end--;
	if (end == 0)
		return refuse(err, errlen, "a count without a stack '%s'",
			      excerpt(line, len, shown, sizeof(shown)));
	size_t before = last_blank(line, end);
	uint64_t second;
	if (before != end && parse_whole(line + before + 1, end - before - 1, &second) == 0)
		return refuse(err, errlen, "two counts '%s': the output of a diff, not a profile",
			      excerpt(line, len, shown, sizeof(shown)));
	line[end] = '\0';
	*n = 0;
	for (char *frame = line;; ) {
		if (*n == max)
			return refuse(err, errlen, "more than %zu frames in one stack", max);
		frames[(*n)++] = frame;
		char *semi = strchr(frame, ';');
		if (!semi)
			return 0;
		*semi = '\0';
		frame = semi + 1;
	}
}

#define FOLDED_MAX_FRAMES 4096

int folded_read(FILE *in, const char *name, folded_line_fn fn, void *arg, char *err,
		size_t errlen)
{
	char *line = NULL;
	size_t cap = 0, number = 0;
	const char **frames = malloc(FOLDED_MAX_FRAMES * sizeof(*frames));
	int rc = frames ? 0 : refuse(err, errlen, "%s: out of memory", name);
	ssize_t got;
	errno = 0;
	while (rc == 0 && (got = getline(&line, &cap, in)) >= 0) {
		number++;
		size_t len = (size_t)got;
		while (len > 0 && line[len - 1] && strchr("\n\r \t", line[len - 1]))
			len--;
		line[len] = '\0';
		if (len == 0)
			continue;
		size_t n;
		uint64_t count;
		char why[200];
		if (strlen(line) != len)
			rc = refuse(err, errlen, "%s:%zu: a NUL byte: not folded text", name, number);
		else if (parse_line(line, len, frames, FOLDED_MAX_FRAMES, &n, &count, why, sizeof(why)) != 0)
			rc = refuse(err, errlen, "%s:%zu: %s", name, number, why);
		else if (fn(frames, n, count, arg) != 0)
			rc = refuse(err, errlen, "%s:%zu: out of memory, or a count too large", name, number);
		errno = 0;
	}
	if (rc == 0 && ferror(in))
		rc = refuse(err, errlen, "cannot read '%s': %s", name, strerror(errno ? errno : EIO));
	free(line);
	free(frames);
	return rc;
}

/* --- merging ------------------------------------------------------------ */

struct reading {
	struct stack_diff *d;
	int side; /* 0: before, 1: after */
};

/* Does a frame hold a byte frame_sanitize() may change (a control, DEL,
 * a byte past ASCII)?  Most files hold none: they are added as read. */
static bool maybe_unclean(const char *const *frames, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (const unsigned char *p = (const unsigned char *)frames[i]; *p; p++)
			if (*p < 0x20 || *p >= 0x7f)
				return true;
	return false;
}

/* The stack's id, its frames made what ours are (frame.h: valid UTF-8, no
 * control character) - the files may come from any tool, and what the
 * diff writes must be valid in its format as ours is.  An empty frame
 * stays empty.  -1 when out of memory. */
static long add_clean(struct stack_table *t, const char *const *frames, size_t n)
{
	if (!maybe_unclean(frames, n))
		return stack_table_add(t, frames, n, 0);
	size_t room = 0;
	for (size_t i = 0; i < n; i++)
		room += FRAME_SANITIZED_MAX(strlen(frames[i]) + 1);
	const char **clean = malloc(n * sizeof(*clean));
	char *text = malloc(room), *at = text;
	long id = -1;
	if (clean && text) {
		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(frames[i]), cap = FRAME_SANITIZED_MAX(len + 1);
			at[0] = '\0';
			if (len)
				frame_sanitize(frames[i], at, cap);
			clean[i] = at;
			at += cap;
		}
		id = stack_table_add(t, clean, n, 0);
	}
	free(clean);
	free(text);
	return id;
}

static int add_line(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	struct reading *r = arg;
	struct stack_diff *d = r->d;
	long id = add_clean(d->names, frames, n);
	if (id < 0)
		return -1;
	size_t had = d->cap_counts;
	if (!array_reserve((void **)&d->counts, (size_t)id + 1, &d->cap_counts, sizeof(*d->counts)))
		return -1;
	memset(d->counts + had, 0, (d->cap_counts - had) * sizeof(*d->counts));
	uint64_t *total = r->side ? &d->total_after : &d->total_before;
	if (d->counts[id][r->side] > UINT64_MAX - count || *total > UINT64_MAX - count)
		return -1;
	d->counts[id][r->side] += count;
	*total += count;
	return 0;
}

/* The next byte of the folded text "a;b;c" of frames, or -1 at its end. */
static int next_byte(const char *const *frames, size_t n, size_t *i, const char **p)
{
	if (**p)
		return (unsigned char)*(*p)++;
	if (*i + 1 >= n)
		return -1;
	*p = frames[++*i];
	return ';';
}

/* Byte order of the folded texts, as stack_table_visit_sorted's. */
static int folded_order(const void *a, const void *b)
{
	const struct diff_stack *x = a, *y = b;
	size_t i = 0, j = 0;
	const char *p = x->n ? x->frames[0] : "", *q = y->n ? y->frames[0] : "";
	for (;;) {
		int c = next_byte(x->frames, x->n, &i, &p), e = next_byte(y->frames, y->n, &j, &q);
		if (c != e)
			return c < e ? -1 : 1;
		if (c < 0)
			return 0;
	}
}

/* Every stack of d->names with both its counts, sorted. */
static int gather(struct stack_diff *d)
{
	size_t n = stack_table_distinct(d->names), frames = 0;
	for (size_t id = 0; id < n; id++) {
		uint64_t unused;
		size_t k;
		stack_table_words(d->names, id, &k, &unused);
		frames += k;
	}
	d->stacks = calloc(n ? n : 1, sizeof(*d->stacks));
	d->frame_pool = malloc((frames ? frames : 1) * sizeof(*d->frame_pool));
	if (!d->stacks || !d->frame_pool)
		return -1;
	const char **pool = d->frame_pool;
	for (size_t id = 0; id < n; id++) {
		uint64_t unused;
		size_t k = stack_table_frames(d->names, id, pool, frames, &unused);
		d->stacks[id] = (struct diff_stack){ pool, k, d->counts[id][0], d->counts[id][1] };
		pool += k;
		frames -= k;
	}
	d->n = n;
	qsort(d->stacks, n, sizeof(*d->stacks), folded_order);
	return 0;
}

static int read_side(struct stack_diff *d, int side, FILE *in, const char *name, char *err,
		     size_t errlen)
{
	struct reading r = { d, side };
	return folded_read(in, name, add_line, &r, err, errlen);
}

int stack_diff_read_streams(struct stack_diff *d, FILE *before, const char *before_name,
			    FILE *after, const char *after_name, bool raw, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->raw = raw;
	d->before_name = before_name;
	d->after_name = after_name;
	if (!(d->names = stack_table_new()))
		return refuse(err, errlen, "out of memory");
	if (read_side(d, 0, before, before_name, err, errlen) != 0 ||
	    read_side(d, 1, after, after_name, err, errlen) != 0)
		return -1;
	if (!d->cap_counts) /* two empty profiles */
		return 0;
	if (gather(d) != 0)
		return refuse(err, errlen, "out of memory");
	return 0;
}

int stack_diff_read(struct stack_diff *d, const char *before, const char *after, bool raw,
		    char *err, size_t errlen)
{
	FILE *b = fopen(before, "re");
	if (!b) {
		memset(d, 0, sizeof(*d));
		return refuse(err, errlen, "cannot read '%s': %s", before, strerror(errno));
	}
	FILE *a = fopen(after, "re");
	if (!a) {
		memset(d, 0, sizeof(*d));
		refuse(err, errlen, "cannot read '%s': %s", after, strerror(errno));
		fclose(b);
		return -1;
	}
	int rc = stack_diff_read_streams(d, b, before, a, after, raw, err, errlen);
	fclose(b);
	fclose(a);
	return rc;
}

void stack_diff_free(struct stack_diff *d)
{
	stack_table_free(d->names);
	free(d->frame_pool);
	free(d->stacks);
	free(d->counts);
	memset(d, 0, sizeof(*d));
}

/* --- measuring a change ------------------------------------------------- */

double stack_diff_delta(const struct stack_diff *d, uint64_t before, uint64_t after)
{
	if (d->raw)
		return (double)after - (double)before;
	double b = d->total_before ? (double)before / (double)d->total_before : 0;
	double a = d->total_after ? (double)after / (double)d->total_after : 0;
	return a - b;
}

uint64_t stack_diff_before_column(const struct stack_diff *d, uint64_t before)
{
	if (d->raw || !d->total_before)
		return before;
	return (uint64_t)llround((double)before * (double)d->total_after / (double)d->total_before);
}

int output_diff_folded(FILE *f, const struct stack_diff *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct diff_stack *s = &d->stacks[i];
		for (size_t k = 0; k < s->n; k++) {
			if (k)
				fputc(';', f);
			fputs(s->frames[k], f);
		}
		fprintf(f, " %" PRIu64 " %" PRIu64 "\n", stack_diff_before_column(d, s->before),
			s->after);
	}
	return fflush(f) != 0 || ferror(f) ? -1 : 0;
}

void diff_colour(double delta, double max_abs, char *out, size_t outsz)
{
	/* Grey for no change; from a pale tint to a deep red (grown) or blue
	 * (shrunk) as |delta| goes to the largest change drawn - never so
	 * deep that the black label cannot be read (contrast 3.9 on blue). */
	if (delta == 0 || !(max_abs > 0)) {
		snprintf(out, outsz, "rgb(220,220,220)");
		return;
	}
	double t = fabs(delta) / max_abs;
	if (t > 1)
		t = 1;
	int fade = (int)lround(80 + 130 * (1 - t)); /* the other two channels */
	if (delta > 0)
		snprintf(out, outsz, "rgb(255,%d,%d)", fade, fade);
	else
		snprintf(out, outsz, "rgb(%d,%d,255)", fade, fade);
}
