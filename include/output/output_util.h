/* output_util.h - what the writers of output.h share.
 *
 * Frame roles (where a frame sits in a stack of profile.h), text escaping
 * for XML and JSON (names are untrusted bytes: invalid UTF-8 is replaced,
 * never copied), one pass over the samples, and a small map from pointers
 * (interned frame names) to dense indices.
 */
#ifndef PTRACE_PROFILER_OUTPUT_UTIL_H
#define PTRACE_PROFILER_OUTPUT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/hash_index.h"
#include "base/utf8.h" /* utf8_next, for the writers */
#include "profile/profile.h"

/* Where a frame sits in a stack (unwind.h's enum frame_kind says how an
 * address was found, which is another thing). */
enum frame_role {
	FRAME_THREAD,    /* [0]: the thread's name */
	FRAME_APP_STATE, /* between the thread and the OS state: the query,
			    the application state ("... state)") */
	FRAME_OS_STATE,  /* "R (running)"... */
	FRAME_USER,      /* named user code */
	FRAME_INLINE,    /* "..._[i]" */
	FRAME_KERNEL,    /* "..._[k]" */
	FRAME_UNNAMED,   /* "[libfoo.so.1]", "[unknown]", "[anon]"... */
};

/* Does s end with suffix (or equal it)?  Inline: options.c uses it too,
 * and the fuzz targets build options.c without this file's code. */
static inline bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* The index of the first code frame (user or kernel) of a root-first
 * stack: after the thread, the query and application state if any, the
 * OS state (found by its form, frame_is_os_state, within the first four
 * frames; else the frame after the root and an application state). */
size_t frame_code_start(const char *const *frames, size_t n);

/* Is s an OS state frame: "R (running)", "t (stopped by ptrace_profiler)"? */
bool frame_is_os_state(const char *s);

/* Is s (a frame before the OS state) the application's state, "...
 * state)" or "[no PostgreSQL state]", rather than a query frame? */
bool frame_is_app_state(const char *s);

/* The role of frames[i] in its stack; code_start from frame_code_start. */
enum frame_role frame_role_at(const char *const *frames, size_t code_start, size_t i);

/* s as XML character data or attribute value: & < > " ' escaped, invalid
 * UTF-8, control characters and U+FFFE/U+FFFF (not allowed in XML) as '?'.
 * At most max_chars characters (SIZE_MAX: all). */
void xml_escape(FILE *f, const char *s, size_t max_chars);

/* Characters of s as xml_escape counts them. */
size_t utf8_chars(const char *s);

/* s as a JSON string, quotes included; invalid UTF-8 becomes U+FFFD. */
void json_string(FILE *f, const char *s);

/* "10ms", "1.5ms", "100us", "2s": ns in the largest unit that keeps it
 * within 3 decimals. */
void format_ns(char *out, size_t outsz, uint64_t ns);

/* Decimal digits of v into out (room for 21); returns the length. */
size_t u64_to_dec(uint64_t v, char *out);

/* Reads every sample of p->samples from the start, checking each names a
 * stack and a thread that exist; fn returns 0 to go on.  Returns 0, or -1
 * (errno EINVAL: no samples or a bad one; else the source's or fn's). */
int sample_pass(const struct profile *p,
		int (*fn)(const struct profile_sample *s, void *arg), void *arg);

/* Pointers to dense indices 0, 1, 2... in order of first sight: keys[i]
 * is pointer number i, found through the one hash table (hash_index.h).
 * All zero is empty. */
struct ptr_index {
	const void **keys;
	size_t n, cap;
	struct hash_index ix; /* allocated by the first get */
};

/* The index of key, added if new (*added says so; may be NULL).
 * Returns 0, or -1 when out of memory. */
int ptr_index_get(struct ptr_index *m, const void *key, uint32_t *out, bool *added);
void ptr_index_free(struct ptr_index *m);

#endif
