/* aggregate.h - distinct stacks and their sample counts.
 *
 * Frames are interned once: adding a stack that was seen before allocates
 * nothing, so memory grows with the number of distinct stacks, not with the
 * number of samples.
 */
#ifndef PTRACE_PROFILER_AGGREGATE_H
#define PTRACE_PROFILER_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

struct stack_table;

struct stack_table *stack_table_new(void);
void stack_table_free(struct stack_table *t);

/* frames[0] is the root.  Returns 0, or -1 when out of memory. */
int stack_table_add(struct stack_table *t, const char *const *frames,
		    size_t n, uint64_t count);

size_t stack_table_distinct(const struct stack_table *t);
uint64_t stack_table_total(const struct stack_table *t);

typedef void (*stack_visit_fn)(const char *const *frames, size_t n,
			       uint64_t count, void *arg);

/* Visits every distinct stack, heaviest first; equal counts in byte order
 * of their folded text, so the output is deterministic. */
void stack_table_visit_sorted(const struct stack_table *t, stack_visit_fn fn,
			      void *arg);

#endif
