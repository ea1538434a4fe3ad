/* burst.c - a mostly idle process that works in short bursts between
 * waits, as a database backend does (a query, then the client's next
 * message): the pattern a fast sampler under-counts if its ticks are
 * not where the time is.
 *
 *   burst SECONDS [THREADS] [PERIOD_US] [WORK_US] [grid|drift]
 *
 * THREADS threads (default 1) named burst0, burst1...: each wakes every
 * PERIOD_US (default 10000), spins in burst_work for WORK_US of wall time
 * (default 1000), and sleeps in burst_wait: to the next multiple of the
 * period on the clock (grid, the default) or for PERIOD - WORK (drift: the
 * period drifts by the work's overruns).  Threads are spread over the
 * period.
 *
 * At exit each thread prints its own truth, from the clock around every
 * burst (wall) and from its schedstat (time on a CPU, time queued):
 *   burst thread=burst0 work_ns=N wall_ns=N run_ns=N wait_ns=N
 * With BURST_PHASES=FILE set, every burst is also written there, one line
 * "TID START_NS END_NS" (CLOCK_MONOTONIC), for a tick-by-tick look at
 * what a profile made of them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "own_truth.h"

#define MAX_THREADS 64

volatile uint64_t sink;

__attribute__((noinline)) void burst_work(uint64_t until)
{
	while (now() < until)
		sink++;
}

__attribute__((noinline)) void burst_wait(int grid, uint64_t until)
{
	struct timespec ts;
	uint64_t t = until;
	if (!grid) {
		uint64_t n = now();
		t = until > n ? until - n : 0;
	}
	ts.tv_sec = (time_t)(t / 1000000000ULL);
	ts.tv_nsec = (long)(t % 1000000000ULL);
	if (grid)
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
			;
	else
		nanosleep(&ts, NULL);
}

static uint64_t end_ns, period_ns, work_ns;
static int grid = 1;
static FILE *phases;
static pthread_mutex_t phases_lock = PTHREAD_MUTEX_INITIALIZER;

struct worker {
	pthread_t id;
	char name[16];
	uint64_t offset;
};

static void *run(void *arg)
{
	struct worker *w = arg;
	pthread_setname_np(pthread_self(), w->name);
	pid_t tid = (pid_t)syscall(SYS_gettid);
	unsigned long long run0, wait0, run1, wait1;
	uint64_t t0 = now(), worked = 0;
	thread_schedstat(&run0, &wait0);
	uint64_t next = (t0 / period_ns + 1) * period_ns + w->offset;
	burst_wait(1, next);
	while (now() < end_ns) {
		uint64_t start = now();
		burst_work(start + work_ns);
		uint64_t stop = now();
		worked += stop - start;
		if (phases) {
			pthread_mutex_lock(&phases_lock);
			fprintf(phases, "%d %llu %llu\n", (int)tid, (unsigned long long)start,
				(unsigned long long)stop);
			pthread_mutex_unlock(&phases_lock);
		}
		next += period_ns;
		burst_wait(grid, grid ? next : stop + (period_ns - work_ns));
	}
	thread_schedstat(&run1, &wait1);
	printf("burst thread=%s work_ns=%llu wall_ns=%llu run_ns=%llu wait_ns=%llu\n", w->name,
	       (unsigned long long)worked, (unsigned long long)(now() - t0), run1 - run0,
	       wait1 - wait0);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	period_ns = (argc > 3 ? strtoull(argv[3], NULL, 10) : 10000) * 1000ULL;
	work_ns = (argc > 4 ? strtoull(argv[4], NULL, 10) : 1000) * 1000ULL;
	if (argc > 5)
		grid = strcmp(argv[5], "drift") != 0;
	if (threads < 1 || threads > MAX_THREADS || work_ns >= period_ns)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *path = getenv("BURST_PHASES");
	if (path && !(phases = fopen(path, "w")))
		return 2;
	end_ns = now() + (uint64_t)(seconds * 1e9);
	static struct worker w[MAX_THREADS];
	for (int i = 0; i < threads; i++) {
		w[i].offset = period_ns * (uint64_t)i / (uint64_t)threads;
		snprintf(w[i].name, sizeof(w[i].name), "burst%d", i);
		pthread_create(&w[i].id, NULL, run, &w[i]);
	}
	for (int i = 0; i < threads; i++)
		pthread_join(w[i].id, NULL);
	if (phases)
		fclose(phases);
	return 0;
}
