/* pgshape.c - statement shapes and their server ids (pgshape.h). */
#include "db/pgshape.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

void pg_shape_ids_free(struct pg_shape_ids *m)
{
	free(m->e);
	if (m->ix_ok)
		hash_index_free(&m->ix);
	*m = (struct pg_shape_ids)PG_SHAPE_IDS_INIT;
}

static bool same_hash(const void *table, uint32_t i, const void *key)
{
	return ((const struct pg_shape_id *)table)[i].hash == *(const uint64_t *)key;
}

int64_t pg_shape_ids_find(const struct pg_shape_ids *m, uint64_t hash)
{
	if (!m->ix_ok)
		return 0;
	uint32_t i = hash_index_find(&m->ix, hash_word(hash), same_hash, m->e, &hash);
	return i == HASH_NONE ? 0 : m->e[i].id;
}

int pg_shape_ids_note(struct pg_shape_ids *m, uint64_t hash, int64_t id)
{
	if (!id || pg_shape_ids_find(m, hash))
		return 0;
	if (!m->ix_ok) {
		if (hash_index_init(&m->ix) != 0)
			return -1;
		m->ix_ok = true;
	}
	if (m->n >= HASH_NONE - 1 ||
	    !array_reserve((void **)&m->e, m->n + 1, &m->cap, sizeof(*m->e)) ||
	    hash_index_add(&m->ix, hash_word(hash), (uint32_t)m->n) != 0)
		return -1;
	m->e[m->n++] = (struct pg_shape_id){ hash, id };
	return 0;
}

size_t pg_shape_frame(const struct pg_shape_ids *m, const char *frame, char *out, size_t outsz)
{
	static const char prefix[] = PG_HASH_FRAME_PREFIX;
	if (!m->n || strncmp(frame, prefix, sizeof(prefix) - 1) != 0)
		return 0;
	const char *number = frame + sizeof(prefix) - 1;
	if (*number != '-' && (*number < '0' || *number > '9'))
		return 0;
	char *end;
	errno = 0;
	long long n = strtoll(number, &end, 10);
	if (end == number || errno || (*end != ' ' && *end != '\0'))
		return 0;
	int64_t id = pg_shape_ids_find(m, (uint64_t)(int64_t)n);
	if (!id)
		return 0;
	int len = snprintf(NULL, 0, "query=%" PRId64 "%s", id, end);
	if (len <= 0 || (size_t)len >= outsz)
		return 0;
	snprintf(out, outsz, "query=%" PRId64 "%s", id, end);
	return (size_t)len;
}
