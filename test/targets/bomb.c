/* bomb.c - a fork bomb its user's process limit bounds (RLIMIT_NPROC,
 * `prlimit --nproc=400`): every process forks, one fork every 20 ms, until
 * fork fails; then each spins in bomb_spin (every one of them wants a
 * CPU: a thread asked to stop traps only when its turn comes) until SPIN
 * seconds have passed since the start, sleeps in bomb_sleep until
 * SECONDS have, and exits.
 *
 *   bomb [SECONDS] [DELAY] [SPIN]
 *
 * The first process makes itself a process group leader, so that
 * `kill -9 -- -PID` ends the whole bomb, and starts forking after DELAY
 * seconds (default 0.3): time for a profiler to seize it first and follow
 * the rest as they multiply.  SPIN defaults to SECONDS. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void nap(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
	nanosleep(&ts, NULL);
}

volatile uint64_t sink;

__attribute__((noinline)) static void bomb_spin(uint64_t until)
{
	while (now() < until)
		sink++;
}

__attribute__((noinline)) static void bomb_sleep(uint64_t until)
{
	while (now() < until) {
		nap(100000000L); /* 100 ms */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}

int main(int argc, char **argv)
{
	uint64_t start = now();
	double seconds = argc > 1 ? atof(argv[1]) : 60;
	double delay = argc > 2 ? atof(argv[2]) : 0.3;
	double spin = argc > 3 ? atof(argv[3]) : seconds;
	uint64_t end = start + (uint64_t)(seconds * 1e9);
	setpgid(0, 0);
	nap((long)(delay * 1e9));
	/* parent and child alike fork on, until the limit says no */
	while (now() < end && fork() >= 0)
		nap(20000000L);
	bomb_spin(start + (uint64_t)(spin * 1e9));
	bomb_sleep(end);
	return 0;
}
