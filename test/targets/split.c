/* split.c - a known wall-clock split, in 100 ms cycles:
 *   50 % cpu_work   (on CPU, reading the clock: mostly inside the vDSO)
 *   30 % sleep_work (off CPU, in nanosleep)
 *   20 % cpu_other  (on CPU, plain arithmetic)
 * Deadlines, not loop counts, so the split holds on any machine.
 * Runs until killed, or for argv[1] seconds. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CYCLE_NS 100000000ULL

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void cpu_work(uint64_t until)
{
	while (now() < until)
		;
}

__attribute__((noinline)) void sleep_work(uint64_t until)
{
	struct timespec ts = { (time_t)(until / 1000000000ULL), (long)(until % 1000000000ULL) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}

volatile uint64_t sink;

__attribute__((noinline)) void cpu_other(uint64_t until)
{
	uint64_t x = sink;
	do {
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
	} while (now() < until);
}

int main(int argc, char **argv)
{
	uint64_t end = argc > 1 ? now() + (uint64_t)(atof(argv[1]) * 1e9) : UINT64_MAX;
	for (uint64_t cycle = now(); cycle < end; cycle += CYCLE_NS) {
		cpu_work(cycle + CYCLE_NS * 5 / 10);
		sleep_work(cycle + CYCLE_NS * 8 / 10);
		cpu_other(cycle + CYCLE_NS);
	}
	return 0;
}
