/* records.c - the sampler's records: made at first sight of a thread, found
 * again by slot or by reference, kept after the thread ends - with
 * --period until its window is handed over (records.h, retire.h). */
#define _GNU_SOURCE
#include "sample/records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "sample/retire.h"

void sampler_fail(struct sampler *s, const char *what, int err)
{
	if (s->error)
		return;
	s->error = err ? err : EIO;
	char why[128];
	snprintf(s->r->error, sizeof(s->r->error), "%s: %s", what,
		 strerror_r(s->error, why, sizeof(why)));
}

struct process *process_of(struct sampler *s, const struct target *t)
{
	/* process i is target i (sampler_new, family.c) */
	size_t i = (size_t)(t - s->ts);
	if (t >= s->ts && i < s->n_targets && s->procs[i].t == t)
		return &s->procs[i];
	return &s->procs[0];
}

struct thread *thread_of(struct sampler *s, const struct thread_ref *ref)
{
	struct target *t = s->procs[ref->proc].t;
	if (ref->hint < t->n_threads && t->threads[ref->hint].tid == ref->tid)
		return &t->threads[ref->hint];
	for (size_t k = 0; k < t->n_threads; k++)
		if (t->threads[k].tid == ref->tid)
			return &t->threads[k];
	return NULL;
}

struct sampled_thread *sampled_of(struct sampler *s, struct process *p, struct thread *th)
{
	if (th->slot)
		return sampled_at(s, th->slot - 1);
	/* Records never move: the look holds one across calls that may
	 * meet a new thread.  One let go is taken first (retire.h). */
	size_t at = retire_reuse_record(s);
	if (at == SIZE_MAX && s->n_threads == s->cap_threads) {
		size_t b = s->cap_threads / 64;
		if (!array_reserve((void **)&s->blocks, b + 1, &s->cap_blocks,
				   sizeof(*s->blocks)) ||
		    !(s->blocks[b] = calloc(64, sizeof(**s->blocks))))
			return NULL;
		s->cap_threads += 64;
	}
	if (at == SIZE_MAX)
		at = s->n_threads++;
	struct sampled_thread *st = sampled_at(s, at);
	memset(st, 0, sizeof(*st));
	st->pid = p->t->pid;
	st->tid = th->tid;
	st->proc = (size_t)(p - s->procs);
	st->last_cpu = -1;
	overhead_thread_start(&st->cost, now_ns());
	th->slot = (uint32_t)at + 1;
	return st;
}
