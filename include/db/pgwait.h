/* pgwait.h - PostgreSQL wait events: versions, names, the state frame.
 *
 * Pure functions (no I/O): the server's version from the text its binary
 * carries or its data directory's PG_VERSION, and the frame a sample gets
 * from the wait_event_info word read with its stack (pgstate.h finds the
 * word).  Names are the ones pg_stat_activity shows, wait_event_type and
 * wait_event, for PostgreSQL 14 to 18; anything a table does not name is
 * printed as its number, never guessed.
 */
#ifndef PTRACE_PROFILER_PGWAIT_H
#define PTRACE_PROFILER_PGWAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/pgwait_tables.h"

/* my_wait_event_info, the pointer to the word, exists from 14 on. */
#define PG_WAIT_FIRST_MAJOR 14

/* 15.18 is { 15, 18 }; 9.6.24 is { 9, 6 } (before 10 the major version had
 * two parts); 17beta1 and 18devel are { 17, -1 } and { 18, -1 }. */
struct pg_version {
	int major;
	int minor;
};

/* The version at the start of text ("15.18 (Debian 15.18-0+deb12u1)",
 * "9.6.24", "17beta1", "15\n" as PG_VERSION holds it): digits, then '.',
 * "beta", "rc", "devel", whitespace or the end.  0, or -1 if it is not one. */
int pg_version_parse(const char *text, size_t len, struct pg_version *v);

/* The version a postgres binary prints for --version: the first
 * "postgres (PostgreSQL) " followed by a version in buf (the binary's
 * bytes).  0, or -1 if there is none. */
int pg_version_in_binary(const void *buf, size_t len, struct pg_version *v);

/* "15", "9.6": the version as PostgreSQL names a major release. */
const char *pg_version_name(const struct pg_version *v, char *buf, size_t len);

/* The table of a major version (>= 10: 15; before, 9 with its minor), or
 * NULL when we have none (older than 14, newer than 18). */
const struct pg_wait_table *pg_wait_table_for(int major);

/* wait_event_type and wait_event of a nonzero word as pg_stat_activity
 * shows them, or NULL when the table does not name it. */
const char *pg_wait_type(const struct pg_wait_table *t, uint32_t word);
const char *pg_wait_name(const struct pg_wait_table *t, uint32_t word);

/* The frame for a sample: "On CPU (PostgreSQL state)" for 0, else
 * "event=TYPE:NAME (PostgreSQL state)" when both are known (t may be NULL),
 * else "event=0xXXXXXXXX (PostgreSQL state)".  Returns strlen(out). */
size_t pg_wait_frame(const struct pg_wait_table *t, uint32_t word, char *out, size_t outsz);

#endif
