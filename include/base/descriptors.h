/* descriptors.h - our own open files: how many we may hold, and whether
 * we hold all of them now.
 *
 * The profiler keeps a few descriptors a thread (its /proc files) and one
 * for each ELF file it reads.  A server of many threads, or a PostgreSQL
 * instance whose clients connect without a pool, can take more than the
 * 1024 a shell gives by default.  Run out, and every later open fails:
 * a new backend's program cannot be read, and it looks like no PostgreSQL
 * process at all.
 *
 * descriptors_raise lifts our soft limit to the hard one at start, as
 * most servers' runtimes do; descriptors_short tells a failure for want
 * of descriptors from one that says something of the target, so that the
 * shortage is said (with the limit) and never blamed on the target.
 */
#ifndef PTRACE_PROFILER_BASE_DESCRIPTORS_H
#define PTRACE_PROFILER_BASE_DESCRIPTORS_H

#include <stdbool.h>
#include <stdint.h>

/* Lifts RLIMIT_NOFILE's soft limit to its hard one.  Returns the soft
 * limit in force after, 0 when unlimited or unknown. */
uint64_t descriptors_raise(void);

/* In a child of ours before it runs a program: the soft limit as it was
 * before descriptors_raise, so that a COMMAND runs as the shell would
 * have run it (a program that closes every descriptor up to its limit,
 * or that select()s, behaves the same).  Async-signal-safe. */
void descriptors_restore(void);

/* Whether two more descriptors cannot be had now (EMFILE or ENFILE):
 * tries to open them, and closes them at once.  Two: a file opened as
 * regular_file.h opens it takes two for a moment, and fails with one
 * left, which the failure then leaves free. */
bool descriptors_short(void);

/* Our soft limit (ulimit -n), 0 when unlimited or unknown. */
uint64_t descriptors_limit(void);

/* A few descriptors kept aside for writing the profile: taken at start
 * (and again after each write), lent when an open fails for want of
 * them, so that a window is still written with what was counted.
 * descriptors_lend returns whether any were lent (then try again).
 * Both thread-safe. */
#define DESCRIPTORS_SPARE 8
void descriptors_keep_spare(void);
bool descriptors_lend(void);

#endif
