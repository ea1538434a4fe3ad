/* truncated.c - dlopen()s LIB, spins in its late_spin() for SPIN_MS,
 * then calls its late_through() with a function of its own that spins
 * for ever, and says "through" on stdout.  From then on the library's
 * code is never run, but its frame stays on the stack: its file may be
 * truncated (48-truncated.sh) and the process runs on, while a profiler
 * must still read the file to unwind through that frame.
 *   truncated LIB SPIN_MS */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

volatile uint64_t own_sink;

__attribute__((noinline)) static void own_spin(void)
{
	puts("through");
	fflush(stdout);
	for (;;)
		for (int i = 0; i < 1000; i++)
			own_sink += (uint64_t)i * 2654435761u;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	void *lib = dlopen(argv[1], RTLD_NOW);
	void (*spin)(void) = lib ? (void (*)(void))dlsym(lib, "late_spin") : NULL;
	void (*through)(void (*)(void)) =
		lib ? (void (*)(void (*)(void)))dlsym(lib, "late_through") : NULL;
	if (!spin || !through) {
		fprintf(stderr, "truncated: %s\n", dlerror());
		return 1;
	}
	uint64_t end = now_ms() + (uint64_t)atol(argv[2]);
	while (now_ms() < end)
		spin();
	through(own_spin);
	return 0;
}
