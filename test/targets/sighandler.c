/* sighandler.c - the work is done in a signal handler: SIGALRM every
 * 20 ms, and the handler spins 10 ms in handler_work while the main loop,
 * interrupted, spins in interrupted_loop.  About half of the samples are
 * in the handler; a profiler must unwind them through the signal frame
 * into interrupted_loop and on to main. */
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

volatile uint64_t sink;

__attribute__((noinline)) void handler_work(void)
{
	uint64_t end = now() + 10000000;
	while (now() < end)
		sink++;
}

static void on_alarm(int sig)
{
	(void)sig;
	handler_work();
	__asm__ volatile("" ::: "memory"); /* a call, not a tail jump */
}

__attribute__((noinline)) void interrupted_loop(void)
{
	for (;;)
		sink += now() & 1;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval every = { { 0, 20000 }, { 0, 20000 } };
	setitimer(ITIMER_REAL, &every, NULL);
	interrupted_loop();
}
