/* Unit tests: the duration histogram behind the summary's percentiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "stats.h"

static struct duration_hist h; /* large: not on the stack */

static void empty(void **state)
{
	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(hist_quantile(&h, 0.5), 0);
}

static void exact_totals_and_max(void **state)
{
	(void)state;
	memset(&h, 0, sizeof(h));
	hist_add(&h, 1500);
	hist_add(&h, 2500);
	hist_add(&h, 250000000); /* 250 ms: overflow bucket */
	assert_int_equal(h.count, 3);
	assert_int_equal(h.total_ns, 250004000ULL);
	assert_int_equal(h.max_ns, 250000000ULL);
	assert_int_equal(hist_quantile(&h, 1.0), 250000000ULL); /* capped by max */
}

static void fine_quantiles(void **state)
{
	(void)state;
	memset(&h, 0, sizeof(h));
	/* 1..100 us, one sample each. */
	for (int us = 1; us <= 100; us++)
		hist_add(&h, (uint64_t)us * 1000 + 300);
	assert_int_equal(hist_quantile(&h, 0.50), 51000); /* 50th value 50.3 us: bucket [50,51) */
	assert_int_equal(hist_quantile(&h, 0.99), 100000);
	assert_int_equal(hist_quantile(&h, 0.01), 2000);
	assert_int_equal(hist_quantile(&h, 1.0), 100300); /* the max itself */
}

static void coarse_quantiles(void **state)
{
	(void)state;
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 99; i++)
		hist_add(&h, 20000);          /* 20 us */
	hist_add(&h, 5050000);                /* 5.05 ms: 100 us wide bucket */
	assert_int_equal(hist_quantile(&h, 0.5), 21000);
	assert_int_equal(hist_quantile(&h, 0.99), 21000);
	assert_int_equal(hist_quantile(&h, 0.999), 5050000); /* bucket top 5.1 ms, capped by max */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty),
		cmocka_unit_test(exact_totals_and_max),
		cmocka_unit_test(fine_quantiles),
		cmocka_unit_test(coarse_quantiles),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
