/* idle.c - threads asleep for long (idle.h). */
#define _GNU_SOURCE
#include "sample/idle.h"

#include "sample/count.h"

/* The cold threads' full looks may take a tenth of an interval per round:
 * on a machine whose CPUs the target keeps busy the sampler gets a fair
 * share of one (a third here, with 4 spinning threads on 2 CPUs), and a
 * round then takes three times its CPU time. */
#define COLD_SHARE_OF_INTERVAL 10
#define LOOK_NS_GUESS 3300ULL /* until a full look has been timed */

bool idle_still(struct sampler *s, struct process *p, struct thread *th,
		struct sampled_thread *st, size_t index)
{
	const struct thread_memory *m = st->memory;
	if (!st->cold || th->stop_pending || th->group_stop || !m || !m->verified ||
	    (s->cold_every <= 1 || (index + s->round) % s->cold_every == 0))
		return false;
	uint64_t t0 = now_ns();
	struct sched_counts sc;
	if (thread_read_sched(p->t, th, &sc) != 0 || sc.runs != m->runs_verified)
		return false; /* it ran: the full look */
	if (tick_trace_on(s->trace)) {
		struct tick_view v = { st->last_state, true, sc.runs, false, 0,
				       modules_generation(p->program->modules) };
		tick_trace_look(s->trace, s->round, th->tid, &v, st->last_cpu, ACT_REUSE, sc.run_ns,
				t0);
	}
	count_set_words(s, p);
	if (s->snap->n_words)
		snapshot_read_words(th->tid, s->snap);
	s->r->reused++;
	count_observe_memory(s, p, st, reported_state(st->last_state, false, false));
	hist_add(&s->r->work, now_ns() - t0);
	return true;
}

void idle_after_look(struct sampled_thread *st, enum thread_action a, char state)
{
	bool quiet = a == ACT_REUSE && (state == 'S' || state == 'D');
	st->quiet_looks = quiet ? st->quiet_looks + 1 : 0;
	st->cold = st->quiet_looks >= IDLE_QUIET_LOOKS;
	st->last_state = state;
}

uint64_t idle_cold_every(size_t cold, uint64_t look_ns, uint64_t interval_ns)
{
	uint64_t look = look_ns ? look_ns : LOOK_NS_GUESS;
	uint64_t budget = interval_ns / COLD_SHARE_OF_INTERVAL;
	uint64_t every = budget ? (cold * look + budget - 1) / budget : cold;
	return every ? every : 1;
}

void idle_round(struct sampler *s)
{
	size_t cold = 0;
	for (size_t i = 0; i < s->n_threads; i++)
		cold += sampled_at(s, i)->cold && !sampled_at(s, i)->ended;
	s->n_cold = cold;
	s->cold_every = idle_cold_every(cold, s->cold_look_ns, s->o->interval_ns);
}
