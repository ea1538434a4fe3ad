/* aggregate.h - distinct stacks and their sample counts.
 *
 * A stack is a sequence of 64-bit words.  Named stacks (the output) are
 * added as strings, which the table interns: their words are the interned
 * pointers.  Stacks still to be named are added as words the caller encodes
 * (addresses, pointers to strings from stack_table_intern).  Adding a stack
 * that was seen before allocates nothing, so memory grows with the number
 * of distinct stacks, not with the number of samples.
 */
#ifndef PTRACE_PROFILER_AGGREGATE_H
#define PTRACE_PROFILER_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

struct stack_table;

struct stack_table *stack_table_new(void);
void stack_table_free(struct stack_table *t);

/* frames[0] is the root.  Returns the stack's id - ids are 0, 1, 2... in
 * the order stacks are first added, until stack_table_clear - or -1 when
 * out of memory. */
long stack_table_add(struct stack_table *t, const char *const *frames,
		     size_t n, uint64_t count);

/* The same for a stack of caller-encoded words (n > 0). */
long stack_table_add_words(struct stack_table *t, const uint64_t *words,
			   size_t n, uint64_t count);

/* The stack with this id: its words (and their number and its count), or
 * NULL if there is no such id. */
/* Adds count to stack id (as returned by an add): 0, or -1 if there is
 * no such stack. */
int stack_table_add_count(struct stack_table *t, size_t id, uint64_t count);

const uint64_t *stack_table_words(const struct stack_table *t, size_t id, size_t *n,
				  uint64_t *count);

/* A stack added with stack_table_add: its first max frames into out, root
 * first; returns their number (0: no such id). */
size_t stack_table_frames(const struct stack_table *t, size_t id, const char **out,
			  size_t max, uint64_t *count);

/* A copy of text that lives as long as the table (its strings outlive
 * stack_table_clear), or NULL when out of memory. */
const char *stack_table_intern(struct stack_table *t, const char *text);

/* A copy of a table of named stacks (stack_table_add's), with the same
 * ids and counts and strings of its own; NULL when out of memory. */
struct stack_table *stack_table_copy(const struct stack_table *t);

/* Gives a frame's new text, or NULL to keep it (the text returned is
 * interned at once: a buffer of arg's may hold it). */
typedef const char *(*stack_rename_fn)(const char *frame, void *arg);

/* Renames the frames of a table of named stacks (stack_table_add's):
 * stacks that come to read the same are one, counted together, at the id
 * of the first of them; ids stay dense, in first-sight order.  map, when
 * not NULL, has room for stack_table_distinct(t) and gets each old id's
 * new id.  Returns how many frames (of how many stacks) were renamed - 0:
 * nothing changed, no id moved, map untouched - or -1 when out of memory
 * (then the table is as it was). */
long stack_table_rename(struct stack_table *t, stack_rename_fn rename, void *arg, uint32_t *map);

/* Forgets every stack and count; interned strings stay. */
void stack_table_clear(struct stack_table *t);

/* The number of words (frames) of the deepest stack, at least 1: a buffer
 * of that many holds any stack of the table. */
size_t stack_table_max_depth(const struct stack_table *t);

size_t stack_table_distinct(const struct stack_table *t);
uint64_t stack_table_total(const struct stack_table *t);

typedef void (*stack_visit_fn)(const char *const *frames, size_t n,
			       uint64_t count, void *arg);

/* Visits every distinct stack added with stack_table_add in byte order of
 * its folded text "a;b;c", as FlameGraph's stackcollapse scripts sort
 * theirs: two runs compare line by line (diff, difffolded.pl). */
void stack_table_visit_sorted(const struct stack_table *t, stack_visit_fn fn,
			      void *arg);

typedef void (*stack_words_fn)(const uint64_t *words, size_t n, uint64_t count,
			       void *arg);

/* Visits every distinct stack as its words, in id order. */
void stack_table_visit_words(const struct stack_table *t, stack_words_fn fn,
			     void *arg);

#endif
