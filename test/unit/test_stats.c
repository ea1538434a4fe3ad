/* Unit tests: the duration histogram behind the summary's percentiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/stats.h"

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

static void bucket_edges(void **state)
{
	(void)state;
	/* The value and a larger one (200 ms, the max): the median is the
	 * value's bucket top, uncapped. */
	struct {
		uint64_t ns, top;
	} cases[] = {
		{ 0, 1000 },
		{ 999, 1000 },
		{ 1000, 2000 },              /* bucket [1, 2) us */
		{ 1001, 2000 },
		{ 999999, 1000000 },         /* last fine bucket */
		{ 1000000, 1100000 },        /* first coarse bucket [1, 1.1) ms */
		{ 1099999, 1100000 },
		{ 1100000, 1200000 },
		{ 99999999, 100000000 },     /* last coarse bucket */
		{ 100000000, 200000000 },    /* overflow bucket: its top is the max */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&h, 0, sizeof(h));
		hist_add(&h, cases[i].ns);
		hist_add(&h, 200000000);
		uint64_t got = hist_quantile(&h, 0.5);
		if (got != cases[i].top)
			fail_msg("%llu ns: %llu, want %llu", (unsigned long long)cases[i].ns,
				 (unsigned long long)got, (unsigned long long)cases[i].top);
		/* Alone, a value is its own max. */
		memset(&h, 0, sizeof(h));
		hist_add(&h, cases[i].ns);
		assert_int_equal(hist_quantile(&h, 0.5), cases[i].ns);
	}
	memset(&h, 0, sizeof(h));
	hist_add(&h, UINT64_MAX);
	assert_int_equal(hist_quantile(&h, 0.5), UINT64_MAX);
	/* Where each value lands. */
	memset(&h, 0, sizeof(h));
	hist_add(&h, 999);
	hist_add(&h, 1000);
	hist_add(&h, 1000000);
	hist_add(&h, 99999999);
	hist_add(&h, 100000000);
	assert_int_equal(h.bucket[0], 1);
	assert_int_equal(h.bucket[1], 1);
	assert_int_equal(h.bucket[HIST_FINE], 1);
	assert_int_equal(h.bucket[HIST_FINE + HIST_COARSE - 1], 1);
	assert_int_equal(h.bucket[HIST_BUCKETS - 1], 1);
}

static void rank_is_ceil_q_count(void **state)
{
	(void)state;
	memset(&h, 0, sizeof(h));
	for (int us = 1; us <= 4; us++)
		hist_add(&h, (uint64_t)us * 1000 + 500); /* 1.5, 2.5, 3.5, 4.5 us */
	assert_int_equal(hist_quantile(&h, 0.25), 2000); /* 1st value */
	assert_int_equal(hist_quantile(&h, 0.26), 3000); /* ceil(1.04) = 2nd */
	assert_int_equal(hist_quantile(&h, 0.5), 3000);
	assert_int_equal(hist_quantile(&h, 0.51), 4000);
	assert_int_equal(hist_quantile(&h, 0.75), 4000);
	assert_int_equal(hist_quantile(&h, 0.76), 4500); /* 4th: top 5 us, capped */
	assert_int_equal(hist_quantile(&h, 1e-9), 2000); /* rank at least 1 */
}

static void odd_q(void **state)
{
	(void)state;
	memset(&h, 0, sizeof(h));
	hist_add(&h, 5000);
	hist_add(&h, 9000);
	assert_int_equal(hist_quantile(&h, 0), 0);
	assert_int_equal(hist_quantile(&h, -1), 0);
	assert_int_equal(hist_quantile(&h, 0.0 / 0.0), 0); /* NaN */
	assert_int_equal(hist_quantile(&h, 2), 9000);     /* as 1 */
}

static void sums(void **state)
{
	(void)state;
	memset(&h, 0, sizeof(h));
	uint64_t total = 0;
	for (uint64_t v = 1; v < 300000000; v = v * 3 + 7) {
		hist_add(&h, v);
		total += v;
	}
	uint64_t n = 0;
	for (int i = 0; i < HIST_BUCKETS; i++)
		n += h.bucket[i];
	assert_int_equal(n, h.count);
	assert_int_equal(h.total_ns, total);
	assert_true(hist_quantile(&h, 1.0) == h.max_ns);
	/* Quantiles never decrease with q. */
	uint64_t prev = 0;
	for (double q = 0.01; q <= 1.0; q += 0.01) {
		uint64_t v = hist_quantile(&h, q);
		assert_true(v >= prev);
		prev = v;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty),
		cmocka_unit_test(exact_totals_and_max),
		cmocka_unit_test(fine_quantiles),
		cmocka_unit_test(coarse_quantiles),
		cmocka_unit_test(bucket_edges),
		cmocka_unit_test(rank_is_ceil_q_count),
		cmocka_unit_test(odd_q),
		cmocka_unit_test(sums),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
