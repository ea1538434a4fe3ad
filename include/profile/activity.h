/* activity.h - what every process of an instance waited on at each tick,
 * read without a stop, kept as a series of 100 ms buckets for the
 * report's chart (out_html.c).
 *
 * The stacks need a stop, and --max-overhead spaces them: a PostgreSQL
 * instance under pgbench -c 4 at -d 1ms --max-overhead 1% gets about 20
 * rounds a second.  A process's wait event word is one small
 * process_vm_readv (sample/activity_reads.h), so it can be read at the
 * asked rate between the rounds.  Each read is counted in its bucket
 * under three texts: the process's root frame ("postgres[42] client
 * backend", as its stacks' root), its state frame ("event=IO:WALSync
 * (PostgreSQL state)", "On CPU (PostgreSQL state)") and, with
 * --pg-queries, its statement's frame ("query=ID TEXT", "idle"); each bucket also
 * counts its ticks, so that a bucket's average active processes is its
 * reads over its ticks, however the ticks were spaced.
 *
 * Memory: the texts (one copy each) and the current bucket's cells; a
 * bucket is written to an unlinked temporary file when the next begins
 * (20 bytes a cell: ~10 cells a bucket for 4 busy backends), and read
 * back after the run.
 */
#ifndef PTRACE_PROFILER_ACTIVITY_H
#define PTRACE_PROFILER_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#define ACTIVITY_BUCKET_NS 100000000ULL /* the report's smallest bucket */
#define ACTIVITY_NONE UINT32_MAX        /* no text: out of memory */

struct activity;

/* An empty series whose bucket 0 begins at start_ns (now_ns's clock).
 * NULL with errno set: ENOMEM, or tmpfile's error. */
struct activity *activity_new(uint64_t start_ns);
void activity_free(struct activity *a);

/* The id of text, the same for the same text (its first sight copies
 * it); ACTIVITY_NONE when out of memory. */
uint32_t activity_text_id(struct activity *a, const char *text);

/* The text of id (activity_text_id's); NULL for an id it never gave. */
const char *activity_text(const struct activity *a, uint32_t id);

/* A tick at now_ns: its bucket is the current one from now on (the one
 * before, if it ends, written; a time before the current bucket's start
 * counts in the current one).  Returns the current bucket's number. */
uint32_t activity_tick(struct activity *a, uint64_t now_ns);

/* One read of the current tick: the process whose root frame is text
 * root, in the state of text event, in the statement of text query
 * (ACTIVITY_NONE: none read). */
void activity_add(struct activity *a, uint32_t root, uint32_t event, uint32_t query);

/* The series is complete: the current bucket written.  0, or the errno
 * of the first write that failed (also kept: activity_pass fails). */
int activity_end(struct activity *a);

/* One cell of a bucket: count reads of root in event and query; or, with
 * root ACTIVITY_NONE, the bucket's ticks (event and query ACTIVITY_NONE
 * too). */
struct activity_row {
	uint32_t bucket; /* (its start - start_ns) / ACTIVITY_BUCKET_NS */
	uint32_t root;   /* a text id, or ACTIVITY_NONE: the ticks' row */
	uint32_t event;  /* a text id */
	uint32_t query;  /* a text id, or ACTIVITY_NONE: no statement read */
	uint32_t count;
};

/* After activity_end: every row, by bucket in time order (its ticks'
 * row first), to fn, which may stop the pass by returning nonzero (that
 * value is returned).  0, or -1 with errno when the file cannot be read
 * or a write to it had failed. */
int activity_pass(struct activity *a, int (*fn)(const struct activity_row *, void *), void *arg);

/* How many reads and ticks were counted. */
uint64_t activity_reads(const struct activity *a);
uint64_t activity_ticks(const struct activity *a);

#endif
