/* window.h - names of the files --period writes, and the text between
 * profiles that follow one another on stdout (pure).
 *
 * A window's file is -o's name with the window's start (UTC, to the
 * second) before the extension:
 *   out.folded          -> out.20261123T140000Z.folded
 *   db.speedscope.json  -> db.20261123T140000Z.speedscope.json
 *   db.pb.gz            -> db.20261123T140000Z.pb.gz
 *   profile             -> profile.20261123T140000Z
 * An extension that picks a format (format_extension: .svg,
 * .speedscope.json, .pb.gz) is kept whole; otherwise the extension is
 * what follows the last dot of the file's own name (not of a directory; a
 * leading dot, as in ".folded", is part of the name).
 */
#ifndef PTRACE_PROFILER_WINDOW_H
#define PTRACE_PROFILER_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "output/output.h"

#define WINDOW_STAMP_LEN 16 /* "20261123T140000Z" */

/* UNIX time (ns) as YYYYmmddTHHMMSSZ, UTC, into out (room for
 * WINDOW_STAMP_LEN + 1): the second a push names it by (from=, rounded to
 * the nearest second).  Returns out. */
char *window_stamp(uint64_t unix_ns, char *out);

/* path with the stamp of unix_ns before its extension, into out.
 * Returns the length, or -1 if it does not fit. */
int window_file_name(const char *path, uint64_t unix_ns, char *out, size_t outsz);

/* What goes between two profiles written one after the other to one
 * stream, or NULL where nothing can (no format allows more than one
 * document per file: svg, speedscope, pprof):
 *   folded        an empty line (folded has no comments; flamegraph.pl
 *                 skips it, awk 'BEGIN { RS = "" }' splits on it)
 *   perf-script   "# ptrace_profiler: WHAT\n" after the empty line that
 *                 ends each block
 *   stap          the same comment (stackcollapse-stap.pl skips lines it
 *                 does not know)
 * what is a short description ("window 20261123T140000Z"), written into
 * out (size outsz). */
const char *window_separator(enum output_format fmt, const char *what, char *out,
			     size_t outsz);

#endif
