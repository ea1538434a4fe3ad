/* layout.c - which mappings of an ELF file make one loaded copy, and where. */
#include "unwind/layout.h"

#include <gelf.h>

#define PAGE 4096ULL /* x86-64: mappings start on 4 KiB pages */

int layout_from_elf(Elf *elf, struct elf_layout *out)
{
	GElf_Ehdr eh;
	size_t phnum;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || elf_getphdrnum(elf, &phnum) != 0)
		return -1;
	out->n_loads = 0;
	out->end = 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			return -1;
		if (ph.p_type != PT_LOAD)
			continue;
		if (out->n_loads == LAYOUT_MAX_LOADS || ph.p_filesz > ph.p_memsz ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr || ph.p_offset + ph.p_filesz < ph.p_offset)
			return -1;
		if (out->n_loads == 0)
			out->base = ph.p_vaddr & -ph.p_align; /* as libdw computes it */
		out->load[out->n_loads++] = (struct elf_load){
			ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz, (ph.p_flags & PF_X) != 0 };
		if (ph.p_vaddr + ph.p_memsz > out->end)
			out->end = ph.p_vaddr + ph.p_memsz;
	}
	return out->n_loads && out->end > out->base ? 0 : -1;
}

/* Does load l hold the file bytes map starts with, and all of them (up to
 * the page its file bytes end in)?  Then *bias is where it puts the file. */
static bool explains(const struct elf_load *l, const struct file_mapping *map, uint64_t *bias)
{
	uint64_t first = l->offset & ~(PAGE - 1), last = l->offset + l->filesz;
	uint64_t last_page = (last + PAGE - 1) & ~(PAGE - 1);
	if (l->filesz == 0 || map->end <= map->start || map->offset < first || map->offset >= last)
		return false;
	if (last_page < last || map->end - map->start > last_page - map->offset)
		return false;
	*bias = map->start - map->offset + l->offset - l->vaddr;
	return true;
}

size_t layout_biases(const struct elf_layout *l, const struct file_mapping *map, uint64_t *out,
		     size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n_loads; i++) {
		uint64_t b;
		if ((map->exec && !l->load[i].exec) || !explains(&l->load[i], map, &b))
			continue;
		bool seen = false;
		for (size_t j = 0; j < n && j < max; j++)
			seen |= out[j] == b;
		if (seen)
			continue;
		if (n < max)
			out[n] = b;
		n++;
	}
	return n;
}

static int find_copy(const uint64_t *bias, size_t n, uint64_t b)
{
	for (size_t i = 0; i < n; i++)
		if (bias[i] == b)
			return (int)i;
	return -1;
}

/* The one copy, among those that exist, that one of the candidate biases
 * names; -1 if none or several. */
static int only_existing(const uint64_t *cand, size_t n_cand, const uint64_t *bias, size_t n_copies)
{
	int found = -1;
	for (size_t i = 0; i < n_cand; i++) {
		int c = find_copy(bias, n_copies, cand[i]);
		if (c < 0)
			continue;
		if (found >= 0)
			return -1;
		found = c;
	}
	return found;
}

size_t layout_place(const struct elf_layout *l, const struct file_mapping *maps, size_t n,
		    int *copy, uint64_t *bias)
{
	uint64_t cand[LAYOUT_MAX_LOADS];
	size_t copies = 0;
	/* Executable mappings one PT_LOAD alone explains: they say where
	 * the copies are. */
	for (size_t i = 0; i < n; i++) {
		copy[i] = -1;
		if (!maps[i].exec || layout_biases(l, &maps[i], cand, LAYOUT_MAX_LOADS) != 1)
			continue;
		int c = find_copy(bias, copies, cand[0]);
		if (c < 0) {
			bias[copies] = cand[0];
			c = (int)copies++;
		}
		copy[i] = c;
	}
	/* Then the rest, if exactly one existing copy explains them. */
	for (size_t i = 0; i < n; i++) {
		if (copy[i] >= 0)
			continue;
		size_t k = layout_biases(l, &maps[i], cand, LAYOUT_MAX_LOADS);
		if (k > LAYOUT_MAX_LOADS)
			k = LAYOUT_MAX_LOADS;
		copy[i] = only_existing(cand, k, bias, copies);
	}
	return copies;
}

int layout_range(const struct elf_layout *l, uint64_t bias, uint64_t *low, uint64_t *high)
{
	/* Modulo 2^64: a prelinked library loaded below its link address has
	 * a "negative" bias.  end > base, so only a range that runs past the
	 * top of the address space comes out with high <= low. */
	*low = l->base + bias;
	*high = l->end + bias;
	return *high <= *low ? -1 : 0;
}
