/* owed.c - ticks --max-overhead refused a stop (owed.h). */
#define _GNU_SOURCE
#include "sample/owed.h"

#include "base/frame.h"
#include "sample/app.h"
#include "sample/count.h"
#include "sample/decide.h"
#include "sample/overhead.h"

#include <stdlib.h>
#include <string.h>

static enum owed_kind kind_of(char state, bool on_cpu)
{
	switch (state) {
	case 'R': return on_cpu ? OWED_RUNNING : OWED_RUNNABLE;
	case 'D': return OWED_DISK;
	default: return OWED_SLEEPING;
	}
}

static const char kind_state[OWED_KINDS] = { 'R', 'R', 'S', 'D' };

void owed_refused(struct sampler *s, struct sampled_thread *st, char state, bool on_cpu,
		  const char *kernel, int n_kernel)
{
	if (!st->owed && !(st->owed = calloc(1, sizeof(*st->owed))))
		return; /* out of memory: those ticks go uncounted */
	enum owed_kind k = kind_of(state, on_cpu);
	st->guarded_round = s->round;
	st->guarded_kind = (unsigned char)k;
	st->owed->n_kernel[k] = n_kernel;
	if (n_kernel)
		memcpy(st->owed->kernel[k], kernel, MEMORY_KERNEL_BYTES);
}

void owed_mid_tick(struct sampled_thread *st, char state, bool on_cpu, uint64_t at_ns)
{
	if (!st->owed && !(st->owed = calloc(1, sizeof(*st->owed))))
		return; /* out of memory: that tick goes uncounted */
	struct owed_ticks *o = st->owed;
	enum owed_kind k = kind_of(state, on_cpu);
	if (!o->count[k]) {
		o->first_ns[k] = at_ns;
		o->n_kernel[k] = 0; /* none read */
	}
	o->count[k]++;
	o->last_ns[k] = at_ns;
}

void owed_round(struct sampler *s, uint64_t ticks, uint64_t last_ns)
{
	if (s->o->max_overhead <= 0)
		return;
	for (size_t i = 0; i < s->n_threads; i++) {
		struct sampled_thread *st = sampled_at(s, i);
		if (st->guarded_round != s->round || !st->owed)
			continue;
		struct owed_ticks *o = st->owed;
		enum owed_kind k = st->guarded_kind;
		if (!o->count[k])
			o->first_ns[k] = s->tick_ns;
		o->count[k] += ticks;
		o->last_ns[k] = last_ns;
	}
}

bool owed_any(const struct sampled_thread *st)
{
	if (!st->owed)
		return false;
	for (int k = 0; k < OWED_KINDS; k++)
		if (st->owed->count[k])
			return true;
	return false;
}

void owed_count(struct sampler *s, struct process *p, struct sampled_thread *st,
		const struct unwound_frame *frames, int n_frames, int complete)
{
	struct owed_ticks *o = st->owed;
	if (!o)
		return;
	for (int k = 0; k < OWED_KINDS; k++) {
		if (!o->count[k])
			continue;
		struct observation ob = {
			.state = reported_state(kind_state[k], false, k == OWED_RUNNING),
			.user = frames != NULL,
		};
		app_state_into(s, p, &ob);
		if (frames) {
			ob.n_kernel = o->n_kernel[k];
			memcpy(ob.kernel, o->kernel[k], sizeof(ob.kernel));
		} else {
			/* no stop came: the mark where the user stack would be,
			 * at the leaf side (without the bound, ticks read mid-round
			 * alone are owed: owed_mid_tick) */
			const char *frame = s->o->max_overhead > 0 ? OVERHEAD_NOT_STOPPED : OWED_NOT_STOPPED;
			ob.n_kernel = frames_pack(&frame, 1, ob.kernel, sizeof(ob.kernel));
		}
		struct user_frames u = frames ? (struct user_frames){ frames, n_frames, complete } :
						NO_USER_FRAMES;
		count_now(s, p, st, &ob, u,
			  (struct tick_span){ o->count[k], o->first_ns[k], o->last_ns[k], COUNT_OWED });
		o->count[k] = 0;
	}
}
