/* tick_trace.h - a record, tick by tick, of what the sampler read and
 * decided, for finding out where a profile's ticks went and for the unit
 * tests that replay real runs through decide.h.
 *
 * Written when PTRACE_PROFILER_TICK_TRACE names a file (a developer's
 * aid: docs/testing.md; made as -o's file is, output_file.h, and in its
 * place once the sampler ends), one line per event, space-separated, times in
 * CLOCK_MONOTONIC ns:
 *   R round due began cpu                     a round begins
 *   L round tid state runs_known runs group_stop group_stops generation
 *     cpu action run_ns at                    the look at a thread (its
 *                                             schedstat time on a CPU, and
 *                                             when it was read)
 *   P tid sp pc start len hash generation consistent complete counted runs
 *                                             a blocked thread read
 *   S tid copied parked sp pc start len hash generation complete
 *     runs_known runs group_stop group_stops aborted state_before
 *     asked seen resumed at_once             a stop, once resumed
 *   O tid runs_at_look runs_now at            a blocked thread that ran
 *                                             before its peek (at: then)
 *   V tid same runs_before runs_after         a reused thread read again
 *                                             (only when tracing: the
 *                                             proof that reuse is safe)
 *   N tid count how state                     samples counted
 *   C round ended stands_for missed           a round's ticks
 *   M from to                                 the sampler moved CPU
 * Off, it costs one test of a pointer per event.
 */
#ifndef PTRACE_PROFILER_SAMPLE_TICK_TRACE_H
#define PTRACE_PROFILER_SAMPLE_TICK_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sample/decide.h"

#define TICK_TRACE_ENV "PTRACE_PROFILER_TICK_TRACE"

struct tick_trace;

/* Is a trace being written?  (Tracing does one extra read per reuse.) */
static inline bool tick_trace_on(const struct tick_trace *tt)
{
	return tt != NULL;
}

/* The trace the environment asks for; NULL when it asks for none (or the
 * file cannot be made: said on stderr). */
struct tick_trace *tick_trace_from_env(void);
void tick_trace_close(struct tick_trace *tt);

void tick_trace_round(struct tick_trace *tt, uint64_t round, uint64_t due_ns, uint64_t began_ns,
		      int cpu);
void tick_trace_look(struct tick_trace *tt, uint64_t round, pid_t tid, const struct tick_view *v,
		     int cpu, enum thread_action action, uint64_t run_ns, uint64_t at_ns);
void tick_trace_moved_on(struct tick_trace *tt, pid_t tid, uint64_t runs_at_look,
			 uint64_t runs_now);
void tick_trace_peek(struct tick_trace *tt, pid_t tid, const struct unwind_input *in,
		     bool consistent, bool complete, bool counted, uint64_t runs);
struct stop_times {
	uint64_t asked_ns, seen_ns, resumed_ns;
	bool at_once;
};
void tick_trace_stop(struct tick_trace *tt, pid_t tid, bool copied, bool parked,
		     const struct unwind_input *in, int complete, const struct stop_facts *f,
		     const struct stop_times *when);
void tick_trace_verify(struct tick_trace *tt, pid_t tid, bool same, uint64_t runs_before,
		       uint64_t runs_after);
void tick_trace_counted(struct tick_trace *tt, pid_t tid, uint64_t count, const char *how,
			const char *state);
void tick_trace_commit(struct tick_trace *tt, uint64_t round, uint64_t ended_ns,
		       uint64_t stands_for, uint64_t missed);
void tick_trace_move(struct tick_trace *tt, int from, int to);

#endif
