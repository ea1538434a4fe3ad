/* parked.c - threads that stay where they are, for --dump against
 * eu-stack: each blocked in its own call chain for as long as the program
 * runs, so two tools that look one after the other see the same stacks.
 *   main      in pthread_join
 *   reader    read() on a pipe, under reader_outer -> reader_inner
 *   sleeper   nanosleep for an hour, under doze
 *   locker    pthread_mutex_lock on a mutex main holds, in wait_lock
 *   waiter    pthread_cond_wait, in wait_cond
 *   poller    poll(), called from an always_inline helper: an inlined frame
 *   spinner   on CPU in spin_here, which calls nothing
 * Writes "ready" to argv[1] once every thread is started (if given). */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static int pipe_fd[2];
volatile uint64_t sink;

__attribute__((noinline)) void reader_inner(void)
{
	char c;
	while (read(pipe_fd[0], &c, 1) != 0)
		;
}

__attribute__((noinline)) void reader_outer(void)
{
	reader_inner();
	sink++;
}

__attribute__((noinline)) void doze(void)
{
	struct timespec ts = { 3600, 0 };
	for (;;)
		nanosleep(&ts, NULL);
}

__attribute__((noinline)) void wait_lock(void)
{
	pthread_mutex_lock(&held);
	pthread_mutex_unlock(&held);
}

__attribute__((noinline)) void wait_cond(void)
{
	pthread_mutex_lock(&cond_lock);
	for (;;)
		pthread_cond_wait(&never, &cond_lock);
}

static inline __attribute__((always_inline)) void poll_inlined(void)
{
	struct pollfd p = { pipe_fd[0], POLLPRI, 0 };
	poll(&p, 1, -1);
	sink++;
}

__attribute__((noinline)) void poller(void)
{
	for (;;)
		poll_inlined();
}

__attribute__((noinline)) void spin_here(void)
{
	for (;;)
		sink++;
}

struct role {
	const char *name;
	void (*fn)(void);
};

static void *run(void *arg)
{
	const struct role *r = arg;
	pthread_setname_np(pthread_self(), r->name);
	r->fn();
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct role roles[] = {
		{ "reader", reader_outer }, { "sleeper", doze }, { "locker", wait_lock },
		{ "waiter", wait_cond },    { "poller", poller }, { "spinner", spin_here },
	};
	pthread_t t[sizeof(roles) / sizeof(roles[0])];
	if (pipe(pipe_fd) != 0)
		return 1;
	pthread_mutex_lock(&held);
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		pthread_create(&t[i], NULL, run, (void *)&roles[i]);
	usleep(100000);
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");
		if (f) {
			fputs("ready\n", f);
			fclose(f);
		}
	}
	pthread_join(t[0], NULL);
	return 0;
}
