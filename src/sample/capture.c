/* capture.c - peeks and stops (capture.h). */
#define _GNU_SOURCE
#include "sample/capture.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "base/frame.h"
#include "base/array.h"
#include "name/syscall.h"
#include "sample/app.h"
#include "sample/call_sites.h"
#include "sample/count.h"
#include "sample/cold.h"
#include "sample/owed.h"
#include "tracee/snapshot.h"
#include "tracee/switch_copy.h"

/* How long to spin for the trap of a thread on a CPU, or of a blocked one
 * our interrupt wakes: longer than either takes when a CPU is free. */
#define STOP_YIELD_NS 1000000ULL  /* how long to sleep for the trap of a
				     thread waiting for our CPU */

static struct thread_memory *memory_of(struct sampled_thread *st)
{
	if (!st->memory)
		st->memory = calloc(1, sizeof(*st->memory));
	return st->memory;
}

/* The stack mapping holding sp, so the next copies take exactly the live
 * part: from the maps already read, else from the thread's own maps (a
 * stack mapped since), read while it runs. */
static void stack_bounds(struct process *p, struct sampled_thread *st, uint64_t sp, bool may_read)
{
	if (sp >= st->peek.stack_low && sp < st->peek.stack_top)
		return;
	if (modules_mapping_of(p->program->modules, sp, &st->peek.stack_low, &st->peek.stack_top) == 0)
		return;
	st->peek.stack_low = st->peek.stack_top = 0;
	if (!may_read)
		return;
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)p->t->pid, (int)st->tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct map_entry me;
		if (parse_maps_line(line, strlen(line), &me) == 0 && sp >= me.start && sp < me.end) {
			st->peek.stack_low = me.start;
			st->peek.stack_top = me.end;
			break;
		}
	}
	fclose(f);
}

/* What the snapshot holds, as decide.h compares copies. */
static struct unwind_input snap_input(const struct sampler *s, const struct process *p)
{
	return (struct unwind_input){
		.sp = s->snap->regs.rsp, .pc = s->snap->regs.rip,
		.stack_start = s->snap->stack_start, .stack_len = s->snap->stack_len,
		.stack_hash = stack_hash(s->snap->stack, s->snap->stack_len),
		.generation = modules_generation(p->program->modules),
	};
}

/* Put on a CPU since the look at the tick?  Then nothing read now is of
 * the tick, and a stop would catch a later moment too (decide.h,
 * stop_shows_blocked_tick). */
static bool ran_since_the_look(struct process *p, struct thread *th, const struct blocked_look *look)
{
	struct sched_counts now;
	return look->runs_known && thread_read_sched(p->t, th, &now) == 0 &&
	       now.runs != look->sc.runs;
}

/* The snapshot's words, as read with its stack. */
static void words_of_snapshot(const struct snapshot *sn, struct look_words *w)
{
	w->n = sn->n_words;
	w->ok = w->n && sn->words_ok;
	w->tid = sn->words_tid;
	memcpy(w->addr, sn->word_addr, sizeof(w->addr));
	memcpy(w->word, sn->word, sizeof(w->word));
}

/* Back into the snapshot, for the counting (what the look read since may
 * have replaced them). */
static void words_into_snapshot(const struct look_words *w, struct snapshot *sn)
{
	sn->n_words = w->n;
	sn->words_ok = w->ok;
	sn->words_tid = w->tid;
	memcpy(sn->word_addr, w->addr, sizeof(w->addr));
	memcpy(sn->word, w->word, sizeof(w->word));
}

void capture_look_words(struct sampler *s, struct process *p, struct thread *th,
			struct blocked_look *d)
{
	app_set_words(s, p);
	if (s->snap->n_words)
		snapshot_read_words(th->tid, s->snap);
	words_of_snapshot(s->snap, &d->words);
}

/* The tick of a thread seen blocked that ran before it could be read: its
 * state and kernel frames, as the look read them, no user stack, and its
 * own process's words as the look read them - never the words left in the
 * snapshot by whichever process was captured last. */
static bool count_moved_on(struct sampler *s, struct process *p, struct thread *th,
			   struct sampled_thread *st, const struct blocked_look *look)
{
	struct sched_counts now;
	if (tick_trace_on(s->trace) && thread_read_sched(p->t, th, &now) == 0)
		tick_trace_moved_on(s->trace, th->tid, look->sc.runs, now.runs);
	words_into_snapshot(&look->words, s->snap);
	s->r->no_user_stack++;
	count_observe(s, p, st, reported_state(look->state, false, false), false, look->kernel,
		      look->n_kernel);
	s->cur.released_ns = now_ns();
	return true;
}

bool capture_watch_worth(double switches_per_s, double tick_ns, bool watched)
{
	if (switches_per_s < 0)
		return true; /* not known yet: let go once known busy */
	double per_tick = switches_per_s * tick_ns / 1e9;
	return per_tick <= (watched ? 2 : 1) * WATCH_SWITCHES_PER_TICK;
}

static double tick_ns(const struct sampler *s)
{
	return (double)s->o->interval_ns * s->own.tick_scale;
}

void capture_note_switches(struct sampler *s, struct sampled_thread *st, uint64_t runs,
			   uint64_t now)
{
	if (!st->switches.window_ns) {
		st->switches.window_ns = now;
		st->switches.window_runs = runs;
		st->switches.per_s = -1;
		return;
	}
	if (now - st->switches.window_ns < SWITCH_WINDOW_NS)
		return;
	st->switches.per_s = (double)(runs - st->switches.window_runs) * 1e9 / (double)(now - st->switches.window_ns);
	st->switches.window_ns = now;
	st->switches.window_runs = runs;
	if (st->switched && !capture_watch_worth(st->switches.per_s, tick_ns(s), true)) {
		switch_regs_unwatch(s->switches, st->switched); /* stops cost it less now */
		st->switched = NULL;
		st->cold.quiet_marked = false; /* that ring's mark */
	}
}

void capture_watch_cold(struct sampler *s, struct sampled_thread *st, pid_t tid)
{
	if (!st->switched && capture_watch_worth(st->switches.per_s, tick_ns(s), false) &&
	    switch_regs_room(s->switches, 2))
		st->switched = switch_regs_watch(s->switches, tid);
}

/* Its kernel frames, into the look (for a stop that follows, or a peek
 * that proves them after). */
static void look_kernel(struct process *p, struct thread *th, struct blocked_look *look)
{
	struct kernel_stack ks;
	thread_read_kernel_stack(p->t, th, &ks);
	look->n_kernel = count_kernel_frames(&ks, look->kernel, sizeof(look->kernel));
}

/* Below the sp it last slept at, how far a copy ahead reaches: a wait
 * entered a few calls deeper is still inside it. */
#define PEEK_AHEAD_SLACK 2048

/* Above what its last whole unwind read, how far a copy ahead reaches.
 * The rest up to the stack's top (a PostgreSQL backend's: 9 of its 15 KB
 * above its sleep, the environment's strings and what main's callers
 * left) is no frame's, and copying it was half the time between the
 * look and its proof.  A copy found too short is completed and proven
 * again. */
#define COPY_TOP_SLACK 512

/* Where a copy ahead of st's stack ends. */
static uint64_t copy_top(const struct sampled_thread *st)
{
	if (st->peek.unwind_top && st->peek.unwind_top < st->peek.stack_top &&
	    st->peek.stack_top - st->peek.unwind_top > COPY_TOP_SLACK)
		return st->peek.unwind_top + COPY_TOP_SLACK;
	return st->peek.stack_top;
}

/* After an unwind of st's stack from s's copy: how far up the next copy
 * needs to reach (known only from a whole stack's). */
static void note_unwind_top(struct sampled_thread *st, const struct unwinder *u,
			    const struct unwound_frame *frames, int n, int complete)
{
	bool whole = complete && n > 0 && frames[n - 1].kind != FRAME_TRUNCATED;
	st->peek.unwind_top = whole ? unwind_read_top(u) : 0;
}

/* A peek's copy, read while the thread slept (runs: its run count then),
 * unwound and remembered when complete.  A copy that ended short of what
 * the unwind reads is extended and proven again; false: the thread ran
 * meanwhile (*in is then the extended copy's).  *complete 0: the unwind
 * needed a register we do not have (or lent's frames were not these):
 * its next sleep's registers are watched for, and pc noted. */
static bool peek_unwind(struct sampler *s, struct process *p, struct thread *th,
			struct sampled_thread *st, uint64_t runs, const struct sleep_regs *lent,
			uint64_t pc, struct unwind_input *in, int *complete)
{
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	struct unwinder *u = p->program->unwinder;
	struct sched_counts after;
	int n = unwind_snapshot(u, s->snap, frames, UNWIND_MAX_FRAMES, complete);
	if (unwind_read_past_copy(u) &&
	    s->snap->stack_start + s->snap->stack_len < st->peek.stack_top) {
		/* copied ahead too short: the rest, proven again */
		bool consistent = snapshot_extend(th->tid, st->peek.stack_top, s->snap) == 0 &&
				  thread_read_sched(p->t, th, &after) == 0 && after.runs == runs;
		s->r->copies_extended++;
		*in = snap_input(s, p);
		if (!consistent)
			return false;
		n = unwind_snapshot(u, s->snap, frames, UNWIND_MAX_FRAMES, complete);
	}
	note_unwind_top(st, u, frames, n, *complete);
	if (lent && *complete && !sleep_regs_same_frames(lent, frames, n)) {
		*complete = 0; /* not the stop's frames: no proof of rbp */
		s->r->lent_refused++;
	}
	if (*complete) /* else it needs a register we do not have */
		memory_remember(memory_of(st), in, frames, n, *complete);
	else if (!st->switched && capture_watch_worth(st->switches.per_s, tick_ns(s), false))
		/* then the next sleep's, without a stop */
		st->switched = switch_regs_watch(s->switches, th->tid);
	if (!*complete)
		st->peek.regs_pc = pc;
	return true;
}

/* The look's first read: its stack from where it last slept, and its
 * process's words in the same read; else the words alone. */
static bool look_ahead(struct sampler *s, struct process *p, struct thread *th,
		       struct sampled_thread *st, struct blocked_look *look)
{
	bool ahead = false;
	/* (not for one likely to be stopped: its words alone, sooner) */
	bool stopped_last =
		!st->switched && st->peek.regs_pc && !sleep_regs_at_pc(&st->peek.slept_regs, st->peek.regs_pc);
	if (!stopped_last && st->peek.slept_sp && st->peek.slept_sp >= st->peek.stack_low &&
	    st->peek.slept_sp < st->peek.stack_top) {
		uint64_t from = st->peek.slept_sp - SNAPSHOT_RED_ZONE;
		from = from - st->peek.stack_low > PEEK_AHEAD_SLACK ? from - PEEK_AHEAD_SLACK : st->peek.stack_low;
		app_set_words(s, p);
		ahead = snapshot_copy_ahead(th->tid, from, copy_top(st), s->snap) == 0;
	}
	if (!ahead) {
		capture_look_words(s, p, th, look);
		return false;
	}
	words_of_snapshot(s->snap, &look->words);
	return true;
}

void capture_read_early(struct sampler *s, struct process *p, struct thread *th,
			struct sampled_thread *st, struct early_read *e)
{
	e->done = false;
	struct thread_memory *m = st->memory;
	struct sched_counts sc;
	if (!st->peek.read_early || !m || st->pending || !st->peek.stack_top ||
	    thread_read_sched(p->t, th, &sc) != 0 || (m->verified && sc.runs == m->runs_verified) ||
	    thread_read_syscall(th, &e->where) != 0)
		return;
	const struct blocked_syscall *w = &e->where;
	if (!st->switched && st->peek.regs_pc && w->pc == st->peek.regs_pc &&
	    !sleep_regs_find(&st->peek.slept_regs, w))
		return; /* to be stopped: its words alone, at the look */
	if (w->sp < st->peek.stack_low || w->sp >= st->peek.stack_top || w->sp < SNAPSHOT_RED_ZONE)
		return; /* on another stack: the peek finds which */
	app_set_words(s, p);
	uint64_t top = copy_top(st);
	if (w->sp >= top || snapshot_copy_ahead(th->tid, w->sp - SNAPSHOT_RED_ZONE, top, s->snap) ||
	    snapshot_peek_ahead(w, s->snap))
		return;
	words_of_snapshot(s->snap, &e->words);
	e->runs = sc.runs;
	e->done = true;
}

bool capture_peek(struct sampler *s, struct process *p, struct thread *th,
		  struct sampled_thread *st, struct blocked_look *look)
{
	const struct sched_counts *sc = &look->sc;
	struct thread_memory *m = memory_of(st);
	struct blocked_syscall w;
	/* The reads that the run count proves, soonest first: the words and
	 * the stack (ahead of knowing sp, from where it last slept), where it
	 * sleeps, the run count; then its kernel frames, proven again.  A
	 * ClientRead of PostgreSQL's lasts ~100 us under pgbench: the shorter
	 * the reads, the fewer wake before they are proven (the kernel stack
	 * read first, 14 us of a 28 us window, lost 10-12 % of their stacks). */
	/* read before the look, and proven by its run count */
	bool early = m && look->early.done && look->runs_known && look->sc.runs == look->early.runs;
	bool ahead = early || look_ahead(s, p, th, st, look);
	if (early) {
		s->r->peeked_early++;
		look->words = look->early.words;
		words_into_snapshot(&look->words, s->snap);
	}
	if (!m) {
		look_kernel(p, th, look);
		return false;
	}
	if (early)
		w = look->early.where;
	else if (thread_read_syscall(th, &w) != 0) { /* "running", or gone */
		if (ran_since_the_look(p, th, look))
			return count_moved_on(s, p, th, st, look);
		look_kernel(p, th, look); /* no proof: stopped instead */
		return false;
	}
	/* Where its stack needed registers the last time, and still no
	 * watch to give them: unwound with those of a stop that found it
	 * asleep at the same sp (decide.h, sleep_regs); else stopped at once,
	 * not copied and unwound first - the sooner, the likelier in the
	 * same sleep (PostgreSQL 15's ClientRead under pgbench kept their
	 * stack in 96.7 % copied first, 97.6-97.9 % so). */
	const struct sleep_regs *lent = NULL;
	if (!st->switched && st->peek.regs_pc && w.pc == st->peek.regs_pc) {
		lent = sleep_regs_find(&st->peek.slept_regs, &w);
		if (!lent) {
			look_kernel(p, th, look);
			return false;
		}
	}
	stack_bounds(p, st, w.sp, false);
	if (!early && (!ahead || snapshot_peek_ahead(&w, s->snap) != 0)) {
		app_set_words(s, p);
		if (snapshot_peek(th->tid, &w, st->peek.stack_top, s->snap) != 0) {
			look_kernel(p, th, look);
			return false;
		}
	}
	st->peek.slept_sp = w.sp;
	/* the registers it went to sleep with, if this is that sleep: read
	 * before its run count is, which proves it */
	s->snap->callee_saved =
		switch_regs_last(s->switches, st->switched, w.sp, w.pc, &s->snap->regs);
	if (lent) {
		sleep_regs_lend(lent, &s->snap->regs);
		s->snap->callee_saved = true;
	}
	/* Consistent if the thread was not put on a CPU while we read. */
	struct sched_counts after = *sc;
	bool after_known = early || (look->runs_known && thread_read_sched(p->t, th, &after) == 0);
	bool consistent = after_known && after.runs == sc->runs;
	if (consistent || !after_known)
		look_kernel(p, th, look);
	/* its kernel frames of the same sleep, or none: not another moment's */
	if (consistent && p->t->kernel_stacks &&
	    (thread_read_sched(p->t, th, &after) != 0 || after.runs != sc->runs)) {
		look->n_kernel = 0;
		s->r->kernel_late++;
	}
	struct unwind_input in = snap_input(s, p);
	bool same = memory_matches(m, &in);
	int complete = 1;
	if (!same && consistent)
		consistent = peek_unwind(s, p, th, st, sc->runs, lent, w.pc, &in, &complete);
	bool counted = same || (consistent && complete);
	tick_trace_peek(s->trace, th->tid, &in, consistent, complete, counted, sc->runs);
	if (!counted && after_known && !consistent)
		return count_moved_on(s, p, th, st, look); /* it ran: no stop would help */
	if (!counted)
		return false;
	memory_after_peek(m, consistent, sc->runs);
	/* A wait our stop aborted goes on as restart_syscall, whose kernel
	 * stack shows only the system call entry: it keeps the frames it had. */
	bool restarted = same && w.nr == SYS_restart_syscall && m->n_kernel > 0;
	if (!restarted) {
		memcpy(m->kernel, look->kernel, sizeof(m->kernel));
		m->n_kernel = look->n_kernel;
	}
	s->r->peeked++;
	s->r->peeked_lent += lent && !same;
	count_observe_memory(s, p, st, reported_state(look->state, false, false));
	s->cur.released_ns = now_ns();
	return true;
}

/* Adds a tick to a pending stop: the state and kernel frames it had. */
static void pending_add_tick(struct sampler *s, struct pending_stop *ps, char state, bool on_cpu,
			     const char *kernel, int n_kernel)
{
	size_t used = frames_packed_len(kernel, n_kernel);
	ps->last_round = s->cur.number;
	if (ps->n_ticks > 0) {
		struct pending_tick *last = &ps->ticks[ps->n_ticks - 1];
		if ((last->state == state && last->on_cpu == on_cpu && last->n_kernel == n_kernel &&
		     memcmp(last->kernel, kernel, used) == 0) ||
		    ps->n_ticks == PENDING_TICKS) {
			last->count++; /* the same, or no room: like the last */
			last->last_ns = s->cur.tick_ns;
			return;
		}
	}
	struct pending_tick *pt = &ps->ticks[ps->n_ticks++];
	*pt = (struct pending_tick){ 1, s->cur.tick_ns, s->cur.tick_ns, state, on_cpu, n_kernel, { 0 } };
	memcpy(pt->kernel, kernel, used);
}

/* A pending stop (st->pending) is settled: its trap came, or never will.
 * Each of them counted once in s->stops.unsettled (capture_pending_held). */
static void stop_settled(struct sampler *s)
{
	assert(s->stops.unsettled > 0);
	s->stops.unsettled--;
}

bool capture_pending_held(const struct sampler *s)
{
	unsigned held = 0;
	for (size_t i = 0; i < s->n_threads; i++)
		held += sampled_at(s, i)->pending != NULL;
	return held == s->stops.unsettled;
}

/* A thread listed once: a stop collected between rounds (its trap came
 * while we slept) leaves its entry until a poll prunes it, and the next
 * stop asked for it would add another - one per round for a thread stopped
 * every round, each polled with a system call: 113 entries after a
 * second at -d 1ms, which polled it 95,000 times a second. */
static void note_pending(struct sampler *s, const struct process *p, const struct thread *th,
			 struct sampled_thread *st)
{
	if (st->pending_listed)
		return;
	/* without room, targets_poll finds its trap anyway */
	if (array_reserve((void **)&s->stops.pending, s->stops.n_pending + 1, &s->stops.cap_pending,
			  sizeof(*s->stops.pending))) {
		s->stops.pending[s->stops.n_pending++] = thread_ref_of(s, p, th);
		st->pending_listed = true;
	}
}

/* The snapshot's words and w's, exchanged. */
static void swap_words(struct snapshot *sn, struct look_words *w)
{
	struct look_words mine;
	words_of_snapshot(sn, &mine);
	words_into_snapshot(w, sn);
	*w = mine;
}

/* The ticks of a pending stop, now that it is complete (or given up on):
 * the current round's share is this round's observation, counted when the
 * round ends; the others (their rounds over) are counted now. */
/* What the ticks of a pending stop are counted with. */
struct pending_count {
	const struct unwound_frame *frames; /* the stop's user frames, or NULL */
	int n_frames, complete;
	bool user_stack;      /* with those frames (the stop copied them) */
	bool user_if_blocked; /* also for a tick that saw it blocked: the copy
				 still shows that moment (decide.h) */
	bool group_stop;      /* stopped by a signal of its own: 't' */
	bool on_cpu_by_runs;  /* on a CPU, by its run count (no kernel stack) */
	enum count_path how;
};

static void count_pending_ticks(struct sampler *s, struct process *p, struct sampled_thread *st,
				struct pending_stop *ps, const struct pending_count *pc)
{
	for (int i = 0; i < ps->n_ticks; i++) {
		struct pending_tick *pt = &ps->ticks[i];
		/* a tick that saw it blocked gets the copy only if it still
		 * describes that moment (decide.h, stop_shows_blocked_tick) */
		bool blocked = pt->state == 'S' || pt->state == 'D';
		bool user = pc->user_stack && (!blocked || pc->user_if_blocked);
		if (pc->user_stack && !user)
			s->r->no_user_stack += pt->count;
		/* A blocked look's tick it does not show: as a peek that
		 * could not prove its reads (capture_peek), the words that
		 * look read first and no kernel frames - read after them,
		 * unproven, they may be of its next wait (ClientRead's words
		 * over fdatasync's frames, 1 % of a backend's ClientRead). */
		bool look_only = i == 0 && ps->look_words_known && pc->user_stack && !user;
		int n_kernel = look_only ? 0 : pt->n_kernel;
		if (look_only)
			swap_words(s->snap, &ps->look_words);
		bool on_cpu = ps->classify_by_runs ? pc->on_cpu_by_runs : pt->on_cpu;
		const char *state = reported_state(pt->state, pc->group_stop, on_cpu);
		uint64_t count = pt->count;
		if (i == ps->n_ticks - 1 && ps->last_round == s->cur.number && !s->cur.committed) {
			count--; /* this round's: observed, counted with the round */
			count_observe(s, p, st, state, user, pt->kernel, n_kernel);
		}
		struct observation ob = { .state = state, .user = user, .n_kernel = n_kernel };
		app_state_into(s, p, &ob);
		if (look_only)
			swap_words(s->snap, &ps->look_words); /* the stop's again */
		memcpy(ob.kernel, pt->kernel, sizeof(ob.kernel));
		struct user_frames u = { user ? pc->frames : NULL, user ? pc->n_frames : 0,
					 pc->complete };
		count_now(s, p, st, &ob, u, (struct tick_span){ count, pt->first_ns, pt->last_ns, pc->how });
	}
}

void capture_unstopped(struct sampler *s, struct process *p, struct sampled_thread *st)
{
	struct pending_stop *ps = st->pending;
	if (!ps)
		return;
	st->pending = NULL;
	stop_settled(s);
	s->snap->n_words = 0; /* no capture: no words either */
	s->snap->words_ok = 0;
	uint64_t ticks = 0;
	for (int j = 0; j < ps->n_ticks; j++)
		ticks += ps->ticks[j].count;
	const struct pending_count none = { .complete = 1, .how = COUNT_UNSTOPPED };
	count_pending_ticks(s, p, st, ps, &none);
	s->r->no_user_stack += ticks;
	free(ps);
}

/* Still where our last stop left it, not back in its wait yet (it ran a
 * little, into a CPU quota's throttle say): that stop's doing. */
static bool parked(const struct thread_memory *m, const struct pending_tick *first,
		   const struct snapshot *snap)
{
	return m->aborted && first->state == 'R' &&
	       snapshot_restart_pending(&snap->regs, &m->abort_where);
}

/* What a stop tells the memory besides the unwind. */
static struct stop_facts stop_facts(const struct thread *th, const struct pending_stop *ps,
				    const struct snapshot *snap, bool runs_known, uint64_t runs)
{
	char first = ps->ticks[0].state;
	struct stop_facts f = { .runs_known = runs_known, .runs = runs,
				.group_stop = th->group_stop, .group_stops = th->group_stops };
	/* Did our stop take it out of a blocking call (or out of one it was
	 * entering: R on a CPU at the tick, in the kernel on its way into a
	 * wait)?  Until it runs to restart it, /proc says R because of us;
	 * without us it would be waiting. */
	f.aborted = !th->group_stop && snapshot_restarting(&snap->regs) &&
		    snapshot_syscall(&snap->regs, &f.where) == 0;
	f.state_before = first == 'S' || first == 'D' ? first : 'S';
	return f;
}

/* A tick due sooner than this after a resume is not timed on the
 * followed thread's CPU (the round may not be over by then): the first
 * one after it is, and those before it stand with that one's round
 * (schedule.h).  Looked for among this many ticks at most. */
#define TIMER_AHEAD_NS 150000ULL
#define TIMER_AHEAD_TICKS 64

/* What a stop copied, while the thread was stopped. */
struct stop_copy {
	bool copied;      /* registers and stack */
	bool parked;      /* where our last stop left it: nothing copied */
	bool runs_known;  /* its run count, read while stopped */
	struct sched_counts stopped;
	uint64_t resumed_ns;
	uint64_t cont_ns;  /* just before PTRACE_CONT */
	bool from_switch;  /* copied by the kernel as our tick took its CPU:
			      not stopped (switch_copy.h) */
	uint64_t queued_from; /* then queued for its CPU since: a wait its
				 schedstat adds only when it ends */
};

/* After the copy: the thread let go.  Followed, and held on this CPU,
 * still ours: it runs on here, and the next tick's timer is armed here,
 * if that tick is far enough ahead for the round to end before it
 * (resume_here.h); stopped, PTRACE_CONT wakes it. */
static void let_go(struct sampler *s, struct process *p, struct thread *th,
		   const struct sampled_thread *st, const struct pending_stop *ps,
		   struct stop_copy *c, bool stopped)
{
	c->resumed_ns = now_ns();
	bool here = s->here && !s->tick_timed && st->follow.on && ps->took_its_cpu &&
		    sched_getcpu() == s->me.cpu; /* (not a trap seen in the timed wait) */
	uint64_t next = here && s->sched ? schedule_first_from(s->sched, c->resumed_ns + TIMER_AHEAD_NS,
								 TIMER_AHEAD_TICKS) : 0;
	/* and the one the next round will want, as it is likely to arm
	 * (its timer armed now costs the thread nothing then) */
	uint64_t then = next ? schedule_first_from(s->sched, next + resume_here_lag_ns(s->here) +
							     TIMER_AHEAD_NS, TIMER_AHEAD_TICKS) : 0;
	/* (without the timer, coming back would hold it unseen: resumed
	 * as FOLLOW always did, it wakes on another CPU, and we follow) */
	here = here && next && resume_here_arm(s->here, s->me.cpu, next, then, !stopped);
	/* (not stopped: it ran on as the sampler slept, or at our round's end) */
	c->cont_ns = here && !stopped ? resume_here_idle_at(s->here) : now_ns();
	if (stopped)
		thread_resume(p->t, th);
	if (here) {
		int cpu = resume_here_done(s->here);
		if (cpu >= 0)
			placement_moved(&s->placement, cpu);
	}
}

/* The stop itself: registers, stack (unless it is parked), run count,
 * resume - all of what the thread waits for, and nothing else. */
static struct stop_copy copy_and_resume(struct sampler *s, struct process *p, struct thread *th,
					struct sampled_thread *st, const struct thread_memory *m,
					const struct pending_stop *ps)
{
	struct stop_copy c = { .copied = snapshot_regs(th->tid, s->snap) == 0 };
	c.parked = c.copied && m && parked(m, &ps->ticks[0], s->snap);
	if (c.copied && !c.parked) {
		stack_bounds(p, st, s->snap->regs.rsp, false);
		c.copied = snapshot_stack(th->tid, st->peek.stack_top, s->snap) == 0;
	}
	/* the one read in a stop that is not a copy: its run count, which
	 * then tells whether it ran since (decide.h) */
	c.runs_known = c.copied && thread_read_sched(p->t, th, &c.stopped) == 0;
	let_go(s, p, th, st, ps, &c, true);
	return c;
}

/* A parked thread's ticks: as it was before our stop, its memory. */
static void count_parked(struct sampler *s, struct process *p, struct thread *th,
			 struct sampled_thread *st, struct pending_stop *ps, const struct stop_copy *c,
			 const struct stop_facts *f, const struct stop_times *when)
{
	struct thread_memory *m = st->memory;
	/* nothing was copied in the stop: the words now, as for a thread not
	 * stopped at all */
	if (s->snap->n_words)
		snapshot_read_words(th->tid, s->snap);
	memory_after_parked_stop(m, c->runs_known, c->stopped.runs);
	struct unwind_input in = snap_input(s, p);
	tick_trace_stop(s->trace, th->tid, c->copied, true, &in, m->complete, f, when);
	for (int i = 0; i < ps->n_ticks; i++) {
		ps->ticks[i].state = m->state_before;
		ps->ticks[i].on_cpu = false;
		ps->ticks[i].n_kernel = m->n_kernel;
		memcpy(ps->ticks[i].kernel, m->kernel, sizeof(m->kernel));
	}
	ps->classify_by_runs = false;
	const struct pending_count as_before = { .frames = m->frames, .n_frames = m->n_frames,
						 .complete = m->complete, .user_stack = true,
						 .user_if_blocked = true, .how = COUNT_PARKED };
	count_pending_ticks(s, p, st, ps, &as_before);
}

/* What the stop cost the thread, for the summary, the frozen ticks
 * (count.h) and the budget (overhead.h). */
static void note_stop_cost(struct sampler *s, struct sampled_thread *st,
			   const struct pending_stop *ps, const struct stop_copy *c, uint64_t seen_ns)
{
	/* Until PTRACE_CONT wakes it: one on a CPU from the interrupt; one
	 * that was not (blocked, or queued for a CPU) from its trap, when it
	 * would have run on. */
	bool was_running = ps->ticks[0].state == 'R' && ps->running && ps->at_once;
	st->stopped.running += was_running;
	uint64_t frozen_from = was_running ? ps->began_ns : seen_ns;
	uint64_t frozen = c->resumed_ns - frozen_from;
	if (!c->from_switch) /* (a copy is no stop) */
		hist_add(&s->r->frozen, frozen);
	/* What the budget counts is what the thread lost: from when it stopped
	 * running (our round's start, when the round held its CPU) to
	 * PTRACE_CONT, and the wait for a CPU after it, read at its next look
	 * (overhead_looked). */
	uint64_t lost_from = ps->took_its_cpu ? ps->ticks[0].first_ns : frozen_from;
	if (!s->cur.committed) { /* ticks due meanwhile found it frozen (count.h),
				or waiting for the CPU our round held */
		st->frozen.round = s->cur.number;
		st->frozen.from_ns = lost_from;
		st->frozen.to_ns = c->resumed_ns;
	}
	st->stopped.ns += frozen;
	/* held by our round: before its trap, and after the copy until
	 * PTRACE_CONT (the resume's arming, on its CPU) */
	if (ps->took_its_cpu && seen_ns > lost_from && c->cont_ns >= c->resumed_ns)
		st->stopped.held_ns += seen_ns - lost_from + (c->cont_ns - c->resumed_ns);
	if (was_running)
		st->stopped.running_ns += frozen;
	overhead_stopped(&st->cost, c->resumed_ns - lost_from);
	st->follow.resume_known = c->runs_known;
	st->follow.resume_runs = c->stopped.runs;
	st->follow.resume_run_ns = c->stopped.run_ns;
	st->follow.resume_cont_ns = c->cont_ns;
	if (c->runs_known) {
		/* (a copy's: its wait until we let go of its CPU is ours, held) */
		uint64_t wait_ns = c->stopped.wait_ns +
				   (c->from_switch && c->cont_ns > c->queued_from ? c->cont_ns - c->queued_from : 0);
		overhead_note_resume(&st->cost, wait_ns, c->stopped.runs, c->resumed_ns, was_running);
		/* (read while stopped: the same at the resume) */
		overhead_offcpu_stop(&st->stopped.offcpu, was_running, c->stopped.run_ns, c->stopped.runs,
				     c->resumed_ns);
	} else
		st->stopped.offcpu.known = false;
}

/* A followed thread's copy at our tick (switch_copy.h), and the calls
 * its stops taught at each address (call_sites.h), of the program it ran
 * then. */
struct follow_copy {
	struct switch_copy *watch;
	unsigned execs;          /* its process's execs when the sites were learnt */
	struct call_sites sites;
};

/* How much of its stack a copy holds: what its last stop needed (from
 * its stack pointer to where its unwind read, copy_top) and FOLLOW_COPY_SLACK more,
 * within these bounds; a deeper stack's rest is read while our tick holds
 * it (snapshot_extend).  The kernel copies as much at each switch. */
#define FOLLOW_COPY_MIN 2048
#define FOLLOW_COPY_SLACK 1024
#define FOLLOW_COPY_MAX 16384

static size_t follow_copy_bytes(const struct sampled_thread *st, uint64_t sp)
{
	uint64_t top = copy_top(st);
	uint64_t need = top > sp ? top - sp : FOLLOW_COPY_MAX;
	need = (need + FOLLOW_COPY_SLACK + 1023) & ~(uint64_t)1023;
	return need < FOLLOW_COPY_MIN ? FOLLOW_COPY_MIN : need > FOLLOW_COPY_MAX ? FOLLOW_COPY_MAX : (size_t)need;
}

/* Its watch, armed for good: the ioctl that arms it interrupts the CPU
 * it runs on, once.  Without permission none is tried again.  At most
 * FOLLOW_COPIES_MAX at once, each a descriptor and 5 to 33 pages of
 * locked memory (a server whose threads are all followed: the others
 * are stopped). */
#define FOLLOW_COPIES_MAX 64

static void follow_copy_open(struct sampler *s, const struct process *p, struct sampled_thread *st,
			     uint64_t sp)
{
	if (s->copy_refused || st->follow.copy || s->copies_open >= FOLLOW_COPIES_MAX)
		return;
	struct follow_copy *fc = calloc(1, sizeof(*fc));
	int err = ENOMEM;
	if (fc)
		fc->watch = switch_copy_open(st->tid, follow_copy_bytes(st, sp), &err);
	if (fc && fc->watch && switch_copy_arm(fc->watch) != 0) {
		err = errno;
		switch_copy_close(fc->watch);
		fc->watch = NULL;
	}
	if (!fc || !fc->watch) {
		/* the thread gone, or no descriptor left: this thread only */
		if (err != ESRCH && err != EMFILE && err != ENFILE && err != ENOMEM)
			s->copy_refused = err;
		free(fc);
		return;
	}
	fc->execs = p->t->execs;
	st->follow.copy = fc;
	s->copies_open++;
}

void capture_follow_end(struct sampler *s, struct sampled_thread *st)
{
	if (!st->follow.copy)
		return;
	switch_copy_close(st->follow.copy->watch);
	free(st->follow.copy);
	st->follow.copy = NULL;
	assert(s->copies_open > 0);
	s->copies_open--;
}

/* A stop's registers teach its address's call; of another program, the
 * sites known are forgotten first. */
static void follow_copy_learn(const struct process *p, struct follow_copy *fc,
			      const struct user_regs_struct *r)
{
	if (fc->execs != p->t->execs) {
		memset(&fc->sites, 0, sizeof(fc->sites));
		fc->execs = p->t->execs;
	}
	call_sites_learn(&fc->sites, r->rip, (long)r->orig_rax);
}

/* A stop of st running on another CPU: did it land where a system call
 * ends?  The interrupt that carries it comes late, so a thread that
 * enters the kernel every few microseconds is caught leaving a call
 * whatever it was doing at the tick; past half of its last stops, the
 * sampler follows it to its CPU (placement.h).  Once followed, its stops
 * are made on its CPU and no longer tell. */
#define FAR_STOPS_MIN 8
#define FAR_STOPS_WINDOW 64

static void note_far_stop(struct sampler *s, const struct process *p, const struct thread *th,
			  struct sampled_thread *st, bool at_call)
{
	st->follow.far_stops++;
	st->follow.far_at_call += at_call;
	if (st->follow.far_stops >= FAR_STOPS_WINDOW) {
		st->follow.far_stops /= 2;
		st->follow.far_at_call /= 2;
	}
	if (!st->follow.on && s->placement.can_follow && s->placement.on &&
	    st->follow.far_stops >= FAR_STOPS_MIN && 2 * st->follow.far_at_call > st->follow.far_stops &&
	    array_reserve((void **)&s->stops.follow, s->stops.n_follow + 1, &s->stops.cap_follow,
			  sizeof(*s->stops.follow))) {
		s->stops.follow[s->stops.n_follow++] = thread_ref_of(s, p, th);
		st->follow.on = true;
		s->r->followed_threads++;
		follow_copy_open(s, p, st, s->snap->regs.rsp);
	}
}

/* Our tick preempted it on our CPU, inside system call nr: the tick's
 * kernel frames say so (name/syscall.h). */
static void name_the_call(struct pending_tick *pt, long nr)
{
	char out[MEMORY_KERNEL_BYTES];
	if (!pt->on_cpu || pt->n_kernel <= 0)
		return;
	int n = syscall_frames_at_call(pt->kernel, pt->n_kernel, nr, out, sizeof(out));
	if (n <= 0)
		return;
	memcpy(pt->kernel, out, sizeof(out));
	pt->n_kernel = n;
}

bool capture_call_frames_known(const struct sampler *s)
{
	return call_frames_known(&s->call_frames) && !s->o->max_overhead;
}

/* Our tick took its CPU: its first tick's kernel frames, the call named
 * (name_the_call); not read at its look, as the shape gives them; read
 * while held by our tick (not run between the look and the trap), they
 * teach it. */
static void frames_at_our_tick(struct sampler *s, struct pending_stop *ps, bool in_call, long nr)
{
	struct pending_tick *pt = &ps->ticks[0];
	if (ps->frames_assumed)
		pt->n_kernel = call_frames_give(&s->call_frames, in_call, pt->kernel);
	else if (ps->frames_check)
		call_frames_learn(&s->call_frames, pt->kernel, pt->n_kernel, in_call, nr);
	if (in_call)
		name_the_call(pt, nr);
}

/* The copy unwound, remembered, and counted for every tick the stop
 * stands for (those the budget refused before it too). */
static void unwind_and_count(struct sampler *s, struct process *p, struct thread *th,
			     struct sampled_thread *st, struct pending_stop *ps,
			     struct thread_memory *m, const struct stop_copy *c,
			     const struct stop_facts *f, const struct stop_times *when)
{
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	int n = 0, complete = 1;
	struct unwind_input in = snap_input(s, p);
	if (c->copied) {
		n = unwind_snapshot(p->program->unwinder, s->snap, frames, UNWIND_MAX_FRAMES,
				    &complete);
		stack_bounds(p, st, s->snap->regs.rsp, true);
		note_unwind_top(st, p->program->unwinder, frames, n, complete);
		memory_remember(m, &in, frames, n, complete);
		memory_after_stop(m, f);
		/* the wait's own kernel frames, if our stop aborts it */
		memcpy(m->kernel, ps->ticks[0].kernel, sizeof(m->kernel));
		m->n_kernel = ps->ticks[0].n_kernel;
	}
	tick_trace_stop(s->trace, th->tid, c->copied, false, &in, complete, f, when);
	/* Without a kernel stack to tell, the trap does: a thread on a CPU
	 * traps where it is, one queued for a CPU must be put on it first. */
	bool on_cpu_by_runs = c->runs_known && ps->runs_known && c->stopped.runs == ps->runs;
	struct blocked_syscall at;
	bool in_call = snapshot_syscall(&s->snap->regs, &at) == 0;
	bool blocked_ok = stop_shows_blocked_tick(f, in_call, ps->runs_known, ps->runs);
	if (c->copied && ps->took_its_cpu)
		frames_at_our_tick(s, ps, in_call, at.nr);
	if (c->copied && !c->from_switch && st->follow.copy && !th->group_stop)
		follow_copy_learn(p, st->follow.copy, &s->snap->regs);
	if (c->copied && ps->running && ps->at_once)
		note_far_stop(s, p, th, st, in_call);
	/* asleep where a peek could not unwind it: its registers, for the
	 * next peek there */
	if (c->copied && complete && n > 0 && in_call && at.pc && at.pc == st->peek.regs_pc) {
		sleep_regs_keep(&st->peek.slept_regs, &at, &s->snap->regs, frames, n);
		st->peek.slept_sp = at.sp;
	}
	owed_count(s, p, st, c->copied ? frames : NULL, n, complete);
	const struct pending_count copied = {
		.frames = frames, .n_frames = n, .complete = complete, .user_stack = c->copied,
		.user_if_blocked = blocked_ok, .group_stop = th->group_stop,
		.on_cpu_by_runs = on_cpu_by_runs, .how = ps->at_once ? COUNT_STOP : COUNT_LATE,
	};
	count_pending_ticks(s, p, st, ps, &copied);
	if (ps->waited_ticks) { /* due while it waited for the CPU we held */
		struct observation ob = { .state = STATE_RUNNABLE, .user = c->copied };
		app_state_into(s, p, &ob); /* its word, as its other ticks' */
		count_now(s, p, st, &ob, (struct user_frames){ frames, n, complete },
			  (struct tick_span){ ps->waited_ticks, ps->ticks[0].first_ns, when->seen_ns,
					      COUNT_WAITED });
	}
}

/* The sample(s) of a thread whose registers and stack are copied (c),
 * and which runs again: the stop's cost noted, then unwound and counted.
 * asked_ns: when its stop was asked (or its copy made); seen_ns: when
 * its trap was seen; execs: its process's execs before. */
static void finish_stop(struct sampler *s, struct process *p, struct thread *th,
			struct sampled_thread *st, struct pending_stop *ps, struct thread_memory *m,
			const struct stop_copy *c, uint64_t asked_ns, uint64_t seen_ns, unsigned execs)
{
	uint64_t t1 = now_ns();
	if (!s->cur.committed)
		s->cur.released_ns = c->resumed_ns;
	if (array_reserve((void **)&s->stops.resumed, s->stops.n_resumed + 1, &s->stops.cap_resumed,
			  sizeof(*s->stops.resumed)))
		s->stops.resumed[s->stops.n_resumed++] = thread_ref_of(s, p, th);
	note_stop_cost(s, st, ps, c, seen_ns);
	if (p->t->execs != execs || !m) {
		/* An execve completed while we waited: what /proc said before
		 * the stop was the old program's, the stack is the new one's.
		 * Such a sample describes neither. */
		free(ps);
		return;
	}
	struct stop_times when = { asked_ns, seen_ns, c->resumed_ns, ps->at_once };
	struct stop_facts f = stop_facts(th, ps, s->snap, c->runs_known, c->stopped.runs);
	if (c->parked) {
		owed_count(s, p, st, m->frames, m->n_frames, m->complete);
		count_parked(s, p, th, st, ps, c, &f, &when);
	} else {
		unwind_and_count(s, p, th, st, ps, m, c, &f, &when);
	}
	free(ps);
	hist_add(&s->r->work, now_ns() - t1);
}

/* Completes the sample(s) of a thread we stopped, now that it is: copy,
 * resume, then unwind and count.  Called as soon as its trap is seen. */
static void complete_stop(struct sampler *s, struct process *p, struct thread *th,
			  uint64_t seen_ns)
{
	struct sampled_thread *st = sampled_of(s, p, th);
	struct pending_stop *ps = st ? st->pending : NULL;
	unsigned execs = p->t->execs;
	if (!ps) {
		thread_resume(p->t, th); /* a stop we gave up on */
		return;
	}
	st->pending = NULL;
	stop_settled(s);
	struct thread_memory *m = memory_of(st);
	app_set_words(s, p); /* a trap may come while another process is sampled */
	struct stop_copy c = copy_and_resume(s, p, th, st, m, ps);
	finish_stop(s, p, th, st, ps, m, &c, th->stop_asked_ns, seen_ns, execs);
}

void capture_on_trap(void *arg, struct target *t, struct thread *th, uint64_t seen_ns)
{
	struct sampler *s = arg;
	complete_stop(s, process_of(s, t), th, seen_ns);
	/* Between rounds the thread we resumed may land on our CPU, and
	 * run there until our next tick, which would then wait for it. */
	if (s->cur.committed)
		capture_keep_off(s);
}

void capture_poll_pending(struct sampler *s)
{
	size_t kept = 0;
	for (size_t i = 0; i < s->stops.n_pending; i++) {
		struct thread_ref r = s->stops.pending[i];
		struct thread *th = thread_of(s, &r);
		if (th && !th->gone && th->stop_pending)
			thread_poll(s->procs[r.proc].t, th, capture_on_trap, s);
		if (th && !th->gone && th->stop_pending) {
			s->stops.pending[kept++] = r;
			continue;
		}
		struct sampled_thread *st = th ? sampled_of(s, &s->procs[r.proc], th) : NULL;
		if (st)
			st->pending_listed = false;
	}
	s->stops.n_pending = kept;
}

/* A followed thread our tick took its CPU from, sampled from the copy
 * the kernel made of it as it left the CPU to us (switch_copy.h): its
 * registers and stack of that instant, the call it was leaving by its
 * address (call_sites.h), the rest of a deeper stack and its process's
 * words read now - proven of that instant by its run count, read last,
 * unchanged since the round's first read (it has not run since our tick
 * took its CPU).  No stop: it runs on as our round lets go of its CPU.
 * false: no copy fits (none, the ring overrun, an address no stop
 * taught yet, or it ran meanwhile), and it is stopped as before. */
static bool sample_from_copy(struct sampler *s, struct process *p, struct thread *th,
			     struct sampled_thread *st, struct pending_stop *ps)
{
	struct follow_copy *fc = st->follow.copy;
	if (!fc || !ps->took_its_cpu || !ps->runs_known || s->tick_timed ||
	    fc->execs != p->t->execs || sched_getcpu() != s->me.cpu)
		return false;
	struct snapshot *sn = s->snap;
	struct switch_copied cp;
	uint64_t from = s->cur.due_ns && s->cur.due_ns < s->cur.tick_ns ? s->cur.due_ns : s->cur.tick_ns;
	if (switch_copy_take(fc->watch, from, &cp, sn->stack, SNAPSHOT_STACK_MAX) != TAKE_COPY ||
	    cp.at_ns > s->cur.tick_ns || cp.cpu != s->me.cpu)
		return false;
	long nr;
	if (!call_sites_known(&fc->sites, cp.regs.rip, &nr)) {
		s->r->copy_unknown++;
		return false;
	}
	sn->tid = th->tid;
	sn->regs = cp.regs;
	sn->regs.orig_rax = (unsigned long long)nr; /* CALL_NONE: -1, none */
	sn->partial_regs = sn->callee_saved = false;
	sn->stack_start = cp.regs.rsp;
	sn->stack_len = cp.stack_len;
	stack_bounds(p, st, cp.regs.rsp, false);
	uint64_t top = copy_top(st); /* (a copy found short: the whole stack next time) */
	if (top > sn->stack_start + sn->stack_len)
		snapshot_extend(th->tid, top, sn); /* else cut: unwound as far */
	app_set_words(s, p);
	sn->words_ok = 0;
	if (sn->n_words)
		snapshot_read_words(th->tid, sn);
	struct stop_copy c = { .copied = true, .from_switch = true };
	c.runs_known = thread_read_sched(p->t, th, &c.stopped) == 0;
	if (!c.runs_known || c.stopped.runs != ps->runs)
		return false; /* it ran: the rest is not of that instant */
	c.queued_from = cp.at_ns;
	ps->began_ns = cp.at_ns;
	ps->at_once = true;
	struct thread_memory *m = memory_of(st);
	unsigned execs = p->t->execs;
	let_go(s, p, th, st, ps, &c, false);
	s->r->copied++;
	finish_stop(s, p, th, st, ps, m, &c, cp.at_ns, c.resumed_ns, execs);
	return true;
}

void capture_stop(struct sampler *s, struct process *p, struct thread *th,
		  struct sampled_thread *st, const struct stop_request *rq, const char *kernel,
		  int n_kernel)
{
	struct pending_stop *ps = calloc(1, sizeof(*ps));
	if (!ps)
		return;
	pending_add_tick(s, ps, rq->state, rq->on_cpu, kernel, n_kernel);
	if (rq->words) {
		ps->look_words_known = true;
		ps->look_words = *rq->words;
	}
	ps->runs_known = rq->runs_known;
	ps->runs = rq->sc.runs;
	ps->classify_by_runs = rq->classify_by_runs;
	ps->running = rq->running;
	ps->took_its_cpu = rq->on_cpu && !rq->running && rq->state == 'R';
	ps->frames_assumed = rq->frames_assumed;
	ps->frames_check = rq->frames_check;
	/* held by our tick, its look read nothing else: its copy, if one
	 * fits (a look that read all teaches the calls, by a stop) */
	if (rq->frames_assumed && sample_from_copy(s, p, th, st, ps))
		return;
	if (thread_interrupt(th, &ps->began_ns) != 0) {
		free(ps);
		return;
	}
	assert(!st->pending); /* one stop at a time: the look saw none pending */
	st->pending = ps;
	s->stops.unsettled++;
	note_pending(s, p, th, st);
	bool queued = rq->state == 'R' && !rq->running && !rq->classify_by_runs;
	if (queued && !rq->on_cpu)
		s->r->queued++;
	uint64_t seen;
	uint64_t spin_until = queued || !rq->wait ? 0 : now_ns() + STOP_SPIN_NS;
	switch (thread_wait_stop(p->t, th, spin_until, &seen)) {
	case STOP_OK:
		ps->at_once = true;
		complete_stop(s, p, th, seen);
		break;
	case STOP_PENDING:
		/* collected by capture_on_trap when it comes: when it waits
		 * only for our CPU, as soon as the round's stops are asked */
		if (rq->yield) {
			s->stops.yield_wanted = true;
			s->stops.yield_to = thread_ref_of(s, p, th);
		}
		break;
	case STOP_GONE:
		free(st->pending);
		st->pending = NULL;
		stop_settled(s);
		break;
	}
}

void capture_yield(struct sampler *s)
{
	if (!s->stops.yield_wanted)
		return;
	s->stops.yield_wanted = false;
	struct thread *th = thread_of(s, &s->stops.yield_to);
	if (!th || th->gone || !th->stop_pending)
		return;
	uint64_t deadline = now_ns() + STOP_YIELD_NS;
	/* watched by the helper: asleep in waitpid, no timer armed (the
	 * trap came 10 us sooner, medians on sysmix at 1 ms: 10 against 21) */
	sigset_t during;
	if (resume_here_wait_begin(s->here, &during)) {
		bool came = targets_wait_unbounded(s->ts, s->n_targets, th, &during, capture_on_trap, s);
		resume_here_wait_end(s->here, !came);
		s->r->yields_unbounded++;
	}
	if (!th->gone && th->stop_pending)
		targets_wait_for(s->ts, s->n_targets, th, deadline, capture_on_trap, s);
}

void capture_pending_tick(struct sampler *s, struct process *p, struct thread *th,
			  struct sampled_thread *st, char state, uint64_t now)
{
	if (st->pending) {
		struct kernel_stack ks;
		thread_read_kernel_stack(p->t, th, &ks);
		bool on_cpu = !p->t->kernel_stacks || kernel_stack_on_cpu(&ks);
		char kernel[MEMORY_KERNEL_BYTES];
		int n_kernel = count_kernel_frames(&ks, kernel, sizeof(kernel));
		pending_add_tick(s, st->pending, state, on_cpu, kernel, n_kernel);
	}
	thread_nudge(th, now);
	if (st->pending && !st->pending->late && now - th->stop_asked_ns >= STOP_LATE_NS) {
		st->pending->late = true;
		st->stopped.timeouts++;
		s->r->stop_timeouts++;
	}
}

/* Every CPU we may use wanted already?  Then KEEP OFF has nowhere to go
 * (placement.h), and where more threads run cannot change that. */
static bool every_cpu_wanted(const struct sampler *s)
{
	cpu_set_t both;
	CPU_AND(&both, &s->cur.wanted, &s->placement.allowed);
	return CPU_EQUAL(&both, &s->placement.allowed);
}

/* Where the threads resumed since the last placement are now: the
 * kernel may have put them on our CPU, their waker's.  Read only while
 * it can matter: on 2 CPUs that a server's threads keep busy, both are
 * wanted by the looks most rounds, and these reads of stat were a
 * quarter of the round's (MariaDB under sysbench at 1 ms). */
static void note_resumed(struct sampler *s)
{
	for (size_t i = 0; i < s->stops.n_resumed && !every_cpu_wanted(s); i++) {
		struct thread *th = thread_of(s, &s->stops.resumed[i]);
		struct task_stat ts;
		if (!th || th->gone || thread_read_stat(th, &ts) != 0 || ts.state != 'R')
			continue;
		sampler_want_cpu(s, ts.processor);
	}
}

/* Where the followed threads are now, those that run or wait to: one
 * whose stop is still pending, or that was not stopped this round (a
 * neighbour had its CPU), is followed too - else the sampler, with none
 * to follow, would leave its CPU as KEEP OFF does, and stop it from
 * afar at the next tick.  Its CPU is its last from now: the round after
 * we follow it there reads when we got it first thing (round.c), to
 * tell that our tick preempted it. */
static void note_followed(struct sampler *s)
{
	size_t kept = 0;
	for (size_t i = 0; i < s->stops.n_follow; i++) {
		struct thread *th = thread_of(s, &s->stops.follow[i]);
		if (!th || th->gone)
			continue;
		s->stops.follow[kept++] = s->stops.follow[i];
		struct task_stat ts;
		struct sched_counts sc;
		struct sampled_thread *st = th->slot ? sampled_at(s, th->slot - 1) : NULL;
		/* its run count first: while it stands, the CPU stat gives
		 * after it is the thread's (round.c, held_by_us) */
		bool runs = st && thread_read_sched(s->procs[s->stops.follow[i].proc].t, th, &sc) == 0;
		if (!st || thread_read_stat(th, &ts) != 0 || ts.state != 'R' || ts.processor < 0 ||
		    ts.processor >= CPU_SETSIZE)
			continue;
		st->follow.placed = (struct placed_seen){ runs, runs ? sc.runs : 0, ts.processor };
		st->last_cpu = ts.processor;
		CPU_SET(ts.processor, &s->cur.followed);
	}
	s->stops.n_follow = kept;
}

/* FOLLOW looks again after a move this many times: the CPU it left, idle
 * now, may pull the thread over while our arrival holds it. */
#define FOLLOW_TRIES 3

void capture_round_placement(struct sampler *s)
{
	assert(capture_pending_held(s));
	s->tick_timed = false;
	if (s->here && s->placement.on && s->stops.n_follow && s->sched) {
		note_followed(s);
		int cpu = -1;
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &s->cur.followed))
				cpu = cpu < 0 ? c : -2; /* (one followed CPU only) */
		CPU_ZERO(&s->cur.followed);
		if (cpu >= 0 && resume_here_sleep_there(s->here, s->sched->due_ns, cpu, &s->timed_ns)) {
			s->tick_timed = true;
			CPU_ZERO(&s->cur.wanted);
			s->stops.n_resumed = 0;
			return;
		}
	}
	capture_keep_off(s);
}

void capture_keep_off(struct sampler *s)
{
	if (s->tick_timed) /* a trap between rounds: the helper puts us back */
		return;
	if (!s->placement.on) {
		s->stops.n_resumed = 0;
		return;
	}
	for (int i = 0; i < FOLLOW_TRIES; i++) {
		note_resumed(s);
		note_followed(s);
		int from = sched_getcpu();
		int to = placement_apply(&s->placement, &s->cur.wanted, &s->cur.followed, from);
		CPU_ZERO(&s->cur.wanted);
		CPU_ZERO(&s->cur.followed);
		if (to < 0)
			break;
		tick_trace_move(s->trace, from, to);
		if (s->placement.way != PLACE_FOLLOW)
			break;
		s->r->follow_moves += i > 0;
	}
	s->stops.n_resumed = 0;
}

/* The process's last thread ended: nothing of it is unwound any more
 * (pgbench -C, a backend per transaction: 130 kB kept for each one that
 * ended, 500 MB in a minute).  Whether we sampled it or not: half of
 * those backends end before their first tick. */
static void process_ended(struct sampler *s, struct target *t)
{
	bool all_gone = t->exited;
	for (size_t i = 0; all_gone && i < t->n_threads; i++)
		all_gone = t->threads[i].gone;
	struct process *p = process_of(s, t);
	if (all_gone && p->t == t && p->program) {
		program_ended(p->program);
		/* --period: its stacks named and its slot let go between
		 * ticks, not at the window's end (retire.h) */
		if (s->cont && s->o->period_ns)
			s->retire.due = true;
	}
}

/* target.h's on_drop: a thread ended.  Its ticks still waiting for a trap
 * are counted as read; its record stays for the summary. */
void capture_thread_ended(void *arg, struct target *t, struct thread *th)
{
	struct sampler *s = arg;
	struct sampled_thread *st = th->slot ? sampled_of(s, process_of(s, t), th) : NULL;
	if (!st) {
		process_ended(s, t);
		return;
	}
	cold_flush(s, st);
	capture_unstopped(s, &s->procs[st->proc], st);
	if (owed_any(st)) /* refused a stop, and none came */
		owed_count(s, &s->procs[st->proc], st, NULL, 0, 1);
	st->ended = true;
	switch_regs_unwatch(s->switches, st->switched);
	st->switched = NULL;
	capture_follow_end(s, st);
	free(st->memory);
	st->memory = NULL;
	free(st->refused.owed);
	st->refused.owed = NULL;
	process_ended(s, t);
}
