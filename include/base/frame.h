/* frame.h - frame text as the folded format can carry it.
 *
 * Symbol names come from the target's binaries: untrusted.  A ';' would
 * split a frame in two, a newline would forge a line, control characters
 * garble terminals.  Everything printed goes through frame_sanitize().
 */
#ifndef PTRACE_PROFILER_FRAME_H
#define PTRACE_PROFILER_FRAME_H

#include <stddef.h>

/* Copies in to out (outsz > 0), always NUL-terminated and truncated to fit:
 * ';' becomes ':', control characters and DEL become '?', an empty name
 * becomes "[unknown]".  Returns strlen(out). */
size_t frame_sanitize(const char *in, char *out, size_t outsz);

/* "[libc.so.6]" from "/usr/lib/x86_64-linux-gnu/libc.so.6": the basename in
 * brackets, sanitized, for a frame that has no symbol.  Returns strlen. */
size_t frame_module_name(const char *path, char *out, size_t outsz);

/* A list of frames kept in a fixed buffer, each NUL-terminated, in order
 * (a thread's kernel frames, between the tick and the count): packs all n
 * into out (cap bytes) and returns n, or packs none and returns 0 when
 * they do not fit - no stack cut short. */
int frames_pack(const char *const *frames, int n, char *out, size_t cap);

/* The packed frames (n of them, as frames_pack returned) as pointers
 * into packed, at most max.  Returns their number. */
int frames_unpack(const char *packed, int n, const char **out, int max);

/* The bytes the n packed frames take, their NULs included: what to copy
 * or compare of them (0 for none). */
size_t frames_packed_len(const char *packed, int n);

#endif
