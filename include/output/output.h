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
 *
 * Every format is written by output_write() from a finished run
 * (profile.h); stap is also written sample by sample while sampling
 * (output_stap_sample).
 *
 * Everything that depends on the format reads one table (format_info):
 * --format's words and the -o extensions that pick one (options), which
 * writer writes it, whether the sampler must keep every sample in time
 * order or writes samples as they come, and whether two profiles can
 * follow one another in one stream (continuous profiling on stdout).
 */
#ifndef PTRACE_PROFILER_OUTPUT_H
#define PTRACE_PROFILER_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/aggregate.h"
#include "profile/profile.h"



enum output_format {
	FORMAT_FOLDED,
	FORMAT_STAP,
	FORMAT_SVG,
	FORMAT_SPEEDSCOPE,
	FORMAT_PPROF,
	FORMAT_PERF_SCRIPT,
};

/* How profiles that follow one another in one stream are told apart. */
enum format_separator {
	SEPARATE_NONE,    /* one profile a file only (JSON, SVG, gzip) */
	SEPARATE_BLANK,   /* a blank line (folded) */
	SEPARATE_COMMENT, /* a "# ptrace_profiler: ..." line */
};

struct format_info {
	enum output_format format;
	const char *name;      /* --format's word */
	const char *extension; /* an -o name ending so picks it; NULL: none */
	bool keeps_time;       /* needs every sample in time order (timeline.h) */
	bool streams;          /* written sample by sample while sampling */
	enum format_separator separator;
	/* writes a finished profile (output.h); 0, or -1 with errno */
	int (*write)(FILE *f, const struct profile *p);
};

/* The table's row for f; NULL for a value that is no format. */
const struct format_info *format_info(enum output_format f);

/* --format's word: 0, or -1 for anything that is no format's name. */
int parse_format(const char *text, enum output_format *out);

/* --format's word for a format ("?" for none). */
const char *format_name(enum output_format f);

/* The extension that name ends with and that picks a format (.svg,
 * .speedscope.json, .pb.gz), with something before it: its length, and
 * the format in *format (may be NULL); 0 if there is none. */
size_t format_extension(const char *name, enum output_format *format);

/* The format a file name asks for when --format is not given: the one of
 * its format_extension; anything else (.folded...) is folded. */
enum output_format format_for_path(const char *path);

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
int output_stap(FILE *f, const struct profile *p);

#endif
