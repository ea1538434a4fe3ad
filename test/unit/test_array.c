/* Unit tests: array_reserve, the one way arrays grow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "base/array.h"

/* array_reserve: room for at least what is asked, doubling; a size that
 * cannot be had leaves the array as it was. */
static void arrays_reserved(void **state)
{
	(void)state;
	uint32_t *a = NULL;
	size_t cap = 0;
	assert_true(array_reserve((void **)&a, 0, &cap, sizeof(*a)));
	assert_null(a);
	assert_true(array_reserve((void **)&a, 1, &cap, sizeof(*a)));
	assert_non_null(a);
	assert_true(cap >= 1);
	size_t first = cap;
	assert_true(array_reserve((void **)&a, first, &cap, sizeof(*a)));
	assert_int_equal(cap, first);
	assert_true(array_reserve((void **)&a, 5 * first + 1, &cap, sizeof(*a)));
	assert_true(cap >= 5 * first + 1 && cap <= 16 * first);
	a[cap - 1] = 7;
	uint32_t *was = a;
	size_t had = cap;
	assert_false(array_reserve((void **)&a, SIZE_MAX / 2, &cap, sizeof(*a)));
	assert_false(array_reserve((void **)&a, SIZE_MAX, &cap, 1));
	assert_ptr_equal(a, was);
	assert_int_equal(cap, had);
	assert_int_equal(a[cap - 1], 7);
	free(a);
}

/* Appending one at a time: the capacity doubles, so n appends cost
 * fewer than 2n copies and the contents survive every move. */
static void appends_keep_contents(void **state)
{
	(void)state;
	uint64_t *a = NULL;
	size_t n = 0, cap = 0, grows = 0;
	for (uint64_t i = 0; i < 100000; i++) {
		size_t had = cap;
		assert_true(array_reserve((void **)&a, n + 1, &cap, sizeof(*a)));
		grows += cap != had;
		a[n++] = i * 3;
	}
	for (size_t i = 0; i < n; i++)
		if (a[i] != i * 3)
			fail_msg("element %zu is %ju", i, (uintmax_t)a[i]);
	assert_true(grows <= 12); /* 64 doubled to 131072 */
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(arrays_reserved),
		cmocka_unit_test(appends_keep_contents),
	};
	return cmocka_run_group_tests_name("array", tests, NULL, NULL);
}
