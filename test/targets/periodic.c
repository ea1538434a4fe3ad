/* periodic.c - the pattern of a database's background processes: wake on
 * a period, work a little, go back to sleep in the same call.
 *
 *   periodic SECONDS [THREADS] [PERIOD_MS] [WORK_US]
 *
 * THREADS threads (default 4) of each kind, spread over the period:
 *   gridN   clock_nanosleep(TIMER_ABSTIME) to the next multiple of the
 *           period (10 ms by default), then periodic_work for WORK_US
 *           (500 by default);
 *   driftN  periodic_work, then nanosleep(PERIOD - WORK): the period drifts
 *           by the work's own overruns.
 *
 * At exit each thread prints its own truth, measured with the clock
 * around every call of periodic_work (wall) and from its schedstat:
 *   periodic thread=grid0 work_ns=N wall_ns=N oncpu_ns=N
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "own_truth.h"

#define MAX_THREADS 64

static uint64_t oncpu_ns(void)
{
	unsigned long long run, wait;
	thread_schedstat(&run, &wait);
	return run;
}

volatile uint64_t sink;

__attribute__((noinline)) void periodic_work(uint64_t ns)
{
	uint64_t end = now() + ns;
	while (now() < end)
		sink++;
}

__attribute__((noinline)) void wait_grid(uint64_t until)
{
	struct timespec ts = { (time_t)(until / 1000000000ULL), (long)(until % 1000000000ULL) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}

__attribute__((noinline)) void wait_drift(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };
	nanosleep(&ts, NULL);
}

static uint64_t start, end, period, work;

struct worker {
	pthread_t id;
	char name[16];
	int drift;
	uint64_t offset;
};

static void *run(void *arg)
{
	struct worker *w = arg;
	pthread_setname_np(pthread_self(), w->name);
	uint64_t t0 = now(), cpu0 = oncpu_ns(), worked = 0;
	uint64_t next = (t0 / period + 1) * period + w->offset;
	if (w->drift)
		wait_drift(w->offset + 1);
	while (now() < end) {
		if (!w->drift) {
			wait_grid(next);
			next += period;
		}
		uint64_t t = now();
		periodic_work(work);
		worked += now() - t;
		if (w->drift)
			wait_drift(period - work);
	}
	printf("periodic thread=%s work_ns=%llu wall_ns=%llu oncpu_ns=%llu\n", w->name,
	       (unsigned long long)worked, (unsigned long long)(now() - t0),
	       (unsigned long long)(oncpu_ns() - cpu0));
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	int threads = argc > 2 ? atoi(argv[2]) : 4;
	period = (argc > 3 ? strtoull(argv[3], NULL, 10) : 10) * 1000000ULL;
	work = (argc > 4 ? strtoull(argv[4], NULL, 10) : 500) * 1000ULL;
	if (threads < 1 || threads > MAX_THREADS / 2 || work >= period)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	start = now();
	end = start + (uint64_t)(seconds * 1e9);
	static struct worker w[MAX_THREADS];
	int n = 0;
	for (int drift = 0; drift < 2; drift++)
		for (int i = 0; i < threads; i++, n++) {
			w[n].drift = drift;
			w[n].offset = period * (uint64_t)(2 * i + drift) / (2 * (uint64_t)threads);
			snprintf(w[n].name, sizeof(w[n].name), "%s%d", drift ? "drift" : "grid", i);
			pthread_create(&w[n].id, NULL, run, &w[n]);
		}
	for (int i = 0; i < n; i++)
		pthread_join(w[i].id, NULL);
	return 0;
}
