/* late_lib.c - liblate.so, loaded by late_load only after a delay: its
 * functions are in no module the profiler saw when it attached. */
#include <stdint.h>
#include <time.h>

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

volatile uint64_t late_sink;

__attribute__((noinline)) static void late_inner(void)
{
	for (int i = 0; i < 1000; i++)
		late_sink += (uint64_t)i * 2654435761u;
}

void late_spin(void)
{
	uint64_t end = now() + 1000000; /* 1 ms */
	while (now() < end)
		late_inner();
}

/* Calls fn, which need not return: a frame of the library on the stack
 * while its code is not run (truncated.c; the test truncates the file). */
void late_through(void (*fn)(void))
{
	fn();
	late_sink++;
}
