/* records.h - the sampler and its records of threads and processes,
 * shared by the files of sample/ (the layers above see sampler.h only).
 * Each group of fields is a struct that says which file writes it.
 *
 * A tick's round goes (round.c): look at every thread without stopping
 * it (state, run count) and decide (decide.h); stop the threads that were
 * on a CPU, at once, one after the other (capture.c); then the blocked
 * threads that ran since: read without a stop where their stack allows,
 * else asked to stop and not waited for.  Each thread's observation of the
 * round waits in its record until the round ends; then every observation
 * is counted (count.c) for all the ticks the round stands for: its own and
 * those that fell due while it ran (schedule.h).  Between rounds the
 * sampler moves off the CPUs the target's threads want (placement.h).
 */
#ifndef PTRACE_PROFILER_SAMPLE_RECORDS_H
#define PTRACE_PROFILER_SAMPLE_RECORDS_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/priority.h"
#include "db/pgbackend.h"
#include "db/pgshape.h"
#include "db/pgstate.h"
#include "db/title.h"
#include "profile/activity.h"
#include "profile/program.h"
#include "profile/thread_list.h"
#include "sample/call_frames.h"
#include "sample/decide.h"
#include "sample/overhead.h"
#include "sample/placement.h"
#include "sample/resume_here.h"
#include "sample/sampler.h"
#include "sample/selfcheck.h"
#include "sample/tick_trace.h"

#define APP_STATE_MAX 320 /* an Oracle or PostgreSQL state frame */

/* What a round saw of one thread, counted when the round ends. */
struct observation {
	const char *state;  /* "R (running)"...: reported_state's, static */
	bool user;          /* with the memory's user frames (else none) */
	bool has_app;
	char app[APP_STATE_MAX];           /* the application's state frame */
	int n_kernel;                      /* kernel frames, outermost first, */
	char kernel[MEMORY_KERNEL_BYTES];  /* each NUL-terminated, "_[k]" */
	bool held;          /* ticks our stop held it through: as seen, never on a CPU */
};

/* The ticks of a thread asked to stop whose trap has not come yet: a
 * thread queued for a CPU runs no user code until it traps, so its user
 * stack then is the one it had at each of them.  Ticks alike (state,
 * kernel frames) are kept together. */
#define PENDING_TICKS 4
/* The application's words (app_set_words: Oracle's session state, a
 * PostgreSQL process's wait event) as a look read them. */
struct look_words {
	int n;                          /* 0: none wanted */
	int ok;                         /* read */
	pid_t tid;                      /* through this thread */
	uint64_t addr[SNAPSHOT_WORDS];
	uint32_t word[SNAPSHOT_WORDS];
};

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
	bool took_its_cpu;  /* it ran on our CPU and our tick preempted it:
			       until its trap it waits for the CPU we hold */
	bool frames_assumed; /* its first tick's kernel frames not read: the
				call's shape gives them (call_frames.h) */
	bool frames_check;   /* read while held by our tick: they teach it */
	uint64_t waited_ticks; /* ticks due meanwhile: R (runnable), as its
				  schedstat counts that time */
	uint64_t last_round; /* the round that added its last tick */
	bool look_words_known; /* its first tick a blocked look's, whose */
	struct look_words look_words; /* words were read first: for that
				   tick if the stop does not show it */
	int n_ticks;
	struct pending_tick ticks[PENDING_TICKS];
};

/* Whether the sampler follows a thread to its CPU, and what tells that
 * our tick holds it there (placement.h; capture.c writes the stops' and
 * the resume's fields, round.c the held ones). */
struct follow_copy;
struct follow_watch {
	/* its stops on another CPU than ours, and those of them that caught
	 * it leaving a system call (halved now and then: the recent ones
	 * count); past half, the sampler follows it to its CPU from then on */
	uint16_t far_stops, far_at_call;
	bool on;                /* followed */
	/* its last resume: its run count and time on a CPU read while it
	 * was stopped, and the clock just before PTRACE_CONT (round.c,
	 * ran_until_us); resume_known false: not read */
	bool resume_known;
	uint64_t resume_runs, resume_run_ns, resume_cont_ns;
	struct placed_seen placed; /* seen on a CPU after that resume (note_followed) */
	uint64_t held_round;    /* a round whose first read showed our tick took
				   its CPU (round.c, note_my_cpu), */
	struct sched_counts held_sc; /* its schedstat then */
	unsigned held_looks;    /* looks that read nothing else since its last
				   whole one (round.c, held_by_us) */
	struct follow_copy *copy; /* its registers and stack, copied by the
				     kernel as our tick takes its CPU
				     (capture.c; NULL: stopped instead) */
};

/* cold.h's: a thread asleep and not run for several looks is cold, proven
 * still by its run count first and its state in turn; its still ticks
 * are counted when it changes (cold.c writes it; family.c resets it at an
 * execve, capture.c its mark when its switches' ring is reused). */
struct cold_watch {
	char last_state;        /* stat's state at its last full look */
	unsigned quiet_looks;   /* looks in a row that found it so */
	bool on;                /* cold: COLD_QUIET_LOOKS of them */
	bool quiet_marked;      /* quiet_mark taken, its run count proven after */
	uint64_t quiet_mark;    /* its switches' record then (switch_regs.h) */
	uint64_t still_round;   /* a round that found it still */
	uint64_t still_ticks;   /* ticks found still, not counted yet, */
	uint64_t still_first_ns, still_last_ns; /* from, to */
};

/* What our stops cost a thread, for the summary's figures (capture.c
 * writes it as each stop ends; sampler.c's thread_figures reads it). */
struct stop_tally {
	uint64_t ns;            /* the stops' cost to it, in all */
	uint64_t running;       /* stops that took it off a CPU (stop_cost.h) */
	uint64_t running_ns;    /* of ns, theirs */
	struct overhead_offcpu offcpu; /* their time off a CPU, by its schedstat */
	uint64_t timeouts;      /* stops whose trap did not come in time */
	uint64_t held_ns;       /* queued for the CPU our round held (a thread
				   our tick preempted there): from the round's
				   start to its trap, and from the copy to
				   PTRACE_CONT (the resume armed meanwhile) */
};

struct owed_ticks;


/* A thread's schedstat and stat as one tick read them. */
struct sched_reading {
	uint64_t at_ns;        /* the tick */
	uint64_t run_ns;       /* schedstat: its time on a CPU */
	uint64_t wait_ns;      /* schedstat: its time queued for one */
	long long stime;       /* stat: its time in the kernel, clock ticks,
				  -1 unknown: what our stops cost it on its
				  CPU (the summary) */
};

/* The ticks due while one round runs that are read again (round.c). */
#define MID_TICKS 4
#define MID_APP_MAX 128 /* their state frames, cut there */

/* One tick due while a round ran, as that round's passes read the thread
 * then (round.c's mid_round_pass writes it, count.c counts it). */
struct mid_tick {
	struct sched_counts sc;
	char state;
	bool on_cpu;            /* R: executing then (its kernel stack said) */
	bool has_app;           /* asleep: the application's state frame then */
	char app[MID_APP_MAX];
	uint64_t at_ns;
};

/* What the rounds read of a thread around its look (round.c writes it;
 * count.c reads the look's schedstat and the mid ticks). */
struct round_reads {
	/* Read at the round's start, before any look (round.c, first pass):
	 * asleep then (S, D) and not put on a CPU since, a thread found R at
	 * its look woke after the tick and is sampled as it was at it; and
	 * with the same schedstat at its look, not run at all since: its
	 * stat then is still its stat, not read again. */
	uint64_t tick_round;    /* the round that read them; 0 none */
	struct task_stat tick_stat; /* its stat then */
	struct sched_counts tick_sc; /* its schedstat then */
	uint64_t first_round;   /* a round that looked at it first */
	uint64_t look_round;    /* the round of look_sc */
	struct sched_counts look_sc; /* its look's schedstat */
	uint64_t mid_round;     /* the round of mid[] */
	unsigned n_mid;         /* mid[]'s ticks */
	struct mid_tick mid[MID_TICKS]; /* the ticks due while it ran */
};

/* Ticks refused a stop (owed.c writes it; capture.c and count.c take
 * the owed ticks). */
struct refused_ticks {
	uint64_t round;         /* a round whose stop the budget refused, */
	unsigned char entry;    /* what it showed then (owed.h: an entry) */
	struct owed_ticks *owed; /* ticks refused a stop, not counted yet */
};

/* The ticks a round kept it stopped through (capture.c writes it, count.c
 * reads it). */
struct frozen_span {
	uint64_t round;         /* a round that kept it stopped, */
	uint64_t from_ns, to_ns; /* from, to */
};

/* What count.c has counted of it: its samples (the summary reads them)
 * and its last counted observation, stack and words. */
struct thread_counts {
	uint64_t samples;
	uint64_t on_cpu;        /* of samples, "R (running)" */
	uint64_t queued;        /* of samples, "R (runnable)" */
	uint64_t last_ns;       /* its last sample, for the next one's weight */
	uint32_t profile_index; /* in the thread list, + 1; 0 none */
	unsigned profile_window; /* of the window that list is (win.cut) */
	uint64_t obs_round;     /* the round of obs; 0 none */
	struct observation obs;
	/* Its last counted stack, and what it was counted from: the same
	 * again (an idle thread, tick after tick) is added by id. */
	uint64_t counted_key;
	struct program_stack counted;
	uint32_t obs_word;      /* the PostgreSQL wait word of obs (read with it) */
	bool obs_word_ok;
	bool obs_idle;          /* obs is in its idle wait (--no-idle: left out) */
	bool idle_run_known;    /* idle_run_ns read */
	uint64_t idle_run_ns;   /* its run time at its last observation
				   (asleep since?) */
};

/* How often a thread leaves a CPU, by its run count over windows of
 * SWITCH_WINDOW_NS: a watch costs it at each switch (capture.h;
 * capture.c writes and reads it). */
struct switch_rate {
	uint64_t window_runs;   /* its run count at the window's start */
	uint64_t window_ns;     /* the window's start */
	double per_s;           /* in the last whole window; < 0 not yet */
};

/* What its last captures say of where the next peek reads (capture.c
 * writes them; round.c reads read_early; family.c forgets them at an
 * execve). */
struct peek_hints {
	uint64_t stack_low, stack_top; /* the mapping holding sp; 0 unknown */
	uint64_t regs_pc;       /* pc of a sleep whose stack needed registers
				   a peek does not have (unwound through a
				   frame found through rbp): a sleep there
				   is stopped at once, not copied first,
				   unless at one of slept_regs's */
	struct sleep_places slept_regs; /* stops' registers asleep at regs_pc:
				   lent to a peek at their pc and sp (decide.h) */
	uint64_t unwind_top;    /* how far up its stack its last whole unwind
				   read: a peek's copy ahead ends
				   COPY_TOP_SLACK above it; 0 unknown */
	bool read_early;        /* its last look peeked: the next one's reads
				   come before it (capture_read_early) */
	uint64_t slept_sp;      /* sp of its last peek: the next one copies
				   from there, less PEEK_AHEAD_SLACK, before
				   reading where it sleeps; 0 unknown */
};

/* The sampler's record of one thread, kept for the whole run (the
 * summary reads it after the thread has ended).  The target's thread
 * points to it by slot (target.h).  Its identity and stop fields are
 * records.c's and capture.c's; each group below, its owner's. */
struct sampled_thread {
	pid_t pid, tid;
	size_t proc;            /* its process, in the sampler's list */
	char comm[COMM_MAX];    /* sanitized, as its root frame shows it */
	char comm_raw[COMM_MAX]; /* as stat gave it: sanitized again only when it changes */
	bool ended;
	bool retired;           /* let go (retire.h): a free record, no thread's */
	struct thread_memory *memory;  /* what samples proved (decide.h) */
	struct switch_watch *switched; /* its registers when it slept (switch_regs.h) */
	struct switch_rate switches; /* capture.c's */
	struct pending_stop *pending;  /* a stop whose trap has not come */
	bool pending_listed;    /* in the sampler's list of stops to poll (once,
				   however many stops it is asked for before
				   a poll prunes the list) */
	struct peek_hints peek; /* capture.c's */
	int last_cpu;           /* stat's processor at its last tick, -1 */
	struct follow_watch follow; /* followed to its CPU, and held there */
	struct thread_counts counts; /* count.c's */
	struct stop_tally stopped; /* what our stops cost it */
	struct overhead_thread cost; /* --max-overhead: its budget (overhead.h) */
	struct refused_ticks refused; /* --max-overhead: owed.c's */
	struct frozen_span frozen; /* capture.c's */
	/* Its schedstat at the first and the last tick that read it: what
	 * the kernel says it spent on a CPU, beside what the samples say
	 * (round.c writes them, the summary's figures read them). */
	bool sched_seen;
	struct sched_reading sched_first, sched_last;
	struct selfcheck_thread check;
	struct round_reads reads; /* round.c's */
	struct cold_watch cold; /* asleep and not run: looked at by its run count */
};

struct process {
	struct target *t;
	struct program *program;       /* the program running now */
	unsigned execs_seen;
	struct pg_process pg;          /* --pg-wait-events: its wait event word */
	/* Who it is (family.c): a PostgreSQL server process's type and
	 * status, read from its memory; another program's title, if it
	 * rewrote it; read when it is first seen and after an execve. */
	struct pg_backend pgb;
	bool pgb_ok;                   /* pgb opened: a PostgreSQL server */
	char title[TITLE_MAX + 1];     /* "" when none */
	/* Its status, read at most once per round at an observation (count.c):
	 * state, client backend or not, the query frame and its time-model
	 * entry; the wait word of its latest capture. */
	bool status_read;              /* status_run_ns is when it was read */
	uint64_t status_round;         /* the round of that read, or reuse */
	uint64_t read_round;           /* the round of the last read */
	uint64_t status_run_ns;        /* its threads' run time then */
	enum pg_state state;           /* PG_STATE_UNKNOWN when not read */
	bool client;
	char query[PG_QUERY_TEXT_MAX + 48]; /* "query=ID TEXT", "idle", "" */
	long query_entry;              /* in the time model; -1 not looked up */
	uint64_t shape_noted;          /* the text hash last noted in s->shapes */
	uint32_t word;
	bool word_ok;
	bool word_fresh;               /* read for a sample not counted yet */
	/* its root frame's id in the report's reads (activity_reads.h), and
	 * the bucket it was made in (made again in each: its type may be
	 * known since) */
	uint32_t read_root;            /* ACTIVITY_NONE: not read */
	uint32_t read_bucket;          /* read_root's bucket + 1; 0 none */
	/* --pg-queries: its statement's frame's id as its last read saw
	 * it, and which writing of its status slot that was */
	bool read_cc_known;
	int32_t read_cc;
	uint32_t read_query;           /* ACTIVITY_NONE: no statement */
	/* samples of its threads whose records were let go (retire.h) */
	uint64_t retired_samples;
	/* Its words as a thread not stopped last read them (app_read_words),
	 * and its threads' run time then: unchanged, they are unchanged. */
	struct words_read {
		bool valid;
		uint64_t run_ns;
		int n, ok;
		pid_t tid; /* read through */
		uint64_t addr[SNAPSHOT_WORDS];
		uint32_t word[SNAPSHOT_WORDS];
	} words;
};

/* A thread met in the look at every thread, for a later step: by its
 * process's index (the process list grows with --subprocesses) and its
 * tid, with where it stood in its target's list (which a scan compacts:
 * checked, then searched). */
struct thread_ref {
	size_t proc;
	pid_t tid;
	size_t hint;
};


/* The running threads of this round, with what the look read of them. */
struct deferred_stop {
	struct thread_ref ref;
	char state;
	bool by_runs, runs_known;
	struct sched_counts sc;
};

/* What the look at a blocked thread (one that ran since its last sample)
 * read at the tick, and its peek right after (capture_peek). */
/* A peek's reads made before the look (capture_read_early): the copy is
 * in the sampler's snapshot, cut at where's sp. */
struct early_read {
	bool done;
	uint64_t runs;                /* its run count before them */
	struct blocked_syscall where; /* where it slept */
	struct look_words words;      /* its process's words, with the stack */
};

struct blocked_look {
	struct thread_ref ref;
	char state;
	bool runs_known;
	struct sched_counts sc;
	struct early_read early;          /* read before it, if any */
	int n_kernel;                     /* its kernel frames then (0: not
					     read, or not of then), */
	char kernel[MEMORY_KERNEL_BYTES]; /* packed (frame.h) */
	struct look_words words;          /* and its process's words */
};

/* --period's windows and SIGUSR1's profiles so far.  Written by
 * windows.c (sampler.c starts the first window; count.c reads cut, family.c
 * the table). */
struct window_state {
	unsigned cut;          /* windows cut (their numbers) */
	unsigned dumps;        /* SIGUSR1 profiles written */
	uint64_t start_ns;     /* the current window's start, */
	uint64_t due_ns;       /* and when it is due to end */
	bool ends_early;       /* SIGUSR1 moved its end */
	uint64_t rounds;       /* the run's rounds, ticks and stopped time at */
	uint64_t ticks;        /* its start */
	uint64_t stopped_ns;
	struct stack_table *table; /* its named stacks */
	struct window *closing;    /* the last one cut, its stacks being named */
};

/* --period: what ended, let go once its window is handed over
 * (retire.h): records and process slots free for reuse.  Written by
 * retire.c; windows.c and capture.c ask for a pass (due), sampler.c makes
 * it and sets fixed. */
struct retire_state {
	bool due;              /* a window was handed over since the last pass */
	size_t fixed;          /* the processes given at the start: kept */
	size_t *records;       /* indices of records let go, */
	size_t n_records, cap_records;
	size_t *procs;         /* and process slots */
	size_t n_procs, cap_procs;
};

/* --max-overhead: the sampler's own CPU, checked now and then.  Written
 * by sampler.c's keep_own_cost alone; capture.c reads the scale. */
struct own_cost {
	double tick_scale;     /* the interval, as a multiple of -d */
	double highest_scale;  /* the highest held, for the summary */
	uint64_t checked_ns;   /* the last check: when, */
	uint64_t cpu_ns;       /* our CPU time then, */
	uint64_t rounds;       /* and the rounds made by then */
	bool settled;          /* past the first check (at 10 ms) */
	unsigned checks;       /* checks made: the fourth says the rate (stderr) */
};

/* The report's reads between rounds (activity_reads.h).  Written by
 * activity_reads.c; keep_own_cost reads the time they took and sets
 * their scale. */
struct reads_state {
	struct activity *series;  /* NULL: no reads (activity.h) */
	uint64_t due_ns;          /* the next read tick between rounds */
	double scale;             /* their interval, as a multiple of -d */
	uint64_t ticks;           /* read ticks, all of them */
	uint64_t cpu_ns;          /* our CPU in them: a round's read, and a
				     read tick between rounds from before
				     its sleep to its end (a wake-up is
				     most of it: 37 us on this VM) */
	uint64_t between;         /* read ticks between rounds, */
	uint64_t between_cpu_ns;  /* and their CPU */
	uint64_t checked_cpu_ns;  /* cpu_ns when keep_own_cost last looked */
	uint64_t scaled_between;  /* between and between_cpu_ns when their */
	uint64_t scaled_cpu_ns;   /* scale was last set */
	uint64_t traps_cpu_ns;    /* traps collected in their waits: not theirs */
	unsigned procs_read;      /* processes the last read tick read */
	/* Words read through one process (pgprocs.h): the offset of a
	 * PGPROC's pid from its word that two processes agree on (0: none
	 * yet; a first one seen, pid_seen), and the reads so made and made
	 * each process's own way. */
	int32_t pid_offset, pid_seen;
	uint64_t read_through, read_own;
	struct word_event {       /* the state frame's id of a word */
		const void *table; /* the version's table (pgwait.h) */
		uint32_t word;
		uint32_t id;       /* ACTIVITY_NONE: not cached */
	} events[64];              /* by the word's hash */
	struct query_frame {      /* --pg-queries: a statement id's frame */
		int64_t query_id;  /* 0: none cached */
		uint32_t id;       /* its text's id */
	} queries[128];            /* by the id's hash */
	long *time_entry;         /* --pg-queries: a statement frame's text id
				     -> its entry in the reads' time model */
	size_t n_time_entry;
	bool time_failed;         /* out of memory: the summary's model is
				     the samples' */
};

/* The round under way.  round.c begins and ends it; capture.c and
 * count.c read its tick and mark it committed, sampler.c and owed.c read
 * its number and tick.  Zeroed with the sampler. */
struct round_state {
	uint64_t number;       /* from 1 */
	bool committed;        /* its observations counted */
	uint64_t due_ns;       /* the tick it is for */
	uint64_t tick_ns;      /* when it began */
	uint64_t mid_due_ns;   /* the next tick due while it runs, 0 none */
	unsigned n_mid;        /* the passes it made */
	uint64_t released_ns;  /* when it last let a thread go (a resume, the
				  end of a look): work after that - unwinding,
				  counting - holds no thread, and ticks due
				  then are the next round's */
	struct deferred_stop *running; /* its running threads, as looked at */
	size_t n_running, cap_running;
	cpu_set_t wanted;      /* CPUs its threads want (placement.h) */
	cpu_set_t followed;    /* CPUs its followed threads are on */
};

/* The stops asked and the threads resumed, across rounds.  capture.c
 * asks, settles and resumes; round.c and windows.c wait for the
 * unsettled ones; retire.c drops ended threads from follow. */
struct stop_state {
	struct thread_ref *resumed;  /* resumed this round: where are they now? */
	size_t n_resumed, cap_resumed;
	struct thread_ref *follow; /* the threads followed (few: those caught
				      leaving system calls), ended ones dropped */
	size_t n_follow, cap_follow;
	/* The thread our tick preempted on this CPU, followed and asked to
	 * stop: its trap is slept for once every thread has been looked at
	 * and stopped (capture_yield), not at its stop - the CPU we let go
	 * runs other threads, and a look after that saw them later than the
	 * tick. */
	bool yield_wanted;
	struct thread_ref yield_to;
	/* stops whose trap has not come, each thread's counted once
	 * (capture_pending_held), and the list polled one by one */
	unsigned unsettled;
	struct thread_ref *pending;
	size_t n_pending, cap_pending;
};

/* What the run has said once on stderr about the processes it met
 * (family.c writes and reads it). */
struct said_once {
	/* PostgreSQL versions we have no tables for, said once a run each:
	 * their majors, 0 for one we could not tell */
	int pg_unknown[4];
	unsigned n_pg_unknown;
	bool not_pg;            /* a process that is no PostgreSQL server, said
				   (the next ones counted in the summary) */
};

/* The CPU this round runs on, and when we got it (our own
 * se.exec_start): a target thread on the same CPU that stopped running at
 * that very instant was preempted by us (round.c writes it; capture.c
 * reads cpu). */
struct own_cpu {
	int cpu;
	bool start_read;        /* start_ns read this round */
	bool start_known;       /* and found */
	uint64_t start_ns;
	int sched_fd;           /* /proc/thread-self/sched; -2 unreadable */
};

/* How often cold threads get their full look (cold.c writes it; round.c
 * adds to look_ns what a look at a cold thread took). */
struct cold_pace {
	uint64_t every;         /* a full look every this many rounds */
	size_t n;               /* cold threads, at the last round's end */
	uint64_t look_ns;       /* what a look at a cold thread costs, averaged */
};

struct sampler {
	const struct options *o;
	const struct event_names *names;
	struct program_shared shared; /* the run's files and their names */
	struct cuts cuts;             /* its cut stacks (shared.cuts) */
	FILE *out;
	struct sampler_result *r;
	struct target *ts;
	size_t n_targets, cap_targets;
	size_t *n_out;         /* the caller's count, kept up to date */
	struct process *procs;
	size_t cap_procs;      /* (n_targets of them are in use) */
	struct sampled_thread **blocks; /* every thread met, in order, 64 a */
	size_t n_threads, cap_threads;  /* block: a record never moves */
	size_t cap_blocks;
	struct stack_table *table; /* where every program's stacks are named */
	struct timeline *timeline; /* the formats that keep time; else NULL */
	struct thread_list threads;    /* the threads sampled, for them (with
					  --period: in the window) */
	uint64_t start_ns;     /* the first tick */
	int error;             /* errno of the first failure, 0 if none */
	struct snapshot *snap; /* one copy buffer, reused by every capture */
	struct switch_regs *switches; /* the threads watched for their registers */
	int copy_refused;              /* why no switch copy could be made (errno; 0: none
					  refused): none is tried again (switch_copy.h) */
	size_t copies_open;            /* followed threads' copies open now (capture.c) */
	struct round_state cur; /* this round (round.c's) */
	struct stop_state stops; /* its stops and resumes (capture.c's) */
	struct call_frames call_frames; /* a held thread's kernel frames (capture.c's) */
	struct said_once said; /* family.c's */
	struct own_cpu me;     /* round.c's */
	struct placement placement;
	struct priority_report prio;   /* the sampler's scheduling (priority.h) */
	struct priority_lift *lift;    /* back to SCHED_FIFO for a tick; made on first naming */
	struct resume_here *here;      /* resumes a followed thread on its CPU; NULL: cannot */
	const struct schedule *sched;  /* the ticks' (sampler_run's), for the next one's time */
	bool tick_timed;               /* the next tick is here's timer's (resume_here.h) */
	uint64_t timed_ns;             /* and due then (the schedule's, or one after) */
	bool lift_tried;               /* made, or could not be */
	struct cold_pace cold; /* cold.c's */
	uint64_t last_poll_ns; /* pending traps polled last during the look */
	struct own_cost own;   /* --max-overhead's of our CPU (sampler.c) */
	struct reads_state reads; /* the report's reads (activity_reads.c) */
	int cpus;              /* the machine's, online */
	struct tick_trace *trace; /* PTRACE_PROFILER_TICK_TRACE, else NULL */
	/* --subprocesses */
	uint64_t last_family_scan;
	pid_t *pg_skipped;     /* --pg-wait-events: descendants not followed */
	size_t n_pg_skipped, cap_pg_skipped;
	/* --period and SIGUSR1 (windows.c) */
	struct continuous *cont;
	volatile sig_atomic_t *dump;
	struct window_state win;
	/* --pg-queries: the server's id of each statement text read (pgshape.h) */
	struct pg_shape_ids shapes;
	struct retire_state retire; /* --period: what ended, let go (retire.c) */
};

/* A reference to th, of process p. */
static inline struct thread_ref thread_ref_of(const struct sampler *s, const struct process *p,
					      const struct thread *th)
{
	return (struct thread_ref){ (size_t)(p - s->procs), th->tid,
				    (size_t)(th - p->t->threads) };
}

/* The first failure ends the run; its reason (what, and the errno err,
 * which the caller gives: never a stale one) goes to the summary. */
void sampler_fail(struct sampler *s, const char *what, int err);

/* The sampler's record of th (made at first sight), of process p; NULL
 * when out of memory. */
struct sampled_thread *sampled_of(struct sampler *s, struct process *p, struct thread *th);

/* A target thread wants CPU cpu now (placement.h). */
static inline void sampler_want_cpu(struct sampler *s, int cpu)
{
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_SET(cpu, &s->cur.wanted);
}

/* The i-th thread met. */
static inline struct sampled_thread *sampled_at(const struct sampler *s, size_t i)
{
	return &s->blocks[i / 64][i % 64];
}


/* The process a target belongs to; the thread a reference names (NULL if
 * it is gone from the list). */
struct process *process_of(struct sampler *s, const struct target *t);
struct thread *thread_of(struct sampler *s, const struct thread_ref *ref);

/* After an execve of p: the old program's modules describe what its
 * stacks ran; they are kept, unchanging, to name them after the run
 * (family.c). */
void follow_exec(struct sampler *s, struct process *p);

#endif
