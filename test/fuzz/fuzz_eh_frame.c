/* fuzz_eh_frame.c - eh_frame_index (eh_frame.h) on arbitrary bytes: the
 * .eh_frame of a file the target's owner wrote, for a program without
 * .eh_frame_hdr.  Then lookups in the table, as libunwind searches it.
 *
 * The first byte picks the section's address (and so the pc-relative
 * arithmetic, up to the top of the address space) and the base the
 * table is relative to; the rest is the section.  The table must hold
 * only what the contract says: sorted by start, each entry an FDE record
 * lying whole inside the bytes given. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/eh_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint64_t vaddrs[] = {
	0x401000, 0x1000, 0, 0x7fffffff0000ULL, 0xfffffffffffff000ULL, 0x80000000ULL,
	0xffffffff, 0x555555554000ULL,
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The entry whose function holds pc, as a binary search over the table
 * finds it: the last entry starting at or before pc. */
static const struct eh_frame_entry *lookup(const struct eh_frame_entry *t, size_t n, int64_t pc)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t[lo - 1] : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t pick = data[0];
	uint64_t vaddr = vaddrs[pick & 7];
	/* base: the section itself (as files.c asks), or below or above it */
	uint64_t base = vaddr + (uint64_t)(int64_t)((int8_t)(pick & 0xf8) * 0x100);
	size_t len = size - 1;
	/* a copy of its own size: a read past the end is ASan's to see */
	uint8_t *sec = malloc(len ? len : 1);
	if (!sec)
		return 0;
	memcpy(sec, data + 1, len);
	size_t n = 99;
	struct eh_frame_entry *t = eh_frame_index(sec, len, vaddr, base, &n);
	if (!t != !n)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (i && t[i - 1].start > t[i].start)
			abort(); /* not sorted */
		/* the FDE's own address, back to an offset in the section */
		uint64_t off = base + (uint64_t)(int64_t)t[i].fde - vaddr;
		if (off >= len || len - off < 8)
			abort();
		uint64_t length = le32(sec + off), head = 4;
		if (length == 0xffffffff) {
			if (len - off < 16)
				abort();
			length = le32(sec + off + 4) | (uint64_t)le32(sec + off + 8) << 32;
			head = 12;
		}
		if (length == 0 || length > len - off - head || length < 4)
			abort(); /* an end marker, a record running past the end */
		if (le32(sec + off + head) == 0)
			abort(); /* a CIE taken for an FDE */
	}
	/* Lookups: at each entry's start, just before and after it. */
	for (size_t i = 0; i < n; i++) {
		const struct eh_frame_entry *e = lookup(t, n, t[i].start);
		if (!e || e->start != t[i].start)
			abort();
		e = lookup(t, n, (int64_t)t[i].start - 1);
		if (e && e->start >= t[i].start)
			abort();
		e = lookup(t, n, (int64_t)t[i].start + 1);
		if (!e || e->start < t[i].start)
			abort();
	}
	free(t);
	free(sec);
	return 0;
}
