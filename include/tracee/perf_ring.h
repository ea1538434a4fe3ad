/* perf_ring.h - reading a perf event's ring of records, shared by the
 * watches of switches (switch_regs.h, switch_copy.h).
 *
 * The kernel writes whole records at the ring's head and we read from
 * its tail; a record may wrap past the ring's end.  The tail is ours to
 * move (release) once a record is read, the head the kernel's (acquire).
 */
#ifndef PTRACE_PROFILER_PERF_RING_H
#define PTRACE_PROFILER_PERF_RING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copies len bytes at position pos of meta's ring (data_size bytes, a
 * power of two), which wraps.  len is at most the ring's size. */
static inline void perf_ring_copy(const struct perf_event_mmap_page *meta, uint64_t pos, void *out,
				  size_t len)
{
	const unsigned char *data = (const unsigned char *)meta + meta->data_offset;
	size_t ring = (size_t)meta->data_size;
	size_t at = (size_t)(pos % ring), first = len < ring - at ? len : ring - at;
	memcpy(out, data + at, first);
	memcpy((unsigned char *)out + first, data, len - first);
}

/* The header of the record at pos into *h, when a whole record lies
 * there before head: false at the end (and for a header never seen: the
 * kernel writes whole records).  A walk: for (pos = tail;
 * perf_ring_record(meta, pos, head, &h); pos += h.size). */
static inline bool perf_ring_record(const struct perf_event_mmap_page *meta, uint64_t pos,
				    uint64_t head, struct perf_event_header *h)
{
	if (pos >= head)
		return false;
	perf_ring_copy(meta, pos, h, sizeof(*h));
	return h->size >= sizeof(*h) && h->size <= head - pos;
}

static inline uint64_t perf_ring_head(const struct perf_event_mmap_page *meta)
{
	return __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
}

/* Everything up to head read: the kernel may write there again. */
static inline void perf_ring_done(struct perf_event_mmap_page *meta, uint64_t head)
{
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
}

#endif
