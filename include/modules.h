/* modules.h - the target's mapped ELF images, for unwinding and naming.
 *
 * Built on libdw's process reporting (dwfl_linux_proc_report): one Dwfl per
 * process, read while the target runs.  Each module's image (file on disk,
 * or the vDSO copied from the target's memory) is opened once and kept, so
 * the unwinder reads .eh_frame_hdr/.eh_frame from our memory, not the
 * target's.  The module list is re-read when an address falls outside every
 * known module (dlopen, late-loaded libraries), at most once per interval.
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

struct modules *modules_open(pid_t pid);
void modules_close(struct modules *m);

/* Re-reads /proc/PID/maps.  Returns 0 or -1. */
int modules_refresh(struct modules *m);

/* The same after an execve: the next miss re-reads again at once. */
int modules_new_program(struct modules *m);

/* The module holding addr; refreshes once if none does (rate limited).
 * NULL if the address belongs to no file-backed module. */
const struct module_image *modules_find(struct modules *m, uint64_t addr);

/* Reads len bytes at target address addr from a module's file image (only
 * file-backed, read-only contents: code, unwind tables).  0 or -1. */
int modules_read(struct modules *m, uint64_t addr, void *out, size_t len);

/* The Dwfl behind it, for symbol lookups. */
Dwfl *modules_dwfl(struct modules *m);

/* Number of times the module list was re-read (reported in the summary). */
unsigned modules_refresh_count(const struct modules *m);

#endif
