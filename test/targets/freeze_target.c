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
 * A gap during which the thread made a voluntary context switch is a
 * stop: the loop never sleeps, so only a ptrace stop (or a signal stop)
 * puts it to sleep, while interrupts and preemption are involuntary.  Stop
 * gaps are the freezes a ptrace profiler caused, measured exactly, without
 * the background's own gaps (whose total drifts by milliseconds a second).
 *
 * Writes one line to REPORT_FILE when done (or on SIGTERM):
 *   iterations=N seconds=S gaps=G gap_total_us=T p50_us=.. p99_us=.. mean_us=.. max_us=..
 *   stops=K stop_total_us=.. stop_p50_us=.. stop_p99_us=..
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define GAP_NS 5000           /* shorter than any ptrace stop we have seen */
#define BUCKETS 100000        /* 1 us each, up to 100 ms */

static uint32_t hist[BUCKETS + 1], stop_hist[BUCKETS + 1];
static volatile sig_atomic_t stop;

static void on_term(int sig) { (void)sig; stop = 1; }

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static long voluntary_switches(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

static double quantile(const uint32_t *h, uint64_t n, double q)
{
	uint64_t want = (uint64_t)(q * (double)n + 0.999999), seen = 0;
	for (int i = 0; i <= BUCKETS; i++) {
		seen += h[i];
		if (seen >= want && want)
			return i + 1;
	}
	return 0;
}

struct gaps {
	uint64_t n, total, max;        /* every gap */
	uint64_t stops, stop_total;    /* gaps with a voluntary switch */
};

__attribute__((noinline)) uint64_t measure_loop(uint64_t end, uint64_t *iters, struct gaps *g)
{
	uint64_t prev = now(), acc = 1;
	long switches = voluntary_switches();
	while (!stop && prev < end) {
		for (int i = 0; i < 20; i++)
			acc = acc * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t t = now();
		uint64_t d = t - prev;
		if (d > GAP_NS) {
			g->n++;
			g->total += d;
			if (d > g->max)
				g->max = d;
			uint64_t b = d / 1000;
			hist[b < BUCKETS ? b : BUCKETS]++;
			long now_switches = voluntary_switches();
			if (now_switches != switches) {
				switches = now_switches;
				g->stops++;
				g->stop_total += d;
				stop_hist[b < BUCKETS ? b : BUCKETS]++;
			}
			t = now(); /* the look-up is ours, not a gap */
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
	uint64_t iters = 0;
	struct gaps g = { 0 };
	uint64_t acc = measure_loop(end, &iters, &g);
	double secs = (double)(now() - start) / 1e9;
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "iterations=%llu seconds=%.3f gaps=%llu gap_total_us=%.1f p50_us=%.0f "
		"p99_us=%.0f mean_us=%.1f max_us=%.1f stops=%llu stop_total_us=%.1f "
		"stop_p50_us=%.0f stop_p99_us=%.0f acc=%llu\n",
		(unsigned long long)iters, secs, (unsigned long long)g.n, g.total / 1e3,
		quantile(hist, g.n, 0.5), quantile(hist, g.n, 0.99),
		g.n ? g.total / 1e3 / (double)g.n : 0, g.max / 1e3,
		(unsigned long long)g.stops, g.stop_total / 1e3,
		quantile(stop_hist, g.stops, 0.5), quantile(stop_hist, g.stops, 0.99),
		(unsigned long long)(acc & 1));
	fclose(f);
	return 0;
}
