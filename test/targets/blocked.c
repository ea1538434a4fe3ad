/* blocked.c - two threads: "blocked" waits in read() on a pipe nobody
 * writes to (in wait_for_input), "spinner" burns CPU (in spin). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <unistd.h>

volatile uint64_t sink;

__attribute__((noinline)) void spin(void)
{
	for (;;)
		sink++;
}

static void *spinner(void *arg)
{
	(void)arg;
	spin();
	return NULL;
}

__attribute__((noinline)) void wait_for_input(int fd)
{
	char c;
	while (read(fd, &c, 1) != 0)
		;
}

int main(void)
{
	int p[2];
	if (pipe(p) != 0)
		return 1;
	prctl(PR_SET_NAME, "blocked");
	pthread_t t;
	pthread_create(&t, NULL, spinner, NULL);
	pthread_setname_np(t, "spinner");
	wait_for_input(p[0]); /* p[1] stays open: blocks forever */
	return 0;
}
