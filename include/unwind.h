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
#include <stdint.h>

#include "modules.h"
#include "snapshot.h"

#define UNWIND_MAX_FRAMES 256

struct unwinder;

struct unwinder *unwinder_new(struct modules *m);
void unwinder_free(struct unwinder *u);

/* Fills ips[] innermost first (ips[0] is the interrupted instruction, the
 * others are return addresses).  Returns the number of frames (>= 1 when
 * the snapshot has an ip), and sets *complete to 0 when the unwind stopped
 * early on an error rather than at the outermost frame. */
int unwind_snapshot(struct unwinder *u, const struct snapshot *s,
		    uint64_t *ips, int max, int *complete);

#endif
