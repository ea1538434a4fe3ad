/* output_file.h - an output file written beside its name and renamed over
 * it once complete.
 *
 * A run that fails to start, fails or is killed before the end leaves the
 * file it was asked to write as it was: the profile goes to
 * "FILE.tmp.PID.N" in the same directory (made when the run starts, so a
 * directory we may not write in is known before the target is touched),
 * and rename(2) puts it in FILE's place whole, so a reader sees the old
 * profile or the new one.  A name that is no regular file (/dev/null, a
 * FIFO, /dev/stdout) is written to directly; a symbolic link is followed,
 * and the file it leads to replaced.
 */
#ifndef PTRACE_PROFILER_OUTPUT_FILE_H
#define PTRACE_PROFILER_OUTPUT_FILE_H

#include <stdio.h>

#define OUTPUT_PATH_MAX 4096

struct output_file {
	FILE *f;                          /* write here */
	char path[OUTPUT_PATH_MAX];       /* the file it replaces */
	char tmp[OUTPUT_PATH_MAX + 32];   /* the file written; "" when path itself */
};

/* Opens the file that will become path.  0, or -1 with errno (then
 * nothing was made). */
int output_file_open(struct output_file *of, const char *path);

/* Closes it and puts it in path's place.  0, or -1 with errno (a write
 * error, a full disk: the file written is removed and path left as it
 * was). */
int output_file_commit(struct output_file *of);

/* Closes it and removes what was written; path is left as it was. */
void output_file_discard(struct output_file *of);

#endif
