/* sampler.h - the tick loop.
 *
 * Ticks fall at random intervals around -d (schedule.h).  At each, one
 * round looks at every thread of every target (round.h): what is proven
 * unchanged is reused, a blocked thread is read without a stop where it
 * can be, the others are stopped just long enough to copy registers and
 * the live stack (capture.h); unwinding and counting happen while the
 * target runs, and naming after the run (program.h).  Between rounds the
 * sampler keeps off the CPUs the target's threads want (placement.h).
 */
#ifndef PTRACE_PROFILER_SAMPLER_H
#define PTRACE_PROFILER_SAMPLER_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/aggregate.h"
#include "profile/cut.h"
#include "options.h"
#include "profile/profile.h"
#include "db/oracle.h"
#include "db/pgtime.h"
#include "base/stats.h"
#include "sample/selfcheck.h"
#include "sample/stop_cost.h"
#include "tracee/switch_regs.h"
#include "tracee/target.h"

struct sampler_result {
	uint64_t ticks;            /* ticks the samples stand for (-n counts them) */
	uint64_t rounds;           /* rounds run: one per tick, but for */
	uint64_t merged_ticks;     /* ticks due while a round ran, counted with it */
	uint64_t first_round_ns, last_round_ns; /* when the first and last began */
	uint64_t first_due_ns, last_due_ns; /* the first and last tick counted */
	uint64_t samples;          /* thread samples counted */
	uint64_t reused;           /* of which known to be unchanged: no reads */
	uint64_t still;            /* of which by their run count alone (cold.h) */
	uint64_t still_unmoved;    /* of which by their switches' record: no read */
	uint64_t peeked;           /* of which blocked threads read without a stop */
	uint64_t peeked_early;     /* peeks read before their look (capture.h) */
	uint64_t peeked_lent;      /* of which unwound with an earlier stop's
				      registers (decide.h, sleep_regs) */
	uint64_t lent_refused;     /* peeks whose unwind with them found other
				      frames: stopped instead */
	uint64_t copies_extended;  /* peeks whose copy, cut above the frames the
				      last unwind read, was too short */
	uint64_t words_foreign;    /* words found another process's when counted */
	uint64_t words_reused;     /* a process's words not read again: none of it ran */
	uint64_t read_ticks;       /* the report's read ticks (activity_reads.h) */
	uint64_t read_through;     /* words they read through one process */
	uint64_t read_own;         /* and each process its own way */
	uint64_t read_cpu_ns;      /* our CPU in the read ticks, wake-ups included */
	struct switch_stats switches; /* registers from their switches (switch_regs.h) */
	uint64_t queued;           /* stops of threads queued for a CPU */
	uint64_t woke_in_round;    /* looks that found R a thread asleep at the
				      round's start, not run since: counted
				      asleep (round.c) */
	uint64_t no_user_stack;    /* samples of threads that never stopped */
	uint64_t kernel_late;      /* peeks whose thread woke while its kernel
				      frames were read: counted without them */
	uint64_t skipped_ticks;    /* ticks missed: due before a late round began */
	uint64_t unwind_failures;  /* unwinds that stopped on an error */
	uint64_t stop_timeouts;    /* stops still pending 200 ms after the ask */
	uint64_t wall_ns;          /* first tick to end */
	uint64_t cpu_ns;           /* our user+system CPU over the same time */
	uint64_t naming_ns;        /* naming the stacks, after detaching */
	struct detach_stats detach; /* letting the targets go (the caller's) */
	struct stop_cost stop_cost; /* a stop's unseen cost, measured after (the caller's) */
	unsigned images_opened;    /* ELF files read, once for every process */
	struct cut_tally cut;      /* stacks cut short, once named (cut.h) */
	uint64_t peak_rss_kb;      /* our own peak resident set (VmHWM), 0 if unknown */
	unsigned maps_reads;       /* reads of /proc/PID/maps after the first */
	/* Misses that did not re-read the maps, the last read too recent
	 * (modules.h: modules_skips), over every process */
	uint64_t maps_skipped;     /* look-ups left unknown so */
	unsigned maps_skipped_addrs; /* distinct addresses among them (per process) */
	bool maps_skipped_more;    /* and more, not told apart */
	uint64_t maps_read_max_ns; /* the slowest read of a process's maps */
	uint64_t maps_wait_max_ns; /* the longest a miss had to wait after one */
	int nice;                  /* the sampler's nice value */
	bool realtime;             /* it ran under SCHED_FIFO */
	bool short_slice;          /* and its 0.1 ms slice was accepted */
	uint64_t lifts;            /* times naming between ticks was lifted for one (priority.h) */
	unsigned cpu_moves;        /* times the sampler moved (placement.h) */
	unsigned cpu_follows;      /* of them, to a followed thread's CPU */
	unsigned follow_moves;     /* moves again after one, the thread pulled over */
	unsigned followed_threads; /* threads followed to their CPU */
	uint64_t resumed_here;     /* of their stops, resumed on their CPU (resume_here.h) */
	uint64_t resumed_visited;  /* of those, taken by the helper's visit: no wake-up sent */
	uint64_t armed_ahead;      /* timed ticks whose timer was armed a round before */
	uint64_t held_looks;       /* their looks by schedstat and wchan alone (round.c) */
	uint64_t copied;           /* their samples from the kernel's copy as our tick
				      took the CPU: no stop (capture.c, switch_copy.h) */
	uint64_t copy_unknown;     /* held stops made though a copy came: its
				      address's call not known yet (call_sites.h) */
	int copy_refused;          /* why no copy could be made (errno; 0 none refused) */
	uint64_t yields_unbounded; /* their traps waited for in waitpid, the helper
				      watching (resume_here.h) */
	uint64_t yields_ended;     /* of those, waits the helper ended */
	uint64_t assumed_frames;   /* of those, stops whose kernel frames the
				      call's shape gave (records.h, call_frames) */
	double highest_scale;      /* --max-overhead: ticks at most this many times rarer */
	int cpus;                  /* the machine's CPUs, online */
	double steal_share;        /* of the CPUs' time over the run, what the
				      hypervisor took (steal); -1 unknown */
	bool idle_known;           /* idle_share was read */
	double idle_share;         /* of the CPUs' time over the run, idle (with
				      iowait): what our CPU did not take from
				      others */
	uint64_t family_joined;    /* --subprocesses: processes seized on the way */
	uint64_t family_full;      /* not seized: no room for more processes */
	uint64_t family_exiting;   /* --pg-wait-events: seized as they exited
				      (their program gone): no words, nor a
				      line each */
	uint64_t family_no_room;   /* processes whose PostgreSQL state was not
				      read: we were out of descriptors */
	uint64_t family_not_pg;    /* --pg-wait-events: processes that are no
				      PostgreSQL server (the first said) */
	uint64_t family_exec_gone; /* processes that ended as they ran a new
				      program, before it could be read */
	/* --period: what ended, let go after its window (retire.h) */
	uint64_t retired_processes; /* processes whose slot was let go */
	uint64_t retired_samples;  /* their samples */
	uint64_t retired_signals;  /* signals forwarded to them */
	uint64_t retired_threads;  /* thread records let go */
	uint64_t family_deferred;  /* scans that left new processes for the
				      next (FAMILY_SEIZE_MAX) */
	uint64_t start_unix_ns;    /* wall clock at the first tick */
	char error[160];           /* why the run failed, "" if it did not */
	struct duration_hist frozen; /* per-stop stopped time */
	struct duration_hist work;   /* per-sample profiler work after resume */
	struct duration_hist round;  /* a round, from its start until it let
					the last thread go */
	/* PostgreSQL processes' status (--pg-queries, --no-idle; count.c) */
	uint64_t left_out;         /* --no-idle: samples in an idle wait, not in
				      the profile (nor in samples) */
	uint64_t status_reads;     /* status reads, */
	uint64_t status_ns;        /* the time they took, */
	uint64_t status_reused;    /* and reads saved: no thread ran since */
	bool query_ids;            /* the server computes query ids */
	struct pg_time pg_time;    /* --pg-queries: the time model; freed
				      with the sampler */
	struct pg_time read_time;  /* the same from the report's reads, every
				      process at every tick (activity_reads.h):
				      no wait event counts as on CPU; freed
				      with the sampler */
};

struct sampler;
struct namer;

/* What the summary says of one thread. */
struct thread_figures {
	pid_t pid, tid;
	const char *comm;
	bool ended;               /* gone before the end of the run */
	uint64_t samples, samples_on_cpu;
	uint64_t samples_queued;  /* "R (runnable)" */
	bool sched_known;         /* schedstat was read at two ticks or more */
	double sched_on_cpu;      /* percent of its time on a CPU, by schedstat */
	double sched_queued;      /* percent queued for one, by schedstat */
	double stopped;           /* percent of its time stopped by us */
	double held;              /* percent queued for the CPU our rounds held
				     before its stop (our tick preempted it) */
	uint64_t lost_ns;         /* held, stopped, and queued after: in all */
	uint64_t running_stops;   /* stops that took it off a CPU */
	double running_stopped;   /* of stopped, percent in those */
	double running_waited;    /* of waited_after, percent after those */
	uint64_t offcpu_pairs;    /* pairs of those that measured one's time
				     off a CPU (overhead.h), */
	double offcpu_ns;         /* their mean */
	double kernel_ns;         /* its time in the kernel over span_ns (stat's
				     stime), < 0 unknown */
	double span_ns;           /* the time its figures are shares of */
	double waited_after;      /* percent of its time queued for a CPU right
				     after our resumes (schedstat's wait,
				     read at its next look) */
	double lowest_rate;       /* --max-overhead: of its ticks that needed a
				     stop, the lowest share that had one */
	struct selfcheck_verdict check;       /* on a CPU */
	struct selfcheck_verdict queue_check; /* queued for one */
};

/* The threads met in the run, in the order they were met (n in *n). */
size_t sampler_thread_count(const struct sampler *s);
void sampler_thread_figures(const struct sampler *s, size_t i, struct thread_figures *out);

/* Did any stop take a thread off a CPU?  (Then what that costs beyond
 * the stop is worth measuring: stop_cost.h.) */
bool sampler_stopped_running(const struct sampler *s);

/* What the root frames call process pid besides its comm (count.c's
 * root_frame): its backend type ("client backend") or the title it gave
 * itself ("nginx: worker process"); NULL when neither, or s is NULL. */
const char *sampler_process_words(const struct sampler *s, pid_t pid);

/* Samples of process pid's ended threads whose records were let go
 * (retire.h): sampler_thread_figures no longer has them.  0 if none. */
uint64_t sampler_retired_samples(const struct sampler *s, pid_t pid);

/* Reads the modules of every target.  ts has room for cap_targets: with
 * --subprocesses the descendants seized on the way are added there, and
 * *n_targets follows.  Folded stacks are counted into
 * table (stap samples are written to out as they come); with Oracle
 * addresses in o, each sample also gets the session's wait event (names
 * may be NULL).  NULL (with a message on stderr) if it cannot. */
struct sampler *sampler_new(const struct options *o, struct target *ts, size_t *n_targets,
			    size_t cap_targets, const struct event_names *names,
			    struct stack_table *table, FILE *out);

/* Samples until -n/-t is reached, *quit is set, or the targets exit.
 * Returns 0, or -1 on an output error. */
int sampler_run(struct sampler *s, volatile int *quit, struct sampler_result *r);

/* After detaching (naming reads symbols and debug info and can take a
 * while; a traced target would wait for us meanwhile): names every stack
 * still counted by address into the table.  0, or -1 when out of memory. */
int sampler_name_stacks(struct sampler *s, struct sampler_result *r);

/* The run's namer, every process's (for namer_hurry, namer_hurried). */
struct namer *sampler_namer(struct sampler *s);

/* After naming: the samples in time order (for the formats that keep
 * time; NULL otherwise) and the threads they name, into p. */
void sampler_profile(struct sampler *s, struct profile *p);

void sampler_free(struct sampler *s);

/* Continuous profiling (continuous.h), before sampler_run: with --period
 * the stacks are counted per window, and each window, cut after the round
 * that ends it, is named between the next ticks and handed to c; the last
 * one by sampler_name_stacks.  *dump, set by SIGUSR1, asks for the profile
 * so far (without --period: named at once and handed to c as a copy;
 * with --period: the current window ends, at least 1 s after it began). */
struct continuous;
void sampler_continuous(struct sampler *s, struct continuous *c, volatile sig_atomic_t *dump);

#endif
