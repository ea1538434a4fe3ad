/* round.h - one tick's round over every thread of every target.
 *
 * In this order, each step for every thread before the next:
 *   1. look    state and run count, read without a stop; decide (decide.h).
 *              What needs no copy is observed at once; a blocked thread
 *              that ran since its last sample is peeked at at once (its
 *              stack read without a stop: the sooner, the fewer wake
 *              first); a thread queued for a CPU is asked to stop and not
 *              waited for.  Threads R on another CPU at the round's first
 *              read (of every thread's state) are looked at first: the
 *              soonest to change.
 *   2. stop    the threads that were on a CPU at the tick, one by one:
 *              their state changes soonest, and stopping one lets a thread
 *              queued behind it run - a thread looked at after that would
 *              be seen running because of us.
 *   3. stop    the blocked threads whose stack a peek could not unwind:
 *              asked to stop (which wakes them, so after the looks), their
 *              traps collected as they come.
 * The round's observations are counted when it ends (count.h), for every
 * tick it stands for (schedule.h); then the sampler leaves the CPUs the
 * target's threads want (placement.h).
 */
#ifndef PTRACE_PROFILER_SAMPLE_ROUND_H
#define PTRACE_PROFILER_SAMPLE_ROUND_H

#include "sample/schedule.h"
#include "sample/records.h"

/* Runs the round of the tick due at due_ns (the round number grows). */
void round_run(struct sampler *s, uint64_t due_ns, volatile int *quit);

/* Ends it: counts its observations for the ticks rt says (the last due
 * at last_ns), then moves the sampler off the CPUs its threads want. */
void round_end(struct sampler *s, const struct round_ticks *rt, uint64_t last_ns);

#endif
