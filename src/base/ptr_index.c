/* ptr_index.c - pointers to dense indices over hash_index.h (ptr_index.h). */
#include "base/ptr_index.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

static bool ptr_eq(const void *table, uint32_t id, const void *key)
{
	const struct ptr_index *m = table;
	return m->keys[id] == key;
}

int ptr_index_get(struct ptr_index *m, const void *key, uint32_t *out, bool *added)
{
	if (!m->ix.slots && hash_index_init(&m->ix) != 0)
		return -1;
	uint64_t h = hash_word((uint64_t)(uintptr_t)key);
	uint32_t id = hash_index_find(&m->ix, h, ptr_eq, m, key);
	bool is_new = id == HASH_NONE;
	if (is_new) {
		if (!array_reserve((void **)&m->keys, m->n + 1, &m->cap, sizeof(*m->keys)))
			return -1;
		id = (uint32_t)m->n;
		if (hash_index_add(&m->ix, h, id) != 0)
			return -1;
		m->keys[m->n++] = key;
	}
	*out = id;
	if (added)
		*added = is_new;
	return 0;
}

void ptr_index_free(struct ptr_index *m)
{
	free(m->keys);
	hash_index_free(&m->ix);
	memset(m, 0, sizeof(*m));
}
