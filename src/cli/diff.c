/* diff.c - the --diff mode: two folded profiles compared, no target
 * (diff.h).  Both files are read and checked before anything is written;
 * the output goes to stdout or replaces -o FILE whole (output_file.h). */
#define _GNU_SOURCE
#include "cli/modes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output/diff.h"
#include "output/output.h"
#include "output/output_file.h"

/* The diff in the format asked for: two-count folded lines, or SVG. */
static int write_diff(FILE *f, const struct options *o, const struct stack_diff *d,
		      const char *command)
{
	if (o->format == FORMAT_FOLDED)
		return output_diff_folded(f, d);
	struct stack_table *none = stack_table_new(); /* the graph is d's */
	struct profile p = { .stacks = none, .command = command };
	struct svg_options so = { .min_width = -1, .diff = d };
	int rc = none ? output_svg(f, &p, &so) : -1;
	stack_table_free(none);
	return rc == 0 && fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

/* One line on stderr: what was compared. */
static void say_what(const struct stack_diff *d)
{
	size_t both = 0, only_before = 0, only_after = 0;
	for (size_t i = 0; i < d->n; i++) {
		both += d->stacks[i].before && d->stacks[i].after;
		only_before += d->stacks[i].before && !d->stacks[i].after;
		only_after += !d->stacks[i].before && d->stacks[i].after;
	}
	fprintf(stderr, "ptrace_profiler: %s (%" PRIu64 " samples) against %s (%" PRIu64
		" samples): %zu stacks in both, %zu new, %zu gone; %s\n",
		d->after_name, d->total_after, d->before_name, d->total_before, both, only_after,
		only_before, d->raw ? "counts compared as they are" : "shares of each total compared");
}

int mode_diff(const struct options *o, const char *command)
{
	char err[512];
	static struct stack_diff d;
	/* counts by default, as difffolded.pl: shares made a stack that did
	 * not change look like the widest growth when others vanished */
	if (stack_diff_read(&d, o->diff_before, o->diff_after, !o->diff_shares, err, sizeof(err)) != 0) {
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		stack_diff_free(&d);
		return 2;
	}
	struct output_file of = { 0 };
	FILE *out = stdout;
	if (o->output_path) {
		if (output_file_open(&of, o->output_path) != 0) {
			fprintf(stderr, "ptrace_profiler: %s\n", of.why);
			stack_diff_free(&d);
			return 2;
		}
		out = of.f;
	}
	int rc = write_diff(out, o, &d, command);
	if (rc != 0)
		fprintf(stderr, "ptrace_profiler: cannot write the diff: %s\n", strerror(errno));
	if (rc == 0 && o->output_path && output_file_commit(&of) != 0) {
		fprintf(stderr, "ptrace_profiler: cannot write '%s': %s\n", o->output_path,
			strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		output_file_discard(&of);
	else
		say_what(&d);
	stack_diff_free(&d);
	return rc == 0 ? 0 : 1;
}
