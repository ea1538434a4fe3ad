/* frame_role.h - where a frame sits in a stack of profile.h.
 *
 * A named stack is root first: the thread, a query and the application's
 * state if asked for, the OS state, then user and kernel code (profile.h).
 * Nothing but their text tells these frames apart; the writers (colours,
 * pprof's labels, perf-script's lines, the report's states) and top's
 * model find each one's role here, from its form and its place, so that
 * every one of them reads a stack the same way.
 */
#ifndef PTRACE_PROFILER_FRAME_ROLE_H
#define PTRACE_PROFILER_FRAME_ROLE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

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

/* Does s end with suffix (or equal it)?  Inline: the suffixes are how a
 * frame says its role ("_[k]", " state)"), and the writers and top's
 * model that look at one without asking for its whole role use it too. */
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

#endif
