/* dump.c - the --dump mode: every thread of the -p processes once, as
 * eu-stack and pstack print them, plus the kernel stack, the state and,
 * where asked, the database's wait event.
 *
 * Each thread is looked at as a sample looks at it (sampler.h), with the
 * layers below directly: its state and kernel stack from /proc first; a
 * blocked thread read without a stop (sp and pc from /proc, its stack
 * copied, consistent when its run count did not move meanwhile) when its
 * stack unwinds from sp and pc alone; any other stopped only to copy its
 * registers and live stack, and let go at once.  A thread queued for a CPU
 * is copied when its trap comes; one that has not stopped 200 ms after
 * the last ask is shown from /proc alone, and said.  Unwinding happens
 * while the threads run again; naming, after detaching.
 */
#define _GNU_SOURCE
#include "cli/modes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/frame.h"
#include "base/priority.h"
#include "cli/session.h"
#include "db/oracle.h"
#include "db/pgstate.h"
#include "name/symbolize.h"
#include "sample/app.h"
#include "sample/decide.h"
#include "tracee/procfs.h"
#include "tracee/snapshot.h"
#include "tracee/target.h"
#include "unwind/files.h"
#include "unwind/modules.h"
#include "unwind/unwind.h"


enum look {
	LOOK_NONE,     /* no user stack to take (a zombie, or it exited) */
	LOOK_PEEKED,   /* blocked, read without a stop */
	LOOK_STOPPED,  /* stopped, copied, let go */
	LOOK_LATE,     /* asked to stop; no trap yet */
};

struct thread_look {
	struct thread *th;
	pid_t tid;
	char state;
	bool group_stop;                   /* our stop found it in a group stop */
	char comm[COMM_MAX];
	struct kernel_stack ks;            /* filtered, innermost first */
	enum look how;
	uint64_t began_ns;                 /* the interrupt */
	bool at_once;                      /* trapped while we spun */
	uint64_t frozen_ns;                /* what the stop cost it */
	int n_frames, complete;
	bool partial;                      /* frames from /proc's sp and pc alone: no stop came */
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	char app_state[160];               /* "event=IO:WALSync (PostgreSQL state)", or "" */
};

struct process_look {
	struct target *t;
	struct modules *m;
	struct unwinder *u;
	struct symbolizer *sym;
	struct pg_process pg;
	struct thread_look *threads;
	size_t n;
};

struct dump_run {
	const struct options *o;
	struct session *s;
	struct files *files;
	struct namer *namer;
	struct process_look *procs;
	size_t n_procs;
	struct snapshot *snap;
	size_t late;                       /* stops still pending */
};

/* After a copy: its application state, from the words read with it, in
 * a recording's words (pgstate.h, oracle.h). */
static void app_frame(struct dump_run *run, struct process_look *p, struct thread_look *tl)
{
	struct snapshot *snap = run->snap;
	uint32_t word = 0;
	if (run->o->ksuseopc_addr) {
		oracle_words_frame(snap->words_ok, snap->word[0], (int32_t)snap->word[1], run->s->names,
				   tl->app_state, sizeof(tl->app_state));
	} else if (run->o->pg_wait_events) {
		bool read = p->pg.server && snap->n_words && pg_word(&p->pg, p->t->pid, snap, &word) == 0;
		pg_state_frame(&p->pg, read, word, tl->app_state, sizeof(tl->app_state));
	}
}

/* The end of the mapping holding sp, so that the copy takes the live part
 * of the stack exactly; 0 when the maps read at the start do not say. */
static uint64_t stack_top(const struct process_look *p, uint64_t sp)
{
	uint64_t low, top;
	return modules_mapping_of(p->m, sp, &low, &top) == 0 ? top : 0;
}

static void unwind_copy(struct dump_run *run, struct process_look *p, struct thread_look *tl)
{
	tl->n_frames = unwind_snapshot(p->u, run->snap, tl->frames, UNWIND_MAX_FRAMES, &tl->complete);
	if (tl->n_frames < 0)
		tl->n_frames = 0;
}

/* A blocked thread without a stop: false when it must be stopped instead
 * (it ran while we read, or its unwind needs a register sp and pc do not
 * give). */
static bool peek(struct dump_run *run, struct process_look *p, struct thread_look *tl,
		 const struct sched_counts *before)
{
	struct blocked_syscall w;
	struct sched_counts after;
	if (thread_read_syscall(tl->th, &w) != 0)
		return false;
	app_words_for(run->o, &p->pg, run->snap);
	if (snapshot_peek(tl->tid, &w, stack_top(p, w.sp), run->snap) != 0 ||
	    thread_read_sched(p->t, tl->th, &after) != 0 || after.runs != before->runs)
		return false;
	unwind_copy(run, p, tl);
	if (!tl->complete) {
		tl->partial = true; /* kept, should the stop never come */
		return false;
	}
	app_frame(run, p, tl);
	tl->how = LOOK_PEEKED;
	return true;
}

/* A thread in our stop: its registers and live stack copied, let go at
 * once, then unwound while it runs. */
static void copy_and_resume(struct dump_run *run, struct process_look *p, struct thread_look *tl,
			    uint64_t seen_ns)
{
	struct snapshot *snap = run->snap;
	app_words_for(run->o, &p->pg, run->snap);
	bool copied = snapshot_regs(tl->tid, snap) == 0 &&
		      snapshot_stack(tl->tid, stack_top(p, snap->regs.rsp), snap) == 0;
	uint64_t resumed = now_ns();
	/* Detached from this very stop: one stop per thread, not a second
	 * one at the end to detach it. */
	thread_detach(p->t, tl->th);
	/* As a sample counts it: a thread on a CPU lost it from the
	 * interrupt, one that was not (blocked, queued) from its trap. */
	tl->frozen_ns = resumed - (tl->state == 'R' && tl->at_once ? tl->began_ns : seen_ns);
	tl->how = LOOK_STOPPED;
	tl->partial = false;
	tl->n_frames = 0;
	if (!copied)
		return;
	unwind_copy(run, p, tl);
	app_frame(run, p, tl);
}

static void stop_thread(struct dump_run *run, struct process_look *p, struct thread_look *tl)
{
	uint64_t seen;
	if (thread_interrupt(tl->th, &tl->began_ns) != 0)
		return; /* gone */
	switch (thread_wait_stop(p->t, tl->th, now_ns() + STOP_SPIN_NS, &seen)) {
	case STOP_OK:
		tl->at_once = true;
		tl->group_stop = tl->th->group_stop; /* (before the resume) */
		copy_and_resume(run, p, tl, seen);
		break;
	case STOP_PENDING:
		tl->how = LOOK_LATE; /* queued for a CPU: its trap comes when it gets one */
		run->late++;
		break;
	case STOP_GONE:
		break;
	}
}

/* One thread: /proc first (a stop would change what it says), then a
 * look without a stop, or a stop. */
static void look_at(struct dump_run *run, struct process_look *p, struct thread_look *tl)
{
	struct task_stat st;
	if (thread_read_stat(tl->th, &st) != 0)
		return; /* exited since we attached */
	tl->state = st.state;
	snprintf(tl->comm, sizeof(tl->comm), "%s", st.comm);
	thread_read_kernel_stack(p->t, tl->th, &tl->ks);
	kernel_stack_filter(&tl->ks);
	if (st.state == 'Z' || st.state == 'X')
		return; /* no user stack left */
	struct sched_counts sc;
	bool runs_known = thread_read_sched(p->t, tl->th, &sc) == 0;
	if ((st.state == 'S' || st.state == 'D') && runs_known && peek(run, p, tl, &sc))
		return;
	stop_thread(run, p, tl);
}

/* targets_wait_until's callback: the trap of a thread queued for a CPU. */
static void on_trap(void *arg, struct target *t, struct thread *th, uint64_t seen_ns)
{
	struct dump_run *run = arg;
	for (size_t i = 0; i < run->n_procs; i++) {
		struct process_look *p = &run->procs[i];
		for (size_t k = 0; p->t == t && k < p->n; k++)
			if (p->threads[k].th == th && p->threads[k].how == LOOK_LATE) {
				run->late--;
				copy_and_resume(run, p, &p->threads[k], seen_ns);
				return;
			}
	}
	thread_resume(t, th); /* not one we wait for */
}

/* Threads asked to stop that exited instead: nothing more to wait for. */
static void forget_gone(struct dump_run *run)
{
	for (size_t i = 0; i < run->n_procs; i++)
		for (size_t k = 0; k < run->procs[i].n; k++) {
			struct thread_look *tl = &run->procs[i].threads[k];
			if (tl->how == LOOK_LATE && (tl->th->gone || !tl->th->stop_pending)) {
				tl->how = LOOK_NONE;
				run->late--;
			}
		}
}

/* Every thread of every process; then the traps of those queued for a
 * CPU, until STOP_LATE_NS (target.h) after the last ask. */
static void look_at_all(struct dump_run *run)
{
	for (size_t i = 0; i < run->n_procs; i++)
		for (size_t k = 0; k < run->procs[i].n; k++)
			look_at(run, &run->procs[i], &run->procs[i].threads[k]);
	uint64_t deadline = now_ns() + STOP_LATE_NS;
	volatile int never = 0;
	while (run->late && now_ns() < deadline && !*run->s->quit) {
		/* In slices: it returns only at its deadline (or on a flag),
		 * and the last trap, a thread that exited meanwhile and a stop
		 * signal must all end the wait. */
		uint64_t slice = now_ns() + 5000000ULL;
		targets_wait_until(run->s->ts, run->s->n, slice < deadline ? slice : deadline, &never,
				   on_trap, run);
		forget_gone(run);
	}
}

/* A process's modules, unwinder and names; its thread list. */
static int open_process(struct dump_run *run, struct process_look *p, struct target *t)
{
	p->t = t;
	p->m = modules_open(run->files, t->pid);
	p->u = p->m ? unwinder_new(p->m) : NULL;
	p->sym = p->m ? symbolizer_new(run->namer, p->m) : NULL;
	p->threads = calloc(t->n_threads ? t->n_threads : 1, sizeof(*p->threads));
	if (!p->u || !p->sym || !p->threads)
		return -1;
	for (size_t k = 0; k < t->n_threads; k++) {
		if (t->threads[k].gone)
			continue;
		struct thread_look *tl = &p->threads[p->n++];
		tl->th = &t->threads[k];
		tl->tid = t->threads[k].tid;
		tl->comm[0] = '\0'; /* from its stat, when it is looked at */
	}
	char msg[256];
	if (run->o->pg_wait_events &&
	    pg_probe(t->pid, p->m, &p->pg, msg, sizeof(msg)) != PG_PROBE_SERVER && msg[0])
		fprintf(stderr, "ptrace_profiler: process %d: %s\n", (int)t->pid, msg);
	return 0;
}

static int open_run(struct dump_run *run, struct session *s)
{
	static struct snapshot snap; /* large: not on the stack */
	const struct options *o = s->o;
	run->o = o;
	run->s = s;
	run->snap = &snap;
	struct symbolize_options so = { .inline_frames = !o->no_inline, .lines = true,
					.addresses = o->addresses };
	run->files = files_new(o->debuginfo_path);
	run->namer = run->files ? namer_new(&so) : NULL;
	run->procs = calloc(s->n ? s->n : 1, sizeof(*run->procs));
	if (!run->namer || !run->procs)
		return -1;
	for (size_t i = 0; i < s->n; i++, run->n_procs++)
		if (open_process(run, &run->procs[i], &s->ts[i]) != 0)
			return -1;
	return 0;
}

static void close_run(struct dump_run *run)
{
	for (size_t i = 0; i < run->n_procs; i++) {
		struct process_look *p = &run->procs[i];
		symbolizer_free(p->sym);
		unwinder_free(p->u);
		modules_close(p->m);
		free(p->threads);
	}
	free(run->procs);
	namer_free(run->namer);
	files_free(run->files);
}

/* --- printing ------------------------------------------------------------ */

/* "libc.so.6" for a frame's address, "[vdso]", or "" in no module. */
static const char *module_of(struct process_look *p, const struct unwound_frame *fr, char *out,
			     size_t outsz)
{
	uint64_t addr = fr->kind == FRAME_CALL && fr->ip ? fr->ip - 1 : fr->ip;
	const struct module_image *img = modules_at(p->m, addr);
	out[0] = '\0';
	if (img)
		frame_module_name(img->name, out, outsz);
	size_t n = strlen(out);
	if (n >= 2 && out[0] == '[' && out[n - 1] == ']' && strcmp(out, "[vdso]") != 0) {
		memmove(out, out + 1, n - 2); /* "[libc.so.6]" -> "libc.so.6" */
		out[n - 2] = '\0';
	}
	return out;
}

size_t dump_frame_line(char *out, size_t outsz, int idx, uint64_t ip, const char *name,
		       const char *module)
{
	size_t len = strlen(name);
	bool inlined = len > 4 && strcmp(name + len - 4, "_[i]") == 0;
	int n = snprintf(out, outsz, "    #%-3d 0x%016" PRIx64 " %.*s%s%s%s\n", idx, ip,
			 (int)(inlined ? len - 4 : len), name, inlined ? " [inlined]" : "",
			 module[0] ? " in " : "", module);
	return n < 0 ? 0 : (size_t)n < outsz ? (size_t)n : outsz - 1;
}

/* One unwound address: the function, and the functions inlined into it
 * down to the address, innermost first, eu-stack -i's way. */
static int print_address(FILE *f, struct process_look *p, const struct unwound_frame *fr, int idx)
{
	const char *const *names;
	size_t n = symbolize(p->sym, fr->ip, fr->kind, &names);
	char module[256], line[2048];
	module_of(p, fr, module, sizeof(module));
	for (size_t k = n; k-- > 0;) {
		dump_frame_line(line, sizeof(line), idx++, fr->ip, names[k], module);
		fputs(line, f);
	}
	return idx;
}

static const char *how_seen(const struct thread_look *tl, char *out, size_t outsz)
{
	switch (tl->how) {
	case LOOK_PEEKED:
		return "read without a stop";
	case LOOK_STOPPED:
		snprintf(out, outsz, "stopped %.1f us", (double)tl->frozen_ns / 1e3);
		return out;
	case LOOK_LATE:
		return "not stopped within 200 ms: shown from /proc";
	case LOOK_NONE:
		break;
	}
	return tl->state == 'Z' || tl->state == 'X' ? "no user stack" : "gone before it was seen";
}

static void print_thread(FILE *f, struct process_look *p, const struct thread_look *tl)
{
	char comm[COMM_MAX * 2], how[64];
	frame_sanitize(tl->comm, comm, sizeof(comm));
	/* a SIGSTOPped thread, seized, reads 't': said as a recording says
	 * it (decide.h), "T (stopped)", not "t (tracing stop)" */
	bool stopped = tl->group_stop && (tl->state == 't' || tl->state == 'T');
	fprintf(f, "TID %d (%s) %s", (int)tl->tid, comm,
		stopped ? reported_state(tl->state, true, false) : state_description(tl->state));
	if (tl->app_state[0])
		fprintf(f, ", %s", tl->app_state);
	fprintf(f, ", %s\n", how_seen(tl, how, sizeof(how)));
	for (int i = 0; i < tl->ks.depth; i++) {
		char clean[KSYM_MAX];
		frame_sanitize(tl->ks.frame[i], clean, sizeof(clean));
		fprintf(f, "    [k]  %s\n", clean);
	}
	int idx = 0;
	for (int i = 0; i < tl->n_frames; i++)
		idx = print_address(f, p, &tl->frames[i], idx);
	if ((tl->how == LOOK_PEEKED || tl->how == LOOK_STOPPED) && !tl->n_frames)
		fputs("    (no user stack could be copied)\n", f);
	else if (tl->n_frames && tl->partial)
		fputs("    (from /proc's sp and pc alone: the frames beyond need registers only a stop gives)\n", f);
	else if (tl->n_frames && !tl->complete)
		fputs("    (the unwind stopped here, short of the outermost frame)\n", f);
}

static void print_dump(FILE *f, struct dump_run *run)
{
	for (size_t i = 0; i < run->n_procs; i++) {
		struct process_look *p = &run->procs[i];
		char comm[COMM_MAX * 2];
		frame_sanitize(p->t->comm, comm, sizeof(comm));
		fprintf(f, "%sPID %d (%s), %zu thread%s\n", i ? "\n" : "", (int)p->t->pid, comm, p->n,
			p->n == 1 ? "" : "s");
		for (size_t k = 0; k < p->n; k++)
			print_thread(f, p, &p->threads[k]);
	}
}

/* One line on stderr: what the look cost the target. */
static void summary(const struct dump_run *run, uint64_t attached_ns, uint64_t naming_ns)
{
	size_t threads = 0, peeked = 0, stopped = 0, late = 0;
	uint64_t frozen = 0, max = 0;
	for (size_t i = 0; i < run->n_procs; i++)
		for (size_t k = 0; k < run->procs[i].n; k++) {
			const struct thread_look *tl = &run->procs[i].threads[k];
			threads++;
			peeked += tl->how == LOOK_PEEKED;
			late += tl->how == LOOK_LATE;
			if (tl->how != LOOK_STOPPED)
				continue;
			stopped++;
			frozen += tl->frozen_ns;
			max = tl->frozen_ns > max ? tl->frozen_ns : max;
		}
	char cost[96] = "";
	if (stopped)
		snprintf(cost, sizeof(cost), " (%.1f us each on average, at most %.1f us)",
			 (double)frozen / (double)stopped / 1e3, (double)max / 1e3);
	fprintf(stderr, "ptrace_profiler: %zu thread%s of %zu process%s: %zu read without a stop, "
		"%zu stopped%s, %zu not stopped in time; attached %.1f ms, naming %.1f ms\n", threads,
		threads == 1 ? "" : "s", run->n_procs, run->n_procs == 1 ? "" : "es", peeked, stopped,
		cost, late, (double)attached_ns / 1e6, (double)naming_ns / 1e6);
}

int mode_dump(const struct options *o, const char *command)
{
	struct session s;
	uint64_t t0 = now_ns();
	int status = session_start(&s, o, command);
	if (status != 0)
		return status;
	static struct dump_run run;
	int rc = open_run(&run, &s);
	/* While threads are stopped, wake up on time, as the sampler does. */
	struct priority_report pr;
	priority_for_sampling(&pr);
	if (rc == 0)
		look_at_all(&run);
	session_detach(&s);
	priority_for_naming();
	uint64_t t1 = now_ns();
	if (rc != 0) {
		fprintf(stderr, "ptrace_profiler: out of memory, or a process's maps could not be read\n");
	} else {
		session_naming(&s, run.namer, true); /* a second stop signal: [module] names */
		print_dump(s.out, &run); /* names are read here, the targets let go */
		session_naming(&s, run.namer, false);
		if (fflush(s.out) != 0 || ferror(s.out)) {
			fprintf(stderr, "ptrace_profiler: cannot write the dump: %s\n", strerror(errno));
			rc = -1;
		}
		summary(&run, t1 - t0, now_ns() - t1);
	}
	close_run(&run);
	return session_end(&s, rc);
}
