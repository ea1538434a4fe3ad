/* pg_layout_server.c - the server's side of pg_layout (pg_layout.h):
 * offsetof() and sizeof() of what pgbackend.c reads, and the enumerators
 * it numbers, taken from PostgreSQL's own server headers (-I the
 * includedir-server of a postgresql-server-dev-N).  Nothing here is
 * linked against the server: sizeof of an extern does not reference it. */
#include "postgres.h"

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "utils/backend_status.h"
#include "utils/wait_event.h"

#include "pg_layout.h"

#if PG_VERSION_NUM < 140000
#error "the profiler reads PostgreSQL 14 and later"
#endif

#define FIELD(type, member) \
	{ #type "." #member, offsetof(type, member), sizeof(((type *)0)->member) }
#define GLOBAL(name) { #name, 0, sizeof(name) }

static const struct pg_layout_field fields[] = {
	FIELD(PgBackendStatus, st_changecount),
	FIELD(PgBackendStatus, st_procpid),
	FIELD(PgBackendStatus, st_state),
	FIELD(PgBackendStatus, st_activity_raw),
	FIELD(PgBackendStatus, st_query_id),
	FIELD(BackgroundWorker, bgw_type),
	GLOBAL(MyBackendType),
	GLOBAL(PostmasterPid),
	GLOBAL(MyBEEntry),
	GLOBAL(MyBgworkerEntry),
	GLOBAL(pgstat_track_activity_query_size),
	{ "*my_wait_event_info", 0, sizeof(*my_wait_event_info) },
};

/* GetBackendTypeDesc()'s words for each enumerator the version has */
#define TYPE(e, words) { #e, e, words }
static const struct pg_layout_enum types[] = {
	TYPE(B_INVALID, NULL),
	TYPE(B_AUTOVAC_LAUNCHER, "autovacuum launcher"),
	TYPE(B_AUTOVAC_WORKER, "autovacuum worker"),
	TYPE(B_BACKEND, "client backend"),
	TYPE(B_BG_WORKER, "background worker"),
	TYPE(B_BG_WRITER, "background writer"),
	TYPE(B_CHECKPOINTER, "checkpointer"),
	TYPE(B_STARTUP, "startup"),
	TYPE(B_WAL_RECEIVER, "walreceiver"),
	TYPE(B_WAL_SENDER, "walsender"),
	TYPE(B_WAL_WRITER, "walwriter"),
	TYPE(B_ARCHIVER, "archiver"),
	TYPE(B_LOGGER, "logger"),
#if PG_VERSION_NUM < 150000
	TYPE(B_STATS_COLLECTOR, "stats collector"),
#endif
#if PG_VERSION_NUM >= 160000
	TYPE(B_STANDALONE_BACKEND, "standalone backend"),
#endif
#if PG_VERSION_NUM >= 170000
	TYPE(B_SLOTSYNC_WORKER, "slotsync worker"),
	TYPE(B_WAL_SUMMARIZER, "walsummarizer"),
#endif
#if PG_VERSION_NUM >= 180000
	TYPE(B_DEAD_END_BACKEND, "dead-end client backend"),
	TYPE(B_IO_WORKER, "io worker"),
#endif
};

/* pg_stat_activity.state's words */
static const struct pg_layout_enum states[] = {
	TYPE(STATE_UNDEFINED, NULL),
	TYPE(STATE_IDLE, "idle"),
	TYPE(STATE_RUNNING, "active"),
	TYPE(STATE_IDLEINTRANSACTION, "idle in transaction"),
	TYPE(STATE_FASTPATH, "fastpath function call"),
	TYPE(STATE_IDLEINTRANSACTION_ABORTED, "idle in transaction (aborted)"),
	TYPE(STATE_DISABLED, "disabled"),
#if PG_VERSION_NUM >= 180000
	TYPE(STATE_STARTING, "starting"),
#endif
};

static const struct pg_layout layout = {
	.major = PG_VERSION_NUM / 10000,
	.version = PG_VERSION_STR,
	.fields = fields,
	.n_fields = sizeof(fields) / sizeof(fields[0]),
	.types = types,
	.n_types = sizeof(types) / sizeof(types[0]),
	.states = states,
	.n_states = sizeof(states) / sizeof(states[0]),
	.client = B_BACKEND,
	.worker = B_BG_WORKER,
};

const struct pg_layout *pg_layout_server(void)
{
	return &layout;
}
