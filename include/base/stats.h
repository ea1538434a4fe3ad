/* stats.h - the numbers in the end-of-run summary.
 *
 * Durations go into a fixed histogram (no per-sample allocation, memory
 * flat in the number of samples); percentiles are read from it with a
 * bucket's resolution, max and total are exact.
 */
#ifndef PTRACE_PROFILER_STATS_H
#define PTRACE_PROFILER_STATS_H

#include <stdint.h>

/* Buckets: 1 us wide up to 1 ms, then 100 us wide up to 100 ms, then one
 * overflow bucket. */
#define HIST_FINE 1000
#define HIST_COARSE 990
#define HIST_BUCKETS (HIST_FINE + HIST_COARSE + 1)

struct duration_hist {
	uint64_t count;
	uint64_t total_ns;
	uint64_t max_ns;
	uint32_t bucket[HIST_BUCKETS];
};

void hist_add(struct duration_hist *h, uint64_t ns);

/* The q-quantile (0 < q <= 1) in ns: the upper edge of the bucket holding
 * it, capped by max.  0 when empty. */
uint64_t hist_quantile(const struct duration_hist *h, double q);

#endif
