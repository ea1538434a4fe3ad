/* work_sleep.c - the loop of a script or a poller: about 4 ms of work on
 * CPU, then a 10 ms sleep, again and again (a CPython loop of the kind
 * is on a CPU about 30-45 % of its time).  Its thread is named "worker".
 *
 *   work_sleep SECONDS
 *
 * At exit it prints its own truth from its schedstat (time on a CPU, time
 * waiting for one) and its wall time, in the format of runqueue.c:
 *   thread=worker run_ns=N wait_ns=N wall_ns=N
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "own_truth.h"

volatile uint64_t sink;

/* A fixed amount of work, not a deadline: time it waits for a CPU is not
 * counted as work done. */
__attribute__((noinline)) static void work_burst(void)
{
	uint64_t x = sink;
	for (long i = 0; i < 4000000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

__attribute__((noinline)) static void rest(void)
{
	struct timespec ts = { 0, 10000000 };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	prctl(PR_SET_NAME, "worker");
	setvbuf(stdout, NULL, _IOLBF, 0);
	unsigned long long run0, wait0, run1, wait1;
	thread_schedstat(&run0, &wait0);
	uint64_t t0 = now(), end = t0 + (uint64_t)(seconds * 1e9);
	while (now() < end) {
		work_burst();
		rest();
	}
	uint64_t wall = now() - t0;
	thread_schedstat(&run1, &wait1);
	printf("thread=worker run_ns=%llu wait_ns=%llu wall_ns=%llu\n", run1 - run0, wait1 - wait0,
	       (unsigned long long)wall);
	return 0;
}
