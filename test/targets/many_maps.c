/* many_maps.c - a process of N mappings (30000 unless told) that spins in
 * a function whose return address lies in no mapping: each sample's
 * unwind looks up an address that no re-read of the maps can explain.
 *   many_maps [N]
 *
 * The mappings: 2N anonymous read-only pages, every second one unmapped
 * again, so that no two merge.  The return address: the first hole's, in
 * the middle of the region - nothing maps it while we only spin.  The
 * spin never returns, so the bogus return address is never used: frame
 * pointers and the CFI both say it is at the frame's rbp + 8, and there it
 * is written (through volatile, so the store stays).  Prints "ready" once
 * it spins. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline, noreturn)) static void spin_in_hole(uintptr_t hole)
{
	void **frame = __builtin_frame_address(0);
	*(void *volatile *)&frame[1] = (void *)hole;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		for (unsigned long i = 0; i < 1000; i++)
			sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30000;
	long page = sysconf(_SC_PAGESIZE);
	if (n < 2)
		return 2;
	char *region = mmap(NULL, (size_t)(2 * n * page), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	if (region == MAP_FAILED) {
		perror("many_maps: mmap");
		return 1;
	}
	for (long i = 1; i < 2 * n; i += 2)
		if (munmap(region + i * page, (size_t)page) != 0) {
			perror("many_maps: munmap");
			return 1;
		}
	spin_in_hole((uintptr_t)(region + n * page + page + 16));
}
