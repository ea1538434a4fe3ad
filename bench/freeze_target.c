/* freeze_target.c - a CPU-bound program that measures its own freezes.
 *
 * It reads CLOCK_MONOTONIC (vDSO, ~20 ns) in a tight loop with a little
 * arithmetic between reads.  Any gap between two reads longer than
 * GAP_NS is time it did not run: a ptrace stop, or the CPU taken by
 * something else.  Run alone it gives the machine's background; under a
 * profiler the difference is what the profiler cost it.
 *
 *   freeze_target SECONDS REPORT_FILE
 *
 * Writes one line to REPORT_FILE when done (or on SIGTERM):
 *   iterations=N seconds=S gaps=G gap_total_us=T p50_us=.. p99_us=.. mean_us=.. max_us=..
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GAP_NS 5000           /* shorter than any ptrace stop we have seen */
#define BUCKETS 100000        /* 1 us each, up to 100 ms */

static uint32_t hist[BUCKETS + 1];
static volatile sig_atomic_t stop;

static void on_term(int sig) { (void)sig; stop = 1; }

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static double quantile(uint64_t n, double q)
{
	uint64_t want = (uint64_t)(q * (double)n + 0.999999), seen = 0;
	for (int i = 0; i <= BUCKETS; i++) {
		seen += hist[i];
		if (seen >= want && want)
			return i + 1;
	}
	return 0;
}

__attribute__((noinline)) uint64_t measure_loop(uint64_t end, uint64_t *iters,
						uint64_t *gaps, uint64_t *gap_total,
						uint64_t *gap_max)
{
	uint64_t prev = now(), acc = 1;
	while (!stop && prev < end) {
		for (int i = 0; i < 20; i++)
			acc = acc * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t t = now();
		uint64_t d = t - prev;
		if (d > GAP_NS) {
			(*gaps)++;
			*gap_total += d;
			if (d > *gap_max)
				*gap_max = d;
			uint64_t b = d / 1000;
			hist[b < BUCKETS ? b : BUCKETS]++;
		}
		prev = t;
		(*iters)++;
	}
	return acc;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: freeze_target SECONDS REPORT_FILE\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	uint64_t start = now();
	uint64_t end = start + (uint64_t)(atof(argv[1]) * 1e9);
	uint64_t iters = 0, gaps = 0, gap_total = 0, gap_max = 0;
	uint64_t acc = measure_loop(end, &iters, &gaps, &gap_total, &gap_max);
	double secs = (double)(now() - start) / 1e9;
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "iterations=%llu seconds=%.3f gaps=%llu gap_total_us=%.1f p50_us=%.0f "
		"p99_us=%.0f mean_us=%.1f max_us=%.1f acc=%llu\n",
		(unsigned long long)iters, secs, (unsigned long long)gaps, gap_total / 1e3,
		quantile(gaps, 0.5), quantile(gaps, 0.99),
		gaps ? gap_total / 1e3 / (double)gaps : 0, gap_max / 1e3,
		(unsigned long long)(acc & 1));
	fclose(f);
	return 0;
}
