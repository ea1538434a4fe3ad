/* unwind.h - call chains from snapshots, with libunwind, offline.
 *
 * libunwind is driven through its remote interface with our own accessors:
 * registers come from the snapshot, stack memory from the copied stack,
 * unwind tables from the module images (modules.h).  The target is never
 * touched: it has been running again since the snapshot was taken.
 */
#ifndef PTRACE_PROFILER_UNWIND_H
#define PTRACE_PROFILER_UNWIND_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "unwind/modules.h"
#include "tracee/snapshot.h"

#define UNWIND_MAX_FRAMES 256

/* What a frame's address is, for naming it. */
enum frame_kind {
	FRAME_CALL,   /* a return address: the call is the instruction before */
	FRAME_EXACT,  /* the instruction itself: the innermost frame, or the
	               * one a signal interrupted */
	FRAME_SIGNAL, /* the signal trampoline a handler returns to */
	FRAME_TRUNCATED, /* no address (ip 0): the stack goes on beyond the
	                  * frame before, where the unwind could not follow */
};

struct unwound_frame {
	uint64_t ip;
	enum frame_kind kind;
};

struct unwinder;

struct unwinder *unwinder_new(struct modules *m);
void unwinder_free(struct unwinder *u);

/* Fills frames[] innermost first.  A signal frame is unwound through into
 * the interrupted code; code in no module (JIT) is stepped over by its
 * frame pointer where it keeps one.  Returns the number of frames (>= 1
 * when the snapshot has an ip), and sets *complete to 0 when the unwind
 * stopped early on an error (or ran out of room) rather than where
 * libunwind found no caller.
 *
 * A stack is whole only where its code says a thread's stack begins: the
 * outermost frame lies in a mapped file (never in anonymous memory: JIT
 * code is always called by something) and either its unwind info ends the
 * chain (DWARF's undefined return address: glibc's _start, clone, clone3)
 * or, in code without unwind info, rbp is 0 there (what the ABI asks _start
 * and clone to leave: musl's, Go's goroutines).  libunwind also stops,
 * without an error, where a frame pointer it guessed looks wrong (JIT code
 * that uses rbp for data): any other stack ends in a FRAME_TRUNCATED entry,
 * the last one, which takes one of the max slots.  A NULL u (its process
 * ended: program_ended) unwinds nothing: 0, not complete. */
int unwind_snapshot(struct unwinder *u, const struct snapshot *s,
		    struct unwound_frame *frames, int max, int *complete);

/* Of u's last unwind_snapshot: how far up its stack copy it read (the
 * address after the highest word; 0 none), and whether it asked for a
 * word just past the copy's end - a copy cut short of the stack's top
 * (snapshot_copy_ahead's) was too short for it, and its frames are not
 * the stack's. */
uint64_t unwind_read_top(const struct unwinder *u);
bool unwind_read_past_copy(const struct unwinder *u);

#endif
