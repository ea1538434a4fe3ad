/* frame.h - frame text as every output format can carry it.
 *
 * Names come from the target: a thread's comm, a process's, a symbol of
 * its binaries, a file's path, a query's text - untrusted bytes, not
 * always UTF-8.  A ';' would split a folded frame in two, a newline would
 * forge a line, control characters garble terminals, and a byte that is
 * not UTF-8 makes flamegraph.pl die ("does not map to Unicode") and
 * protobuf and JSON readers refuse the file.  Everything printed goes
 * through frame_sanitize() where it enters the profile, so that every
 * writer (folded, SVG, speedscope, pprof, Pyroscope, perf-script, the
 * summary, --top, --dump) gets valid UTF-8 without control characters.
 * What a format's own grammar needs beyond that (XML and JSON escapes,
 * perf-script's comm, folded's count) is its writer's.
 */
#ifndef PTRACE_PROFILER_FRAME_H
#define PTRACE_PROFILER_FRAME_H

#include <stddef.h>

/* Copies in to out, always NUL-terminated (outsz > 0) and truncated to
 * fit, between whole characters: out is valid UTF-8.  Each byte that
 * begins no valid UTF-8 sequence (a stray continuation byte, an overlong
 * form, a surrogate, past U+10FFFF, a sequence cut short) becomes U+FFFD;
 * control characters (C0, DEL, C1: U+0080-U+009F) become '?', as ps and
 * top show them; ';' becomes ':'; an empty name becomes "[unknown]".  Its
 * own output comes back unchanged.  Returns strlen(out), which may be up
 * to three times strlen(in). */
size_t frame_sanitize(const char *in, char *out, size_t outsz);

/* The room frame_sanitize() needs for any text that fits in a buffer of
 * n bytes: nothing cut, a suffix ("_[i]", "+0x1a2b") kept. */
#define FRAME_SANITIZED_MAX(n) (3 * (n))

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
