/* demangle.h - C++ (Itanium ABI) names as c++filt prints them.
 *
 * libstdc++'s __cxa_demangle prints what c++filt prints, clone suffixes
 * such as " [clone .part.0]" included.  It is loaded at run time, the
 * first time a mangled name is seen: libstdc++.so.6 is on every system
 * that runs C++, and without it names stay as they are, mangled but true.
 */
#ifndef PTRACE_PROFILER_DEMANGLE_H
#define PTRACE_PROFILER_DEMANGLE_H

#include <stddef.h>

/* Writes the demangled form of name into out (always NUL-terminated,
 * truncated to fit) and returns 1; returns 0 and leaves out alone when
 * name is not a mangled C++ name or cannot be demangled. */
int demangle(const char *name, char *out, size_t outsz);

#endif
