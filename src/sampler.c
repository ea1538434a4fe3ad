/* sampler.c - the tick loop.
 *
 * Per tick and thread: read state and kernel stack from /proc while the
 * thread runs (once it is stopped they would describe our stop), stop it,
 * copy registers and live stack, resume it, and only then unwind, name and
 * count.  Ticks are absolute deadlines; a round that ends after the next
 * deadline starts the next one at once, and a tick whose whole interval
 * passed meanwhile is skipped and counted, never made up.
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
	int n_ips, complete;
	uint64_t ips[UNWIND_MAX_FRAMES];
};

#define SCAN_FALLBACK_NS 100000000ULL /* read the task list anyway 10x/s */
#define KFRAME_MAX (KSYM_MAX + 8)

/* What is kept per process: its modules and caches. */
struct process {
	struct target *t;
	struct modules *modules;
	struct unwinder *unwinder;
	struct symbolizer *symbolizer;
	unsigned execs_seen;
};

struct sampler {
	const struct options *o;
	const struct event_names *names;
	struct stack_table *table;
	FILE *out;
	struct sampler_result *r;
	bool several;          /* several processes: root frames name them */
	/* The process being sampled; its fields are copied here. */
	struct target *t;
	struct modules *modules;
	struct unwinder *unwinder;
	struct symbolizer *symbolizer;
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

/* The registers of a thread stopped inside a system call, in the shape
 * /proc/.../syscall prints them. */
static int syscall_of_regs(const struct user_regs_struct *r, struct blocked_syscall *w)
{
	if ((long)r->orig_rax < 0)
		return -1;
	*w = (struct blocked_syscall){
		(long)r->orig_rax, { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 },
		r->rsp, r->rip };
	return 0;
}

/* Still blocked exactly where the cached sample was taken? */
static bool blocked_unchanged(struct sampler *s, struct thread *th)
{
	struct blocked_sample *b = th->blocked;
	struct blocked_syscall now;
	if (b && b->in_group_stop)
		/* A stopped thread runs no code until SIGCONT, which we see. */
		return th->group_stop && b->group_stops == th->group_stops &&
		       b->modules_seen == modules_refresh_count(s->modules);
	if (!b || b->modules_seen != modules_refresh_count(s->modules) ||
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
			     const uint64_t *ips, int n, int complete)
{
	const struct snapshot *snap = s->snap;
	struct blocked_syscall where = { 0 };
	/* An unwind that failed (a library not known yet) is not kept: the
	 * next tick stops the thread and tries again.  Kept: a thread blocked
	 * in a system call, or one in a group stop (SIGSTOP, Ctrl-Z). */
	bool stopped = th->group_stop;
	if (!complete || (!stopped && syscall_of_regs(&snap->regs, &where) != 0)) {
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
	b->modules_seen = modules_refresh_count(s->modules);
	b->in_group_stop = stopped;
	b->group_stops = th->group_stops;
	b->n_ips = n;
	b->complete = complete;
	memcpy(b->ips, ips, (size_t)n * sizeof(*ips));
}

static void record(struct sampler *s, const struct sample_view *v)
{
	if (s->o->format == FORMAT_STAP) {
		if (output_stap_sample(s->out, v) != 0)
			s->write_error = 1;
		return;
	}
	const char *frames[2 + UNWIND_MAX_FRAMES + KSTACK_MAX];
	size_t n = sample_frames(v, frames, sizeof(frames) / sizeof(frames[0]));
	if (stack_table_add(s->table, frames, n, 1) != 0)
		s->write_error = 1;
}

static void sample_thread(struct sampler *s, struct thread *th)
{
	struct task_stat st;
	struct kernel_stack ks;
	if (thread_read_proc(s->t, th, &st, &ks) != 0)
		return;
	if (th->tid == s->t->pid)
		s->t->num_threads = st.num_threads;

	uint64_t ips[UNWIND_MAX_FRAMES];
	const char *user[UNWIND_MAX_FRAMES];
	int n_ips = 0, complete = 0;
	uint64_t t1;
	bool asleep = st.state == 'S' || st.state == 'D' || th->group_stop;
	if (asleep && blocked_unchanged(s, th)) {
		t1 = now_ns();
		if (s->o->ksuseopc_addr)
			snapshot_read_words(th->tid, s->snap);
		n_ips = th->blocked->n_ips;
		complete = th->blocked->complete;
		memcpy(ips, th->blocked->ips, (size_t)n_ips * sizeof(*ips));
		th->samples_unstopped++;
		s->r->unstopped++;
	} else {
		uint64_t t0;
		enum stop_result stop = thread_stop(s->t, th, &t0);
		if (stop == STOP_TIMEOUT)
			s->r->stop_timeouts++;
		if (stop != STOP_OK)
			return;
		int copied = snapshot_capture(th->tid, th->stack_top, s->snap) == 0;
		thread_resume(s->t, th);
		t1 = now_ns();
		hist_add(&s->r->frozen, t1 - t0);

		/* --- the thread runs again; all below is our own time --- */
		if (copied) {
			n_ips = unwind_snapshot(s->unwinder, s->snap, ips, UNWIND_MAX_FRAMES,
						&complete);
			uint64_t sp = s->snap->regs.rsp;
			if (sp < th->stack_low || sp >= th->stack_top)
				learn_stack_bounds(s->t->pid, th, sp);
			remember_blocked(s, th, ips, n_ips, complete);
		}
	}
	if (!complete)
		s->r->unwind_failures++;
	/* Outermost first, as the folded format wants them. */
	uint64_t ips_root_first[UNWIND_MAX_FRAMES];
	for (int i = 0; i < n_ips; i++) {
		int inner = n_ips - 1 - i;
		ips_root_first[i] = ips[inner];
		user[i] = symbolize(s->symbolizer, ips[inner], inner > 0);
	}

	char kbuf[KSTACK_MAX][KFRAME_MAX];
	const char *kernel[KSTACK_MAX];
	int n_k = kernel_stack_filter(&ks);
	for (int i = 0; i < n_k; i++) {
		char clean[KSYM_MAX];
		frame_sanitize(ks.frame[n_k - 1 - i], clean, sizeof(clean));
		snprintf(kbuf[i], sizeof(kbuf[i]), "%s_[k]", clean);
		kernel[i] = kbuf[i];
	}

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
		.user = user,
		.user_ip = ips_root_first,
		.n_user = (size_t)n_ips,
		.kernel = kernel,
		.n_kernel = (size_t)n_k,
	};
	record(s, &v);
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

int sampler_run(const struct options *o, struct target *ts, size_t n_targets,
		const struct event_names *names, struct stack_table *table,
		FILE *out, volatile int *quit, struct sampler_result *r)
{
	struct sampler s = { .o = o, .names = names, .table = table, .out = out, .r = r,
			     .several = n_targets > 1 };
	memset(r, 0, sizeof(*r));
	struct process *procs = calloc(n_targets, sizeof(*procs));
	s.snap = malloc(sizeof(*s.snap));
	if (!procs || !s.snap) {
		s.write_error = 1;
		goto out;
	}
	s.snap->n_words = 0;
	if (o->ksuseopc_addr) {
		s.snap->n_words = 2;
		s.snap->word_addr[0] = o->ksuseopc_addr;
		s.snap->word_addr[1] = o->ksusetim_addr;
	}
	for (size_t i = 0; i < n_targets; i++) {
		struct process *p = &procs[i];
		p->t = &ts[i];
		p->execs_seen = ts[i].execs;
		p->modules = modules_open(ts[i].pid);
		p->unwinder = p->modules ? unwinder_new(p->modules) : NULL;
		p->symbolizer = p->modules ? symbolizer_new(p->modules) : NULL;
		if (!p->unwinder || !p->symbolizer) {
			fprintf(stderr, "ptrace_profiler: cannot read the modules of process %d\n",
				(int)ts[i].pid);
			s.write_error = 1;
			goto out;
		}
	}

	uint64_t start = now_ns(), deadline = start, last_scan = start;
	uint64_t cpu_start = cpu_ns();
	uint64_t end = o->duration_ns ? start + o->duration_ns : UINT64_MAX;
	while (!*quit && any_alive(ts, n_targets) && !s.write_error) {
		if (o->count && r->rounds >= o->count)
			break;
		if (now_ns() >= end)
			break;
		for (size_t i = 0; i < n_targets && !*quit; i++) {
			struct process *p = &procs[i];
			s.t = p->t;
			s.modules = p->modules;
			s.unwinder = p->unwinder;
			s.symbolizer = p->symbolizer;
			for (size_t k = 0; k < p->t->n_threads && !*quit; k++)
				if (!p->t->threads[k].gone)
					sample_thread(&s, &p->t->threads[k]);
		}
		r->rounds++;
		if (o->count && r->rounds >= o->count)
			break;

		uint64_t now = now_ns();
		bool scan_due = now - last_scan >= SCAN_FALLBACK_NS, scanned = false;
		for (size_t i = 0; i < n_targets; i++) {
			struct process *p = &procs[i];
			/* The leader's stat, read anyway, counts the threads: the
			 * task directory is read only when that count or a thread's
			 * end says something changed. */
			bool scan = scan_due || (!p->t->n_only_tids && threads_changed(p->t));
			if (p->t->execs != p->execs_seen) {
				/* A new program image: new modules; its other
				 * threads are gone, the stack bounds are stale. */
				p->execs_seen = p->t->execs;
				modules_new_program(p->modules);
				for (size_t k = 0; k < p->t->n_threads; k++)
					p->t->threads[k].stack_low = p->t->threads[k].stack_top = 0;
				scan = true;
			}
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
out:
	for (size_t i = 0; procs && i < n_targets; i++) {
		symbolizer_free(procs[i].symbolizer);
		unwinder_free(procs[i].unwinder);
		modules_close(procs[i].modules);
	}
	free(procs);
	free(s.snap);
	return s.write_error ? -1 : 0;
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
	if (forwarded)
		fprintf(f, "  signals forwarded      %" PRIu64 "\n", forwarded);
}
