/* own_truth.h - what a test target measures of itself, for the tests to
 * compare with the profile: the monotonic clock, and its thread's
 * schedstat (time on a CPU, time waiting for one, in ns). */
#ifndef TEST_TARGETS_OWN_TRUTH_H
#define TEST_TARGETS_OWN_TRUTH_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The calling thread's schedstat: both 0 if it cannot be read. */
static inline void thread_schedstat(unsigned long long *run_ns, unsigned long long *wait_ns)
{
	char buf[128];
	*run_ns = *wait_ns = 0;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (sscanf(buf, "%llu %llu", run_ns, wait_ns) != 2)
		*run_ns = *wait_ns = 0;
	close(fd);
}

#endif
