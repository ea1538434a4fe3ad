/* conn_server.c - a server of threads, as MariaDB is one: a thread per
 * connection, every one of them named "conn", each serving its client in
 * turn - about 0.5 ms of work on a CPU, then 0.5 ms waiting for the next
 * request - and a listener that sleeps all along.  Six connections want
 * three CPUs: on two, they queue for one, as a busy server's threads do.
 *
 *   conn_server SECONDS [CONNECTIONS]
 *
 * At exit each connection prints its own truth from its schedstat (time
 * on a CPU, time waiting for one) and its wall time, in runqueue.c's
 * format with its thread id:
 *   thread=conn tid=N run_ns=N wait_ns=N wall_ns=N
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "own_truth.h"

#define MAX_CONNECTIONS 32

static double seconds = 3;
static pthread_barrier_t start;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
volatile uint64_t sink;

/* A fixed amount of work, not a deadline: time spent queued for a CPU is
 * not counted as work done. */
__attribute__((noinline)) static void serve_request(void)
{
	uint64_t x = sink;
	for (long i = 0; i < 500000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

__attribute__((noinline)) static void wait_for_client(void)
{
	struct timespec ts = { 0, 500000 };
	nanosleep(&ts, NULL);
}

static void *connection(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "conn");
	pthread_barrier_wait(&start);
	unsigned long long run0, wait0, run1, wait1;
	thread_schedstat(&run0, &wait0);
	uint64_t t0 = now(), end = t0 + (uint64_t)(seconds * 1e9);
	while (now() < end) {
		serve_request();
		wait_for_client();
	}
	uint64_t wall = now() - t0;
	thread_schedstat(&run1, &wait1);
	pthread_mutex_lock(&print_lock);
	printf("thread=conn tid=%d run_ns=%llu wait_ns=%llu wall_ns=%llu\n", (int)gettid(),
	       run1 - run0, wait1 - wait0, (unsigned long long)wall);
	pthread_mutex_unlock(&print_lock);
	return NULL;
}

__attribute__((noinline)) static void *listener(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "conn");
	pthread_barrier_wait(&start);
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	nanosleep(&ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	seconds = argc > 1 ? atof(argv[1]) : 3;
	int n = argc > 2 ? atoi(argv[2]) : 6;
	if (n < 1 || n > MAX_CONNECTIONS)
		n = 6;
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_t t[MAX_CONNECTIONS + 1];
	pthread_barrier_init(&start, NULL, (unsigned)n + 2);
	pthread_create(&t[n], NULL, listener, NULL);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, connection, NULL);
	pthread_barrier_wait(&start);
	for (int i = 0; i <= n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
