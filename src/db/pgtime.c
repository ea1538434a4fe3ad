/* pgtime.c - the time model's table (pgtime.h). */
#include "db/pgtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/frame.h"

void pg_time_free(struct pg_time *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->e[i].frame);
		free(t->e[i].events);
	}
	free(t->e);
	if (t->ix_ok)
		hash_index_free(&t->ix);
	*t = (struct pg_time)PG_TIME_INIT;
}

bool pg_time_is_query(const char *frame)
{
	return strncmp(frame, "query=", 6) == 0;
}

static bool entry_eq(const void *table, uint32_t id, const void *key)
{
	const struct pg_time_entry *e = table;
	return strcmp(e[id].frame, key) == 0;
}

long pg_time_entry(struct pg_time *t, const char *frame)
{
	if (!t->ix_ok) {
		if (hash_index_init(&t->ix) != 0)
			return -1;
		t->ix_ok = true;
	}
	uint64_t h = hash_bytes(frame, strlen(frame));
	uint32_t id = hash_index_find(&t->ix, h, entry_eq, t->e, frame);
	if (id != HASH_NONE)
		return (long)id;
	if (!array_reserve((void **)&t->e, t->n + 1, &t->cap, sizeof(*t->e)))
		return -1;
	char *copy = strdup(frame);
	if (!copy || hash_index_add(&t->ix, h, (uint32_t)t->n) != 0) {
		free(copy);
		return -1;
	}
	t->e[t->n] = (struct pg_time_entry){ .frame = copy };
	return (long)t->n++;
}

/* "IO:WALSync" as the view names it, or the number when the table has no
 * name for it. */
static void event_name(uint32_t word, const struct pg_wait_table *table, char *out, size_t outsz)
{
	const char *type = pg_wait_type(table, word), *name = pg_wait_name(table, word);
	char text[PG_TIME_EVENT_NAME];
	if (type && name)
		snprintf(text, sizeof(text), "%s:%s", type, name);
	else
		snprintf(text, sizeof(text), "0x%08x", word);
	frame_sanitize(text, out, outsz);
}

int pg_time_add(struct pg_time *t, size_t i, uint64_t count, bool on_cpu, bool has_word,
		uint32_t word, const struct pg_wait_table *table)
{
	struct pg_time_entry *e = &t->e[i];
	if (has_word && word) {
		size_t k = 0;
		while (k < e->n_events && e->events[k].word != word)
			k++;
		if (k == e->n_events) {
			if (!array_reserve((void **)&e->events, k + 1, &e->cap_events,
					   sizeof(*e->events)))
				return -1;
			e->events[k] = (struct pg_time_event){ .word = word };
			event_name(word, table, e->events[k].name, sizeof(e->events[k].name));
			e->n_events++;
		}
		e->events[k].samples += count;
	}
	e->samples += count;
	if (on_cpu)
		e->on_cpu += count;
	return 0;
}

/* src's counts added to dst's, its wait events by word.  0, or -1. */
static int merge_entry(struct pg_time_entry *dst, const struct pg_time_entry *src)
{
	for (size_t k = 0; k < src->n_events; k++) {
		const struct pg_time_event *ev = &src->events[k];
		size_t j = 0;
		while (j < dst->n_events && dst->events[j].word != ev->word)
			j++;
		if (j == dst->n_events) {
			if (!array_reserve((void **)&dst->events, j + 1, &dst->cap_events,
					   sizeof(*dst->events)))
				return -1;
			dst->events[j] = (struct pg_time_event){ .word = ev->word };
			memcpy(dst->events[j].name, ev->name, sizeof(ev->name));
			dst->n_events++;
		}
		dst->events[j].samples += ev->samples;
	}
	dst->samples += src->samples;
	dst->on_cpu += src->on_cpu;
	return 0;
}

long pg_time_merge_shapes(struct pg_time *t, const struct pg_shape_ids *m)
{
	char frame[256]; /* a query frame is PG_QUERY_TEXT_MAX and its id */
	long renamed = 0;
	uint64_t moved = 0;
	for (size_t i = 0; i < t->n; i++)
		if (pg_shape_frame(m, t->e[i].frame, frame, sizeof(frame))) {
			renamed++;
			moved += t->e[i].samples;
		}
	if (!renamed)
		return 0;
	/* built anew: the index cannot drop an entry */
	struct pg_time next = PG_TIME_INIT;
	next.renamed_samples = t->renamed_samples + moved;
	for (size_t i = 0; i < t->n; i++) {
		const char *name = pg_shape_frame(m, t->e[i].frame, frame, sizeof(frame)) ?
					   frame : t->e[i].frame;
		long k = pg_time_entry(&next, name);
		if (k < 0 || merge_entry(&next.e[k], &t->e[i]) != 0) {
			pg_time_free(&next);
			return -1;
		}
	}
	pg_time_free(t);
	*t = next;
	return renamed;
}

/* Insertion into a list kept heaviest first, at most max long: a later
 * one of equal weight goes after, so ties stay in first-seen order. */
static size_t insert_ranked(uint64_t *weights, size_t *items, size_t n, size_t max,
			    uint64_t weight, size_t item)
{
	size_t at = n;
	while (at > 0 && weights[at - 1] < weight)
		at--;
	if (at >= max)
		return n;
	size_t last = n < max ? n : max - 1;
	for (size_t k = last; k > at; k--) {
		weights[k] = weights[k - 1];
		items[k] = items[k - 1];
	}
	weights[at] = weight;
	items[at] = item;
	return n < max ? n + 1 : n;
}

#define TOP_MAX 64

size_t pg_time_top(const struct pg_time *t, size_t *out, size_t max)
{
	uint64_t weights[TOP_MAX];
	size_t n = 0;
	if (max > TOP_MAX)
		max = TOP_MAX;
	for (size_t i = 0; i < t->n && max; i++)
		if (pg_time_is_query(t->e[i].frame) && t->e[i].samples)
			n = insert_ranked(weights, out, n, max, t->e[i].samples, i);
	return n;
}

size_t pg_time_top_events(const struct pg_time_entry *e, const struct pg_time_event **out,
			  size_t max)
{
	uint64_t weights[TOP_MAX];
	size_t items[TOP_MAX], n = 0;
	if (max > TOP_MAX)
		max = TOP_MAX;
	for (size_t k = 0; k < e->n_events && max; k++)
		n = insert_ranked(weights, items, n, max, e->events[k].samples, k);
	for (size_t k = 0; k < n; k++)
		out[k] = &e->events[items[k]];
	return n;
}
