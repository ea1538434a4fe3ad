/* pgbackend.h - a PostgreSQL process's type, state and statement, read from
 * its memory without stopping it.
 *
 * Everything pg_stat_activity shows comes from globals the postgres binary
 * exports in .dynsym (pgsym.h), looked up once per process:
 *   MyBackendType     its type (pgactivity.h names it), set once when a
 *                     child of the postmaster starts; 0 in the postmaster
 *                     (PostmasterPid says which that is) and in a child
 *                     not yet started;
 *   MyBgworkerEntry   a background worker's registration: bgw_type, the
 *                     words pg_stat_activity shows for it;
 *   MyBEEntry         its PgBackendStatus slot in shared memory, fixed from
 *                     the backend's start to its exit (NULL before, and in
 *                     the postmaster and the logger, which have none);
 *   pgstat_track_activity_query_size   the size of the statement buffer.
 * PgBackendStatus has the same layout from 14 to 18 on x86-64: the
 * PG_ST_* offsets below.
 *
 * A backend writes its slot between two increments of st_changecount;
 * pg_backend_read copies the slot, the statement buffer and the count
 * again in one process_vm_readv (in that order: on x86 the loads are not
 * reordered), and accepts the copy only when both counts are the same
 * and even.  No stop, no ptrace: any process we may read (root, or
 * CAP_SYS_PTRACE, or the same user under Yama scope 0).
 */
#ifndef PTRACE_PROFILER_PGBACKEND_H
#define PTRACE_PROFILER_PGBACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "db/pgactivity.h"
#include "unwind/modules.h"

/* The statement bytes read per sample: the whole buffer up to this
 * (track_activity_query_size is 1024 by default).  A longer statement is
 * normalized, and hashed, from its first PG_ACTIVITY_READ_MAX bytes. */
#define PG_ACTIVITY_READ_MAX 4096

/* How many times a read is tried when the backend was writing its slot. */
#define PG_READ_TRIES 3

/* Where PostgreSQL keeps what we read, on x86-64, 14 to 18: the same in
 * every version.  How each version was checked:
 *   15      by a program, reproducibly: test/tools/pg_layout (make
 *           pg-layout; test/integration/81-pg-layout.sh runs it wherever a
 *           server's headers are installed - Debian's
 *           postgresql-server-dev-N, which .ci/run installs for each server
 *           it has) takes offsetof() and sizeof() of these fields and the
 *           BackendType and BackendState enumerators from the server's own
 *           headers and compares them with these constants and
 *           pgactivity.c's tables; and by reading a running 15.18's
 *           backends through them, as pg_stat_activity showed them
 *           (docs/postgresql.md);
 *   17, 18  from their headers (Debian's postgresql-server-dev-17 and -18,
 *           read when this was written; not installable on Debian 12
 *           without PostgreSQL's own apt repository, so not re-checked by
 *           the tests here: pg_layout checks them wherever they are);
 *   14, 16  from their headers as pgrx's bindgen output prints them (14.13,
 *           16.4), never compiled against.
 */
#define PG_ST_CHANGECOUNT 0    /* int: odd while the backend writes */
#define PG_ST_PROCPID 4        /* int */
#define PG_ST_STATE 232        /* BackendState, an enum: 4 bytes */
#define PG_ST_ACTIVITY_RAW 248 /* char *: the slot's statement buffer,
				  fixed for the life of the server */
#define PG_ST_QUERY_ID 424     /* uint64 (int64 in 18) */
#define PG_ST_SIZE 432         /* what a read copies: up to st_query_id's end */

#define PG_BGW_MAXLEN 96 /* BGW_MAXLEN, 11 to 18 */
/* BackgroundWorker: bgw_name[BGW_MAXLEN], then bgw_type[BGW_MAXLEN] */
#define PG_BGW_TYPE PG_BGW_MAXLEN

/* How many looks at a process of a major we have no type numbers for
 * read its title before it is named by its comm (pg_backend_type). */
#define PG_TITLE_LOOKS 200

/* What distinct statement shapes a backend keeps the id of (see
 * pg_backend_read). */
#define PG_RECENT_IDS 8

struct pg_backend {
	pid_t pid;
	int major;
	/* exported globals (0: the binary has none) */
	uint64_t type_addr, worker_addr, postmaster_pid_addr, beentry_addr, query_size_addr;

	/* its type, once final */
	int32_t type;                  /* MyBackendType; -1 not read */
	bool type_final;               /* never read again */
	unsigned title_looks;          /* titles read without a type in them */
	char type_words[PG_BGW_MAXLEN]; /* "" until known */

	/* its status slot, once it has one */
	uint64_t beentry, activity_addr;
	size_t activity_size;
	bool have_activity;            /* last is a settled reading */
	int32_t last_changecount;
	struct pg_activity last;
	struct {
		uint64_t hash;
		int64_t id;
	} recent[PG_RECENT_IDS];
	unsigned recent_next;

	/* counts, for the summary and for measuring */
	unsigned long reads, syscalls, retries, unsettled, unchanged;
};

/* Looks up the globals of process pid, a server of major version major
 * (pgstate.h's pg_probe tells both), through its modules m.  Costs one
 * pass over the binary's .dynsym (about 0.5 ms for Debian's postgres):
 * once per process, when it is first seen (after an execve, again).  0,
 * or -1 when the binary exports none of them (not a postgres server). */
int pg_backend_open(pid_t pid, struct modules *m, int major, struct pg_backend *out);

/* The process's type in pg_stat_activity.backend_type's words ("client
 * backend", "checkpointer", a background worker's bgw_type such as
 * "logical replication launcher"), or "postmaster" for the postmaster;
 * NULL when it has none yet (a child of the postmaster starting up) or it
 * cannot be read (then name it by its title or comm).  The answer is
 * final once a type is read - a process's type never changes after its
 * start - so a caller may ask at every sample: until then each call costs
 * one or two process_vm_readv (a few µs), after it nothing.
 *
 * A major without type numbers here (pgactivity.h's
 * pg_backend_types_known) is named by its title (pgtitle.h) instead: two
 * reads of /proc (tens of µs) at each call until the title says, at most
 * PG_TITLE_LOOKS calls. */
const char *pg_backend_type(struct pg_backend *b);

/* The type as pg_backend_type last answered it, without reading anything
 * (for the summary, after the run): NULL when it never had one. */
const char *pg_backend_type_last(const struct pg_backend *b);

enum pg_read {
	PG_READ_OK,        /* *out is this instant's status */
	PG_READ_NONE,      /* the process has no status slot (postmaster,
			      logger, a child starting or exiting): no frame */
	PG_READ_UNSETTLED, /* the backend was writing its slot at each of the
			      PG_READ_TRIES reads: *out is the last settled
			      reading (have_activity), if any */
	PG_READ_FAILED,    /* its memory cannot be read (gone) */
};

/* Reads the process's state and statement into *out.  One
 * process_vm_readv (3 iovecs: the 432-byte slot, the statement buffer,
 * st_changecount again), a few µs; docs/postgresql.md has the measured
 * figure.  The first read of a backend costs two more (MyBEEntry, the
 * slot's buffer pointer).  A statement is normalized only when the slot
 * changed since the last read (st_changecount moved), and the backend is
 * active or holds the id of its last statement.
 *
 * When to call: at each sample of the process, before or after its stop,
 * never while we hold it stopped (a backend stopped between its two
 * increments would read as unsettled at every try).  A backend writes its
 * own slot only, so when none of its threads has run since the last read
 * the status cannot have changed: the caller may skip the read and reuse
 * the last activity.
 *
 * While a statement is still being parsed its st_query_id is 0 (the
 * server computes it after parse analysis; pg_stat_activity shows NULL
 * then): the read takes the id the same normalized text had in this
 * backend's last PG_RECENT_IDS shapes - learnt from active reads and from
 * idle ones, whose slot keeps the last statement and its id - so one
 * statement stays one frame; a text never seen with an id keeps 0 (its
 * frame then uses the hash: the first run of a statement, read while it
 * is parsed). */
enum pg_read pg_backend_read(struct pg_backend *b, struct pg_activity *out);

/* The state and statement id now, without the statement: st_changecount,
 * st_procpid, st_state, st_query_id and st_changecount again, in one
 * process_vm_readv of 24 bytes (the report's reads at every tick,
 * activity_reads.h).  *changecount says which writing of the slot it is:
 * the same as before, the same statement.  out gets the state and id
 * only (no text, text_hash 0).  PG_READ_UNSETTLED when caught writing
 * (not tried again); PG_READ_NONE and PG_READ_FAILED as pg_backend_read.
 * Never while we hold the backend stopped (as pg_backend_read). */
enum pg_read pg_backend_peek(struct pg_backend *b, struct pg_activity *out, int32_t *changecount);

/* The same peek in parts, for a call that reads other processes' too
 * (pgprocs.h: the slots are in the instance's shared memory, the same
 * address in each of its processes).  pg_backend_peek_iov fills the
 * PG_PEEK_IOVS iovecs that read the slot into *k: false when the
 * process has no slot (PG_READ_NONE).  Once the call has read all
 * PG_PEEK_BYTES of them, pg_backend_peek_done judges *k as
 * pg_backend_peek does. */
#define PG_PEEK_IOVS 5
struct pg_peek {
	int32_t before;         /* st_changecount */
	int32_t procpid;        /* st_procpid: the slot still its own? */
	int32_t state;          /* st_state */
	int64_t id;             /* st_query_id */
	int32_t after;          /* st_changecount again */
};
#define PG_PEEK_BYTES (4 * sizeof(int32_t) + sizeof(int64_t))
bool pg_backend_peek_iov(struct pg_backend *b, struct pg_peek *k, struct iovec *local,
			 struct iovec *remote);
enum pg_read pg_backend_peek_done(struct pg_backend *b, const struct pg_peek *k,
				  struct pg_activity *out, int32_t *changecount);

#endif
