/* thread_list.h - the threads a profile's samples name (profile.h's
 * profile_thread), for the formats that keep time.
 *
 * A list owns its strings.  With --period each window has its own: the
 * threads sampled in it, handed to the writer with the window, and the
 * next window starts empty - a server that ends tens of backends a second
 * is not listed, thread after ended thread, in every window of a day. */
#ifndef PTRACE_PROFILER_THREAD_LIST_H
#define PTRACE_PROFILER_THREAD_LIST_H

#include <stddef.h>
#include <sys/types.h>

#include "profile/profile.h"

struct thread_list {
	struct profile_thread *v; /* the entries, by index */
	size_t n, cap;
};

/* Adds an entry (process and name copied): its index, or -1 when out of
 * memory (l unchanged). */
long thread_list_add(struct thread_list *l, pid_t pid, pid_t tid, const char *process,
		     const char *name);

/* The index of the entry named name (--group-by type or all: a merged
 * root's), or -1 if there is none. */
long thread_list_find(const struct thread_list *l, const char *name);

/* *to becomes a copy of from, strings and all: 0, or -1 when out of
 * memory (*to then empty). */
int thread_list_copy(const struct thread_list *from, struct thread_list *to);

/* Frees the entries and their strings; l is empty after. */
void thread_list_clear(struct thread_list *l);

#endif
