/* utf8.h - reading UTF-8 one character at a time.
 *
 * Names reach us as bytes (a thread's comm, a symbol, a path, a query):
 * nothing says they are UTF-8.  This tells a valid character from bytes
 * that are not one, for the code that makes names safe (frame.h) and the
 * writers that escape text for their format (escape.h).
 */
#ifndef PTRACE_PROFILER_UTF8_H
#define PTRACE_PROFILER_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The next character of s: its length (1-4) and code point, or 0 if s
 * starts with a byte that does not begin a valid UTF-8 sequence (overlong
 * forms, surrogates and code points past U+10FFFF are invalid; so is a
 * sequence the NUL cuts short).  s[0] may be the NUL: length 1, code 0. */
size_t utf8_next(const char *s, uint32_t *cp);

#endif
