/* round.c - one tick's round (round.h). */
#define _GNU_SOURCE
#include "sample/round.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/frame.h"
#include "base/array.h"
#include "sample/capture.h"
#include "sample/app.h"
#include "sample/count.h"
#include "sample/cold.h"
#include "sample/owed.h"

/* Traps of threads queued for a CPU are looked for this often during the
 * look at every thread. */
#define POLL_EVERY_NS 20000ULL

/* --- whose CPU ------------------------------------------------------- */

/* Our own se.exec_start: when we got this CPU, as the scheduler's clock
 * counts.  It is also moved on by anything that makes the scheduler
 * account our time (a task woken onto our CPU, a scheduler tick), so it
 * is exact only read before such a thing: first in the round. */
static void read_my_start(struct sampler *s)
{
	s->me.start_read = true;
	if (s->me.sched_fd == -1) {
		s->me.sched_fd = open("/proc/thread-self/sched", O_RDONLY | O_CLOEXEC);
		if (s->me.sched_fd < 0)
			s->me.sched_fd = -2;
	}
	char buf[4096];
	ssize_t n = s->me.sched_fd >= 0 ? pread(s->me.sched_fd, buf, sizeof(buf), 0) : -1;
	s->me.start_known = n > 0 && parse_sched_exec_start(buf, (size_t)n, &s->me.start_ns) == 0;
}

/* The slack ran_until_us allows: the thread's wake-up after PTRACE_CONT
 * and our own from the tick's interrupt to the round's clock.  sysmix
 * (nothing else on its CPU) fell short of the time since by 12-15 us at
 * the median, 21 us at p90, 32-46 us at p99, at 1 ms and 100 us. */
#define RAN_UNTIL_US_SLACK_NS 50000ULL

/* Preempted by us, as its schedstat alone shows it (decide.h, ran_until):
 * on a CPU from our last resume of it until our round, but for
 * RAN_UNTIL_US_SLACK_NS.  Taken off its CPU by another task before our
 * tick, and queued since, it falls short by that task's time: by more
 * than the slack, unless that task ran less than it (then
 * it counts as running at the tick, an error of that much: as much as the
 * tick's interrupt takes to wake us here, 14-40 us).  false:
 * unknown, ask preempted_by_us.  For a followed thread, which our round
 * stops at every tick on its CPU, it spares the round's two dearest reads
 * (its /proc/.../sched and ours): 10 us of the ~80 the thread waits for
 * at 1 ms.  (Not for others: a server's threads that take turns on a CPU
 * every ~100 us would count as running for up to the slack after a
 * turn ended.) */
static bool ran_until_us(const struct sampler *s, const struct sampled_thread *st,
			 const struct sched_counts *sc)
{
	const struct sched_counts at_resume = { .run_ns = st->follow.resume_run_ns, .runs = st->follow.resume_runs };
	return st->follow.resume_known &&
	       ran_until(&at_resume, st->follow.resume_cont_ns, sc, s->cur.tick_ns, RAN_UNTIL_US_SLACK_NS);
}

/* R, not on a CPU, on ours: waiting only because our tick took the CPU
 * from it?  Then it stopped running the instant we started.  (A start
 * read late in the round can only be later than the true one: then a
 * preempted thread may count as queued, never the other way.) */
static bool preempted_by_us(struct sampler *s, struct process *p, struct thread *th,
			    const struct task_stat *st, const struct sampled_thread *sth,
			    const struct sched_counts *sc, bool runs_known)
{
	if (st->processor != s->me.cpu)
		return false;
	if (runs_known && sth->follow.on && ran_until_us(s, sth, sc))
		return true;
	if (!s->me.start_read)
		read_my_start(s);
	uint64_t stopped_at;
	return s->me.start_known && thread_read_exec_start(p->t, th, &stopped_at) == 0 &&
	       stopped_at >= s->me.start_ns;
}

/* Which CPU this round runs on; and when we got it, read at once when a
 * target thread was on this CPU at its last tick (else at the first need,
 * see preempted_by_us).  A process we resume often wakes on our CPU (the
 * waker's) and runs there, so that every tick preempts it: read only in
 * rounds after one that needed it, our start was missing in every other
 * such round, and a CPython loop on a CPU 47 % of its time (schedstat)
 * showed 20 % running and 32 % runnable.  Not for a cold thread (cold.h),
 * asleep at its last looks: reading our start (/proc/thread-self/sched,
 * dear to format) every round was an eighth of our CPU on an idle
 * PostgreSQL instance at -d 1ms; one that woke is read late if at all. */
static void note_my_cpu(struct sampler *s)
{
	s->me.start_read = false;
	s->me.start_known = false;
	s->me.cpu = sched_getcpu();
	int shown = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		struct sampled_thread *st = sampled_at(s, i);
		if (st->ended || st->cold.on || st->last_cpu != s->me.cpu)
			continue;
		/* (not for a followed thread whose schedstat shows it: a cheap
		 * read; one or two such threads at most; its look may need no
		 * other, held_by_us) */
		struct sched_counts sc;
		struct thread_ref ref = { .proc = st->proc, .tid = st->tid };
		struct thread *th = st->follow.on && st->follow.resume_known && shown++ < 2 ?
			thread_of(s, &ref) : NULL;
		if (th && thread_read_sched(s->procs[st->proc].t, th, &sc) == 0 &&
		    ran_until_us(s, st, &sc)) {
			st->follow.held_round = s->cur.number;
			st->follow.held_sc = sc;
			continue;
		}
		read_my_start(s);
		return;
	}
}

/* --- 1. look ---------------------------------------------------------- */

/* A held thread's look reads it whole all the same every this many
 * looks: its stat (its name, CPU time in the kernel, threads), and its
 * kernel stack, which checks the shape call_frames.h gives. */
#define HELD_LOOKS_MAX 16

/* How a look reads a thread. */
enum look_kind {
	LOOK_WHOLE,     /* its stat, schedstat and kernel stack, as they are */
	LOOK_HELD,      /* held by our tick (held_by_us): its schedstat alone */
	LOOK_HELD_READ, /* held, and read whole all the same */
};

/* A followed thread our tick took its CPU from, shown by the round's
 * first read (note_my_cpu, ran_until_us), the CPU it was seen on after
 * our resume (decide.h, still_where_placed) and its wchan (R: not asleep
 * since).  Its look is then that read alone: stat and the kernel stack
 * of a preempted thread (~3 and ~7 us, formatted by the kernel) were a
 * fifth of the time our round held sysmix's CPU at 1 ms. */
static enum look_kind held_by_us(struct sampler *s, struct process *p, struct thread *th)
{
	if (!th->slot || th->stop_pending || !p->t->kernel_stacks)
		return LOOK_WHOLE;
	struct sampled_thread *st = sampled_at(s, th->slot - 1);
	if (!st->follow.on || st->follow.held_round != s->cur.number || st->ended ||
	    !still_where_placed(&st->follow.placed, st->follow.resume_runs, &st->follow.held_sc,
				s->me.cpu) ||
	    thread_read_runnable(p->t, th) != 1)
		return LOOK_WHOLE;
	if (++st->follow.held_looks >= HELD_LOOKS_MAX) {
		st->follow.held_looks = 0;
		return LOOK_HELD_READ;
	}
	s->r->held_looks++;
	return LOOK_HELD;
}

/* The schedstat figures for the summary's check of the samples. */
static void note_sched(struct sampled_thread *st, const struct sched_counts *sc,
		       long long stime, uint64_t now)
{
	struct sched_reading r = { now, sc->run_ns, sc->wait_ns, stime };
	if (!st->sched_seen) {
		st->sched_seen = true;
		st->sched_first = r;
	}
	st->sched_last = r;
	selfcheck_sched(&st->check, now, sc->run_ns, sc->wait_ns);
}

static bool defer_stop(struct sampler *s, struct process *p, struct thread *th, char state,
		       bool by_runs, const struct sched_counts *sc, bool runs_known)
{
	if (!array_reserve((void **)&s->cur.running, s->cur.n_running + 1, &s->cur.cap_running,
			   sizeof(*s->cur.running)))
		return false;
	s->cur.running[s->cur.n_running++] = (struct deferred_stop){
		thread_ref_of(s, p, th), state, by_runs, runs_known, *sc };
	return true;
}

/* What the look at a blocked thread read at the tick: its stat and run
 * count (the peek reads the rest, capture_peek). */
static void look_blocked(struct sampler *s, struct process *p, struct thread *th, char state,
			 const struct sched_counts *sc, bool runs_known,
			 const struct early_read *early, struct blocked_look *d)
{
	*d = (struct blocked_look){ .ref = thread_ref_of(s, p, th), .state = state,
				    .runs_known = runs_known, .sc = *sc, .early = *early };
}

/* A blocked thread whose stack needs registers: asked to stop at once,
 * its trap collected by the round's polls (our interrupt wakes it; it
 * traps at once, still in the sleep the look saw). */
static void stop_blocked(struct sampler *s, struct process *p, struct thread *th,
			 struct sampled_thread *st, const struct blocked_look *d)
{
	if (th->gone || th->stop_pending)
		return;
	if (!overhead_may_stop(&st->cost, now_ns(), s->o->max_overhead)) {
		owed_refused(s, p, st, d->state, false, d->kernel, d->n_kernel);
		return;
	}
	struct stop_request rq = { .state = d->state, .runs_known = d->runs_known, .sc = d->sc,
				   .words = &d->words };
	capture_stop(s, p, th, st, &rq, d->kernel, d->n_kernel);
}

/* Its user stack, read at once while it sleeps (capture_peek), or when
 * that needs registers, a stop asked at once: the sooner after the look,
 * the fewer threads wake before it.  PostgreSQL's ClientRead samples with
 * their stack under pgbench: 82-86 % with peeks after the round's stops,
 * 90-97 % peeked at once and stopped after the running threads' stops,
 * 96.8-98.6 % stopped at once too (Debian's 15 unwinds a backend's wait
 * through a frame found through rbp, which a peek does not have). */
static void peek_blocked(struct sampler *s, struct process *p, struct thread *th,
			 struct sampled_thread *st, struct blocked_look *d)
{
	if (!capture_peek(s, p, th, st, d))
		stop_blocked(s, p, th, st, d);
}

/* A thread to stop that is not executing now: asked at once, not waited
 * for (queued for a CPU, it traps when it gets one), or, when the look
 * could not keep it for later, stopped now. */
/* --max-overhead: over its budget, this tick keeps what it saw and
 * borrows the next stop's stack (owed.h). */
static bool refused(struct sampler *s, struct process *p, struct sampled_thread *st, char state,
		    bool on_cpu, struct kernel_stack *ks)
{
	if (overhead_may_stop(&st->cost, now_ns(), s->o->max_overhead))
		return false;
	char kernel[MEMORY_KERNEL_BYTES];
	int n_kernel = count_kernel_frames(ks, kernel, sizeof(kernel));
	owed_refused(s, p, st, state, on_cpu, kernel, n_kernel);
	return true;
}

static void stop_now(struct sampler *s, struct process *p, struct thread *th,
		     struct sampled_thread *st, const struct stop_request *rq, struct kernel_stack *ks)
{
	char kernel[MEMORY_KERNEL_BYTES];
	int n_kernel = count_kernel_frames(ks, kernel, sizeof(kernel));
	capture_stop(s, p, th, st, rq, kernel, n_kernel);
}

/* Tracing only: a thread whose memory is reused is read again, and the
 * trace says whether the copy matched - the replay tests check that it
 * always does while the run count stands still (decide.h's rule). */
static void verify_reuse(struct sampler *s, struct process *p, struct thread *th,
			 struct sampled_thread *st, const struct sched_counts *sc)
{
	struct blocked_syscall w;
	struct sched_counts after;
	if (thread_read_syscall(th, &w) != 0 ||
	    snapshot_peek(th->tid, &w, st->peek.stack_top, s->snap) != 0 ||
	    thread_read_sched(p->t, th, &after) != 0)
		return;
	const struct unwind_input in = {
		.sp = s->snap->regs.rsp, .pc = s->snap->regs.rip,
		.stack_start = s->snap->stack_start, .stack_len = s->snap->stack_len,
		.stack_hash = stack_hash(s->snap->stack, s->snap->stack_len),
		.generation = modules_generation(p->program->modules),
	};
	tick_trace_verify(s->trace, th->tid, memory_matches(st->memory, &in), sc->runs, after.runs);
}

/* What decide's answer needs, for a thread that can be observed or asked
 * to stop from what the look read. */
static void act(struct sampler *s, struct process *p, struct thread *th, struct sampled_thread *st,
		enum thread_action a, const struct task_stat *ts, const struct sched_counts *sc,
		bool runs_known, const struct early_read *early, enum look_kind kind)
{
	struct thread_memory *m = st->memory;
	if (ts->state == 'R')
		sampler_want_cpu(s, ts->processor);
	switch (a) {
	case ACT_SKIP:
		return;
	case ACT_REUSE:
	case ACT_PARKED:
	case ACT_QUEUED:
		if (a == ACT_REUSE && tick_trace_on(s->trace) && !th->group_stop)
			verify_reuse(s, p, th, st, sc);
		app_read_words(s, p, th->tid);
		s->r->reused++;
		count_observe_memory(s, p, st,
				     a == ACT_REUSE ? reported_state(ts->state, th->group_stop, false) :
				     a == ACT_PARKED ? reported_state(m->state_before, false, false) :
						       reported_state('R', false, false));
		return;
	case ACT_PEEK: {
		struct blocked_look d;
		look_blocked(s, p, th, ts->state, sc, runs_known, early, &d);
		peek_blocked(s, p, th, st, &d);
		return;
	}
	case ACT_STOP:
		break;
	}
	/* held by our tick: the stop's registers may tell its kernel frames,
	 * or the frames read check what they would tell */
	bool held = kind != LOOK_WHOLE && ts->state == 'R';
	bool assumed = held && kind == LOOK_HELD && capture_call_frames_known(s);
	struct kernel_stack ks = { .depth = 0 };
	if (!assumed)
		thread_read_kernel_stack(p->t, th, &ks);
	s->r->assumed_frames += assumed;
	/* R on a CPU or queued for one: the kernel stack tells, as read
	 * before the stop; without it, the trap will. */
	bool by_runs = !p->t->kernel_stacks && runs_known && ts->state == 'R';
	/* (a held thread whose stack is read is as it reads: another CPU
	 * may have taken it from our queue since the round's first read) */
	bool running = !assumed && (!p->t->kernel_stacks || kernel_stack_on_cpu(&ks));
	held = held && !running;
	bool on_cpu = running || held ||
		      (ts->state == 'R' && preempted_by_us(s, p, th, ts, st, sc, runs_known));
	if (refused(s, p, st, ts->state, on_cpu, &ks))
		return;
	if (running && defer_stop(s, p, th, ts->state, by_runs, sc, runs_known))
		return; /* step 2: where it runs after that, capture_keep_off reads */
	/* not queued for a CPU (R): it traps at once when asked */
	bool wait = running || ts->state != 'R';
	/* following it, our tick preempted it here: it traps the moment we
	 * sleep, and until then it waits for us */
	bool yield = on_cpu && !running && st->follow.on;
	struct stop_request rq = { .state = ts->state, .on_cpu = on_cpu, .running = running,
				   .classify_by_runs = by_runs, .runs_known = runs_known, .sc = *sc,
				   .wait = wait, .yield = yield, .frames_assumed = assumed,
				   .frames_check = held && !assumed };
	stop_now(s, p, th, st, &rq, &ks);
}

/* The threads a round looks at, one by one: the last is looked at a few
 * hundred microseconds after the tick (PostgreSQL under pgbench -c 4: 11
 * processes, 300 us), and a backend that slept at the tick is often woken
 * by then, queued for a CPU - 18 % of its looks, which said R (runnable)
 * 26 % of the time against its schedstat's 17 % waiting for a CPU, and
 * S 8 points too few.  Their state and run count are read first, all
 * of them: one that slept then and has not run since is still in that
 * sleep, stacks and all, and is sampled as it (decide.h, state_at_tick).
 * Only where the looks take long enough for it: several threads looked
 * at in turn.  A thread cold.h keeps still is proven by its run count,
 * and needs no first read. */
static void read_states_at_tick(struct sampler *s)
{
	size_t hot = 0;
	for (size_t i = 0; i < s->n_threads && hot < 2; i++) {
		const struct sampled_thread *st = sampled_at(s, i);
		hot += !st->ended && !st->cold.on;
	}
	if (hot < 2)
		return;
	for (size_t i = 0; i < s->n_targets; i++) {
		struct process *p = &s->procs[i];
		for (size_t k = 0; k < p->t->n_threads; k++) {
			struct thread *th = &p->t->threads[k];
			if (th->gone || !th->slot || th->stop_pending)
				continue;
			struct sampled_thread *st = sampled_at(s, th->slot - 1);
			struct task_stat ts;
			struct sched_counts sc;
			/* its run count first: a stat read after it is still
			 * its stat while the count and time stand still */
			if (st->cold.on || thread_read_sched(p->t, th, &sc) != 0 ||
			    thread_read_stat(th, &ts) != 0)
				continue;
			st->reads.tick_round = s->cur.number;
			st->reads.tick_stat = ts;
			st->reads.tick_sc = sc;
		}
	}
}

/* Read at the round's start and not put on a CPU since (decide.h,
 * not_run_between): its stat then is its stat now, and the look reads its
 * schedstat alone, into sc.  /proc/PID/task/TID/stat is the dearest read
 * of a look (MariaDB under sysbench at 1 ms: a sixth of the profiler's
 * CPU, the round's first read and the look's). */
static bool still_since_tick(struct sampler *s, struct process *p, struct thread *th,
			     struct sched_counts *sc)
{
	const struct sampled_thread *st = sampled_at(s, th->slot - 1);
	return st->reads.tick_round == s->cur.number && thread_read_sched(p->t, th, sc) == 0 &&
	       not_run_between(&st->reads.tick_sc, sc);
}

/* What a look reads first: its stat - the round's first read's, not put
 * on a CPU since (still), or none, held by our tick - and then its
 * schedstat (look_noted).  false: it is gone. */
static bool look_read(struct sampler *s, struct process *p, struct thread *th,
		      enum look_kind kind, struct task_stat *ts, struct sched_counts *sc, bool *still)
{
	*still = kind == LOOK_WHOLE && th->slot && !th->stop_pending &&
		 still_since_tick(s, p, th, sc);
	if (kind == LOOK_HELD) { /* R on our CPU, its schedstat the round's first read */
		*ts = (struct task_stat){ .state = 'R', .processor = s->me.cpu, .num_threads = -1,
					  .stime = -1 };
		*sc = sampled_at(s, th->slot - 1)->follow.held_sc;
		return true;
	}
	if (*still) {
		*ts = sampled_at(s, th->slot - 1)->reads.tick_stat;
		return true;
	}
	return thread_read_stat(th, ts) == 0;
}

/* What the look read, kept in the thread's record, its schedstat read if
 * it was not: returns whether its run count is known. */
static bool look_noted(struct sampler *s, struct target *t, struct thread *th,
		       struct sampled_thread *st, const struct task_stat *ts,
		       struct sched_counts *sc, bool still, bool held, uint64_t t0)
{
	st->last_cpu = ts->processor;
	if (!held && th->tid == t->pid)
		t->num_threads = ts->num_threads;
	if (!held && strcmp(ts->comm, st->comm_raw) != 0) {
		frame_sanitize(ts->comm, st->comm, sizeof(st->comm));
		memcpy(st->comm_raw, ts->comm, sizeof(st->comm_raw));
	}
	if (!still && !held && thread_read_sched(t, th, sc) != 0)
		return false;
	st->reads.look_round = s->cur.number;
	st->reads.look_sc = *sc;
	if (held) /* (no stime: the summary's readings stay whole ones) */
		selfcheck_sched(&st->check, t0, sc->run_ns, sc->wait_ns);
	else
		note_sched(st, sc, ts->stime, t0);
	capture_note_switches(s, st, sc->runs, t0);
	overhead_looked(&st->cost, sc->wait_ns, sc->runs, t0);
	return true;
}

static void look_at(struct sampler *s, struct process *p, struct thread *th)
{
	enum look_kind kind = held_by_us(s, p, th);
	/* a thread that slept and woke since its last look: what a peek
	 * reads, read first (capture.h).  Not one held by our tick: it ran
	 * until the tick and sleeps in nothing a peek could read (its
	 * /proc/.../syscall says "running"); reading it took ~3 us of the
	 * time our round held sysmix's CPU at 1 ms. */
	struct early_read early = { .done = false };
	if (th->slot && !th->stop_pending && kind == LOOK_WHOLE)
		capture_read_early(s, p, th, sampled_at(s, th->slot - 1), &early);
	struct task_stat ts;
	struct sched_counts sc = { 0, 0, 0 };
	bool still;
	if (!look_read(s, p, th, kind, &ts, &sc, &still))
		return;
	struct sampled_thread *st = sampled_of(s, p, th);
	if (!st)
		return;
	cold_flush(s, st); /* its still ticks, before it is looked at anew */
	switch_regs_drain(s->switches, st->switched); /* its ring never full */
	uint64_t t0 = now_ns();
	bool runs_known = look_noted(s, p->t, th, st, &ts, &sc, still, kind == LOOK_HELD, t0);
	if (th->stop_pending && (ts.state == 'Z' || ts.state == 'X')) {
		/* It exited with our stop pending and will never trap: the
		 * ticks it had are counted as they were read; a zombie is no
		 * sample (decide.h). */
		thread_forget_stop(th);
		capture_unstopped(s, p, st);
		return;
	}
	if (th->stop_pending) {
		capture_pending_tick(s, p, th, st, ts.state, t0);
		return;
	}
	if (!st->memory && !(st->memory = calloc(1, sizeof(*st->memory))))
		return;
	if (runs_known && st->reads.tick_round == s->cur.number) {
		char then = state_at_tick(ts.state, st->reads.tick_stat.state, st->reads.tick_sc.runs, sc.runs);
		s->r->woke_in_round += then != ts.state;
		ts.state = then;
	}
	struct tick_view v = {
		.state = ts.state, .runs_known = runs_known, .runs = sc.runs,
		.group_stop = th->group_stop, .group_stops = th->group_stops,
		.generation = modules_generation(p->program->modules),
	};
	enum thread_action a = decide(&v, st->memory);
	tick_trace_look(s->trace, s->cur.number, th->tid, &v, ts.processor, a, sc.run_ns, t0);
	bool was_cold = st->cold.on;
	act(s, p, th, st, a, &ts, &sc, runs_known, &early, kind);
	st->peek.read_early = a == ACT_PEEK || a == ACT_STOP;
	cold_after_look(st, a, ts.state);
	if (st->cold.on)
		capture_watch_cold(s, st, th->tid);
	if (a == ACT_STOP || a == ACT_PEEK)
		return;
	s->cur.released_ns = now_ns();
	uint64_t took = s->cur.released_ns - t0;
	hist_add(&s->r->work, took);
	if (was_cold) /* what a look at a cold thread costs, for cold.h */
		s->cold.look_ns = s->cold.look_ns ? (7 * s->cold.look_ns + took) / 8 : took;
}

/* R at the round's first read, on another CPU than ours: running there,
 * most likely, and its state the soonest to change - a PostgreSQL backend
 * under pgbench switches every ~100 us, and looked at in turn, ~150 us
 * after the tick, one in five running at the first read had gone to
 * sleep or been preempted by then (running 3-4 points under its
 * schedstat at 10 ms).  Those are looked at first (pass 0), the others
 * after (pass 1).  (A thread on our CPU cannot change while we hold it.) */
static bool look_first(struct sampler *s, const struct thread *th, int pass)
{
	if (th->gone || !th->slot)
		return false;
	struct sampled_thread *st = sampled_at(s, th->slot - 1);
	if (pass == 1)
		return st->reads.first_round == s->cur.number;
	if (th->stop_pending || st->reads.tick_round != s->cur.number || st->reads.tick_stat.state != 'R' ||
	    st->reads.tick_stat.processor == s->me.cpu)
		return false;
	st->reads.first_round = s->cur.number;
	return true;
}

/* Passes read this many threads at most (a server of a thousand: its
 * rounds would only grow). */
#define MID_THREADS_MAX 64

/* Was th seen R by its look this round? */
static bool seen_running(const struct sampler *s, const struct thread *th)
{
	if (th->gone || !th->slot)
		return false;
	const struct sampled_thread *st = sampled_at((struct sampler *)s, th->slot - 1);
	return st->reads.tick_round == s->cur.number && st->reads.tick_stat.state == 'R';
}

/* th's state at a tick due mid-round, now (mid_round_pass): 1 when it
 * was read (or tried), 0 when it is not one to read. */
static unsigned mid_read(struct sampler *s, struct process *p, struct thread *th, uint64_t now)
{
	if (th->gone || !th->slot || th->stop_pending)
		return 0;
	struct sampled_thread *st = sampled_at(s, th->slot - 1);
	if (st->ended || st->cold.on)
		return 0;
	if (st->reads.mid_round != s->cur.number) {
		st->reads.mid_round = s->cur.number;
		st->reads.n_mid = 0;
	}
	if (st->reads.n_mid >= MID_TICKS)
		return 0;
	struct mid_tick *mt = &st->reads.mid[st->reads.n_mid];
	struct task_stat ts;
	if (thread_read_sched(p->t, th, &mt->sc) != 0 || thread_read_stat(th, &ts) != 0)
		return 1;
	mt->state = ts.state;
	/* asleep: its process's words then (no stop: as a peek
	 * reads them), for the tick if its look was not then */
	mt->has_app = false;
	if (ts.state == 'S' || ts.state == 'D') {
		char app[APP_STATE_MAX];
		app_read_words(s, p, th->tid);
		const char *a = app_state(s, p, app, sizeof(app));
		p->word_fresh = false;
		if ((mt->has_app = a != NULL))
			snprintf(mt->app, sizeof(mt->app), "%s", a);
	}
	/* R: on our CPU it waits for us; on another, running
	 * or queued there, as its kernel stack tells */
	mt->on_cpu = false;
	if (ts.state == 'R' && ts.processor != s->me.cpu) {
		struct kernel_stack ks;
		thread_read_kernel_stack(p->t, th, &ks);
		mt->on_cpu = !p->t->kernel_stacks || kernel_stack_on_cpu(&ks);
	}
	mt->at_ns = now;
	st->reads.n_mid++;
	return 1;
}

/* A tick due while the round runs (a round of PostgreSQL's 11 processes
 * under pgbench at 1 ms: 217 us, a sixth of the time, its ticks a fifth)
 * was counted as the round's observations, made at the thread's look:
 * but a backend running on the other CPU then often slept before that
 * tick (R 38 % of such rounds' time), one asleep woke, and one our round
 * kept off its CPU waited for it (its CPU's other backends 12 % R inside
 * rounds, 23.5 % outside) - the backends' running share 2 points over
 * their schedstat.  So at such a tick each thread's schedstat and stat are
 * read again (no stop): count_round counts the tick as its observation if
 * it had not run since its look, else in the state it was in then
 * (mid_ticks, count.c). */
static void mid_round_pass(struct sampler *s)
{
	if (!s->cur.mid_due_ns || s->cur.n_mid >= MID_TICKS)
		return;
	uint64_t now = now_ns();
	if (now < s->cur.mid_due_ns)
		return;
	s->cur.n_mid++;
	s->cur.mid_due_ns = s->cur.n_mid < MID_TICKS ? schedule_first_from(s->sched, now + 1, 64) : 0;
	unsigned read = 0;
	/* those seen R at their looks first: our round holds the CPU one of
	 * them ran on, which their looks cannot show.  (1000 threads waking
	 * every 0.5 s and 4 spinning, created last, at 10 ms: 85 of 160
	 * passes stopped at MID_THREADS_MAX before the spinners, whose
	 * running share read 1.6-2.9 points over their schedstat's in five
	 * runs of 10 s; first, 1.0-2.0.) */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->n_targets && read < MID_THREADS_MAX; i++) {
			struct process *p = &s->procs[i];
			for (size_t k = 0; k < p->t->n_threads && read < MID_THREADS_MAX; k++)
				if (seen_running(s, &p->t->threads[k]) == (pass == 0))
					read += mid_read(s, p, &p->t->threads[k], now);
		}
}

static void look_at_every_thread(struct sampler *s, volatile int *quit)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < s->n_targets && !*quit; i++) {
			struct process *p = &s->procs[i];
			if (p->t->execs != p->execs_seen) {
				follow_exec(s, p);
				target_scan_threads(p->t);
			}
			for (size_t k = 0; k < p->t->n_threads && !*quit; k++) {
				struct thread *th = &p->t->threads[k];
				if (look_first(s, th, pass) != (pass == 0))
					continue;
				if (th->gone || (th->slot && cold_still(s, p, th, sampled_at(s, th->slot - 1),
									      th->slot - 1)))
					continue;
				look_at(s, p, th);
				mid_round_pass(s);
				if (p->t->execs != p->execs_seen)
					follow_exec(s, p);
				/* a queued thread that got its CPU waits for nobody (its
				 * trap looked for now and then: each look is a system call) */
				uint64_t now = now_ns();
				if (s->stops.unsettled && now - s->last_poll_ns >= POLL_EVERY_NS) {
					capture_poll_pending(s);
					s->last_poll_ns = now;
				}
			}
		}
	}
}

/* --- 2. stop ------------------------------------------------------------ */

static void stop_running_threads(struct sampler *s, volatile int *quit)
{
	struct kernel_stack none;
	none.depth = 0; /* on a CPU: no kernel stack to show */
	for (size_t i = 0; i < s->cur.n_running && !*quit; i++) {
		struct deferred_stop *d = &s->cur.running[i];
		struct thread *th = thread_of(s, &d->ref);
		struct process *p = &s->procs[d->ref.proc];
		if (!th || th->gone || th->stop_pending)
			continue;
		struct sampled_thread *st = sampled_of(s, p, th);
		struct stop_request rq = { .state = d->state, .on_cpu = true, .running = true,
					   .classify_by_runs = d->by_runs,
					   .runs_known = d->runs_known, .sc = d->sc, .wait = true };
		if (st)
			stop_now(s, p, th, st, &rq, &none);
		mid_round_pass(s);
		if (p->t->execs != p->execs_seen)
			follow_exec(s, p);
		if (s->stops.unsettled)
			capture_poll_pending(s);
	}
	s->cur.n_running = 0;
}

void round_run(struct sampler *s, uint64_t due_ns, volatile int *quit)
{
	s->cur.number++;
	s->cur.committed = false;
	s->cur.due_ns = due_ns;
	s->cur.tick_ns = s->cur.released_ns = now_ns();
	CPU_ZERO(&s->cur.wanted);
	CPU_ZERO(&s->cur.followed);
	if (s->ts[0].kernel_stacks)
		note_my_cpu(s); /* first: any system call may move our clock */
	else
		s->me.cpu = sched_getcpu();
	tick_trace_round(s->trace, s->cur.number, due_ns, s->cur.tick_ns, s->me.cpu);
	s->cur.n_mid = 0;
	s->cur.mid_due_ns = s->sched ? schedule_first_from(s->sched, s->cur.tick_ns + 1, 64) : 0;
	/* Signals on their way first: a thread in a signal-delivery stop
	 * would read as 't', our doing. */
	targets_poll(s->ts, s->n_targets, capture_on_trap, s);
	read_states_at_tick(s);
	look_at_every_thread(s, quit);
	stop_running_threads(s, quit);
	capture_yield(s);
	mid_round_pass(s);
	targets_poll(s->ts, s->n_targets, capture_on_trap, s);
}

void round_end(struct sampler *s, const struct round_ticks *rt, uint64_t last_ns)
{
	count_round(s, rt, last_ns);
	owed_round(s, rt->stands_for, last_ns);
	cold_round(s, rt->stands_for, last_ns);
	capture_round_placement(s);
}
