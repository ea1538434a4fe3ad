/* fuzz_unwind.c - the unwinder (unwind_snapshot) over a stack copy and
 * registers the target's owner chose, against real modules: this very
 * process's, read once (its program, libc, libunwind, libdw, the loader,
 * the vDSO), as the unwind tests do.
 *
 * The input: one byte of flags (bit 0: only rsp and rip are known, as
 * for a thread looked at without a stop), four registers (rip, rsp, rbp,
 * rbx) as 8-byte little-endian words, then the stack, copied at
 * STACK_AT.  Any word, registers or stack, whose top 16 bits are
 *     0xc0de  is code: ANCHOR (bits 40-42) + the signed low 32 bits,
 *     0x57ac  is the stack: STACK_AT + the low 32 bits,
 * so that an input means the same in every process, whatever the
 * address space's layout, and the fuzzer can make return addresses and
 * frame pointers that lead somewhere.  Other words are taken as they
 * are. */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <libelf.h>
#include <libunwind.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "tracee/snapshot.h"
#include "unwind/files.h"
#include "unwind/modules.h"
#include "unwind/unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STACK_AT 0x7ff000000000ULL
#define HEADER (1 + 4 * 8)

static uint64_t anchor[8];

static uint64_t word(const uint8_t *p)
{
	uint64_t w = 0;
	for (int i = 7; i >= 0; i--)
		w = w << 8 | p[i];
	switch (w >> 48) {
	case 0xc0de:
		return anchor[(w >> 40) & 7] + (uint64_t)(int64_t)(int32_t)(uint32_t)w;
	case 0x57ac:
		return STACK_AT + (uint32_t)w;
	default:
		return w;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct files *fs;
	static struct modules *m;
	static struct unwinder *u;
	static struct snapshot snap; /* large: not on the stack */
	if (!u) {
		anchor[0] = (uint64_t)(uintptr_t)&LLVMFuzzerTestOneInput;
		anchor[1] = (uint64_t)(uintptr_t)&unwind_snapshot;
		anchor[2] = (uint64_t)(uintptr_t)&getpid;
		anchor[3] = (uint64_t)(uintptr_t)&pthread_self;
		anchor[4] = (uint64_t)(uintptr_t)&elf_begin;
		anchor[5] = (uint64_t)(uintptr_t)&dwfl_begin;
		anchor[6] = (uint64_t)(uintptr_t)&_Ux86_64_init_remote;
		anchor[7] = getauxval(AT_SYSINFO_EHDR);
		if (!(fs = files_new(NULL)) || !(m = modules_open(fs, getpid())) ||
		    !(u = unwinder_new(m)))
			abort();
	}
	if (size < HEADER)
		return 0;
	memset(&snap.regs, 0, sizeof(snap.regs));
	snap.partial_regs = data[0] & 1;
	snap.regs.rip = word(data + 1);
	snap.regs.rsp = word(data + 9);
	snap.regs.rbp = word(data + 17);
	snap.regs.rbx = word(data + 25);
	size_t len = size - HEADER;
	if (len > SNAPSHOT_STACK_MAX)
		len = SNAPSHOT_STACK_MAX;
	len &= ~(size_t)7;
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = word(data + HEADER + i);
		memcpy(snap.stack + i, &w, 8);
	}
	snap.stack_start = STACK_AT;
	snap.stack_len = len;
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	int complete = -1;
	int n = unwind_snapshot(u, &snap, frames, UNWIND_MAX_FRAMES, &complete);
	if (n < 0 || n > UNWIND_MAX_FRAMES || (snap.regs.rip && n < 1) ||
	    (complete != 0 && complete != 1))
		abort();
	for (int i = 0; i < n; i++)
		if (frames[i].kind == FRAME_TRUNCATED && (i != n - 1 || frames[i].ip != 0))
			abort(); /* only ever the last entry, without an address */
	return 0;
}
