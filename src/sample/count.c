/* count.c - observations become counted samples (count.h). */
#define _GNU_SOURCE
#include "sample/count.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/frame.h"
#include "base/hash_index.h"
#include "db/oracle.h"
#include "output/output.h"
#include "profile/timeline.h"

#define KFRAME_MAX (KSYM_MAX + 8)

void count_set_words(struct sampler *s, const struct process *p)
{
	s->snap->n_words = 0;
	s->snap->words_ok = 0;
	if (s->o->ksuseopc_addr) {
		s->snap->n_words = 2;
		s->snap->word_addr[0] = s->o->ksuseopc_addr;
		s->snap->word_addr[1] = s->o->ksusetim_addr;
	} else if (s->o->pg_wait_events && p->pg.server) {
		pg_words(&p->pg, s->snap);
	}
}

int count_kernel_frames(struct kernel_stack *ks, char *out, size_t cap)
{
	int n = kernel_stack_filter(ks);
	char names[KSTACK_MAX][KFRAME_MAX];
	const char *list[KSTACK_MAX];
	for (int i = 0; i < n; i++) {
		char clean[KSYM_MAX];
		frame_sanitize(ks->frame[n - 1 - i], clean, sizeof(clean));
		snprintf(names[i], KFRAME_MAX, "%s_[k]", clean);
		list[i] = names[i];
	}
	return frames_pack(list, n, out, cap);
}

const char *count_app_state(struct sampler *s, struct process *p, char *buf, size_t len)
{
	if (s->o->pg_wait_events) {
		uint32_t word;
		if (!p->pg.server)
			return "[no PostgreSQL state]";
		if (!s->snap->n_words || pg_word(&p->pg, p->t->pid, s->snap, &word) != 0)
			return "[unreadable] (PostgreSQL state)";
		pg_wait_frame(p->pg.table, word, buf, len);
		return buf;
	}
	if (!s->o->ksuseopc_addr)
		return NULL;
	if (!s->snap->words_ok)
		return "[unreadable] (Oracle state)";
	oracle_state_frame(s->snap->word[0], (int32_t)s->snap->word[1], s->names, buf, len);
	return buf;
}

void count_observe(struct sampler *s, struct process *p, struct sampled_thread *st,
		   const char *state, bool user, const char *kernel, int n_kernel)
{
	struct observation *ob = &st->obs;
	st->obs_round = s->round;
	ob->state = state;
	ob->user = user;
	char app[APP_STATE_MAX];
	const char *a = count_app_state(s, p, app, sizeof(app));
	ob->has_app = a != NULL;
	if (a)
		snprintf(ob->app, sizeof(ob->app), "%s", a);
	const char *list[KSTACK_MAX];
	int n = frames_unpack(kernel, n_kernel, list, KSTACK_MAX);
	ob->n_kernel = frames_pack(list, n, ob->kernel, sizeof(ob->kernel));
}

void count_observe_memory(struct sampler *s, struct process *p, struct sampled_thread *st,
			  const char *state)
{
	const struct thread_memory *m = st->memory;
	count_observe(s, p, st, state, true, m->kernel, m->n_kernel);
}

/* "postgres" or, with several processes, "postgres[1234]/walwriter". */
static void root_frame(const struct sampler *s, const struct process *p,
		       const struct sampled_thread *st, char *out, size_t outsz)
{
	if (s->o->n_pids > 1 || s->o->subprocesses || s->n_targets > 1) {
		char proc[COMM_MAX];
		frame_sanitize(p->t->comm, proc, sizeof(proc));
		snprintf(out, outsz, "%s[%d]/%s", proc, (int)p->t->pid, st->comm);
	} else {
		snprintf(out, outsz, "%s", st->comm);
	}
}

/* The thread's index in the profile's list (formats that keep time). */
static int profile_index(struct sampler *s, struct process *p, struct sampled_thread *st,
			 uint32_t *out)
{
	if (!st->profile_index) {
		if (!array_reserve((void **)&s->profile_threads, s->n_profile_threads + 1,
				   &s->cap_profile_threads, sizeof(*s->profile_threads)))
			return -1;
		char proc[COMM_MAX];
		frame_sanitize(p->t->comm, proc, sizeof(proc));
		struct profile_thread *pt = &s->profile_threads[s->n_profile_threads];
		*pt = (struct profile_thread){ p->t->pid, st->tid, strdup(proc), strdup(st->comm) };
		if (!pt->process || !pt->name) {
			free((char *)pt->process);
			free((char *)pt->name);
			return -1;
		}
		st->profile_index = (uint32_t)++s->n_profile_threads;
	}
	*out = st->profile_index - 1;
	return 0;
}

/* Every sample, in time order, for the formats that keep time. */
static void add_to_timeline(struct sampler *s, struct process *p, struct sampled_thread *st,
			    uint32_t stack, uint64_t count, uint64_t first_ns, uint64_t last_ns)
{
	uint32_t thread;
	if (profile_index(s, p, st, &thread) != 0) {
		sampler_fail(s, "out of memory counting the samples", ENOMEM);
		return;
	}
	for (uint64_t i = 0; i < count && !s->error; i++) {
		uint64_t when = count > 1 ? first_ns + (last_ns - first_ns) * i / (count - 1) : first_ns;
		uint64_t weight = st->last_sample_ns && when > st->last_sample_ns ?
					  when - st->last_sample_ns : s->o->interval_ns;
		st->last_sample_ns = when;
		if (timeline_add(s->timeline, when - s->start_ns, weight, stack, thread) != 0)
			sampler_fail(s, "cannot keep the samples (temporary file)", errno ? errno : EIO);
	}
}

/* What a sample is counted from, as one number: the same stack gets the
 * same key (root frame, states, user frames, kernel frames). */
static uint64_t sample_key(const struct sampled_thread *st, const struct observation *ob,
			   const struct unwound_frame *frames, int n_frames, int complete)
{
	size_t kernel_len = 0;
	for (int i = 0; i < ob->n_kernel; i++)
		kernel_len += strlen(ob->kernel + kernel_len) + 1;
	uint64_t k = stack_hash((const uint8_t *)ob->kernel, kernel_len);
	k = k * 31 + stack_hash((const uint8_t *)frames, (size_t)n_frames * sizeof(*frames));
	k = k * 31 + stack_hash((const uint8_t *)st->comm, strlen(st->comm));
	k = k * 31 + (ob->has_app ? stack_hash((const uint8_t *)ob->app, strlen(ob->app)) : 1);
	return k * 31 + (uint64_t)(uintptr_t)ob->state * 2 + (uint64_t)complete;
}

void count_now(struct sampler *s, struct process *p, struct sampled_thread *st,
	       const struct observation *ob, const struct unwound_frame *frames, int n_frames,
	       int complete, uint64_t count, uint64_t first_ns, uint64_t last_ns, const char *how)
{
	if (!count)
		return;
	char root[2 * COMM_MAX + 16];
	root_frame(s, p, st, root, sizeof(root));
	const char *kernel[KSTACK_MAX];
	int n_kernel = frames_unpack(ob->kernel, ob->n_kernel, kernel, KSTACK_MAX);
	struct sample_view v = {
		.thread = root,
		.app_state = ob->has_app ? ob->app : NULL,
		.state = ob->state,
		.kernel = kernel,
		.n_kernel = (size_t)n_kernel,
	};
	if (format_info(s->o->format)->streams) {
		/* the original tool's per-sample blocks: named as they come */
		const char *user[PROGRAM_USER_FRAMES_MAX];
		uint64_t user_ip[PROGRAM_USER_FRAMES_MAX];
		v.user = user;
		v.user_ip = user_ip;
		v.n_user = program_name_samples(p->program, frames, (size_t)n_frames, count, user,
						 user_ip);
		for (uint64_t i = 0; i < count; i++)
			if (output_stap_sample(s->out, &v) != 0)
				sampler_fail(s, "cannot write the output", errno ? errno : EIO);
	} else {
		uint32_t stack = 0;
		uint64_t key = sample_key(st, ob, frames, n_frames, complete);
		if (key == st->counted_key &&
		    program_count_again(p->program, &st->counted, count, &stack) == 0) {
			/* the same as last time: no string or word hashed */
		} else if (program_count(p->program, &v, frames, (size_t)n_frames, count, &stack,
					 &st->counted) != 0) {
			sampler_fail(s, "out of memory counting the samples", ENOMEM);
		} else {
			st->counted_key = key;
		}
		if (s->timeline && !s->error)
			add_to_timeline(s, p, st, stack, count, first_ns, last_ns);
	}
	if (!complete && n_frames > 0)
		s->r->unwind_failures += count;
	bool on_cpu = strcmp(ob->state, "R (running)") == 0;
	st->samples += count;
	s->r->samples += count;
	if (on_cpu)
		st->samples_on_cpu += count;
	selfcheck_samples(&st->check, count, on_cpu ? count : 0);
	tick_trace_counted(s->trace, st->tid, count, how, ob->state);
}

/* Of the round's ticks that fell while it ran, those at which st was
 * frozen by its stop. */
static uint64_t frozen_ticks(const struct sampler *s, const struct sampled_thread *st,
			     const struct round_ticks *rt)
{
	if (st->frozen_round != s->round)
		return 0;
	uint64_t n = 0;
	for (unsigned i = 0; i < rt->n_timed; i++)
		n += rt->timed_ns[i] >= st->frozen_from_ns && rt->timed_ns[i] <= st->frozen_to_ns;
	return n < rt->stands_for ? n : rt->stands_for - 1;
}

void count_round(struct sampler *s, const struct round_ticks *rt, uint64_t last_ns)
{
	uint64_t ticks = rt->stands_for;
	for (size_t i = 0; i < s->n_threads && !s->error; i++) {
		struct sampled_thread *st = sampled_at(s, i);
		struct pending_stop *ps = st->pending;

		if (ps && ps->last_round == s->round && ps->n_ticks && ticks > 1) {
			/* counted when its trap comes, for every tick it had; one
			 * whose CPU our round held waited for it meanwhile */
			if (ps->took_its_cpu) {
				ps->waited_ticks += ticks - 1;
			} else {
				ps->ticks[ps->n_ticks - 1].count += ticks - 1;
				ps->ticks[ps->n_ticks - 1].last_ns = last_ns;
			}
		}
		if (st->obs_round != s->round)
			continue;
		const struct thread_memory *m = st->memory;
		bool user = st->obs.user && m;
		struct process *p = &s->procs[st->proc];
		const struct unwound_frame *frames = user ? m->frames : NULL;
		int n_frames = user ? m->n_frames : 0, complete = user ? m->complete : 1;
		uint64_t frozen = frozen_ticks(s, st, rt);
		count_now(s, p, st, &st->obs, frames, n_frames, complete, ticks - frozen, s->tick_ns,
			  last_ns, "round");
		if (frozen) {
			struct observation ob = st->obs;
			ob.state = STATE_STOPPED_BY_US;
			ob.n_kernel = 0;
			count_now(s, p, st, &ob, frames, n_frames, complete, frozen, st->frozen_from_ns,
				  st->frozen_to_ns, "frozen");
		}
	}
	s->committed = true;
}
