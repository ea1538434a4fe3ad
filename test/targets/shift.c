/* shift.c - a split that moves with its argument: each 100 ms cycle spins
 * argv[1] percent of the time in work_a and the rest in work_b, both on
 * CPU.  Two runs with different arguments are a known before and after
 * for --diff.  Runs until killed. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>

#include "own_truth.h"

#define CYCLE_NS 100000000ULL

volatile uint64_t sink;

__attribute__((noinline)) void work_a(uint64_t until)
{
	while (now() < until)
		sink++;
}

__attribute__((noinline)) void work_b(uint64_t until)
{
	while (now() < until)
		sink += 2;
}

int main(int argc, char **argv)
{
	uint64_t percent_a = argc > 1 ? (uint64_t)atoi(argv[1]) : 50;
	if (percent_a > 100)
		return 2;
	for (;;) {
		uint64_t start = now();
		work_a(start + CYCLE_NS * percent_a / 100);
		work_b(start + CYCLE_NS);
	}
}
