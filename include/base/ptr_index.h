/* ptr_index.h - pointers numbered 0, 1, 2... in order of first sight.
 *
 * Interned strings (intern.h) are equal when their pointers are: a
 * format that numbers its strings or frames (pprof's string table and
 * locations, speedscope's frames, the report's frames and values) finds
 * each one's number from its pointer through the one hash table
 * (hash_index.h), and lists them in that order from keys[].
 */
#ifndef PTRACE_PROFILER_PTR_INDEX_H
#define PTRACE_PROFILER_PTR_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash_index.h"

/* Pointers to dense indices 0, 1, 2... in order of first sight: keys[i]
 * is pointer number i, found through the one hash table (hash_index.h).
 * All zero is empty. */
struct ptr_index {
	const void **keys;
	size_t n, cap;
	struct hash_index ix; /* allocated by the first get */
};

/* The index of key, added if new (*added says so; may be NULL).
 * Returns 0, or -1 when out of memory. */
int ptr_index_get(struct ptr_index *m, const void *key, uint32_t *out, bool *added);
void ptr_index_free(struct ptr_index *m);

#endif
