/* pgwait_tables.h - the PostgreSQL wait event tables behind pgwait.h.
 *
 * A PostgreSQL process keeps its current wait in one 32-bit word,
 * wait_event_info: the class in the top byte (PG_WAIT_LWLOCK 0x01,
 * PG_WAIT_LOCK 0x03, BufferPin 0x04, Activity 0x05, Client 0x06, Extension
 * 0x07, IPC 0x08, Timeout 0x09, IO 0x0A, and from 17 InjectionPoint 0x0B),
 * the event id in the low 16 bits, 0 when it waits for nothing.  The
 * numbering is the order of C enums that change with every major version,
 * so each version has its own table (src/pgwait_tables.c says where each
 * was checked).
 */
#ifndef PTRACE_PROFILER_PGWAIT_TABLES_H
#define PTRACE_PROFILER_PGWAIT_TABLES_H

#include <stddef.h>
#include <stdint.h>

struct pg_wait_class {
	uint8_t id;                 /* wait_event_info >> 24 */
	const char *type;           /* as pg_stat_activity.wait_event_type */
	const char *const *events;  /* by event id, as pg_stat_activity.wait_event;
				       NULL: not an id this version names */
	size_t n_events;
	const char *any;            /* a class whose every id has this one name
				       (BufferPin and Extension before 17) */
};

struct pg_wait_table {
	int major;
	unsigned first_user_tranche; /* LWLock ids from here: extensions' */
	const struct pg_wait_class *classes;
	size_t n_classes;
};

extern const struct pg_wait_table pg_wait_tables[];
extern const size_t pg_wait_n_tables;

#endif
