/* Unit tests: the one hash table under every table of the profiler. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/hash_index.h"

#define N 20000

struct table {
	uint64_t keys[N];
	uint32_t n;
};

static bool same_key(const void *table, uint32_t id, const void *key)
{
	return ((const struct table *)table)->keys[id] == *(const uint64_t *)key;
}

/* hash: the key's own mix, or (collide) the same hash for every key */
static void add_and_find(bool collide, uint32_t count)
{
	static struct table t;
	t.n = 0;
	struct hash_index ix;
	assert_int_equal(hash_index_init(&ix), 0);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t key = (uint64_t)i * 7919 + 3;
		uint64_t h = collide ? 42 : hash_word(key);
		assert_int_equal(hash_index_find(&ix, h, same_key, &t, &key), HASH_NONE);
		t.keys[t.n] = key;
		assert_int_equal(hash_index_add(&ix, h, t.n), 0);
		t.n++;
	}
	for (uint32_t i = 0; i < count; i++) {
		uint64_t key = (uint64_t)i * 7919 + 3;
		uint64_t h = collide ? 42 : hash_word(key);
		assert_int_equal(hash_index_find(&ix, h, same_key, &t, &key), i);
	}
	uint64_t absent = 1;
	assert_int_equal(hash_index_find(&ix, collide ? 42 : hash_word(absent), same_key, &t, &absent),
			 HASH_NONE);
	assert_true(ix.used == count && ix.cap >= count * 4 / 3);
	hash_index_clear(&ix);
	uint64_t first = 3;
	assert_int_equal(hash_index_find(&ix, collide ? 42 : hash_word(first), same_key, &t, &first),
			 HASH_NONE);
	hash_index_free(&ix);
}

static void grows_and_finds_every_entry(void **state)
{
	(void)state;
	add_and_find(false, N);
}

static void survives_every_key_colliding(void **state)
{
	(void)state;
	add_and_find(true, 2000);
}

static void hashes_spread(void **state)
{
	(void)state;
	/* neighbouring words and one-byte differences land far apart */
	assert_true(hash_word(1) != hash_word(2));
	assert_true((hash_word(1) & 0xff) != (hash_word(2) & 0xff) ||
		    (hash_word(1) >> 56) != (hash_word(2) >> 56));
	assert_true(hash_bytes("ab", 2) != hash_bytes("ba", 2));
	assert_true(hash_bytes("a", 1) != hash_bytes("a", 2));
	assert_int_equal(hash_bytes("", 0), 0xcbf29ce484222325ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(grows_and_finds_every_entry),
		cmocka_unit_test(survives_every_key_colliding),
		cmocka_unit_test(hashes_spread),
	};
	return cmocka_run_group_tests_name("hash_index", tests, NULL, NULL);
}
