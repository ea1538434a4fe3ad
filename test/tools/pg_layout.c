/* pg_layout - checks what the profiler assumes of a PostgreSQL server's
 * memory against that server's own headers: the PG_ST_* offsets and the
 * sizes pgbackend.c reads (pgbackend.h), and the BackendType and
 * BackendState numbers pgactivity.c names (pg_backend_type_name,
 * pg_state_of).  Built per major version against Debian's
 * postgresql-server-dev-N (make pg-layout); test/integration/81-pg-layout.sh
 * runs it for each one installed.
 *
 *   pg_layout      one line per check, "ok" or "MISMATCH"; exit 0 when
 *                  every one agrees, 1 otherwise
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "db/pgactivity.h"
#include "db/pgbackend.h"
#include "pg_layout.h"

/* What pgbackend.c and pgstate.c assume: where, and as what size they read */
static const struct pg_layout_field ours[] = {
	{ "PgBackendStatus.st_changecount", PG_ST_CHANGECOUNT, sizeof(int32_t) },
	{ "PgBackendStatus.st_procpid", PG_ST_PROCPID, sizeof(int32_t) },
	{ "PgBackendStatus.st_state", PG_ST_STATE, sizeof(int32_t) },
	{ "PgBackendStatus.st_activity_raw", PG_ST_ACTIVITY_RAW, sizeof(uint64_t) },
	{ "PgBackendStatus.st_query_id", PG_ST_QUERY_ID, sizeof(int64_t) },
	{ "BackgroundWorker.bgw_type", PG_BGW_TYPE, PG_BGW_MAXLEN },
	{ "MyBackendType", 0, sizeof(int32_t) },
	{ "PostmasterPid", 0, sizeof(int32_t) },
	{ "MyBEEntry", 0, sizeof(uint64_t) },
	{ "MyBgworkerEntry", 0, sizeof(uint64_t) },
	{ "pgstat_track_activity_query_size", 0, sizeof(int32_t) },
	{ "*my_wait_event_info", 0, sizeof(uint32_t) },
};

static int failures;

static void verdict(bool ok, const char *what, const char *detail)
{
	printf("%-9s %s%s%s\n", ok ? "ok" : "MISMATCH", what, detail[0] ? ": " : "", detail);
	failures += !ok;
}

static const struct pg_layout_field *ours_of(const char *name)
{
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (strcmp(ours[i].name, name) == 0)
			return &ours[i];
	return NULL;
}

static void check_fields(const struct pg_layout *l)
{
	char detail[160];
	for (size_t i = 0; i < l->n_fields; i++) {
		const struct pg_layout_field *f = &l->fields[i], *o = ours_of(f->name);
		if (!o) {
			verdict(false, f->name, "the profiler has no constant for it");
			continue;
		}
		snprintf(detail, sizeof(detail), "offset %zu size %zu, the profiler's %zu and %zu",
			 f->offset, f->size, o->offset, o->size);
		verdict(f->offset == o->offset && f->size == o->size, f->name, detail);
	}
	/* a read copies the slot up to st_query_id's end */
	for (size_t i = 0; i < l->n_fields; i++)
		if (strcmp(l->fields[i].name, "PgBackendStatus.st_query_id") == 0) {
			size_t end = l->fields[i].offset + l->fields[i].size;
			snprintf(detail, sizeof(detail), "%zu, PG_ST_SIZE %d", end, PG_ST_SIZE);
			verdict(end == PG_ST_SIZE, "PgBackendStatus up to st_query_id's end", detail);
		}
}

static bool same_words(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static void check_types(const struct pg_layout *l)
{
	char what[96], detail[200];
	int highest = 0;
	for (size_t i = 0; i < l->n_types; i++) {
		const struct pg_layout_enum *e = &l->types[i];
		const char *mine = pg_backend_type_name(l->major, e->value);
		snprintf(what, sizeof(what), "BackendType %s = %d", e->enumerator, e->value);
		snprintf(detail, sizeof(detail), "'%s', the profiler's '%s'", e->words ? e->words : "(none)",
			 mine ? mine : "(none)");
		verdict(same_words(e->words, mine), what, detail);
		if (e->value > highest)
			highest = e->value;
	}
	const char *beyond = pg_backend_type_name(l->major, highest + 1);
	snprintf(detail, sizeof(detail), "the profiler names %d: '%s'", highest + 1,
		 beyond ? beyond : "(none)");
	verdict(!beyond, "BackendType: no number beyond the last enumerator", beyond ? detail : "");
	snprintf(what, sizeof(what), "B_BACKEND = %d is the client backend", l->client);
	verdict(pg_backend_type_client(l->major, l->client), what, "");
	snprintf(what, sizeof(what), "B_BG_WORKER = %d is the background worker", l->worker);
	verdict(pg_backend_type_worker(l->major, l->worker), what, "");
}

static void check_states(const struct pg_layout *l)
{
	char what[96], detail[200];
	int highest = 0;
	for (size_t i = 0; i < l->n_states; i++) {
		const struct pg_layout_enum *e = &l->states[i];
		enum pg_state s = pg_state_of(l->major, e->value);
		const char *mine = pg_state_name(s);
		snprintf(what, sizeof(what), "BackendState %s = %d", e->enumerator, e->value);
		snprintf(detail, sizeof(detail), "'%s', the profiler's '%s'", e->words ? e->words : "(none)",
			 mine ? mine : "(none)");
		/* the view's NULL: our "not a session", not a number we do not know */
		verdict(same_words(e->words, mine) && s != PG_STATE_UNKNOWN, what, detail);
		if (e->value > highest)
			highest = e->value;
	}
	verdict(pg_state_of(l->major, highest + 1) == PG_STATE_UNKNOWN,
		"BackendState: no number beyond the last enumerator", "");
}

int main(void)
{
	const struct pg_layout *l = pg_layout_server();
	printf("# %s: headers of major %d\n", l->version, l->major);
	check_fields(l);
	check_types(l);
	check_states(l);
	printf("# %s: %d mismatch%s\n", failures ? "FAILED" : "agreed", failures,
	       failures == 1 ? "" : "es");
	return failures ? 1 : 0;
}
