/* retire.h - what ended is let go once its samples are counted and named.
 *
 * A server without a connection pool ends tens of backends a second, a
 * thread-per-request server thousands of threads; continuous profiling
 * (--period) runs beside it for days.  Each ended thread's record (about
 * 2 kB) and each ended process's slot, program and modules (about 50 kB:
 * its maps, unwinder and symbolizer) are needed until its stacks are
 * named, which a window does after its cut.  Once the window is handed to
 * the writer, whatever ended before the cut is let go, and its record or
 * slot serves the next thread or process: memory, descriptors and the
 * work of each round stay flat however many come and go, and the 4096
 * slots are never used up by processes that are gone.  A process that
 * exits has what it counted since the cut named at once, between ticks,
 * and is let go then (retire_ended).  What the summary says of them is
 * summed first (sampler.h's retired_ figures).
 *
 * Without --period the stacks are named after the run, with every
 * program: nothing is let go (a run of -d and -n is bounded anyway).
 */
#ifndef PTRACE_PROFILER_RETIRE_H
#define PTRACE_PROFILER_RETIRE_H

#include <stddef.h>
#include <stdint.h>

struct sampler;

/* Between rounds, after a window was handed over or a process ended:
 * every ended thread's record is freed for reuse; then every process that
 * exited, whose threads are all gone, and that was not given at the start
 * (those stay: the summary names them), gives its slot back once its
 * stacks are named - those counted since the cut are named now, while
 * the clock is before deadline_ns (the next tick), into the window's
 * table; those of the window being named wait for that window. */
void retire_ended(struct sampler *s, uint64_t deadline_ns);

/* A record let go, for a new thread: its index, or SIZE_MAX if none. */
size_t retire_reuse_record(struct sampler *s);

/* The slot a new process goes in: one let go, or the next never used;
 * SIZE_MAX when every slot holds a process not let go. */
size_t retire_slot_for_new(const struct sampler *s);

/* The process seized in slot i (retire_slot_for_new's) is in: the slot
 * is no longer free, and the list of processes counts it. */
void retire_slot_taken(struct sampler *s, size_t i);

#endif
