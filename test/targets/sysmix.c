/* sysmix.c - a database on cached data, in miniature: about 1 us of user
 * work between 4 KiB preads of a file in the page cache (a memfd), a
 * system call every few microseconds.  A stop asked from another CPU
 * lands at the thread's next return to user mode, a system call's more
 * often than not; the profile must still find user_work in its share.
 *
 *   sysmix SECONDS
 *
 * It times its own phases with the TSC read inside each phase's function
 * (user_work, read_page), so that the interval timed is the one whose
 * samples carry that function, and prints at exit:
 *   user_share=F pread_share=F wall_ns=N loops=N
 * shares of its wall time, our stops included (they fall inside a phase),
 * and the pairs of user work and pread it did (the bench's cost: the
 * work a profiled run loses against an unprofiled one). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <x86intrin.h>

#include "own_truth.h"

#define FILE_BYTES (1u << 20)
#define PAGE 4096u

volatile uint64_t sink;
static uint64_t user_tsc, read_tsc;

__attribute__((noinline)) static void user_work(void)
{
	uint64_t t0 = __rdtsc();
	uint64_t x = sink;
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
	user_tsc += __rdtsc() - t0;
}

__attribute__((noinline)) static void read_page(int fd, char *buf, unsigned n)
{
	uint64_t t0 = __rdtsc();
	if (pread(fd, buf, PAGE, (off_t)(n % (FILE_BYTES / PAGE)) * PAGE) != (ssize_t)PAGE)
		exit(1);
	read_tsc += __rdtsc() - t0;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	setvbuf(stdout, NULL, _IOLBF, 0);
	int fd = memfd_create("sysmix", 0);
	static char buf[PAGE];
	for (unsigned off = 0; off < FILE_BYTES; off += PAGE)
		if (fd < 0 || pwrite(fd, buf, PAGE, off) != (ssize_t)PAGE)
			return 1;
	uint64_t t0 = now(), c0 = __rdtsc(), end = t0 + (uint64_t)(seconds * 1e9);
	unsigned n = 0;
	unsigned long long loops = 0;
	while (now() < end)
		for (int k = 0; k < 64; k++, loops++) {
			user_work();
			read_page(fd, buf, n = n * 1103515245u + 12345u);
		}
	uint64_t wall = now() - t0, cycles = __rdtsc() - c0;
	printf("user_share=%.4f pread_share=%.4f wall_ns=%llu loops=%llu\n", (double)user_tsc / cycles,
	       (double)read_tsc / cycles, (unsigned long long)wall, loops);
	return 0;
}
