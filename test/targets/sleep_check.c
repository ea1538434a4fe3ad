/* sleep_check.c - the target's own view of being profiled.
 *   sleep_check N MS REPORT
 * Sleeps N times for MS milliseconds (relative nanosleep: the kind the
 * kernel restarts with the time left after a ptrace stop), measures each
 * sleep, then writes "sleeps=N short=S eintr=E max_over_us=M" to REPORT
 * and exits 0.  short counts sleeps that ended early: there must be none. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) int nap(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };
	return nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int n = atoi(argv[1]);
	uint64_t ns = (uint64_t)atoi(argv[2]) * 1000000ULL;
	int shortened = 0, eintr = 0;
	uint64_t max_over = 0;
	for (int i = 0; i < n; i++) {
		uint64_t t0 = now();
		if (nap(ns) != 0 && errno == EINTR)
			eintr++;
		uint64_t took = now() - t0;
		if (took < ns)
			shortened++;
		else if (took - ns > max_over)
			max_over = took - ns;
	}
	FILE *f = fopen(argv[3], "w");
	if (!f)
		return 1;
	fprintf(f, "sleeps=%d short=%d eintr=%d max_over_us=%llu\n", n, shortened, eintr,
		(unsigned long long)(max_over / 1000));
	fclose(f);
	return 0;
}
