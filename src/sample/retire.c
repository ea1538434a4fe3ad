/* retire.c - what ended is let go once its samples are counted and named
 * (retire.h). */
#define _GNU_SOURCE
#include "sample/retire.h"

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "sample/capture.h"
#include "sample/records.h"
#include "tracee/switch_regs.h"

/* Are all of p's stacks (and its older programs') named: none counted
 * since the cut, its window's batch done? */
static bool program_settled(const struct program *p)
{
	for (; p; p = p->older)
		if (stack_table_distinct(p->pending) || p->batch.pending)
			return false;
	return true;
}

/* Is a window still to name some of p's stacks (the closing one's batch)? */
static bool batch_left(const struct program *p)
{
	for (; p; p = p->older)
		if (p->batch.pending)
			return true;
	return false;
}

/* The lists the sampler keeps between rounds (stops to poll, threads
 * followed), without the threads that are gone: a process with no
 * thread left is named by none of them.  (A stop's list is pruned only
 * while stops are pending, the followed at the next round's end.) */
static void prune_lists(struct sampler *s)
{
	capture_poll_pending(s);
	size_t kept = 0;
	for (size_t k = 0; k < s->stops.n_follow; k++) {
		struct thread *th = thread_of(s, &s->stops.follow[k]);
		if (th && !th->gone)
			s->stops.follow[kept++] = s->stops.follow[k];
	}
	s->stops.n_follow = kept;
}

static bool push_index(size_t **list, size_t *n, size_t *cap, size_t i)
{
	if (!array_reserve((void **)list, *n + 1, cap, sizeof(**list)))
		return false; /* kept as it is: let go at the next window */
	(*list)[(*n)++] = i;
	return true;
}

/* An ended thread's record: its samples to its process's sum, the rest
 * let go. */
static void retire_record(struct sampler *s, size_t i)
{
	struct sampled_thread *st = sampled_at(s, i);
	assert(st->ended && !st->retired && !st->pending && !st->cold.still_ticks);
	if (!push_index(&s->retire.records, &s->retire.n_records, &s->retire.cap_records, i))
		return;
	s->procs[st->proc].retired_samples += st->counts.samples;
	s->r->retired_threads++;
	switch_regs_unwatch(s->switches, st->switched);
	capture_follow_end(s, st);
	free(st->memory);
	free(st->refused.owed);
	memset(st, 0, sizeof(*st));
	st->ended = st->retired = true; /* no thread's: every loop passes it by */
}

void retire_ended(struct sampler *s, uint64_t deadline_ns)
{
	/* the records first: a process goes once none of them is its */
	size_t *live = calloc(s->n_targets ? s->n_targets : 1, sizeof(*live));
	if (!live)
		return;
	prune_lists(s);
	for (size_t i = 0; i < s->n_threads; i++) {
		struct sampled_thread *st = sampled_at(s, i);
		if (st->retired)
			continue;
		if (st->ended && !st->pending && !st->cold.still_ticks)
			retire_record(s, i);
		if (!st->retired)
			live[st->proc]++;
	}
	for (size_t i = s->retire.fixed; i < s->n_targets && !s->error; i++) {
		struct process *p = &s->procs[i];
		struct target *t = p->t;
		if (t->retired || !t->exited || t->n_threads || live[i])
			continue;
		/* What it counted since the cut is named now, into the window's
		 * table, as the window would at its end: then its slot need not
		 * wait for the cut (70 backends a second, a minute's windows:
		 * 4200 processes held, past the 4096 slots).  Between ticks, as
		 * long as the next one allows; a batch of the closing window
		 * is that window's to name. */
		if (!program_settled(p->program)) {
			if (batch_left(p->program))
				continue;
			if (now_ns() >= deadline_ns) {
				s->retire.due = true; /* the rest after the next round */
				break;
			}
			if (program_name_now(p->program) != 0) {
				sampler_fail(s, "out of memory naming the stacks", ENOMEM);
				break;
			}
		}
		if (!push_index(&s->retire.procs, &s->retire.n_procs, &s->retire.cap_procs, i))
			continue;
		s->r->retired_processes++;
		s->r->retired_samples += p->retired_samples;
		s->r->retired_signals += t->signals_forwarded;
		program_free(p->program);
		target_free(t);
		*p = (struct process){ .t = t };
		*t = (struct target){ .pid = t->pid, .exited = true, .retired = true };
	}
	free(live);
}

size_t retire_reuse_record(struct sampler *s)
{
	return s->retire.n_records ? s->retire.records[--s->retire.n_records] : SIZE_MAX;
}

size_t retire_slot_for_new(const struct sampler *s)
{
	if (s->retire.n_procs)
		return s->retire.procs[s->retire.n_procs - 1];
	return s->n_targets < s->cap_targets ? s->n_targets : SIZE_MAX;
}

void retire_slot_taken(struct sampler *s, size_t i)
{
	if (s->retire.n_procs && s->retire.procs[s->retire.n_procs - 1] == i) {
		s->retire.n_procs--;
		return;
	}
	assert(i == s->n_targets);
	s->n_targets++;
	*s->n_out = s->n_targets;
}
