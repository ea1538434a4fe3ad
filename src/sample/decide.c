/* decide.c - reuse, peek or stop: see decide.h for the rule. */
#include "sample/decide.h"

#include <assert.h>
#include <string.h>

enum thread_action decide(const struct tick_view *v, const struct thread_memory *m)
{
	bool current = m->valid && m->generation == v->generation;
	if (v->state == 'Z' || v->state == 'X' || v->state == 'x')
		return ACT_SKIP;
	if (v->group_stop)
		/* A stopped thread runs no code until SIGCONT, which we see. */
		return current && m->in_group_stop && m->group_stops == v->group_stops ?
			       ACT_REUSE : ACT_STOP;
	if (v->state == 'S' || v->state == 'D') {
		if (current && m->verified && v->runs_known && v->runs == m->runs_verified)
			return ACT_REUSE;
		return ACT_PEEK;
	}
	/* Not put on a CPU since our last stop let it go: whatever it waits
	 * for, it has not moved. */
	if (v->state == 'R' && current && !m->in_group_stop && m->capture_runs_known &&
	    v->runs_known && v->runs == m->runs_at_capture)
		return m->aborted ? ACT_PARKED : ACT_QUEUED;
	return ACT_STOP;
}

char state_at_tick(char look, char first, uint64_t first_runs, uint64_t runs)
{
	if (look == 'R' && (first == 'S' || first == 'D') && first_runs == runs)
		return first;
	return look;
}

bool not_run_between(const struct sched_counts *then, const struct sched_counts *now)
{
	return then->runs == now->runs && then->run_ns == now->run_ns;
}

enum mid_verdict mid_tick_verdict(const struct sched_counts *look, const struct sched_counts *then,
				  char state, bool on_cpu, bool look_r)
{
	if (state != 'R' && state != 'S' && state != 'D')
		return MID_SKIP;
	bool still = not_run_between(look, then);
	if (state != 'R')
		return still ? MID_SAME : MID_ASLEEP;
	/* R: the stack of its look while it has not slept since (it ran on,
	 * or our own stop made it run), on a CPU or not as it is then */
	if (still || look_r)
		return on_cpu ? MID_SAME : MID_HELD;
	return MID_OWED;
}

bool ran_until(const struct sched_counts *at_resume, uint64_t cont_ns,
	       const struct sched_counts *now, uint64_t round_ns, uint64_t slack_ns)
{
	if (now->runs != at_resume->runs + 1 || now->run_ns < at_resume->run_ns ||
	    round_ns < cont_ns)
		return false;
	return now->run_ns - at_resume->run_ns + slack_ns >= round_ns - cont_ns;
}

bool still_where_placed(const struct placed_seen *placed, uint64_t resume_runs,
			const struct sched_counts *now, int cpu)
{
	return placed->known && placed->runs == resume_runs + 1 && now->runs == placed->runs &&
	       placed->cpu == cpu && cpu >= 0;
}

const char STATE_RUNNING[] = "R (running)";
const char STATE_RUNNABLE[] = "R (runnable)";

const char *reported_state(char state, bool group_stop, bool on_cpu)
{
	if (group_stop && (state == 't' || state == 'T'))
		return "T (stopped)";
	if (state == 't')
		return STATE_RUNNING;
	if (state == 'R')
		return on_cpu ? STATE_RUNNING : STATE_RUNNABLE;
	return state_description(state);
}

bool memory_matches(const struct thread_memory *m, const struct unwind_input *in)
{
	return m->valid && m->generation == in->generation && m->sp == in->sp &&
	       m->pc == in->pc && m->stack_start == in->stack_start &&
	       m->stack_len == in->stack_len && m->stack_hash == in->stack_hash;
}

void memory_remember(struct thread_memory *m, const struct unwind_input *in,
		     const struct unwound_frame *frames, int n, int complete)
{
	m->valid = true;
	m->generation = in->generation;
	m->n_frames = n;
	m->complete = complete;
	if (frames && n > 0)
		memcpy(m->frames, frames, (size_t)n * sizeof(*frames));
	m->sp = in->sp;
	m->pc = in->pc;
	m->stack_start = in->stack_start;
	m->stack_len = in->stack_len;
	m->stack_hash = in->stack_hash;
}

static uint64_t frames_hash(const struct unwound_frame *frames, int n)
{
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < n; i++)
		h = (h ^ frames[i].ip ^ ((uint64_t)frames[i].kind << 56)) * 1099511628211ULL;
	return h;
}

const struct sleep_regs *sleep_regs_find(const struct sleep_places *g,
					 const struct blocked_syscall *w)
{
	for (int i = 0; i < SLEEP_PLACES; i++)
		if (g->at[i].pc && g->at[i].pc == w->pc && g->at[i].sp == w->sp)
			return &g->at[i];
	return NULL;
}

bool sleep_regs_at_pc(const struct sleep_places *g, uint64_t pc)
{
	for (int i = 0; i < SLEEP_PLACES; i++)
		if (pc && g->at[i].pc == pc)
			return true;
	return false;
}

void sleep_regs_keep(struct sleep_places *g, const struct blocked_syscall *at,
		     const struct user_regs_struct *r, const struct unwound_frame *frames, int n)
{
	assert(at->pc && n > 0);
	struct sleep_regs *e = (struct sleep_regs *)sleep_regs_find(g, at);
	if (!e)
		e = &g->at[g->next++ % SLEEP_PLACES];
	*e = (struct sleep_regs){ at->pc, at->sp, r->rbx, r->rbp, r->r12, r->r13, r->r14, r->r15,
				  n, frames_hash(frames, n) };
}

void sleep_regs_lend(const struct sleep_regs *g, struct user_regs_struct *r)
{
	assert(g->pc);
	r->rbx = g->rbx;
	r->rbp = g->rbp;
	r->r12 = g->r12;
	r->r13 = g->r13;
	r->r14 = g->r14;
	r->r15 = g->r15;
}

bool sleep_regs_same_frames(const struct sleep_regs *g, const struct unwound_frame *frames, int n)
{
	return g->pc && n == g->n_frames && frames_hash(frames, n) == g->frames_hash;
}

void memory_after_peek(struct thread_memory *m, bool consistent, uint64_t runs)
{
	m->aborted = false; /* back in its wait, if our stop took it out */
	m->in_group_stop = false;
	m->verified = consistent;
	m->runs_verified = runs;
}

void memory_after_stop(struct thread_memory *m, const struct stop_facts *f)
{
	m->verified = false; /* it runs again: proven only by a peek */
	m->in_group_stop = f->group_stop;
	m->group_stops = f->group_stops;
	m->capture_runs_known = f->runs_known;
	m->runs_at_capture = f->runs;
	m->aborted = f->aborted && f->runs_known;
	if (m->aborted) {
		m->state_before = f->state_before;
		m->abort_where = f->where;
	}
}

bool stop_shows_blocked_tick(const struct stop_facts *f, bool at_syscall, bool look_runs_known,
			     uint64_t look_runs)
{
	if (!at_syscall)
		return false; /* caught in user code: it ran since */
	if (!f->runs_known || !look_runs_known)
		return true; /* no run count to tell: the boundary is all we know */
	return f->runs <= look_runs + 1;
}

void memory_after_parked_stop(struct thread_memory *m, bool runs_known, uint64_t runs)
{
	m->capture_runs_known = runs_known;
	m->runs_at_capture = runs;
}

/* A word at a time (stacks are word arrays; a byte-wise hash cost more
 * than the rest of a sample). */
uint64_t stack_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}
