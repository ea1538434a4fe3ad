/* pgtime.h - the time model --pg-queries puts in the summary: where an
 * instance's samples went, by query.
 *
 * Each sample of a PostgreSQL process that has a query frame (pgactivity.h:
 * "query=ID TEXT" for an active backend, the state's word - "idle",
 * "idle in transaction" - otherwise) is counted under that frame: how many
 * samples, how many of them on a CPU (R (running)), and how many in each
 * wait event (the wait word read with the sample; 0, no event, is not a
 * wait).  The summary then shows the heaviest queries, each with its share
 * of every sample taken, its on-CPU share and its top wait events.
 *
 * Pure (no I/O): a table filled by the sampler, read by the summary.
 */
#ifndef PTRACE_PROFILER_PGTIME_H
#define PTRACE_PROFILER_PGTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash_index.h"
#include "db/pgshape.h"
#include "db/pgwait.h"

#define PG_TIME_EVENT_NAME 64 /* "IO:WALSync", "LWLock:BufferContent"... */

struct pg_time_event {
	uint32_t word;
	uint64_t samples;
	char name[PG_TIME_EVENT_NAME]; /* as pg_stat_activity names it */
};

struct pg_time_entry {
	char *frame;             /* "query=ID TEXT", or a state's word */
	uint64_t samples, on_cpu;
	struct pg_time_event *events; /* by word, in first-seen order */
	size_t n_events, cap_events;
};

struct pg_time {
	struct pg_time_entry *e;
	size_t n, cap;
	struct hash_index ix;    /* frame -> index in e */
	bool ix_ok;
	uint64_t renamed_samples; /* pg_time_merge_shapes: the samples it
				     moved to their statement's id */
};

/* An empty table (nothing allocated until the first entry). */
#define PG_TIME_INIT { NULL, 0, 0, { NULL, 0, 0 }, false, 0 }
void pg_time_free(struct pg_time *t);

/* Is frame a query ("query=..."), not a state's word? */
bool pg_time_is_query(const char *frame);

/* The index of frame's entry, made at its first sight; -1 when out of
 * memory.  Cheap to keep: an entry's index never changes. */
long pg_time_entry(struct pg_time *t, const char *frame);

/* Counts count samples under entry i: on a CPU or not, and in the wait
 * event word (named after table, the process's version's; NULL: by
 * number) when has_word.  0, or -1 when out of memory (then nothing is
 * counted). */
int pg_time_add(struct pg_time *t, size_t i, uint64_t count, bool on_cpu, bool has_word,
		uint32_t word, const struct pg_wait_table *table);

/* After the run (pgshape.h): each query entry whose frame pg_shape_frame
 * renames is counted under the new frame - samples, on-CPU samples and
 * wait events added to that frame's entry where there is one - so that a
 * statement read while it was parsed and the same statement with the
 * server's id are one entry.  Entries keep their first-seen order (a
 * merged one where the first of its frames was); every index
 * pg_time_entry gave before is void; renamed_samples grows by the samples
 * of the renamed entries.  Returns how many entries were renamed (0:
 * nothing changed), or -1 when out of memory (then nothing changed
 * either). */
long pg_time_merge_shapes(struct pg_time *t, const struct pg_shape_ids *m);

/* The entries whose frame is a query, heaviest first (ties: first seen
 * first): up to max of their indices into out.  Returns how many. */
size_t pg_time_top(const struct pg_time *t, size_t *out, size_t max);

/* Entry e's wait events, heaviest first (ties: first seen first), word 0
 * (no event) left out: up to max pointers into out.  Returns how many. */
size_t pg_time_top_events(const struct pg_time_entry *e, const struct pg_time_event **out,
			  size_t max);

#endif
