/* modes.h - what a run does, one function each (src/cli/): main() parses
 * the options and calls the mode they ask for.  Each returns the exit
 * status. */
#ifndef PTRACE_PROFILER_MODES_H
#define PTRACE_PROFILER_MODES_H

#include "options.h"

/* Samples the target and writes the profile (the default).  command is
 * the command line as typed (the SVG's title, pprof's comments). */
int mode_record(const struct options *o, const char *command);

/* --diff BEFORE AFTER: the two profiles compared (diff.h); command is the
 * command line as typed, for the flame graph's title. */
int mode_diff(const struct options *o, const char *command);

#endif
