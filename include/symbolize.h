/* symbolize.h - frame names for addresses, cached.
 *
 * Names come from libdw: the symbol tables of the module (or of its
 * separate debug file, or its MiniDebugInfo), C++ names demangled as
 * c++filt prints them, and from DWARF the functions inlined at the address
 * and, on request, source lines.  A lookup is done once per distinct
 * address; afterwards the cost is a hash probe.  Every name is sanitized
 * (frame.h), interned and lives as long as the symbolizer.
 *
 * What one process's symbolizer has named is known to every other of the
 * run by the file's build-id and the offset in it, and one symbolizer per
 * file reads that file's symbols and debug info for all: processes that
 * map the same binary and libraries (a server forking a process per
 * connection) are named without reading them again.
 *
 * Never a guess: an address outside the extent of every symbol is named
 * after its module, "[libfoo.so.1]"; anonymous executable memory (JIT) is
 * "[anon]", or "NAME_[j]" where the JIT's /tmp/perf-PID.map names it
 * (perfmap.h); the signal trampoline is "[signal]"; an address in no
 * mapping is "[unknown]".
 */
#ifndef PTRACE_PROFILER_SYMBOLIZE_H
#define PTRACE_PROFILER_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "modules.h"
#include "unwind.h"

#define SYMBOLIZE_MAX_INLINE 32 /* inlined frames kept at one address */

struct symbolize_options {
	bool inline_frames; /* functions inlined at the address, "NAME_[i]" */
	bool lines;         /* " (file.c:42)" after each name, where known */
	bool addresses;     /* "libfoo.so+0x1a2b" instead of "[libfoo.so]" */
};

struct symbolizer;

struct symbolizer *symbolizer_new(struct modules *m, const struct symbolize_options *o);
void symbolizer_free(struct symbolizer *s);

/* The frames at ip, outermost first: the function, then each function
 * inlined into it down to the address, suffixed "_[i]" (FlameGraph's
 * convention).  A return address (FRAME_CALL) is looked up one byte back,
 * so that a call at the very end of a function is not named after the
 * next one.  Returns their number (1 to 1 + SYMBOLIZE_MAX_INLINE); *names
 * is valid until the next call, the strings it points to for the
 * symbolizer's life. */
size_t symbolize(struct symbolizer *s, uint64_t ip, enum frame_kind kind,
		 const char *const **names);

/* Look-ups answered from the names shared across symbolizers (the same
 * file mapped by another process: same build-id, same offset). */
uint64_t symbolize_shared_hits(void);

#endif
