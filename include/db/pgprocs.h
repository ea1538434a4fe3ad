/* pgprocs.h - every server process's wait event word in one read.
 *
 * A backend's word lives in its PGPROC, in the shared memory the
 * postmaster made before it forked them all: one segment, at the same
 * address in every server process.  So the words of a whole instance can
 * be read through one of its processes, in one process_vm_readv, instead
 * of one call per process (pg_word_read: about 10 us each between rounds
 * on this VM, most of a read tick).  What makes such a word this
 * process's is the PGPROC's pid, read in the same call just after it: a
 * slot given up (ProcKill) and taken by another backend carries the other
 * pid (from PostgreSQL 17 on it is 0 once given up), and the word is then
 * read the process's own way again.
 *
 * Where the pid sits relative to the word differs by major and build, and
 * no symbol says: it is found in each process by its value, the
 * 4-byte-aligned int equal to its pid nearest before the word, within
 * PG_PID_WINDOW bytes.  PostgreSQL 15 has two there, PGPROC's pid at 712
 * bytes before wait_event_info and its latch's owner_pid at 696 (gdb on
 * Debian's 15): each is written by the slot's next owner as it takes it
 * (InitProcess, OwnLatch), and the latch's is cleared as the slot is
 * given up (DisownLatch).  A value that only happens to equal the pid
 * puts one process's offset apart from the others': the caller trusts
 * an offset only once two processes agree on it, and reads through only
 * processes with that offset.
 */
#ifndef PTRACE_PROFILER_PGPROCS_H
#define PTRACE_PROFILER_PGPROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* How far before its word a PGPROC's pid is looked for. */
#define PG_PID_WINDOW 1024

/* Pure: window holds the n ints before a word (window[n - 1] just
 * before it).  The offset in bytes from the word to the nearest one equal
 * to pid (negative), or 0: none. */
int32_t pg_pid_offset_find(const int32_t *window, size_t n, int32_t pid);

/* The offset of process pid's PGPROC pid from its word at word_addr, read
 * from its memory (PG_PID_WINDOW bytes); 0: not found, or unreadable. */
int32_t pg_pid_offset_learn(pid_t pid, uint64_t word_addr);

/* One process's word to read through another. */
struct pg_proc_read {
	uint64_t word_addr;   /* its word (pgstate.h's word_addr) */
	int32_t pid_offset;   /* its PGPROC's pid, from word_addr */
	pid_t pid;            /* the process */
	/* More of its shared memory read in the same call, after the pid
	 * (its status slot: pgbackend.h's pg_backend_peek_iov); n_more 0:
	 * none.  At most 1022 iovecs. */
	const struct iovec *more_local, *more_remote;
	size_t n_more;
	uint32_t word;        /* out: its word, when ok */
	bool ok;              /* out: read, and the slot still pid's */
	bool more_ok;         /* out: ok, and the more read whole */
};

/* Reads each entry's word, then its PGPROC's pid, then its more, through
 * process reader (any process of the instance), in one process_vm_readv
 * (more for over IOV_MAX iovecs).  An entry is ok when the pid read is
 * its own; entries past a failed read are not.  Returns how many are
 * ok. */
size_t pg_procs_read(pid_t reader, struct pg_proc_read *e, size_t n);

#endif
