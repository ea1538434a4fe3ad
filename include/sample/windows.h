/* windows.h - continuous profiling inside the sampler: --period windows
 * and the profile so far on SIGUSR1, handed to the writer (continuous.h).
 * The public switch is sampler_continuous (sampler.h). */
#ifndef PTRACE_PROFILER_SAMPLE_WINDOWS_H
#define PTRACE_PROFILER_SAMPLE_WINDOWS_H

#include "sample/state.h"

/* After each round: a window to cut, a SIGUSR1 to answer. */
void windows_round(struct sampler *s);

/* Until the next tick (deadline): name the window being closed. */
void windows_between_ticks(struct sampler *s, uint64_t deadline, volatile int *quit);

/* After naming (sampler_name_stacks): the window being named, then the
 * last one, to the writer.  0, or -1 when out of memory. */
int windows_last(struct sampler *s);

#endif
