/* thread_list.c - the threads a profile's samples name (thread_list.h). */
#define _GNU_SOURCE
#include "profile/thread_list.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

long thread_list_add(struct thread_list *l, pid_t pid, pid_t tid, const char *process,
		     const char *name)
{
	if (!array_reserve((void **)&l->v, l->n + 1, &l->cap, sizeof(*l->v)))
		return -1;
	struct profile_thread t = { pid, tid, strdup(process), strdup(name) };
	if (!t.process || !t.name) {
		free((char *)t.process);
		free((char *)t.name);
		return -1;
	}
	l->v[l->n] = t;
	return (long)l->n++;
}

long thread_list_find(const struct thread_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return (long)i;
	return -1;
}

int thread_list_copy(const struct thread_list *from, struct thread_list *to)
{
	*to = (struct thread_list){ 0 };
	for (size_t i = 0; i < from->n; i++) {
		const struct profile_thread *t = &from->v[i];
		if (thread_list_add(to, t->pid, t->tid, t->process, t->name) < 0) {
			thread_list_clear(to);
			return -1;
		}
	}
	return 0;
}

void thread_list_clear(struct thread_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->v[i].process);
		free((char *)l->v[i].name);
	}
	free(l->v);
	*l = (struct thread_list){ 0 };
}
