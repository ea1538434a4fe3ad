/* Unit tests: durations in the summary, as a person reads them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/summary.h"

static void durations(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(format_duration(10000000ULL, b, sizeof(b)), "10 ms");
	assert_string_equal(format_duration(100000ULL, b, sizeof(b)), "100 us");
	assert_string_equal(format_duration(1500000ULL, b, sizeof(b)), "1.5 ms");
	assert_string_equal(format_duration(2500000000ULL, b, sizeof(b)), "2.5 s");
	assert_string_equal(format_duration(500ULL, b, sizeof(b)), "500 ns");
	assert_string_equal(format_duration(1ULL, b, sizeof(b)), "1 ns");
	assert_string_equal(format_duration(0ULL, b, sizeof(b)), "0 ns");
	/* the largest interval the options take: days, not a 14-digit rate */
	assert_string_equal(format_duration(100000000ULL * 1000000000ULL, b, sizeof(b)), "1157 days");
	assert_string_equal(format_duration(INT64_MAX, b, sizeof(b)), "106752 days");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations),
	};
	return cmocka_run_group_tests_name("summary", tests, NULL, NULL);
}
