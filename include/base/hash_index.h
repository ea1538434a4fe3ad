/* hash_index.h - the one hash table: an open-addressing index over a dense
 * array that its user keeps.
 *
 * Every table of the profiler is an array of entries numbered 0, 1, 2...
 * (interned strings, distinct stacks, named addresses); the index finds
 * an entry's number from its key.  The user hashes keys and compares an
 * entry with a key; the index stores the numbers and each one's hash (so
 * growing never calls back).  Lookups of a present key allocate nothing.
 */
#ifndef PTRACE_PROFILER_HASH_INDEX_H
#define PTRACE_PROFILER_HASH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hash_index {
	struct hash_slot *slots;
	size_t cap;  /* a power of two */
	size_t used;
};

/* Is entry number id the one with this key? */
typedef bool (*hash_eq_fn)(const void *table, uint32_t id, const void *key);

#define HASH_NONE UINT32_MAX

/* 0, or -1 when out of memory.  Empty, with room for 256 before growing. */
int hash_index_init(struct hash_index *ix);
void hash_index_free(struct hash_index *ix);

/* Forgets every entry (the slots stay allocated). */
void hash_index_clear(struct hash_index *ix);

/* The number of the entry with this key, or HASH_NONE. */
uint32_t hash_index_find(const struct hash_index *ix, uint64_t hash, hash_eq_fn eq,
			 const void *table, const void *key);

/* Records that entry number id has this hash (its key is not there yet:
 * find first).  0, or -1 when out of memory. */
int hash_index_add(struct hash_index *ix, uint64_t hash, uint32_t id);

/* FNV-1a of bytes, and a mix for one 64-bit word. */
uint64_t hash_bytes(const void *data, size_t len);
uint64_t hash_word(uint64_t w);

#endif
