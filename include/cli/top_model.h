/* top_model.h - what --top shows, counted from windows of named stacks
 * (pure: no I/O, no terminal; top_layout.h makes the screen's lines).
 *
 * Each window's stacks (profile.h: thread; [application frames]; OS
 * state; user frames outermost first; kernel frames "NAME_[k]") are
 * counted into entries, each kept twice: for the last window and since
 * the start.
 *
 *   functions  own: the innermost user frame of a stack - a thread in a
 *              system call is counted in the user function that made it
 *              (its kernel frames tell where it waits: see "kernel").
 *              A stack without user frames counts in its innermost kernel
 *              frame, and one without either in "[no stack]".
 *              total: every function the stack passes through, once per
 *              stack (recursion does not count twice).
 *              With kernel frames (TOP_KERNEL), they are functions like
 *              the others: own goes to the innermost frame of any kind.
 *              Both ways are counted from every window, so switching
 *              shows the whole history either way.
 *   states     the OS state frame ("R (running)", "S (sleeping)"...).
 *   waits      an application's state frame, which ends in " state)"
 *              ("event=IO:WALSync (PostgreSQL state)", "On CPU (Oracle
 *              state)") or is a bracketed note such as
 *              "[no PostgreSQL state]".
 *   queries    any other frame between the thread and its OS state:
 *              PostgreSQL's "query=ID TEXT", "idle", "idle in
 *              transaction"...
 *
 * Shares are of the thread samples of the span (a thread sampled at every
 * tick, busy or not, so with one thread the shares are of its wall time);
 * times are samples times the wall time a sample stood for in its window
 * (the window's length over its ticks).
 *
 * Paused, the model keeps counting what arrives, but aside: what is shown
 * stays as it was until it resumes, then the last window and everything
 * since the start are shown.
 */
#ifndef PTRACE_PROFILER_TOP_MODEL_H
#define PTRACE_PROFILER_TOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/aggregate.h"

enum top_span { TOP_WINDOW, TOP_SINCE_START };
enum top_sort { TOP_BY_OWN, TOP_BY_TOTAL };
enum top_frames { TOP_USER, TOP_KERNEL }; /* kernel frames hidden, or functions too */
enum top_kind { TOP_FUNCTION, TOP_STATE, TOP_WAIT, TOP_QUERY, TOP_KINDS };

/* What a window is besides its stacks (continuous.h's struct window). */
struct top_window_info {
	uint64_t duration_ns;  /* from its cut to the next */
	uint64_t ticks;        /* ticks its samples stand for */
	uint64_t stopped_ns;   /* time the target's threads were kept stopped */
};

/* A span's figures: a window's, or their sums since the start. */
struct top_figures {
	unsigned windows;
	uint64_t duration_ns, ticks, stopped_ns;
	uint64_t samples;      /* thread samples */
	size_t processes;      /* in the last window, when the root frames name
				  them ("comm[PID]/thread"); 0 when they do not */
};

/* One line of a table. */
struct top_row {
	const char *name;      /* lives as long as the model */
	uint64_t own, total;   /* samples; own is 0 but for functions */
	double own_share, total_share; /* of the span's samples, 0..1 */
	double own_s, total_s; /* seconds of thread time */
};

struct top_model;

struct top_model *top_model_new(void);
void top_model_free(struct top_model *m);

/* Counts a window's named stacks (stack_table_add's).  0, or -1 when out
 * of memory (the model is then as it was, but for the entries already
 * made). */
int top_model_add_window(struct top_model *m, const struct stack_table *stacks,
			 const struct top_window_info *info);

/* Paused: what is shown stays; resumed: what came meanwhile is shown. */
void top_model_pause(struct top_model *m, bool paused);
bool top_model_paused(const struct top_model *m);

const struct top_figures *top_model_figures(const struct top_model *m, enum top_span span);

/* The functions of the span, by own or total share (then the other, then
 * by name), at most max into out; returns their number.  Entries with no
 * sample in the span are left out. */
size_t top_model_functions(const struct top_model *m, enum top_span span, enum top_sort sort,
			   enum top_frames frames, struct top_row *out, size_t max);

/* The states, waits or queries of the span by share, at most max. */
size_t top_model_table(const struct top_model *m, enum top_kind kind, enum top_span span,
		       struct top_row *out, size_t max);

/* How many entries of kind have a sample in the span (a table's length). */
size_t top_model_count(const struct top_model *m, enum top_kind kind, enum top_span span,
		       enum top_frames frames);

/* The PID in a root frame (count.c's root_frame): "comm[PID]/thread"
 * (several processes), "postgres[PID] client backend" (a process named by
 * its backend type or title, "/thread" after it for a thread other than
 * its first), or "comm[PID]"; 0 when it names none ("--group-by type"'s
 * "client backend", a lone process's thread name). */
int top_root_pid(const char *root);

#endif
