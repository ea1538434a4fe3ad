/* modules.h - the target's mappings and ELF images, for unwinding and naming.
 *
 * We read /proc/PID/maps ourselves (procfs.h's parser) and report every file
 * with an executable mapping to libdw as a module; libdw then gives symbols,
 * separate debug info (.gnu_debuglink, /usr/lib/debug/.build-id, debuginfod
 * when DEBUGINFOD_URLS is set) and MiniDebugInfo.
 *
 * A file's mappings are grouped by what the file is (device and inode), not
 * by whether they touch: lld leaves 2 MiB between segments, node's V8 maps
 * part of node's text a second time far away.  Its program headers
 * (layout.h) say which mappings make one loaded copy and at what bias; each
 * copy is one libdw module, reported at bias + the first PT_LOAD's aligned
 * address, so that libdw's bias is that copy's.  Code of the file that no
 * program header explains is a module with no ELF: named after the file,
 * never from it.  Whose an address is comes from the mappings, not from
 * libdw's module ranges, which span a file's gaps.
 *
 * A module's image is the file the target really mapped:
 * /proc/PID/map_files/START-END (works for a deleted or replaced binary
 * and for a process in another mount namespace), else PATH under
 * /proc/PID/root, else PATH - the last two only when their inode is the
 * mapped one.  No such file: no image, and its frames are named after the
 * module, never after another file's symbols.  The vDSO's image is read from
 * the target's memory.  Images are opened once and kept, so the unwinder
 * reads .eh_frame from our memory, not the target's.
 *
 * A process whose main thread has exited while others run has empty
 * /proc/PID/maps, map_files and root: they are read through a live
 * thread's /proc/TID/ instead.
 *
 * Anonymous executable memory (JIT code) is remembered too: an address in it
 * is known, it just has no module.  The maps are re-read when an address
 * lies in no mapping we know (a library loaded after we attached), at most
 * once per 20 ms; modules reported again unchanged are not re-opened.
 */
#ifndef PTRACE_PROFILER_MODULES_H
#define PTRACE_PROFILER_MODULES_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct modules;

/* What the unwinder needs from one module. */
struct module_image {
	const char *name;       /* path as mapped, or "[vdso]" */
	uint64_t low, high;     /* target address range */
	uint64_t bias;          /* target address = ELF vaddr + bias */
	const uint8_t *file;    /* raw ELF image */
	size_t file_size;
	uint64_t eh_frame_hdr;  /* target address of .eh_frame_hdr, 0 if none */
	uint64_t eh_frame_hdr_size;
};

/* debuginfo_path: where separate debug files are looked for, as libdw's
 * Dwfl_Callbacks take it (":.debug:/usr/lib/debug" when NULL). */
struct modules *modules_open(pid_t pid, const char *debuginfo_path);
void modules_close(struct modules *m);

/* Re-reads the maps.  Returns 0 or -1. */
int modules_refresh(struct modules *m);

/* fn(arg) runs in a re-read before any module goes away (a library
 * unloaded): what is known of its addresses can still be used then. */
void modules_on_removal(struct modules *m, void (*fn)(void *arg), void *arg);

/* The program these modules describe is gone (execve): never re-read the
 * maps, which now describe another; what was read stays usable. */
void modules_freeze(struct modules *m);

/* The module holding addr; refreshes once if no mapping we know holds it
 * (rate limited).  NULL for anonymous memory and for unknown addresses. */
const struct module_image *modules_find(struct modules *m, uint64_t addr);

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

/* The Dwfl behind it, for symbol lookups. */
Dwfl *modules_dwfl(struct modules *m);

/* The libdw module whose mapping holds addr, as modules_find leaves them;
 * NULL if none. */
Dwfl_Module *modules_dwfl_module(struct modules *m, uint64_t addr);

/* The /proc/TASK/ directory the modules are read through: the process's
 * own, or a live thread's when the main thread has exited. */
pid_t modules_task(const struct modules *m);

/* Changes whenever a module appears or goes: what was learnt about an
 * address (its unwind, its name) holds while it stays the same. */
unsigned modules_generation(const struct modules *m);

/* For the summary: reads of the maps, ELF images opened. */
unsigned modules_refresh_count(const struct modules *m);
unsigned modules_images_opened(const struct modules *m);

#endif
