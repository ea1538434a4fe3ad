/* symbolize.h - frame names for addresses, cached.
 *
 * Names come from libdw: the symbol tables of the file (or of its
 * separate debug file, or its MiniDebugInfo), C++ names demangled as
 * c++filt prints them, and from DWARF the functions inlined at the address
 * and, on request, source lines.
 *
 * Two levels.  The namer is the run's: per file of the registry (files.h),
 * the names at each ELF address (vaddr) of that file, looked up once
 * whatever the number of processes that map it.  A symbolizer is one
 * process's: an address is its module's vaddr + bias (modules.h), named
 * in the module's file; what is the process's own - the module's path in
 * "[libfoo.so]", anonymous code and its JIT map - is named there.  Each
 * keeps a cache, so that a second look at an address is a hash probe;
 * a name of anonymous code holds only while the maps as last read and the
 * JIT's map stay the same (naming runs again and again with --period and
 * SIGUSR1, and a JIT names its code after running it, or reuses memory).
 * Every name is sanitized (frame.h), interned and lives as long as the
 * namer.
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
 * mapping is "[unknown]"; the mark of a cut stack (FRAME_TRUNCATED) is
 * "[truncated]".  The mappings are the modules' as last read:
 * naming never reads the maps again (modules_at).
 */
#ifndef PTRACE_PROFILER_SYMBOLIZE_H
#define PTRACE_PROFILER_SYMBOLIZE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/modules.h"
#include "unwind/unwind.h"

#define SYMBOLIZE_MAX_INLINE 32 /* inlined frames kept at one address */

struct symbolize_options {
	bool inline_frames; /* functions inlined at the address, "NAME_[i]" */
	bool lines;         /* " (file.c:42)" after each name, where known */
	bool addresses;     /* "libfoo.so+0x1a2b" instead of "[libfoo.so]" */
};

struct namer;
struct symbolizer;

/* The run's names, with these options for every process. */
struct namer *namer_new(const struct symbolize_options *o);
void namer_free(struct namer *n);

/* Addresses of files looked up (not found in a file's cache): for tests.
 * Naming an address a second time, in any process that maps the same
 * file, adds none. */
uint64_t namer_lookups(const struct namer *n);

/* A process's symbolizer over its modules, naming into n. */
struct symbolizer *symbolizer_new(struct namer *n, struct modules *m);
void symbolizer_free(struct symbolizer *s);

/* The process has exec'd (its modules are frozen, modules_freeze): its
 * JIT map is the new program's from now on, and what s names of the old
 * program's JIT code stays what the old program wrote into it
 * (perfmap_file_freeze). */
void symbolizer_freeze(struct symbolizer *s);

/* The frames at ip, outermost first: the function, then each function
 * inlined into it down to the address, suffixed "_[i]" (FlameGraph's
 * convention).  A return address (FRAME_CALL) is looked up one byte back,
 * so that a call at the very end of a function is not named after the
 * next one.  Returns their number (1 to 1 + SYMBOLIZE_MAX_INLINE); *names
 * is valid until the next call, the strings it points to for the namer's
 * life. */
size_t symbolize(struct symbolizer *s, uint64_t ip, enum frame_kind kind,
		 const char *const **names);

/* The frames at vaddr (an ELF virtual address) in file, as symbolize
 * names an address of a module with that file, whichever process maps
 * it: the function, then those inlined into it, outermost first.  Their
 * number, 0 if the file names nothing there (a module's name stands
 * then); *names as symbolize's.  (For the fuzzers: a file from memory,
 * in no process.) */
size_t symbolize_file(struct namer *n, struct file *file, uint64_t vaddr,
		      const char *const **names);

/* Once *flag is set (a second stop signal while naming, from a signal
 * handler): n reads no file any more; an address whose name it does not
 * know yet is named after its module, "[libfoo.so]" (or libfoo.so+0x1a2b
 * with --addresses), so that the profile can be written at once.  flag
 * NULL: never (as at first). */
void namer_hurry(struct namer *n, const volatile sig_atomic_t *flag);

/* Addresses n named after their module because of it. */
uint64_t namer_hurried(const struct namer *n);

#endif
