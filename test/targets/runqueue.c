/* runqueue.c - threads that want more CPU than they get: two threads,
 * spin_a and spin_b, spin on one CPU (the process is bound to the CPU it
 * starts on, or to argv[2]), so each runs about half of the time and waits
 * for the CPU the other half.
 *
 *   runqueue SECONDS [CPU]
 *
 * At exit each thread prints its own truth from its schedstat (time on the
 * CPU, time waiting for it) and its wall time:
 *   thread=spin_a run_ns=N wait_ns=N wall_ns=N
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "own_truth.h"

static uint64_t end;
volatile uint64_t sink;

__attribute__((noinline)) static void spin(void)
{
	while (now() < end)
		for (int i = 0; i < 1000; i++)
			sink++;
}

static void *run(void *arg)
{
	const char *name = arg;
	unsigned long long run0, wait0, run1, wait1;
	pthread_setname_np(pthread_self(), name);
	thread_schedstat(&run0, &wait0);
	uint64_t t0 = now();
	spin();
	uint64_t wall = now() - t0;
	thread_schedstat(&run1, &wait1);
	printf("thread=%s run_ns=%llu wait_ns=%llu wall_ns=%llu\n", name, run1 - run0,
	       wait1 - wait0, (unsigned long long)wall);
	return NULL;
}

/* Two names, two functions: the profile tells them apart by both. */
__attribute__((noinline)) static void *spin_a(void *arg) { return run(arg); }
__attribute__((noinline)) static void *spin_b(void *arg) { return run(arg); }

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	int cpu = argc > 2 ? atoi(argv[2]) : sched_getcpu();
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0) {
		perror("sched_setaffinity");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	end = now() + (uint64_t)(seconds * 1e9);
	pthread_t a, b;
	pthread_create(&a, NULL, spin_a, "spin_a");
	pthread_create(&b, NULL, spin_b, "spin_b");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
