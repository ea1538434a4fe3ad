/* eh_frame.h - a search table over .eh_frame, for files that have none.
 *
 * libunwind finds a function's unwind info (its FDE) by binary search in
 * the table of .eh_frame_hdr (PT_GNU_EH_FRAME).  GCC links static programs
 * without one (its driver asks the linker for it only when linking
 * dynamically): their .eh_frame is there, nothing searches it, and not one
 * of their frames could be unwound.  This builds the same table from
 * .eh_frame itself: each FDE's initial location and the FDE's address,
 * sorted by location, both relative to a base address, as .eh_frame_hdr's
 * entries are (DW_EH_PE_datarel | DW_EH_PE_sdata4).
 *
 * Pure: the section's bytes and address in, the table out.  Records it
 * cannot read (an encoding other than absolute or pc-relative, a record
 * running past the end) are left out, never guessed at.
 */
#ifndef PTRACE_PROFILER_EH_FRAME_H
#define PTRACE_PROFILER_EH_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* One FDE, as .eh_frame_hdr's table holds it. */
struct eh_frame_entry {
	int32_t start; /* its initial location - base */
	int32_t fde;   /* the FDE's own address - base */
};

/* The FDEs of the .eh_frame in data[0..len), which lies at address vaddr,
 * sorted by start; *n their number.  An FDE whose numbers do not fit in
 * 32 bits from base is left out.  NULL (and *n 0) when there is none or
 * memory is short; else free() it. */
struct eh_frame_entry *eh_frame_index(const uint8_t *data, size_t len, uint64_t vaddr,
				      uint64_t base, size_t *n);

#endif
