/* many_threads.c - a server's shape: many idle threads and a few busy.
 *
 *   many_threads IDLE BUSY [SECONDS [nap]]
 *
 * IDLE threads ("idle") wait on a condition variable nobody signals - or,
 * with "nap", wake every 0.5 s from nanosleep (idle_nap), as a pool's
 * housekeeping threads do; BUSY threads ("busy") spin in busy_work.  Runs
 * until killed, or SECONDS (0: until killed). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
volatile uint64_t sink;

__attribute__((noinline)) static void idle_wait(void)
{
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&never, &lock);
}

__attribute__((noinline)) static void busy_work(void)
{
	for (;;)
		sink++;
}

__attribute__((noinline)) static void idle_nap(void)
{
	struct timespec half = { 0, 500000000 };
	for (;;)
		nanosleep(&half, NULL);
}

static void *idle(void *arg)
{
	pthread_setname_np(pthread_self(), "idle");
	if (arg)
		idle_nap();
	else
		idle_wait();
	return NULL;
}

static void *busy(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "busy");
	busy_work();
	return NULL;
}

int main(int argc, char **argv)
{
	int n_idle = argc > 1 ? atoi(argv[1]) : 500;
	int n_busy = argc > 2 ? atoi(argv[2]) : 2;
	void *nap = argc > 4 && strcmp(argv[4], "nap") == 0 ? (void *)1 : NULL;
	pthread_attr_t small;
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 64 * 1024);
	for (int i = 0; i < n_idle; i++) {
		pthread_t t;
		if (pthread_create(&t, &small, idle, nap) != 0)
			return 1;
	}
	for (int i = 0; i < n_busy; i++) {
		pthread_t t;
		if (pthread_create(&t, &small, busy, NULL) != 0)
			return 1;
	}
	if (argc > 3 && atoi(argv[3]) > 0)
		sleep((unsigned)atoi(argv[3]));
	else
		for (;;)
			pause();
	return 0;
}
