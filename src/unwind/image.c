/* image.c - an ELF file's image rebuilt from a process's memory (image.h). */
#include "unwind/image.h"

#include <elf.h>
#include <stdbool.h>
#include <string.h>

/* The dynamic section's pointers that libdw reads to find .dynsym. */
static bool points_into_file(int64_t tag)
{
	switch (tag) {
	case DT_SYMTAB: case DT_STRTAB: case DT_HASH: case DT_GNU_HASH:
	case DT_VERSYM: case DT_VERDEF: case DT_VERNEED:
		return true;
	default:
		return false;
	}
}

/* Puts back the file's addresses in the dynamic section at image[off,
 * off + len): those that lie in the file's address range [lo, hi) only
 * once bias is taken off. */
static void unrelocate_dynamic(uint8_t *image, uint64_t off, uint64_t len, uint64_t bias,
			       uint64_t lo, uint64_t hi)
{
	for (uint64_t at = off; at + sizeof(Elf64_Dyn) <= off + len; at += sizeof(Elf64_Dyn)) {
		Elf64_Dyn d;
		memcpy(&d, image + at, sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		uint64_t v = d.d_un.d_ptr;
		if (!points_into_file(d.d_tag) || (v >= lo && v < hi) || v < bias ||
		    v - bias < lo || v - bias >= hi)
			continue;
		d.d_un.d_ptr = v - bias;
		memcpy(image + at, &d, sizeof(d));
	}
}

int image_from_memory(uint8_t *image, size_t size, uint64_t load_bias)
{
	Elf64_Ehdr eh;
	if (size < sizeof(eh))
		return -1;
	memcpy(&eh, image, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phoff > size || eh.e_phnum > (size - eh.e_phoff) / sizeof(Elf64_Phdr))
		return -1;
	eh.e_shoff = 0;
	eh.e_shnum = 0;
	eh.e_shstrndx = SHN_UNDEF;
	memcpy(image, &eh, sizeof(eh));

	/* The file's address range, where offset 0 is loaded, the dynamic
	 * segment. */
	uint64_t lo = UINT64_MAX, hi = 0, first = 0, dyn_off = 0, dyn_len = 0;
	bool have_first = false;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, image + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD) {
			if (ph.p_vaddr < lo)
				lo = ph.p_vaddr;
			if (ph.p_vaddr + ph.p_memsz > hi)
				hi = ph.p_vaddr + ph.p_memsz;
			if (ph.p_offset == 0 && !have_first) {
				first = ph.p_vaddr;
				have_first = true;
			}
		} else if (ph.p_type == PT_DYNAMIC) {
			dyn_off = ph.p_offset;
			dyn_len = ph.p_filesz;
		}
	}
	if (load_bias && have_first && load_bias > first && dyn_len && dyn_off <= size &&
	    dyn_len <= size - dyn_off)
		unrelocate_dynamic(image, dyn_off, dyn_len, load_bias - first, lo, hi);
	return 0;
}
