/* Unit tests: durations and decimal digits as the writers spell them
 * (numbers.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "output/numbers.h"

static void durations_exact_in_the_largest_unit(void **state)
{
	(void)state;
	static const struct { uint64_t ns; const char *want; } cases[] = {
		{ 0, "0ns" },
		{ 999, "999ns" },
		{ 1000, "1us" },
		{ 1001, "1.001us" },
		{ 100000, "100us" },
		{ 1500000, "1.5ms" },
		{ 10000000, "10ms" },
		{ 2000000000ULL, "2s" },
		{ 2500000000ULL, "2.5s" },
		/* finer than a thousandth of a unit: said in the next, never rounded */
		{ 1234567, "1234.567us" },
		{ 1000000001ULL, "1000000.001us" },
		{ 1000000000001ULL, "1000000000.001us" }, /* from 1us on, us is exact */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[32];
		format_ns(out, sizeof(out), cases[i].ns);
		assert_string_equal(out, cases[i].want);
	}
	/* a short buffer: cut, still a string */
	char small[4];
	format_ns(small, sizeof(small), 10000000);
	assert_string_equal(small, "10m");
}

static void decimal_digits(void **state)
{
	(void)state;
	char out[21];
	assert_int_equal(u64_to_dec(0, out), 1);
	assert_string_equal(out, "0");
	assert_int_equal(u64_to_dec(10, out), 2);
	assert_string_equal(out, "10");
	assert_int_equal(u64_to_dec(4294967296ULL, out), 10);
	assert_string_equal(out, "4294967296");
	assert_int_equal(u64_to_dec(UINT64_MAX, out), 20);
	assert_string_equal(out, "18446744073709551615");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations_exact_in_the_largest_unit),
		cmocka_unit_test(decimal_digits),
	};
	return cmocka_run_group_tests_name("numbers", tests, NULL, NULL);
}
