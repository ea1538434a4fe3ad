/* lld_gap.c - a program whose code is mapped after a gap.  Linked with lld
 * and -z max-page-size=0x200000 (the Makefile's rule), its text segment
 * starts 2 MiB after its first one, both at file offset 0, so the maps
 * show its mappings apart:
 *   555555554000-555555555000 r--p 00000000 ... lld_gap
 *   555555755000-555555756000 r-xp 00000000 ... lld_gap   <- the code
 * It spends its time in 100 ms cycles:
 *   60 % burn_alpha, 40 % burn_beta (plain arithmetic, on CPU, no system
 *   call: every sample's stack lies in this binary and the vDSO).
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

volatile uint64_t sink;

static __attribute__((noinline)) void mix(int rounds)
{
	uint64_t x = sink;
	for (int i = 0; i < rounds; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

__attribute__((noinline)) void burn_alpha(uint64_t until)
{
	do
		mix(20000);
	while (now() < until);
}

__attribute__((noinline)) void burn_beta(uint64_t until)
{
	do
		mix(20000);
	while (now() < until);
}

int main(int argc, char **argv)
{
	uint64_t end = argc > 1 ? now() + (uint64_t)(atof(argv[1]) * 1e9) : UINT64_MAX;
	for (uint64_t cycle = now(); cycle < end; cycle += CYCLE_NS) {
		burn_alpha(cycle + CYCLE_NS * 6 / 10);
		burn_beta(cycle + CYCLE_NS);
	}
	return 0;
}
