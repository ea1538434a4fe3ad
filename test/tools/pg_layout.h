/* pg_layout.h - what a PostgreSQL server's own headers say of the fields
 * and enums the profiler reads (pgbackend.h, pgactivity.h), handed from
 * pg_layout_server.c, compiled against those headers, to pg_layout.c,
 * which compares: two translation units, so that PostgreSQL's headers and
 * ours never meet. */
#ifndef PTRACE_PROFILER_TEST_PG_LAYOUT_H
#define PTRACE_PROFILER_TEST_PG_LAYOUT_H

#include <stddef.h>

struct pg_layout_field {
	const char *name;      /* "PgBackendStatus.st_state" */
	size_t offset, size;   /* offset 0 for a global */
};

struct pg_layout_enum {
	const char *enumerator; /* "B_BACKEND", "STATE_RUNNING" */
	int value;              /* as the headers number it */
	const char *words;      /* pg_stat_activity's: "client backend",
				   "active"; NULL where the view shows NULL */
};

struct pg_layout {
	int major;              /* PG_VERSION_NUM / 10000 */
	const char *version;    /* PG_VERSION_STR */
	const struct pg_layout_field *fields;
	size_t n_fields;
	const struct pg_layout_enum *types, *states;
	size_t n_types, n_states;
	int client, worker;     /* B_BACKEND, B_BG_WORKER */
};

const struct pg_layout *pg_layout_server(void);

#endif
