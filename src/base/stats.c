/* stats.c - fixed-size duration histogram. */
#include "base/stats.h"

static unsigned bucket_of(uint64_t ns)
{
	uint64_t us = ns / 1000;
	if (us < HIST_FINE)
		return (unsigned)us;
	uint64_t coarse = (us - HIST_FINE) / 100;
	return coarse < HIST_COARSE ? (unsigned)(HIST_FINE + coarse) : HIST_BUCKETS - 1;
}

/* Upper edge of bucket i, in ns. */
static uint64_t bucket_top(unsigned i)
{
	if (i < HIST_FINE)
		return (uint64_t)(i + 1) * 1000;
	if (i < HIST_FINE + HIST_COARSE)
		return ((uint64_t)HIST_FINE + (uint64_t)(i - HIST_FINE + 1) * 100) * 1000;
	return UINT64_MAX;
}

void hist_add(struct duration_hist *h, uint64_t ns)
{
	h->count++;
	h->total_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->bucket[bucket_of(ns)]++;
}

uint64_t hist_quantile(const struct duration_hist *h, double q)
{
	if (!h->count || !(q > 0)) /* NaN as well */
		return 0;
	if (q > 1)
		q = 1;
	/* The rank-th smallest value, rank = ceil(q * count). */
	double r = q * (double)h->count;
	uint64_t rank = (uint64_t)r;
	if ((double)rank < r)
		rank++;
	if (rank == 0)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t top = bucket_top(i);
			return top < h->max_ns ? top : h->max_ns;
		}
	}
	return h->max_ns;
}
