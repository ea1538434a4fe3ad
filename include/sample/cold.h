/* cold.h - threads asleep for long: their run count first, and their
 * state only in turn.
 *
 * A server has hundreds of threads that sleep for seconds.  The full look
 * at one reads its stat and its schedstat (3.3 us here); a thousand of
 * them made a round take milliseconds, so that at -d 1ms most ticks stood
 * with a round already running, and the busy threads were stopped
 * milliseconds after their tick.  A thread found asleep and not run since,
 * several looks in a row, turns cold: a look at it reads its schedstat
 * alone (0.7 us).  While its run count stands still it has not run: it is
 * asleep in the stack we have, or woken and not yet on a CPU - only stat
 * tells these apart, and stat is read in turn, so that the cold threads'
 * full looks take at most a two-hundredth of an interval per round.  A cold
 * thread whose run count moved, or whose full look finds it otherwise, is
 * hot again: looked at in full at every tick.
 */
#ifndef PTRACE_PROFILER_SAMPLE_COLD_H
#define PTRACE_PROFILER_SAMPLE_COLD_H

#include "sample/records.h"

#define COLD_QUIET_LOOKS 8 /* looks in a row asleep and not run: cold */

/* For a cold thread not due its full look: its run count, read now, has
 * not moved since its memory was proven.  Then it is asleep in the
 * memory's stack as at its last tick, and the look is done: its ticks are
 * counted together when something changes (cold_flush), one stack for
 * all of them instead of one per round. */
bool cold_still(struct sampler *s, struct process *p, struct thread *th,
		struct sampled_thread *st, size_t index);

/* Counts the ticks a still thread has gathered: before its next full
 * look, when a window is cut, at the end of the run. */
void cold_flush(struct sampler *s, struct sampled_thread *st);
void cold_flush_all(struct sampler *s);

/* Ticks a still thread gathers before they are counted anyway (so that
 * the timeline's times stay close). */
#define COLD_STILL_MAX 1000

/* After a full look: what decide said, and the state, turn it cold or
 * hot. */
void cold_after_look(struct sampled_thread *st, enum thread_action a, char state);

/* At the end of a round standing for ticks ticks (the last due at
 * last_ns): the still threads gather them; and how often the cold threads
 * get their full look next, from how many there are and what a look
 * costs. */
void cold_round(struct sampler *s, uint64_t ticks, uint64_t last_ns);

/* Pure: every how many rounds each of cold threads gets its full look
 * (look_ns each, 0: not timed yet) so that they take at most a two-hundredth
 * of interval_ns per round; at least 1. */
uint64_t cold_look_every(size_t cold, uint64_t look_ns, uint64_t interval_ns);

#endif
