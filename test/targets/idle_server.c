/* idle_server.c - a server with nothing to do, counting what wakes it.
 *   idle_server SECONDS REPORT
 * Waits in epoll_wait on a pipe nobody writes to, 100 ms at a time, as
 * PostgreSQL's background processes wait on their latch, and goes round
 * again after an EINTR.  The system call is made from wait_on_latch
 * itself, which is called from wait_loop, which keeps a
 * variable-length array and so finds its caller through rbp: its stack
 * cannot be unwound from the stack pointer and pc alone.  After SECONDS it
 * writes "waits=W eintr=E timeouts=T" to REPORT and exits 0: E is how
 * often something (a ptrace stop) ended a wait early.
 *
 * A second thread, "idle_worker", does the same from a plain function. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "own_truth.h"

struct counts {
	int waits, eintr, timeouts;
};

static int ep;
static uint64_t until;

/* epoll_wait without libc's wrapper, which may save rbp on the stack
 * (and then the stack would unwind without it). */
static inline __attribute__((always_inline)) long raw_epoll_wait(int fd, struct epoll_event *ev,
								 int n, int timeout_ms)
{
	register long r10 __asm__("r10") = timeout_ms;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_epoll_wait), "D"((long)fd), "S"(ev), "d"((long)n), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) int wait_on_latch(struct counts *c)
{
	struct epoll_event ev;
	long r = raw_epoll_wait(ep, &ev, 1, 100);
	c->waits++;
	if (r == -EINTR)
		c->eintr++;
	else if (r == 0)
		c->timeouts++;
	return (int)r;
}

/* Its frame is found through rbp (the array's size is known only at run
 * time). */
__attribute__((noinline)) void wait_loop(struct counts *c, int slots)
{
	volatile char scratch[slots];
	scratch[0] = 1;
	while (now() < until)
		wait_on_latch(c);
	scratch[slots - 1] = scratch[0];
}

static struct counts worker_counts;

static void *worker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "idle_worker");
	wait_loop(&worker_counts, 32 + (int)(now() & 7));
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int fds[2];
	if (pipe(fds) != 0 || (ep = epoll_create1(0)) < 0)
		return 1;
	struct epoll_event ev = { .events = EPOLLIN };
	epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev);
	until = now() + (uint64_t)(atof(argv[1]) * 1e9);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	struct counts c = { 0, 0, 0 };
	wait_loop(&c, 64 + (int)(now() & 7));
	pthread_join(t, NULL);
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "waits=%d eintr=%d timeouts=%d\n", c.waits + worker_counts.waits,
		c.eintr + worker_counts.eintr, c.timeouts + worker_counts.timeouts);
	return fclose(f) == 0 ? 0 : 1;
}
