/* windows.h - continuous profiling inside the sampler: --period windows
 * and the profile so far on SIGUSR1, handed to the writer (continuous.h).
 * The public switch is sampler_continuous (sampler.h). */
#ifndef PTRACE_PROFILER_SAMPLE_WINDOWS_H
#define PTRACE_PROFILER_SAMPLE_WINDOWS_H

#include "sample/schedule.h"
#include "sample/records.h"

/* After each round: a window to cut, a SIGUSR1 to answer. */
void windows_round(struct sampler *s);

/* Until deadline (the next tick of sc, or the run's end): name the
 * window being closed.  The ticks a naming that ran past the tick makes
 * the sampler skip are counted at sc's interval now (-d, or further apart
 * under --max-overhead). */
void windows_between_ticks(struct sampler *s, uint64_t deadline, const struct schedule *sc,
			   volatile int *quit);

/* After naming (sampler_name_stacks): the window being named, then the
 * last one, to the writer.  0, or -1 when out of memory. */
int windows_last(struct sampler *s);

#endif
