/* Unit tests: pointers numbered in order of first sight (ptr_index.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/ptr_index.h"

#define N 5000

static void numbers_in_order_of_first_sight(void **state)
{
	(void)state;
	static char items[N];
	struct ptr_index m = { 0 };
	for (size_t i = 0; i < N; i++) {
		uint32_t k = UINT32_MAX;
		bool added = false;
		assert_int_equal(ptr_index_get(&m, &items[i], &k, &added), 0);
		assert_int_equal(k, i);
		assert_true(added);
	}
	assert_int_equal(m.n, N);
	/* seen again, from the end: the same numbers, nothing added */
	for (size_t i = N; i-- > 0;) {
		uint32_t k = UINT32_MAX;
		bool added = true;
		assert_int_equal(ptr_index_get(&m, &items[i], &k, &added), 0);
		assert_int_equal(k, i);
		assert_false(added);
		assert_ptr_equal(m.keys[k], &items[i]);
	}
	assert_int_equal(m.n, N);
	ptr_index_free(&m);
	assert_null(m.keys);
	assert_int_equal(m.n, 0);
}

static void equal_pointers_not_equal_texts(void **state)
{
	(void)state;
	/* the key is the pointer: two copies of one text are two keys */
	char a[] = "main", b[] = "main";
	struct ptr_index m = { 0 };
	uint32_t ka, kb, again;
	assert_int_equal(ptr_index_get(&m, a, &ka, NULL), 0);
	assert_int_equal(ptr_index_get(&m, b, &kb, NULL), 0);
	assert_int_equal(ptr_index_get(&m, a, &again, NULL), 0);
	assert_int_equal(ka, 0);
	assert_int_equal(kb, 1);
	assert_int_equal(again, 0);
	/* NULL is a pointer like another */
	uint32_t kn;
	bool added = false;
	assert_int_equal(ptr_index_get(&m, NULL, &kn, &added), 0);
	assert_int_equal(kn, 2);
	assert_true(added);
	ptr_index_free(&m);
	ptr_index_free(&m); /* freed is empty: freeing again is harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_in_order_of_first_sight),
		cmocka_unit_test(equal_pointers_not_equal_texts),
	};
	return cmocka_run_group_tests_name("ptr_index", tests, NULL, NULL);
}
