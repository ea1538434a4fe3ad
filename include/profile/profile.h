/* profile.h - a finished run, as the output writers read it.
 *
 * Every format is written from this after the run: the distinct stacks and
 * their counts (folded, SVG, pprof) and, for the formats that keep time,
 * every sample in time order (speedscope, perf-script).  Frames are named
 * and sanitized already; a stack's frames are root first:
 *
 *   [0]   the root: the thread ("comm"), or with several processes
 *         "comm[PID]/thread", "postgres[PID] client backend" (its backend
 *         type or process title); with --group-by the type or "all"
 *   then  the query, when asked for (--pg-queries): "query=ID TEXT", or
 *         the session's state ("idle"...)
 *   then  the application's state, when asked for: "... (Oracle state)",
 *         "... (PostgreSQL state)" - every such frame ends in " state)"
 *         (or is "[no PostgreSQL state]")
 *   next  the OS state: "R (running)", "S (sleeping)" ... (procfs.h): a
 *         letter, a space and words in parentheses, which no frame before
 *         it looks like
 *   then  user frames outermost first; inlined ones end in "_[i]"
 *   last  kernel frames outermost first, each ending in "_[k]"
 */
#ifndef PTRACE_PROFILER_PROFILE_H
#define PTRACE_PROFILER_PROFILE_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "profile/aggregate.h"

struct activity; /* activity.h */

/* A thread that was sampled; with --group-by type or all, the processes
 * merged under one root instead: pid and tid 0, process and name the
 * root frame. */
struct profile_thread {
	pid_t pid, tid;
	const char *process; /* the process's comm */
	const char *name;    /* the thread's comm, as its root frame shows it */
};

/* One sample. */
struct profile_sample {
	uint64_t time_ns;   /* since the first tick */
	uint64_t weight_ns; /* the wall time it stands for: the interval to
			       the thread's previous sample (the first: -d) */
	uint32_t stack;     /* id in profile.stacks */
	uint32_t thread;    /* index in profile.threads */
};

/* The samples in time order, read one at a time: they may be more than
 * memory should hold.  next() gives 1 and fills *out, 0 at the end, -1 on
 * an error; rewind() starts over (0 or -1). */
struct sample_source {
	int (*next)(void *arg, struct profile_sample *out);
	int (*rewind)(void *arg);
	void *arg;
};

/* A file the target had mapped, for formats that name them (pprof). */
struct profile_module {
	const char *path;
	uint64_t start, end, offset; /* as mapped */
	const char *build_id;        /* hex, or NULL */
};

struct profile {
	const struct stack_table *stacks; /* distinct named stacks, ids 0..n-1 */
	const struct sample_source *samples; /* NULL: the format keeps no time */
	struct activity *activity;  /* the report's reads (activity.h); NULL none */
	const struct profile_thread *threads;
	size_t n_threads;
	const struct profile_module *modules;
	size_t n_modules;
	/* what the run was */
	const char *command;      /* the profiler's command line, as typed */
	const char *target;       /* "postgres (PID 1234)", "3 processes" */
	uint64_t interval_ns;     /* -d: the mean interval */
	uint64_t start_unix_ns;   /* wall clock at the first tick */
	uint64_t duration_ns;     /* first tick to the end */
	uint64_t total_samples;
};

/* One sample, every string already sanitized. */
struct sample_view {
	const char *thread;        /* root frame: the thread's comm */
	const char *query;         /* --pg-queries' frame; may be NULL */
	const char *app_state;     /* e.g. the Oracle wait event; may be NULL */
	const char *state;         /* "S (sleeping)" */
	const char *const *user;   /* outermost first */
	const uint64_t *user_ip;   /* same order; may be NULL */
	size_t n_user;
	const char *const *kernel; /* outermost first, "_[k]" appended */
	size_t n_kernel;
};

/* Root-first frame list of a sample: thread, query and app state (if
 * any), state, user, kernel.
 * Returns the number written (at most max). */
size_t sample_frames(const struct sample_view *s, const char **out, size_t max);

/* Reads every sample of p->samples from the start, checking each names a
 * stack and a thread that exist; fn returns 0 to go on.  Returns 0, or -1
 * (errno EINVAL: no samples or a bad one; else the source's or fn's). */
int sample_pass(const struct profile *p,
		int (*fn)(const struct profile_sample *s, void *arg), void *arg);

#endif
