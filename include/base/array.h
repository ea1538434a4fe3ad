/* array.h - growing an array one element (or a few) at a time.
 *
 * Every growing array of the profiler (the dense tables behind hash_index.h,
 * lists of threads, text buffers) keeps a pointer, a count and a capacity,
 * and asks array_reserve for room before it appends: doubling keeps n
 * appends at O(n) copies, and the overflow checks are written once.
 */
#ifndef PTRACE_PROFILER_ARRAY_H
#define PTRACE_PROFILER_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Room for need elements of size bytes in *array, which has room for *cap:
 * doubled (from 64) until it fits.  false when out of memory or when the
 * size would overflow (*array and *cap unchanged).  Inline: it is small
 * and on the path of every append, where it mostly returns at once. */
static inline bool array_reserve(void **array, size_t need, size_t *cap, size_t size)
{
	if (need <= *cap)
		return true;
	size_t n = *cap ? *cap : 64;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return false;
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		return false;
	void *grown = realloc(*array, n * size);
	if (!grown)
		return false;
	*array = grown;
	*cap = n;
	return true;
}

#endif
