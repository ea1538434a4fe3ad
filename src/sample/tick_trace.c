/* tick_trace.c - the per-tick record (tick_trace.h). */
#include "sample/tick_trace.h"
#include "base/clock.h"
#include "output/output_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tick_trace {
	FILE *f;                 /* of.f */
	struct output_file of;   /* a file as -o writes it: never through a stranger's link */
};

static const char *const action_names[] = {
	[ACT_SKIP] = "skip", [ACT_REUSE] = "reuse", [ACT_PARKED] = "parked",
	[ACT_QUEUED] = "queued", [ACT_PEEK] = "peek", [ACT_STOP] = "stop",
};

struct tick_trace *tick_trace_from_env(void)
{
	const char *path = getenv(TICK_TRACE_ENV);
	if (!path || !*path)
		return NULL;
	struct tick_trace *tt = calloc(1, sizeof(*tt));
	if (tt && output_file_open(&tt->of, path) == 0) {
		tt->f = tt->of.f;
	} else if (tt) {
		fprintf(stderr, "ptrace_profiler: %s: %s\n", TICK_TRACE_ENV, tt->of.why);
		free(tt);
		tt = NULL;
	}
	return tt;
}

void tick_trace_close(struct tick_trace *tt)
{
	if (!tt)
		return;
	output_file_commit(&tt->of);
	free(tt);
}

void tick_trace_round(struct tick_trace *tt, uint64_t round, uint64_t due_ns, uint64_t began_ns,
		      int cpu)
{
	if (tt)
		fprintf(tt->f, "R %" PRIu64 " %" PRIu64 " %" PRIu64 " %d\n", round, due_ns, began_ns,
			cpu);
}

void tick_trace_look(struct tick_trace *tt, uint64_t round, pid_t tid, const struct tick_view *v,
		     int cpu, enum thread_action action, uint64_t run_ns, uint64_t at_ns)
{
	if (tt)
		fprintf(tt->f, "L %" PRIu64 " %d %c %d %" PRIu64 " %d %u %u %d %s %" PRIu64 " %" PRIu64 "\n",
			round, (int)tid, v->state, v->runs_known, v->runs, v->group_stop,
			v->group_stops, v->generation, cpu, action_names[action], run_ns, at_ns);
}

static void unwind_input(FILE *f, const struct unwind_input *in)
{
	fprintf(f, " %" PRIx64 " %" PRIx64 " %" PRIx64 " %zu %" PRIx64 " %u", in->sp, in->pc,
		in->stack_start, in->stack_len, in->stack_hash, in->generation);
}

void tick_trace_moved_on(struct tick_trace *tt, pid_t tid, uint64_t runs_at_look,
			 uint64_t runs_now)
{
	if (tt)
		fprintf(tt->f, "O %d %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", (int)tid, runs_at_look,
			runs_now, now_ns());
}

void tick_trace_peek(struct tick_trace *tt, pid_t tid, const struct unwind_input *in,
		     bool consistent, bool complete, bool counted, uint64_t runs)
{
	if (!tt)
		return;
	fprintf(tt->f, "P %d", (int)tid);
	unwind_input(tt->f, in);
	fprintf(tt->f, " %d %d %d %" PRIu64 "\n", consistent, complete, counted, runs);
}

void tick_trace_stop(struct tick_trace *tt, pid_t tid, bool copied, bool parked,
		     const struct unwind_input *in, int complete, const struct stop_facts *f,
		     const struct stop_times *when)
{
	if (!tt)
		return;
	fprintf(tt->f, "S %d %d %d", (int)tid, copied, parked);
	unwind_input(tt->f, in);
	fprintf(tt->f, " %d %d %" PRIu64 " %d %u %d %c %" PRIu64 " %" PRIu64 " %" PRIu64 " %d\n",
		complete, f->runs_known, f->runs, f->group_stop, f->group_stops, f->aborted,
		f->state_before ? f->state_before : '-', when->asked_ns, when->seen_ns,
		when->resumed_ns, when->at_once);
}

void tick_trace_verify(struct tick_trace *tt, pid_t tid, bool same, uint64_t runs_before,
		       uint64_t runs_after)
{
	if (tt)
		fprintf(tt->f, "V %d %d %" PRIu64 " %" PRIu64 "\n", (int)tid, same, runs_before,
			runs_after);
}

void tick_trace_counted(struct tick_trace *tt, pid_t tid, uint64_t count, const char *how,
			const char *state)
{
	if (tt)
		fprintf(tt->f, "N %d %" PRIu64 " %s %s\n", (int)tid, count, how, state);
}

void tick_trace_commit(struct tick_trace *tt, uint64_t round, uint64_t ended_ns,
		       uint64_t stands_for, uint64_t missed)
{
	if (tt)
		fprintf(tt->f, "C %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", round, ended_ns,
			stands_for, missed);
}

void tick_trace_move(struct tick_trace *tt, int from, int to)
{
	if (tt)
		fprintf(tt->f, "M %d %d\n", from, to);
}
