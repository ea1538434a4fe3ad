/* activity.c - the reads' series, bucket by bucket (activity.h). */
#include "profile/activity.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash_index.h"

struct cell {
	uint32_t root, event, query, count;
};

struct activity {
	uint64_t start_ns;
	FILE *file;             /* the written buckets' rows */
	int error;              /* errno of a failed write */
	bool ended;
	/* the texts */
	char **texts;
	size_t n_texts, cap_texts;
	struct hash_index text_ix;
	/* the current bucket */
	uint32_t bucket;
	uint32_t ticks;         /* 0: nothing counted in it yet */
	struct cell *cells;
	size_t n_cells, cap_cells;
	struct hash_index cell_ix;
	/* totals */
	uint64_t reads, all_ticks;
};

struct activity *activity_new(uint64_t start_ns)
{
	struct activity *a = calloc(1, sizeof(*a));
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	a->start_ns = start_ns;
	a->file = tmpfile(); /* unlinked: gone with us, whatever happens */
	int err = a->file ? ENOMEM : errno;
	if (!a->file || hash_index_init(&a->text_ix) != 0 || hash_index_init(&a->cell_ix) != 0) {
		activity_free(a);
		errno = err;
		return NULL;
	}
	return a;
}

void activity_free(struct activity *a)
{
	if (!a)
		return;
	if (a->file)
		fclose(a->file);
	for (size_t i = 0; i < a->n_texts; i++)
		free(a->texts[i]);
	free(a->texts);
	free(a->cells);
	hash_index_free(&a->text_ix);
	hash_index_free(&a->cell_ix);
	free(a);
}

static bool text_eq(const void *table, uint32_t id, const void *key)
{
	const struct activity *a = table;
	return strcmp(a->texts[id], key) == 0;
}

uint32_t activity_text_id(struct activity *a, const char *text)
{
	uint64_t h = hash_bytes(text, strlen(text));
	uint32_t id = hash_index_find(&a->text_ix, h, text_eq, a, text);
	if (id != HASH_NONE)
		return id;
	char *copy = strdup(text);
	if (!copy || a->n_texts >= ACTIVITY_NONE ||
	    !array_reserve((void **)&a->texts, a->n_texts + 1, &a->cap_texts, sizeof(*a->texts)) ||
	    hash_index_add(&a->text_ix, h, (uint32_t)a->n_texts) != 0) {
		free(copy);
		return ACTIVITY_NONE;
	}
	a->texts[a->n_texts] = copy;
	return (uint32_t)a->n_texts++;
}

const char *activity_text(const struct activity *a, uint32_t id)
{
	return id < a->n_texts ? a->texts[id] : NULL;
}

static void write_row(struct activity *a, const struct cell *c)
{
	const struct activity_row r = { a->bucket, c->root, c->event, c->query, c->count };
	if (!a->error && fwrite(&r, sizeof(r), 1, a->file) != 1)
		a->error = errno ? errno : EIO;
}

/* The current bucket to the file, and emptied. */
static void flush(struct activity *a)
{
	if (!a->ticks)
		return;
	const struct cell ticks = { ACTIVITY_NONE, ACTIVITY_NONE, ACTIVITY_NONE, a->ticks };
	write_row(a, &ticks);
	for (size_t i = 0; i < a->n_cells; i++)
		write_row(a, &a->cells[i]);
	a->ticks = 0;
	a->n_cells = 0;
	hash_index_clear(&a->cell_ix);
}

uint32_t activity_tick(struct activity *a, uint64_t now_ns)
{
	assert(!a->ended);
	uint64_t b = now_ns > a->start_ns ? (now_ns - a->start_ns) / ACTIVITY_BUCKET_NS : 0;
	if (b > a->bucket && b < UINT32_MAX) {
		flush(a);
		a->bucket = (uint32_t)b;
	}
	a->ticks++;
	a->all_ticks++;
	return a->bucket;
}

static bool cell_eq(const void *table, uint32_t id, const void *key)
{
	const struct cell *c = &((const struct activity *)table)->cells[id], *k = key;
	return c->root == k->root && c->event == k->event && c->query == k->query;
}

void activity_add(struct activity *a, uint32_t root, uint32_t event, uint32_t query)
{
	assert(a->ticks > 0); /* a read belongs to a tick */
	if (root == ACTIVITY_NONE || event == ACTIVITY_NONE)
		return;
	const struct cell key = { root, event, query, 0 };
	uint64_t h = hash_word(((uint64_t)root << 32 | event) ^ hash_word(query));
	uint32_t id = hash_index_find(&a->cell_ix, h, cell_eq, a, &key);
	if (id == HASH_NONE) {
		if (!array_reserve((void **)&a->cells, a->n_cells + 1, &a->cap_cells,
				   sizeof(*a->cells)) ||
		    hash_index_add(&a->cell_ix, h, (uint32_t)a->n_cells) != 0)
			return;
		id = (uint32_t)a->n_cells++;
		a->cells[id] = key;
	}
	a->cells[id].count++;
	a->reads++;
}

int activity_end(struct activity *a)
{
	if (!a->ended) {
		flush(a);
		a->ended = true;
		if (!a->error && fflush(a->file) != 0)
			a->error = errno ? errno : EIO;
	}
	return a->error;
}

int activity_pass(struct activity *a, int (*fn)(const struct activity_row *, void *), void *arg)
{
	assert(a->ended);
	if (a->error) {
		errno = a->error;
		return -1;
	}
	if (fseek(a->file, 0, SEEK_SET) != 0)
		return -1;
	struct activity_row r;
	int rc = 0;
	while (rc == 0 && fread(&r, sizeof(r), 1, a->file) == 1)
		rc = fn(&r, arg);
	if (rc == 0 && ferror(a->file)) {
		errno = EIO;
		rc = -1;
	}
	clearerr(a->file);
	return rc;
}

uint64_t activity_reads(const struct activity *a)
{
	return a->reads;
}

uint64_t activity_ticks(const struct activity *a)
{
	return a->all_ticks;
}
