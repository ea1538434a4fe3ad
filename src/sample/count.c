/* count.c - observations become counted samples (count.h). */
#define _GNU_SOURCE
#include "sample/app.h"
#include "sample/count.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/frame.h"
#include "base/array.h"
#include "db/oracle.h"
#include "db/pgactivity.h"
#include "output/output.h"
#include "profile/timeline.h"
#include "sample/decide.h"
#include "sample/owed.h"

#define KFRAME_MAX (KSYM_MAX + 8)

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

/* --no-idle: is this observation of st in its idle wait?  A PostgreSQL
 * process by the wait event it reports (pgactivity.h); elsewhere, and
 * where PostgreSQL reports none (the postmaster's select), a thread
 * asleep (S) that has not run since its last observation, as py-spy
 * leaves idle threads out.  Not D: a disk wait is time the program
 * spends, not work it waits for. */
static bool idle_wait(const struct process *p, struct sampled_thread *st, const char *state)
{
	bool asleep = st->sched_seen && st->counts.idle_run_known && st->sched_last.run_ns == st->counts.idle_run_ns;
	st->counts.idle_run_known = st->sched_seen;
	st->counts.idle_run_ns = st->sched_last.run_ns;
	if (p->pg.server && st->counts.obs_word_ok && st->counts.obs_word)
		return pg_wait_is_idle(p->pg.table, st->counts.obs_word, p->client, p->state);
	return asleep && state[0] == 'S';
}

void count_observe(struct sampler *s, struct process *p, struct sampled_thread *st,
		   const char *state, bool user, const char *kernel, int n_kernel)
{
	struct observation *ob = &st->counts.obs;
	st->counts.obs_round = s->cur.number;
	ob->state = state;
	ob->user = user;
	app_state_into(s, p, ob);
	st->counts.obs_word = p->word;
	st->counts.obs_word_ok = p->word_ok;
	p->word_fresh = false; /* obs has it */
	st->counts.obs_idle = s->o->no_idle && idle_wait(p, st, state);
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

/* What names p in its root frame: its backend type (NULL while a child
 * of the postmaster starts: asked again at each sample until known), else
 * the title it gave itself; NULL when neither. */
static const char *process_words(struct process *p)
{
	if (p->pgb_ok)
		return pg_backend_type(&p->pgb);
	return p->title[0] ? p->title : NULL;
}

/* process_root_frame's text (at most 256 bytes) sanitized, then '/' and
 * the thread's sanitized comm, and "[TID]" (16 with its '\0'): room for
 * all, so no cut falls inside a character of names that were not UTF-8
 * (three bytes each). */
#define ROOT_MAX (FRAME_SANITIZED_MAX(256) + 1 + COMM_MAX + 16)

/* The root frame (options.h's group_by):
 *   pid   with several processes "comm[PID]/thread", or "comm[PID] WORDS"
 *         for a process with words (a thread other than its first:
 *         "comm[PID] WORDS/thread"); alone, the thread's comm, but a
 *         PostgreSQL process is "postgres[PID] client backend" there too
 *         (its type says which backend it was);
 *   thread as pid, each thread apart by its id: alone "comm[TID]", with
 *         several processes "comm[PID]/thread[TID]", a thread of a
 *         process with words "comm[PID] WORDS/thread[TID]" (its first
 *         thread, whose TID is the PID, "comm[PID] WORDS" as with pid);
 *   type  its words, else its comm: processes alike merged, no PID;
 *   all   "all". */
static void root_frame(const struct sampler *s, struct process *p,
		       const struct sampled_thread *st, char *out, size_t outsz)
{
	const char *words = process_words(p);
	if (s->o->group_by == GROUP_ALL) {
		snprintf(out, outsz, "all");
		return;
	}
	char proc[COMM_MAX]; /* its comm, as a frame: made only when used */
	if (s->o->group_by == GROUP_TYPE) {
		if (!words)
			frame_sanitize(p->t->comm, proc, sizeof(proc));
		frame_sanitize(words ? words : proc, out, outsz);
		return;
	}
	bool several = s->o->n_pids > 1 || s->o->subprocesses || s->n_targets > 1;
	/* the thread's name, and with --group-by thread its id */
	char thread[COMM_MAX + 16];
	if (s->o->group_by == GROUP_THREAD)
		snprintf(thread, sizeof(thread), "%s[%d]", st->comm, (int)st->tid);
	else
		snprintf(thread, sizeof(thread), "%s", st->comm);
	if (words && (several || p->pgb_ok)) {
		size_t n = process_root_frame(p->t->comm, p->t->pid, words, out, outsz);
		if (st->tid != p->t->pid && n < outsz)
			snprintf(out + n, outsz - n, "/%s", thread);
	} else if (several) {
		frame_sanitize(p->t->comm, proc, sizeof(proc));
		snprintf(out, outsz, "%s[%d]/%s", proc, (int)p->t->pid, thread);
	} else {
		snprintf(out, outsz, "%s", thread);
	}
}

bool count_process_root(const struct sampler *s, struct process *p, char *out, size_t outsz)
{
	static_assert(ROOT_MAX <= COUNT_ROOT_MAX, "COUNT_ROOT_MAX holds a root");
	assert(outsz >= ROOT_MAX);
	for (size_t i = 0; i < p->t->n_threads; i++) {
		const struct thread *th = &p->t->threads[i];
		if (th->tid == p->t->pid && th->slot && !th->gone) {
			root_frame(s, p, sampled_at(s, th->slot - 1), out, outsz);
			return true;
		}
	}
	return false;
}

/* The sample's index in the window's thread list (formats that keep
 * time): its thread's (--group-by pid, thread), or with --group-by type or
 * all its root's - processes merged are one timeline, named after the
 * root, with no pid or tid (0).  Each --period window lists its own. */
static int profile_index(struct sampler *s, struct process *p, struct sampled_thread *st,
			 const char *root, uint32_t *out)
{
	long i;
	if (s->o->group_by == GROUP_TYPE || s->o->group_by == GROUP_ALL) {
		i = thread_list_find(&s->threads, root);
		if (i < 0 && (i = thread_list_add(&s->threads, 0, 0, root, root)) < 0)
			return -1;
		*out = (uint32_t)i;
		return 0;
	}
	if (!st->counts.profile_index || st->counts.profile_window != s->win.cut) {
		char proc[COMM_MAX];
		frame_sanitize(p->t->comm, proc, sizeof(proc));
		if ((i = thread_list_add(&s->threads, p->t->pid, st->tid, proc, st->comm)) < 0)
			return -1;
		st->counts.profile_index = (uint32_t)i + 1;
		st->counts.profile_window = s->win.cut;
	}
	*out = st->counts.profile_index - 1;
	return 0;
}

/* Every sample, in time order, for the formats that keep time. */
static void add_to_timeline(struct sampler *s, struct process *p, struct sampled_thread *st,
			    const char *root, uint32_t stack, uint64_t count, uint64_t first_ns,
			    uint64_t last_ns)
{
	uint32_t thread;
	if (profile_index(s, p, st, root, &thread) != 0) {
		sampler_fail(s, "out of memory counting the samples", ENOMEM);
		return;
	}
	for (uint64_t i = 0; i < count && !s->error; i++) {
		uint64_t when = count > 1 ? first_ns + (last_ns - first_ns) * i / (count - 1) : first_ns;
		uint64_t weight = st->counts.last_ns && when > st->counts.last_ns ?
					  when - st->counts.last_ns : s->o->interval_ns;
		st->counts.last_ns = when;
		int err = timeline_add(s->timeline, when - s->start_ns, weight, stack, thread);
		if (err)
			sampler_fail(s, "cannot keep the samples (temporary file)", err);
	}
}

static uint64_t text_hash(const char *text)
{
	return text ? stack_hash((const uint8_t *)text, strlen(text)) : 1;
}

/* What a sample is counted from, as one number: the same stack gets the
 * same key (root frame, query, states, user frames, kernel frames). */
static uint64_t sample_key(const struct sample_view *v, const struct observation *ob,
			   const struct unwound_frame *frames, int n_frames, int complete)
{
	size_t kernel_len = frames_packed_len(ob->kernel, ob->n_kernel);
	uint64_t k = stack_hash((const uint8_t *)ob->kernel, kernel_len);
	k = k * 31 + stack_hash((const uint8_t *)frames, (size_t)n_frames * sizeof(*frames));
	k = k * 31 + text_hash(v->thread);
	k = k * 31 + text_hash(v->query);
	k = k * 31 + text_hash(v->app_state);
	return k * 31 + (uint64_t)(uintptr_t)ob->state * 2 + (uint64_t)complete;
}

/* The sample into the profile: its stack counted by address (or, for
 * stap, written now) and its place in the timeline. */
static void add_to_profile(struct sampler *s, struct process *p, struct sampled_thread *st,
			   const struct observation *ob, const struct user_frames *u,
			   const struct tick_span *ticks)
{
	const struct unwound_frame *frames = u->frames;
	int n_frames = u->n, complete = u->complete;
	uint64_t count = ticks->count;
	char root[ROOT_MAX];
	root_frame(s, p, st, root, sizeof(root));
	const char *kernel[KSTACK_MAX];
	int n_kernel = frames_unpack(ob->kernel, ob->n_kernel, kernel, KSTACK_MAX);
	struct sample_view v = {
		.thread = root,
		.query = s->o->pg_queries && p->query[0] ? p->query : NULL,
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
		for (uint64_t i = 0; i < count && !s->error; i++)
			if (output_stap_sample(s->out, &v) != 0) /* errno its own */
				sampler_fail(s, "cannot write the output", errno);
		return;
	}
	uint32_t stack = 0;
	uint64_t key = sample_key(&v, ob, frames, n_frames, complete);
	if (key == st->counts.counted_key &&
	    program_count_again(p->program, &st->counts.counted, count, &stack) == 0) {
		/* the same as last time: no string or word hashed */
	} else if (program_count(p->program, &v, frames, (size_t)n_frames, count, &stack,
				 &st->counts.counted) != 0) {
		sampler_fail(s, "out of memory counting the samples", ENOMEM);
	} else {
		st->counts.counted_key = key;
	}
	if (s->timeline && !s->error)
		add_to_timeline(s, p, st, root, stack, count, ticks->first_ns, ticks->last_ns);
}

/* The wait word of a sample: its observation's (its ticks held by our
 * stop too), or for one counted
 * outside its round (a stop whose trap came after it) the word its
 * capture read just before (app_state); else none. */
static bool sample_word(struct process *p, const struct sampled_thread *st,
			const struct observation *ob, uint32_t *word)
{
	if (ob == &st->counts.obs || ob->held) { /* held: a copy of it */
		*word = st->counts.obs_word;
		return st->counts.obs_word_ok;
	}
	bool fresh = p->word_fresh;
	p->word_fresh = false;
	*word = p->word;
	return fresh && p->word_ok;
}

/* --no-idle: is the sample left out?  Its observation says (idle_wait),
 * also for the ticks that found it stopped by us in that round ("frozen":
 * in its idle wait but for our stop).  Ticks of a thread found still
 * (cold.h: asleep and not run for several looks, counted together,
 * "still") are asleep since their last sample; any other tick counted
 * outside its round was a stop's, of a thread that had run since its last
 * sample: idle only by PostgreSQL's word. */
static bool left_out(const struct sampler *s, const struct process *p,
		     const struct sampled_thread *st, const struct observation *ob, bool word_ok,
		     uint32_t word, enum count_path how)
{
	if (!s->o->no_idle)
		return false;
	if (ob == &st->counts.obs)
		return st->counts.obs_idle;
	if (how == COUNT_FROZEN)
		return st->counts.obs_idle;
	if (how == COUNT_ASLEEP) /* in a wait we did not read */
		return ob->state[0] == 'S';
	if (p->pg.server && word_ok && word)
		return pg_wait_is_idle(p->pg.table, word, p->client, p->state);
	return how == COUNT_STILL && ob->state[0] == 'S';
}

const char *count_path_name(enum count_path how)
{
	static const char *const names[] = {
		[COUNT_ROUND] = "round", [COUNT_FROZEN] = "frozen", [COUNT_STILL] = "still",
		[COUNT_STOP] = "stop", [COUNT_LATE] = "late", [COUNT_WAITED] = "waited",
		[COUNT_PARKED] = "parked", [COUNT_UNSTOPPED] = "unstopped", [COUNT_OWED] = "owed",
		[COUNT_ASLEEP] = "asleep",
	};
	assert((size_t)how < sizeof(names) / sizeof(names[0]) && names[how]);
	return names[how];
}

/* --pg-queries: the sample under its process's query frame in the time
 * model, with its wait word. */
static void add_to_time_model(struct sampler *s, struct process *p, bool on_cpu, bool word_ok,
			      uint32_t word, uint64_t count)
{
	if (!s->o->pg_queries || !p->query[0])
		return;
	struct pg_time *t = &s->r->pg_time;
	if (p->query_entry < 0 && (p->query_entry = pg_time_entry(t, p->query)) < 0)
		return; /* out of memory: the summary is short of it */
	pg_time_add(t, (size_t)p->query_entry, count, on_cpu, word_ok, word, p->pg.table);
}

void count_now(struct sampler *s, struct process *p, struct sampled_thread *st,
	       const struct observation *ob, struct user_frames u, struct tick_span ticks)
{
	uint64_t count = ticks.count;
	if (!count)
		return;
	uint32_t word;
	bool word_ok = sample_word(p, st, ob, &word);
	/* --no-idle: left out of the profile, but a sample of the thread all
	 * the same (its share on a CPU is checked against schedstat) */
	bool kept = !left_out(s, p, st, ob, word_ok, word, ticks.how);
	if (kept) {
		add_to_profile(s, p, st, ob, &u, &ticks);
		s->r->samples += count;
		if (!u.complete && u.n > 0)
			s->r->unwind_failures += count;
	} else {
		s->r->left_out += count;
	}
	bool on_cpu = !ob->held && ob->state == STATE_RUNNING;
	bool queued = !ob->held && ob->state == STATE_RUNNABLE;
	add_to_time_model(s, p, on_cpu, word_ok, word, count);
	st->counts.samples += count;
	if (on_cpu)
		st->counts.on_cpu += count;
	if (queued)
		st->counts.queued += count;
	selfcheck_samples(&st->check, count, on_cpu ? count : 0, queued ? count : 0);
	tick_trace_counted(s->trace, st->tid, count, count_path_name(ticks.how), ob->state);
}

/* Of the round's ticks that fell while it ran, those at which st was
 * frozen by its stop. */
static uint64_t frozen_ticks(const struct sampler *s, const struct sampled_thread *st,
			     const struct round_ticks *rt)
{
	if (st->frozen.round != s->cur.number)
		return 0;
	uint64_t n = 0;
	for (unsigned i = 0; i < rt->n_timed; i++)
		n += rt->timed_ns[i] >= st->frozen.from_ns && rt->timed_ns[i] <= st->frozen.to_ns;
	return n < rt->stands_for ? n : rt->stands_for - 1;
}

/* A tick a round read again that found st asleep (S or D), after it ran
 * since its look: counted now in that state and its process's words then,
 * without a stack (its sleep was never read): under ASLEEP_UNREAD. */
static void count_asleep(struct sampler *s, struct sampled_thread *st, const struct mid_tick *mt)
{
	struct process *p = &s->procs[st->proc];
	struct observation ob = { .state = reported_state(mt->state, false, false),
				  .has_app = mt->has_app };
	if (mt->has_app)
		snprintf(ob.app, sizeof(ob.app), "%s", mt->app);
	const char *frame = ASLEEP_UNREAD;
	ob.n_kernel = frames_pack(&frame, 1, ob.kernel, sizeof(ob.kernel));
	p->word_fresh = false; /* (its word is in the frame, not the time model's) */
	count_now(s, p, st, &ob, NO_USER_FRAMES,
		  (struct tick_span){ 1, mt->at_ns, mt->at_ns, COUNT_ASLEEP });
}

/* The round's ticks read again while it ran (round.c, mid_round_pass),
 * of at most room of st's: those at which it had not run since its look
 * are its observation's - but one queued on our CPU then waited for the
 * CPU the round held (*held: counted as frozen ticks are); one that had
 * run (woke, slept, was taken off its CPU) is counted in the state it
 * was in then (*changed): asleep, at once (count_asleep); R, owed its
 * next stop's stack (owed.h). */
static void mid_ticks(struct sampler *s, struct sampled_thread *st, uint64_t room, uint64_t *held,
		      uint64_t *changed)
{
	*held = *changed = 0;
	if (st->reads.mid_round != s->cur.number || st->reads.look_round != s->cur.number)
		return;
	for (unsigned k = 0; k < st->reads.n_mid && *held + *changed < room; k++) {
		const struct mid_tick *mt = &st->reads.mid[k];
		if (st->frozen.round == s->cur.number && mt->at_ns >= st->frozen.from_ns &&
		    mt->at_ns <= st->frozen.to_ns)
			continue; /* frozen_ticks' */
		switch (mid_tick_verdict(&st->reads.look_sc, &mt->sc, mt->state, mt->on_cpu,
					 st->counts.obs.state[0] == 'R')) {
		case MID_SKIP:
		case MID_SAME:
			break;
		case MID_HELD:
			(*held)++;
			break;
		case MID_OWED:
			(*changed)++;
			owed_mid_tick(st, mt->state, mt->on_cpu, mt->at_ns);
			break;
		case MID_ASLEEP:
			(*changed)++;
			count_asleep(s, st, mt);
			break;
		}
	}
}

void count_round(struct sampler *s, const struct round_ticks *rt, uint64_t last_ns)
{
	uint64_t ticks = rt->stands_for;
	for (size_t i = 0; i < s->n_threads && !s->error; i++) {
		struct sampled_thread *st = sampled_at(s, i);
		struct pending_stop *ps = st->pending;

		if (ps && ps->last_round == s->cur.number && ps->n_ticks && ticks > 1) {
			/* counted when its trap comes, for every tick it had; one
			 * whose CPU our round held waited for it meanwhile */
			if (ps->took_its_cpu) {
				ps->waited_ticks += ticks - 1;
			} else {
				ps->ticks[ps->n_ticks - 1].count += ticks - 1;
				ps->ticks[ps->n_ticks - 1].last_ns = last_ns;
			}
		}
		if (st->counts.obs_round != s->cur.number)
			continue;
		const struct thread_memory *m = st->memory;
		bool user = st->counts.obs.user && m;
		struct process *p = &s->procs[st->proc];
		struct user_frames u = user ? (struct user_frames){ m->frames, m->n_frames, m->complete } :
					      NO_USER_FRAMES;
		uint64_t frozen = frozen_ticks(s, st, rt), held, changed;
		mid_ticks(s, st, ticks - 1 - frozen, &held, &changed);
		frozen += held;
		count_now(s, p, st, &st->counts.obs, u,
			  (struct tick_span){ ticks - frozen - changed, s->cur.tick_ns, last_ns, COUNT_ROUND });
		if (frozen) {
			/* a moment we held it: what we saw, not our stop (which
			 * is the summary's cost), and no time on a CPU - seen
			 * running, it is R but not on one: runnable, as a thread
			 * kept off its CPU is */
			struct observation ob = st->counts.obs;
			ob.held = true;
			if (ob.state == STATE_RUNNING)
				ob.state = STATE_RUNNABLE;
			count_now(s, p, st, &ob, u,
				  (struct tick_span){ frozen, st->frozen.from_ns, st->frozen.to_ns,
						      COUNT_FROZEN });
		}
	}
	s->cur.committed = true;
}
