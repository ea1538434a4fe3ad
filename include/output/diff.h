/* diff.h - two profiles side by side: --diff BEFORE AFTER.
 *
 * Input: folded text, ours or any stackcollapse script's: one stack a
 * line, "frame;frame;frame COUNT" (root first, the count after the last
 * space or tab); empty lines are skipped, a stack seen twice counts
 * twice.  Anything else is refused with the file's name and the line's
 * number: a line without a count, a count that is no whole number or too
 * large, a line with two counts (a diff's own output), a NUL byte.
 *
 * The diff holds every stack of either profile with both counts (0 where
 * a profile lacks it), in the text order of folded output; its frames
 * sanitized as ours are (frame.h), an empty one left empty.  A change is
 * measured in shares of each profile's total by default, so that a longer
 * or busier run does not look like growth everywhere; or in raw samples
 * (--diff-counts).  Written as the two-count lines FlameGraph's
 * flamegraph.pl reads for a differential flame graph ("stack COUNT1
 * COUNT2", as difffolded.pl prints them: COUNT1 scaled to AFTER's total
 * unless raw), or as our own differential SVG (out_svg.c).
 */
#ifndef PTRACE_PROFILER_DIFF_H
#define PTRACE_PROFILER_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/aggregate.h"

/* One line of folded text: its frames, root first (into the line's own
 * buffer), and its count.  Returns 0, or -1 to stop reading. */
typedef int (*folded_line_fn)(const char *const *frames, size_t n, uint64_t count, void *arg);

/* Reads folded text from in, calling fn for each stack line.  name is
 * what messages call the input.  0; -1 with "NAME:LINE: ..." in err (or
 * fn's refusal, or a read error). */
int folded_read(FILE *in, const char *name, folded_line_fn fn, void *arg, char *err,
		size_t errlen);

struct diff_stack {
	const char *const *frames; /* root first; strings live with the diff */
	size_t n;
	uint64_t before, after;    /* samples in each profile */
};

struct stack_diff {
	struct diff_stack *stacks; /* in folded text order */
	size_t n;
	uint64_t total_before, total_after;
	bool raw;                  /* counts as they are, not shares */
	const char *before_name, *after_name;
	/* what it is made of */
	struct stack_table *names;
	const char **frame_pool;
	uint64_t (*counts)[2];     /* by stack id: before's, after's */
	size_t cap_counts;
};

/* Reads both files into a diff.  0; -1 with a one-line reason in err
 * (a file that cannot be read or is not folded: "FILE:LINE: ..."). */
int stack_diff_read(struct stack_diff *d, const char *before, const char *after, bool raw,
		    char *err, size_t errlen);

/* The same from two open streams (tests). */
int stack_diff_read_streams(struct stack_diff *d, FILE *before, const char *before_name,
			    FILE *after, const char *after_name, bool raw, char *err, size_t errlen);

void stack_diff_free(struct stack_diff *d);

/* The change of something seen in before and after samples: after's share
 * less before's (-1 to 1; a profile with no samples has shares 0), or
 * with d->raw after less before. */
double stack_diff_delta(const struct stack_diff *d, uint64_t before, uint64_t after);

/* BEFORE's count as the first column shows it: scaled to AFTER's total
 * (rounded), or as it is with d->raw. */
uint64_t stack_diff_before_column(const struct stack_diff *d, uint64_t before);

/* The two-count lines, "frame;frame COUNT1 COUNT2", for flamegraph.pl.
 * 0, or -1 on a write error. */
int output_diff_folded(FILE *f, const struct stack_diff *d);

/* A differential flame graph's colour for a change delta, given the
 * largest change in the graph (both stack_diff_delta's): red for growth,
 * blue for shrinkage, the deeper the larger |delta| / max_abs; grey for
 * none.  "rgb(r,g,b)" into out. */
void diff_colour(double delta, double max_abs, char *out, size_t outsz);

#endif
