/* sampler.c - the tick loop.
 *
 * Per tick and thread: read state and kernel stack from /proc while the
 * thread runs (once it is stopped they would describe our stop), stop it,
 * copy registers and live stack, resume it, and only then unwind and count.
 * Stacks are counted by address and named after the run (as perf report
 * does): the first look-up in a module reads its symbols and debug info,
 * which can take a tenth of a second, and ticks missed meanwhile would be
 * missing from the profile.  --format stap writes sample by sample, so it
 * names as it goes.
 *
 * Ticks are absolute deadlines; a round that ends after the next deadline
 * starts the next one at once, and a tick whose whole interval passed
 * meanwhile is skipped and counted, never made up.
 */
#define _GNU_SOURCE
#include "sampler.h"

#include <inttypes.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "output.h"
#include "procfs.h"
#include "snapshot.h"
#include "symbolize.h"
#include "unwind.h"

/* A thread blocked in a system call does not move: while it stays blocked
 * at the same place (same call, arguments, sp and pc in /proc/.../syscall,
 * same stack bytes), its last unwound user stack is still the truth and
 * it is not stopped again.  Sleeping threads cost the target nothing, and
 * their system calls are not interrupted and restarted every tick. */
struct blocked_sample {
	struct blocked_syscall where;
	uint64_t stack_start;
	size_t stack_len;
	uint64_t stack_hash;
	unsigned modules_seen;  /* the unwind is only as good as the module list */
	bool in_group_stop;     /* taken in group stop number group_stops: */
	unsigned group_stops;   /* valid while that stop lasts */
	int n_frames, complete;
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	/* Parked: our stop took the thread out of a blocking call, which it
	 * restarts once it runs again.  Until then (schedstat's run count
	 * still parked_runs) it shows R only because of us: it is sampled as
	 * it was, in state and kernel stack. */
	bool parked;
	char state;
	uint64_t parked_runs;
	int n_kernel;
	char kernel[1024]; /* n_kernel names, each NUL-terminated */
};

/* User frames of one sample once named: inlined functions add frames. */
#define USER_FRAMES_MAX (4 * UNWIND_MAX_FRAMES)

#define SCAN_FALLBACK_NS 100000000ULL /* read the task list anyway 10x/s */
#define KFRAME_MAX (KSYM_MAX + 8)

/* One program of a process: what unwinds and names its addresses, and its
 * stacks not named yet (folded output).  An execve retires it: its stacks
 * are named after the run with its own modules, and a new one starts. */
struct image {
	struct modules *modules;
	struct unwinder *unwinder;     /* NULL once retired */
	struct symbolizer *symbolizer;
	struct stack_table *pending;   /* words: see encode_sample() */
	struct stack_table *named;     /* where naming puts them: the output */
	bool naming;                   /* naming now: no re-entry from a hook */
	int error;                     /* out of memory while naming */
	struct image *older;           /* the program before an execve */
};

/* Stacks not named yet past this many: name them, so that memory stays
 * bounded whatever the target does. */
#define PENDING_MAX 65536

struct process {
	struct target *t;
	struct image *image;           /* the program running now */
	unsigned execs_seen;
};

struct sampler {
	const struct options *o;
	const struct event_names *names;
	struct symbolize_options names_wanted;
	FILE *out;
	struct sampler_result *r;
	struct target *ts;
	size_t n_targets;
	struct process *procs;
	bool several;          /* several processes: root frames name them */
	/* The process being sampled. */
	struct process *proc;
	struct target *t;
	struct image *img;
	struct snapshot *snap; /* one copy buffer, reused by every sample */
	int write_error;
};

/* The stack mapping holding sp, so the next copies take exactly the live
 * part.  Read from /proc/PID/maps, after the thread runs again. */
static void learn_stack_bounds(pid_t pid, struct thread *th, uint64_t sp)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)pid, (int)th->tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct map_entry me;
		if (parse_maps_line(line, strlen(line), &me) == 0 &&
		    sp >= me.start && sp < me.end) {
			th->stack_low = me.start;
			th->stack_top = me.end;
			break;
		}
	}
	fclose(f);
}

/* A 64-bit fingerprint of a stack copy, a word at a time (stacks are
 * word arrays; a byte-wise hash cost more than the rest of a sample). */
static uint64_t hash_bytes(const uint8_t *p, size_t n)
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

/* Still blocked exactly where the cached sample was taken? */
static bool blocked_unchanged(struct sampler *s, struct thread *th)
{
	struct blocked_sample *b = th->blocked;
	struct blocked_syscall now;
	if (b && b->in_group_stop)
		/* A stopped thread runs no code until SIGCONT, which we see. */
		return th->group_stop && b->group_stops == th->group_stops &&
		       b->modules_seen == modules_generation(s->img->modules);
	if (!b || b->modules_seen != modules_generation(s->img->modules) ||
	    thread_read_syscall(th, &now) != 0 ||
	    memcmp(&now, &b->where, sizeof(now)) != 0)
		return false;
	/* A blocked thread's stack does not change: re-read it without
	 * stopping anybody, and compare. */
	struct iovec local = { s->snap->stack, b->stack_len };
	struct iovec remote = { (void *)(uintptr_t)b->stack_start, b->stack_len };
	if (process_vm_readv(th->tid, &local, 1, &remote, 1, 0) != (ssize_t)b->stack_len)
		return false;
	return hash_bytes(s->snap->stack, b->stack_len) == b->stack_hash;
}

static void remember_blocked(struct sampler *s, struct thread *th,
			     const struct unwound_frame *frames, int n, int complete)
{
	const struct snapshot *snap = s->snap;
	struct blocked_syscall where = { 0 };
	/* An unwind that failed (a library not known yet) is not kept: the
	 * next tick stops the thread and tries again.  Kept: a thread blocked
	 * in a system call, or one in a group stop (SIGSTOP, Ctrl-Z). */
	bool stopped = th->group_stop;
	if (!complete || (!stopped && snapshot_syscall(&snap->regs, &where) != 0)) {
		free(th->blocked);
		th->blocked = NULL;
		return;
	}
	if (!th->blocked && !(th->blocked = malloc(sizeof(*th->blocked))))
		return;
	struct blocked_sample *b = th->blocked;
	b->where = where;
	b->stack_start = snap->stack_start;
	b->stack_len = snap->stack_len;
	b->stack_hash = hash_bytes(snap->stack, snap->stack_len);
	b->modules_seen = modules_generation(s->img->modules);
	b->in_group_stop = stopped;
	b->group_stops = th->group_stops;
	b->n_frames = n;
	b->complete = complete;
	memcpy(b->frames, frames, (size_t)n * sizeof(*frames));
}

/* A thread our stop took out of a blocking call must run to restart it,
 * and until it is back in the call it shows R because of us.  Has it not
 * run at all since?  Then nothing about it changed: it is sampled as it
 * was at the stop, without stopping it again. */
static bool parked_unmoved(struct sampler *s, struct thread *th, char state)
{
	struct blocked_sample *b = th->blocked;
	uint64_t runs;
	return b && b->parked && state == 'R' &&
	       b->modules_seen == modules_generation(s->img->modules) &&
	       thread_read_runs(s->t, th, &runs) == 0 && runs == b->parked_runs;
}

/* Keeps the kernel frames of a parked thread's sample, if they fit. */
static void park_kernel(struct blocked_sample *b, const char *const *kernel, int n)
{
	size_t used = 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(kernel[i]) + 1;
		if (used + len > sizeof(b->kernel)) {
			b->parked = false;
			return;
		}
		memcpy(b->kernel + used, kernel[i], len);
		used += len;
	}
	b->n_kernel = n;
}

/* Outermost first, as the folded format wants them; a frame's inlined
 * functions follow it, each at the frame's address.  frames[] is innermost
 * first, as unwound.  Returns the number of names. */
static size_t name_frames(struct symbolizer *sym, const struct unwound_frame *frames,
			  size_t n_frames, const char **user, uint64_t *user_ip)
{
	size_t n_user = 0;
	for (size_t i = n_frames; i-- > 0;) {
		const char *const *names;
		size_t n = symbolize(sym, frames[i].ip, frames[i].kind, &names);
		for (size_t k = 0; k < n && n_user < USER_FRAMES_MAX; k++) {
			user[n_user] = names[k];
			user_ip[n_user++] = frames[i].ip;
		}
	}
	return n_user;
}

/* A sample not named yet, as words:
 *   root, app state (0: none), state, n (user frames), n frames root first
 *   as ip << 2 | kind, then the kernel frames;
 * every string interned in the pending table. */
enum { W_ROOT, W_APP, W_STATE, W_NFRAMES, W_FRAMES };

static int encode_sample(struct stack_table *pending, const struct sample_view *v,
			 const struct unwound_frame *frames, size_t n_frames)
{
	uint64_t words[W_FRAMES + UNWIND_MAX_FRAMES + KSTACK_MAX];
	const char *root = stack_table_intern(pending, v->thread);
	const char *state = stack_table_intern(pending, v->state);
	const char *app = v->app_state ? stack_table_intern(pending, v->app_state) : NULL;
	if (!root || !state || (v->app_state && !app))
		return -1;
	words[W_ROOT] = (uintptr_t)root;
	words[W_APP] = (uintptr_t)app;
	words[W_STATE] = (uintptr_t)state;
	words[W_NFRAMES] = n_frames;
	size_t n = W_FRAMES;
	for (size_t i = n_frames; i-- > 0;)
		words[n++] = frames[i].ip << 2 | (uint64_t)frames[i].kind;
	for (size_t i = 0; i < v->n_kernel; i++) {
		const char *k = stack_table_intern(pending, v->kernel[i]);
		if (!k)
			return -1;
		words[n++] = (uintptr_t)k;
	}
	return stack_table_add_words(pending, words, n, 1) < 0 ? -1 : 0;
}

static void name_one(const uint64_t *words, size_t n, uint64_t count, void *arg)
{
	struct image *img = arg;
	size_t n_frames = words[W_NFRAMES];
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	for (size_t i = 0; i < n_frames; i++) /* back to innermost first */
		frames[n_frames - 1 - i] = (struct unwound_frame){
			words[W_FRAMES + i] >> 2, (enum frame_kind)(words[W_FRAMES + i] & 3) };
	const char *user[USER_FRAMES_MAX], *kernel[KSTACK_MAX];
	uint64_t user_ip[USER_FRAMES_MAX];
	size_t n_kernel = n - W_FRAMES - n_frames;
	for (size_t i = 0; i < n_kernel; i++)
		kernel[i] = (const char *)(uintptr_t)words[W_FRAMES + n_frames + i];
	struct sample_view v = {
		.thread = (const char *)(uintptr_t)words[W_ROOT],
		.app_state = (const char *)(uintptr_t)words[W_APP],
		.state = (const char *)(uintptr_t)words[W_STATE],
		.user = user,
		.n_user = name_frames(img->symbolizer, frames, n_frames, user, user_ip),
		.user_ip = user_ip,
		.kernel = kernel,
		.n_kernel = n_kernel,
	};
	const char *all[3 + USER_FRAMES_MAX + KSTACK_MAX];
	size_t n_all = sample_frames(&v, all, sizeof(all) / sizeof(all[0]));
	if (stack_table_add(img->named, all, n_all, count) < 0)
		img->error = 1;
}

/* Names the image's pending stacks into the output table. */
static void name_pending(struct image *img)
{
	if (img->naming || !img->pending)
		return;
	img->naming = true;
	stack_table_visit_words(img->pending, name_one, img);
	stack_table_clear(img->pending);
	img->naming = false;
}

/* modules.h's hook: a module is about to go, its addresses with it. */
static void name_before_removal(void *arg)
{
	name_pending(arg);
}

static struct image *image_open(const struct sampler *s, pid_t pid, struct stack_table *named)
{
	struct image *img = calloc(1, sizeof(*img));
	if (!img)
		return NULL;
	img->named = named;
	img->modules = modules_open(pid, s->o->debuginfo_path);
	img->unwinder = img->modules ? unwinder_new(img->modules) : NULL;
	img->symbolizer = img->modules ? symbolizer_new(img->modules, &s->names_wanted) : NULL;
	img->pending = s->o->format == FORMAT_FOLDED ? stack_table_new() : NULL;
	if (!img->unwinder || !img->symbolizer || (s->o->format == FORMAT_FOLDED && !img->pending)) {
		stack_table_free(img->pending);
		symbolizer_free(img->symbolizer);
		unwinder_free(img->unwinder);
		modules_close(img->modules);
		free(img);
		return NULL;
	}
	modules_on_removal(img->modules, name_before_removal, img);
	return img;
}

static void image_free(struct image *img)
{
	while (img) {
		struct image *older = img->older;
		stack_table_free(img->pending);
		symbolizer_free(img->symbolizer);
		unwinder_free(img->unwinder);
		modules_close(img->modules);
		free(img);
		img = older;
	}
}

static void record(struct sampler *s, const struct sample_view *v,
		   const struct unwound_frame *frames, size_t n_frames)
{
	if (s->o->format == FORMAT_STAP) {
		const char *user[USER_FRAMES_MAX];
		uint64_t user_ip[USER_FRAMES_MAX];
		struct sample_view named = *v;
		named.user = user;
		named.user_ip = user_ip;
		named.n_user = name_frames(s->img->symbolizer, frames, n_frames, user, user_ip);
		if (output_stap_sample(s->out, &named) != 0)
			s->write_error = 1;
		return;
	}
	if (encode_sample(s->img->pending, v, frames, n_frames) != 0)
		s->write_error = 1;
	else if (stack_table_distinct(s->img->pending) >= PENDING_MAX)
		name_pending(s->img);
}

/* After an execve: the old program's modules describe what its stacks
 * ran; they are kept, unchanging, to name them after the run. */
static int new_program(struct sampler *s, struct process *p)
{
	struct image *img = image_open(s, p->t->pid, p->image->named);
	if (!img)
		return -1;
	struct image *old = p->image;
	modules_freeze(old->modules);
	unwinder_free(old->unwinder);
	old->unwinder = NULL;
	img->older = old;
	p->image = img;
	/* Its other threads are gone, stack bounds and blocked samples are
	 * the old program's. */
	for (size_t k = 0; k < p->t->n_threads; k++) {
		struct thread *th = &p->t->threads[k];
		th->stack_low = th->stack_top = 0;
		free(th->blocked);
		th->blocked = NULL;
	}
	return 0;
}

/* A new program since we last looked (seen while we waited, or during a
 * stop): switch to it before any sample of it meets the old modules. */
static void follow_exec(struct sampler *s, struct process *p)
{
	if (p->t->execs == p->execs_seen)
		return;
	p->execs_seen = p->t->execs;
	if (new_program(s, p) != 0)
		s->write_error = 1;
	s->img = p->image;
}

static void sample_thread(struct sampler *s, struct thread *th)
{
	struct task_stat st;
	struct kernel_stack ks;
	if (thread_read_proc(s->t, th, &st, &ks) != 0)
		return;
	if (th->tid == s->t->pid)
		s->t->num_threads = st.num_threads;

	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	int n_frames = 0, complete = 0;
	uint64_t t1;
	bool asleep = st.state == 'S' || st.state == 'D' || th->group_stop;
	if (asleep && th->blocked)
		th->blocked->parked = false; /* back in its call, or elsewhere */
	bool parked = parked_unmoved(s, th, st.state);
	bool parking = false; /* this stop parks the thread */
	uint64_t runs = 0;
	if (parked || (asleep && blocked_unchanged(s, th))) {
		t1 = now_ns();
		if (s->o->ksuseopc_addr)
			snapshot_read_words(th->tid, s->snap);
		n_frames = th->blocked->n_frames;
		complete = th->blocked->complete;
		memcpy(frames, th->blocked->frames, (size_t)n_frames * sizeof(*frames));
		th->samples_unstopped++;
		s->r->unstopped++;
	} else {
		uint64_t asked, seen;
		unsigned execs = s->t->execs;
		enum stop_result stop = thread_stop(s->t, th, &asked, &seen);
		if (stop == STOP_TIMEOUT)
			s->r->stop_timeouts++;
		if (stop != STOP_OK)
			return;
		int copied = snapshot_regs(th->tid, s->snap) == 0;
		bool was_blocked = st.state == 'S' || st.state == 'D';
		struct blocked_sample *b = th->blocked;
		/* The one read in a stop that is not a copy, only for a thread
		 * that was blocked anyway or is still stuck in our last stop's
		 * aftermath.  Its run count while stopped cannot move.  A kernel
		 * that does not count gives 0: no parking then. */
		parked = copied && b && b->parked && st.state == 'R' &&
			 snapshot_restart_pending(&s->snap->regs, &b->where) &&
			 thread_read_runs(s->t, th, &runs) == 0 && runs > 0;
		parking = copied && was_blocked && snapshot_restarting(&s->snap->regs) &&
			  thread_read_runs(s->t, th, &runs) == 0 && runs > 0;
		if (copied && !parked) {
			uint64_t sp = s->snap->regs.rsp;
			/* The stack's mapping, from the maps already read: the
			 * copy takes the live part and nothing more. */
			if ((sp < th->stack_low || sp >= th->stack_top) &&
			    modules_mapping_of(s->img->modules, sp, &th->stack_low, &th->stack_top) != 0)
				th->stack_low = th->stack_top = 0; /* mapped since: a window */
			copied = snapshot_stack(th->tid, th->stack_top, s->snap) == 0;
		}
		uint64_t resumed = now_ns();
		thread_resume(s->t, th);
		t1 = now_ns();
		/* What the stop cost the thread: until PTRACE_CONT wakes it
		 * (inside the call; woken onto our CPU it may then keep us off
		 * it for a time slice, which is not its freeze).  One that was
		 * blocked (a sleep that changed, a disk wait) reaches our trap
		 * only when its wait ends, as it would have run on: it is held
		 * from then, which we see at once while we spin.  A running one
		 * from the interrupt. */
		hist_add(&s->r->frozen, resumed - (was_blocked ? seen : asked));
		if (s->t->execs != execs) {
			/* An execve completed while we waited: what /proc said
			 * before the stop was the old program's, the stack is the
			 * new one's.  Such a sample describes neither. */
			follow_exec(s, s->proc);
			return;
		}

		/* --- the thread runs again; all below is our own time --- */
		if (parked) {
			/* nothing was copied in the stop: the Oracle words now,
			 * as for a thread not stopped at all */
			if (s->o->ksuseopc_addr)
				snapshot_read_words(th->tid, s->snap);
			b->parked_runs = runs;
			n_frames = b->n_frames;
			complete = b->complete;
			memcpy(frames, b->frames, (size_t)n_frames * sizeof(*frames));
		} else if (copied) {
			n_frames = unwind_snapshot(s->img->unwinder, s->snap, frames,
						   UNWIND_MAX_FRAMES, &complete);
			uint64_t sp = s->snap->regs.rsp;
			if (sp < th->stack_low || sp >= th->stack_top)
				learn_stack_bounds(s->t->pid, th, sp);
			remember_blocked(s, th, frames, n_frames, complete);
		}
		b = th->blocked;
		if (!parked && b) {
			b->parked = parking && !b->in_group_stop;
			b->state = st.state;
			b->parked_runs = runs;
		}
	}
	if (parked)
		st.state = th->blocked->state; /* as it was, not the R we caused */
	if (!complete)
		s->r->unwind_failures++;
	char kbuf[KSTACK_MAX][KFRAME_MAX];
	const char *kernel[KSTACK_MAX];
	int n_k = 0;
	if (parked) {
		/* its kernel stack now is our stop's; the one it had then */
		const char *k = th->blocked->kernel;
		for (; n_k < th->blocked->n_kernel; n_k++, k += strlen(k) + 1)
			kernel[n_k] = k;
	} else {
		n_k = kernel_stack_filter(&ks);
		for (int i = 0; i < n_k; i++) {
			char clean[KSYM_MAX];
			frame_sanitize(ks.frame[n_k - 1 - i], clean, sizeof(clean));
			snprintf(kbuf[i], sizeof(kbuf[i]), "%s_[k]", clean);
			kernel[i] = kbuf[i];
		}
	}
	if (parking && th->blocked && th->blocked->parked)
		park_kernel(th->blocked, kernel, n_k);

	/* In a group stop the thread shows 't' to /proc because it is also
	 * traced; to its user it is stopped. */
	char state = st.state;
	if (th->group_stop && state == 't')
		state = 'T';
	char comm[COMM_MAX];
	frame_sanitize(st.comm, comm, sizeof(comm));
	memcpy(th->comm, comm, sizeof(comm));
	char root[2 * COMM_MAX + 16];
	if (s->several) {
		/* "postgres[1234]/walwriter": which process, which thread */
		char proc[COMM_MAX];
		frame_sanitize(s->t->comm, proc, sizeof(proc));
		snprintf(root, sizeof(root), "%s[%d]/%s", proc, (int)s->t->pid, comm);
	} else {
		snprintf(root, sizeof(root), "%s", comm);
	}

	/* Oracle's view of the same instant: the words were read in the stop. */
	char oracle[320];
	const char *app_state = NULL;
	if (s->o->ksuseopc_addr && s->snap->words_ok) {
		oracle_state_frame(s->snap->word[0], (int32_t)s->snap->word[1], s->names,
				   oracle, sizeof(oracle));
		app_state = oracle;
	} else if (s->o->ksuseopc_addr) {
		app_state = "[unreadable] (Oracle state)";
	}

	struct sample_view v = {
		.thread = root,
		.app_state = app_state,
		.state = state_description(state),
		.kernel = kernel,
		.n_kernel = (size_t)n_k,
	};
	record(s, &v, frames, (size_t)n_frames);
	th->samples++;
	s->r->samples++;
	hist_add(&s->r->work, now_ns() - t1);
}

/* Did threads start or end since the last scan? */
static bool threads_changed(const struct target *t)
{
	int alive = 0;
	for (size_t i = 0; i < t->n_threads; i++) {
		if (t->threads[i].gone)
			return true;
		alive++;
	}
	return t->num_threads >= 0 && t->num_threads != alive;
}

/* Our own CPU time, user and system: what sampling costs the machine. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ULL +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
}

static bool any_alive(const struct target *ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ts[i].exited)
			return true;
	return false;
}

struct sampler *sampler_new(const struct options *o, struct target *ts, size_t n_targets,
			    const struct event_names *names, struct stack_table *table,
			    FILE *out)
{
	struct sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	*s = (struct sampler){
		.o = o, .names = names, .out = out, .ts = ts, .n_targets = n_targets,
		.several = n_targets > 1,
		.names_wanted = { .inline_frames = !o->no_inline, .lines = o->lines,
				  .addresses = o->addresses },
	};
	s->procs = calloc(n_targets, sizeof(*s->procs));
	s->snap = malloc(sizeof(*s->snap));
	if (!s->procs || !s->snap) {
		sampler_free(s);
		return NULL;
	}
	s->snap->n_words = 0;
	if (o->ksuseopc_addr) {
		s->snap->n_words = 2;
		s->snap->word_addr[0] = o->ksuseopc_addr;
		s->snap->word_addr[1] = o->ksusetim_addr;
	}
	for (size_t i = 0; i < n_targets; i++) {
		struct process *p = &s->procs[i];
		p->t = &ts[i];
		p->execs_seen = ts[i].execs;
		if (!(p->image = image_open(s, ts[i].pid, table))) {
			fprintf(stderr, "ptrace_profiler: cannot read the modules of process %d\n",
				(int)ts[i].pid);
			sampler_free(s);
			return NULL;
		}
	}
	return s;
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->procs && i < s->n_targets; i++)
		image_free(s->procs[i].image);
	free(s->procs);
	free(s->snap);
	free(s);
}

int sampler_run(struct sampler *s, volatile int *quit, struct sampler_result *r)
{
	const struct options *o = s->o;
	struct target *ts = s->ts;
	size_t n_targets = s->n_targets;
	memset(r, 0, sizeof(*r));
	s->r = r;

	uint64_t start = now_ns(), deadline = start, last_scan = start;
	uint64_t cpu_start = cpu_ns();
	uint64_t end = o->duration_ns ? start + o->duration_ns : UINT64_MAX;
	while (!*quit && any_alive(ts, n_targets) && !s->write_error) {
		if (o->count && r->rounds >= o->count)
			break;
		if (now_ns() >= end)
			break;
		for (size_t i = 0; i < n_targets && !*quit; i++) {
			struct process *p = &s->procs[i];
			s->proc = p;
			s->t = p->t;
			s->img = p->image;
			if (p->t->execs != p->execs_seen) {
				follow_exec(s, p);
				target_scan_threads(p->t);
			}
			for (size_t k = 0; k < p->t->n_threads && !*quit; k++)
				if (!p->t->threads[k].gone)
					sample_thread(s, &p->t->threads[k]);
		}
		r->rounds++;
		if (o->count && r->rounds >= o->count)
			break;

		uint64_t now = now_ns();
		bool scan_due = now - last_scan >= SCAN_FALLBACK_NS, scanned = false;
		for (size_t i = 0; i < n_targets; i++) {
			struct process *p = &s->procs[i];
			/* The leader's stat, read anyway, counts the threads: the
			 * task directory is read only when that count or a thread's
			 * end says something changed. */
			bool scan = scan_due || (!p->t->n_only_tids && threads_changed(p->t));
			if (scan) {
				target_scan_threads(p->t);
				scanned = true;
			}
		}
		if (scanned)
			last_scan = now;
		/* The next tick may start late, but within its own interval:
		 * ticks whose whole interval has passed are skipped, never
		 * made up, so a slow round can not cause a burst of stops. */
		deadline += o->interval_ns;
		if (now >= deadline + o->interval_ns) {
			uint64_t missed = (now - deadline) / o->interval_ns;
			r->skipped_ticks += missed;
			deadline += missed * o->interval_ns;
		}
		targets_wait_until(ts, n_targets, deadline < end ? deadline : end, quit);
	}
	r->wall_ns = now_ns() - start;
	r->cpu_ns = cpu_ns() - cpu_start;
	return s->write_error ? -1 : 0;
}

int sampler_name_stacks(struct sampler *s, struct sampler_result *r)
{
	uint64_t start = now_ns();
	int error = 0;
	for (size_t i = 0; i < s->n_targets; i++)
		for (struct image *img = s->procs[i].image; img; img = img->older) {
			/* The maps now may describe another program, or none:
			 * the stacks are named with the modules they ran in. */
			modules_freeze(img->modules);
			name_pending(img);
			error |= img->error;
			r->images_opened += modules_images_opened(img->modules);
			r->maps_reads += modules_refresh_count(img->modules);
		}
	r->naming_ns = now_ns() - start;
	return error ? -1 : 0;
}

static void print_hist(FILE *f, const char *what, const struct duration_hist *h)
{
	if (!h->count) {
		fprintf(f, "  %-22s none\n", what);
		return;
	}
	fprintf(f, "  %-22s mean %.1f us, p50 %.1f us, p99 %.1f us, max %.1f us\n", what,
		(double)h->total_ns / (double)h->count / 1e3,
		(double)hist_quantile(h, 0.50) / 1e3, (double)hist_quantile(h, 0.99) / 1e3,
		(double)h->max_ns / 1e3);
}

void sampler_print_summary(FILE *f, const struct options *o,
			   const struct target *ts, size_t n_targets,
			   const struct sampler_result *r)
{
	double wall_s = (double)r->wall_ns / 1e9;
	double asked = 1e9 / (double)o->interval_ns;
	double achieved = wall_s > 0 ? (double)r->rounds / wall_s : 0;
	fprintf(f, "ptrace_profiler: %zu process%s, %" PRIu64 " rounds in %.3f s, %" PRIu64
		" thread samples\n", n_targets, n_targets > 1 ? "es" : "", r->rounds, wall_s,
		r->samples);
	fprintf(f, "  rate                   asked %.1f/s, achieved %.1f/s (%.0f%%), skipped ticks %" PRIu64 "\n",
		asked, achieved, asked > 0 ? 100.0 * achieved / asked : 0, r->skipped_ticks);
	uint64_t forwarded = 0;
	for (size_t p = 0; p < n_targets; p++) {
		const struct target *t = &ts[p];
		forwarded += t->signals_forwarded;
		fprintf(f, "  process %-6d %-15s %zu thread%s now", (int)t->pid, t->comm,
			t->n_threads, t->n_threads == 1 ? "" : "s");
		if (t->ended_threads)
			fprintf(f, ", %" PRIu64 " ended (%" PRIu64 " samples)", t->ended_threads,
				t->ended_samples);
		fputc('\n', f);
		for (size_t i = 0; i < t->n_threads; i++)
			fprintf(f, "    thread %-7d %-15s %" PRIu64 " samples\n", (int)t->threads[i].tid,
				t->threads[i].comm, t->threads[i].samples);
	}
	fprintf(f, "  unwind failures        %" PRIu64 " of %" PRIu64 " samples\n",
		r->unwind_failures, r->samples);
	if (r->stop_timeouts)
		fprintf(f, "  no sample              %" PRIu64 " times a thread did not stop within 200 ms\n",
			r->stop_timeouts);
	fprintf(f, "  not stopped            %" PRIu64 " samples (blocked where the previous sample found them)\n",
		r->unstopped);
	/* Per thread: stops of different threads add up to more than the
	 * wall time while each thread lost only its own share. */
	double threads = r->rounds ? (double)r->samples / (double)r->rounds : 1;
	fprintf(f, "  target stopped         %.3f ms in total, %.3f%% of each thread's wall time\n",
		(double)r->frozen.total_ns / 1e6,
		r->wall_ns ? 100.0 * (double)r->frozen.total_ns / ((double)r->wall_ns * threads) : 0);
	print_hist(f, "stopped per sample", &r->frozen);
	print_hist(f, "work per sample", &r->work);
	if (r->samples)
		fprintf(f, "  profiler CPU           %.1f us per sample (user and system, from the first tick)\n",
			(double)r->cpu_ns / (double)r->samples / 1e3);
	if (r->naming_ns)
		fprintf(f, "  naming                 %.1f ms after detaching; %u ELF images, maps re-read %u times\n",
			(double)r->naming_ns / 1e6, r->images_opened, r->maps_reads);
	if (forwarded)
		fprintf(f, "  signals forwarded      %" PRIu64 "\n", forwarded);
}
