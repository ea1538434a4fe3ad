/* symbolize.h - frame names for addresses, cached.
 *
 * Names come from libdw (symbol tables, with separate debug info where it
 * is installed).  A lookup is done once per distinct address; afterwards the
 * cost is a hash probe.  Returned strings are sanitized and live as long as
 * the symbolizer.
 */
#ifndef PTRACE_PROFILER_SYMBOLIZE_H
#define PTRACE_PROFILER_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "modules.h"

struct symbolizer;

struct symbolizer *symbolizer_new(struct modules *m);
void symbolizer_free(struct symbolizer *s);

/* Name of the function containing ip.  For a return address (every frame
 * but the innermost) ip - 1 is looked up, so a call at the very end of a
 * function is not named after the next one.  An address outside the extent
 * of every symbol is named after its module: "[libfoo.so.1]"; outside every
 * module: "[unknown]".  Never NULL. */
const char *symbolize(struct symbolizer *s, uint64_t ip, bool return_address);

#endif
