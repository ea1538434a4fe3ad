/* cut.h - the run's cut stacks, counted for the summary.
 *
 * A stack is cut when its unwind did not reach the frame a thread's stack
 * begins with: it ends, at its root side, in "[truncated]" (unwind.h's
 * FRAME_TRUNCATED, as naming keeps it: program.h).  Naming counts its
 * samples here, each distinct stack once with its count, by the module
 * where the unwind stopped (its outermost frame): "[libfoo.so]", "[anon]"
 * for JIT code, "[unknown]".  The summary reads the tally once the run is
 * named (cli/summary.c, through sampler_result).  The tally is the
 * run's (program_shared); a lock keeps it whole whichever thread names.
 */
#ifndef PTRACE_PROFILER_CUT_H
#define PTRACE_PROFILER_CUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define CUT_MODULES_MAX 32     /* modules counted apart; the rest only in all */
#define CUT_MODULE_NAME_MAX 96

struct cut_module {
	char name[CUT_MODULE_NAME_MAX]; /* as a frame names it: "[libc.so.6]" */
	bool anon;                      /* anonymous executable memory: JIT code */
	uint64_t samples;
};

struct cut_tally {
	uint64_t samples;       /* cut samples in all */
	struct cut_module most; /* the module with the most of them (samples 0: none) */
};

/* A run's cut stacks so far. */
struct cuts {
	pthread_mutex_t lock;                      /* whichever thread names */
	uint64_t samples;                          /* cut samples in all */
	struct cut_module modules[CUT_MODULES_MAX]; /* the first modules seen */
	size_t n_modules;
};

/* None yet; cuts_end when done with them. */
void cuts_start(struct cuts *c);
void cuts_end(struct cuts *c);

/* samples cut samples, stopped in module (a frame's name for it). */
void cut_count(struct cuts *c, const char *module, bool anon, uint64_t samples);

/* The tally so far. */
struct cut_tally cut_tally(struct cuts *c);

#endif
