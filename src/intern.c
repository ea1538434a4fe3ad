/* intern.c - a string set with open addressing. */
#include "intern.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct intern_set {
	char **slots; /* NULL = empty */
	size_t cap, used;
};

static uint64_t hash_text(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return h;
}

static char **slot_of(char **slots, size_t cap, const char *text, uint64_t h)
{
	size_t i = h & (cap - 1);
	while (slots[i] && strcmp(slots[i], text) != 0)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

struct intern_set *intern_new(void)
{
	struct intern_set *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cap = 256;
	if (!(s->slots = calloc(s->cap, sizeof(*s->slots)))) {
		free(s);
		return NULL;
	}
	return s;
}

void intern_free(struct intern_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i]);
	free(s->slots);
	free(s);
}

static int grow(struct intern_set *s)
{
	size_t cap = s->cap * 2;
	char **n = calloc(cap, sizeof(*n));
	if (!n)
		return -1;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i])
			*slot_of(n, cap, s->slots[i], hash_text(s->slots[i])) = s->slots[i];
	free(s->slots);
	s->slots = n;
	s->cap = cap;
	return 0;
}

const char *intern(struct intern_set *s, const char *text)
{
	uint64_t h = hash_text(text);
	char **slot = slot_of(s->slots, s->cap, text, h);
	if (*slot)
		return *slot;
	if ((s->used + 1) * 4 > s->cap * 3) {
		if (grow(s) != 0)
			return NULL;
		slot = slot_of(s->slots, s->cap, text, h);
	}
	if (!(*slot = strdup(text)))
		return NULL;
	s->used++;
	return *slot;
}
