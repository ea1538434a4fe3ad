/* timeline.h - every sample in the order they were taken, for the formats
 * that keep time (speedscope, perf-script, pprof's wall time).
 *
 * While sampling a stack is known by its addresses only (program.h): each
 * distinct one gets a timeline id when first counted, and the record of a
 * sample (24 bytes: time, weight, stack, thread) goes to an unlinked
 * temporary file, so memory stays flat however long the run.  Naming maps
 * each timeline id to its named stack; the samples are then read back, one
 * at a time, with named ids.  Per thread the records are in time order; a
 * thread copied when it got its CPU back has its record written then, so
 * across threads the order is that of the copies.
 */
#ifndef PTRACE_PROFILER_TIMELINE_H
#define PTRACE_PROFILER_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

struct timeline;

/* NULL with errno set when out of memory (ENOMEM) or no temporary file
 * can be made (tmpfile's error). */
struct timeline *timeline_new(void);
void timeline_free(struct timeline *tl);

/* An id for a stack counted for the first time (by address). */
uint32_t timeline_new_stack(struct timeline *tl);

/* One sample.  0, or the error of the write that failed (an errno value:
 * its own, EIO when stdio gave none), which the timeline keeps: its source
 * fails with it too. */
int timeline_add(struct timeline *tl, uint64_t time_ns, uint64_t weight_ns, uint32_t stack,
		 uint32_t thread);

/* Stack id (timeline_new_stack's) is named stack named.  0 or -1. */
int timeline_name(struct timeline *tl, uint32_t stack, uint32_t named);

/* The named stacks were renumbered (stack_table_rename): named id i is
 * now map[i], for i < n. */
void timeline_renumber(struct timeline *tl, const uint32_t *map, size_t n);

/* After naming: the samples, stacks as named ids.  A sample whose stack
 * was never named is an error (-1 from next). */
const struct sample_source *timeline_source(struct timeline *tl);

/* SIGUSR1: the samples recorded so far, every stack of them named, read
 * by another thread while more are added (pread on a duplicate of the
 * file; the named ids copied).  NULL when out of memory or the records
 * cannot be flushed. */
struct timeline_view;
struct timeline_view *timeline_view_new(struct timeline *tl);
const struct sample_source *timeline_view_source(struct timeline_view *v);
void timeline_view_free(struct timeline_view *v);

#endif
