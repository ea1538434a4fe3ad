/* layout.h - where a mapped ELF file's addresses are: which of its
 * mappings make one loaded copy, and at what bias.
 *
 * A file's mappings need not lie back to back.  lld with
 * -z max-page-size=0x200000 puts each segment 2 MiB after the one before,
 * all at file offset 0; node's V8 maps a piece of node's text a second time
 * elsewhere; dlmopen can load one library twice.  Only the program headers
 * say which address a mapped byte has in the file: a mapping of file offset
 * O at address A, inside PT_LOAD L, holds the file at bias
 *     A - O + L.p_offset - L.p_vaddr      (address = ELF vaddr + bias),
 * and mappings of one file at the same bias are one copy of it.
 *
 * No I/O: layout_from_elf reads an Elf handle libelf already holds (a file
 * or, in the unit tests, bytes in memory); layout_place is arithmetic.
 */
#ifndef PTRACE_PROFILER_LAYOUT_H
#define PTRACE_PROFILER_LAYOUT_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAYOUT_MAX_LOADS 32 /* more PT_LOADs than any linker writes: refused */

struct elf_load {
	uint64_t vaddr, offset, filesz, memsz;
	bool exec;
};

struct elf_layout {
	struct elf_load load[LAYOUT_MAX_LOADS];
	size_t n_loads;
	/* libdw's reference address: the first PT_LOAD's p_vaddr & -p_align.
	 * A module reported at low = bias + base gets exactly that bias from
	 * libdw (its main_bias is low - base). */
	uint64_t base;
	uint64_t end; /* the highest p_vaddr + p_memsz */
};

/* One line of /proc/PID/maps for the file. */
struct file_mapping {
	uint64_t start, end, offset;
	bool exec;
};

/* An executable or shared-object file's loadable segments.  0, or -1 for
 * anything else (a relocatable object, a core file, no PT_LOAD, more than
 * LAYOUT_MAX_LOADS, a segment whose numbers overflow). */
int layout_from_elf(Elf *elf, struct elf_layout *out);

/* The distinct biases at which map can hold the file: one per PT_LOAD
 * whose file bytes it starts in and does not run past (page-rounded), an
 * executable mapping only in an executable PT_LOAD.  Writes at most max,
 * returns how many there are. */
size_t layout_biases(const struct elf_layout *l, const struct file_mapping *map, uint64_t *out,
		     size_t max);

/* Sorts the n mappings of one file into loaded copies.  An executable
 * mapping that one PT_LOAD alone explains makes (or joins) the copy at its
 * bias; one that several explain joins the one copy among them that
 * exists; other mappings join a copy only if that copy's bias explains
 * them.  copy[i] is the index in bias[] of mapping i's copy, or -1: nothing
 * explains it, and its addresses must not be named from this file.  Every
 * copy has an executable mapping.  bias[] has room for n; returns the
 * number of copies. */
size_t layout_place(const struct elf_layout *l, const struct file_mapping *maps, size_t n,
		    int *copy, uint64_t *bias);

/* The range libdw is told about for the copy at bias: [bias + base,
 * bias + end).  0, or -1 if it wraps around the address space. */
int layout_range(const struct elf_layout *l, uint64_t bias, uint64_t *low, uint64_t *high);

#endif
