/* hash_index.c - open addressing with linear probing (hash_index.h). */
#include "base/hash_index.h"

#include <stdlib.h>
#include <string.h>

struct hash_slot {
	uint64_t hash;
	uint32_t id; /* HASH_NONE: empty */
};

static struct hash_slot *new_slots(size_t cap)
{
	struct hash_slot *s = malloc(cap * sizeof(*s));
	if (s)
		for (size_t i = 0; i < cap; i++)
			s[i].id = HASH_NONE;
	return s;
}

int hash_index_init(struct hash_index *ix)
{
	ix->cap = 256;
	ix->used = 0;
	ix->slots = new_slots(ix->cap);
	return ix->slots ? 0 : -1;
}

void hash_index_free(struct hash_index *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->cap = ix->used = 0;
}

void hash_index_clear(struct hash_index *ix)
{
	for (size_t i = 0; i < ix->cap; i++)
		ix->slots[i].id = HASH_NONE;
	ix->used = 0;
}

uint32_t hash_index_find(const struct hash_index *ix, uint64_t hash, hash_eq_fn eq,
			 const void *table, const void *key)
{
	for (size_t i = hash & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
		const struct hash_slot *s = &ix->slots[i];
		if (s->id == HASH_NONE)
			return HASH_NONE;
		if (s->hash == hash && eq(table, s->id, key))
			return s->id;
	}
}

static void place(struct hash_slot *slots, size_t cap, uint64_t hash, uint32_t id)
{
	size_t i = hash & (cap - 1);
	while (slots[i].id != HASH_NONE)
		i = (i + 1) & (cap - 1);
	slots[i] = (struct hash_slot){ hash, id };
}

int hash_index_add(struct hash_index *ix, uint64_t hash, uint32_t id)
{
	if ((ix->used + 1) * 4 > ix->cap * 3) { /* keep it at most 3/4 full */
		size_t cap = ix->cap * 2;
		struct hash_slot *n = new_slots(cap);
		if (!n)
			return -1;
		for (size_t i = 0; i < ix->cap; i++)
			if (ix->slots[i].id != HASH_NONE)
				place(n, cap, ix->slots[i].hash, ix->slots[i].id);
		free(ix->slots);
		ix->slots = n;
		ix->cap = cap;
	}
	place(ix->slots, ix->cap, hash, id);
	ix->used++;
	return 0;
}

uint64_t hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t hash_word(uint64_t w)
{
	/* splitmix64's finalizer: every input bit moves every output bit */
	w ^= w >> 30;
	w *= 0xbf58476d1ce4e5b9ULL;
	w ^= w >> 27;
	w *= 0x94d049bb133111ebULL;
	return w ^ (w >> 31);
}
