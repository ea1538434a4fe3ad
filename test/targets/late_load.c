/* late_load.c - sleeps DELAY_MS, then dlopen()s LIB and spins in its
 * late_spin() for ever: a library loaded after the profiler attached.
 *   late_load LIB DELAY_MS */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static void wait_a_while(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	wait_a_while(atol(argv[2]));
	void *lib = dlopen(argv[1], RTLD_NOW);
	void (*spin)(void) = lib ? (void (*)(void))dlsym(lib, "late_spin") : NULL;
	if (!spin) {
		fprintf(stderr, "late_load: %s\n", dlerror());
		return 1;
	}
	for (;;)
		spin();
}
