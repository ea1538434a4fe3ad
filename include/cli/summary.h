/* summary.h - the end-of-run summary on stderr: the rate achieved, each
 * thread's samples beside what its schedstat says it spent on a CPU, what
 * the stops cost the target, and what the profiler itself spent.  When a
 * thread's samples and its schedstat disagree beyond chance (selfcheck.h)
 * the summary starts with a warning that says so and what to do.  Each
 * line within 100 columns, some 25 lines in all whatever the number of
 * threads and processes; -v adds how the samples were read and timed. */
#ifndef PTRACE_PROFILER_SUMMARY_H
#define PTRACE_PROFILER_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "options.h"
#include "sample/sampler.h"
#include "tracee/target.h"

/* s: the sampler, for its threads' figures (NULL: none). */
void summary_print(FILE *f, const struct options *o, const struct target *ts, size_t n_targets,
		   const struct sampler *s, const struct sampler_result *r);

/* Our own peak resident set (VmHWM), for the summary: 0 if /proc does
 * not say. */
uint64_t summary_peak_rss_kb(void);

/* The self-check's warning of one kind, into out: that n_threads
 * threads' samples of kind disagree with their schedstat, what to do,
 * then (a second line, indented) the figures of t, the worst of them.
 * No newline at the end; each line within 100 columns for a comm of 15
 * and a tid of 7 digits. */
const char *summary_check_line(const struct options *o, const struct thread_figures *t,
			       enum selfcheck_kind kind, size_t n_threads, char *out, size_t outsz);

/* --pg-queries' time model (pgtime.h), as the summary prints it: how
 * many statement shapes and their share of the taken samples, the ten
 * heaviest each with its share of them, its share on a CPU and its top
 * three wait events as shares of its own samples, then the sessions'
 * states outside a statement, and how many samples were read before the
 * server computed their statement's id (pgtime.h's renamed_samples).
 * reads: t counts the report's reads, not samples (said so; on a CPU
 * there means no wait event). */
void summary_time_model(FILE *f, const struct pg_time *t, uint64_t taken, bool reads);

/* The start of a process's line: "  process PID NAME N threads now",
 * NAME its comm followed, where the root frames name it by more (a
 * backend type, a title: sampler_process_words), by those words:
 * "  process 1234   postgres client backend 1 thread now".  No newline:
 * the line goes on with what ended. */
void summary_process_head(FILE *f, pid_t pid, const char *comm, const char *words,
			  size_t n_threads);

/* How many of n rows a table of at most cap shows: all of them when
 * only one or two more would be summed, else cap (the rest in one line). */
size_t summary_rows_shown(size_t n, size_t cap);

/* "10 ms", "100 us", "2.5 s", "1157 days": a duration as a person reads
 * it, into out: a space before the unit, three significant digits
 * (rounded), up to days.  Returns out.  The output files spell a duration
 * exactly instead ("1.5ms", "1234.567us"): numbers.h's format_ns. */
const char *format_duration(uint64_t ns, char *out, size_t outsz);

#endif
