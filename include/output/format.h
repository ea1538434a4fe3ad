/* format.h - the table of output formats: what every part of the profiler
 * needs to know about a format, in one place.
 *
 * --format's words and the -o extensions that pick one (options), which
 * writer writes it (output_write, output.h), whether the sampler must keep
 * every sample in time order or writes samples as they come, and whether
 * two profiles can follow one another in one stream (continuous profiling
 * on stdout).  Small on purpose: options, the first stage, reads it
 * without the writers' header.
 */
#ifndef PTRACE_PROFILER_FORMAT_H
#define PTRACE_PROFILER_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct profile;

enum output_format {
	FORMAT_FOLDED,
	FORMAT_STAP,
	FORMAT_SVG,
	FORMAT_SPEEDSCOPE,
	FORMAT_PPROF,
	FORMAT_PERF_SCRIPT,
	FORMAT_HTML,
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

/* The table's i-th row, in the order --help lists them (folded first);
 * NULL from the last one on. */
const struct format_info *format_nth(size_t i);

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

#endif
