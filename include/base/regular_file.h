/* regular_file.h - opening a file that someone else may have put there.
 *
 * The profiler runs as root and reads files the target's owner controls:
 * its program and libraries (through /proc/PID/root), the debug files its
 * .gnu_debuglink names, next to the program or in its .debug/ folder.
 * Any of them may be a FIFO, whose plain open() blocks until a writer
 * comes (for ever: the profiler then ignores SIGTERM, and its targets stay
 * stopped), a device, whose open() alone has effects (a tape rewinds, a
 * watchdog arms), a directory, or a file too big to read.
 *
 * open_regular opens the path without reading it first (O_PATH: no
 * device's open runs, no FIFO waits), checks what it found, and only if it
 * is a regular file of at most max_size bytes opens that very inode for
 * reading, through /proc/self/fd, with O_NONBLOCK | O_NOCTTY: never a
 * blocking open, never anything but a regular file, even if the path is
 * replaced meanwhile.
 */
#ifndef PTRACE_PROFILER_BASE_REGULAR_FILE_H
#define PTRACE_PROFILER_BASE_REGULAR_FILE_H

#include <stdint.h>
#include <sys/stat.h>

/* A descriptor (O_RDONLY, close-on-exec) of the regular file at path, of
 * at most max_size bytes; its fstat in *st when st is not NULL.  -1 with
 * errno set otherwise: ENOENT and the like from open, EINVAL if it is no
 * regular file, EFBIG if it is bigger.  Symbolic links are followed. */
int open_regular(const char *path, uint64_t max_size, struct stat *st);

#endif
