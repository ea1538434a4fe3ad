/* jit_nofp.c - runs code it wrote into anonymous memory, as a JIT does,
 * code that keeps no frame pointer: like a JVM's without
 * -XX:+PreserveFramePointer, it uses rbp for data (a loop counter) and
 * has no unwind info.  Nothing can find its callers from it: a profiler
 * must say the stack is cut, not call [anon] alone a whole stack.  Built
 * with -fomit-frame-pointer, so neither does run_jit keep one. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static const uint8_t code[] = {
	0x55,                                     /* push %rbp (callee-saved) */
	0xbd, 0x00, 0x00, 0x10, 0x00,             /* mov $0x100000,%ebp */
	0xff, 0xcd,                               /* 1: dec %ebp */
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

int main(void)
{
	uint8_t *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0) {
		perror("jit_nofp: mprotect");
		return 1;
	}
	run_jit((void (*)(void))(uintptr_t)mem);
}
