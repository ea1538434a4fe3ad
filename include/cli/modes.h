/* modes.h - what a run does, one function each (src/cli/): main() parses
 * the options and calls the mode they ask for.  Each returns the exit
 * status. */
#ifndef PTRACE_PROFILER_MODES_H
#define PTRACE_PROFILER_MODES_H

#include "options.h"

/* Samples the target and writes the profile (the default). */
int mode_record(const struct options *o, int argc, char **argv);

#endif
