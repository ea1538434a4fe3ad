/* bare_loop.c - the yardstick: the least a ptrace sampler can do.
 *
 * Seize once, then per sample: interrupt, wait, get registers, copy 16 KiB
 * of stack from the stack pointer, continue.  No /proc reads, no unwinding,
 * no output.  Ticks are absolute deadlines, like ptrace_profiler's.
 *
 *   bare_loop PID INTERVAL_NS COUNT
 *
 * Prints: samples=N seconds=S frozen_mean_us=.. (as the tracer measures it)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: bare_loop PID INTERVAL_NS COUNT\n");
		return 2;
	}
	pid_t pid = atoi(argv[1]);
	uint64_t interval = strtoull(argv[2], NULL, 10);
	long count = atol(argv[3]);
	static char stack[16384];
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) != 0) {
		perror("PTRACE_SEIZE");
		return 1;
	}
	uint64_t start = now(), deadline = start, frozen = 0;
	long n;
	for (n = 0; n < count; n++) {
		uint64_t t0 = now();
		if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) != 0)
			break;
		int status;
		if (waitpid(pid, &status, __WALL) != pid || !WIFSTOPPED(status))
			break;
		struct user_regs_struct regs;
		ptrace(PTRACE_GETREGS, pid, NULL, &regs);
		struct iovec local = { stack, sizeof(stack) };
		struct iovec remote = { (void *)(uintptr_t)regs.rsp, sizeof(stack) };
		process_vm_readv(pid, &local, 1, &remote, 1, 0);
		ptrace(PTRACE_CONT, pid, NULL, NULL);
		frozen += now() - t0;
		deadline += interval;
		struct timespec ts = { (time_t)(deadline / 1000000000ULL),
				       (long)(deadline % 1000000000ULL) };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	double secs = (double)(now() - start) / 1e9;
	/* Detach needs a stop; the process may also simply outlive us. */
	if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) == 0) {
		int status;
		waitpid(pid, &status, __WALL);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	printf("samples=%ld seconds=%.3f frozen_mean_us=%.1f\n", n, secs,
	       n ? frozen / 1e3 / (double)n : 0);
	return 0;
}
