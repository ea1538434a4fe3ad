/* selfcheck.h - does the profile agree with the kernel about each thread?
 *
 * For every thread the sampler reads schedstat at each tick: the time the
 * kernel says it spent on a CPU.  Its share of samples in "R (running)"
 * should be that time over the same span.  When the two differ by more
 * than SELFCHECK_POINTS and by more than SELFCHECK_SIGMAS standard errors,
 * the profile is not telling the truth about that thread (the sampler was
 * late, or shared its CPU), and the summary says so first, with both
 * figures and what to do.  The same for its time queued for a CPU: its
 * share of samples in "R (runnable)" against schedstat's second field,
 * the time it waited on a run queue (on a saturated machine a look that
 * comes late finds a thread that had slept queued, or the other way
 * round; issue 42 found MariaDB's connection threads 52 % runnable in
 * the profile against 61 % by schedstat).  What is left is asleep: with
 * both right, so is that.
 *
 * Samples of one thread are not independent (a burst of 1 ms is ten
 * samples at -d 100us), so the standard error is not the binomial one:
 * the run is cut into batches of time, the difference is taken batch by
 * batch, and the error is that of their mean, never less than that of
 * independent samples at the kernel's share (a few dozen batches of a few
 * samples each can spread less than chance does).
 *
 * Four standard errors, not three: every thread is judged, and at three
 * one correct thread in 370 would be called wrong (a server has hundreds;
 * the truth tests judge some 25 per run and saw it speak in 1 of 20 runs
 * at -d 10ms); at four, one in 16 000.  The cases it is for are far
 * beyond it (2 % sampled against 8 %: ten errors and more).
 *
 * Pure: the sampler feeds it; unit-tested.
 */
#ifndef PTRACE_PROFILER_SAMPLE_SELFCHECK_H
#define PTRACE_PROFILER_SAMPLE_SELFCHECK_H

#include <stdbool.h>
#include <stdint.h>

#define SELFCHECK_BATCHES 32
#define SELFCHECK_FIRST_BATCH_NS 100000000ULL /* doubled when the batches are full */
#define SELFCHECK_POINTS 3.0   /* percentage points */
#define SELFCHECK_SIGMAS 4.0
#define SELFCHECK_MIN_BATCHES 5
#define SELFCHECK_MIN_SAMPLES 200

/* What a thread's samples are checked for. */
enum selfcheck_kind {
	SELFCHECK_ON_CPU,  /* "R (running)" against schedstat's time on a CPU */
	SELFCHECK_QUEUED,  /* "R (runnable)" against its time waiting for one */
};

struct selfcheck_batch {
	uint64_t samples, on_cpu, queued; /* counted in it */
	uint64_t wall_ns, run_ns, wait_ns; /* schedstat's span: time, on a CPU, queued */
};

struct selfcheck_thread {
	uint64_t batch_ns;            /* this thread's batch length */
	uint64_t batch_start_ns;      /* when the current batch began */
	uint64_t last_ns, last_run_ns, last_wait_ns; /* schedstat at its last read */
	bool seen;
	unsigned n;                   /* batches begun */
	struct selfcheck_batch b[SELFCHECK_BATCHES];
};

/* A schedstat read at now_ns: the thread's time on a CPU so far, and
 * queued for one. */
void selfcheck_sched(struct selfcheck_thread *c, uint64_t now_ns, uint64_t run_ns,
		     uint64_t wait_ns);

/* count samples counted for the thread, on_cpu of them "R (running)",
 * queued "R (runnable)". */
void selfcheck_samples(struct selfcheck_thread *c, uint64_t count, uint64_t on_cpu,
		       uint64_t queued);

struct selfcheck_verdict {
	bool disagrees;
	double sampled, kernel; /* percent: samples of the kind, schedstat's */
	double error;           /* standard error of the difference, points */
	unsigned batches;
};

/* The whole-run figures for kind (as the summary prints them: of its
 * samples, in_kind were of it; schedstat gave it kernel_percent of the
 * time) and whether they disagree beyond chance. */
struct selfcheck_verdict selfcheck_judge(const struct selfcheck_thread *c, enum selfcheck_kind kind,
					 uint64_t samples, uint64_t in_kind, double kernel_percent);

#endif
