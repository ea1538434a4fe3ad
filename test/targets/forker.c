/* forker.c - a server that forks a worker per request: every 200 ms a
 * child that works 150 ms in worker_work and exits; the parent waits in
 * between (as PostgreSQL's postmaster forks a backend per connection).
 *
 *   forker [SECONDS]
 *
 * At exit it prints how many workers it forked: "forker workers=N". */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
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

volatile uint64_t sink;

__attribute__((noinline)) static void worker_work(void)
{
	uint64_t end = now() + 150000000ULL;
	while (now() < end)
		sink++;
}

__attribute__((noinline)) static void between_requests(void)
{
	struct timespec ts = { 0, 200000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	uint64_t end = now() + (uint64_t)((argc > 1 ? atof(argv[1]) : 3600) * 1e9);
	unsigned workers = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (now() < end) {
		pid_t pid = fork();
		if (pid == 0) {
			worker_work();
			_exit(0);
		}
		if (pid > 0)
			workers++;
		between_requests();
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (wait(NULL) > 0)
		;
	printf("forker workers=%u\n", workers);
	return 0;
}
