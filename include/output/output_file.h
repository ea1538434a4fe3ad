/* output_file.h - an output file written beside its name and renamed over
 * it once complete, in a directory other users may share.
 *
 * A run that fails to start, fails or is killed before the end leaves the
 * file it was asked to write as it was, and nothing beside it: the profile
 * goes to a file without a name in NAME's directory (O_TMPFILE, made when
 * the run starts, so a directory we may not write in is known before the
 * target is touched; a process killed with SIGKILL leaves nothing, where a
 * named file stayed behind, empty), given a name nobody can guess,
 * "NAME.tmp.RANDOM", only once it is complete, and rename(2) puts it in
 * NAME's place whole, so a reader sees the old profile or the new one.
 * Where the file system has no O_TMPFILE, the named file is made at the
 * start instead (with O_EXCL), as before.
 *
 * The profiler runs as root in directories other users write to (/tmp,
 * a database's home).  Whatever they plant at or beside the name must not
 * make us write a file that is not theirs, or hang; so the rule is by
 * owner:
 *   - a symbolic link owned by us (the effective uid) or by root is
 *     followed, hop by hop, each hop under this same rule (the file it
 *     leads to is replaced, the link stays); one owned by anybody else is
 *     never followed: at the end of the path the link itself is replaced
 *     by the profile, inside the path the name is refused;
 *   - a name that is no regular file (/dev/null, a FIFO, a terminal) owned
 *     by us or by root is written to directly, never blocking (a FIFO that
 *     nobody reads is refused); a block device never; one owned by anybody
 *     else is replaced by the profile, as a planted link is;
 *   - a link in /proc owned by us (/dev/stdout's /proc/self/fd/1) is
 *     opened through the kernel, as the shell's > would.
 * Nothing is ever opened for writing through a link another user can
 * change: the directory is held open and the last step is renameat(2),
 * which replaces a name and never writes through it.
 */
#ifndef PTRACE_PROFILER_OUTPUT_FILE_H
#define PTRACE_PROFILER_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

#define OUTPUT_PATH_MAX 4096
#define OUTPUT_NAME_MAX 256 /* NAME_MAX and its '\0' */

struct output_file {
	FILE *f;                          /* write here */
	int dir;                          /* the directory NAME is in; -1 when written directly */
	char name[OUTPUT_NAME_MAX];       /* the name it replaces, in dir */
	char tmp[OUTPUT_NAME_MAX];        /* the file written, in dir; "" when NAME itself
					     or while it has no name */
	int unnamed;                      /* 1: f is an O_TMPFILE file, named at the commit */
	char why[OUTPUT_PATH_MAX + 128];  /* after a failure: what went wrong, one line */
};

/* Opens the file that will become path.  0, or -1 with errno and of->why
 * (then nothing was made). */
int output_file_open(struct output_file *of, const char *path);

/* Closes it and puts it in path's place.  0, or -1 with errno and of->why
 * (a write error, a full disk: the file written is removed and path left
 * as it was). */
int output_file_commit(struct output_file *of);

/* Is there a file (or anything else) at path now, the one a commit would
 * replace?  false when it was opened to be written in place (no
 * directory held: it is path). */
bool output_file_replaces(const struct output_file *of);

/* Closes it and removes what was written; path is left as it was. */
void output_file_discard(struct output_file *of);

#endif
