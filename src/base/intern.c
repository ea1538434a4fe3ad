/* intern.c - one copy of each string: a dense array of copies, indexed by
 * hash_index.h. */
#include "base/intern.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash_index.h"

struct intern_set {
	char **strings;
	size_t n, cap;
	struct hash_index index;
};

struct intern_set *intern_new(void)
{
	struct intern_set *s = calloc(1, sizeof(*s));
	if (!s || hash_index_init(&s->index) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

void intern_free(struct intern_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->strings[i]);
	free(s->strings);
	hash_index_free(&s->index);
	free(s);
}

static bool same_text(const void *table, uint32_t id, const void *key)
{
	return strcmp(((const struct intern_set *)table)->strings[id], key) == 0;
}

const char *intern(struct intern_set *s, const char *text)
{
	uint64_t h = hash_bytes(text, strlen(text));
	uint32_t id = hash_index_find(&s->index, h, same_text, s, text);
	if (id != HASH_NONE)
		return s->strings[id];
	if (!array_reserve((void **)&s->strings, s->n + 1, &s->cap, sizeof(*s->strings)))
		return NULL;
	char *copy = strdup(text);
	if (!copy || hash_index_add(&s->index, h, (uint32_t)s->n) != 0) {
		free(copy);
		return NULL;
	}
	s->strings[s->n++] = copy;
	return copy;
}
