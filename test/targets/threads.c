/* threads.c - named threads in different states, and thread churn:
 *   spinner  on CPU, in spin
 *   reader   blocked in read() on a pipe, in wait_read
 *   sleeper  in nanosleep, in doze
 *   waiter   blocked on a mutex the main thread holds, in wait_lock
 *   main     creates short-lived "churn" threads (5 ms of work each), one
 *            after another, for ever */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pipe_fd[2];
volatile uint64_t sink;

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void spin(void) { for (;;) sink++; }

__attribute__((noinline)) void wait_read(void)
{
	char c;
	while (read(pipe_fd[0], &c, 1) != 0)
		;
}

__attribute__((noinline)) void doze(void)
{
	struct timespec ts = { 0, 50 * 1000000L };
	for (;;)
		nanosleep(&ts, NULL);
}

__attribute__((noinline)) void wait_lock(void)
{
	pthread_mutex_lock(&lock); /* held by main for ever */
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) void churn_work(void)
{
	uint64_t end = now() + 5000000;
	while (now() < end)
		sink++;
}

static void *run(void *arg)
{
	void (*fn)(void) = (void (*)(void))arg;
	fn();
	return NULL;
}

static void start(const char *name, void (*fn)(void))
{
	pthread_t t;
	pthread_create(&t, NULL, run, (void *)fn);
	pthread_setname_np(t, name);
	pthread_detach(t);
}

int main(void)
{
	if (pipe(pipe_fd) != 0)
		return 1;
	pthread_mutex_lock(&lock);
	start("spinner", spin);
	start("reader", wait_read);
	start("sleeper", doze);
	start("waiter", wait_lock);
	for (;;) {
		pthread_t t;
		pthread_create(&t, NULL, run, (void *)churn_work);
		pthread_setname_np(t, "churn");
		pthread_join(t, NULL);
	}
}
