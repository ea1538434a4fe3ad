/* sampler.c - the tick loop.
 *
 * Per tick and thread: read state and kernel stack from /proc while the
 * thread runs (once it is stopped they would describe our stop), stop it,
 * copy registers and live stack, resume it, and only then unwind, name and
 * count.  Ticks are absolute deadlines; one that has already passed when
 * the previous round ends is skipped and counted, never made up.
 */
#define _GNU_SOURCE
#include "sampler.h"

#include <inttypes.h>
#include <stdbool.h>
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
	int n_ips, complete;
	uint64_t ips[UNWIND_MAX_FRAMES];
};

#define SCAN_INTERVAL_NS 100000000ULL /* look for new threads 10x/s */
#define KFRAME_MAX (KSYM_MAX + 8)

struct sampler {
	const struct options *o;
	const struct event_names *names;
	struct target *t;
	struct stack_table *table;
	FILE *out;
	struct sampler_result *r;
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

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
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
	struct blocked_syscall where;
	/* An unwind that failed (a library not known yet) is not kept: the
	 * next tick stops the thread and tries again. */
	if (!complete || syscall_of_regs(&snap->regs, &where) != 0) {
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

	uint64_t ips[UNWIND_MAX_FRAMES];
	const char *user[UNWIND_MAX_FRAMES];
	int n_ips = 0, complete = 0;
	uint64_t t1;
	bool asleep = st.state == 'S' || st.state == 'D';
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
		uint64_t t0 = now_ns();
		if (thread_stop(s->t, th) != STOP_OK)
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
		.thread = comm,
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

int sampler_run(const struct options *o, struct target *t,
		const struct event_names *names, struct stack_table *table,
		FILE *out, volatile int *quit, struct sampler_result *r)
{
	struct sampler s = { .o = o, .names = names, .t = t, .table = table, .out = out, .r = r };
	memset(r, 0, sizeof(*r));
	s.snap = malloc(sizeof(*s.snap));
	if (s.snap && o->ksuseopc_addr) {
		s.snap->n_words = 2;
		s.snap->word_addr[0] = o->ksuseopc_addr;
		s.snap->word_addr[1] = o->ksusetim_addr;
	} else if (s.snap) {
		s.snap->n_words = 0;
	}
	s.modules = modules_open(t->pid);
	s.unwinder = s.modules ? unwinder_new(s.modules) : NULL;
	s.symbolizer = s.modules ? symbolizer_new(s.modules) : NULL;
	if (!s.snap || !s.unwinder || !s.symbolizer) {
		fprintf(stderr, "ptrace_profiler: cannot read the modules of process %d\n",
			(int)t->pid);
		s.write_error = 1;
		goto out;
	}

	uint64_t start = now_ns(), deadline = start, last_scan = start;
	unsigned execs_seen = t->execs;
	uint64_t end = o->duration_ns ? start + o->duration_ns : UINT64_MAX;
	while (!*quit && !t->exited && !s.write_error) {
		if (o->count && r->rounds >= o->count)
			break;
		if (now_ns() >= end)
			break;
		for (size_t i = 0; i < t->n_threads && !*quit; i++)
			if (!t->threads[i].gone)
				sample_thread(&s, &t->threads[i]);
		r->rounds++;
		if (o->count && r->rounds >= o->count)
			break;

		uint64_t now = now_ns();
		if (t->execs != execs_seen) {
			/* A new program image: new modules; its other threads
			 * are gone and the stack bounds are stale. */
			execs_seen = t->execs;
			modules_new_program(s.modules);
			for (size_t i = 0; i < t->n_threads; i++)
				t->threads[i].stack_low = t->threads[i].stack_top = 0;
			last_scan = 0;
		}
		if (now - last_scan >= SCAN_INTERVAL_NS) {
			target_scan_threads(t);
			last_scan = now;
		}
		deadline += o->interval_ns;
		if (now >= deadline) {
			uint64_t missed = (now - deadline) / o->interval_ns + 1;
			r->skipped_ticks += missed;
			deadline += missed * o->interval_ns;
		}
		target_wait_until(t, deadline < end ? deadline : end, quit);
	}
	r->wall_ns = now_ns() - start;
out:
	symbolizer_free(s.symbolizer);
	unwinder_free(s.unwinder);
	modules_close(s.modules);
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
			   const struct target *t, const struct sampler_result *r)
{
	double wall_s = (double)r->wall_ns / 1e9;
	double asked = 1e9 / (double)o->interval_ns;
	double achieved = wall_s > 0 ? (double)r->rounds / wall_s : 0;
	fprintf(f, "ptrace_profiler: process %d, %" PRIu64 " rounds in %.3f s, %" PRIu64
		" thread samples\n", (int)t->pid, r->rounds, wall_s, r->samples);
	fprintf(f, "  rate                   asked %.1f/s, achieved %.1f/s (%.0f%%), skipped ticks %" PRIu64 "\n",
		asked, achieved, asked > 0 ? 100.0 * achieved / asked : 0, r->skipped_ticks);
	for (size_t i = 0; i < t->n_threads; i++)
		fprintf(f, "  thread %-7d %-15s %" PRIu64 " samples\n", (int)t->threads[i].tid,
			t->threads[i].comm, t->threads[i].samples);
	fprintf(f, "  unwind failures        %" PRIu64 " of %" PRIu64 " samples\n",
		r->unwind_failures, r->samples);
	fprintf(f, "  not stopped            %" PRIu64 " samples (blocked where the previous sample found them)\n",
		r->unstopped);
	fprintf(f, "  target stopped         %.3f ms in total, %.3f%% of wall time\n",
		(double)r->frozen.total_ns / 1e6,
		r->wall_ns ? 100.0 * (double)r->frozen.total_ns / (double)r->wall_ns : 0);
	print_hist(f, "stopped per sample", &r->frozen);
	print_hist(f, "work per sample", &r->work);
	if (t->signals_forwarded)
		fprintf(f, "  signals forwarded      %" PRIu64 "\n", t->signals_forwarded);
}
