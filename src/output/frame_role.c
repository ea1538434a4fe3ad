/* frame_role.c - a frame's role from its form and place (frame_role.h). */
#include "output/frame_role.h"

#include <ctype.h>
#include <string.h>

/* An OS state as procfs.h and the sampler write it: one letter (or '?'),
 * a space, words in parentheses - "S (sleeping)", "t (stopped by
 * ptrace_profiler)".  An application state ends in " state)" and is not
 * one, whatever its words. */
bool frame_is_os_state(const char *s)
{
	size_t n = strlen(s);
	return n >= 5 && (isalpha((unsigned char)s[0]) || s[0] == '?') && s[1] == ' ' &&
	       s[2] == '(' && s[n - 1] == ')' && !ends_with(s, " state)");
}

bool frame_is_app_state(const char *s)
{
	/* a query's text may end in anything: its frame starts so */
	return strncmp(s, "query=", 6) != 0 &&
	       (ends_with(s, " state)") || strcmp(s, "[no PostgreSQL state]") == 0);
}

/* Frames between the root and the OS state: a query and an application
 * state, at most. */
#define FRAMES_BEFORE_OS_STATE 2

size_t frame_code_start(const char *const *frames, size_t n)
{
	for (size_t i = 1; i < n && i <= 1 + FRAMES_BEFORE_OS_STATE; i++)
		if (frame_is_os_state(frames[i]))
			return i + 1;
	/* no OS state where ours put it (another tool's folded text): the
	 * frame after the root, and after an application state if any */
	size_t i = 1;
	if (i < n && ends_with(frames[i], " state)"))
		i++;
	if (i < n)
		i++;
	return i < n ? i : n;
}

enum frame_role frame_role_at(const char *const *frames, size_t code_start, size_t i)
{
	const char *s = frames[i];
	if (i == 0)
		return FRAME_THREAD;
	if (i + 1 == code_start)
		return FRAME_OS_STATE;
	if (i < code_start)
		return FRAME_APP_STATE;
	if (ends_with(s, "_[k]"))
		return FRAME_KERNEL;
	if (ends_with(s, "_[i]"))
		return FRAME_INLINE;
	if (s[0] == '[' && ends_with(s, "]"))
		return FRAME_UNNAMED;
	return FRAME_USER;
}
