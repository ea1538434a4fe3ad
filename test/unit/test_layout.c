/* Unit tests: which mappings of an ELF file make a loaded copy, and its
 * bias - lld's 2 MiB gaps, node's second mapping of its own text, a library
 * loaded twice, mappings nothing explains - and this test's own binary as
 * the kernel mapped it. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unwind/layout.h"
#include "tracee/procfs.h"

#define R 4
#define W 2
#define X 1

/* An ELF header and its program headers, in buf, as libelf reads them. */
static Elf *elf_of(char *buf, size_t size, uint16_t type, const Elf64_Phdr *ph, size_t n)
{
	assert_true(64 + n * sizeof(*ph) <= size);
	memset(buf, 0, size);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = type;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = 64;
	eh->e_ehsize = 64;
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = (uint16_t)n;
	memcpy(buf + 64, ph, n * sizeof(*ph));
	return elf_memory(buf, 64 + n * sizeof(*ph));
}

static Elf64_Phdr load(uint64_t offset, uint64_t vaddr, uint64_t filesz, uint64_t memsz, int flags,
		       uint64_t align)
{
	return (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = (uint32_t)((flags & R ? PF_R : 0) |
			     (flags & W ? PF_W : 0) | (flags & X ? PF_X : 0)),
			     .p_offset = offset, .p_vaddr = vaddr, .p_paddr = vaddr,
			     .p_filesz = filesz, .p_memsz = memsz, .p_align = align };
}

static void layout_of(uint16_t type, const Elf64_Phdr *ph, size_t n, struct elf_layout *l)
{
	static char buf[8192];
	Elf *elf = elf_of(buf, sizeof(buf), type, ph, n);
	assert_non_null(elf);
	assert_int_equal(layout_from_elf(elf, l), 0);
	elf_end(elf);
}

/* The program headers lld wrote for test/targets/lld_gap with
 * -z max-page-size=0x200000 (readelf -lW). */
static const Elf64_Phdr *lld_phdrs(size_t *n)
{
	static Elf64_Phdr ph[4];
	ph[0] = load(0x000, 0x000000, 0x724, 0x724, R, 0x200000);
	ph[1] = load(0x730, 0x200730, 0x270, 0x270, R | X, 0x200000);
	ph[2] = load(0x9a0, 0x4009a0, 0x1d8, 0x1d8, R | W, 0x200000);
	ph[3] = load(0xb78, 0x600b78, 0x040, 0x050, R | W, 0x200000);
	*n = 4;
	return ph;
}

static void lld_gaps_are_one_copy(void **state)
{
	(void)state;
	size_t n;
	const Elf64_Phdr *ph = lld_phdrs(&n);
	struct elf_layout l;
	layout_of(ET_DYN, ph, n, &l);
	assert_int_equal(l.n_loads, 4);
	assert_int_equal(l.base, 0);
	assert_int_equal(l.end, 0x600bc8);
	/* As the maps showed them: four mappings 2 MiB apart, all at file
	 * offset 0.  The old grouping made the code a module of its own at
	 * 0x558206c00000, and libdw then named its addresses 2 MiB off. */
	const uint64_t base = 0x558206a00000;
	struct file_mapping maps[] = {
		{ base, base + 0x1000, 0, false },
		{ base + 0x200000, base + 0x201000, 0, true },
		{ base + 0x400000, base + 0x401000, 0, false },
		{ base + 0x600000, base + 0x601000, 0, false },
	};
	int copy[4];
	uint64_t bias[4];
	assert_int_equal(layout_place(&l, maps, 4, copy, bias), 1);
	assert_int_equal(bias[0], base);
	for (int i = 0; i < 4; i++)
		assert_int_equal(copy[i], 0);
	uint64_t low, high;
	assert_int_equal(layout_range(&l, bias[0], &low, &high), 0);
	assert_int_equal(low, base);
	assert_int_equal(high, base + 0x600bc8);

	/* The code mapping alone would have several biases if it were not
	 * executable (every segment starts in file page 0)... */
	uint64_t cand[8];
	struct file_mapping text_as_data = maps[1];
	text_as_data.exec = false;
	assert_int_equal(layout_biases(&l, &text_as_data, cand, 8), 4);
	/* ...but as code only the executable segment explains it. */
	assert_int_equal(layout_biases(&l, &maps[1], cand, 8), 1);
	assert_int_equal(cand[0], base);
}

/* GNU ld's usual layout: segments back to back, as before. */
static void back_to_back_is_one_copy(void **state)
{
	(void)state;
	Elf64_Phdr ph[] = {
		load(0x0000, 0x0000, 0x0628, 0x0628, R, 0x1000),
		load(0x1000, 0x1000, 0x01c5, 0x01c5, R | X, 0x1000),
		load(0x2000, 0x2000, 0x00f4, 0x00f4, R, 0x1000),
		load(0x2df0, 0x3df0, 0x0220, 0x0228, R | W, 0x1000),
	};
	struct elf_layout l;
	layout_of(ET_DYN, ph, 4, &l);
	const uint64_t b = 0x7f0000000000;
	struct file_mapping maps[] = {
		{ b + 0x0000, b + 0x1000, 0x0000, false },
		{ b + 0x1000, b + 0x2000, 0x1000, true },
		{ b + 0x2000, b + 0x3000, 0x2000, false },
		{ b + 0x3000, b + 0x4000, 0x2000, false }, /* RELRO, read-only now */
		{ b + 0x4000, b + 0x5000, 0x3000, false },
	};
	int copy[5];
	uint64_t bias[5];
	assert_int_equal(layout_place(&l, maps, 5, copy, bias), 1);
	assert_int_equal(bias[0], b);
	for (int i = 0; i < 5; i++)
		if (copy[i] != 0)
			fail_msg("mapping %d: copy %d", i, copy[i]);
}

/* node: an ET_EXEC whose text V8 maps a second time, elsewhere, at a file
 * offset inside the text segment (as /proc/PID/maps showed it). */
static void second_mapping_of_text_is_its_own_copy(void **state)
{
	(void)state;
	Elf64_Phdr ph[] = {
		load(0x0000000, 0x0400000, 0x076e5d8, 0x076e5d8, R, 0x1000),
		load(0x076f000, 0x0b6f000, 0x0001e90, 0x0001e90, R | X, 0x1000),
		load(0x0772000, 0x0b72000, 0x1a8bca0, 0x1a8bca0, R | X, 0x1000),
		load(0x2200000, 0x2600000, 0x00001f1, 0x00001f1, R | X, 0x1000),
		load(0x2201000, 0x2601000, 0x3038cae, 0x3038cae, R, 0x1000),
		load(0x5239ec8, 0x563aec8, 0x00215f8, 0x004dfc8, R | W, 0x1000),
	};
	struct elf_layout l;
	layout_of(ET_EXEC, ph, 6, &l);
	assert_int_equal(l.base, 0x400000);
	struct file_mapping maps[] = {
		{ 0x0400000, 0x0b6f000, 0x0000000, false },
		{ 0x0b6f000, 0x0b71000, 0x076f000, true },
		{ 0x0b72000, 0x25fe000, 0x0772000, true },
		{ 0x2600000, 0x2601000, 0x2200000, true },
		{ 0x2601000, 0x563a000, 0x2201000, false },
		{ 0x563a000, 0x563e000, 0x5239000, false },
		{ 0x563e000, 0x565d000, 0x523d000, false },
		{ 0x7f0dd3e40000, 0x7f0dd3fd2000, 0x14c4000, true },
	};
	int copy[8];
	uint64_t bias[8];
	assert_int_equal(layout_place(&l, maps, 8, copy, bias), 2);
	for (int i = 0; i < 7; i++)
		if (copy[i] != 0)
			fail_msg("mapping %d: copy %d", i, copy[i]);
	assert_int_equal(bias[0], 0);
	assert_int_equal(copy[7], 1);
	/* Its bytes are the file's at offset 0x14c4000: vaddr 0x18c4000. */
	assert_int_equal(0x7f0dd3e40000 - bias[1], 0x18c4000);
	uint64_t low, high;
	assert_int_equal(layout_range(&l, bias[0], &low, &high), 0);
	assert_int_equal(low, 0x400000);
	assert_int_equal(high, 0x563aec8 + 0x4dfc8);
}

/* One library loaded twice (dlmopen): two copies, each its own bias. */
static void library_loaded_twice(void **state)
{
	(void)state;
	Elf64_Phdr ph[] = {
		load(0x0000, 0x0000, 0x0500, 0x0500, R, 0x1000),
		load(0x1000, 0x1000, 0x0800, 0x0800, R | X, 0x1000),
		load(0x2000, 0x2000, 0x0100, 0x0100, R, 0x1000),
		load(0x2e00, 0x3e00, 0x0200, 0x0300, R | W, 0x1000),
	};
	struct elf_layout l;
	layout_of(ET_DYN, ph, 4, &l);
	const uint64_t a = 0x7f1000000000, b = 0x7f2000000000;
	/* Interleaved, as the maps list them by address they would not be;
	 * order must not matter. */
	struct file_mapping maps[] = {
		{ b + 0x1000, b + 0x2000, 0x1000, true },
		{ a, a + 0x1000, 0, false },
		{ a + 0x1000, a + 0x2000, 0x1000, true },
		{ b, b + 0x1000, 0, false },
		{ a + 0x3000, a + 0x4000, 0x2000, false },
		/* the file mapped whole, read-only, as an ELF reader does */
		{ 0x7f3000000000, 0x7f3000004000, 0, false },
	};
	int copy[6];
	uint64_t bias[6];
	assert_int_equal(layout_place(&l, maps, 6, copy, bias), 2);
	assert_int_equal(bias[copy[0]], b);
	assert_int_equal(bias[copy[2]], a);
	assert_int_equal(copy[1], copy[2]);
	assert_int_equal(copy[3], copy[0]);
	assert_int_equal(copy[4], copy[2]);
	assert_int_equal(copy[5], -1); /* no copy: no names from it */
}

static void unexplained_mappings(void **state)
{
	(void)state;
	Elf64_Phdr ph[] = {
		load(0x0000, 0x0000, 0x0500, 0x0500, R, 0x1000),
		load(0x1000, 0x1000, 0x0800, 0x0800, R | X, 0x1000),
		load(0x2000, 0x2000, 0x0100, 0x0100, R, 0x1000),
	};
	struct elf_layout l;
	layout_of(ET_DYN, ph, 3, &l);
	const uint64_t b = 0x7f0000000000;
	struct file_mapping maps[] = {
		{ b + 0x2000, b + 0x3000, 0x2000, true },   /* executable rodata */
		{ b + 0x9000, b + 0xa000, 0x9000, true },   /* past every segment */
		{ b + 0x1000, b + 0x3000, 0x1000, true },   /* runs past the text */
		{ b + 0x5000, b + 0x5000, 0x1000, true },   /* empty */
		{ b, b + 0x1000, 0, false },                /* data, no copy to join */
	};
	int copy[5];
	uint64_t bias[5];
	assert_int_equal(layout_place(&l, maps, 5, copy, bias), 0);
	for (int i = 0; i < 5; i++)
		if (copy[i] != -1)
			fail_msg("mapping %d placed in copy %d", i, copy[i]);
}

/* Two executable segments starting in one file page: a mapping of that
 * page could be either.  Alone it is not named; once another mapping has
 * placed a copy, it joins the copy whose bias it can have. */
static void ambiguous_code_joins_a_known_copy_only(void **state)
{
	(void)state;
	Elf64_Phdr ph[] = {
		load(0x0000, 0x000000, 0x0800, 0x0800, R, 0x1000),
		load(0x1000, 0x001000, 0x0100, 0x0100, R | X, 0x1000),
		load(0x1100, 0x201100, 0x2000, 0x2000, R | X, 0x1000),
	};
	struct elf_layout l;
	layout_of(ET_DYN, ph, 3, &l);
	const uint64_t b = 0x7f0000000000;
	struct file_mapping page = { b + 0x1000, b + 0x2000, 0x1000, true };
	uint64_t cand[4];
	assert_int_equal(layout_biases(&l, &page, cand, 4), 2);
	int copy[2];
	uint64_t bias[2];
	assert_int_equal(layout_place(&l, &page, 1, copy, bias), 0);
	assert_int_equal(copy[0], -1);
	/* The second segment's own later page places the copy at b. */
	struct file_mapping both[] = { page, { b + 0x202000, b + 0x204000, 0x2000, true } };
	assert_int_equal(layout_place(&l, both, 2, copy, bias), 1);
	assert_int_equal(bias[0], b);
	assert_int_equal(copy[0], 0);
	assert_int_equal(copy[1], 0);
}

static void refuses_what_is_not_a_loaded_file(void **state)
{
	(void)state;
	static char buf[8192];
	struct elf_layout l;
	Elf64_Phdr one = load(0, 0, 0x100, 0x100, R | X, 0x1000);
	Elf *elf = elf_of(buf, sizeof(buf), ET_REL, &one, 1);
	assert_int_equal(layout_from_elf(elf, &l), -1);
	elf_end(elf);
	elf = elf_of(buf, sizeof(buf), ET_CORE, &one, 1);
	assert_int_equal(layout_from_elf(elf, &l), -1);
	elf_end(elf);
	Elf64_Phdr note = { .p_type = PT_NOTE, .p_offset = 64, .p_filesz = 16 };
	elf = elf_of(buf, sizeof(buf), ET_DYN, &note, 1);
	assert_int_equal(layout_from_elf(elf, &l), -1); /* no PT_LOAD */
	elf_end(elf);
	Elf64_Phdr wraps = load(0, UINT64_MAX - 0x10, 0x100, 0x100, R, 0x1000);
	elf = elf_of(buf, sizeof(buf), ET_DYN, &wraps, 1);
	assert_int_equal(layout_from_elf(elf, &l), -1);
	elf_end(elf);
	Elf64_Phdr bigger_file = load(0, 0, 0x200, 0x100, R, 0x1000);
	elf = elf_of(buf, sizeof(buf), ET_DYN, &bigger_file, 1);
	assert_int_equal(layout_from_elf(elf, &l), -1);
	elf_end(elf);
	static Elf64_Phdr many[LAYOUT_MAX_LOADS + 1];
	for (size_t i = 0; i <= LAYOUT_MAX_LOADS; i++)
		many[i] = load(i * 0x1000, i * 0x1000, 0x100, 0x100, R, 0x1000);
	elf = elf_of(buf, sizeof(buf), ET_DYN, many, LAYOUT_MAX_LOADS + 1);
	assert_int_equal(layout_from_elf(elf, &l), -1);
	elf_end(elf);
	elf = elf_of(buf, sizeof(buf), ET_DYN, many, LAYOUT_MAX_LOADS);
	assert_int_equal(layout_from_elf(elf, &l), 0);
	elf_end(elf);
	/* Not ELF at all, and a header cut short. */
	memset(buf, 'x', 256);
	elf = elf_memory(buf, 256);
	assert_int_equal(layout_from_elf(elf, &l), -1);
	elf_end(elf);
	elf_end(elf_of(buf, sizeof(buf), ET_DYN, &one, 1)); /* the bytes, again */
	elf = elf_memory(buf, 80); /* the program header runs past the end */
	assert_int_equal(layout_from_elf(elf, &l), -1);
	elf_end(elf);
	assert_int_equal(layout_from_elf(NULL, &l), -1);
}

/* libdw's reference is the first PT_LOAD in header order, aligned down to
 * its p_align; an alignment of 0 counts as libdw counts it. */
static void base_as_libdw_computes_it(void **state)
{
	(void)state;
	struct elf_layout l;
	Elf64_Phdr ph[] = {
		load(0x1000, 0x401000, 0x100, 0x100, R | X, 0x1000),
		load(0x0000, 0x400000, 0x100, 0x100, R, 0x1000),
	};
	layout_of(ET_EXEC, ph, 2, &l);
	assert_int_equal(l.base, 0x401000); /* header order, not lowest */
	Elf64_Phdr unaligned[] = { load(0x1234, 0x201234, 0x100, 0x100, R | X, 0x200000) };
	layout_of(ET_DYN, unaligned, 1, &l);
	assert_int_equal(l.base, 0x200000);
	Elf64_Phdr zero_align[] = { load(0x1234, 0x201234, 0x100, 0x100, R | X, 0) };
	layout_of(ET_DYN, zero_align, 1, &l);
	assert_int_equal(l.base, 0);
	/* A bias below zero (a library linked high, loaded low) is fine;
	 * a range past the top of the address space is not. */
	uint64_t low, high;
	Elf64_Phdr high_link[] = { load(0, 0x7f0000000000, 0x1000, 0x1000, R | X, 0x1000) };
	layout_of(ET_DYN, high_link, 1, &l);
	assert_int_equal(layout_range(&l, 0x10000 - 0x7f0000000000, &low, &high), 0);
	assert_int_equal(low, 0x10000);
	assert_int_equal(high, 0x11000);
	assert_int_equal(layout_range(&l, UINT64_MAX - 0x7f0000000000 - 0x800, &low, &high), -1);
}

/* This very binary as the kernel mapped it: every executable mapping of
 * it is placed in one copy, at the bias its own ELF header shows. */
extern const char __ehdr_start;

static void own_binary(void **state)
{
	(void)state;
	int fd = open("/proc/self/exe", O_RDONLY);
	assert_true(fd >= 0);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	struct elf_layout l;
	assert_int_equal(layout_from_elf(elf, &l), 0);
	elf_end(elf);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	struct file_mapping maps[64];
	size_t count = 0, exec = 0;
	char line[4096 + 256];
	while (fgets(line, sizeof(line), f) && count < 64) {
		struct map_entry me;
		if (parse_maps_line(line, strlen(line), &me) != 0 || me.path_len != (size_t)n ||
		    memcmp(me.path, exe, (size_t)n) != 0)
			continue;
		maps[count++] = (struct file_mapping){ me.start, me.end, me.offset, me.perms[2] == 'x' };
		exec += me.perms[2] == 'x';
	}
	fclose(f);
	close(fd);
	assert_true(exec > 0);
	int copy[64];
	uint64_t bias[64];
	assert_int_equal(layout_place(&l, maps, count, copy, bias), 1);
	assert_int_equal(bias[0] + l.base, (uint64_t)(uintptr_t)&__ehdr_start);
	for (size_t i = 0; i < count; i++)
		if (maps[i].exec && copy[i] != 0)
			fail_msg("code mapping at %#" PRIx64 " not placed", maps[i].start);
}

int main(void)
{
	elf_version(EV_CURRENT);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lld_gaps_are_one_copy),
		cmocka_unit_test(back_to_back_is_one_copy),
		cmocka_unit_test(second_mapping_of_text_is_its_own_copy),
		cmocka_unit_test(library_loaded_twice),
		cmocka_unit_test(unexplained_mappings),
		cmocka_unit_test(ambiguous_code_joins_a_known_copy_only),
		cmocka_unit_test(refuses_what_is_not_a_loaded_file),
		cmocka_unit_test(base_as_libdw_computes_it),
		cmocka_unit_test(own_binary),
	};
	return cmocka_run_group_tests_name("layout", tests, NULL, NULL);
}
