/* pgactivity.c - backend types, states and the query frame (pgactivity.h).
 *
 * Backend type names are GetBackendTypeDesc()'s, which pg_stat_activity
 * shows, indexed by MyBackendType's value:
 *   14, 16: the BackendType enum of their headers (pgrx's bindgen output
 *           of 14.13 and 16.4, pgrx-pg-sys/src/include/pg14.rs, pg16.rs)
 *           and the names as 15 and 17 spell them ("stats collector", 14's
 *           only, as 14's miscinit.c names it; no 14 or 16 server was at
 *           hand to check);
 *   15, 17, 18: read out of Debian's 15.18, 17.12 and 18.6 servers, each
 *           number's case of their own GetBackendTypeDesc() followed to its
 *           string (its jump table, under gdb), and the enum in their
 *           miscadmin.h (postgresql-server-dev-15, -17, -18); 15's enum
 *           numbers checked by test/tools/pg_layout (make pg-layout)
 *           wherever its headers are installed, as any other major's.
 * BackendState is the same 14 to 17 (backend_status.h, the same sources);
 * 18 put STATE_STARTING second (18.6's backend_status.h).
 */
#include "db/pgactivity.h"
#include "db/pgshape.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/frame.h"

struct type_names {
	int major;
	const char *const *names;
	size_t n;
	int32_t client, worker; /* B_BACKEND, B_BG_WORKER */
};

static const char *const pg14_types[] = {
	NULL, "autovacuum launcher", "autovacuum worker", "client backend", "background worker",
	"background writer", "checkpointer", "startup", "walreceiver", "walsender", "walwriter",
	"archiver", "stats collector", "logger",
};
static const char *const pg15_types[] = {
	NULL, "autovacuum launcher", "autovacuum worker", "client backend", "background worker",
	"background writer", "checkpointer", "startup", "walreceiver", "walsender", "walwriter",
	"archiver", "logger",
};
static const char *const pg16_types[] = {
	NULL, "archiver", "autovacuum launcher", "autovacuum worker", "client backend",
	"background worker", "background writer", "checkpointer", "logger", "standalone backend",
	"startup", "walreceiver", "walsender", "walwriter",
};
static const char *const pg17_types[] = {
	NULL, "client backend", "autovacuum launcher", "autovacuum worker", "background worker",
	"walsender", "slotsync worker", "standalone backend", "archiver", "background writer",
	"checkpointer", "startup", "walreceiver", "walsummarizer", "walwriter", "logger",
};
static const char *const pg18_types[] = {
	NULL, "client backend", "dead-end client backend", "autovacuum launcher",
	"autovacuum worker", "background worker", "walsender", "slotsync worker",
	"standalone backend", "archiver", "background writer", "checkpointer", "io worker",
	"startup", "walreceiver", "walsummarizer", "walwriter", "logger",
};

#define TYPES(major, a, client, worker) { major, a, sizeof(a) / sizeof(a[0]), client, worker }
static const struct type_names type_tables[] = {
	TYPES(14, pg14_types, 3, 4),
	TYPES(15, pg15_types, 3, 4),
	TYPES(16, pg16_types, 4, 5),
	TYPES(17, pg17_types, 1, 4),
	TYPES(18, pg18_types, 1, 5),
};

static const struct type_names *types_of(int major)
{
	for (size_t i = 0; i < sizeof(type_tables) / sizeof(type_tables[0]); i++)
		if (type_tables[i].major == major)
			return &type_tables[i];
	return NULL;
}

const char *pg_backend_type_name(int major, int32_t type)
{
	const struct type_names *t = types_of(major);
	return t && type >= 0 && (size_t)type < t->n ? t->names[type] : NULL;
}

bool pg_backend_type_worker(int major, int32_t type)
{
	const struct type_names *t = types_of(major);
	return t && type == t->worker;
}

bool pg_backend_type_client(int major, int32_t type)
{
	const struct type_names *t = types_of(major);
	return t && type == t->client;
}

bool pg_backend_types_known(int major)
{
	return types_of(major) != NULL;
}

bool pg_backend_type_spelled(const char *words, size_t n)
{
	for (size_t i = 0; i < sizeof(type_tables) / sizeof(type_tables[0]); i++)
		for (size_t k = 0; k < type_tables[i].n; k++) {
			const char *name = type_tables[i].names[k];
			if (name && strlen(name) == n && memcmp(name, words, n) == 0)
				return true;
		}
	return false;
}

bool pg_backend_type_reports(int major, int32_t type)
{
	static const char *const reporting[] = {
		"client backend", "walsender", "autovacuum worker", "standalone backend",
	};
	if (pg_backend_type_worker(major, type))
		return true;
	const char *name = pg_backend_type_name(major, type);
	for (size_t i = 0; name && i < sizeof(reporting) / sizeof(reporting[0]); i++)
		if (strcmp(name, reporting[i]) == 0)
			return true;
	return false;
}

enum pg_state pg_state_of(int major, int32_t st_state)
{
	/* 14-17: UNDEFINED, IDLE, RUNNING, IDLEINTRANSACTION, FASTPATH,
	 * IDLEINTRANSACTION_ABORTED, DISABLED; 18 has STARTING second */
	static const enum pg_state before18[] = {
		PG_STATE_NONE, PG_STATE_IDLE, PG_STATE_ACTIVE, PG_STATE_IDLE_IN_TRANSACTION,
		PG_STATE_FASTPATH, PG_STATE_IDLE_IN_TRANSACTION_ABORTED, PG_STATE_DISABLED,
	};
	static const enum pg_state from18[] = {
		PG_STATE_NONE, PG_STATE_STARTING, PG_STATE_IDLE, PG_STATE_ACTIVE,
		PG_STATE_IDLE_IN_TRANSACTION, PG_STATE_FASTPATH,
		PG_STATE_IDLE_IN_TRANSACTION_ABORTED, PG_STATE_DISABLED,
	};
	if (major >= 14 && major < 18 && st_state >= 0 && st_state < 7)
		return before18[st_state];
	if (major == 18 && st_state >= 0 && st_state < 8)
		return from18[st_state];
	return PG_STATE_UNKNOWN;
}

const char *pg_state_name(enum pg_state s)
{
	switch (s) {
	case PG_STATE_STARTING:
		return "starting";
	case PG_STATE_IDLE:
		return "idle";
	case PG_STATE_ACTIVE:
		return "active";
	case PG_STATE_IDLE_IN_TRANSACTION:
		return "idle in transaction";
	case PG_STATE_FASTPATH:
		return "fastpath function call";
	case PG_STATE_IDLE_IN_TRANSACTION_ABORTED:
		return "idle in transaction (aborted)";
	case PG_STATE_DISABLED:
		return "disabled";
	default:
		return NULL;
	}
}

size_t pg_query_frame(const struct pg_activity *a, char *out, size_t outsz)
{
	char text[sizeof(a->text) + 40];
	if (a->state == PG_STATE_ACTIVE) {
		if (a->query_id)
			snprintf(text, sizeof(text), "query=%" PRId64 "%s%s", a->query_id,
				 a->text[0] ? " " : "", a->text);
		else
			snprintf(text, sizeof(text), PG_HASH_FRAME_PREFIX "%" PRId64 "%s%s",
				 (int64_t)a->text_hash, a->text[0] ? " " : "", a->text);
		return frame_sanitize(text, out, outsz);
	}
	const char *word = pg_state_name(a->state);
	if (!word) {
		if (outsz)
			out[0] = '\0';
		return 0;
	}
	return frame_sanitize(word, out, outsz);
}

bool pg_wait_is_idle(const struct pg_wait_table *t, uint32_t word, bool client,
		     enum pg_state state)
{
	const char *type = pg_wait_type(t, word), *name = pg_wait_name(t, word);
	/* without a table (a version we do not name), by number: Activity is
	 * class 5 and ClientRead event 0 of class 6 from 9.6 to 18 */
	bool activity = type ? strcmp(type, "Activity") == 0 : word >> 24 == 0x05;
	bool client_read = type && name ? strcmp(type, "Client") == 0 && strcmp(name, "ClientRead") == 0
					: word == 0x06000000;
	if (activity)
		return true;
	return client_read && client && (state == PG_STATE_IDLE || state == PG_STATE_UNKNOWN);
}
