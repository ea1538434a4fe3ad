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

/* The entry for a tick of kind k with these words (NULL: none read),
 * made at its first tick; when all are taken, the last of its kind (or
 * the last).  NULL only when out of memory. */
static struct owed_entry *entry_for(struct sampled_thread *st, enum owed_kind k,
				    const struct owed_entry *words)
{
	if (!st->refused.owed && !(st->refused.owed = calloc(1, sizeof(*st->refused.owed))))
		return NULL; /* out of memory: those ticks go uncounted */
	struct owed_ticks *o = st->refused.owed;
	struct owed_entry *last = NULL;
	for (int i = 0; i < o->n; i++) {
		struct owed_entry *e = &o->e[i];
		if (e->kind != k)
			continue;
		last = e;
		if (e->words_read == (words != NULL) &&
		    (!words || (e->has_app == words->has_app && e->word_ok == words->word_ok &&
				e->word == words->word && strcmp(e->app, words->app) == 0)))
			return e;
	}
	if (o->n == OWED_ENTRIES)
		return last ? last : &o->e[o->n - 1];
	struct owed_entry *e = &o->e[o->n++];
	*e = (struct owed_entry){ .kind = (unsigned char)k };
	if (words) {
		e->words_read = true;
		e->has_app = words->has_app;
		memcpy(e->app, words->app, sizeof(e->app));
		e->word_ok = words->word_ok;
		e->word = words->word;
	}
	return e;
}

/* n ticks at first_ns to last_ns into e. */
static void owe(struct owed_entry *e, uint64_t n, uint64_t first_ns, uint64_t last_ns)
{
	if (!e->count)
		e->first_ns = first_ns;
	e->count += n;
	e->last_ns = last_ns;
}

void owed_refused(struct sampler *s, struct process *p, struct sampled_thread *st, char state,
		  bool on_cpu, const char *kernel, int n_kernel)
{
	/* its process's words now, as the tick's (app.h) */
	struct owed_entry words = { .words_read = true };
	app_read_words(s, p, st->tid);
	const char *a = app_state(s, p, words.app, sizeof(words.app));
	words.has_app = a != NULL;
	if (a && a != words.app)
		snprintf(words.app, sizeof(words.app), "%s", a);
	words.word_ok = p->word_ok;
	words.word = p->word;
	p->word_fresh = false; /* the entry has it */
	enum owed_kind k = kind_of(state, on_cpu);
	struct owed_entry *e = entry_for(st, k, &words);
	if (!e)
		return;
	st->refused.round = s->cur.number;
	st->refused.entry = (unsigned char)(e - st->refused.owed->e);
	st->refused.owed->n_kernel[k] = n_kernel;
	if (n_kernel)
		memcpy(st->refused.owed->kernel[k], kernel, MEMORY_KERNEL_BYTES);
}

void owed_mid_tick(struct sampled_thread *st, char state, bool on_cpu, uint64_t at_ns)
{
	enum owed_kind k = kind_of(state, on_cpu);
	bool kind_owed = false; /* (its kernel frames then stand) */
	for (int i = 0; st->refused.owed && i < st->refused.owed->n; i++)
		kind_owed |= st->refused.owed->e[i].kind == k && st->refused.owed->e[i].count;
	struct owed_entry *e = entry_for(st, k, NULL);
	if (!e)
		return;
	if (!kind_owed)
		st->refused.owed->n_kernel[k] = 0; /* none read */
	owe(e, 1, at_ns, at_ns);
}

void owed_round(struct sampler *s, uint64_t ticks, uint64_t last_ns)
{
	if (s->o->max_overhead <= 0)
		return;
	for (size_t i = 0; i < s->n_threads; i++) {
		struct sampled_thread *st = sampled_at(s, i);
		if (st->refused.round != s->cur.number || !st->refused.owed || st->refused.entry >= st->refused.owed->n)
			continue;
		owe(&st->refused.owed->e[st->refused.entry], ticks, s->cur.tick_ns, last_ns);
	}
}

bool owed_any(const struct sampled_thread *st)
{
	if (!st->refused.owed)
		return false;
	for (int i = 0; i < st->refused.owed->n; i++)
		if (st->refused.owed->e[i].count)
			return true;
	return false;
}

void owed_count(struct sampler *s, struct process *p, struct sampled_thread *st,
		const struct unwound_frame *frames, int n_frames, int complete)
{
	struct owed_ticks *o = st->refused.owed;
	if (!o)
		return;
	for (int i = 0; i < o->n; i++) {
		struct owed_entry *e = &o->e[i];
		if (!e->count)
			continue;
		enum owed_kind k = e->kind;
		struct observation ob = {
			.state = reported_state(kind_state[k], false, k == OWED_RUNNING),
			.user = frames != NULL,
		};
		if (e->words_read) {
			/* the words of its ticks, for the frame and the time
			 * model (count.c, sample_word) */
			ob.has_app = e->has_app;
			memcpy(ob.app, e->app, sizeof(ob.app));
			p->word = e->word;
			p->word_ok = e->word_ok;
			p->word_fresh = true;
		} else {
			app_state_into(s, p, &ob);
		}
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
			  (struct tick_span){ e->count, e->first_ns, e->last_ns, COUNT_OWED });
	}
	o->n = 0; /* none owed after */
}
