/* dead_leader.c - a process whose main thread has exited (pthread_exit in
 * main: "Zl" in ps) while a worker runs on.  Its /proc/PID/maps is then
 * empty; /proc/PID/task/TID/maps of the worker is not.  The worker, named
 * "worker", spends its time in 100 ms cycles:
 *   70 % spin_work (plain arithmetic, on CPU)
 *   30 % rest_work (off CPU, in nanosleep)
 * With argv[1] = MS, main waits MS milliseconds before it exits (a
 * profiler attached by then sees the main thread go); with argv[2] =
 * "spin" it spends them on CPU, so that it is often interrupted by the
 * profiler just as it exits.  Runs until killed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CYCLE_NS 100000000ULL

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

volatile uint64_t sink;

__attribute__((noinline)) void spin_work(uint64_t until)
{
	uint64_t x = sink;
	do {
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
	} while (now() < until);
}

__attribute__((noinline)) void rest_work(uint64_t until)
{
	struct timespec ts = { (time_t)(until / 1000000000ULL), (long)(until % 1000000000ULL) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}

__attribute__((noinline)) void *worker_main(void *arg)
{
	(void)arg;
	for (uint64_t cycle = now();; cycle += CYCLE_NS) {
		spin_work(cycle + CYCLE_NS * 7 / 10);
		rest_work(cycle + CYCLE_NS);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	if (pthread_create(&t, NULL, worker_main, NULL) != 0)
		return 1;
	pthread_setname_np(t, "worker");
	uint64_t until = argc > 1 ? now() + (uint64_t)atoi(argv[1]) * 1000000ULL : 0;
	if (argc > 2 && strcmp(argv[2], "spin") == 0)
		spin_work(until);
	else if (argc > 1)
		rest_work(until);
	pthread_exit(NULL); /* the process lives on in its worker */
}
