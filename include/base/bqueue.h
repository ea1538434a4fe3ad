/* bqueue.h - a bounded queue between the sampler and a slower thread.
 *
 * The producer (the sampler) never waits: push always succeeds, and when
 * the queue is full the oldest item is taken out to make room, handed back
 * to the producer to free, and counted.  The consumer waits for an item,
 * with a deadline.  A mutex and a condition variable; no allocation after
 * bqueue_new.
 */
#ifndef PTRACE_PROFILER_BQUEUE_H
#define PTRACE_PROFILER_BQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bqueue;

/* capacity >= 1.  NULL when out of memory. */
struct bqueue *bqueue_new(size_t capacity);

/* Frees the queue and, with free_item, the items still in it. */
void bqueue_free(struct bqueue *q, void (*free_item)(void *));

/* Adds item at the end.  When the queue was full, the oldest item is taken
 * out, counted as dropped and returned (the caller frees it); else NULL. */
void *bqueue_push(struct bqueue *q, void *item);

/* The oldest item; waits for one until deadline_ns (CLOCK_MONOTONIC; 0:
 * no deadline) or until the queue is closed and empty.  NULL then. */
void *bqueue_pop(struct bqueue *q, uint64_t deadline_ns);

/* No more pushes: a consumer waiting on an empty queue wakes up. */
void bqueue_close(struct bqueue *q);

struct bqueue_counts {
	size_t length;    /* items in it now */
	uint64_t pushed;  /* ever */
	uint64_t dropped; /* taken out because the queue was full */
	bool closed;
};
void bqueue_counts(struct bqueue *q, struct bqueue_counts *out);

#endif
