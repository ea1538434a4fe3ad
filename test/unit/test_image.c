/* Unit tests: a library's image rebuilt from this process's memory, as
 * for a deleted file no capability lets us open, is the file's where
 * libdw and libunwind read it. */
#define _GNU_SOURCE
#include <dlfcn.h>
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

#include "unwind/image.h"

/* DT_tag's value in the dynamic segment of elf, 0 if none. */
static uint64_t dynamic_value(Elf *elf, int64_t tag)
{
	size_t phnum;
	assert_int_equal(elf_getphdrnum(elf, &phnum), 0);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_DYNAMIC)
			continue;
		size_t size;
		const char *raw = elf_rawfile(elf, &size);
		assert_true(ph.p_offset + ph.p_filesz <= size);
		for (size_t at = 0; at + sizeof(Elf64_Dyn) <= ph.p_filesz; at += sizeof(Elf64_Dyn)) {
			Elf64_Dyn d;
			memcpy(&d, raw + ph.p_offset + at, sizeof(d));
			if (d.d_tag == tag)
				return d.d_un.d_ptr;
		}
	}
	return 0;
}

/* SPARE_LIB's mappings in this process, each at its file offset, read
 * through /proc/self/mem as modules.c reads a target's; *load_bias where
 * offset 0 is. */
static uint8_t *image_of_spare(size_t *size, uint64_t *load_bias)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	int mem = open("/proc/self/mem", O_RDONLY);
	assert_non_null(maps);
	assert_true(mem >= 0);
	uint8_t *image = calloc(1, 1 << 20);
	assert_non_null(image);
	char line[512], path[256];
	uint64_t start, end, offset;
	*size = 0;
	*load_bias = 0;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %255s", &start, &end,
			   &offset, path) != 4 || strcmp(path, SPARE_LIB) != 0)
			continue;
		assert_true(offset + (end - start) <= 1 << 20);
		if (pread(mem, image + offset, end - start, (off_t)start) == (ssize_t)(end - start) &&
		    offset == 0)
			*load_bias = start;
		if (offset + (end - start) > *size)
			*size = offset + (end - start);
	}
	fclose(maps);
	close(mem);
	return image;
}

static void rebuilt_as_the_file_is(void **state)
{
	(void)state;
	elf_version(EV_CURRENT);
	void *lib = dlopen(SPARE_LIB, RTLD_NOW);
	assert_non_null(lib);
	size_t size;
	uint64_t load_bias;
	uint8_t *image = image_of_spare(&size, &load_bias);
	assert_true(size > 0 && load_bias != 0);

	int fd = open(SPARE_LIB, O_RDONLY);
	assert_true(fd >= 0);
	Elf *file = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(file);
	uint64_t symtab = dynamic_value(file, DT_SYMTAB), strtab = dynamic_value(file, DT_STRTAB);
	assert_true(symtab != 0 && strtab != 0);

	/* As the loader left them: the process's addresses. */
	Elf *before = elf_memory((char *)image, size);
	assert_int_equal(dynamic_value(before, DT_SYMTAB), symtab + load_bias);
	elf_end(before);

	assert_int_equal(image_from_memory(image, size, load_bias), 0);
	Elf *after = elf_memory((char *)image, size);
	assert_non_null(after);
	size_t shnum = 1;
	assert_int_equal(elf_getshdrnum(after, &shnum), 0);
	assert_int_equal(shnum, 0); /* no section headers: they were not mapped */
	assert_int_equal(dynamic_value(after, DT_SYMTAB), symtab);
	assert_int_equal(dynamic_value(after, DT_STRTAB), strtab);
	elf_end(after);
	elf_end(file);
	close(fd);
	free(image);
	dlclose(lib);
}

static void not_an_elf_file(void **state)
{
	(void)state;
	uint8_t junk[256] = "\x7f" "ELF"; /* the magic alone */
	assert_int_equal(image_from_memory(junk, sizeof(junk), 0x1000), -1);
	assert_int_equal(image_from_memory(junk, 3, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rebuilt_as_the_file_is),
		cmocka_unit_test(not_an_elf_file),
	};
	return cmocka_run_group_tests_name("image", tests, NULL, NULL);
}
