/* pgstate.h - where a PostgreSQL process keeps its wait event, and reading it.
 *
 * From 14 on, every server process writes its current wait event through
 * my_wait_event_info, a pointer exported in the postgres binary's .dynsym
 * (for extensions): to a variable of its own until the backend has its
 * PGPROC, then to MyProc->wait_event_info in shared memory (and back to
 * its own variable on the way out).  The symbol is looked up once per
 * process in the binary's .dynsym (the module's image as modules.h opened
 * it, plus its load bias), never in debug info: nothing slow in the
 * sampling loop.  Each sample then reads, in the same process_vm_readv as
 * the stack, the pointer and the word it pointed to at the last sample:
 * when the pointer has moved, the word is read again at its new place, so
 * a backend that got its PGPROC after we first looked is followed, and
 * one on its way out is never read in a slot another backend took over.
 */
#ifndef PTRACE_PROFILER_PGSTATE_H
#define PTRACE_PROFILER_PGSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind/modules.h"
#include "db/pgwait.h"
#include "tracee/snapshot.h"

struct pg_process {
	bool server;                       /* my_wait_event_info was found */
	bool version_known;
	struct pg_version version;
	const struct pg_wait_table *table; /* NULL: every event by number */
	uint64_t pointer_addr;             /* &my_wait_event_info */
	uint64_t word_addr;                /* what it pointed to; 0 not known */
	/* Its word read through another process (pgprocs.h): its PGPROC's
	 * pid at word_addr + pid_offset (0: not known), learnt for the word
	 * at offset_for; reads so since its own last read. */
	int32_t pid_offset;
	uint64_t offset_for;
	unsigned read_through;
};

enum pg_probe {
	PG_PROBE_SERVER,       /* a PostgreSQL 14+ process */
	PG_PROBE_NOT_POSTGRES, /* no my_wait_event_info: not a server process */
	PG_PROBE_TOO_OLD,      /* PostgreSQL 13 or older: no my_wait_event_info */
	PG_PROBE_GONE,         /* it exited as we looked (its /proc/PID/exe is
				  gone): nothing to read, nor to say */
	PG_PROBE_NO_ROOM,      /* its program not read: we are out of
				  descriptors (descriptors.h), it says
				  nothing of the process */
};

/* Looks at process pid through its modules m.  msg gets a line for the
 * user: the reason for PG_PROBE_TOO_OLD, PG_PROBE_NOT_POSTGRES and
 * PG_PROBE_NO_ROOM (the limit, not the process), and for a server of a
 * version we have no tables for (newer than 18, or one we cannot tell)
 * which it is, for the caller to say what is missing (its events are
 * numbers, table NULL); otherwise "". */
enum pg_probe pg_probe(pid_t pid, struct modules *m, struct pg_process *out, char *msg,
		       size_t msglen);

/* The words a capture of one of its threads reads (snapshot.h): the
 * pointer, as two 4-byte words, then the word it points to, if known. */
void pg_words(const struct pg_process *p, struct snapshot *s);

/* After the capture: the wait event word of the sample.  If the pointer
 * has moved, the word is read at its new place now, and the snapshot's
 * words updated so that every later look at this capture agrees.
 * 0, or -1 when it cannot be read. */
int pg_word(struct pg_process *p, pid_t pid, struct snapshot *s, uint32_t *word);

/* The wait event word now, without a stop or a snapshot (the report's
 * reads between rounds, activity_reads.h): the pointer and the word it
 * pointed to last in one process_vm_readv; the word read again where the
 * pointer points now if it moved (then word_addr follows, as pg_word's
 * does).  0, or -1 when the process cannot be read (gone). */
int pg_word_read(struct pg_process *p, pid_t pid, uint32_t *word);

/* The frame of a sample's PostgreSQL state, as every mode writes it:
 * "[no PostgreSQL state]" for a process that is no 14+ server (p->server
 * false), "[unreadable] (PostgreSQL state)" when its word could not be
 * read (read false), else pg_wait_frame's.  Returns out. */
const char *pg_state_frame(const struct pg_process *p, bool read, uint32_t word, char *out,
			   size_t outsz);

#endif
