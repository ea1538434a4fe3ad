/* modes.h - what a run does, one function each (src/cli/): main() parses
 * the options and calls the mode they ask for.  Each returns the exit
 * status. */
#ifndef PTRACE_PROFILER_MODES_H
#define PTRACE_PROFILER_MODES_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"

/* Samples the target and writes the profile (the default).  command is
 * the command line as typed (the SVG's title, pprof's comments). */
int mode_record(const struct options *o, const char *command);

/* --diff BEFORE AFTER: the two profiles compared (diff.h); command is the
 * command line as typed, for the flame graph's title. */
int mode_diff(const struct options *o, const char *command);

/* --dump: every thread of the -p processes once, stopped as briefly as a
 * sample, as eu-stack prints them (dump.c). */
int mode_dump(const struct options *o, const char *command);

/* --top: a full-screen view of the targets, redrawn every second from a
 * recording's 1 s windows, until q (top.c). */
int mode_top(const struct options *o, const char *command);

/* One frame of a dump, as eu-stack -i numbers them:
 *   "    #3   0x00007fa4bb7a9ce3 __pthread_clockjoin_ex (pthread_join_common.c:102) in libc.so.6"
 * name as the symbolizer gives it ("_[i]" at the end of an inlined one's
 * becomes " [inlined]"), module "" for none.  Returns strlen(out). */
size_t dump_frame_line(char *out, size_t outsz, int idx, uint64_t ip, const char *name,
		       const char *module);

#endif
