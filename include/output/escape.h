/* escape.h - text escaped for XML and JSON.
 *
 * Names are untrusted bytes (a thread's comm, a symbol, a query): nothing
 * says they are UTF-8 or free of what a format forbids.  The SVG and the
 * report write them through these, so that whatever the names the file is
 * well-formed: invalid UTF-8 is replaced, never copied, and so are the
 * characters the format does not allow.
 */
#ifndef PTRACE_PROFILER_ESCAPE_H
#define PTRACE_PROFILER_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* s as XML character data or attribute value: & < > " ' escaped, invalid
 * UTF-8, control characters and U+FFFE/U+FFFF (not allowed in XML) as '?'.
 * At most max_chars characters (SIZE_MAX: all). */
void xml_escape(FILE *f, const char *s, size_t max_chars);

/* Characters of s as xml_escape counts them. */
size_t utf8_chars(const char *s);

/* s as a JSON string, quotes included; invalid UTF-8 becomes U+FFFD. */
void json_string(FILE *f, const char *s);

#endif
