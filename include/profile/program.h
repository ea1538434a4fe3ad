/* program.h - one program of a process, and its stacks still to be named.
 *
 * A program is what unwinds and names the addresses of one process image:
 * its modules, the unwinder over them, the symbolizer, and the stacks
 * counted by address while sampling.  The files it maps and their names
 * are the run's (program_shared): read once for every process and exec.  Naming reads symbols and debug info
 * (a tenth of a second for glibc's), so stacks are named after the run,
 * as perf report does; ticks missed meanwhile would be missing from the
 * profile.  An execve retires the program: it keeps its modules, frozen,
 * and what its JIT wrote into /tmp/perf-PID.map (the file is the new
 * program's from then on), to name what ran in it, and a new one starts.
 */
#ifndef PTRACE_PROFILER_PROGRAM_H
#define PTRACE_PROFILER_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/aggregate.h"
#include "unwind/modules.h"
#include "profile/profile.h"
#include "name/symbolize.h"
#include "profile/timeline.h"
#include "unwind/unwind.h"

/* --period: the stacks a window counted, named while the next one is
 * sampled (program_cut, program_name_batch). */
struct program_batch {
	struct stack_table *pending;   /* by address; NULL: no batch */
	uint32_t *ids;                 /* their timeline ids, by pending id */
	struct stack_table *named;     /* the window's table */
	struct timeline *timeline;     /* the window's timeline, or NULL */
	size_t next;                   /* the next pending id to name */
};

/* What every program of a run shares: its files (files.h), their names
 * (symbolize.h) and the tally of its cut stacks (cut.h). */
struct program_shared {
	struct files *files;
	struct namer *namer;
	struct cuts *cuts; /* NULL: not counted */
};

struct program {
	const struct program_shared *shared;
	struct modules *modules;
	struct unwinder *unwinder;     /* NULL once retired */
	struct symbolizer *symbolizer;
	struct stack_table *pending;   /* by address, not named yet */
	struct stack_table *named;     /* where naming puts them: the output */
	bool naming;                   /* naming now: no re-entry from a hook */
	int error;                     /* out of memory while naming */
	struct program *older;         /* the program before an execve */
	/* With a timeline: each pending stack's timeline id, by pending id */
	struct timeline *timeline;
	uint32_t *ids;
	size_t cap_ids;
	struct program_batch batch;    /* --period: the last window's, if unnamed */
	unsigned epoch;                /* grows when pending ids stop meaning
					  what they meant (named, or cut) */
};

/* A stack counted by program_count, to count again cheaply while the
 * caller knows nothing in it changed. */
struct program_stack {
	const struct program *program;
	unsigned epoch;
	uint32_t pending_id;
	uint32_t timeline_id;
};

/* The program pid runs now; its stacks will be named into named (and,
 * with a timeline, mapped there to their named ids).  NULL with errno set
 * when its modules cannot be read (modules_open's error: ENOENT once the
 * process is gone) or out of memory (ENOMEM). */
struct program *program_open(pid_t pid, const struct program_shared *shared,
			     struct stack_table *named, struct timeline *timeline);

/* Frees p and every older program. */
void program_free(struct program *p);

/* After an execve of its process: a new program, p retired behind it.
 * NULL with errno set as program_open's, p left as it was. */
struct program *program_exec(struct program *p, pid_t pid);

/* Its process has ended: no stack of it is unwound any more, nor its
 * maps read again.  The unwinder (libunwind's address space and caches)
 * goes, and what only a re-read of the maps needs (modules_ended); the
 * modules stay, to name the stacks it counted. */
void program_ended(struct program *p);

/* Counts count samples: their user frames (innermost first, as unwound)
 * and the rest of v (thread, states, kernel frames), to be named later.
 * With a timeline, *stack is the stack's timeline id.  *handle (may be
 * NULL) names the stack for program_count_again.  Returns 0, or -1 when
 * out of memory. */
int program_count(struct program *p, const struct sample_view *v,
		  const struct unwound_frame *frames, size_t n_frames, uint64_t count,
		  uint32_t *stack, struct program_stack *handle);

/* count more of the stack h names, if h still names one of p's pending
 * stacks: 0, with *stack its timeline id; -1 when it does not (count it
 * with program_count). */
int program_count_again(struct program *p, const struct program_stack *h, uint64_t count,
			uint32_t *stack);

/* Names the frames now: outermost first, each followed by the functions
 * inlined at its address; a cut stack's mark (FRAME_TRUNCATED, the last
 * frame) first, as "[truncated]", unless the frame after it is one known
 * by name to begin a thread (outermost.h), and then it goes.  user and
 * user_ip have room for PROGRAM_USER_FRAMES_MAX.  Returns their number.
 * A cut stack counts as one sample in the run's tally (cut.h);
 * program_name_samples as count samples. */
#define PROGRAM_USER_FRAMES_MAX (4 * UNWIND_MAX_FRAMES)
size_t program_name_frames(struct program *p, const struct unwound_frame *frames,
			   size_t n_frames, const char **user, uint64_t *user_ip);
size_t program_name_samples(struct program *p, const struct unwound_frame *frames,
			    size_t n_frames, uint64_t count, const char **user, uint64_t *user_ip);

/* After the run: names every stack counted by address, of p and of the
 * older programs, into the named table.  The maps are not read again (they
 * may describe another program by now).  Returns 0, or -1 when out of
 * memory. */
int program_name_all(struct program *p);

/* While sampling (SIGUSR1): names every stack counted by address so far,
 * of p and of the older programs, into their named table, without
 * freezing the modules.  0, or -1 when out of memory. */
int program_name_now(struct program *p);

/* --period: the stacks counted so far (by p and the older programs) become
 * a batch to name into the table they were meant for; from now on stacks
 * are counted for named and timeline (which may be NULL).  A batch not
 * named yet is named first.  0, or -1 when out of memory. */
int program_cut(struct program *p, struct stack_table *named, struct timeline *timeline);

/* Names the batch of p and of the older programs, one stack at a time,
 * until deadline_ns (CLOCK_MONOTONIC; 0: to the end).  1 when it is all
 * named (or there was none), 0 when the deadline came first, -1 when out
 * of memory. */
int program_name_batch(struct program *p, uint64_t deadline_ns);

#endif
