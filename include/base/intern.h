/* intern.h - one copy of each string.
 *
 * Frame names repeat in nearly every sample: interned once, they are
 * compared and hashed as pointers, and seeing one again allocates nothing.
 * Strings live until the set is freed.
 */
#ifndef PTRACE_PROFILER_INTERN_H
#define PTRACE_PROFILER_INTERN_H

#include <stddef.h>

struct intern_set;

struct intern_set *intern_new(void);
void intern_free(struct intern_set *s);

/* The set's copy of text (made on first sight), or NULL when out of
 * memory.  Equal texts give the same pointer. */
const char *intern(struct intern_set *s, const char *text);

#endif
