/* title.h - what a process calls itself, for the root of its stacks.
 *
 * comm is 15 bytes and the same for every process of a program: a
 * postgres checkpointer and a client backend are both "postgres".  A
 * PostgreSQL server process is named by its backend type (pgbackend.h);
 * programs that rewrite their process title, as nginx ("nginx: worker
 * process"), sshd ("sshd: alice@pts/0"), postgres itself and redis do, are
 * named by that title; every other process by comm alone.
 */
#ifndef PTRACE_PROFILER_TITLE_H
#define PTRACE_PROFILER_TITLE_H

#include <stddef.h>
#include <sys/types.h>

/* The longest title kept, in bytes (cut between characters). */
#define TITLE_MAX 64

/* The title in /proc/PID/cmdline's bytes (cmdline, len: argv strings, each
 * NUL-terminated), given the program's path exe (/proc/PID/exe's target,
 * " (deleted)" and all).  A process rewrote its title when its first
 * string, argv[0], holds a space and is neither exe itself nor a path
 * with exe's file name: a program started by its name or path has argv[0]
 * "nginx", "/usr/sbin/nginx", "./x" - no space unless its path has one,
 * and then it is the path.  The title is argv[0] without the spaces at its
 * ends (postgres pads its title), sanitized (frame.h), cut to TITLE_MAX
 * bytes between two UTF-8 characters, into out.  Returns its length; 0
 * (out "") when the title was not rewritten. */
size_t process_title(const char *cmdline, size_t len, const char *exe, char *out, size_t outsz);

/* The same, read from /proc/PID/cmdline and /proc/PID/exe: two reads,
 * tens of µs, for once per process (nginx and sshd set theirs at start;
 * a postgres backend rewrites its own at every statement, but is named by
 * its type).  0 when none. */
size_t process_title_read(pid_t pid, char *out, size_t outsz);

/* A stack's root for process pid: "comm[PID] words" (words: its backend
 * type, or its title), or "comm[PID]" when words is NULL or "".
 * Sanitized.  Returns strlen(out). */
size_t process_root_frame(const char *comm, pid_t pid, const char *words, char *out, size_t outsz);

#endif
