/* clock.h - the profiler's one clock: CLOCK_MONOTONIC in nanoseconds.
 *
 * Inline, so that every layer (and the fuzz targets, which link a few
 * files only) reads the same clock without linking anything. */
#ifndef PTRACE_PROFILER_BASE_CLOCK_H
#define PTRACE_PROFILER_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
