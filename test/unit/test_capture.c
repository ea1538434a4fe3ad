#define _GNU_SOURCE
/* Unit tests: capture.c (peeks, stops, pending stops, traps collected
 * later, threads that end with a stop pending) against a fake target.
 *
 * capture.c calls the tracee layer (target.h, snapshot.h) and the
 * unwinder directly.  This binary is linked with ld's --wrap for every
 * __wrap_ function defined below (the Makefile's unit_wraps): capture's
 * calls land here and are answered from a script - no ptrace, no /proc of
 * a traced thread.  A table of function pointers in capture.c would do
 * the same at the price of an indirection on every call and a table to
 * keep in step with target.h, for the sake of a test; the link costs the
 * production code nothing.
 *
 * Everything above the fake is real: the sampler sampler_new makes for
 * this very process, decide.c's memory, count.c's counting into the
 * program's stacks - named by this binary's own symbols, so a sample's
 * user frame says which stack it was counted with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/clock.h"
#include "base/frame.h"
#include "profile/aggregate.h"
#include "profile/program.h"
#include "sample/app.h"
#include "sample/capture.h"
#include "sample/count.h"
#include "sample/owed.h"
#include "sample/round.h"
#include "sample/records.h"
#include "tracee/snapshot.h"
#include "tracee/target.h"
#include "unwind/unwind.h"

#define FAKE_TID 99999999 /* above pid_max: /proc has nothing of it */
#define SLEEP_SP 0x7ffd10000000ULL
#define TRAP_SP 0x7ffd20000000ULL

/* Where the fake thread's user code is: functions of this binary, each
 * its own body (identical ones may be folded into one). */
static volatile int sink;
__attribute__((noinline)) void peeked_place(void) { sink = 1; }
__attribute__((noinline)) void old_place(void) { sink = 2; }
__attribute__((noinline)) void trap_place(void) { sink = 3; }
__attribute__((noinline)) void running_place(void) { sink = 4; }
__attribute__((noinline)) void fp_place(void) { sink = 5; }     /* its caller found by rbp */
__attribute__((noinline)) void fp_caller(void) { sink = 6; }    /* that caller */
__attribute__((noinline)) void other_caller(void) { sink = 7; } /* read through a wrong rbp */

static uint64_t address_of(void (*fn)(void))
{
	return (uint64_t)(uintptr_t)fn;
}

/* --- the fake target ------------------------------------------------- */

static struct {
	/* the script */
	uint64_t runs;              /* its run count, as schedstat says */
	uint64_t runs_while_peeked; /* added while a peek copies: it ran */
	struct blocked_syscall where; /* where it waits, for a peek */
	uint64_t trap_pc;           /* where it is when it traps */
	uint64_t trap_sp;           /* and its sp there (0: TRAP_SP) */
	uint8_t stack_salt;         /* its locals: other bytes, same frames */
	bool copies_ahead;          /* snapshot_copy_ahead reads it (else fails,
				       as for a thread of no process) */
	int copied_ahead;           /* how many times it did */
	uint64_t rbp;               /* its rbp now: at fp_place, the unwind
				       finds fp_caller with it, other_caller
				       with any other */
	bool traps_at_once;         /* within thread_wait_stop's spin */
	bool trap_due;              /* thread_poll finds its trap */
	bool running_now;           /* on a CPU when its syscall is read */
	bool trap_in_wait;          /* it traps in its wait, aborted by us
				       (else in user code) */
	long trap_call;             /* or leaving this system call (> 0) */
	bool trap_on_yield;         /* targets_wait_for brings its trap */
	int yields;                 /* targets_wait_for called */
	struct kernel_stack kernel; /* /proc/.../stack, read at a pending tick */
	bool has_words;             /* its application words, when read: */
	uint32_t word[SNAPSHOT_WORDS]; /* word[0] Oracle's event number */
	uint32_t word_at_peek;      /* word[0] once a peek's copy begins (0: the same) */
	uint64_t runs_while_kernel_read; /* added while its kernel stack is read */
	/* what capture asked of it */
	int interrupts, waits, resumes, polls, nudges, peeks, copies;
	uint64_t spun_until;        /* thread_wait_stop's spin_until */
} fake;

int __wrap_thread_interrupt(struct thread *th, uint64_t *began_ns)
{
	fake.interrupts++;
	*began_ns = th->stop_asked_ns = th->stop_nudged_ns = now_ns();
	th->stop_pending = true;
	return 0;
}

enum stop_result __wrap_thread_wait_stop(struct target *t, struct thread *th, uint64_t spin_until,
					 uint64_t *seen_ns)
{
	(void)t;
	fake.waits++;
	fake.spun_until = spin_until;
	if (!fake.traps_at_once)
		return STOP_PENDING;
	th->stop_pending = false;
	*seen_ns = now_ns();
	return STOP_OK;
}

void __wrap_thread_resume(struct target *t, struct thread *th)
{
	(void)t;
	(void)th;
	fake.resumes++;
}

void __wrap_thread_poll(struct target *t, struct thread *th, trap_fn on_trap, void *arg)
{
	fake.polls++;
	if (!fake.trap_due || !th->stop_pending)
		return;
	fake.trap_due = false;
	th->stop_pending = false;
	on_trap(arg, t, th, now_ns());
}

void __wrap_targets_wait_for(struct target *ts, size_t n, const struct thread *th,
			     uint64_t deadline_ns, trap_fn on_trap, void *arg)
{
	(void)n;
	(void)deadline_ns;
	fake.yields++;
	if (!fake.trap_on_yield || !th->stop_pending)
		return;
	struct thread *t = (struct thread *)th;
	t->stop_pending = false;
	on_trap(arg, &ts[0], t, now_ns());
}

void __wrap_thread_nudge(struct thread *th, uint64_t now)
{
	(void)th;
	(void)now;
	fake.nudges++;
}

void __wrap_thread_read_kernel_stack(const struct target *t, struct thread *th,
				     struct kernel_stack *ks)
{
	(void)t;
	(void)th;
	*ks = fake.kernel;
	fake.runs += fake.runs_while_kernel_read;
}

/* Only where the threads resumed are now (placement is off here). */
int __wrap_thread_read_stat(struct thread *th, struct task_stat *st)
{
	(void)th;
	(void)st;
	return -1;
}

int __wrap_thread_read_syscall(struct thread *th, struct blocked_syscall *out)
{
	(void)th;
	if (fake.running_now)
		return -1; /* /proc/.../syscall says "running" */
	*out = fake.where;
	return 0;
}

int __wrap_thread_read_sched(struct target *t, struct thread *th, struct sched_counts *out)
{
	(void)t;
	(void)th;
	*out = (struct sched_counts){ .runs = fake.runs };
	return 0;
}

/* Stack bytes that differ with sp and pc, as a real copy's would. */
static void fill_stack(struct snapshot *s)
{
	s->stack_start = s->regs.rsp - SNAPSHOT_RED_ZONE;
	s->stack_len = 512;
	for (size_t i = 0; i < s->stack_len; i++)
		s->stack[i] = (uint8_t)(s->regs.rip >> (i % 8) ^ s->regs.rsp >> 12 ^ i ^
					fake.stack_salt);
}

int __wrap_snapshot_peek(pid_t tid, const struct blocked_syscall *where, uint64_t stack_top,
			 struct snapshot *s)
{
	(void)tid;
	(void)stack_top;
	fake.peeks++;
	memset(&s->regs, 0, sizeof(s->regs));
	s->regs.rsp = where->sp;
	s->regs.rip = where->pc;
	s->partial_regs = true;
	fill_stack(s);
	if (fake.word_at_peek)
		fake.word[0] = fake.word_at_peek;
	if (fake.has_words) { /* read with the stack, as the real peek does */
		memcpy(s->word, fake.word, sizeof(s->word));
		s->words_ok = 1;
		s->words_tid = tid;
	}
	fake.runs += fake.runs_while_peeked;
	return 0;
}

int __wrap_snapshot_copy_ahead(pid_t tid, uint64_t from, uint64_t stack_top, struct snapshot *s)
{
	(void)tid;
	if (!fake.copies_ahead)
		return -1;
	fake.copied_ahead++;
	s->regs.rsp = from + SNAPSHOT_RED_ZONE;
	s->regs.rip = fake.where.pc;
	fill_stack(s);
	s->stack_len = stack_top - from < 512 ? stack_top - from : 512;
	if (fake.has_words) {
		memcpy(s->word, fake.word, sizeof(s->word));
		s->words_ok = 1;
		s->words_tid = tid;
	}
	return 0;
}

int __wrap_snapshot_regs(pid_t tid, struct snapshot *s)
{
	(void)tid;
	memset(&s->regs, 0, sizeof(s->regs));
	s->regs.rsp = fake.trap_sp ? fake.trap_sp : TRAP_SP;
	s->regs.rip = fake.trap_pc;
	s->regs.rbp = fake.rbp;
	s->regs.orig_rax = (unsigned long long)-1; /* in no system call */
	if (fake.trap_call > 0) { /* on its way out of a call that returned */
		s->regs.orig_rax = (unsigned long long)fake.trap_call;
		s->regs.rax = 4096;
	}
	if (fake.trap_in_wait) { /* nanosleep, aborted: the kernel will restart it */
		s->regs.orig_rax = 35;
		s->regs.rax = (unsigned long long)-516; /* -ERESTART_RESTARTBLOCK */
	}
	s->partial_regs = false;
	return 0;
}

int __wrap_snapshot_stack(pid_t tid, uint64_t stack_top, struct snapshot *s)
{
	(void)tid;
	(void)stack_top;
	fake.copies++;
	fill_stack(s);
	if (fake.has_words) { /* read with the stack, as the real copy does */
		memcpy(s->word, fake.word, sizeof(s->word));
		s->words_ok = 1;
		s->words_tid = tid;
	}
	return 0;
}

int __wrap_snapshot_read_words(pid_t tid, struct snapshot *s)
{
	(void)tid;
	if (!fake.has_words)
		return 0;
	memcpy(s->word, fake.word, sizeof(s->word));
	s->words_ok = 1;
	s->words_tid = tid;
	return 0;
}

/* One frame, the copy's pc: the stack a sample is counted with names
 * where the copy was taken.  At fp_place, a frame-pointer frame: without
 * rbp incomplete, with the thread's rbp its caller fp_caller, with
 * another other_caller (return addresses read from other slots). */
int __wrap_unwind_snapshot(struct unwinder *u, const struct snapshot *s,
			   struct unwound_frame *frames, int max, int *complete)
{
	(void)u;
	(void)max;
	frames[0] = (struct unwound_frame){ s->regs.rip, FRAME_EXACT };
	*complete = 1;
	if (s->regs.rip != address_of(fp_place))
		return 1;
	if (s->partial_regs && !s->callee_saved) {
		*complete = 0;
		return 1;
	}
	void (*caller)(void) = s->regs.rbp == fake.rbp ? fp_caller : other_caller;
	frames[1] = (struct unwound_frame){ address_of(caller) + 1, FRAME_CALL };
	return 2;
}

/* --- the sampler over it --------------------------------------------- */

struct world {
	struct options o;
	struct sampler_result r;
	struct target t;
	struct thread th;
	size_t n_targets;
	struct stack_table *named;
	struct sampler *s;
	struct process *p;
	struct sampled_thread *st;
};

static int setup(void **state)
{
	memset(&fake, 0, sizeof(fake));
	struct world *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	w->o.interval_ns = 1000000;
	w->th = (struct thread){ .tid = FAKE_TID, .stat_fd = -1, .stack_fd = -1, .syscall_fd = -1,
				 .sched_fd = -1, .exec_fd = -1, .wchan_fd = -1 };
	w->t = (struct target){ .pid = getpid(), .kernel_stacks = true, .threads = &w->th,
				.n_threads = 1, .cap_threads = 1, .num_threads = -1 };
	w->n_targets = 1;
	w->named = stack_table_new();
	w->s = sampler_new(&w->o, &w->t, &w->n_targets, 1, NULL, w->named, NULL);
	if (!w->named || !w->s)
		return -1;
	w->s->r = &w->r;
	w->s->start_ns = now_ns();
	w->p = &w->s->procs[0];
	w->st = sampled_of(w->s, w->p, &w->th);
	if (!w->st)
		return -1;
	snprintf(w->st->comm, sizeof(w->st->comm), "worker");
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	sampler_free(w->s);
	stack_table_free(w->named);
	free(w);
	return 0;
}

/* A round as round_run begins it, without the looks (the test makes
 * capture's calls itself). */
static void round_begin(struct world *w)
{
	w->s->cur.number++;
	w->s->cur.committed = false;
	w->s->cur.tick_ns = w->s->cur.released_ns = now_ns();
}

static void round_over(struct world *w, uint64_t ticks)
{
	struct round_ticks rt = { .stands_for = ticks };
	round_end(w->s, &rt, now_ns());
}

/* A kernel stack as /proc prints it: innermost first. */
static struct kernel_stack kernel_stack(const char *inner, const char *outer)
{
	struct kernel_stack ks = { .depth = 2 };
	snprintf(ks.frame[0], KSYM_MAX, "%s", inner);
	snprintf(ks.frame[1], KSYM_MAX, "%s", outer);
	return ks;
}

/* The look at a blocked thread, as round.c defers it for a peek. */
static struct blocked_look look_at_sleeper(struct world *w, uint64_t runs)
{
	/* as round.c's look: its state and run count; the peek reads the
	 * rest, its kernel frames those of nanosleep */
	struct blocked_look d = { .ref = thread_ref_of(w->s, w->p, &w->th), .state = 'S',
				   .runs_known = true, .sc = { .runs = runs } };
	fake.kernel = kernel_stack("do_nanosleep", "hrtimer_nanosleep");
	return d;
}

/* A round in which the thread is seen asleep in nanosleep at
 * peeked_place, at its run count now: the look. */
static struct blocked_look asleep_at_peeked_place(struct world *w)
{
	fake.where = (struct blocked_syscall){ .nr = 35, .sp = SLEEP_SP,
					       .pc = address_of(peeked_place) };
	round_begin(w);
	return look_at_sleeper(w, fake.runs);
}

/* The same, and it runs while its peek copies. */
static struct blocked_look asleep_then_ran_while_peeked(struct world *w)
{
	fake.runs = 5;
	fake.runs_while_peeked = 1;
	return asleep_at_peeked_place(w);
}

/* A thread asleep at pc, peeked at and counted (a round of its own). */
static void peeked_asleep_at(struct world *w, uint64_t pc)
{
	fake.where = (struct blocked_syscall){ .nr = 35, .sp = SLEEP_SP, .pc = pc };
	round_begin(w);
	struct blocked_look d = look_at_sleeper(w, fake.runs);
	assert_true(capture_peek(w->s, w->p, &w->th, w->st, &d));
	round_over(w, 1);
}

/* A thread R queued for a CPU, asked to stop: not waited for. */
static void stop_queued(struct world *w)
{
	struct stop_request rq = { .state = 'R', .on_cpu = false, .running = false,
				   .runs_known = true, .sc = { .runs = fake.runs }, .wait = false };
	char no_kernel[1] = "";
	capture_stop(w->s, w->p, &w->th, w->st, &rq, no_kernel, 0);
}

struct lookup {
	const char *want;
	uint64_t count, total;
	size_t distinct;
};

static void match_stack(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	struct lookup *l = arg;
	char text[4096] = "";
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(text, ";");
		strncat(text, frames[i], sizeof(text) - strlen(text) - 2);
	}
	if (strcmp(text, l->want) == 0)
		l->count = count;
	l->total += count;
	l->distinct++;
}

/* The samples counted with the folded stack want so far, named now. */
static uint64_t counted(struct world *w, const char *want)
{
	assert_int_equal(program_name_now(w->p->program), 0);
	struct lookup l = { want, 0, 0, 0 };
	stack_table_visit_sorted(w->named, match_stack, &l);
	return l.count;
}

/* Every sample counted so far, in all stacks. */
static uint64_t counted_in_all(struct world *w)
{
	assert_int_equal(program_name_now(w->p->program), 0);
	struct lookup l = { "", 0, 0, 0 };
	stack_table_visit_sorted(w->named, match_stack, &l);
	return l.total;
}

/* --- the tests --------------------------------------------------------- */

/* Blocked, its run count the same before and after the copy: counted
 * without a stop, for every tick of its round, with the stack the peek
 * read and the kernel frames of the look. */
static void peek_consistent_is_counted_without_a_stop(void **state)
{
	struct world *w = *state;
	fake.runs = 5;
	struct blocked_look d = asleep_at_peeked_place(w);
	assert_true(capture_peek(w->s, w->p, &w->th, w->st, &d));
	assert_int_equal(fake.peeks, 1);
	assert_int_equal(fake.interrupts, 0);
	assert_int_equal(fake.resumes, 0);
	round_over(w, 3);
	assert_int_equal(w->r.peeked, 1);
	assert_int_equal(w->r.samples, 3);
	assert_int_equal(w->st->counts.samples, 3);
	assert_int_equal(w->st->counts.on_cpu, 0);
	assert_int_equal(counted(w, "worker;S (sleeping);peeked_place;"
				    "hrtimer_nanosleep_[k];do_nanosleep_[k]"), 3);
	assert_int_equal(counted_in_all(w), 3);
	/* proven current at that run count: reusable while it stays */
	assert_true(w->st->memory->verified);
	assert_int_equal(w->st->memory->runs_verified, 5);
}

/* Ticks due while its round ran, read again then (round.c's passes):
 * one that found it not run since its look is the look's, with its
 * stack; one that found it asleep after it ran is counted asleep then,
 * without a stack (its sleep was never read); one that found it R after
 * it ran is owed to its next stop. */
static void ticks_read_again_mid_round(void **state)
{
	struct world *w = *state;
	fake.runs = 5;
	struct blocked_look d = asleep_at_peeked_place(w);
	assert_true(capture_peek(w->s, w->p, &w->th, w->st, &d));
	struct sampled_thread *st = w->st;
	st->reads.look_round = w->s->cur.number;
	st->reads.look_sc = (struct sched_counts){ .run_ns = 700, .runs = 5 };
	st->reads.mid_round = w->s->cur.number;
	st->reads.n_mid = 3;
	st->reads.mid[0] = (struct mid_tick){ .sc = { .run_ns = 700, .runs = 5 }, .state = 'S', .at_ns = 1 };
	st->reads.mid[1] = (struct mid_tick){ .sc = { .run_ns = 900, .runs = 6 }, .state = 'S', .at_ns = 2 };
	st->reads.mid[2] = (struct mid_tick){ .sc = { .run_ns = 900, .runs = 7 }, .state = 'R',
					.on_cpu = true, .at_ns = 3 };
	round_over(w, 4);
	assert_int_equal(counted(w, "worker;S (sleeping);peeked_place;"
				    "hrtimer_nanosleep_[k];do_nanosleep_[k]"), 2);
	assert_int_equal(counted(w, "worker;S (sleeping);" ASLEEP_UNREAD), 1);
	assert_int_equal(counted_in_all(w), 3); /* the R one waits for a stop */
	assert_true(owed_any(st));
	assert_int_equal(st->refused.owed->n, 1);
	assert_int_equal(st->refused.owed->e[0].kind, OWED_RUNNING);
	assert_int_equal(st->refused.owed->e[0].count, 1);
	assert_false(st->refused.owed->e[0].words_read); /* none read then: the stop's */
}

/* It ran while the stack was copied: the copy may mix two moments, and
 * no later read, by a peek or a stop, is of the tick.  Counted with the
 * state the look read, no user stack nor kernel frames (read after the
 * proof, they would be of its work), no stop; nothing remembered. */
static void peek_that_ran_meanwhile_has_no_user_stack(void **state)
{
	struct world *w = *state;
	struct blocked_look d = asleep_then_ran_while_peeked(w);
	assert_true(capture_peek(w->s, w->p, &w->th, w->st, &d));
	assert_int_equal(fake.peeks, 1);
	assert_int_equal(fake.interrupts, 0);
	round_over(w, 1);
	assert_int_equal(w->r.peeked, 0);
	assert_int_equal(w->r.no_user_stack, 1);
	assert_int_equal(w->r.samples, 1);
	assert_int_equal(w->st->counts.samples, 1);
	assert_int_equal(counted(w, "worker;S (sleeping)"), 1);
	assert_int_equal(counted(w, "worker;S (sleeping);peeked_place;"
				    "hrtimer_nanosleep_[k];do_nanosleep_[k]"), 0);
	assert_int_equal(counted_in_all(w), 1);
	assert_false(w->st->memory->valid);
}

/* Woken before its peek, on a CPU when its system call is read: the same,
 * without a copy at all. */
static void peek_of_a_thread_running_now_has_no_user_stack(void **state)
{
	struct world *w = *state;
	fake.runs = 6; /* the look read 5 */
	fake.running_now = true;
	round_begin(w);
	struct blocked_look d = look_at_sleeper(w, 5);
	assert_true(capture_peek(w->s, w->p, &w->th, w->st, &d));
	assert_int_equal(fake.peeks, 0);
	assert_int_equal(fake.interrupts, 0);
	round_over(w, 1);
	assert_int_equal(w->r.no_user_stack, 1);
	assert_int_equal(counted(w, "worker;S (sleeping)"), 1);
	/* its run count unmoved, a failed read is no proof: stopped instead,
	 * with the kernel frames of its wait */
	fake.runs = 5;
	round_begin(w);
	d = look_at_sleeper(w, 5);
	assert_false(capture_peek(w->s, w->p, &w->th, w->st, &d));
	assert_int_equal(d.n_kernel, 2);
	round_over(w, 1);
}

/* It ran while its kernel frames were read, after its stack was proven:
 * counted with its stack and without them (never with another moment's
 * kernel frames), and said in the summary's count. */
static void kernel_frames_read_after_it_woke_are_left_out(void **state)
{
	struct world *w = *state;
	fake.runs = 5;
	fake.runs_while_kernel_read = 1;
	struct blocked_look d = asleep_at_peeked_place(w);
	assert_true(capture_peek(w->s, w->p, &w->th, w->st, &d));
	round_over(w, 1);
	assert_int_equal(w->r.kernel_late, 1);
	assert_int_equal(w->r.peeked, 1);
	assert_int_equal(counted(w, "worker;S (sleeping);peeked_place"), 1);
	assert_int_equal(counted_in_all(w), 1);
}

/* A watch (switch_regs.h) while a thread switches at most 4 times a
 * tick, kept up to 8: pgbench -S's backends (15,000 a second) are
 * stopped at 10 ms rather than watched, an idle process always watched. */
static void a_watch_while_it_switches_little(void **state)
{
	(void)state;
	assert_true(capture_watch_worth(-1, 1e6, false));      /* not known yet */
	assert_true(capture_watch_worth(0.25, 1e6, false));    /* idle */
	assert_true(capture_watch_worth(4000, 1e6, false));    /* 4 a tick */
	assert_false(capture_watch_worth(6000, 1e6, false));   /* 6 */
	assert_true(capture_watch_worth(6000, 1e6, true));     /* kept */
	assert_false(capture_watch_worth(9000, 1e6, true));    /* let go */
	assert_false(capture_watch_worth(15000, 1e7, false));  /* 150 a tick */
	assert_true(capture_watch_worth(15000, 1e5, false));   /* 1.5 at 100 us */
}

/* A round that finds it on a CPU in running_place and stops it there:
 * when the stop was asked. */
static uint64_t stop_it_running(struct world *w)
{
	fake.runs = 7;
	fake.traps_at_once = true;
	fake.trap_pc = address_of(running_place);
	round_begin(w);
	uint64_t asked = now_ns();
	struct stop_request rq = { .state = 'R', .on_cpu = true, .running = true,
				   .runs_known = true, .sc = { .runs = 7 }, .wait = true };
	char no_kernel[1] = "";
	capture_stop(w->s, w->p, &w->th, w->st, &rq, no_kernel, 0);
	return asked;
}

/* On a CPU at the tick, it traps while we spin: copied and resumed
 * before capture_stop returns, counted R (running) with what it ran. */
static void running_thread_is_copied_and_resumed_at_once(void **state)
{
	struct world *w = *state;
	uint64_t asked = stop_it_running(w);
	assert_int_equal(fake.interrupts, 1);
	assert_int_equal(fake.waits, 1);
	assert_true(fake.spun_until > asked); /* it was waited for */
	assert_int_equal(fake.copies, 1);
	assert_int_equal(fake.resumes, 1);
	assert_null(w->st->pending);
	assert_int_equal(w->s->stops.unsettled, 0);
	assert_int_equal(w->r.queued, 0);
	assert_int_equal(w->r.frozen.count, 1);
	round_over(w, 1);
	assert_int_equal(w->r.samples, 1);
	assert_int_equal(w->st->counts.samples, 1);
	assert_int_equal(w->st->counts.on_cpu, 1);
	assert_int_equal(counted(w, "worker;R (running);running_place"), 1);
	assert_int_equal(counted_in_all(w), 1);
}

/* Stops from another CPU that keep catching it at the end of a system
 * call: past half of them (8 at least), the sampler follows it to its
 * CPU (placement.h); stops that find it in user code never do. */
static void a_thread_caught_leaving_calls_is_followed(void **state)
{
	struct world *w = *state;
	w->s->placement.on = w->s->placement.can_follow = true;
	for (int i = 0; i < 8; i++) { /* in user code: not followed */
		stop_it_running(w);
		round_over(w, 1);
	}
	assert_false(w->st->follow.on);
	fake.trap_call = SYS_pread64;
	for (int i = 0; i < 8; i++) {
		stop_it_running(w);
		round_over(w, 1);
	}
	assert_false(w->st->follow.on); /* 8 of 16: not past half */
	stop_it_running(w);
	round_over(w, 1);
	assert_true(w->st->follow.on); /* 9 of 17 */
	assert_int_equal(w->r.followed_threads, 1);
}

/* Followed, preempted by our tick on its CPU while leaving pread: the
 * stop is asked and we sleep for its trap at once (it waits only for
 * the CPU we hold); the sample is R (running), the call its kernel frame
 * in place of the way out, which is our preemption. */
static void a_followed_thread_is_caught_in_its_call(void **state)
{
	struct world *w = *state;
	w->st->follow.on = true;
	fake.runs = 7;
	fake.trap_pc = address_of(trap_place);
	fake.trap_call = SYS_pread64;
	fake.trap_on_yield = true;
	round_begin(w);
	struct kernel_stack ks = { .depth = 3 };
	snprintf(ks.frame[0], KSYM_MAX, "exit_to_user_mode_loop");
	snprintf(ks.frame[1], KSYM_MAX, "do_syscall_64");
	snprintf(ks.frame[2], KSYM_MAX, "entry_SYSCALL_64_after_hwframe");
	char kernel[MEMORY_KERNEL_BYTES];
	int n = count_kernel_frames(&ks, kernel, sizeof(kernel));
	struct stop_request rq = { .state = 'R', .on_cpu = true, .running = false,
				   .runs_known = true, .sc = { .runs = 7 }, .yield = true };
	capture_stop(w->s, w->p, &w->th, w->st, &rq, kernel, n);
	assert_int_equal(fake.yields, 0); /* not before the round's looks */
	assert_non_null(w->st->pending);
	capture_yield(w->s);
	assert_int_equal(fake.yields, 1);
	assert_int_equal(fake.spun_until, 0); /* no spin: it cannot run while we do */
	assert_null(w->st->pending);
	assert_int_equal(fake.resumes, 1);
	assert_int_equal(w->r.queued, 0); /* not queued: ours */
	round_over(w, 1);
	assert_int_equal(counted(w, "worker;R (running);trap_place;"
				    "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];"
				    "__x64_sys_pread64_[k]"), 1);
	assert_int_equal(counted_in_all(w), 1);
	/* not followed: no sleep for it, its trap comes later */
	w->st->follow.on = false;
	fake.yields = 0;
	round_begin(w);
	rq.yield = false;
	capture_stop(w->s, w->p, &w->th, w->st, &rq, kernel, n);
	capture_yield(w->s);
	assert_int_equal(fake.yields, 0);
	assert_non_null(w->st->pending);
}

/* Ticks that fell while our stop held it: counted as the stop saw it
 * (R, the stack it copied), never as our stop, and not as time on a CPU,
 * which its schedstat does not count: R (runnable). */
static void ticks_held_by_our_stop_are_what_it_saw(void **state)
{
	struct world *w = *state;
	uint64_t before = stop_it_running(w);
	/* the round stood for 3 ticks; 2 fell due while it was held, one
	 * after it was let go */
	struct round_ticks rt = { .stands_for = 3, .n_timed = 2,
				  .timed_ns = { w->st->frozen.from_ns, now_ns() + 1000000 } };
	assert_true(w->st->frozen.from_ns >= before);
	round_end(w->s, &rt, now_ns());
	assert_int_equal(w->r.samples, 3);
	assert_int_equal(counted(w, "worker;R (running);running_place"), 2);
	assert_int_equal(counted(w, "worker;R (runnable);running_place"), 1);
	assert_int_equal(counted_in_all(w), 3);
	assert_int_equal(w->st->counts.samples, 3);
	assert_int_equal(w->st->counts.on_cpu, 2); /* the held one is not */
}

/* Queued for a CPU: asked, not waited for; its ticks wait in the pending
 * stop - the ticks its round stands for, and a later tick's with the
 * kernel frames read then - and are counted, all of them, with the stack
 * its trap brings, never with the one an earlier sample left. */
static void queued_thread_is_counted_with_the_stack_of_its_trap(void **state)
{
	struct world *w = *state;
	fake.runs = 5;
	peeked_asleep_at(w, address_of(old_place));
	assert_int_equal(counted(w, "worker;S (sleeping);old_place;"
				    "hrtimer_nanosleep_[k];do_nanosleep_[k]"), 1);

	fake.runs = 6; /* woken, queued for a CPU */
	round_begin(w);
	stop_queued(w);
	assert_int_equal(fake.interrupts, 1);
	assert_int_equal(fake.spun_until, 0); /* no spin */
	assert_int_equal(fake.resumes, 0);
	assert_non_null(w->st->pending);
	assert_int_equal(w->s->stops.unsettled, 1);
	assert_int_equal(w->s->stops.n_pending, 1);
	assert_int_equal(w->r.queued, 1);
	round_over(w, 2);
	assert_int_equal(w->r.samples, 1); /* its round's ticks wait for the trap */

	round_begin(w);
	fake.kernel = kernel_stack("schedule", "exit_to_user_mode_loop");
	capture_pending_tick(w->s, w->p, &w->th, w->st, 'R', now_ns());
	assert_int_equal(fake.nudges, 1);
	round_over(w, 1);
	assert_int_equal(w->r.samples, 1);

	capture_poll_pending(w->s); /* no trap yet */
	assert_int_equal(fake.polls, 1);
	assert_int_equal(w->s->stops.n_pending, 1);
	assert_int_equal(w->r.samples, 1);

	fake.trap_due = true; /* it got a CPU, and trapped at once */
	fake.trap_pc = address_of(trap_place);
	capture_poll_pending(w->s);
	assert_int_equal(fake.copies, 1);
	assert_int_equal(fake.resumes, 1);
	assert_null(w->st->pending);
	assert_int_equal(w->s->stops.unsettled, 0);
	assert_int_equal(w->s->stops.n_pending, 0);
	assert_int_equal(w->r.samples, 4);
	assert_int_equal(w->st->counts.samples, 4);
	assert_int_equal(w->st->counts.on_cpu, 0);
	assert_int_equal(w->r.no_user_stack, 0);
	assert_int_equal(counted(w, "worker;R (runnable);trap_place"), 2);
	assert_int_equal(counted(w, "worker;R (runnable);trap_place;"
				    "exit_to_user_mode_loop_[k];schedule_[k]"), 1);
	assert_int_equal(counted(w, "worker;R (runnable);old_place"), 0);
	assert_int_equal(counted(w, "worker;R (runnable);old_place;"
				    "exit_to_user_mode_loop_[k];schedule_[k]"), 0);
	assert_int_equal(counted_in_all(w), 4);
	assert_int_equal(w->st->memory->pc, address_of(trap_place));
}

/* A thread stopped every round whose trap comes while we sleep (a
 * dispatch, not a poll, completes the stop) is listed once for polling,
 * not once per round: the list grew by one entry a round, each polled
 * with a system call, without bound. */
static void a_thread_stopped_every_round_is_listed_once(void **state)
{
	struct world *w = *state;
	for (int round = 0; round < 50; round++) {
		fake.runs = 6 + (uint64_t)round;
		round_begin(w);
		stop_queued(w);
		assert_non_null(w->st->pending);
		round_over(w, 1);
		/* the trap, as targets_wait_until's dispatch hands it over */
		w->th.stop_pending = false;
		fake.trap_pc = address_of(trap_place);
		capture_on_trap(w->s, w->p->t, &w->th, now_ns());
		assert_null(w->st->pending);
		assert_int_equal(w->s->stops.n_pending, 1);
	}
	assert_int_equal(w->r.samples, 50);
	fake.polls = 0;
	capture_poll_pending(w->s); /* prunes it: no stop is pending */
	assert_int_equal(fake.polls, 0);
	assert_int_equal(w->s->stops.n_pending, 0);
	round_begin(w);
	stop_queued(w);
	assert_int_equal(w->s->stops.n_pending, 1); /* listed again */
	fake.trap_due = true;
	capture_poll_pending(w->s);
	assert_int_equal(fake.polls, 1);
	assert_null(w->st->pending);
	assert_int_equal(w->s->stops.n_pending, 0);
}

/* Asked to stop on our CPU, which our tick took from it (R, not running):
 * the ticks due while it waited for that CPU are counted R (runnable)
 * with the stack its trap brings, and with the same application state as
 * its other ticks - with --pg-wait-events on a program that is no
 * PostgreSQL server, "[no PostgreSQL state]" on every sample (those ticks
 * had no state frame at all: 1 sample in 200 beside a noisy neighbour). */
static void ticks_waited_for_our_cpu_have_its_state(void **state)
{
	struct world *w = *state;
	w->o.pg_wait_events = true;
	fake.runs = 6;
	round_begin(w);
	struct stop_request rq = { .state = 'R', .on_cpu = true, .running = false,
				   .runs_known = true, .sc = { .runs = fake.runs }, .wait = false };
	char no_kernel[1] = "";
	capture_stop(w->s, w->p, &w->th, w->st, &rq, no_kernel, 0);
	assert_true(w->st->pending->took_its_cpu);
	round_over(w, 3); /* the stop's tick, and 2 due while it waited */
	assert_int_equal(w->r.samples, 0);

	fake.trap_due = true;
	fake.trap_pc = address_of(trap_place);
	capture_poll_pending(w->s);
	assert_null(w->st->pending);
	assert_int_equal(w->r.samples, 3);
	assert_int_equal(counted(w, "worker;[no PostgreSQL state];R (runnable);trap_place"), 2);
	assert_int_equal(counted(w, "worker;R (runnable);trap_place"), 0);
	assert_int_equal(counted_in_all(w), 3);
}

/* Ended between rounds with its stop pending: its ticks are counted as
 * they were read, state and kernel frames, without a user stack - not
 * with the one its memory holds from before. */
static void thread_ended_with_a_stop_pending_has_no_user_stack(void **state)
{
	struct world *w = *state;
	fake.runs = 5;
	peeked_asleep_at(w, address_of(old_place));

	fake.runs = 6;
	round_begin(w);
	stop_queued(w);
	round_over(w, 1);
	round_begin(w);
	fake.kernel = kernel_stack("schedule", "exit_to_user_mode_loop");
	capture_pending_tick(w->s, w->p, &w->th, w->st, 'R', now_ns());
	round_over(w, 3);
	assert_int_equal(w->r.samples, 1);

	w->th.gone = true;
	capture_thread_ended(w->s, &w->t, &w->th);
	assert_int_equal(fake.resumes, 0);
	assert_true(w->st->ended);
	assert_null(w->st->pending);
	assert_null(w->st->memory);
	assert_int_equal(w->s->stops.unsettled, 0);
	assert_int_equal(w->r.no_user_stack, 4);
	assert_int_equal(w->r.samples, 5);
	assert_int_equal(w->st->counts.samples, 5);
	assert_int_equal(counted(w, "worker;R (runnable)"), 1);
	assert_int_equal(counted(w, "worker;R (runnable);exit_to_user_mode_loop_[k];schedule_[k]"),
			 3);
	assert_int_equal(counted(w, "worker;R (runnable);old_place;"
				    "exit_to_user_mode_loop_[k];schedule_[k]"), 0);
	assert_int_equal(counted_in_all(w), 5);
}

/* Ended in the round that added its last pending tick (told while the
 * round still runs): that tick is the round's observation, counted when
 * the round ends for every tick it stands for; the earlier ones at once. */
static void thread_ended_within_its_round_is_counted_with_the_round(void **state)
{
	struct world *w = *state;
	fake.runs = 6;
	round_begin(w);
	stop_queued(w);
	round_over(w, 1);

	round_begin(w);
	fake.kernel = kernel_stack("schedule", "exit_to_user_mode_loop");
	capture_pending_tick(w->s, w->p, &w->th, w->st, 'R', now_ns());
	w->th.gone = true;
	capture_thread_ended(w->s, &w->t, &w->th);
	assert_int_equal(w->r.samples, 1); /* the first round's tick */
	assert_int_equal(w->s->stops.unsettled, 0);
	round_over(w, 3);
	assert_int_equal(w->r.samples, 4);
	assert_int_equal(w->st->counts.samples, 4);
	assert_int_equal(counted(w, "worker;R (runnable)"), 1);
	assert_int_equal(counted(w, "worker;R (runnable);exit_to_user_mode_loop_[k];schedule_[k]"),
			 3);
	assert_int_equal(counted_in_all(w), 4);
	assert_int_equal(fake.resumes, 0);
}

/* Seen asleep at the tick (a new sleep: it ran since its last sample),
 * then, before the round's peek, it woke and ran: the peek cannot read it,
 * the stop asked instead catches it in its work.  That copy is of a later
 * moment: the tick keeps its state and kernel frames, and no user stack -
 * never the work's (periodic threads were read 1-2 points over their work
 * so).  Taken out of the same wait by our interrupt, it would get it. */
static void asleep_at_the_tick_then_ran(struct world *w, bool stayed)
{
	fake.runs = 5;
	peeked_asleep_at(w, address_of(old_place));
	fake.runs = 7; /* woke, worked, and slept again before this tick */
	round_begin(w);
	struct blocked_look d = look_at_sleeper(w, fake.runs);
	/* the peek failed (on a CPU when its system call was read, its run
	 * count not moved yet: no proof): asked to stop, its trap awaited by
	 * nobody, as round.c does, with the kernel frames and the words the
	 * failed peek read */
	fake.running_now = true;
	fake.word[0] = 7;
	assert_false(capture_peek(w->s, w->p, &w->th, w->st, &d));
	fake.running_now = false;
	fake.word[0] = 99; /* another event by the time of its trap */
	struct stop_request rq = { .state = d.state, .runs_known = true, .sc = d.sc,
				   .wait = false, .words = &d.words };
	capture_stop(w->s, w->p, &w->th, w->st, &rq, d.kernel, d.n_kernel);
	round_over(w, 1);
	fake.runs = 8; /* one wake-up: by itself (and it ran), or by us */
	fake.trap_in_wait = stayed;
	fake.trap_pc = address_of(stayed ? trap_place : running_place);
	fake.trap_due = true;
	capture_poll_pending(w->s);
	assert_int_equal(fake.copies, 1);
	assert_int_equal(fake.resumes, 1);
	assert_null(w->st->pending);
	assert_int_equal(w->r.samples, 2);
}

static void asleep_at_the_tick_then_ran_has_no_user_stack(void **state)
{
	struct world *w = *state;
	asleep_at_the_tick_then_ran(w, false);
	/* the state and the words its look read first; its kernel frames,
	 * read after, unproven: not counted */
	assert_int_equal(counted(w, "worker;S (sleeping)"), 1);
	assert_int_equal(counted(w, "worker;S (sleeping);running_place;"
				    "hrtimer_nanosleep_[k];do_nanosleep_[k]"), 0);
	assert_int_equal(w->r.no_user_stack, 1);
	assert_int_equal(counted_in_all(w), 2);
	/* what it copied is still its memory, at that stop's run count */
	assert_int_equal(w->st->memory->pc, address_of(running_place));
}

static void asleep_at_the_tick_and_still_gets_its_stack(void **state)
{
	struct world *w = *state;
	asleep_at_the_tick_then_ran(w, true);
	assert_int_equal(counted(w, "worker;S (sleeping);trap_place;"
				    "hrtimer_nanosleep_[k];do_nanosleep_[k]"), 1);
	assert_int_equal(w->r.no_user_stack, 0);
	assert_int_equal(counted_in_all(w), 2);
}

/* The same, with Oracle's words: its tick has the event its look read
 * first, not the one its trap brought (another moment's). */
static void stopped_after_it_ran_keeps_the_words_of_its_look(void **state)
{
	struct world *w = *state;
	w->o.ksuseopc_addr = 0x1000;
	w->o.ksusetim_addr = 0x1004;
	fake.has_words = true;
	asleep_at_the_tick_then_ran(w, false);
	assert_int_equal(counted(w, "worker;event#=7 (Oracle state);S (sleeping)"), 1);
	assert_int_equal(counted(w, "worker;event#=99 (Oracle state);S (sleeping)"), 0);
	assert_int_equal(w->r.no_user_stack, 1);
}

/* --max-overhead refused it a stop at two ticks, in a disk wait with
 * Oracle's event 7 and then on a CPU with event 0: each counted with the
 * words of its own tick when the next stop brings a stack - not with the
 * stop's event 99 (another moment's). */
static void refused_ticks_keep_their_own_words(void **state)
{
	struct world *w = *state;
	w->o.ksuseopc_addr = 0x1000;
	w->o.ksusetim_addr = 0x1004;
	w->o.max_overhead = 0.01;
	fake.has_words = true;
	fake.runs = 5;
	round_begin(w);
	fake.word[0] = 7;
	fake.runs++; /* (it ran: the words are read again) */
	owed_refused(w->s, w->p, w->st, 'D', false, NULL, 0);
	round_over(w, 2);
	round_begin(w);
	fake.word[0] = 0;
	fake.runs++;
	owed_refused(w->s, w->p, w->st, 'R', true, NULL, 0);
	round_over(w, 1);
	assert_int_equal(w->st->refused.owed->n, 2);
	fake.word[0] = 99;
	const struct unwound_frame frames[] = { { address_of(running_place), FRAME_EXACT } };
	owed_count(w->s, w->p, w->st, frames, 1, 1);
	assert_int_equal(counted(w, "worker;event#=7 (Oracle state);D (disk sleep);running_place"), 2);
	assert_int_equal(counted(w, "worker;event#=0 (Oracle state);R (running);running_place"), 1);
	assert_int_equal(counted_in_all(w), 3);
	assert_false(owed_any(w->st));
}

/* Seen asleep, then ran before its peek: its tick is counted with its own
 * process's words as the look read them - not with what the peek read
 * later (it had moved on), nor with what another process's capture left
 * in the snapshot (issue 40: client backends under another process's
 * Timeout:PgSleep). */
static void moved_on_keeps_the_words_of_its_look(void **state)
{
	struct world *w = *state;
	w->o.ksuseopc_addr = 0x1000; /* Oracle's words: no server to find */
	w->o.ksusetim_addr = 0x1004;
	struct blocked_look d = asleep_then_ran_while_peeked(w);
	fake.has_words = true;
	fake.word[0] = 7; /* waiting on event 7 at the tick, read first */
	fake.word_at_peek = 99; /* another event by the time of the copy */
	w->s->snap->word[0] = 42; /* and another process's, captured before */
	assert_true(capture_peek(w->s, w->p, &w->th, w->st, &d));
	assert_int_equal(d.words.n, 2);
	assert_true(d.words.ok);
	round_over(w, 1);
	assert_int_equal(w->r.no_user_stack, 1);
	assert_int_equal(counted(w, "worker;event#=7 (Oracle state);S (sleeping)"), 1);
	assert_int_equal(counted_in_all(w), 1);
}

/* Words at hand that were read through another process (a capture of
 * its between this one's read and its count) are that process's: the
 * state frame says none were read rather than name its event. */
static void others_words_are_not_counted_as_its_own(void **state)
{
	struct world *w = *state;
	w->o.ksuseopc_addr = 0x1000;
	w->o.ksusetim_addr = 0x1004;
	char buf[APP_STATE_MAX];
	struct snapshot *sn = w->s->snap;
	app_set_words(w->s, w->p);
	sn->words_ok = 1;
	sn->word[0] = 42; /* ksuseopc: event 42, */
	sn->word[1] = 0;  /* ksusetim 0: waiting on it */
	sn->words_tid = FAKE_TID + 1; /* another process's thread */
	assert_string_equal(app_state(w->s, w->p, buf, sizeof(buf)), "[unreadable] (Oracle state)");
	assert_int_equal(w->r.words_foreign, 1);
	sn->words_ok = 1;
	sn->words_tid = FAKE_TID; /* its own thread's */
	assert_string_equal(app_state(w->s, w->p, buf, sizeof(buf)), "event#=42 (Oracle state)");
	sn->words_tid = w->t.pid; /* its process's, through its first thread */
	assert_string_equal(app_state(w->s, w->p, buf, sizeof(buf)), "event#=42 (Oracle state)");
	assert_int_equal(w->r.words_foreign, 1);
}

/* A sleep whose stack needs rbp, at fp_place: the first peek cannot
 * unwind it, so it is stopped; the stop's registers are kept, and the
 * next sleep at the same sp and pc is unwound with them, without a stop,
 * while they find the stop's frames (decide.h, sleep_regs). */
static void stop_found_asleep_at_fp_place(struct world *w, uint64_t rbp)
{
	fake.rbp = rbp;
	fake.where = (struct blocked_syscall){ .nr = 35, .sp = SLEEP_SP,
					       .pc = address_of(fp_place) };
	round_begin(w);
	struct blocked_look d = look_at_sleeper(w, fake.runs);
	assert_false(capture_peek(w->s, w->p, &w->th, w->st, &d));
	struct stop_request rq = { .state = d.state, .runs_known = true, .sc = d.sc,
				   .wait = false, .words = &d.words };
	capture_stop(w->s, w->p, &w->th, w->st, &rq, d.kernel, d.n_kernel);
	round_over(w, 1);
	fake.runs++; /* our stop took it out of its wait */
	fake.trap_in_wait = true;
	fake.trap_pc = address_of(fp_place);
	fake.trap_sp = SLEEP_SP;
	fake.trap_due = true;
	capture_poll_pending(w->s);
	assert_null(w->st->pending);
}

static bool peek_asleep_at_fp_place(struct world *w, uint64_t sp)
{
	fake.runs += 2; /* it woke, worked and slept again: its locals changed */
	fake.stack_salt++;
	fake.where.sp = sp;
	round_begin(w);
	struct blocked_look d = look_at_sleeper(w, fake.runs);
	bool peeked = capture_peek(w->s, w->p, &w->th, w->st, &d);
	if (!peeked) { /* stopped instead, as round.c does */
		struct stop_request rq = { .state = d.state, .runs_known = true, .sc = d.sc,
					   .wait = false, .words = &d.words };
		capture_stop(w->s, w->p, &w->th, w->st, &rq, d.kernel, d.n_kernel);
	}
	round_over(w, 1);
	return peeked;
}

static void a_sleep_needing_rbp_is_read_with_a_stops_registers(void **state)
{
	struct world *w = *state;
	const char *fp_stack = "worker;S (sleeping);fp_caller;fp_place;"
			       "hrtimer_nanosleep_[k];do_nanosleep_[k]";
	fake.runs = 5;
	stop_found_asleep_at_fp_place(w, 0x7ffd10000200ULL);
	assert_int_equal(fake.interrupts, 1);
	assert_int_equal(w->st->peek.regs_pc, address_of(fp_place));
	const struct blocked_syscall at = { .nr = 35, .sp = SLEEP_SP, .pc = address_of(fp_place) };
	assert_non_null(sleep_regs_find(&w->st->peek.slept_regs, &at));
	assert_int_equal(counted(w, fp_stack), 1);
	/* the same sleep place and rbp: read without a stop, its frames */
	assert_true(peek_asleep_at_fp_place(w, SLEEP_SP));
	assert_int_equal(fake.interrupts, 1);
	assert_int_equal(w->r.peeked_lent, 1);
	assert_int_equal(counted(w, fp_stack), 2);
	/* elsewhere on the stack: stopped at once, nothing copied first */
	int peeks = fake.peeks;
	fake.trap_due = false;
	assert_false(peek_asleep_at_fp_place(w, SLEEP_SP - 64));
	assert_int_equal(fake.peeks, peeks);
	assert_int_equal(fake.interrupts, 2);
	assert_int_equal(w->r.lent_refused, 0);
}

/* Asleep at the same sp and pc, but its frame pointer is elsewhere now:
 * the stop's rbp finds other frames, which are not counted - the thread
 * is stopped, and its stack is what the stop copies. */
static void a_stops_registers_that_find_other_frames_are_refused(void **state)
{
	struct world *w = *state;
	fake.runs = 5;
	stop_found_asleep_at_fp_place(w, 0x7ffd10000200ULL);
	fake.rbp = 0x7ffd10000300ULL;
	assert_false(peek_asleep_at_fp_place(w, SLEEP_SP));
	assert_int_equal(w->r.lent_refused, 1);
	assert_int_equal(w->r.peeked_lent, 0);
	assert_int_equal(fake.interrupts, 2);
	assert_int_equal(counted(w, "worker;S (sleeping);other_caller;fp_place;"
				    "hrtimer_nanosleep_[k];do_nanosleep_[k]"), 0);
}

/* A thread whose last look peeked, asleep again at the next: its reads
 * made before the look, and counted without reading again when the
 * look's run count is theirs; read again after the look when it ran in
 * between; not made at all when it has not run since (reused). */
static void reads_before_the_look_proven_by_it(void **state)
{
	struct world *w = *state;
	const char *stack = "worker;S (sleeping);peeked_place;"
			    "hrtimer_nanosleep_[k];do_nanosleep_[k]";
	fake.runs = 5;
	peeked_asleep_at(w, address_of(peeked_place));
	w->st->peek.read_early = true; /* as round.c says after a peek */
	w->st->peek.stack_low = SLEEP_SP - 65536;
	w->st->peek.stack_top = SLEEP_SP + 4096;
	struct early_read e;
	capture_read_early(w->s, w->p, &w->th, w->st, &e);
	assert_false(e.done); /* not run since: its look reuses its stack */
	fake.copies_ahead = true;
	fake.runs = 7; /* woke, worked, slept again at the same place */
	fake.stack_salt++;
	capture_read_early(w->s, w->p, &w->th, w->st, &e);
	assert_true(e.done);
	assert_int_equal(e.runs, 7);
	assert_int_equal(e.where.sp, SLEEP_SP);
	int peeks = fake.peeks, copied = fake.copied_ahead;
	round_begin(w);
	struct blocked_look d = look_at_sleeper(w, 7);
	d.early = e;
	assert_true(capture_peek(w->s, w->p, &w->th, w->st, &d));
	round_over(w, 1);
	assert_int_equal(fake.peeks, peeks); /* nothing read after the look */
	assert_int_equal(fake.copied_ahead, copied);
	assert_int_equal(w->r.peeked_early, 1);
	assert_int_equal(counted(w, stack), 2);
	/* read before the look, but it ran between them: read again */
	fake.runs = 9;
	fake.stack_salt++;
	capture_read_early(w->s, w->p, &w->th, w->st, &e);
	assert_true(e.done);
	fake.runs = 10;
	round_begin(w);
	d = look_at_sleeper(w, 10);
	d.early = e;
	assert_true(capture_peek(w->s, w->p, &w->th, w->st, &d));
	round_over(w, 1);
	assert_int_equal(w->r.peeked_early, 1);
	assert_int_equal(fake.copied_ahead, copied + 2); /* the early one, then the peek's */
	assert_int_equal(counted(w, stack), 3);
	assert_int_equal(fake.interrupts, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(peek_consistent_is_counted_without_a_stop, setup,
						teardown),
		cmocka_unit_test_setup_teardown(peek_that_ran_meanwhile_has_no_user_stack, setup,
						teardown),
		cmocka_unit_test_setup_teardown(peek_of_a_thread_running_now_has_no_user_stack,
						setup, teardown),
		cmocka_unit_test_setup_teardown(kernel_frames_read_after_it_woke_are_left_out,
						setup, teardown),
		cmocka_unit_test_setup_teardown(running_thread_is_copied_and_resumed_at_once, setup,
						teardown),
		cmocka_unit_test(a_watch_while_it_switches_little),
		cmocka_unit_test_setup_teardown(ticks_read_again_mid_round, setup, teardown),
		cmocka_unit_test_setup_teardown(ticks_held_by_our_stop_are_what_it_saw, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_thread_stopped_every_round_is_listed_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_thread_caught_leaving_calls_is_followed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_followed_thread_is_caught_in_its_call, setup,
						teardown),
		cmocka_unit_test_setup_teardown(queued_thread_is_counted_with_the_stack_of_its_trap,
						setup, teardown),
		cmocka_unit_test_setup_teardown(others_words_are_not_counted_as_its_own, setup, teardown),
		cmocka_unit_test_setup_teardown(moved_on_keeps_the_words_of_its_look, setup,
						teardown),
cmocka_unit_test_setup_teardown(refused_ticks_keep_their_own_words, setup, teardown),
				cmocka_unit_test_setup_teardown(stopped_after_it_ran_keeps_the_words_of_its_look,
						setup, teardown),
		cmocka_unit_test_setup_teardown(ticks_waited_for_our_cpu_have_its_state, setup,
						teardown),
		cmocka_unit_test_setup_teardown(thread_ended_with_a_stop_pending_has_no_user_stack,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			thread_ended_within_its_round_is_counted_with_the_round, setup, teardown),
		cmocka_unit_test_setup_teardown(asleep_at_the_tick_then_ran_has_no_user_stack, setup,
						teardown),
		cmocka_unit_test_setup_teardown(asleep_at_the_tick_and_still_gets_its_stack, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_sleep_needing_rbp_is_read_with_a_stops_registers,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_stops_registers_that_find_other_frames_are_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(reads_before_the_look_proven_by_it, setup, teardown),
	};
	return cmocka_run_group_tests_name("capture", tests, NULL, NULL);
}
