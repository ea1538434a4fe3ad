/* sampler.h - the tick loop: read /proc, stop, copy, resume, then unwind,
 * name and count while the target runs. */
#ifndef PTRACE_PROFILER_SAMPLER_H
#define PTRACE_PROFILER_SAMPLER_H

#include <stdint.h>
#include <stdio.h>

#include "aggregate.h"
#include "options.h"
#include "oracle.h"
#include "stats.h"
#include "target.h"

struct sampler_result {
	uint64_t rounds;           /* ticks sampled */
	uint64_t samples;          /* thread samples taken */
	uint64_t unstopped;        /* of which taken without stopping */
	uint64_t skipped_ticks;    /* ticks dropped because we overran */
	uint64_t unwind_failures;  /* unwinds that stopped on an error */
	uint64_t stop_timeouts;    /* threads that did not stop in time */
	uint64_t wall_ns;          /* first tick to end */
	uint64_t cpu_ns;           /* our user+system CPU over the same time */
	struct duration_hist frozen; /* per-sample stopped time */
	struct duration_hist work;   /* per-sample profiler work after resume */
};

/* Samples until -n/-t is reached, *quit is set, or the target exits.
 * Folded output aggregates into table; stap output is written to out as
 * samples come.  With Oracle addresses in o, each sample also gets the
 * session's wait event (names may be NULL).  Returns 0, or -1 on an
 * output error. */
int sampler_run(const struct options *o, struct target *ts, size_t n_targets,
		const struct event_names *names, struct stack_table *table,
		FILE *out, volatile int *quit, struct sampler_result *r);

/* The stderr summary. */
void sampler_print_summary(FILE *f, const struct options *o,
			   const struct target *ts, size_t n_targets,
			   const struct sampler_result *r);

#endif
