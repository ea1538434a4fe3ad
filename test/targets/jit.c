/* jit.c - runs code it wrote into anonymous memory, as a JIT does.  The
 * generated function keeps a frame pointer (push %rbp; mov %rsp,%rbp),
 * spins, and returns to run_jit, which calls it for ever.  No module holds
 * it: a profiler names it [anon] and, through the frame pointer, still
 * finds run_jit and main above it.  With the argument "perfmap" it also
 * names the code jit_spin in /tmp/perf-PID.map, as a JIT does for
 * profilers (node --perf-basic-prof). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const uint8_t code[] = {
	0x55,                                     /* push %rbp */
	0x48, 0x89, 0xe5,                         /* mov %rsp,%rbp */
	0xb9, 0x00, 0x00, 0x10, 0x00,             /* mov $0x100000,%ecx */
	0xff, 0xc9,                               /* 1: dec %ecx */
	0x75, 0xfc,                               /* jnz 1b */
	0x5d,                                     /* pop %rbp */
	0xc3,                                     /* ret */
};

__attribute__((noinline)) void run_jit(void (*fn)(void))
{
	for (;;) {
		fn();
		__asm__ volatile("" ::: "memory");
	}
}

int main(int argc, char **argv)
{
	uint8_t *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0) {
		perror("jit: mprotect");
		return 1;
	}
	if (argc > 1 && strcmp(argv[1], "perfmap") == 0) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		FILE *f = fopen(path, "w");
		if (!f) {
			perror("jit: perf map");
			return 1;
		}
		fprintf(f, "%lx %zx jit_spin\n", (unsigned long)(uintptr_t)mem, sizeof(code));
		fclose(f);
	}
	run_jit((void (*)(void))(uintptr_t)mem);
}
