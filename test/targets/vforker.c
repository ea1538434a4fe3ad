/* vforker.c - a thread that cannot be stopped in time: main vforks a child
 * that sleeps argv[1] seconds (default 3) before it exits, and waits in
 * the kernel meanwhile - a killable wait, which a ptrace interrupt does
 * not end.  Built without unwind tables, with frame pointers (Makefile):
 * its stack unwinds only through rbp, which /proc does not give, so a
 * look without a stop cannot do and the thread must be stopped.  Then it
 * does it all again, for ever. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) void vfork_and_wait(unsigned seconds)
{
	pid_t child = vfork();
	if (child == 0) {
		struct timespec ts = { (time_t)seconds, 0 };
		nanosleep(&ts, NULL);
		_exit(0);
	}
	if (child > 0)
		waitpid(child, NULL, 0);
}

int main(int argc, char **argv)
{
	unsigned seconds = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	for (;;)
		vfork_and_wait(seconds);
}
