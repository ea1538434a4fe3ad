/* cold.c - threads asleep for long (cold.h). */
#define _GNU_SOURCE
#include "sample/cold.h"

#include "sample/app.h"
#include "sample/count.h"

#include <stdio.h>
#include <string.h>

/* The cold threads' full looks may take a two-hundredth of an interval
 * per round.  A round is best short, for ticks due while it runs stand
 * with it (schedule.h); and a full look's stat, the dearest read of a
 * look, is there only to see a thread woken and not yet on a CPU (asleep
 * and not run since, its switches' record or run count tell, switch_regs.h).
 * An idle PostgreSQL instance at -d 1ms, its 7 threads each read in full
 * every round under a thirtieth: stat a third of our CPU, which was 3.5 %
 * of the machine; 2.2 % now.  A thousand cold threads' stat read every
 * 66 rounds at -d 10ms, every 660 at -d 1ms. */
#define COLD_SHARE_OF_INTERVAL 200
#define LOOK_NS_GUESS 3300ULL /* until a full look has been timed */

bool cold_still(struct sampler *s, struct process *p, struct thread *th,
		struct sampled_thread *st, size_t index)
{
	const struct thread_memory *m = st->memory;
	if (!st->cold.on || th->stop_pending || th->group_stop || !m || !m->verified ||
	    (s->cold.every <= 1 || (index + s->cur.number) % s->cold.every == 0))
		return false;
	uint64_t t0 = now_ns();
	struct sched_counts sc = { m->runs_verified, 0, 0 };
	if (!st->cold.quiet_marked || !switch_regs_unmoved(st->switched, st->cold.quiet_mark)) {
		/* its record of switches marked first, then its run count:
		 * unmoved, the record proves the rounds after (switch_regs.h) */
		st->cold.quiet_mark = switch_regs_mark(s->switches, st->switched);
		st->cold.quiet_marked = false;
		if (thread_read_sched(p->t, th, &sc) != 0 || sc.runs != m->runs_verified)
			return false; /* it ran: the full look */
		st->cold.quiet_marked = st->switched != NULL;
	} else {
		s->r->still_unmoved++;
	}
	if (tick_trace_on(s->trace)) {
		struct tick_view v = { st->cold.last_state, true, sc.runs, false, 0,
				       modules_generation(p->program->modules) };
		tick_trace_look(s->trace, s->cur.number, th->tid, &v, st->last_cpu, ACT_REUSE, sc.run_ns,
				t0);
	}
	/* the same sample as at its last tick: counted with the others when
	 * it changes (cold_flush), not stack by stack every round */
	st->cold.still_round = s->cur.number;
	s->r->reused++;
	s->r->still++;
	hist_add(&s->r->work, now_ns() - t0);
	return true;
}

void cold_flush(struct sampler *s, struct sampled_thread *st)
{
	const struct thread_memory *m = st->memory;
	uint64_t n = st->cold.still_ticks;
	if (!n)
		return;
	st->cold.still_ticks = 0;
	if (!m)
		return;
	struct process *p = &s->procs[st->proc];
	/* Not run since: its application state is the one it had (only it
	 * writes it), read now. */
	app_read_words(s, p, st->tid);
	struct observation ob = { .state = reported_state(st->cold.last_state, false, false),
				  .user = true, .n_kernel = m->n_kernel };
	memcpy(ob.kernel, m->kernel, sizeof(ob.kernel));
	app_state_into(s, p, &ob);
	count_now(s, p, st, &ob, (struct user_frames){ m->frames, m->n_frames, m->complete },
		  (struct tick_span){ n, st->cold.still_first_ns, st->cold.still_last_ns, COUNT_STILL });
}

void cold_flush_all(struct sampler *s)
{
	for (size_t i = 0; i < s->n_threads; i++)
		cold_flush(s, sampled_at(s, i));
}

void cold_after_look(struct sampled_thread *st, enum thread_action a, char state)
{
	bool quiet = a == ACT_REUSE && (state == 'S' || state == 'D');
	st->cold.quiet_looks = quiet ? st->cold.quiet_looks + 1 : 0;
	st->cold.on = st->cold.quiet_looks >= COLD_QUIET_LOOKS;
	st->cold.last_state = state;
	if (!quiet) /* it ran, or woke: proven again by its next still look */
		st->cold.quiet_marked = false;
}

uint64_t cold_look_every(size_t cold, uint64_t look_ns, uint64_t interval_ns)
{
	uint64_t look = look_ns ? look_ns : LOOK_NS_GUESS;
	uint64_t budget = interval_ns / COLD_SHARE_OF_INTERVAL;
	uint64_t every = budget ? (cold * look + budget - 1) / budget : cold;
	return every ? every : 1;
}

void cold_round(struct sampler *s, uint64_t ticks, uint64_t last_ns)
{
	size_t cold = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		struct sampled_thread *st = sampled_at(s, i);
		cold += st->cold.on && !st->ended;
		if (st->cold.still_round != s->cur.number)
			continue;
		if (!st->cold.still_ticks) /* counted when it changes */
			st->cold.still_first_ns = s->cur.tick_ns;
		st->cold.still_ticks += ticks;
		st->cold.still_last_ns = last_ns;
		if (st->cold.still_ticks >= COLD_STILL_MAX)
			cold_flush(s, st);
	}
	s->cold.n = cold;
	s->cold.every = cold_look_every(cold, s->cold.look_ns, s->o->interval_ns);
}
