/* modules.h - one process's mappings: which file is where.
 *
 * We read /proc/PID/maps ourselves (procfs.h's parser).  Each file with
 * an executable mapping is found in the run's registry (files.h), which
 * reads it once for every process that maps it; what stays per process
 * is where: its loaded copies and their bias (address = ELF vaddr +
 * bias).
 *
 * A file's mappings are grouped by what the file is (device and inode), not
 * by whether they touch: lld leaves 2 MiB between segments, node's V8 maps
 * part of node's text a second time far away.  Its program headers
 * (layout.h) say which mappings make one loaded copy and at what bias; each
 * copy is one module.  Code of the file that no program header explains is
 * a module with no file: named after the file, never from it.  Whose an
 * address is comes from the mappings, never from a module's range, which
 * spans a file's gaps.
 *
 * A module's file is the one the target really mapped:
 * /proc/PID/map_files/START-END (works for a deleted or replaced binary
 * and for a process in another mount namespace, but needs CAP_SYS_ADMIN),
 * else PATH under /proc/PID/root, else PATH, else /proc/PID/exe (the
 * program's own file, which a tracer without that capability may open,
 * deleted or not) - the last three only when their inode is the mapped
 * one.  A deleted file none of these opens (a library, unprivileged) is
 * read from the target's memory as it is mapped (image.h), as eu-stack
 * does.  No such file: no image, and its frames are named after the
 * module, never after another file's symbols.  The vDSO's image is read
 * from the target's memory.  Files are opened when the maps are read, so
 * the unwinder reads .eh_frame from our memory, not the target's.
 *
 * A process whose main thread has exited while others run has empty
 * /proc/PID/maps, map_files and root: they are read through a live
 * thread's /proc/TID/ instead.
 *
 * Anonymous executable memory (JIT code) is remembered too: an address in it
 * is known, it just has no module.  The maps are re-read when an address
 * lies in no code mapping we know (a library loaded after we attached);
 * files already seen by this process are not re-opened.  Re-reads are
 * bounded by what they cost, since a process may have tens of thousands
 * of mappings (a read of 30000 takes 10-25 ms) and jump to an address no
 * re-read explains, on every sample: the next may begin 20 ms after the
 * last ended, or 50 times as long as it took if that is more - at most a
 * fiftieth of the sampler's time.  A miss meanwhile stays unknown, and is
 * counted (modules_skips).  No cheap sign of a change to the maps stands
 * in for the read: the counters of /proc/PID/status miss an mprotect that
 * makes writable pages executable too (a JIT's), or one library swapped
 * for another of the same size.
 */
#ifndef PTRACE_PROFILER_MODULES_H
#define PTRACE_PROFILER_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind/files.h"

struct modules;

/* One loaded copy of a file in the process: what the unwinder and the
 * symbolizer need. */
struct module_image {
	const char *name;       /* path as the maps say it ("/x (deleted)"), or "[vdso]" */
	uint64_t low, high;     /* target address range */
	uint64_t bias;          /* target address = ELF vaddr + bias; with no
	                         * file, = offset in the mapped file + bias */
	struct file *file;      /* its image and names; NULL: nothing may be
	                         * read or named from it */
	uint64_t eh_frame_hdr;  /* target address of .eh_frame_hdr, 0 if none */
	uint64_t eh_frame_hdr_size;
};

/* The process's modules; its files are found in (or added to) fs.  NULL
 * with errno set when its maps cannot be read (ENOENT: no such process)
 * or out of memory. */
struct modules *modules_open(struct files *fs, pid_t pid);
void modules_close(struct modules *m);

/* Re-reads the maps.  Returns 0, or -1 with errno set (the read's error,
 * ENOMEM).  Called from the removal hook
 * (inside a re-read) it does nothing and returns 0. */
int modules_refresh(struct modules *m);

/* fn(arg) runs in a re-read before any module goes away (a library
 * unloaded): what is known of its addresses can still be used then
 * (modules_at; the maps are not read again meanwhile). */
void modules_on_removal(struct modules *m, void (*fn)(void *arg), void *arg);

/* The program these modules describe is gone (execve): never re-read the
 * maps, which now describe another; what was read stays usable. */
void modules_freeze(struct modules *m);

/* Frozen, and what only a re-read needs let go: the text of the maps
 * (its anonymous mappings' names moved out of it first) and the rows and
 * modules a parse made of it.  For a process that has ended: PostgreSQL
 * under pgbench -C kept 36 kB of them for each backend that ended. */
void modules_ended(struct modules *m);

/* The module holding addr, if it has a file; refreshes once if no mapping
 * we know holds it (bounded by cost, above).  NULL for anonymous memory, unknown
 * addresses and modules without a file. */
const struct module_image *modules_find(struct modules *m, uint64_t addr);

/* The module whose mapping holds addr, with a file or not, as of the last
 * read of the maps: never re-reads them (naming: the unwinder did when the
 * sample was taken, and the stacks still to be named were counted against
 * these modules).  NULL for anonymous memory and unknown addresses. */
const struct module_image *modules_at(struct modules *m, uint64_t addr);

/* For an address in anonymous executable memory: "[anon]", or the
 * mapping's own name ("[anon:NAME]", "[heap]", "[stack]").  NULL if addr is
 * not in such memory as of the last read of the maps. */
const char *modules_anon_name(const struct modules *m, uint64_t addr);

/* The mapping holding addr, as of the last read of the maps: its start
 * and end.  0, or -1 if none held it then.  (For a thread's stack: the
 * copy then takes exactly the live part, found without a system call.) */
int modules_mapping_of(const struct modules *m, uint64_t addr, uint64_t *start,
		       uint64_t *end);

/* Reads len bytes at target address addr from a module's file image (only
 * file-backed, read-only contents: code, unwind tables).  0 or -1. */
int modules_read(struct modules *m, uint64_t addr, void *out, size_t len);

/* The /proc/TASK/ directory the modules are read through: the process's
 * own, or a live thread's when the main thread has exited. */
pid_t modules_task(const struct modules *m);

/* Changes whenever a module appears or goes: what was learnt about an
 * address (its unwind, its name) holds while it stays the same. */
unsigned modules_generation(const struct modules *m);

/* Reads of the maps (for the summary); files this process was the first
 * to map, read into the registry for it (for tests: a re-read, or a
 * second process of one program, opens nothing again). */
unsigned modules_refresh_count(const struct modules *m);
unsigned modules_images_opened(const struct modules *m);

/* Whether a file it maps could not be opened for want of descriptors
 * (descriptors.h): its module has no file, which says nothing of the
 * process - a look-up that failed is ours to explain. */
bool modules_short_of_descriptors(const struct modules *m);

/* Misses that did not re-read the maps, the last read being too recent
 * (modules_find, modules_read): for the summary. */
struct modules_skips {
	uint64_t lookups;         /* look-ups left unknown so */
	unsigned addresses;       /* distinct addresses among them, */
	bool more;                /* ...and more not told apart (over 4096) */
	uint64_t slowest_read_ns; /* the slowest read of the maps */
	uint64_t longest_wait_ns; /* the longest a miss had to wait after one */
};
void modules_skips(const struct modules *m, struct modules_skips *out);

#endif
