/* count.h - what a round saw of a thread becomes samples: the root frame
 * (the thread, or process and thread), the application's state, the OS
 * state, the user frames by address and the kernel frames, counted by
 * address for naming after the run (program.h), and in time order for the
 * formats that keep time (timeline.h).
 *
 * An observation waits in the thread's record until its round ends and
 * the number of ticks it stands for is known (schedule.h); a thread whose
 * trap comes after its round is counted then, for the ticks it had.
 */
#ifndef PTRACE_PROFILER_SAMPLE_COUNT_H
#define PTRACE_PROFILER_SAMPLE_COUNT_H

#include "sample/schedule.h"
#include "sample/records.h"

/* The kernel frames of a stack as /proc printed it, filtered, sanitized
 * and named "NAME_[k]", packed outermost first into out (frame.h);
 * returns their number. */
int count_kernel_frames(struct kernel_stack *ks, char *out, size_t cap);

/* The room count_process_root needs. */
#define COUNT_ROOT_MAX 1024

/* The root frame of p's first thread, as its stacks have it (options.h's
 * group_by), into out (COUNT_ROOT_MAX bytes): the name the report's reads
 * of p go under (activity_reads.h).  false when its first thread was never
 * looked at. */
bool count_process_root(const struct sampler *s, struct process *p, char *out, size_t outsz);

/* This round's observation of a thread: state (static), with the
 * memory's user frames or none, kernel frames packed (n_kernel), the
 * application state read now. */
void count_observe(struct sampler *s, struct process *p, struct sampled_thread *st,
		   const char *state, bool user, const char *kernel, int n_kernel);

/* The same with the memory's kernel frames. */
void count_observe_memory(struct sampler *s, struct process *p, struct sampled_thread *st,
			  const char *state);

/* Which path counts a sample: the tick trace names it, and --no-idle
 * reads two of them (count_now). */
enum count_path {
	COUNT_ROUND,     /* the round's own observation */
	COUNT_FROZEN,    /* ticks of the round that found it held by our stop */
	COUNT_STILL,     /* cold.h: a thread that had not run, counted together */
	COUNT_STOP,      /* a stop's ticks, its trap collected in their round */
	COUNT_LATE,      /* a stop's ticks, its trap collected after their round */
	COUNT_WAITED,    /* ticks due while it waited for the CPU our round held */
	COUNT_PARKED,    /* ticks of a thread R only because we aborted its wait */
	COUNT_UNSTOPPED, /* a stop given up on: the ticks as the looks read them */
	COUNT_OWED,      /* --max-overhead: refused ticks, with the next stop's stack */
	COUNT_ASLEEP,    /* due mid-round, asleep then but not at its look: no stack */
};

/* The frame of a tick that found a thread asleep while its round ran,
 * after (or before) its look found it running: its sleep's stack was
 * never read (round.c, mid_round_pass). */
#define ASLEEP_UNREAD "[asleep between our looks]"

/* Its name in the tick trace ("round", "frozen"...). */
const char *count_path_name(enum count_path how);

/* The user frames a sample is counted with: a stop's (or a peek's)
 * unwind, or none. */
struct user_frames {
	const struct unwound_frame *frames; /* as the unwind gave them; NULL: none */
	int n;                              /* how many */
	int complete;                       /* it reached the thread's first frame */
};
#define NO_USER_FRAMES ((struct user_frames){ NULL, 0, 1 })

/* The ticks one count stands for. */
struct tick_span {
	uint64_t count;    /* how many */
	uint64_t first_ns; /* the first's time */
	uint64_t last_ns;  /* the last's (the others evenly between) */
	enum count_path how;
};

/* Counts the ticks of a thread now: the observation ob with the user
 * frames u, by the path ticks.how.  COUNT_STILL (cold.h: ticks of a
 * thread that had not run) also tells --no-idle that they are asleep in
 * the wait of its last sample, COUNT_FROZEN that they are its round's.
 * With --no-idle a sample in its idle wait is left out of the profile
 * (and of the run's samples), still the thread's own. */
void count_now(struct sampler *s, struct process *p, struct sampled_thread *st,
	       const struct observation *ob, struct user_frames u, struct tick_span ticks);

/* The round has ended, standing for the ticks rt says (the last due at
 * last_ns): every observation of it is counted that many times - those
 * that fell while the round kept its thread stopped as what the stop saw
 * (its state and kernel frames at the tick, the stack it copied), never
 * as our stop and never on a CPU (observation.held) - and the pending
 * stops' ticks of this round grow by the ticks beyond its own. */
void count_round(struct sampler *s, const struct round_ticks *rt, uint64_t last_ns);


#endif
