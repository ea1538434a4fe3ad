/* capture.h - copying what a sample needs, and nothing more, while the
 * thread is stopped for as short a time as we can.
 *
 *   peek   a blocked thread, without stopping it: sp and pc from
 *          /proc/.../syscall and a copy of its stack, consistent when its
 *          run count did not move meanwhile (decide.h);
 *   stop   PTRACE_INTERRUPT; a thread on a CPU traps within microseconds,
 *          and we spin for it (a sleeping tracer would need a cross-CPU
 *          wake-up that costs more than the whole copy); then registers
 *          and the live stack in one process_vm_readv, and PTRACE_CONT.
 *          Unwinding comes after the resume.  A thread queued for a CPU
 *          is not waited for: it runs no user code until it traps, which
 *          it does when it gets the CPU - its ticks wait in a pending stop
 *          (records.h) until then, and the round goes on.
 *
 * The calls into the tracee layer (target.h, snapshot.h) and the unwinder
 * are direct: test/unit/test_capture.c runs this file against a fake
 * target by substituting them at link time (ld --wrap), which costs the
 * production code no indirection and no table to keep in step.
 */
#ifndef PTRACE_PROFILER_SAMPLE_CAPTURE_H
#define PTRACE_PROFILER_SAMPLE_CAPTURE_H

#include "sample/records.h"

/* Reads p's application words (count.h) at the look at th, into d->words:
 * what the tick is counted with should th run before its peek is proven.
 * No words (n 0) when none are wanted. */
void capture_look_words(struct sampler *s, struct process *p, struct thread *th,
			struct blocked_look *d);

/* A blocked thread read without a stop, counted as this round's
 * observation.  The reads its run count proves come soonest after the
 * look: its process's words and its stack (copied ahead of knowing sp,
 * from where it last slept, in one read), where it sleeps
 * (/proc/.../syscall), the run count; then its kernel frames, proven by
 * the run count again, else counted without them (r->kernel_late).  One
 * put on a CPU since the look (it runs now, or ran while we read) is
 * counted with the state the look read, the words read first and no
 * user stack nor kernel frames: nothing read after it ran is of the
 * tick.  false when it must be stopped instead (look->kernel then read):
 * still blocked, its stack cannot be unwound from sp and pc alone (nor
 * with the registers it went to sleep with, switch_regs.h) and is not the
 * one we know. */
/* A watch of a thread's switches (switch_regs.h) costs it about 2.2 us
 * at each switch off a CPU, whatever the interval (here: 1.4 us for a
 * per-task perf event at all, 0.8 more to sample); a stop about 15 us
 * and, for a thread asleep, a wake-up.  So a thread is watched while it
 * switches at most WATCH_SWITCHES_PER_TICK times a tick, and let go at
 * twice that: pgbench -S's backends switch ~15,000 times a second, and
 * watched at -d 10ms they lost 14 % of their transactions against 10.6 %
 * stopped. */
#define WATCH_SWITCHES_PER_TICK 4
#define SWITCH_WINDOW_NS 100000000ULL /* its rate, over 100 ms */

/* Pure: is a watch worth it for a thread leaving a CPU switches_per_s
 * times a second (< 0: not known yet, then yes) at a tick every tick_ns,
 * being watched already or not? */
bool capture_watch_worth(double switches_per_s, double tick_ns, bool watched);

/* After a look read its run count: its rate of switches, and its watch
 * ended if it has grown too busy for one. */
void capture_note_switches(struct sampler *s, struct sampled_thread *st, uint64_t runs,
			   uint64_t now);

/* A thread just turned cold (cold.h): watched, if it switches little
 * and half the watches are free (the other half kept for threads whose
 * stack needs their registers), so that its still rounds need no read. */
void capture_watch_cold(struct sampler *s, struct sampled_thread *st, pid_t tid);

bool capture_peek(struct sampler *s, struct process *p, struct thread *th,
		  struct sampled_thread *st, struct blocked_look *look);

/* Before the look at a thread whose last look peeked (it slept, and had
 * run since the one before): its run count, where it sleeps, its words
 * and its stack, into e (the copy in the sampler's snapshot) - what its
 * peek would read after the look.  The look's own run count proves them
 * (the same: nothing ran from before them to the look), and only that
 * read is left between the look and its proof: a wait that ends a few
 * microseconds after the look keeps its stack (PostgreSQL's ClientRead
 * under pgbench: 95.8-98.2 % with the reads after the look, 15 us of
 * them).  e->done false when it had not run (its look reuses what it
 * knew), runs now, or a peek would stop it. */
void capture_read_early(struct sampler *s, struct process *p, struct thread *th,
			struct sampled_thread *st, struct early_read *e);

/* What the look at the tick read of a thread to stop. */
struct stop_request {
	char state;           /* stat's, at the tick */
	bool on_cpu;          /* what the sample says: R (running) */
	bool running;         /* executing now: spin for its trap */
	bool classify_by_runs; /* R without a kernel stack: the trap tells */
	bool runs_known;
	struct sched_counts sc;
	bool wait;            /* spin for the trap even if not running (a
				 blocked thread our interrupt wakes) */
	bool yield;           /* sleep for its trap after the round's stops
				 (capture_yield): it waits for the CPU we
				 hold (our tick preempted it there) */
	const struct look_words *words; /* a blocked look's, read first (for
				 its tick, should the stop not show it); NULL */
	bool frames_assumed;  /* held by our tick, its kernel stack not read:
				 capture_call_frames_known said the stop's
				 registers will tell them */
	bool frames_check;    /* held by our tick, its kernel stack read: the
				 stop checks them against those registers */
};

/* Will a followed thread's stop, our tick holding its CPU, tell its
 * kernel frames from its registers alone (records.h, struct call_frames)? */
bool capture_call_frames_known(const struct sampler *s);

/* Stops a thread: copies and resumes it at once if it traps while we
 * spin, else leaves its stop pending (its trap completes it). */
void capture_stop(struct sampler *s, struct process *p, struct thread *th,
		  struct sampled_thread *st, const struct stop_request *rq, const char *kernel,
		  int n_kernel);

/* Sleeps for the trap of the thread a stop asked to yield to (our tick
 * preempted it on our CPU: it traps as soon as it has the CPU again), up
 * to a millisecond; the other traps that come meanwhile are collected
 * too.  After the round's looks and stops: none sees what ran while we
 * slept. */
void capture_yield(struct sampler *s);

/* A thread asked at an earlier tick and not stopped yet: it has run no
 * user code since, so this tick gets the stack its trap will bring, with
 * the state and kernel frames it has now. */
void capture_pending_tick(struct sampler *s, struct process *p, struct thread *th,
			  struct sampled_thread *st, char state, uint64_t now);

/* The traps of the threads whose stops are pending, each asked for by its
 * own pid: cheap however many threads are traced. */
void capture_poll_pending(struct sampler *s);

/* The invariant of the stops asked for and not settled: each thread's
 * pending stop (st->pending) is counted once in s->stops.unsettled, which
 * the rounds read to know whether any trap is still to come.  Asserted at
 * every round's end. */
bool capture_pending_held(const struct sampler *s);

/* targets_poll's and targets_wait_until's hook: a pending stop's trap. */
void capture_on_trap(void *arg, struct target *t, struct thread *th, uint64_t seen_ns);

/* The ticks of a thread whose trap never came (it exited, or the run
 * ended): counted with the state and kernel frames read at each, and no
 * user frames. */
void capture_unstopped(struct sampler *s, struct process *p, struct sampled_thread *st);

/* target.h's on_drop: a thread ended.  Its ticks still waiting for a
 * trap are counted as read; its record stays for the summary. */
void capture_thread_ended(void *arg, struct target *t, struct thread *th);

/* A followed thread's copy at our tick closed (its thread ended, or its
 * record let go): none when it had none. */
void capture_follow_end(struct sampler *s, struct sampled_thread *st);

/* Leaves our CPU if a thread resumed since the last look at where the
 * threads are (the kernel may put it on our CPU: we woke it), or one seen
 * queued at the tick, wants it (placement.h).  At the end of each round,
 * and after a trap that comes between rounds. */
void capture_keep_off(struct sampler *s);

/* The same at a round's end; where the followed thread was resumed on
 * its CPU and that CPU's timer armed for the next tick, the sampler is
 * put back there asleep instead of moving (resume_here.h):
 * s->tick_timed. */
void capture_round_placement(struct sampler *s);

#endif
