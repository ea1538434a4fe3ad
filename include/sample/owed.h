/* owed.h - ticks --max-overhead refused a stop: each kept with what it
 * showed, counted with the next stop's stack.
 *
 * A tick that needs a stop (the thread ran since its last stack) and has
 * none over the budget still saw the thread's state, and, where it was
 * read, its kernel stack: R on a CPU or queued for one, S, D.  That is
 * kept per tick, and so are its process's words, read then (one
 * process_vm_readv): a backend refused a stop in an IO wait is counted in
 * that wait, not in what it did at its next stop.  Only the user stack is
 * borrowed from the thread's next stop, which is never an earlier one.
 * Counting the refused ticks in the next stop's state instead, as before,
 * put a spinner that shared its CPU on a CPU in 45 % of its samples
 * against 32 % by its schedstat (1 ms, --max-overhead 1%).  Ticks still
 * owed at the end are counted in their states under OVERHEAD_NOT_STOPPED
 * (overhead.h).
 */
#ifndef PTRACE_PROFILER_SAMPLE_OWED_H
#define PTRACE_PROFILER_SAMPLE_OWED_H

#include "sample/records.h"

enum owed_kind { OWED_RUNNING, OWED_RUNNABLE, OWED_SLEEPING, OWED_DISK, OWED_KINDS };

/* Owed ticks of one kind and the same words. */
struct owed_entry {
	uint64_t count;
	uint64_t first_ns, last_ns;
	unsigned char kind;   /* enum owed_kind */
	bool words_read;      /* else: the next stop's words, as before */
	bool has_app;         /* an application state frame, */
	char app[APP_STATE_MAX]; /* read at its ticks */
	bool word_ok;         /* the process's wait word then (the time model) */
	uint32_t word;
};

/* Distinct (kind, words) between two stops: a tick that finds them all
 * taken joins the last of its kind. */
#define OWED_ENTRIES 8

struct owed_ticks {
	struct owed_entry e[OWED_ENTRIES];
	int n;
	int n_kernel[OWED_KINDS]; /* the last such tick's kernel frames */
	char kernel[OWED_KINDS][MEMORY_KERNEL_BYTES];
};

/* This round's tick of st, a thread of p, had no stop: it showed state
 * (on a CPU or not, for R) and these packed kernel frames (n_kernel may be
 * 0); its process's words are read now. */
void owed_refused(struct sampler *s, struct process *p, struct sampled_thread *st, char state,
		  bool on_cpu, const char *kernel, int n_kernel);

/* The frame of owed ticks no stop came for before the end, without
 * --max-overhead (whose own says so: OVERHEAD_NOT_STOPPED). */
#define OWED_NOT_STOPPED "[not stopped again]"

/* A tick due while a round ran found st changed since its look (round.c,
 * mid_round_pass): in state (on a CPU or not, for R) at at_ns, owed its
 * next stop's stack as a refused tick is, and its words (none were read
 * then). */
void owed_mid_tick(struct sampled_thread *st, char state, bool on_cpu, uint64_t at_ns);

/* At a round's end: the ticks it stood for (the first at s->cur.tick_ns, the
 * last at last_ns) are owed by each thread it refused a stop. */
void owed_round(struct sampler *s, uint64_t ticks, uint64_t last_ns);

/* Counts st's owed ticks with these user frames (a stop's), or, with
 * frames NULL, under OVERHEAD_NOT_STOPPED; none are owed after. */
void owed_count(struct sampler *s, struct process *p, struct sampled_thread *st,
		const struct unwound_frame *frames, int n_frames, int complete);

/* Whether st owes any tick. */
bool owed_any(const struct sampled_thread *st);

#endif
