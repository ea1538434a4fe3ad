/* bqueue.c - a bounded, drop-oldest queue (bqueue.h). */
#include "base/bqueue.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct bqueue {
	pthread_mutex_t lock;
	pthread_cond_t ready;
	void **items;        /* a ring: head, then length items */
	size_t capacity, head, length;
	uint64_t pushed, dropped;
	bool closed;
};

struct bqueue *bqueue_new(size_t capacity)
{
	if (capacity == 0)
		return NULL;
	struct bqueue *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->items = calloc(capacity, sizeof(*q->items));
	pthread_condattr_t attr;
	if (!q->items || pthread_condattr_init(&attr) != 0) {
		free(q->items);
		free(q);
		return NULL;
	}
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&q->ready, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&q->lock, NULL);
	q->capacity = capacity;
	return q;
}

void bqueue_free(struct bqueue *q, void (*free_item)(void *))
{
	if (!q)
		return;
	for (size_t i = 0; i < q->length && free_item; i++)
		free_item(q->items[(q->head + i) % q->capacity]);
	pthread_cond_destroy(&q->ready);
	pthread_mutex_destroy(&q->lock);
	free(q->items);
	free(q);
}

void *bqueue_push(struct bqueue *q, void *item)
{
	void *dropped = NULL;
	pthread_mutex_lock(&q->lock);
	if (q->length == q->capacity) {
		dropped = q->items[q->head];
		q->head = (q->head + 1) % q->capacity;
		q->length--;
		q->dropped++;
	}
	q->items[(q->head + q->length) % q->capacity] = item;
	q->length++;
	q->pushed++;
	pthread_cond_signal(&q->ready);
	pthread_mutex_unlock(&q->lock);
	return dropped;
}

void *bqueue_pop(struct bqueue *q, uint64_t deadline_ns)
{
	struct timespec until = { (time_t)(deadline_ns / 1000000000ULL),
				  (long)(deadline_ns % 1000000000ULL) };
	void *item = NULL;
	pthread_mutex_lock(&q->lock);
	while (q->length == 0 && !q->closed) {
		int rc = deadline_ns ? pthread_cond_timedwait(&q->ready, &q->lock, &until)
				     : pthread_cond_wait(&q->ready, &q->lock);
		if (rc == ETIMEDOUT)
			break;
	}
	if (q->length > 0) {
		item = q->items[q->head];
		q->head = (q->head + 1) % q->capacity;
		q->length--;
	}
	pthread_mutex_unlock(&q->lock);
	return item;
}

void bqueue_close(struct bqueue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->ready);
	pthread_mutex_unlock(&q->lock);
}

void bqueue_counts(struct bqueue *q, struct bqueue_counts *out)
{
	pthread_mutex_lock(&q->lock);
	*out = (struct bqueue_counts){ q->length, q->pushed, q->dropped, q->closed };
	pthread_mutex_unlock(&q->lock);
}
