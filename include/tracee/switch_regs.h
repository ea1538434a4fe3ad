/* switch_regs.h - the registers a sleeping thread went to sleep with, as
 * the kernel wrote them down when it left the CPU.
 *
 * A thread blocked in a system call is read without a stop: its stack
 * pointer and pc from /proc (procfs.h), its stack by process_vm_readv.
 * Most stacks unwind from those two registers alone; a frame whose
 * caller is found through its frame pointer (rbp), or another register
 * the kernel keeps, does not.  Stopping such a thread to read its
 * registers wakes it: the stop ends its epoll_wait with EINTR, the
 * program goes round its loop and waits again, and at the next tick it
 * has moved and needs another stop - an idle server woken at every tick.
 *
 * So such a thread is watched: a perf software event on it counts its
 * context switches, one sample of its user registers (the set its system
 * call saved on entry) at each switch off a CPU, and a record at each
 * switch onto one.  The last sample of a thread that has not run since is
 * the set it sleeps with, exactly.  A thread asleep for long (cold.h) is
 * watched too: while its record stands still it has not run, known by
 * reading shared memory instead of its schedstat.
 * Watches are made only for threads that need them, since each costs
 * the thread a sample at every switch (about a microsecond) and us a
 * descriptor and 1 + SWITCH_DATA_PAGES pages of locked memory; at most max_watches.
 *
 * Without permission for perf events (perf_event_paranoid above 1 and
 * no CAP_PERFMON), or with none left, a thread is stopped as before.
 * The events end with their descriptors: when we exit, however we do.
 */
#ifndef PTRACE_PROFILER_SWITCH_REGS_H
#define PTRACE_PROFILER_SWITCH_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#define SWITCH_DATA_PAGES 4 /* about 180 switches between two reads */

struct switch_regs;  /* the watches of one run */
struct switch_watch; /* one thread's */

/* What the watches did, for the summary. */
struct switch_stats {
	size_t watching;    /* watches open now */
	size_t most;        /* open at once, at most */
	uint64_t found;     /* reads that found the thread's sleeping registers */
	uint64_t lost;      /* reads after the kernel dropped switches (ring full) */
	int refused_errno;  /* why no watch could be made (0: none refused) */
	uint64_t no_room;   /* watches not made: max_watches open */
};

/* max_watches 0: none are ever made. */
struct switch_regs *switch_regs_new(size_t max_watches);
void switch_regs_free(struct switch_regs *sr); /* closes every watch */

/* Begins recording tid's switches off a CPU.  NULL when it cannot: no
 * room, or no permission - then none is tried again. */
struct switch_watch *switch_regs_watch(struct switch_regs *sr, pid_t tid);
void switch_regs_unwatch(struct switch_regs *sr, struct switch_watch *w); /* NULL is fine */

/* Reads the switches recorded since the last read, keeping the newest:
 * done at every look at the thread, so that the ring (about 180
 * switches) never fills between two reads and drops the newest.  A look
 * at an empty ring reads two words of shared memory, no system call. */
void switch_regs_drain(struct switch_regs *sr, struct switch_watch *w);

/* Where the thread's record of switches stands, once read to its end:
 * for switch_regs_unmoved.  Each switch onto a CPU and off it adds a
 * record, so that a ring that has not moved since a mark taken before
 * its run count was proven unmoved proves, with no system call, that the
 * thread has not run since (the ring is read to its end first: a full
 * ring, which could not record a switch, cannot follow a mark).  0 for
 * no watch. */
uint64_t switch_regs_mark(struct switch_regs *sr, struct switch_watch *w);
bool switch_regs_unmoved(const struct switch_watch *w, uint64_t mark); /* false: no watch */

/* Are fewer than a share-th of the watches allowed open (share 2: half)? */
bool switch_regs_room(const struct switch_regs *sr, size_t share);

/* Reads the switches recorded since the last read.  If the last one
 * left the CPU at sp and ip (the system call the thread sleeps in, as
 * /proc shows it), copies the registers it saved - rbx, rbp, r12-r15 -
 * into regs and returns true.  The caller proves the thread has not run
 * since (its run count, read before this call and after its stack). */
bool switch_regs_last(struct switch_regs *sr, struct switch_watch *w, uint64_t sp, uint64_t ip,
		      struct user_regs_struct *regs);

struct switch_stats switch_regs_stats(const struct switch_regs *sr);

#endif
