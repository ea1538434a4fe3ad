/* continuous.h - what becomes of a window (--period) or of the profile so
 * far (SIGUSR1), away from the sampler.
 *
 * The sampler names a window's stacks between its ticks, then hands the
 * window here and goes on: it never waits for a write or for the network.
 * A writer thread (nice 19) writes each window's file - a temporary file
 * renamed over the name, so a reader never sees half a profile - or
 * appends it to stdout, and renders it as folded text for the push queue;
 * a sender thread (push.h) POSTs that to Pyroscope.  Both queues are
 * bounded: when one is full its oldest window is dropped, and counted.
 */
#ifndef PTRACE_PROFILER_CONTINUOUS_H
#define PTRACE_PROFILER_CONTINUOUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/aggregate.h"
#include "options.h"
#include "profile/profile.h"
#include "profile/thread_list.h"
#include "profile/timeline.h"

enum window_kind {
	WINDOW_PERIOD, /* --period: the samples of one window */
	WINDOW_DUMP,   /* SIGUSR1 without --period: every sample so far */
};

/* A named profile handed over by the sampler: everything in it is the
 * writer's now (the thread names point into the sampler, which outlives
 * continuous_stop). */
struct window {
	enum window_kind kind;
	unsigned number;                 /* 1, 2, ... of its kind */
	struct stack_table *stacks;      /* named */
	struct timeline *timeline;       /* WINDOW_PERIOD, formats that keep time */
	struct timeline_view *view;      /* WINDOW_DUMP, formats that keep time */
	struct thread_list threads;      /* the threads its samples name */
	uint64_t run_start_unix_ns;      /* the samples' times count from there */
	uint64_t start_unix_ns, end_unix_ns;
	uint64_t samples;                /* thread samples in it */
	uint64_t rounds;
	uint64_t ticks;                  /* WINDOW_PERIOD: the ticks its samples stand for */
	uint64_t stopped_ns;             /* WINDOW_PERIOD: time threads were kept stopped */
	uint64_t naming_ns;              /* naming it took, between ticks */
	uint64_t skipped_ticks;          /* ticks its naming made the sampler skip */
};

void window_free(struct window *w);

struct continuous;

/* Starts the writer (and, with --push, the sender).  command and target
 * are the profile's descriptions; app is Pyroscope's application name.
 * Call with every signal blocked in the caller if the threads must not
 * take any (they block them all themselves, too).  NULL with a message in
 * err when a thread or libcurl cannot start. */
struct continuous *continuous_start(const struct options *o, const char *command,
				    const char *target, const char *app, char *err, size_t errlen);

/* --top: no writer thread; the windows wait in the same bounded queue for
 * a consumer of the caller's (the screen), which takes them with
 * continuous_next.  NULL with a message in err when out of memory. */
struct continuous *continuous_start_queue(const struct options *o, char *err, size_t errlen);

/* The oldest window handed over, now the caller's (window_free); waits
 * for one until deadline_ns (CLOCK_MONOTONIC; 0: no deadline).  NULL at
 * the deadline, or - *ended then true - once continuous_stop was called
 * and every window was taken. */
struct window *continuous_next(struct continuous *c, uint64_t deadline_ns, bool *ended);

/* Hands w over; never waits.  A full writer queue drops its oldest window
 * (counted). */
void continuous_submit(struct continuous *c, struct window *w);

/* Every window handed over is written; the sender gets PUSH_GRACE_NS
 * more (push.h) to send what it holds, then gives up on the rest
 * (counted).  Joins both threads. */
void continuous_stop(struct continuous *c);

/* Profiles already written to the output's path (SIGUSR1), or to stdout:
 * main writes the final one after them. */
unsigned continuous_writes(const struct continuous *c);

/* The summary's lines. */
void continuous_summary(FILE *f, const struct continuous *c);

void continuous_free(struct continuous *c);

#endif
