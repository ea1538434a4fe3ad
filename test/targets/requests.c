/* requests.c - a thread-per-request server: the main thread starts a
 * thread for each request, which works about 50 us in request_work and
 * ends; thousands a second, for the run (issue 30's thread churn).
 *
 *   requests [SECONDS]
 *
 * At exit it prints how many requests it served: "requests served=N". */
#define _GNU_SOURCE
#include <pthread.h>
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

volatile uint64_t sink;

__attribute__((noinline)) static void request_work(void)
{
	uint64_t end = now() + 50000;
	while (now() < end)
		sink++;
}

static void *serve(void *arg)
{
	(void)arg;
	request_work();
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	uint64_t end = now() + (uint64_t)(secs * 1e9);
	unsigned long served = 0;
	while (now() < end) {
		pthread_t t;
		if (pthread_create(&t, NULL, serve, NULL) != 0)
			continue;
		pthread_join(t, NULL);
		served++;
	}
	printf("requests served=%lu\n", served);
	return 0;
}
