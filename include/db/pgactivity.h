/* pgactivity.h - what pg_stat_activity says of a process, as frame words.
 *
 * Pure functions (no I/O) over numbers pgbackend.h reads from a server
 * process's memory: its backend type (MyBackendType), its state and
 * statement (PgBackendStatus's st_state, st_query_id, st_activity_raw).
 * The words are pg_stat_activity's, for PostgreSQL 14 to 18, whose enums
 * differ: BackendType was reordered in 16, 17 and 18, BackendState gained
 * STATE_STARTING in 18 (src/db/pgactivity.c says where each was checked).
 */
#ifndef PTRACE_PROFILER_PGACTIVITY_H
#define PTRACE_PROFILER_PGACTIVITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/pgquery.h"
#include "db/pgwait.h"

/* pg_stat_activity.backend_type of MyBackendType's value type under major
 * version major: "client backend", "checkpointer", "autovacuum worker"...;
 * NULL for 0 (B_INVALID: the postmaster, a child not yet started) and for
 * numbers or versions we have no name for.  A background worker
 * (B_BG_WORKER, "background worker") is shown by its bgw_type instead
 * ("logical replication launcher", "parallel worker"): pgbackend.h reads
 * it.  pg_backend_type_worker says which number that is. */
const char *pg_backend_type_name(int major, int32_t type);
bool pg_backend_type_worker(int major, int32_t type);
bool pg_backend_type_client(int major, int32_t type); /* "client backend" */

/* Has this build the type numbers of major (14 to 18)?  Without them a
 * server's types come from its titles (pgtitle.h), and its status, whose
 * layout may have changed too, is not read. */
bool pg_backend_types_known(int major);

/* Is words[0..n) a type some known major spells ("checkpointer",
 * "autovacuum worker")? */
bool pg_backend_type_spelled(const char *words, size_t n);

/* Does a process of this type report a state and statement in its status
 * (pgstat_report_activity)?  Client backends, walsenders (replication
 * commands), autovacuum workers ("autovacuum: VACUUM ..."), standalone
 * backends and background workers (parallel workers, logical
 * replication's) do; the auxiliary processes and the postmaster never
 * do: pg_stat_activity.state is NULL for them, always. */
bool pg_backend_type_reports(int major, int32_t type);

/* PgBackendStatus.st_state, the same for every version. */
enum pg_state {
	PG_STATE_NONE,      /* STATE_UNDEFINED: not a client session (checkpointer...) */
	PG_STATE_STARTING,  /* 18: authenticating */
	PG_STATE_IDLE,
	PG_STATE_ACTIVE,    /* running a statement */
	PG_STATE_IDLE_IN_TRANSACTION,
	PG_STATE_FASTPATH,
	PG_STATE_IDLE_IN_TRANSACTION_ABORTED,
	PG_STATE_DISABLED,  /* track_activities is off */
	PG_STATE_UNKNOWN,   /* a number its version does not have */
};

enum pg_state pg_state_of(int major, int32_t st_state);

/* pg_stat_activity.state's word: "active", "idle", "idle in transaction",
 * "idle in transaction (aborted)", "fastpath function call", "disabled",
 * "starting"; NULL for PG_STATE_NONE and PG_STATE_UNKNOWN (the view shows
 * NULL). */
const char *pg_state_name(enum pg_state s);

/* A settled reading of one backend's status. */
struct pg_activity {
	enum pg_state state;
	/* st_query_id as pg_stat_activity.query_id prints it (a bigint: the
	 * 64 bits read as signed); 0 when the server computed none. */
	int64_t query_id;
	/* FNV-1a 64 of the normalized statement (pgquery.h), and its first
	 * PG_QUERY_TEXT_MAX bytes; only for PG_STATE_ACTIVE. */
	uint64_t text_hash;
	char text[PG_QUERY_TEXT_MAX + 1];
};

/* The frame --pg-queries gives a sample: for an active backend
 * "query=ID TEXT" - ID is query_id in decimal - or, when that is 0
 * (compute_query_id off, or not yet computed), "query=hash:N TEXT", N the
 * text_hash read as a signed 64-bit number: the same shape is one frame,
 * and never passes for the server's id (pg_stat_activity shows NULL
 * then); else the state's word ("idle", "idle in transaction"...).
 * Sanitized (frame.h).  Returns strlen(out); 0 (out "") when the process
 * has no such state (a checkpointer, the postmaster): no frame. */
size_t pg_query_frame(const struct pg_activity *a, char *out, size_t outsz);

/* Is the wait word (of a process of major version t->major) PostgreSQL's
 * idle wait, what --no-idle leaves out?  Every event of the Activity class
 * (an auxiliary process's main loop: CheckpointerMain, WalWriterMain...),
 * and Client:ClientRead of a client backend that is idle between
 * statements: client says whether it is a client backend
 * (pg_backend_type_client), state is its state, PG_STATE_UNKNOWN when not
 * read (then ClientRead of a client backend counts as idle).  A
 * ClientRead while active (COPY FROM STDIN reads its data so) or idle in
 * a transaction (a session holding locks while its client thinks) is not
 * idle: that is time the database waits on its client. */
bool pg_wait_is_idle(const struct pg_wait_table *t, uint32_t word, bool client,
		     enum pg_state state);

#endif
