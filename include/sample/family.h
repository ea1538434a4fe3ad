/* family.h - the processes a run follows besides the ones it was given:
 * --subprocesses seizes the children of every process it traces, present
 * and future, as they appear (their children are found in turn); and
 * every process's execve, after which its addresses mean another program.
 * With --pg-wait-events a PostgreSQL process is probed for its wait event
 * word when it is first seen and after each execve. */
#ifndef PTRACE_PROFILER_SAMPLE_FAMILY_H
#define PTRACE_PROFILER_SAMPLE_FAMILY_H

#include "sample/state.h"

/* How often the children are looked for. */
#define FAMILY_SCAN_NS 50000000ULL

/* --pg-wait-events: where process p keeps its wait event, looked up once
 * (and again after an execve).  A process that is not a PostgreSQL server
 * is said once on stderr; one too old for it (13 or earlier) is left to
 * the caller, with the reason in msg. */
enum pg_probe family_probe_pg(struct sampler *s, struct process *p, char *msg, size_t len);

/* Seizes the children not traced yet of every process traced. */
void family_follow(struct sampler *s);

#endif
