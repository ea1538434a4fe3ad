/* output.h - the output formats.
 *
 * folded:      "root;...;leaf COUNT" per distinct stack, in text order, as
 *              FlameGraph's stackcollapse scripts print (flamegraph.pl input).
 * stap:        the original Ptrace_Profiler's per-sample blocks, leaf first,
 *              ending with the state line, the count 1 and a blank line, for
 *              pipelines built on stackcollapse-stap.pl.
 * svg:         an interactive flame graph in one file (script and style
 *              inline): click to zoom, search, details of each frame.
 * speedscope:  speedscope's JSON file format, one sampled profile per
 *              thread, samples in time order weighted by their wall time.
 * pprof:       gzipped profile.proto (go tool pprof, and the tools that
 *              read it): samples/count and wall/nanoseconds per stack and
 *              thread, labelled with thread, tid, pid and states.
 * perf-script: text as `perf script` prints it, one block per sample
 *              (FlameScope, speedscope, Firefox Profiler, stackcollapse-perf.pl).
 * html:        the report, one file (out_html.c): average active threads
 *              over time by state, event, type or statement, and the
 *              flame graph of a range dragged on it.
 *
 * Every format is written by output_write() from a finished run
 * (profile.h); stap is also written sample by sample while sampling
 * (output_stap_sample).
 *
 * Everything else about a format (its word, its extension, whether it
 * streams or keeps time) is in its row of the table, format.h.
 */
#ifndef PTRACE_PROFILER_OUTPUT_H
#define PTRACE_PROFILER_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/format.h"
#include "profile/aggregate.h"
#include "profile/profile.h"


/* THE entry point: writes p to f in fmt, and flushes f.  folded, svg and
 * pprof need p->stacks only (pprof also reads p->samples, when given, for
 * exact wall time and thread ids); stap, speedscope and perf-script need
 * p->samples.  Returns 0, or -1 with errno set: EINVAL when p lacks what
 * the format needs or a sample names a stack or thread that does not
 * exist, ENOMEM, or the write error (EIO when the stream failed without
 * an errno of its own). */
int output_write(FILE *f, enum output_format fmt, const struct profile *p);

/* Writes the folded lines; returns 0 or -1 on a write error. */
int output_folded(FILE *f, const struct stack_table *t);

/* Writes one stap block; returns 0, or -1 with errno set on a write
 * error: the write's own, EIO when the stream failed without one (its
 * error flag from an earlier write). */
int output_stap_sample(FILE *f, const struct sample_view *s);

/* The writers behind output_write, with their knobs for tests and tools. */

struct stack_diff;
struct svg_options {
	unsigned width;      /* pixels; 0: 1200 */
	double min_width;    /* frames narrower (pixels) are left out, as
			        flamegraph.pl's --minwidth; < 0: 0.1 */
	const struct stack_diff *diff; /* a differential flame graph of it
				   (diff.h): its AFTER's boxes, coloured by
				   the change; p gives the title.  NULL: p's */
};
int output_svg(FILE *f, const struct profile *p, const struct svg_options *o);

/* Per-thread sample arrays are gathered for as many threads at a time as
 * fit in budget bytes (12 per sample; 0: 64 MiB), one pass over the samples
 * for each such group after one that counts them. */
int output_speedscope(FILE *f, const struct profile *p, size_t budget);

int output_pprof(FILE *f, const struct profile *p);
int output_perf_script(FILE *f, const struct profile *p);

/* The report (html): the page and every sample (p->samples).  0, or -1
 * with errno. */
int output_html(FILE *f, const struct profile *p);
int output_stap(FILE *f, const struct profile *p);

#endif
