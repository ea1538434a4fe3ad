/* aggregate.c - distinct stacks, counted.
 *
 * Two open-addressing hash tables: interned frame strings, and stacks keyed
 * by their sequence of interned pointers.  A stack seen before costs a few
 * hash probes and no allocation.
 */
#include "aggregate.h"

#include <stdlib.h>
#include <string.h>

struct stack_entry {
	const char **frames; /* interned; NULL = empty slot */
	size_t n;
	uint64_t count;
	uint64_t hash;
};

struct stack_table {
	char **strings; /* intern set; NULL = empty slot */
	size_t str_cap, str_used;
	struct stack_entry *stacks;
	size_t cap, used;
	uint64_t total;
};

static uint64_t fnv1a(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_SEED 0xcbf29ce484222325ULL

struct stack_table *stack_table_new(void)
{
	struct stack_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->str_cap = 256;
	t->cap = 256;
	t->strings = calloc(t->str_cap, sizeof(*t->strings));
	t->stacks = calloc(t->cap, sizeof(*t->stacks));
	if (!t->strings || !t->stacks) {
		stack_table_free(t);
		return NULL;
	}
	return t;
}

void stack_table_free(struct stack_table *t)
{
	if (!t)
		return;
	if (t->strings)
		for (size_t i = 0; i < t->str_cap; i++)
			free(t->strings[i]);
	if (t->stacks)
		for (size_t i = 0; i < t->cap; i++)
			free(t->stacks[i].frames);
	free(t->strings);
	free(t->stacks);
	free(t);
}

static size_t string_slot(char **set, size_t cap, const char *s, uint64_t h)
{
	size_t i = h & (cap - 1);
	while (set[i] && strcmp(set[i], s) != 0)
		i = (i + 1) & (cap - 1);
	return i;
}

static int grow_strings(struct stack_table *t)
{
	size_t cap = t->str_cap * 2;
	char **n = calloc(cap, sizeof(*n));
	if (!n)
		return -1;
	for (size_t i = 0; i < t->str_cap; i++)
		if (t->strings[i]) {
			const char *s = t->strings[i];
			n[string_slot(n, cap, s, fnv1a(s, strlen(s), FNV_SEED))] = t->strings[i];
		}
	free(t->strings);
	t->strings = n;
	t->str_cap = cap;
	return 0;
}

/* The interned copy of s, made on first sight. */
static const char *intern(struct stack_table *t, const char *s)
{
	uint64_t h = fnv1a(s, strlen(s), FNV_SEED);
	size_t i = string_slot(t->strings, t->str_cap, s, h);
	if (t->strings[i])
		return t->strings[i];
	if ((t->str_used + 1) * 4 > t->str_cap * 3) {
		if (grow_strings(t) != 0)
			return NULL;
		i = string_slot(t->strings, t->str_cap, s, h);
	}
	t->strings[i] = strdup(s);
	if (!t->strings[i])
		return NULL;
	t->str_used++;
	return t->strings[i];
}

static size_t stack_slot(struct stack_entry *set, size_t cap, const char *const *frames,
			 size_t n, uint64_t h)
{
	size_t i = h & (cap - 1);
	while (set[i].frames && !(set[i].hash == h && set[i].n == n &&
				  memcmp(set[i].frames, frames, n * sizeof(*frames)) == 0))
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
		if (t->stacks[i].frames)
			n[stack_slot(n, cap, t->stacks[i].frames, t->stacks[i].n,
				     t->stacks[i].hash)] = t->stacks[i];
	free(t->stacks);
	t->stacks = n;
	t->cap = cap;
	return 0;
}

/* Counts frames[0..n) under key, which has room for n interned pointers. */
static int add_with_key(struct stack_table *t, const char **key,
			const char *const *frames, size_t n, uint64_t count)
{
	for (size_t i = 0; i < n; i++)
		if (!(key[i] = intern(t, frames[i] ? frames[i] : "")))
			return -1;
	/* Interned pointers identify strings: hash the pointers themselves. */
	uint64_t h = fnv1a(key, n * sizeof(*key), FNV_SEED);
	size_t i = stack_slot(t->stacks, t->cap, key, n, h);
	if (!t->stacks[i].frames) {
		if ((t->used + 1) * 4 > t->cap * 3) {
			if (grow_stacks(t) != 0)
				return -1;
			i = stack_slot(t->stacks, t->cap, key, n, h);
		}
		const char **copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -1;
		memcpy(copy, key, n * sizeof(*copy));
		t->stacks[i] = (struct stack_entry){ copy, n, 0, h };
		t->used++;
	}
	t->stacks[i].count += count;
	t->total += count;
	return 0;
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
		const char *key[KEY_ON_STACK];
		return add_with_key(t, key, frames, n, count);
	}
	const char **key = malloc(n * sizeof(*key));
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

/* Next byte of a stack's folded text "a;b;c", or -1 at its end. */
static int folded_next(const struct stack_entry *e, size_t *frame, size_t *pos)
{
	if (*frame >= e->n)
		return -1;
	unsigned char c = (unsigned char)e->frames[*frame][*pos];
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

void stack_table_visit_sorted(const struct stack_table *t, stack_visit_fn fn, void *arg)
{
	if (!t->used)
		return;
	const struct stack_entry **order = malloc(t->used * sizeof(*order));
	if (!order) {
		/* Out of memory at the very end: every stack unsorted beats a
		 * profile silently lost. */
		for (size_t i = 0; i < t->cap; i++)
			if (t->stacks[i].frames)
				fn(t->stacks[i].frames, t->stacks[i].n, t->stacks[i].count, arg);
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < t->cap; i++)
		if (t->stacks[i].frames)
			order[k++] = &t->stacks[i];
	qsort(order, k, sizeof(*order), heaviest_first);
	for (size_t i = 0; i < k; i++)
		fn(order[i]->frames, order[i]->n, order[i]->count, arg);
	free(order);
}
