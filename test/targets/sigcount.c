/* sigcount.c - counts the SIGUSR1 it receives.
 *   sigcount REPORT
 * Alternates 1 ms of CPU work (in burn) and 1 ms of sleep (in doze);
 * on SIGTERM writes "usr1=N" to REPORT and exits 0.  Signals that a
 * tracer held back or lost show up as a short count. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static volatile sig_atomic_t usr1, term;

static void on_usr1(int sig) { (void)sig; usr1++; }
static void on_term(int sig) { (void)sig; term = 1; }

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

volatile uint64_t sink;

__attribute__((noinline)) void burn(void)
{
	uint64_t end = now() + 1000000;
	while (now() < end)
		sink++;
}

__attribute__((noinline)) void doze(void)
{
	struct timespec ts = { 0, 1000000 };
	nanosleep(&ts, NULL); /* a signal may cut it short: fine */
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	while (!term) {
		burn();
		doze();
	}
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "usr1=%d\n", (int)usr1);
	fclose(f);
	return 0;
}
