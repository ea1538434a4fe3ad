/* pgtitle.h - a PostgreSQL process's type from its process title.
 *
 * For a server whose major version this build has no tables for (newer
 * than 18, or a version it cannot tell): MyBackendType's numbers change
 * from one major to the next (pgactivity.h), so they are not read there;
 * the title is.  From 13 on every child of the postmaster sets its title
 * once it knows what it is ("postgres: " then, with cluster_name set,
 * "NAME: "), and the words that follow are:
 *   an auxiliary process   its type as pg_stat_activity.backend_type
 *                          spells it, then what it does now ("checkpointer",
 *                          "startup recovering 000000010000000000000003",
 *                          "walreceiver streaming 0/3000148");
 *   a walsender            "walsender USER HOST ...";
 *   a background worker    its bgw_name ("logical replication launcher",
 *                          "parallel worker for PID 1234");
 *   a client backend       "USER DATABASE HOST ACTIVITY", HOST "[local]"
 *                          or an address with its port in parentheses.
 * Until then a child carries the postmaster's command line, which is no
 * title (title.h): ask again later.  Pure: no I/O.
 */
#ifndef PTRACE_PROFILER_PGTITLE_H
#define PTRACE_PROFILER_PGTITLE_H

#include <stddef.h>

/* The type words in title (title.h's process_title, without the spaces
 * at its ends) into out: a type word every known major spells (the
 * longest that starts the title's words: "autovacuum worker", "parallel
 * worker", "logical replication apply worker"), else "client backend" for
 * a session's title, else the title's words after its prefixes (a
 * background worker's own name).  Returns strlen(out); 0 (out "") when
 * title is not a PostgreSQL process title. */
size_t pg_title_type(const char *title, char *out, size_t outsz);

#endif
