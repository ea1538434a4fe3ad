/* aggregate.c - distinct stacks, counted.
 *
 * Stacks keyed by their sequence of 64-bit words - interned string
 * pointers for named stacks (intern.h), or whatever the caller encodes -
 * in a dense array found through hash_index.h.  A stack seen before costs
 * a few hash probes and no allocation.
 */
#include "profile/aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash_index.h"
#include "base/intern.h"

struct stack_entry {
	uint64_t *words;
	size_t n;
	uint64_t count;
};

/* Stacks live in a dense array indexed by id (order of first sight). */
struct stack_table {
	struct intern_set *strings;
	struct stack_entry *stacks;
	size_t n_stacks, cap_stacks;
	struct hash_index index;
	uint64_t total;
	size_t deepest;         /* the most words of a stack */
};

struct stack_table *stack_table_new(void)
{
	struct stack_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->strings = intern_new();
	if (!t->strings || hash_index_init(&t->index) != 0) {
		intern_free(t->strings);
		free(t);
		return NULL;
	}
	return t;
}

void stack_table_clear(struct stack_table *t)
{
	for (size_t i = 0; i < t->n_stacks; i++)
		free(t->stacks[i].words);
	t->n_stacks = 0;
	hash_index_clear(&t->index);
	t->total = 0;
	t->deepest = 0;
}

void stack_table_free(struct stack_table *t)
{
	if (!t)
		return;
	stack_table_clear(t);
	intern_free(t->strings);
	free(t->stacks);
	hash_index_free(&t->index);
	free(t);
}

const char *stack_table_intern(struct stack_table *t, const char *text)
{
	return intern(t->strings, text ? text : "");
}

struct words_key {
	const uint64_t *words;
	size_t n;
};

static bool same_stack(const void *table, uint32_t id, const void *key)
{
	const struct stack_entry *e = &((const struct stack_table *)table)->stacks[id];
	const struct words_key *k = key;
	return e->n == k->n && memcmp(e->words, k->words, k->n * sizeof(*k->words)) == 0;
}

long stack_table_add_words(struct stack_table *t, const uint64_t *words, size_t n,
			   uint64_t count)
{
	if (n == 0 || !words)
		return -1;
	uint64_t h = hash_bytes(words, n * sizeof(*words));
	struct words_key key = { words, n };
	uint32_t id = hash_index_find(&t->index, h, same_stack, t, &key);
	if (id == HASH_NONE) {
		if (t->n_stacks >= HASH_NONE - 1)
			return -1;
		if (!array_reserve((void **)&t->stacks, t->n_stacks + 1, &t->cap_stacks,
				   sizeof(*t->stacks)))
			return -1;
		uint64_t *copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -1;
		memcpy(copy, words, n * sizeof(*copy));
		id = (uint32_t)t->n_stacks;
		if (hash_index_add(&t->index, h, id) != 0) {
			free(copy);
			return -1;
		}
		t->stacks[t->n_stacks++] = (struct stack_entry){ copy, n, 0 };
		if (n > t->deepest)
			t->deepest = n;
	}
	t->stacks[id].count += count;
	t->total += count;
	return (long)id;
}

int stack_table_add_count(struct stack_table *t, size_t id, uint64_t count)
{
	if (id >= t->n_stacks)
		return -1;
	t->stacks[id].count += count;
	t->total += count;
	return 0;
}

const uint64_t *stack_table_words(const struct stack_table *t, size_t id, size_t *n,
				  uint64_t *count)
{
	if (id >= t->n_stacks)
		return NULL;
	if (n)
		*n = t->stacks[id].n;
	if (count)
		*count = t->stacks[id].count;
	return t->stacks[id].words;
}

size_t stack_table_frames(const struct stack_table *t, size_t id, const char **out,
			  size_t max, uint64_t *count)
{
	size_t n = 0;
	const uint64_t *w = stack_table_words(t, id, &n, count);
	if (!w)
		return 0;
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		out[i] = (const char *)(uintptr_t)w[i];
	return n;
}

/* Counts frames[0..n) under key, which has room for n words. */
static long add_with_key(struct stack_table *t, uint64_t *key,
			const char *const *frames, size_t n, uint64_t count)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = stack_table_intern(t, frames[i]);
		if (!s)
			return -1;
		key[i] = (uint64_t)(uintptr_t)s;
	}
	return stack_table_add_words(t, key, n, count);
}

/* Keys of this many frames fit on our stack; deeper ones (none the sampler
 * makes) borrow the heap for the lookup. */
#define KEY_ON_STACK 512

long stack_table_add(struct stack_table *t, const char *const *frames, size_t n,
		     uint64_t count)
{
	if (n == 0 || !frames)
		return -1;
	if (n <= KEY_ON_STACK) {
		uint64_t key[KEY_ON_STACK];
		return add_with_key(t, key, frames, n, count);
	}
	uint64_t *key = malloc(n * sizeof(*key));
	if (!key)
		return -1;
	long rc = add_with_key(t, key, frames, n, count);
	free(key);
	return rc;
}

size_t stack_table_max_depth(const struct stack_table *t)
{
	return t->deepest ? t->deepest : 1;
}

size_t stack_table_distinct(const struct stack_table *t)
{
	return t->n_stacks;
}

uint64_t stack_table_total(const struct stack_table *t)
{
	return t->total;
}

void stack_table_visit_words(const struct stack_table *t, stack_words_fn fn, void *arg)
{
	for (size_t i = 0; i < t->n_stacks; i++)
		fn(t->stacks[i].words, t->stacks[i].n, t->stacks[i].count, arg);
}

static const char *frame_at(const struct stack_entry *e, size_t i)
{
	return (const char *)(uintptr_t)e->words[i];
}

/* Next byte of a stack's folded text "a;b;c", or -1 at its end. */
static int folded_next(const struct stack_entry *e, size_t *frame, size_t *pos)
{
	if (*frame >= e->n)
		return -1;
	unsigned char c = (unsigned char)frame_at(e, *frame)[*pos];
	if (c) {
		(*pos)++;
		return c;
	}
	(*frame)++;
	*pos = 0;
	return *frame < e->n ? ';' : -1;
}

/* Byte order of the folded texts, without building them. */
static int folded_cmp(const struct stack_entry *a, const struct stack_entry *b)
{
	size_t fa = 0, pa = 0, fb = 0, pb = 0;
	for (;;) {
		int ca = folded_next(a, &fa, &pa), cb = folded_next(b, &fb, &pb);
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (ca < 0)
			return 0;
	}
}

static int text_order(const void *pa, const void *pb)
{
	return folded_cmp(*(const struct stack_entry *const *)pa,
			  *(const struct stack_entry *const *)pb);
}

/* Hands a named stack to fn as the strings it was made of; buf has room
 * for the deepest stack. */
static void visit_named(const struct stack_entry *e, const char **buf, stack_visit_fn fn,
			void *arg)
{
	for (size_t i = 0; i < e->n; i++)
		buf[i] = frame_at(e, i);
	fn(buf, e->n, e->count, arg);
}

void stack_table_visit_sorted(const struct stack_table *t, stack_visit_fn fn, void *arg)
{
	if (!t->n_stacks)
		return;
	const char **buf = malloc(stack_table_max_depth(t) * sizeof(*buf));
	if (!buf)
		return;
	const struct stack_entry **order = malloc(t->n_stacks * sizeof(*order));
	if (!order) {
		/* Out of memory at the very end: every stack unsorted beats a
		 * profile silently lost. */
		for (size_t i = 0; i < t->n_stacks; i++)
			visit_named(&t->stacks[i], buf, fn, arg);
		free(buf);
		return;
	}
	for (size_t i = 0; i < t->n_stacks; i++)
		order[i] = &t->stacks[i];
	qsort(order, t->n_stacks, sizeof(*order), text_order);
	for (size_t i = 0; i < t->n_stacks; i++)
		visit_named(order[i], buf, fn, arg);
	free(order);
	free(buf);
}

/* The words of stack e renamed into out (room for e->n): how many were. */
static long renamed_words(struct stack_table *t, const struct stack_entry *e, stack_rename_fn rename,
			  void *arg, uint64_t *out, bool *oom)
{
	long n = 0;
	for (size_t i = 0; i < e->n; i++) {
		const char *text = rename(frame_at(e, i), arg);
		const char *s = text ? stack_table_intern(t, text) : NULL;
		if (text && !s)
			*oom = true;
		out[i] = s ? (uint64_t)(uintptr_t)s : e->words[i];
		n += s != NULL;
	}
	return n;
}

long stack_table_rename(struct stack_table *t, stack_rename_fn rename, void *arg, uint32_t *map)
{
	uint64_t *words = malloc(stack_table_max_depth(t) * sizeof(*words));
	if (!words)
		return -1;
	long renamed = 0;
	bool oom = false;
	for (size_t i = 0; i < t->n_stacks && !oom; i++)
		renamed += renamed_words(t, &t->stacks[i], rename, arg, words, &oom);
	if (oom || !renamed) {
		free(words);
		return oom ? -1 : 0;
	}
	/* Built in a table of its own (sharing the strings), swapped in only
	 * when whole: the index cannot drop a stack that merges. */
	struct stack_table next = { .strings = t->strings };
	if (hash_index_init(&next.index) != 0) {
		free(words);
		return -1;
	}
	long id = 0;
	for (size_t i = 0; i < t->n_stacks && id >= 0; i++) {
		renamed_words(t, &t->stacks[i], rename, arg, words, &oom); /* interned: no failure */
		id = stack_table_add_words(&next, words, t->stacks[i].n, t->stacks[i].count);
		if (map && id >= 0)
			map[i] = (uint32_t)id;
	}
	free(words);
	if (id < 0) {
		for (size_t i = 0; i < next.n_stacks; i++)
			free(next.stacks[i].words);
		free(next.stacks);
		hash_index_free(&next.index);
		return -1;
	}
	stack_table_clear(t);
	free(t->stacks);
	hash_index_free(&t->index);
	t->stacks = next.stacks;
	t->n_stacks = next.n_stacks;
	t->cap_stacks = next.cap_stacks;
	t->index = next.index;
	t->total = next.total;
	t->deepest = next.deepest;
	return renamed;
}

struct stack_table *stack_table_copy(const struct stack_table *t)
{
	struct stack_table *c = stack_table_new();
	const char **frames = malloc(stack_table_max_depth(t) * sizeof(*frames));
	for (size_t i = 0; c && frames && i < t->n_stacks; i++) {
		for (size_t k = 0; k < t->stacks[i].n; k++)
			frames[k] = frame_at(&t->stacks[i], k);
		if (stack_table_add(c, frames, t->stacks[i].n, t->stacks[i].count) != (long)i) {
			stack_table_free(c);
			c = NULL;
		}
	}
	if (!frames) {
		stack_table_free(c);
		c = NULL;
	}
	free(frames);
	return c;
}
