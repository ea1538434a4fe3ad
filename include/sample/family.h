/* family.h - the processes a run follows besides the ones it was given:
 * --subprocesses seizes the children of every process it traces, present
 * and future, as they appear (their children are found in turn); and
 * every process's execve, after which its addresses mean another program.
 * Each process is looked at when it is first seen and after each execve:
 * a PostgreSQL server process for its backend type and status (and with
 * --pg-wait-events or --pg-queries its wait event word), another program
 * for the title it gave itself. */
#ifndef PTRACE_PROFILER_SAMPLE_FAMILY_H
#define PTRACE_PROFILER_SAMPLE_FAMILY_H

#include "sample/records.h"

/* How often the children are looked for. */
#define FAMILY_SCAN_NS 50000000ULL

/* At most this many processes seized by one scan: each costs a read of
 * its modules (about 1 ms), and a fork bomb makes hundreds between two
 * scans; the rest wait for the next scan, after the next round, and the
 * summary says so. */
#define FAMILY_SEIZE_MAX 32

/* Who process p is, looked up once (and again after an execve): its
 * backend type and status slot if it is a PostgreSQL server, else its
 * title; with --pg-wait-events or --pg-queries where it keeps its wait
 * event.  Then a process that is not a PostgreSQL server is said once on
 * stderr, and one too old (13 or earlier) is left to the caller with the
 * reason in msg; without them it is PG_PROBE_SERVER whatever p is. */
enum pg_probe family_probe_pg(struct sampler *s, struct process *p, char *msg, size_t len);

/* Seizes the children not traced yet of every process traced, up to
 * FAMILY_SEIZE_MAX of them.  false: some were left for the next scan
 * (r->family_deferred counts such scans). */
bool family_follow(struct sampler *s);

#endif
