/* output.h - the two output formats.
 *
 * folded: "root;...;leaf COUNT" per distinct stack, in text order, as
 *         FlameGraph's stackcollapse scripts print (flamegraph.pl input).
 * stap:   the original Ptrace_Profiler's per-sample blocks, leaf first,
 *         ending with the state line, the count 1 and a blank line, for
 *         pipelines built on stackcollapse-stap.pl.
 */
#ifndef PTRACE_PROFILER_OUTPUT_H
#define PTRACE_PROFILER_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "aggregate.h"

/* One sample, every string already sanitized. */
struct sample_view {
	const char *thread;        /* root frame: the thread's comm */
	const char *app_state;     /* e.g. the Oracle wait event; may be NULL */
	const char *state;         /* "S (sleeping)" */
	const char *const *user;   /* outermost first */
	const uint64_t *user_ip;   /* same order; may be NULL */
	size_t n_user;
	const char *const *kernel; /* outermost first, "_[k]" appended */
	size_t n_kernel;
};

/* Root-first frame list of a sample: thread, app state (if any), state,
 * user, kernel.
 * Returns the number written (at most max). */
size_t sample_frames(const struct sample_view *s, const char **out, size_t max);

/* Writes the folded lines; returns 0 or -1 on a write error. */
int output_folded(FILE *f, const struct stack_table *t);

/* Writes one stap block; returns 0 or -1 on a write error. */
int output_stap_sample(FILE *f, const struct sample_view *s);

#endif
