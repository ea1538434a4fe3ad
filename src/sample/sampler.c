/* sampler.c - the tick loop (sampler.h): for each thread, decide, then
 * capture only what must be copied, then describe the sample.
 *
 *   decide    decide.h: reuse what we know, peek at a blocked thread, or
 *             stop it - from the state and run count read at the tick;
 *   capture   peek: sp and pc from /proc/.../syscall and a stack copy,
 *             consistent if the run count did not move meanwhile; stop:
 *             interrupt, spin a few microseconds for the trap of a thread
 *             on a CPU (one queued for a CPU is collected when it traps),
 *             copy registers and live stack, resume;
 *   describe  unwind (after the resume), the state as the target lived
 *             it, the kernel frames, the thread's name, the Oracle state,
 *             and count the sample by address (program.h).
 */
#define _GNU_SOURCE
#include "sample/sampler.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "continuous/continuous.h"
#include "sample/decide.h"
#include "base/frame.h"
#include "output/output.h"
#include "db/pgstate.h"
#include "base/priority.h"
#include "tracee/procfs.h"
#include "profile/program.h"
#include "tracee/snapshot.h"
#include "profile/timeline.h"
#include "unwind/unwind.h"

#define SCAN_FALLBACK_NS 100000000ULL /* read the task list anyway 10x/s */
#define KFRAME_MAX (KSYM_MAX + 8)
/* How long to spin for the trap of a thread on a CPU, or of a blocked one
 * our interrupt wakes: longer than either takes when a CPU is free. */
#define STOP_SPIN_NS 50000ULL
#define STOP_LATE_NS 200000000ULL /* a stop still pending: counted late */
#define END_WAIT_NS 200000000ULL  /* at the end, wait this long for traps */

/* A sample that waits for its thread's trap: the ticks it stands for
 * (a thread queued for a CPU runs no user code until it traps, so its
 * user stack then is the one it had at each of them). */
#define PENDING_TICKS 4
struct pending_tick {
	uint64_t count;
	uint64_t first_ns, last_ns; /* the ticks it stands for */
	char state;        /* from stat at the tick */
	bool on_cpu;       /* R: on a CPU at the tick */
	int n_kernel;
	char kernel[MEMORY_KERNEL_BYTES];
};

struct pending_stop {
	uint64_t began_ns;  /* when a thread on a CPU stopped running */
	bool late;          /* counted as late already */
	bool running;       /* executing at the tick */
	bool at_once;       /* trapped while we spun: its freeze started at the
			       interrupt; a later trap, when the thread got a
			       CPU back (what it waited for is not our stop) */
	bool runs_known;
	uint64_t runs;      /* its run count at the first tick */
	bool classify_by_runs; /* R without a kernel stack to tell: by trap */
	int n_ticks;
	struct pending_tick ticks[PENDING_TICKS];
};

struct process {
	struct target *t;
	struct program *program;       /* the program running now */
	unsigned execs_seen;
	struct pg_process pg;          /* --pg-wait-events: its wait event word */
};

struct sampler {
	const struct options *o;
	const struct event_names *names;
	struct program_shared shared; /* the run's files and their names */
	FILE *out;
	struct sampler_result *r;
	struct target *ts;
	size_t n_targets, cap_targets;
	size_t *n_out;         /* the caller's count, kept up to date */
	struct process *procs;
	uint64_t last_family_scan;
	struct stack_table *table; /* where every program's stacks are named */
	struct timeline *timeline; /* the formats that keep time; else NULL */
	struct profile_thread *threads; /* every thread sampled, for them */
	size_t n_threads, cap_threads;
	uint64_t start_ns;     /* the first tick */
	uint64_t tick_ns;      /* this round's */
	bool several;          /* several processes: root frames name them */
	struct snapshot *snap; /* one copy buffer, reused by every sample */
	int error;             /* errno of the first failure, 0 if none */
	unsigned stops_pending; /* threads asked to stop, trap not seen */
	struct pending_ref *pending; /* which: polled one by one */
	size_t n_pending, cap_pending;
	struct deferred_stop *deferred; /* this round's threads on a CPU */
	size_t n_deferred, cap_deferred;
	uint64_t rng;          /* xorshift state for the intervals */
	/* This round: the CPU we run on, and when we got it (our own
	 * se.exec_start): a target thread on the same CPU that stopped
	 * running at that very instant was preempted by us. */
	int my_cpu;
	bool my_start_read;    /* this round: tried */
	bool my_start_known;
	uint64_t my_start_ns;
	int self_sched_fd;     /* /proc/thread-self/sched; -2 unreadable */
	pid_t *pg_skipped;     /* --pg-wait-events: descendants not followed */
	size_t n_pg_skipped;
	/* --period and SIGUSR1: see "windows" below */
	struct continuous *cont;
	volatile sig_atomic_t *dump;
	unsigned windows_cut, dumps;
	uint64_t window_start_ns, window_due_ns, window_rounds;
	bool window_ends_early;           /* SIGUSR1 moved its end */
	struct stack_table *window_table; /* the current window's named stacks */
	struct window *closing;           /* cut, its stacks being named */
};

static void windows_round(struct sampler *s);
static void windows_between_ticks(struct sampler *s, uint64_t deadline, volatile int *quit);

/* A thread whose stop is pending, by its process's index (the process
 * array moves as --subprocesses adds to it) and its tid. */
struct pending_ref {
	size_t proc;
	pid_t tid;
};

static struct process *process_of(struct sampler *s, const struct target *t)
{
	for (size_t i = 0; i < s->n_targets; i++)
		if (s->procs[i].t == t)
			return &s->procs[i];
	return &s->procs[0];
}

/* The first failure ends the run; its reason goes to the summary. */
static void fail(struct sampler *s, const char *what)
{
	if (s->error)
		return;
	s->error = errno ? errno : ENOMEM;
	snprintf(s->r->error, sizeof(s->r->error), "%s: %s", what, strerror(s->error));
}

/* --- describe -------------------------------------------------------- */

/* "postgres" or, with several processes, "postgres[1234]/walwriter". */
static void root_frame(const struct sampler *s, const struct target *t,
		       const struct thread *th, char *out, size_t outsz)
{
	if (s->several) {
		char proc[COMM_MAX];
		frame_sanitize(t->comm, proc, sizeof(proc));
		snprintf(out, outsz, "%s[%d]/%s", proc, (int)t->pid, th->comm);
	} else {
		snprintf(out, outsz, "%s", th->comm);
	}
}

/* The application's view of the same instant, from the words in s->snap:
 * Oracle's session state, or the PostgreSQL process's wait event. */
static const char *app_state(const struct sampler *s, struct process *p, char *buf, size_t len)
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

/* The words a capture of p's threads reads with the stack: Oracle's (the
 * run's), or the PostgreSQL process's own; none otherwise. */
static void set_words(struct sampler *s, const struct process *p)
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

/* The kernel frames of a stack as read, filtered and named "NAME_[k]",
 * outermost first, into kbuf; pointers in kernel[].  Returns their number. */
static int kernel_frames(struct kernel_stack *ks, char kbuf[][KFRAME_MAX], const char **kernel)
{
	int n = kernel_stack_filter(ks);
	for (int i = 0; i < n; i++) {
		char clean[KSYM_MAX];
		frame_sanitize(ks->frame[n - 1 - i], clean, sizeof(clean));
		snprintf(kbuf[i], KFRAME_MAX, "%s_[k]", clean);
		kernel[i] = kbuf[i];
	}
	return n;
}

/* The thread's index in the profile's list (formats that keep time). */
static int thread_index(struct sampler *s, struct process *p, struct thread *th, uint32_t *out)
{
	if (th->profile_index) {
		*out = th->profile_index - 1;
		return 0;
	}
	if (s->n_threads == s->cap_threads) {
		size_t cap = s->cap_threads ? 2 * s->cap_threads : 64;
		struct profile_thread *n = realloc(s->threads, cap * sizeof(*n));
		if (!n)
			return -1;
		s->threads = n;
		s->cap_threads = cap;
	}
	char proc[COMM_MAX];
	frame_sanitize(p->t->comm, proc, sizeof(proc));
	struct profile_thread *pt = &s->threads[s->n_threads];
	*pt = (struct profile_thread){ p->t->pid, th->tid, strdup(proc), strdup(th->comm) };
	if (!pt->process || !pt->name) {
		free((char *)pt->process);
		free((char *)pt->name);
		return -1;
	}
	th->profile_index = (uint32_t)++s->n_threads;
	*out = th->profile_index - 1;
	return 0;
}

/* Counts count samples of a thread: its user frames and the rest.  They
 * were taken at ticks first_ns to last_ns (CLOCK_MONOTONIC), evenly. */
static void count_sample(struct sampler *s, struct process *p, struct thread *th,
			 const char *state, const char *const *kernel, int n_kernel,
			 const struct unwound_frame *frames, int n_frames, int complete,
			 uint64_t count, uint64_t first_ns, uint64_t last_ns)
{
	char root[2 * COMM_MAX + 16], oracle[320];
	root_frame(s, p->t, th, root, sizeof(root));
	struct sample_view v = {
		.thread = root,
		.app_state = app_state(s, p, oracle, sizeof(oracle)),
		.state = state,
		.kernel = kernel,
		.n_kernel = (size_t)n_kernel,
	};
	if (format_info(s->o->format)->streams) {
		/* the original tool's per-sample blocks: named as they come */
		const char *user[PROGRAM_USER_FRAMES_MAX];
		uint64_t user_ip[PROGRAM_USER_FRAMES_MAX];
		v.user = user;
		v.user_ip = user_ip;
		v.n_user = program_name_frames(p->program, frames, (size_t)n_frames, user, user_ip);
		for (uint64_t i = 0; i < count; i++)
			if (output_stap_sample(s->out, &v) != 0)
				fail(s, "cannot write the output");
	} else {
		uint32_t stack = 0, thread = 0;
		if (program_count(p->program, &v, frames, (size_t)n_frames, count, &stack) != 0 ||
		    (s->timeline && thread_index(s, p, th, &thread) != 0))
			fail(s, "out of memory counting the samples");
		for (uint64_t i = 0; s->timeline && i < count && !s->error; i++) {
			uint64_t when = count > 1 ? first_ns + (last_ns - first_ns) * i / (count - 1)
						  : first_ns;
			uint64_t weight = th->last_sample_ns && when > th->last_sample_ns ?
						  when - th->last_sample_ns : s->o->interval_ns;
			th->last_sample_ns = when;
			if (timeline_add(s->timeline, when - s->start_ns, weight, stack, thread) != 0)
				fail(s, "cannot keep the samples (temporary file)");
		}
	}
	if (!complete && n_frames > 0)
		s->r->unwind_failures += count;
	th->samples += count;
	s->r->samples += count;
	if (strcmp(state, "R (running)") == 0)
		th->samples_on_cpu += count;
}

/* A sample of what the memory holds: user frames and kernel frames. */
static void count_from_memory(struct sampler *s, struct process *p, struct thread *th,
			      const char *state)
{
	const struct thread_memory *m = th->memory;
	const char *kernel[KSTACK_MAX];
	int n_kernel = memory_kernel(m, kernel, KSTACK_MAX);
	count_sample(s, p, th, state, kernel, n_kernel, m->frames, m->n_frames, m->complete, 1,
		     s->tick_ns, s->tick_ns);
}

/* --- capture --------------------------------------------------------- */

/* A pending tick's kernel frames (NUL-separated in pt->kernel), into
 * out[].  Returns their number. */
static int tick_kernel(const struct pending_tick *pt, const char *out[KSTACK_MAX])
{
	const char *k = pt->kernel;
	int n = 0;
	for (; n < pt->n_kernel && n < KSTACK_MAX; n++, k += strlen(k) + 1)
		out[n] = k;
	return n;
}

/* The ticks of a thread whose trap never came: its state and kernel
 * frames as read at each, without a user stack. */
static void count_unstopped_thread(struct sampler *s, struct process *p, struct thread *th)
{
	struct pending_stop *ps = th->pending;
	if (!ps)
		return;
	th->pending = NULL;
	if (s->stops_pending)
		s->stops_pending--;
	s->snap->n_words = 0; /* no capture: no words either */
	s->snap->words_ok = 0;
	for (int j = 0; j < ps->n_ticks; j++) {
		struct pending_tick *pt = &ps->ticks[j];
		const char *kernel[KSTACK_MAX];
		int n_kernel = tick_kernel(pt, kernel);
		count_sample(s, p, th, reported_state(pt->state, false, pt->on_cpu), kernel,
			     n_kernel, NULL, 0, 1, pt->count, pt->first_ns, pt->last_ns);
		s->r->no_user_stack += pt->count;
	}
	free(ps);
}

/* The stack mapping holding sp, so the next copies take exactly the live
 * part: from the maps already read, else from the thread's own maps (a
 * stack mapped since), read while it runs. */
static void stack_bounds(struct process *p, struct thread *th, uint64_t sp, bool may_read)
{
	if (sp >= th->stack_low && sp < th->stack_top)
		return;
	if (modules_mapping_of(p->program->modules, sp, &th->stack_low, &th->stack_top) == 0)
		return;
	th->stack_low = th->stack_top = 0;
	if (!may_read)
		return;
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)p->t->pid, (int)th->tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct map_entry me;
		if (parse_maps_line(line, strlen(line), &me) == 0 && sp >= me.start && sp < me.end) {
			th->stack_low = me.start;
			th->stack_top = me.end;
			break;
		}
	}
	fclose(f);
}

static struct thread_memory *memory_of(struct thread *th)
{
	if (!th->memory)
		th->memory = calloc(1, sizeof(*th->memory));
	return th->memory;
}

/* Keeps an unwind in the memory, with what it was unwound from. */
static void remember(struct thread_memory *m, const struct snapshot *snap, unsigned generation,
		     const struct unwound_frame *frames, int n, int complete)
{
	m->valid = true;
	m->generation = generation;
	m->n_frames = n;
	m->complete = complete;
	memcpy(m->frames, frames, (size_t)n * sizeof(*frames));
	m->sp = snap->regs.rsp;
	m->pc = snap->regs.rip;
	m->stack_start = snap->stack_start;
	m->stack_len = snap->stack_len;
	m->stack_hash = stack_hash(snap->stack, snap->stack_len);
}

/* A blocked thread without stopping it.  Returns false when it must be
 * stopped instead: it runs now, it ran while we read, or its stack cannot
 * be unwound from sp and pc alone and is not the one we know. */
static bool peek(struct sampler *s, struct process *p, struct thread *th, char state,
		 const struct sched_counts *sc, bool runs_known, struct kernel_stack *ks)
{
	struct thread_memory *m = memory_of(th);
	struct blocked_syscall w;
	if (!m || thread_read_syscall(th, &w) != 0)
		return false;
	stack_bounds(p, th, w.sp, false);
	if (snapshot_peek(th->tid, &w, th->stack_top, s->snap) != 0)
		return false;
	/* Consistent if the thread was not put on a CPU while we read. */
	struct sched_counts after;
	bool consistent = runs_known && thread_read_sched(p->t, th, &after) == 0 &&
			  after.runs == sc->runs;
	unsigned generation = modules_generation(p->program->modules);
	bool same = memory_matches(m, s->snap->regs.rsp, s->snap->regs.rip, s->snap->stack_start,
				   s->snap->stack_len,
				   stack_hash(s->snap->stack, s->snap->stack_len), generation);
	if (!same) {
		if (!consistent)
			return false;
		struct unwound_frame frames[UNWIND_MAX_FRAMES];
		int complete;
		int n = unwind_snapshot(p->program->unwinder, s->snap, frames, UNWIND_MAX_FRAMES,
					&complete);
		if (!complete)
			return false; /* it needs a register we do not have */
		remember(m, s->snap, modules_generation(p->program->modules), frames, n, complete);
	}
	m->aborted = false; /* back in its wait, if our stop took it out */
	m->in_group_stop = false;
	m->verified = consistent;
	m->runs_verified = sc->runs;
	/* A wait our stop aborted goes on as restart_syscall, whose kernel
	 * stack shows only the system call entry: it keeps the frames it had. */
	bool restarted = same && w.nr == SYS_restart_syscall && m->n_kernel > 0;
	if (!restarted) {
		char kbuf[KSTACK_MAX][KFRAME_MAX];
		const char *kernel[KSTACK_MAX];
		int n_kernel = kernel_frames(ks, kbuf, kernel);
		memory_keep_kernel(m, kernel, n_kernel);
	}
	s->r->peeked++;
	count_from_memory(s, p, th, reported_state(state, false, false));
	return true;
}

/* Completes the sample(s) of a thread we stopped, now that it is: copy,
 * resume, then unwind and count.  Called as soon as its trap is seen. */
static void complete_stop(struct sampler *s, struct process *p, struct thread *th,
			  uint64_t seen_ns)
{
	struct pending_stop *ps = th->pending;
	th->pending = NULL;
	struct target *t = p->t;
	unsigned execs = t->execs;
	if (ps && s->stops_pending)
		s->stops_pending--;
	if (!ps) {
		thread_resume(t, th); /* a stop we gave up on */
		return;
	}
	struct thread_memory *m = memory_of(th);
	struct pending_tick *first = &ps->ticks[0];
	set_words(s, p); /* a trap may come while another process is sampled */
	bool blocked = first->state == 'S' || first->state == 'D';
	bool copied = snapshot_regs(th->tid, s->snap) == 0;
	/* Still where our last stop left it, not back in its wait yet (it
	 * ran a little, into a CPU quota's throttle say): that stop's doing. */
	bool parked = copied && m && m->aborted && first->state == 'R' &&
		      snapshot_restart_pending(&s->snap->regs, &m->abort_where);
	struct sched_counts stopped;
	bool runs_while_stopped = false;
	if (copied && !parked) {
		stack_bounds(p, th, s->snap->regs.rsp, false);
		copied = snapshot_stack(th->tid, th->stack_top, s->snap) == 0;
	}
	if (copied)
		/* the one read in a stop that is not a copy: its run count,
		 * which then tells whether it ran since (decide.h) */
		runs_while_stopped = thread_read_sched(t, th, &stopped) == 0;
	uint64_t resumed = now_ns();
	thread_resume(t, th);
	uint64_t t1 = now_ns();
	/* What the stop cost the thread: until PTRACE_CONT wakes it.  One on
	 * a CPU from the interrupt; one that was not (blocked, or queued for a
	 * CPU) from its trap, when it would have run on. */
	bool was_running = first->state == 'R' && ps->running && ps->at_once;
	hist_add(&s->r->frozen, resumed - (was_running ? ps->began_ns : seen_ns));
	if (t->execs != execs) {
		/* An execve completed while we waited: what /proc said before
		 * the stop was the old program's, the stack is the new one's.
		 * Such a sample describes neither. */
		free(ps);
		return;
	}
	if (!m) {
		free(ps);
		return;
	}
	if (parked) {
		/* nothing was copied in the stop: the words now, as for a
		 * thread not stopped at all */
		if (s->snap->n_words)
			snapshot_read_words(th->tid, s->snap);
		m->capture_runs_known = runs_while_stopped;
		m->runs_at_capture = stopped.runs;
		for (int i = 0; i < ps->n_ticks; i++)
			for (uint64_t k = 0; k < ps->ticks[i].count; k++)
				count_from_memory(s, p, th, reported_state(m->state_before, false, false));
		free(ps);
		return;
	}
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	int n = 0, complete = 0;
	if (copied) {
		n = unwind_snapshot(p->program->unwinder, s->snap, frames, UNWIND_MAX_FRAMES,
				    &complete);
		stack_bounds(p, th, s->snap->regs.rsp, true);
		remember(m, s->snap, modules_generation(p->program->modules), frames, n, complete);
		m->verified = false; /* it runs again: proven only by a peek */
		m->in_group_stop = th->group_stop;
		m->group_stops = th->group_stops;
		/* Did our stop take it out of a blocking call (or out of one it
		 * was entering: R on a CPU at the tick, in the kernel on its way
		 * into a wait)?  Until it runs to restart it, /proc says R
		 * because of us; without us it would be waiting. */
		bool aborting = !th->group_stop && snapshot_restarting(&s->snap->regs);
		m->capture_runs_known = runs_while_stopped;
		m->runs_at_capture = stopped.runs;
		m->aborted = aborting && runs_while_stopped &&
			     snapshot_syscall(&s->snap->regs, &m->abort_where) == 0;
		if (m->aborted)
			m->state_before = blocked ? first->state : 'S';
	}
	/* Without a kernel stack to tell, the trap does: a thread on a CPU
	 * traps where it is, one queued for a CPU must be put on it first. */
	bool on_cpu_by_runs = runs_while_stopped && ps->runs_known && stopped.runs == ps->runs;
	for (int i = 0; i < ps->n_ticks; i++) {
		struct pending_tick *pt = &ps->ticks[i];
		const char *kernel[KSTACK_MAX];
		int n_kernel = tick_kernel(pt, kernel);
		if (i == 0) /* the wait's own, if our stop aborts it */
			memory_keep_kernel(m, kernel, n_kernel);
		bool on_cpu = ps->classify_by_runs ? on_cpu_by_runs : pt->on_cpu;
		count_sample(s, p, th, reported_state(pt->state, th->group_stop, on_cpu), kernel,
			     n_kernel, frames, n, complete, pt->count, pt->first_ns, pt->last_ns);
	}
	free(ps);
	hist_add(&s->r->work, now_ns() - t1);
}

/* targets_wait_until's hook: the trap of a thread whose stop was pending. */
static void on_trap(void *arg, struct target *t, struct thread *th, uint64_t seen_ns)
{
	struct sampler *s = arg;
	complete_stop(s, process_of(s, t), th, seen_ns);
}

/* Adds this tick to a pending stop: the state and kernel frames it had. */
static void pending_add_tick(struct pending_stop *ps, uint64_t tick_ns, char state, bool on_cpu,
			     const char *const *kernel, int n_kernel)
{
	char buf[MEMORY_KERNEL_BYTES];
	size_t used = 0;
	for (int i = 0; i < n_kernel; i++) {
		size_t len = strlen(kernel[i]) + 1;
		if (used + len > sizeof(buf)) {
			n_kernel = i;
			break;
		}
		memcpy(buf + used, kernel[i], len);
		used += len;
	}
	if (ps->n_ticks > 0) {
		struct pending_tick *last = &ps->ticks[ps->n_ticks - 1];
		if ((last->state == state && last->on_cpu == on_cpu && last->n_kernel == n_kernel &&
		     memcmp(last->kernel, buf, used) == 0) ||
		    ps->n_ticks == PENDING_TICKS) {
			last->count++; /* the same, or no room: like the last */
			last->last_ns = tick_ns;
			return;
		}
	}
	struct pending_tick *pt = &ps->ticks[ps->n_ticks++];
	pt->count = 1;
	pt->first_ns = pt->last_ns = tick_ns;
	pt->state = state;
	pt->on_cpu = on_cpu;
	pt->n_kernel = n_kernel;
	memcpy(pt->kernel, buf, used);
}

static void note_pending(struct sampler *s, const struct process *p, const struct thread *th)
{
	if (s->n_pending == s->cap_pending) {
		size_t cap = s->cap_pending ? 2 * s->cap_pending : 16;
		struct pending_ref *n = realloc(s->pending, cap * sizeof(*n));
		if (!n)
			return; /* targets_poll finds its trap anyway */
		s->pending = n;
		s->cap_pending = cap;
	}
	s->pending[s->n_pending++] = (struct pending_ref){ (size_t)(p - s->procs), th->tid };
}

/* The traps of the threads whose stops are pending, each asked for by its
 * own pid: cheap however many threads are traced. */
static void poll_pending(struct sampler *s)
{
	size_t kept = 0;
	for (size_t i = 0; i < s->n_pending; i++) {
		struct pending_ref r = s->pending[i];
		struct process *p = &s->procs[r.proc];
		struct thread *th = NULL;
		for (size_t k = 0; k < p->t->n_threads && !th; k++)
			if (p->t->threads[k].tid == r.tid)
				th = &p->t->threads[k];
		if (!th || th->gone || !th->stop_pending)
			continue;
		thread_poll(p->t, th, on_trap, s);
		if (!th->gone && th->stop_pending)
			s->pending[kept++] = r;
	}
	s->n_pending = kept;
}

/* Stops a thread: waiting a few microseconds for one that runs (or is
 * blocked: our interrupt wakes it), not at all for one queued for a CPU -
 * its trap is collected when it gets the CPU.  on_cpu is what the sample
 * says; running, whether it executes right now (one the profiler itself
 * preempted counts as on a CPU, but traps only once we yield it). */
static void stop(struct sampler *s, struct process *p, struct thread *th, char state,
		 bool on_cpu, bool running, bool classify_by_runs, const struct sched_counts *sc,
		 bool runs_known, struct kernel_stack *ks)
{
	struct pending_stop *ps = calloc(1, sizeof(*ps));
	if (!ps)
		return;
	char kbuf[KSTACK_MAX][KFRAME_MAX];
	const char *kernel[KSTACK_MAX];
	int n_kernel = kernel_frames(ks, kbuf, kernel);
	pending_add_tick(ps, s->tick_ns, state, on_cpu, kernel, n_kernel);
	ps->runs_known = runs_known;
	ps->runs = sc->runs;
	ps->classify_by_runs = classify_by_runs;
	ps->running = running;
	if (thread_interrupt(th, &ps->began_ns) != 0) {
		free(ps);
		return;
	}
	free(th->pending);
	th->pending = ps;
	s->stops_pending++;
	note_pending(s, p, th);
	bool queued = state == 'R' && !running && !classify_by_runs;
	if (queued)
		s->r->queued++;
	uint64_t seen;
	uint64_t spin_until = queued ? 0 : now_ns() + STOP_SPIN_NS;
	switch (thread_wait_stop(p->t, th, spin_until, &seen)) {
	case STOP_OK:
		ps->at_once = true;
		complete_stop(s, p, th, seen);
		break;
	case STOP_PENDING:
		break; /* collected by on_trap when it comes */
	case STOP_GONE:
		free(th->pending);
		th->pending = NULL;
		s->stops_pending--;
		break;
	}
}

/* --- decide ---------------------------------------------------------- */

/* Our own se.exec_start: when we got this CPU, as the scheduler's clock
 * counts.  It is also moved on by anything that makes the scheduler
 * account our time (a task woken onto our CPU, a scheduler tick), so it
 * is exact only read before such a thing: first in the round. */
static void read_my_start(struct sampler *s)
{
	s->my_start_read = true;
	if (s->self_sched_fd == -1) {
		s->self_sched_fd = open("/proc/thread-self/sched", O_RDONLY | O_CLOEXEC);
		if (s->self_sched_fd < 0)
			s->self_sched_fd = -2;
	}
	char buf[4096];
	ssize_t n = s->self_sched_fd >= 0 ? pread(s->self_sched_fd, buf, sizeof(buf), 0) : -1;
	s->my_start_known = n > 0 && parse_sched_exec_start(buf, (size_t)n, &s->my_start_ns) == 0;
}

/* R, not on a CPU, on ours: waiting only because our tick took the CPU
 * from it?  Then it stopped running the instant we started.  (A start
 * read late in the round can only be later than the true one: then a
 * preempted thread may count as queued, never the other way.) */
static bool preempted_by_us(struct sampler *s, struct process *p, struct thread *th,
			    const struct task_stat *st)
{
	if (st->processor != s->my_cpu)
		return false;
	if (!s->my_start_read)
		read_my_start(s);
	uint64_t stopped_at;
	return s->my_start_known && thread_read_exec_start(p->t, th, &stopped_at) == 0 &&
	       stopped_at >= s->my_start_ns;
}

/* Which CPU this round runs on; and when we got it, read at once when a
 * target thread was on this CPU at its last tick (else at the first need,
 * see preempted_by_us).  A process we resume often wakes on our CPU (the
 * waker's) and runs there, so that every tick preempts it: read only in
 * rounds after one that needed it, our start was missing in every other
 * such round, and a CPython loop on a CPU 47 % of its time (schedstat)
 * showed 20 % running and 32 % runnable. */
static void note_my_cpu(struct sampler *s)
{
	s->my_start_read = false;
	s->my_start_known = false;
	s->my_cpu = sched_getcpu();
	for (size_t i = 0; i < s->n_targets; i++) {
		const struct target *t = s->procs[i].t;
		for (size_t k = 0; k < t->n_threads; k++)
			if (!t->threads[k].gone && t->threads[k].last_cpu == s->my_cpu) {
				read_my_start(s);
				return;
			}
	}
}

static void follow_exec(struct sampler *s, struct process *p);

/* A thread on a CPU at the tick is stopped after every thread of the round
 * has been looked at: stopping it lets a thread queued behind it run, and
 * a thread looked at after that would be seen running because of us.
 * Threads queued for a CPU are asked to stop as they are seen, so the one
 * that gets the CPU traps with the stack it had at the tick. */
struct deferred_stop {
	struct process *p;
	struct thread *th;
	char state;
	bool by_runs, runs_known;
	struct sched_counts sc;
};

static int defer_stop(struct sampler *s, struct process *p, struct thread *th, char state,
		      bool by_runs, const struct sched_counts *sc, bool runs_known)
{
	if (s->n_deferred == s->cap_deferred) {
		size_t cap = s->cap_deferred ? 2 * s->cap_deferred : 16;
		struct deferred_stop *d = realloc(s->deferred, cap * sizeof(*d));
		if (!d)
			return -1;
		s->deferred = d;
		s->cap_deferred = cap;
	}
	s->deferred[s->n_deferred++] = (struct deferred_stop){ p, th, state, by_runs, runs_known,
							       *sc };
	return 0;
}

static void stop_deferred(struct sampler *s, volatile int *quit)
{
	struct kernel_stack none;
	none.depth = 0; /* on a CPU: no kernel stack to show */
	for (size_t i = 0; i < s->n_deferred && !*quit; i++) {
		struct deferred_stop *d = &s->deferred[i];
		if (d->th->gone || d->th->stop_pending)
			continue;
		stop(s, d->p, d->th, d->state, true, true, d->by_runs, &d->sc, d->runs_known, &none);
		if (d->p->t->execs != d->p->execs_seen)
			follow_exec(s, d->p);
		if (s->stops_pending)
			poll_pending(s);
	}
	s->n_deferred = 0;
}

/* The schedstat figures for the summary's check of the samples. */
static void note_sched(struct thread *th, const struct sched_counts *sc, uint64_t now)
{
	if (!th->sched_seen) {
		th->sched_seen = true;
		th->sched_first_ns = now;
		th->sched_first_run_ns = sc->run_ns;
	}
	th->sched_last_ns = now;
	th->sched_last_run_ns = sc->run_ns;
}

static void sample_thread(struct sampler *s, struct process *p, struct thread *th)
{
	struct target *t = p->t;
	struct task_stat st;
	struct kernel_stack ks;
	ks.depth = 0;
	if (thread_read_stat(th, &st) != 0)
		return;
	th->last_cpu = st.processor;
	if (th->tid == t->pid)
		t->num_threads = st.num_threads;
	frame_sanitize(st.comm, th->comm, sizeof(th->comm));
	uint64_t t0 = now_ns();
	struct sched_counts sc = { 0, 0, 0 };
	bool runs_known = thread_read_sched(t, th, &sc) == 0;
	if (runs_known)
		note_sched(th, &sc, t0);

	if (th->stop_pending && (st.state == 'Z' || st.state == 'X')) {
		/* It exited with our stop pending and will never trap: the
		 * ticks it had are counted as they were read; a zombie is
		 * no sample (decide.h). */
		thread_forget_stop(th);
		count_unstopped_thread(s, p, th);
		return;
	}
	if (th->stop_pending) {
		/* Asked at an earlier tick and not stopped yet: it has run no
		 * user code since, so this tick gets the stack its trap will
		 * bring, with the state and kernel frames it has now. */
		if (th->pending) {
			thread_read_kernel_stack(t, th, &ks);
			bool on_cpu = !t->kernel_stacks || kernel_stack_on_cpu(&ks);
			char kbuf[KSTACK_MAX][KFRAME_MAX];
			const char *kernel[KSTACK_MAX];
			int n_kernel = kernel_frames(&ks, kbuf, kernel);
			pending_add_tick(th->pending, s->tick_ns, st.state, on_cpu, kernel, n_kernel);
		}
		thread_nudge(th, t0);
		if (th->pending && !th->pending->late && t0 - th->stop_asked_ns >= STOP_LATE_NS) {
			th->pending->late = true;
			th->stop_timeouts++;
			s->r->stop_timeouts++;
		}
		return;
	}

	struct thread_memory *m = memory_of(th);
	if (!m)
		return;
	set_words(s, p);
	struct tick_view v = {
		.state = st.state,
		.runs_known = runs_known,
		.runs = sc.runs,
		.group_stop = th->group_stop,
		.group_stops = th->group_stops,
		.generation = modules_generation(p->program->modules),
	};
	switch (decide(&v, m)) {
	case ACT_SKIP:
		return;
	case ACT_REUSE:
		if (s->snap->n_words)
			snapshot_read_words(th->tid, s->snap);
		s->r->reused++;
		count_from_memory(s, p, th, reported_state(st.state, th->group_stop, false));
		break;
	case ACT_PARKED:
		if (s->snap->n_words)
			snapshot_read_words(th->tid, s->snap);
		s->r->reused++;
		count_from_memory(s, p, th, reported_state(m->state_before, false, false));
		break;
	case ACT_QUEUED:
		if (s->snap->n_words)
			snapshot_read_words(th->tid, s->snap);
		s->r->reused++;
		count_from_memory(s, p, th, reported_state('R', false, false));
		break;
	case ACT_PEEK:
		thread_read_kernel_stack(t, th, &ks);
		if (peek(s, p, th, st.state, &sc, runs_known, &ks))
			break;
		stop(s, p, th, st.state, false, false, false, &sc, runs_known, &ks);
		return;
	case ACT_STOP: {
		thread_read_kernel_stack(t, th, &ks);
		/* R on a CPU or queued for one: the kernel stack tells, as
		 * read before the stop; without it, the trap will. */
		bool by_runs = !t->kernel_stacks && runs_known && st.state == 'R';
		bool running = !t->kernel_stacks || kernel_stack_on_cpu(&ks);
		bool on_cpu = running || (st.state == 'R' && preempted_by_us(s, p, th, &st));
		if (running && defer_stop(s, p, th, st.state, by_runs, &sc, runs_known) == 0)
			return; /* after every thread has been looked at */
		stop(s, p, th, st.state, on_cpu, running, by_runs, &sc, runs_known, &ks);
		return;
	}
	}
	hist_add(&s->r->work, now_ns() - t0);
}

/* --- the loop -------------------------------------------------------- */

/* --pg-wait-events: where process p keeps its wait event, looked up once
 * (and again after an execve).  A process that is not a PostgreSQL server
 * is said once; one too old for it (13 or earlier) is left to the caller. */
static enum pg_probe probe_pg(struct sampler *s, struct process *p, char *msg, size_t len)
{
	if (!s->o->pg_wait_events)
		return PG_PROBE_SERVER;
	enum pg_probe r = pg_probe(p->t->pid, p->program->modules, &p->pg, msg, len);
	if (msg[0] && r != PG_PROBE_TOO_OLD)
		fprintf(stderr, "ptrace_profiler: %s\n", msg);
	return r;
}

/* After an execve: the old program's modules describe what its stacks
 * ran; they are kept, unchanging, to name them after the run. */
static void follow_exec(struct sampler *s, struct process *p)
{
	if (p->t->execs == p->execs_seen)
		return;
	p->execs_seen = p->t->execs;
	struct program *next = program_exec(p->program, p->t->pid);
	if (!next) {
		fail(s, "cannot read the modules of the new program");
		return;
	}
	p->program = next;
	char msg[512];
	if (probe_pg(s, p, msg, sizeof(msg)) == PG_PROBE_TOO_OLD)
		fprintf(stderr, "ptrace_profiler: warning: %s: [no PostgreSQL state]\n", msg);
	/* Its other threads are gone; stack bounds and memories are the old
	 * program's. */
	for (size_t k = 0; k < p->t->n_threads; k++) {
		struct thread *th = &p->t->threads[k];
		th->stack_low = th->stack_top = 0;
		free(th->memory);
		th->memory = NULL;
	}
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

static bool any_pending(const struct target *ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ts[i].n_threads; k++)
			if (ts[i].threads[k].pending && !ts[i].threads[k].gone)
				return true;
	return false;
}

/* The next interval: uniform in [d/2, 3d/2], mean d. */
static uint64_t next_interval(struct sampler *s)
{
	uint64_t d = s->o->interval_ns;
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return d / 2 + s->rng % (d + 1);
}

struct sampler *sampler_new(const struct options *o, struct target *ts, size_t *n_targets,
			    size_t cap_targets, const struct event_names *names,
			    struct stack_table *table, FILE *out)
{
	struct sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	*s = (struct sampler){
		.o = o, .names = names, .out = out, .ts = ts, .n_targets = *n_targets,
		.cap_targets = cap_targets, .n_out = n_targets,
		.several = *n_targets > 1 || o->n_pids > 1 || o->subprocesses,
		.rng = now_ns() | 1,
		.self_sched_fd = -1,
	};
	const struct symbolize_options names_wanted = {
		.inline_frames = !o->no_inline, .lines = o->lines, .addresses = o->addresses };
	s->shared.files = files_new(o->debuginfo_path);
	s->shared.namer = namer_new(&names_wanted);
	s->procs = calloc(s->n_targets, sizeof(*s->procs));
	s->snap = malloc(sizeof(*s->snap));
	if (!s->procs || !s->snap || !s->shared.files || !s->shared.namer) {
		sampler_free(s);
		return NULL;
	}
	s->snap->n_words = 0;
	s->table = table;
	if (format_info(o->format)->keeps_time) {
		if (!(s->timeline = timeline_new())) {
			fprintf(stderr, "ptrace_profiler: cannot keep the samples: %s\n", strerror(errno));
			sampler_free(s);
			return NULL;
		}
	}
	for (size_t i = 0; i < s->n_targets; i++) {
		struct process *p = &s->procs[i];
		p->t = &ts[i];
		p->execs_seen = ts[i].execs;
		p->program = program_open(ts[i].pid, &s->shared, table, s->timeline);
		if (!p->program) {
			fprintf(stderr, "ptrace_profiler: cannot read the modules of process %d\n",
				(int)ts[i].pid);
			sampler_free(s);
			return NULL;
		}
		/* (main has refused a server too old for --pg-wait-events) */
		char msg[512];
		if (probe_pg(s, p, msg, sizeof(msg)) == PG_PROBE_TOO_OLD)
			fprintf(stderr, "ptrace_profiler: warning: %s: [no PostgreSQL state]\n", msg);
	}
	return s;
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->procs && i < s->n_targets; i++)
		program_free(s->procs[i].program);
	free(s->procs);
	/* After every program: they name with these. */
	namer_free(s->shared.namer);
	files_free(s->shared.files);
	free(s->snap);
	free(s->pg_skipped);
	timeline_free(s->timeline);
	free(s->deferred);
	free(s->pending);
	for (size_t i = 0; i < s->n_threads; i++) {
		free((char *)s->threads[i].process);
		free((char *)s->threads[i].name);
	}
	free(s->threads);
	if (s->self_sched_fd >= 0)
		close(s->self_sched_fd);
	window_free(s->closing);
	stack_table_free(s->window_table);
	free(s);
}

/* --subprocesses: seizes the children of every process we trace, present
 * and future, as they appear; their children are found in turn. */
#define FAMILY_SCAN_NS 50000000ULL

static bool traced(const struct sampler *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_targets; i++)
		if (s->ts[i].pid == pid)
			return true;
	for (size_t i = 0; i < s->n_pg_skipped; i++)
		if (s->pg_skipped[i] == pid)
			return true;
	return false;
}

/* A descendant --pg-wait-events cannot follow (a server older than 14):
 * said once, let go, and not seized again. */
static void skip_descendant(struct sampler *s, struct process *p, const char *why)
{
	fprintf(stderr, "ptrace_profiler: %s: not profiled\n", why);
	pid_t *grown = realloc(s->pg_skipped, (s->n_pg_skipped + 1) * sizeof(*grown));
	if (grown) {
		s->pg_skipped = grown;
		s->pg_skipped[s->n_pg_skipped++] = p->t->pid;
	}
	program_free(p->program);
	p->program = NULL;
	target_detach(p->t);
	target_free(p->t);
}

static void follow_family(struct sampler *s)
{
	for (size_t i = 0; i < s->n_targets; i++) {
		if (s->ts[i].exited)
			continue;
		pid_t kids[256];
		size_t n = target_children(&s->ts[i], kids, sizeof(kids) / sizeof(kids[0]));
		for (size_t k = 0; k < n; k++) {
			if (traced(s, kids[k]))
				continue;
			if (s->n_targets == s->cap_targets) {
				s->r->family_full++;
				return;
			}
			struct process *procs = realloc(s->procs, (s->n_targets + 1) * sizeof(*procs));
			if (!procs)
				return;
			s->procs = procs;
			struct target *t = &s->ts[s->n_targets];
			char err[256];
			/* One that ended or exec'd a setuid program meanwhile is
			 * simply not followed. */
			if (target_attach(t, kids[k], NULL, 0, err, sizeof(err)) != ATTACH_OK)
				continue;
			struct process *p = &s->procs[s->n_targets];
			*p = (struct process){ .t = t, .execs_seen = t->execs };
			p->program = program_open(t->pid, &s->shared,
						  s->window_table ? s->window_table : s->table,
						  s->timeline);
			if (!p->program) {
				target_detach(t);
				target_free(t);
				continue;
			}
			char msg[512];
			if (probe_pg(s, p, msg, sizeof(msg)) == PG_PROBE_TOO_OLD) {
				skip_descendant(s, p, msg);
				continue;
			}
			s->n_targets++;
			*s->n_out = s->n_targets;
			s->r->family_joined++;
		}
	}
}

static void sample_round(struct sampler *s, volatile int *quit)
{
	s->tick_ns = now_ns();
	if (s->ts[0].kernel_stacks)
		note_my_cpu(s); /* first: any system call may move our clock */
	/* Signals on their way first: a thread in a signal-delivery stop
	 * would read as 't', our doing. */
	targets_poll(s->ts, s->n_targets, on_trap, s);
	for (size_t i = 0; i < s->n_targets && !*quit; i++) {
		struct process *p = &s->procs[i];
		if (p->t->execs != p->execs_seen) {
			follow_exec(s, p);
			target_scan_threads(p->t);
		}
		for (size_t k = 0; k < p->t->n_threads && !*quit; k++) {
			struct thread *th = &p->t->threads[k];
			if (th->gone)
				continue;
			sample_thread(s, p, th);
			if (p->t->execs != p->execs_seen)
				follow_exec(s, p);
			/* a queued thread that got its CPU waits for nobody */
			if (s->stops_pending)
				poll_pending(s);
		}
	}
	stop_deferred(s, quit);
	targets_poll(s->ts, s->n_targets, on_trap, s);
}

/* Samples whose thread never stopped: counted with the state and kernel
 * frames of their ticks, and no user frames - we never saw them. */
static void count_unstopped(struct sampler *s)
{
	for (size_t i = 0; i < s->n_targets; i++) {
		struct process *p = &s->procs[i];
		for (size_t k = 0; k < p->t->n_threads; k++)
			count_unstopped_thread(s, p, &p->t->threads[k]);
	}
}

int sampler_run(struct sampler *s, volatile int *quit, struct sampler_result *r)
{
	const struct options *o = s->o;
	struct target *ts = s->ts;
	memset(r, 0, sizeof(*r));
	s->r = r;
	struct priority_report pr;
	priority_for_sampling(&pr);
	r->nice = pr.nice;
	r->short_slice = pr.short_slice;

	uint64_t start = now_ns(), deadline = start, last_scan = start;
	s->start_ns = start;
	struct timespec wall;
	clock_gettime(CLOCK_REALTIME, &wall);
	r->start_unix_ns = (uint64_t)wall.tv_sec * 1000000000ULL + (uint64_t)wall.tv_nsec;
	s->window_start_ns = start;
	s->window_due_ns = start + o->period_ns;
	uint64_t cpu_start = cpu_ns();
	uint64_t end = o->duration_ns ? start + o->duration_ns : UINT64_MAX;
	while (!*quit && any_alive(ts, s->n_targets) && !s->error) {
		if (o->count && r->rounds >= o->count)
			break;
		if (now_ns() >= end)
			break;
		sample_round(s, quit);
		r->rounds++;
		windows_round(s);
		if (o->count && r->rounds >= o->count)
			break;

		uint64_t now = now_ns();
		if (o->subprocesses && now - s->last_family_scan >= FAMILY_SCAN_NS) {
			follow_family(s);
			s->last_family_scan = now;
		}
		bool scan_due = now - last_scan >= SCAN_FALLBACK_NS, scanned = false;
		for (size_t i = 0; i < s->n_targets; i++) {
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
		deadline += next_interval(s);
		if (now >= deadline + o->interval_ns) {
			uint64_t missed = (now - deadline) / o->interval_ns;
			r->skipped_ticks += missed;
			deadline += missed * o->interval_ns;
		}
		windows_between_ticks(s, deadline < end ? deadline : end, quit);
		targets_wait_until(ts, s->n_targets, deadline < end ? deadline : end, quit, on_trap, s);
	}
	/* Stops still pending complete when their threads get a CPU: wait
	 * for them a little, as for any stop; what never stops is counted
	 * without its user stack. */
	uint64_t give_up = now_ns() + END_WAIT_NS;
	volatile int never = 0;
	while (!*quit && any_pending(ts, s->n_targets) && now_ns() < give_up)
		targets_wait_until(ts, s->n_targets, now_ns() + 1000000, &never, on_trap, s);
	count_unstopped(s);
	r->wall_ns = now_ns() - start;
	r->cpu_ns = cpu_ns() - cpu_start;
	return s->error ? -1 : 0;
}

static int windows_last(struct sampler *s);

void sampler_profile(struct sampler *s, struct profile *p)
{
	p->samples = s->timeline ? timeline_source(s->timeline) : NULL;
	p->threads = s->threads;
	p->n_threads = s->n_threads;
}

int sampler_name_stacks(struct sampler *s, struct sampler_result *r)
{
	priority_for_naming();
	uint64_t start = now_ns();
	int error = 0;
	for (size_t i = 0; i < s->n_targets; i++) {
		struct program *p = s->procs[i].program;
		if (program_name_all(p) != 0)
			error = 1;
		for (; p; p = p->older)
			r->maps_reads += modules_refresh_count(p->modules);
	}
	r->images_opened = (unsigned)files_count(s->shared.files);
	r->naming_ns = now_ns() - start;
	if (error && !r->error[0])
		snprintf(r->error, sizeof(r->error), "out of memory naming the stacks");
	if (!error && s->cont && s->o->period_ns)
		error = windows_last(s) != 0;
	return error ? -1 : 0;
}

/* --- windows (--period) and the profile so far (SIGUSR1) ---------------
 *
 * A window is cut after the round that ends it: each program's stacks
 * counted by address become a batch (program_cut), to be named into the
 * window's table while sampling goes on - between ticks, one stack at a
 * time, until the next tick is due, polling for the traps of threads
 * queued for a CPU meanwhile - and the window then goes to the writer
 * (continuous.h).  A stack named for the first time can take long (the
 * first look-up in a module reads its debug info): the tick after it is
 * late, or skipped and counted, as after any slow round. */

#define NAMING_SLICE_NS 200000ULL /* between polls, when stops are pending */

void sampler_continuous(struct sampler *s, struct continuous *c, volatile sig_atomic_t *dump)
{
	s->cont = c;
	s->dump = dump;
	if (!c || !s->o->period_ns)
		return;
	/* The first window: stacks are named into tables of their own. */
	s->window_table = stack_table_new();
	for (size_t i = 0; i < s->n_targets && s->window_table; i++)
		if (program_cut(s->procs[i].program, s->window_table, s->timeline) != 0)
			break;
	if (!s->window_table)
		s->error = ENOMEM;
}

static uint64_t unix_ns(const struct sampler *s, uint64_t mono_ns)
{
	return s->r->start_unix_ns + (mono_ns - s->start_ns);
}

static struct profile_thread *copy_threads(const struct sampler *s)
{
	struct profile_thread *t = malloc((s->n_threads ? s->n_threads : 1) * sizeof(*t));
	if (t && s->n_threads)
		memcpy(t, s->threads, s->n_threads * sizeof(*t));
	return t;
}

static void hand_off(struct sampler *s)
{
	struct window *w = s->closing;
	s->closing = NULL;
	w->samples = stack_table_total(w->stacks);
	continuous_submit(s->cont, w);
}

/* Names the closing window until deadline (0: to the end); hands it over
 * when it is all named. */
static void name_closing(struct sampler *s, uint64_t deadline)
{
	uint64_t t0 = now_ns();
	int done = 1;
	for (size_t i = 0; i < s->n_targets && done == 1; i++)
		done = program_name_batch(s->procs[i].program, deadline);
	uint64_t t1 = now_ns();
	s->closing->naming_ns += t1 - t0;
	/* A look-up that ran past the next tick: the ticks it made the loop
	 * skip, counted as the loop will. */
	if (deadline && t1 >= deadline + s->o->interval_ns)
		s->closing->skipped_ticks += (t1 - deadline) / s->o->interval_ns;
	if (done < 0) {
		errno = ENOMEM;
		fail(s, "out of memory naming a window");
	} else if (done == 1) {
		hand_off(s);
	}
}

static void window_cut(struct sampler *s, uint64_t now)
{
	if (s->closing)
		name_closing(s, 0); /* not named within a period: now */
	struct window *w = calloc(1, sizeof(*w));
	struct stack_table *next = stack_table_new();
	struct timeline *next_tl = s->timeline ? timeline_new() : NULL;
	struct profile_thread *threads = copy_threads(s);
	if (!w || !next || (s->timeline && !next_tl) || !threads) {
		free(w);
		stack_table_free(next);
		timeline_free(next_tl);
		free(threads);
		errno = ENOMEM;
		fail(s, "cannot start a new window");
		return;
	}
	*w = (struct window){
		.kind = WINDOW_PERIOD, .number = ++s->windows_cut, .stacks = s->window_table,
		.timeline = s->timeline, .threads = threads, .n_threads = s->n_threads,
		.run_start_unix_ns = s->r->start_unix_ns,
		.start_unix_ns = unix_ns(s, s->window_start_ns), .end_unix_ns = unix_ns(s, now),
		.rounds = s->r->rounds - s->window_rounds,
	};
	s->closing = w;
	s->window_table = next;
	s->timeline = next_tl;
	for (size_t i = 0; i < s->n_targets; i++)
		if (program_cut(s->procs[i].program, next, next_tl) != 0) {
			errno = ENOMEM;
			fail(s, "out of memory cutting a window");
		}
	/* The next one ends a period after this one was due (windows do not
	 * drift by a round each), or a period from now after a SIGUSR1 or a
	 * stall longer than a period. */
	uint64_t due = s->window_due_ns + s->o->period_ns;
	if (s->window_ends_early || due <= now)
		due = now + s->o->period_ns;
	s->window_start_ns = now;
	s->window_due_ns = due;
	s->window_ends_early = false;
	s->window_rounds = s->r->rounds;
}

/* SIGUSR1 without --period: every stack so far named now, and a copy of
 * them (and of the timeline so far) handed to the writer. */
static void dump_so_far(struct sampler *s, uint64_t now)
{
	uint64_t t0 = now_ns();
	for (size_t i = 0; i < s->n_targets; i++)
		if (program_name_now(s->procs[i].program) != 0) {
			errno = ENOMEM;
			fail(s, "out of memory naming the stacks");
			return;
		}
	struct window *w = calloc(1, sizeof(*w));
	if (!w)
		return;
	*w = (struct window){
		.kind = WINDOW_DUMP, .number = ++s->dumps, .stacks = stack_table_copy(s->table),
		.view = s->timeline ? timeline_view_new(s->timeline) : NULL,
		.threads = copy_threads(s), .n_threads = s->n_threads,
		.run_start_unix_ns = s->r->start_unix_ns, .start_unix_ns = s->r->start_unix_ns,
		.end_unix_ns = unix_ns(s, now), .rounds = s->r->rounds,
	};
	if (!w->stacks || (s->timeline && !w->view) || !w->threads) {
		window_free(w);
		fprintf(stderr, "ptrace_profiler: SIGUSR1: cannot copy the profile so far (out of memory)\n");
		return;
	}
	w->samples = stack_table_total(w->stacks);
	w->naming_ns = now_ns() - t0;
	continuous_submit(s->cont, w);
}

/* After each round: a window to cut, a SIGUSR1 to answer. */
static void windows_round(struct sampler *s)
{
	uint64_t now = now_ns();
	if (s->dump && *s->dump) {
		*s->dump = 0;
		if (format_info(s->o->format)->streams) {
			fflush(s->out); /* its blocks go out as they come */
			fprintf(stderr, "ptrace_profiler: SIGUSR1: stap blocks are written as they come, flushed\n");
		} else if (s->cont && s->o->period_ns) {
			/* the current window ends, once at least 1 s long */
			uint64_t earliest = s->window_start_ns + MIN_PERIOD_NS;
			s->window_due_ns = now > earliest ? now : earliest;
			s->window_ends_early = true;
		} else if (s->cont) {
			dump_so_far(s, now);
		}
	}
	if (s->cont && s->o->period_ns && now >= s->window_due_ns && !s->error)
		window_cut(s, now);
}

/* Until the next tick: name the closing window. */
static void windows_between_ticks(struct sampler *s, uint64_t deadline, volatile int *quit)
{
	while (s->closing && !*quit && !s->error) {
		uint64_t now = now_ns();
		if (now >= deadline)
			break;
		uint64_t until = deadline;
		if (s->stops_pending && now + NAMING_SLICE_NS < until)
			until = now + NAMING_SLICE_NS;
		name_closing(s, until);
		if (s->stops_pending)
			poll_pending(s);
	}
}

/* After naming (sampler_name_stacks): the window being named, then the
 * last one, to the writer. */
static int windows_last(struct sampler *s)
{
	if (s->closing)
		name_closing(s, 0);
	struct profile_thread *threads = copy_threads(s);
	struct window *w = calloc(1, sizeof(*w));
	if (!w || !threads) {
		free(w);
		free(threads);
		return -1;
	}
	uint64_t end = s->start_ns + s->r->wall_ns;
	*w = (struct window){
		.kind = WINDOW_PERIOD, .number = ++s->windows_cut, .stacks = s->window_table,
		.timeline = s->timeline, .threads = threads, .n_threads = s->n_threads,
		.run_start_unix_ns = s->r->start_unix_ns,
		.start_unix_ns = unix_ns(s, s->window_start_ns),
		.end_unix_ns = unix_ns(s, end > s->window_start_ns ? end : s->window_start_ns),
		.rounds = s->r->rounds - s->window_rounds,
		.samples = stack_table_total(s->window_table),
	};
	s->window_table = NULL;
	s->timeline = NULL;
	if (w->samples == 0) /* the run ended right after a cut */
		window_free(w);
	else
		continuous_submit(s->cont, w);
	return 0;
}
