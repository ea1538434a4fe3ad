/* which.c - says which build it is in the name of its work: built twice,
 * with -DWORK=work_a and -DWORK=work_b, the same code at the same
 * addresses under two names (same size too), so that a frame named from
 * the other file of the two shows.
 *
 *   which_a [-s] MS
 *
 * Spins MS milliseconds in WORK (reading the clock), or with -s sleeps
 * them in it, then exits. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef WORK
#define WORK work_a
#endif

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

volatile uint64_t sink;

__attribute__((noinline)) void WORK(uint64_t ms, int sleeping)
{
	uint64_t end = now() + ms * 1000000ULL;
	if (sleeping) {
		struct timespec ts = { (time_t)(end / 1000000000ULL), (long)(end % 1000000000ULL) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
			;
		return;
	}
	while (now() < end)
		sink++;
}

int main(int argc, char **argv)
{
	int sleeping = argc > 2 && strcmp(argv[1], "-s") == 0;
	WORK(argc > 1 ? strtoull(argv[argc - 1], NULL, 10) : 1000, sleeping);
	return 0;
}
