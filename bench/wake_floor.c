/* wake_floor.c - what this machine charges a sampler for waking up.
 *
 * Every tick of ptrace_profiler is a wake-up on a timer, and a thread
 * followed to its CPU (issue 41) costs one more each round: our helper,
 * asleep on the other CPU, woken to take the sampler off the thread's.
 * Under a hypervisor both are dear (programming a timer and interrupting
 * an idle virtual CPU leave the guest), so the cost tables read better
 * beside them.  Two loops, each timed by the thread's own CPU clock:
 *
 *   timer   sleep until the next millisecond (clock_nanosleep, absolute),
 *           then nothing: the CPU one wake-up costs the sleeper
 *   remote  every millisecond, one eventfd write to a thread asleep on
 *           another CPU, idle: what that write costs the writer
 *
 *   wake_floor [COUNT]     (SCHED_FIFO 1 when allowed, as the sampler)
 *
 * Prints: timer_us=.. remote_write_us=.. (means over COUNT, 2000 by
 * default; remote_write_us=0 on one CPU).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_of(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int wake_fd = -1;

/* The sleeper on the other CPU: reads until the descriptor is closed. */
static void *sleeper(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	uint64_t n;
	while (read(wake_fd, &n, sizeof(n)) == sizeof(n))
		;
	return NULL;
}

/* Sleeps to the next millisecond from *next (absolute). */
static void next_ms(uint64_t *next)
{
	*next += 1000000ULL;
	struct timespec ts = { (time_t)(*next / 1000000000ULL), (long)(*next % 1000000000ULL) };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 2000;
	if (count <= 0) {
		fprintf(stderr, "usage: wake_floor [COUNT]\n");
		return 2;
	}
	struct sched_param fifo = { .sched_priority = 1 };
	sched_setscheduler(0, SCHED_FIFO, &fifo); /* (not root: as it is) */

	uint64_t next = clock_of(CLOCK_MONOTONIC);
	uint64_t cpu0 = clock_of(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < count; i++)
		next_ms(&next);
	double timer_us = (double)(clock_of(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 1e3 / (double)count;

	/* the writer on one CPU, the sleeper on another */
	double remote_us = 0;
	cpu_set_t allowed;
	int here = -1, there = -1;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
		for (int c = 0; c < CPU_SETSIZE && there < 0; c++)
			if (CPU_ISSET(c, &allowed)) {
				if (here < 0)
					here = c;
				else
					there = c;
			}
	wake_fd = eventfd(0, EFD_CLOEXEC);
	pthread_t t;
	if (there >= 0 && wake_fd >= 0 &&
	    pthread_create(&t, NULL, sleeper, (void *)(intptr_t)there) == 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(here, &one);
		sched_setaffinity(0, sizeof(one), &one);
		uint64_t spent = 0, v = 1;
		next = clock_of(CLOCK_MONOTONIC);
		for (long i = 0; i < count; i++) {
			next_ms(&next); /* (the sleeper long asleep again) */
			uint64_t a = clock_of(CLOCK_THREAD_CPUTIME_ID);
			if (write(wake_fd, &v, sizeof(v)) != sizeof(v))
				break;
			spent += clock_of(CLOCK_THREAD_CPUTIME_ID) - a;
		}
		remote_us = (double)spent / 1e3 / (double)count;
		close(wake_fd);
		pthread_cancel(t);
		pthread_join(t, NULL);
	}
	printf("timer_us=%.1f remote_write_us=%.1f\n", timer_us, remote_us);
	return 0;
}
