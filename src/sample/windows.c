/* windows.c - --period windows and the profile so far on SIGUSR1 (windows.h).
 *
 * A window is cut after the round that ends it: each program's stacks
 * counted by address become a batch (program_cut), to be named into the
 * window's table while sampling goes on - between ticks, one stack at a
 * time, until the next tick is due, polling for the traps of threads
 * queued for a CPU meanwhile - and the window then goes to the writer
 * (continuous.h).  A stack named for the first time can take long (the
 * first look-up in a module reads its debug info): the tick after it is
 * late, or missed and counted, as after any slow round. */
#define _GNU_SOURCE
#include "sample/windows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/priority.h"
#include "continuous/continuous.h"
#include "sample/capture.h"
#include "sample/app.h"
#include "sample/count.h"
#include "sample/cold.h"

#define NAMING_SLICE_NS 200000ULL /* between polls, when stops are pending */

void sampler_continuous(struct sampler *s, struct continuous *c, volatile sig_atomic_t *dump)
{
	s->cont = c;
	s->dump = dump;
	if (!c || !s->o->period_ns)
		return;
	/* The first window: stacks are named into tables of their own. */
	s->win.table = stack_table_new();
	for (size_t i = 0; i < s->n_targets && s->win.table; i++)
		if (program_cut(s->procs[i].program, s->win.table, s->timeline) != 0)
			break;
	if (!s->win.table)
		s->error = ENOMEM;
}

static uint64_t unix_ns(const struct sampler *s, uint64_t mono_ns)
{
	return s->r->start_unix_ns + (mono_ns - s->start_ns);
}

static void hand_off(struct sampler *s)
{
	struct window *w = s->win.closing;
	s->win.closing = NULL;
	if (app_merge_shapes(s, w->stacks, w->timeline) != 0)
		sampler_fail(s, "out of memory naming a window", ENOMEM);
	w->samples = stack_table_total(w->stacks);
	continuous_submit(s->cont, w);
	s->retire.due = true; /* what ended before the cut is named now */
}

/* Names the closing window until deadline (0: to the end); hands it over
 * when it is all named.  tick_ns: when the next tick is due (0: none is
 * waiting), interval_ns: the schedule's mean interval now. */
static void name_closing(struct sampler *s, uint64_t deadline, uint64_t tick_ns,
			 uint64_t interval_ns)
{
	uint64_t t0 = now_ns();
	int done = 1;
	for (size_t i = 0; i < s->n_targets && done == 1; i++)
		done = program_name_batch(s->procs[i].program, deadline);
	uint64_t t1 = now_ns();
	s->win.closing->naming_ns += t1 - t0;
	/* A look-up that ran past the next tick: the ticks it made the loop
	 * skip, counted as the loop will - past the tick, not past a slice
	 * between polls, and at the interval --max-overhead spaced the ticks
	 * to: counted at -d, a window at -d 100us said 2913 skipped where the
	 * loop missed 156 in the whole run. */
	if (tick_ns)
		s->win.closing->skipped_ticks += schedule_missed_expected(interval_ns, tick_ns, t1);
	if (done < 0) {
		sampler_fail(s, "out of memory naming a window", ENOMEM);
	} else if (done == 1) {
		hand_off(s);
	}
}

static void window_cut(struct sampler *s, uint64_t now)
{
	cold_flush_all(s); /* every tick of the window in it */
	if (s->win.closing) {
		/* Not named within a period: the rest now, under the normal
		 * policy - under SCHED_FIFO it held a CPU from the target for
		 * 2.1 s on MariaDB (--top at 10 ms, both CPUs busy; a thread we
		 * had asked to stop waited behind it for all that time). */
		priority_pause(&s->prio);
		name_closing(s, 0, 0, 0);
		priority_resume(&s->prio);
	}
	struct window *w = calloc(1, sizeof(*w));
	struct stack_table *next = stack_table_new();
	struct timeline *next_tl = s->timeline ? timeline_new() : NULL;
	int err = s->timeline && !next_tl ? errno : ENOMEM; /* else an allocation's */
	if (!w || !next || (s->timeline && !next_tl)) {
		free(w);
		stack_table_free(next);
		timeline_free(next_tl);
		sampler_fail(s, "cannot start a new window", err);
		return;
	}
	*w = (struct window){
		.kind = WINDOW_PERIOD, .number = ++s->win.cut, .stacks = s->win.table,
		.timeline = s->timeline, .threads = s->threads, /* its own: the next starts empty */
		.run_start_unix_ns = s->r->start_unix_ns,
		.start_unix_ns = unix_ns(s, s->win.start_ns), .end_unix_ns = unix_ns(s, now),
		.rounds = s->r->rounds - s->win.rounds,
		.ticks = s->r->ticks - s->win.ticks,
		.stopped_ns = s->r->frozen.total_ns - s->win.stopped_ns,
	};
	s->win.closing = w;
	s->threads = (struct thread_list){ 0 };
	s->win.table = next;
	s->timeline = next_tl;
	for (size_t i = 0; i < s->n_targets; i++)
		if (program_cut(s->procs[i].program, next, next_tl) != 0)
			sampler_fail(s, "out of memory cutting a window", ENOMEM);
	/* The next one ends a period after this one was due (windows do not
	 * drift by a round each), or a period from now after a SIGUSR1 or a
	 * stall longer than a period. */
	uint64_t due = s->win.due_ns + s->o->period_ns;
	if (s->win.ends_early || due <= now)
		due = now + s->o->period_ns;
	s->win.start_ns = now;
	s->win.due_ns = due;
	s->win.ends_early = false;
	s->win.rounds = s->r->rounds;
	s->win.ticks = s->r->ticks;
	s->win.stopped_ns = s->r->frozen.total_ns;
}

/* SIGUSR1 without --period: every stack so far named now, and a copy of
 * them (and of the timeline so far) handed to the writer. */
static void dump_so_far(struct sampler *s, uint64_t now)
{
	cold_flush_all(s);
	uint64_t t0 = now_ns();
	for (size_t i = 0; i < s->n_targets; i++)
		if (program_name_now(s->procs[i].program) != 0) {
			sampler_fail(s, "out of memory naming the stacks", ENOMEM);
			return;
		}
	struct window *w = calloc(1, sizeof(*w));
	if (!w)
		return;
	*w = (struct window){
		.kind = WINDOW_DUMP, .number = ++s->win.dumps, .stacks = stack_table_copy(s->table),
		.view = s->timeline ? timeline_view_new(s->timeline) : NULL,
		.run_start_unix_ns = s->r->start_unix_ns, .start_unix_ns = s->r->start_unix_ns,
		.end_unix_ns = unix_ns(s, now), .rounds = s->r->rounds,
	};
	if (!w->stacks || (s->timeline && !w->view) ||
	    thread_list_copy(&s->threads, &w->threads) != 0) {
		window_free(w);
		fprintf(stderr, "ptrace_profiler: SIGUSR1: cannot copy the profile so far (out of memory)\n");
		return;
	}
	w->samples = stack_table_total(w->stacks);
	w->naming_ns = now_ns() - t0;
	continuous_submit(s->cont, w);
}

/* After each round: a window to cut, a SIGUSR1 to answer. */
void windows_round(struct sampler *s)
{
	uint64_t now = now_ns();
	if (s->dump && *s->dump) {
		*s->dump = 0;
		if (format_info(s->o->format)->streams) {
			fflush(s->out); /* its blocks go out as they come */
			fprintf(stderr, "ptrace_profiler: SIGUSR1: stap blocks are written as they come, flushed\n");
		} else if (s->cont && s->o->period_ns) {
			/* the current window ends, once at least 1 s long */
			uint64_t earliest = s->win.start_ns + MIN_PERIOD_NS;
			s->win.due_ns = now > earliest ? now : earliest;
			s->win.ends_early = true;
		} else if (s->cont) {
			priority_pause(&s->prio);
			dump_so_far(s, now);
			priority_resume(&s->prio);
		}
	}
	if (s->cont && s->o->period_ns && now >= s->win.due_ns && !s->error)
		window_cut(s, now);
}

/* Until the next tick: name the closing window. */
void windows_between_ticks(struct sampler *s, uint64_t deadline, const struct schedule *sc,
			   volatile int *quit)
{
	if (!s->win.closing)
		return;
	/* a deadline before the next tick is the run's end: none missed */
	uint64_t tick = sc->due_ns <= deadline ? sc->due_ns : 0;
	if (!s->lift_tried) {
		s->lift_tried = true;
		s->lift = priority_lift_new(&s->prio);
	}
	priority_pause(&s->prio); /* naming is no round: the normal policy, */
	priority_lift_at(s->lift, deadline); /* lifted back when the tick is due */
	while (s->win.closing && !*quit && !s->error) {
		uint64_t now = now_ns();
		if (now >= deadline)
			break;
		uint64_t until = deadline;
		if (s->stops.unsettled && now + NAMING_SLICE_NS < until)
			until = now + NAMING_SLICE_NS;
		name_closing(s, until, tick, sc->interval_ns);
		if (s->stops.unsettled)
			capture_poll_pending(s);
	}
	priority_lift_cancel(s->lift);
	priority_resume(&s->prio);
}

/* After naming (sampler_name_stacks): the window being named, then the
 * last one, to the writer. */
int windows_last(struct sampler *s)
{
	if (s->win.closing)
		name_closing(s, 0, 0, 0);
	if (app_merge_shapes(s, s->win.table, s->timeline) != 0)
		return -1;
	struct window *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	uint64_t end = s->start_ns + s->r->wall_ns;
	*w = (struct window){
		.kind = WINDOW_PERIOD, .number = ++s->win.cut, .stacks = s->win.table,
		.timeline = s->timeline, .threads = s->threads,
		.run_start_unix_ns = s->r->start_unix_ns,
		.start_unix_ns = unix_ns(s, s->win.start_ns),
		.end_unix_ns = unix_ns(s, end > s->win.start_ns ? end : s->win.start_ns),
		.rounds = s->r->rounds - s->win.rounds,
		.ticks = s->r->ticks - s->win.ticks,
		.stopped_ns = s->r->frozen.total_ns - s->win.stopped_ns,
		.samples = stack_table_total(s->win.table),
	};
	s->win.table = NULL;
	s->timeline = NULL;
	s->threads = (struct thread_list){ 0 };
	if (w->samples == 0) /* the run ended right after a cut */
		window_free(w);
	else
		continuous_submit(s->cont, w);
	return 0;
}
