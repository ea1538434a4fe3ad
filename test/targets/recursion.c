/* recursion.c - a deep call chain built -O2 -fomit-frame-pointer: unwinding
 * must follow the CFI, not frame pointers.  main -> recurse_a -> recurse_b
 * -> ... (DEPTH + 1 frames of recurse_*) -> leaf_spin, over and over. */
#include <stdint.h>

#define DEPTH 40

volatile uint64_t sink;

__attribute__((noinline)) uint64_t leaf_spin(uint64_t x)
{
	for (int i = 0; i < 2000000; i++)
		x = x * 31 + (uint64_t)i;
	return x;
}

uint64_t recurse_b(int depth, uint64_t x);

/* Work after the call keeps it a real call (no tail call, no loop). */
__attribute__((noinline)) uint64_t recurse_a(int depth, uint64_t x)
{
	volatile uint64_t local = x;
	uint64_t r = depth ? recurse_b(depth - 1, local + 1) : leaf_spin(local);
	return r ^ local;
}

__attribute__((noinline)) uint64_t recurse_b(int depth, uint64_t x)
{
	volatile uint64_t local = x * 3;
	uint64_t r = depth ? recurse_a(depth - 1, local + 2) : leaf_spin(local);
	return r + local;
}

int main(void)
{
	for (;;)
		sink += recurse_a(DEPTH, sink);
}
