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

/* The seconds (UNIX) a window from start_ns to end_ns is named by, its
 * file and its push alike: each end rounded to the nearest second
 * (pyroscope_window_seconds), but from never before *last, the until of
 * the window before it (0 for none), and until always after from.  So
 * windows that follow one another have distinct, increasing stamps and
 * meeting seconds however their starts jitter around a half second (two
 * 1 s windows starting at .49 and 1.51 s after a second once both rounded
 * to the same second, and the second file replaced the first).  Sets
 * *last to *until. */
void window_seconds(uint64_t start_ns, uint64_t end_ns, uint64_t *last, uint64_t *from,
		    uint64_t *until);

/* The UNIX second as YYYYmmddTHHMMSSZ, UTC, into out (room for
 * WINDOW_STAMP_LEN + 1).  Returns out. */
char *window_stamp_second(uint64_t second, char *out);

/* UNIX time (ns) rounded to the nearest second, as window_stamp_second:
 * for a window no file or push names (one dropped).  Returns out. */
char *window_stamp(uint64_t unix_ns, char *out);

/* path with the stamp of the UNIX second before its extension, into out.
 * Returns the length, or -1 if it does not fit. */
int window_file_name(const char *path, uint64_t second, char *out, size_t outsz);

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
