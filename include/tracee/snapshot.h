/* snapshot.h - what is copied while a thread is stopped, and nothing more.
 *
 * The registers and the live part of the stack (from the stack pointer, less
 * the red zone, up to the top of the stack mapping, bounded) are everything
 * the unwinder needs; it runs later, on this copy, while the target runs.
 */
#ifndef PTRACE_PROFILER_SNAPSHOT_H
#define PTRACE_PROFILER_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "tracee/procfs.h"

#define SNAPSHOT_STACK_MAX (256 * 1024) /* deep enough for Oracle stacks */
#define SNAPSHOT_RED_ZONE 128           /* x86-64 SysV leaf scratch area */

#define SNAPSHOT_WORDS 3 /* Oracle: 2; PostgreSQL: a pointer (2) and the word it points to */

struct snapshot {
	pid_t tid;
	/* 4-byte words of the target read in the same stop (Oracle's session
	 * state, a PostgreSQL process's wait event): set n_words and word_addr
	 * before each capture - they are the process's, not the run's. */
	int n_words;
	uint64_t word_addr[SNAPSHOT_WORDS];
	uint32_t word[SNAPSHOT_WORDS];
	int words_ok;
	pid_t words_tid; /* the thread they were read through (set by every
			    read of them; a copy of them carries it along) */
	struct user_regs_struct regs;
	/* Only rsp and rip are known (a blocked thread looked at without
	 * stopping it): the unwinder must not use any other register, */
	bool partial_regs;
	/* but for rbx, rbp and r12-r15 when this is set: the set it went to
	 * sleep with (switch_regs.h). */
	bool callee_saved;
	uint64_t stack_start; /* target address of stack[0] */
	size_t stack_len;     /* bytes valid in stack[] */
	uint8_t stack[SNAPSHOT_STACK_MAX];
};

/* Bytes copied above sp when the stack's mapping is not known (a stack
 * mapped since the maps were last read): enough for most stacks, and a
 * first copy of 256 KB page by page had kept a thread stopped 0.8 ms. */
#define SNAPSHOT_UNKNOWN_WINDOW (32 * 1024)

/* The thread must be in a ptrace stop: its registers.  0, or -1. */
int snapshot_regs(pid_t tid, struct snapshot *s);

/* Then its stack, from sp less the red zone up to stack_top (the end of
 * the mapping holding sp; 0 if unknown: SNAPSHOT_UNKNOWN_WINDOW, cut at the
 * first unreadable page), and the extra words, in one process_vm_readv.
 * Returns 0, or -1 with errno. */
int snapshot_stack(pid_t tid, uint64_t stack_top, struct snapshot *s);

/* A blocked thread, without stopping it: rsp and rip from where (its
 * /proc/.../syscall), then its stack and the extra words as
 * snapshot_stack copies them.  The caller proves the copy consistent (the
 * thread did not run meanwhile).  0, or -1 with errno. */
int snapshot_peek(pid_t tid, const struct blocked_syscall *where, uint64_t stack_top,
		  struct snapshot *s);

/* A blocked thread's stack copied before its sp is known: from `from`
 * (where it slept last, less some slack) up to stack_top, with the extra
 * words, in one process_vm_readv - so that the words are read first and
 * the read that then proves the copy comes sooner.  0 when all of it was
 * read, else -1 (nothing kept). */
int snapshot_copy_ahead(pid_t tid, uint64_t from, uint64_t stack_top, struct snapshot *s);

/* A copy ahead that ended short of the stack's top (stack_top), the rest
 * appended: 0, or -1 (the copy as it was). */
int snapshot_extend(pid_t tid, uint64_t stack_top, struct snapshot *s);

/* Then its sp and pc (where): the copy ahead cut to start at sp less the
 * red zone, as snapshot_peek would have copied it.  0, or -1 when sp is
 * not inside it (then snapshot_peek copies again). */
int snapshot_peek_ahead(const struct blocked_syscall *where, struct snapshot *s);

/* Reads only the extra words (no stop needed).  0, or -1. */
int snapshot_read_words(pid_t tid, struct snapshot *s);

/* Were s's words read through thread tid, or none read?  A process's
 * words sit at the same addresses in every process of its instance (the
 * binary's variables, the shared memory): read through another process,
 * they are that one's. */
bool snapshot_words_through(const struct snapshot *s, pid_t tid);

/* What a stop's registers say about a system call.
 *
 * The call the thread is in, in the shape /proc/.../syscall prints it
 * (number, arguments, sp, pc after the instruction).  0, or -1 if none. */
int snapshot_syscall(const struct user_regs_struct *r, struct blocked_syscall *out);

/* Did the stop abort a blocking call, to be restarted once the thread runs
 * again?  rax then holds one of the kernel's -ERESTART* codes, which user
 * space never sees. */
bool snapshot_restarting(const struct user_regs_struct *r);

/* Is the thread where aborting the call w left it, not a step further?
 * Back at its instruction, reloaded for the restart but not yet in it (it
 * ran a little since, say into a CPU quota's throttle, on its way out of
 * the kernel or just before the instruction), or in the same call again
 * and aborted again by this stop. */
bool snapshot_restart_pending(const struct user_regs_struct *r, const struct blocked_syscall *w);

/* Bytes of the copy at target address addr, or -1 if not all inside it. */
int snapshot_read(const struct snapshot *s, uint64_t addr, void *out,
		  size_t len);

#endif
