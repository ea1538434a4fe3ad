/* aggregate.c - distinct stacks, counted.
 *
 * An open-addressing hash table of stacks keyed by their sequence of
 * 64-bit words - interned string pointers for named stacks (intern.h), or
 * whatever the caller encodes.  A stack seen before costs a few hash
 * probes and no allocation.
 */
#include "aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "intern.h"

struct stack_entry {
	uint64_t *words; /* NULL = empty slot */
	size_t n;
	uint64_t count;
	uint64_t hash;
};

struct stack_table {
	struct intern_set *strings;
	struct stack_entry *stacks;
	size_t cap, used;
	uint64_t total;
};

static uint64_t fnv1a(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

struct stack_table *stack_table_new(void)
{
	struct stack_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cap = 256;
	t->strings = intern_new();
	t->stacks = calloc(t->cap, sizeof(*t->stacks));
	if (!t->strings || !t->stacks) {
		stack_table_free(t);
		return NULL;
	}
	return t;
}

void stack_table_clear(struct stack_table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->stacks[i].words);
	memset(t->stacks, 0, t->cap * sizeof(*t->stacks));
	t->used = 0;
	t->total = 0;
}

void stack_table_free(struct stack_table *t)
{
	if (!t)
		return;
	if (t->stacks)
		stack_table_clear(t);
	intern_free(t->strings);
	free(t->stacks);
	free(t);
}

const char *stack_table_intern(struct stack_table *t, const char *text)
{
	return intern(t->strings, text ? text : "");
}

static size_t stack_slot(struct stack_entry *set, size_t cap, const uint64_t *words,
			 size_t n, uint64_t h)
{
	size_t i = h & (cap - 1);
	while (set[i].words && !(set[i].hash == h && set[i].n == n &&
				 memcmp(set[i].words, words, n * sizeof(*words)) == 0))
		i = (i + 1) & (cap - 1);
	return i;
}

static int grow_stacks(struct stack_table *t)
{
	size_t cap = t->cap * 2;
	struct stack_entry *n = calloc(cap, sizeof(*n));
	if (!n)
		return -1;
	for (size_t i = 0; i < t->cap; i++)
		if (t->stacks[i].words)
			n[stack_slot(n, cap, t->stacks[i].words, t->stacks[i].n,
				     t->stacks[i].hash)] = t->stacks[i];
	free(t->stacks);
	t->stacks = n;
	t->cap = cap;
	return 0;
}

int stack_table_add_words(struct stack_table *t, const uint64_t *words, size_t n,
			  uint64_t count)
{
	if (n == 0 || !words)
		return -1;
	uint64_t h = fnv1a(words, n * sizeof(*words));
	size_t i = stack_slot(t->stacks, t->cap, words, n, h);
	if (!t->stacks[i].words) {
		if ((t->used + 1) * 4 > t->cap * 3) {
			if (grow_stacks(t) != 0)
				return -1;
			i = stack_slot(t->stacks, t->cap, words, n, h);
		}
		uint64_t *copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -1;
		memcpy(copy, words, n * sizeof(*copy));
		t->stacks[i] = (struct stack_entry){ copy, n, 0, h };
		t->used++;
	}
	t->stacks[i].count += count;
	t->total += count;
	return 0;
}

/* Counts frames[0..n) under key, which has room for n words. */
static int add_with_key(struct stack_table *t, uint64_t *key,
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

int stack_table_add(struct stack_table *t, const char *const *frames, size_t n,
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
	int rc = add_with_key(t, key, frames, n, count);
	free(key);
	return rc;
}

size_t stack_table_distinct(const struct stack_table *t)
{
	return t->used;
}

uint64_t stack_table_total(const struct stack_table *t)
{
	return t->total;
}

void stack_table_visit_words(const struct stack_table *t, stack_words_fn fn, void *arg)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->stacks[i].words)
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

static int heaviest_first(const void *pa, const void *pb)
{
	const struct stack_entry *a = *(const struct stack_entry *const *)pa;
	const struct stack_entry *b = *(const struct stack_entry *const *)pb;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return folded_cmp(a, b);
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
	if (!t->used)
		return;
	size_t deepest = 0;
	for (size_t i = 0; i < t->cap; i++)
		if (t->stacks[i].words && t->stacks[i].n > deepest)
			deepest = t->stacks[i].n;
	const char **buf = malloc(deepest * sizeof(*buf));
	if (!buf)
		return;
	const struct stack_entry **order = malloc(t->used * sizeof(*order));
	if (!order) {
		/* Out of memory at the very end: every stack unsorted beats a
		 * profile silently lost. */
		for (size_t i = 0; i < t->cap; i++)
			if (t->stacks[i].words)
				visit_named(&t->stacks[i], buf, fn, arg);
		free(buf);
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < t->cap; i++)
		if (t->stacks[i].words)
			order[k++] = &t->stacks[i];
	qsort(order, k, sizeof(*order), heaviest_first);
	for (size_t i = 0; i < k; i++)
		visit_named(order[i], buf, fn, arg);
	free(order);
	free(buf);
}
