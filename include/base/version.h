/* version.h - the profiler's version, as --version, speedscope's exporter
 * field and the push User-Agent print it. */
#ifndef PTRACE_PROFILER_BASE_VERSION_H
#define PTRACE_PROFILER_BASE_VERSION_H

#define PROFILER_VERSION "0.1.0"

#endif
