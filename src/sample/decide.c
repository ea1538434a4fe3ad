/* decide.c - reuse, peek or stop: see decide.h for the rule. */
#include "sample/decide.h"

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

const char *reported_state(char state, bool group_stop, bool on_cpu)
{
	if (group_stop && (state == 't' || state == 'T'))
		return "T (stopped)";
	if (state == 't')
		return "R (running)";
	if (state == 'R')
		return on_cpu ? "R (running)" : "R (runnable)";
	return state_description(state);
}

bool memory_matches(const struct thread_memory *m, uint64_t sp, uint64_t pc,
		    uint64_t stack_start, size_t stack_len, uint64_t hash, unsigned generation)
{
	return m->valid && m->generation == generation && m->sp == sp && m->pc == pc &&
	       m->stack_start == stack_start && m->stack_len == stack_len &&
	       m->stack_hash == hash;
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

bool memory_keep_kernel(struct thread_memory *m, const char *const *kernel, int n)
{
	size_t used = 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(kernel[i]) + 1;
		if (used + len > sizeof(m->kernel)) {
			m->n_kernel = 0;
			return false;
		}
		memcpy(m->kernel + used, kernel[i], len);
		used += len;
	}
	m->n_kernel = n;
	return true;
}

int memory_kernel(const struct thread_memory *m, const char **out, int max)
{
	const char *k = m->kernel;
	int n = 0;
	for (; n < m->n_kernel && n < max; n++, k += strlen(k) + 1)
		out[n] = k;
	return n;
}
