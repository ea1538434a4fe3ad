/* decide.h - for each thread and tick: reuse what we know, look at it
 * without stopping it, or stop it.
 *
 * The rule that keeps the profile true: a sample describes the thread as
 * it is at the tick.  What an earlier sample learnt is reused only when it
 * provably still holds:
 *   - the thread has not been put on a CPU since we last proved that stack
 *     current (its schedstat run count is the same): it has not executed
 *     one instruction, so its stacks, user and kernel, are the same; or
 *   - the inputs of the unwind are byte for byte those of the earlier one:
 *     the same sp and pc, the same stack bytes, read while the thread's
 *     run count did not move.  (The other registers are the earlier ones;
 *     with the same sp, pc and stack they can differ only in a value no
 *     frame saved, which does not change where the frames are.)
 * A blocked thread (S, D) is looked at without stopping it ("peek"):
 * /proc/.../syscall gives its sp and pc, the stack is copied, and the copy
 * is consistent when its run count is the same before and after.  It is
 * stopped only if the unwind needs a register that sp and pc do not give
 * (a frame-pointer chain needs rbp) and no stop found it asleep at the
 * same sp and pc before (struct sleep_regs).  A thread that runs is stopped: at
 * once if it is on a CPU, and without waiting for it if it is queued for
 * one - its trap comes when it gets the CPU, and until then it has not
 * run, so the stack it traps with is the one it had at the tick.
 *
 * Everything here is pure: no system calls, unit-tested case by case.
 */
#ifndef PTRACE_PROFILER_DECIDE_H
#define PTRACE_PROFILER_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#include "tracee/procfs.h"
#include "unwind/unwind.h"

/* What a tick reads of a thread before deciding (no stop). */
struct tick_view {
	char state;          /* from stat */
	bool runs_known;     /* schedstat readable */
	uint64_t runs;       /* its run count: times put on a CPU */
	bool group_stop;     /* in a group stop we left in place */
	unsigned group_stops;
	unsigned generation; /* modules_generation now */
};

#define MEMORY_KERNEL_BYTES 1024

/* What the samples so far proved about a thread. */
struct thread_memory {
	bool valid;             /* frames hold a user stack */
	unsigned generation;    /* modules_generation they were unwound with */
	int n_frames, complete;
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	/* what they were unwound from */
	uint64_t sp, pc;
	uint64_t stack_start;
	size_t stack_len;
	uint64_t stack_hash;
	/* Blocked and proven current at run count runs_verified: while the
	 * count stays there, frames and kernel frames are still the truth. */
	bool verified;
	uint64_t runs_verified;
	/* Taken in group stop number group_stops (SIGSTOP, Ctrl-Z): valid
	 * while that stop lasts. */
	bool in_group_stop;
	unsigned group_stops;
	/* Its run count in our last stop of it: while it stays there, the
	 * thread has not run since we let it go, and its stack is the one we
	 * copied - a thread queued for a CPU is not stopped again for it. */
	bool capture_runs_known;
	uint64_t runs_at_capture;
	/* That stop took the thread out of a blocking call (state_before),
	 * which it restarts once it runs again: until then it shows R only
	 * because of us. */
	bool aborted;
	char state_before;
	struct blocked_syscall abort_where; /* the call, from its registers */
	/* The kernel frames of its last blocked sample (n_kernel names, each
	 * NUL-terminated, outermost first, "_[k]" appended).  After our stop
	 * a wait goes on as restart_syscall, whose kernel stack shows only
	 * the system call entry: the wait keeps the frames it had. */
	int n_kernel;
	char kernel[MEMORY_KERNEL_BYTES];
};

enum thread_action {
	ACT_SKIP,    /* a zombie or dead thread: no sample */
	ACT_REUSE,   /* the memory is the truth: user and kernel frames */
	ACT_PARKED,  /* R only because we aborted its wait: the memory, as
			it was before our stop (state_before, its kernel frames) */
	ACT_QUEUED,  /* R, and not run since our last stop of it: queued for a
			CPU, with the stack we copied then */
	ACT_PEEK,    /* blocked: read it without stopping it */
	ACT_STOP,    /* stop it and copy */
};

enum thread_action decide(const struct tick_view *v, const struct thread_memory *m);

/* The state a sample shows.  state is from stat; on_cpu tells R apart:
 * "R (running)" on a CPU, "R (runnable)" queued for one.  A ptrace stop
 * that is not a group stop is our own doing, or a signal on its way (the
 * thread was running to take it): "R (running)".  In a group stop the
 * thread shows 't' because it is also traced; to its user it is
 * "T (stopped)". */
const char *reported_state(char state, bool group_stop, bool on_cpu);

/* reported_state's two states of a thread that runs, these very strings:
 * a sample's state is told by identity (count.c: on a CPU, queued), not
 * by its text, which is written only. */
extern const char STATE_RUNNING[];  /* "R (running)" */
extern const char STATE_RUNNABLE[]; /* "R (runnable)" */

/* The state of a thread at the tick, for one its look finds R (look):
 * asleep (S, D) when the round began (first, its run count then
 * first_runs) and not put on a CPU since (runs, its count at the look),
 * it woke after the tick and has not executed an instruction since - it
 * was in that sleep at the tick, its stacks still that sleep's: first.
 * Else look. */
char state_at_tick(char look, char first, uint64_t first_runs, uint64_t runs);

/* Not put on a CPU between two reads of a thread's schedstat (then, now)?
 * A thread's run count moves when it is put on a CPU, its time on one
 * when it is taken off (or a scheduler tick finds it running): with both
 * the same it has executed nothing in between, and its stat then is its
 * stat now (what other threads change aside: its process's thread
 * count).  A thread running at both reads may pass too - still running. */
bool not_run_between(const struct sched_counts *then, const struct sched_counts *now);

/* A tick due while its round ran, the thread's schedstat and stat read
 * again then (round.c, mid_round_pass): what it counts as, against its
 * look's schedstat and whether its observation was R (look_r: running or
 * runnable, the stack of a thread that runs). */
enum mid_verdict {
	MID_SKIP,   /* stopped (by us) or gone then: the round's other paths */
	MID_SAME,   /* its observation: not run since its look (or before
		       it), or running then as it was */
	MID_HELD,   /* that, but R off a CPU then: runnable, as a frozen tick */
	MID_ASLEEP, /* run since: asleep then, counted so without a stack */
	MID_OWED,   /* seen asleep, run since, R then: counted so with its
		       next stop's stack */
};
enum mid_verdict mid_tick_verdict(const struct sched_counts *look, const struct sched_counts *then,
				  char state, bool on_cpu, bool look_r);

/* On a CPU from our resume until our round, by its schedstat alone: at
 * the resume (read while stopped, cont_ns just before PTRACE_CONT) and
 * now, the round's clock at round_ns.  Put on a CPU once since (its run
 * count one more) and its time on one grown by all the time since, but
 * for slack_ns: then it was running when our round took its CPU (round.c,
 * ran_until_us).  Taken off by another task first, and queued since, it
 * falls short by that task's time. */
bool ran_until(const struct sched_counts *at_resume, uint64_t cont_ns,
	       const struct sched_counts *now, uint64_t round_ns, uint64_t slack_ns);

/* Where a followed thread was seen after our resume of it, read from the
 * other CPU while it ran (capture.c, note_followed): its run count and
 * CPU then. */
struct placed_seen {
	bool known;
	uint64_t runs;  /* its schedstat's run count, read first */
	int cpu;        /* its stat's processor, read after */
};

/* Still on the CPU where it was seen after the resume, and on it all the
 * time since: put on a CPU once since the resume (resume_runs + 1) when it
 * was seen there, and not again by now (a running thread changes CPU only
 * by leaving one, which counts).  With ran_until and a wchan of a thread
 * in the state R, our round on that CPU took it from the thread at the
 * tick: its look needs no stat and no kernel stack (round.c,
 * held_by_us). */
bool still_where_placed(const struct placed_seen *placed, uint64_t resume_runs,
			const struct sched_counts *now, int cpu);

/* What an unwind was made from: a copy is the same as an earlier one when
 * all of this is. */
struct unwind_input {
	uint64_t sp, pc;
	uint64_t stack_start;
	size_t stack_len;
	uint64_t stack_hash;
	unsigned generation; /* modules_generation at the unwind */
};

/* The registers a stop found a thread asleep with, where a peek's sp and
 * pc alone could not unwind its stack (a frame found through rbp, in a
 * build that keeps a frame pointer).  A later sleep at the same sp and pc
 * is unwound with them, without a stop, and the unwind is kept only if it
 * finds the stop's frames again:
 *   - a register the unwind reads from the registers, not from a slot a
 *     frame saved it in, holds what an outer frame put there (a call keeps
 *     it); with the same sp, pc and frames, return address by return
 *     address to the outermost, that frame is the same call of the same
 *     function, its frame pointer where it was;
 *   - a wrong rbp reads return addresses from other slots of the copy
 *     (every byte of it a live frame's): the chain found then is not the
 *     stop's, and the thread is stopped as it would have been.
 * A PostgreSQL 15 of Debian's keeps rbp in WaitEventSetWait: every
 * ClientRead of its backends was a stop, asked after the peek failed.
 * Its backends sleep in epoll_wait at one pc and several sp's (a
 * ClientRead, a wait deeper in the executor): the registers of the last
 * SLEEP_PLACES places are kept. */
struct sleep_regs {
	uint64_t pc, sp;        /* where it slept: /proc's pc and sp; pc 0 none */
	uint64_t rbx, rbp, r12, r13, r14, r15; /* as the stop copied them */
	int n_frames;           /* the stop's unwind, complete: its frames */
	uint64_t frames_hash;   /* their addresses and kinds, hashed */
};

#define SLEEP_PLACES 4

struct sleep_places {
	struct sleep_regs at[SLEEP_PLACES];
	unsigned next;          /* the one a new place replaces */
};

/* Keeps the registers of a stop that found the thread asleep at `at`,
 * with its unwind (complete, n frames): in place of those of the same
 * place, else of the place kept longest. */
void sleep_regs_keep(struct sleep_places *g, const struct blocked_syscall *at,
		     const struct user_regs_struct *r, const struct unwound_frame *frames, int n);

/* Those of a stop that found it asleep where w says (the same pc and
 * sp), or NULL. */
const struct sleep_regs *sleep_regs_find(const struct sleep_places *g,
					 const struct blocked_syscall *w);

/* Any kept at pc? */
bool sleep_regs_at_pc(const struct sleep_places *g, uint64_t pc);

/* g's callee-saved registers into r (its sp and pc left as they are). */
void sleep_regs_lend(const struct sleep_regs *g, struct user_regs_struct *r);

/* An unwind with g's registers: the frames of g's stop? */
bool sleep_regs_same_frames(const struct sleep_regs *g, const struct unwound_frame *frames, int n);

/* The same sp, pc and stack bytes as the memory's unwind (and the same
 * modules)? */
bool memory_matches(const struct thread_memory *m, const struct unwind_input *in);

/* Keeps an unwind in the memory, with what it was unwound from. */
void memory_remember(struct thread_memory *m, const struct unwind_input *in,
		     const struct unwound_frame *frames, int n, int complete);

/* A blocked thread read without a stop and counted: its frames are the
 * memory's now.  consistent: its run count was runs before and after the
 * read, so that the memory is proven current while the count stays there. */
void memory_after_peek(struct thread_memory *m, bool consistent, uint64_t runs);

/* What a stop that copied a thread tells the memory besides its unwind. */
struct stop_facts {
	bool runs_known;       /* its run count, read while it was stopped */
	uint64_t runs;
	bool group_stop;       /* stopped in a group stop (SIGSTOP, Ctrl-Z) */
	unsigned group_stops;
	/* Our stop took it out of a blocking call (or one it was entering):
	 * until it runs to restart the call, /proc says R because of us. */
	bool aborted;
	char state_before;     /* what it showed before our stop (S, D) */
	struct blocked_syscall where; /* the call, from its registers */
};
void memory_after_stop(struct thread_memory *m, const struct stop_facts *f);

/* Does a stop's copy describe the ticks at which the thread was seen
 * blocked (S or D) before the stop was asked?  Only if it ran no user
 * code in between: it trapped at a system call's boundary (at_syscall:
 * our interrupt took it out of its wait, or the wait ended and it trapped
 * on its way out) and was put on a CPU at most once since the look (the
 * wake-up that brought it to the trap; look_runs: the run count the look
 * read).  A thread that woke by itself in between, ran and was caught in
 * its work has moved on: the copy is of a later moment, and those ticks
 * get no user stack rather than that one.  Periodic threads at 10 ms had
 * 0.8 % of their samples asleep in nanosleep over their work's frames,
 * which read their work 1-2 points over their own clock. */
bool stop_shows_blocked_tick(const struct stop_facts *f, bool at_syscall, bool look_runs_known,
			     uint64_t look_runs);

/* A stop that found the thread still where our last stop left it (parked,
 * nothing copied): only its run count is new. */
void memory_after_parked_stop(struct thread_memory *m, bool runs_known, uint64_t runs);

/* A 64-bit fingerprint of a stack copy. */
uint64_t stack_hash(const uint8_t *p, size_t n);

#endif
