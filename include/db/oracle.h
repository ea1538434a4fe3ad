/* oracle.h - the Oracle session state from the SGA, and event names.
 *
 * An Oracle server process keeps its session's current wait in X$KSUSE:
 * KSUSEOPC is the event number, KSUSETIM the time of the last wait (> 0
 * once the wait is over: the session is on CPU).  Both are 4-byte fields in
 * the shared SGA, at addresses the SQL in oracle_scripts/ prints.  Reading
 * them in the same stop as the registers makes the Oracle state and the
 * stacks describe the same instant.
 */
#ifndef PTRACE_PROFILER_ORACLE_H
#define PTRACE_PROFILER_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "140737488355328" (as the SQL prints it) or "0x7fff00001000": a nonzero
 * address.  Returns 0 or -1. */
int parse_address(const char *text, uint64_t *out);

/* Event number -> name, from either file format (see oracle_names_load). */
struct event_names;

/* Reads FILE: the sed script oracle_scripts/eventsname.sql spools, lines
 *     s/\<event#=N\>/event=NAME/g      (a '/' in NAME written "\/")
 * or plain lines "N<TAB>NAME".  Blank lines and lines starting with '#'
 * are skipped.  On a malformed line returns NULL with "FILE:LINE: why" in
 * err. */
struct event_names *oracle_names_load(const char *path, char *err, size_t errlen);

/* The same from a stream already open (path only names it in errors). */
struct event_names *oracle_names_read(FILE *f, const char *path, char *err, size_t errlen);

void oracle_names_free(struct event_names *n);

/* The name of event number ev, or NULL. */
const char *oracle_event_name(const struct event_names *n, uint32_t ev);

/* The frame for a sample: "On CPU (Oracle state)" when ksusetim > 0, else
 * "event=NAME (Oracle state)" when the name is known (names may be NULL),
 * else "event#=N (Oracle state)" - the original tool's text, which its
 * sed file rewrites.  Sanitized.  Returns strlen(out). */
size_t oracle_state_frame(uint32_t ksuseopc, int32_t ksusetim,
			  const struct event_names *names, char *out, size_t outsz);

/* The same for the words a copy read (read false: they could not be, and
 * the frame is "[unreadable] (Oracle state)"), as every mode writes it.
 * Returns out. */
const char *oracle_words_frame(bool read, uint32_t ksuseopc, int32_t ksusetim,
			       const struct event_names *names, char *out, size_t outsz);

#endif
