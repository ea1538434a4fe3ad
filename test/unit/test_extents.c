/* Unit tests: libdw's symbol for an address, asked once an extent
 * (extents.h), is libdw's own answer for every address - held address by
 * address against dwfl_module_addrinfo in real files: this test program
 * (local symbols, sizeless ones from crt), the C library (aliases,
 * IFUNCs, hand-written assembly) and libdw itself (thousands of symbols). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include "name/extents.h"
#include "name/symbolize.h"
#include "unwind/files.h"

/* The run's files, fresh for each test (setup, teardown). */
#include "naming_fixture.h"

/* The module of the file at path, at bias 0. */
static Dwfl_Module *module_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	bool added;
	struct file *f = files_add_fd(files, fd, path, &added);
	assert_non_null(f);
	Dwfl_Module *mod = file_dwfl_module(f);
	assert_non_null(mod);
	return mod;
}

/* The file a symbol of this process lives in. */
static const char *path_of(const void *symbol)
{
	static char path[4096];
	Dl_info info;
	assert_true(dladdr(symbol, &info) != 0 && info.dli_fname);
	if (!strchr(info.dli_fname, '/') || !strcmp(info.dli_fname, ""))
		assert_true(readlink("/proc/self/exe", path, sizeof(path) - 1) > 0);
	else
		snprintf(path, sizeof(path), "%s", info.dli_fname);
	return path;
}

static uint64_t probes;

/* One address: the extents' answer is libdw's, when it holds vaddr. */
static void same_answer(struct extents *e, Dwfl_Module *mod, uint64_t vaddr)
{
	GElf_Off off1 = 0, off2 = 0;
	GElf_Sym s1, s2;
	const char *ours = extents_symbol(e, vaddr, &off1, &s1);
	const char *libdw = dwfl_module_addrinfo(mod, vaddr, &off2, &s2, NULL, NULL, NULL);
	probes++;
	if (libdw && !(s2.st_size ? off2 < s2.st_size : off2 == 0))
		libdw = NULL; /* a sizeless symbol below vaddr does not hold it */
	if (!libdw) {
		if (ours)
			fail_msg("0x%llx: libdw names nothing, the extents %s+%llu",
				 (unsigned long long)vaddr, ours, (unsigned long long)off1);
		return;
	}
	if (!ours || strcmp(ours, libdw) || off1 != off2 || s1.st_value != s2.st_value ||
	    s1.st_size != s2.st_size)
		fail_msg("0x%llx: libdw %s+%llu, the extents %s+%llu", (unsigned long long)vaddr,
			 libdw, (unsigned long long)off2, ours ? ours : "(none)",
			 (unsigned long long)off1);
}

/* Every symbol's first and last byte and the bytes around them, and a
 * stride through every section with contents at an address. */
static void whole_file(const char *path, uint64_t sweep)
{
	Dwfl_Module *mod = module_of(path);
	struct extents *e = extents_new(mod);
	assert_non_null(e);
	probes = 0;
	int nsyms = dwfl_module_getsymtab(mod);
	assert_true(nsyms > 10);
	/* about 1,200 symbols, each asked about twice (the second time from
	 * the answers kept): libdw takes ~0.1 ms a call in the C library */
	int every = nsyms / 1200 + 1;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 1 + pass; i < nsyms; i += every) {
			GElf_Sym sym;
			GElf_Addr addr;
			if (!dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL) || !addr)
				continue;
			uint64_t end = addr + (sym.st_size ? sym.st_size : 1);
			same_answer(e, mod, addr - 1);
			same_answer(e, mod, addr);
			same_answer(e, mod, addr + 1);
			same_answer(e, mod, end - 1);
			same_answer(e, mod, end);
		}
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	uint64_t size = 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		if (sh && sh->sh_addr && (sh->sh_flags & SHF_ALLOC))
			size += sh->sh_size;
	}
	/* about sweep addresses, a stride that meets every alignment */
	uint64_t stride = (size / sweep) | 1;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		if (!sh || !sh->sh_addr || !(sh->sh_flags & SHF_ALLOC))
			continue;
		same_answer(e, mod, sh->sh_addr - 1);
		for (uint64_t a = sh->sh_addr; a < sh->sh_addr + sh->sh_size; a += stride)
			same_answer(e, mod, a);
		same_answer(e, mod, sh->sh_addr + sh->sh_size);
	}
	/* libdw was asked once an extent at most, and far less than once a probe */
	assert_true(extents_asked(e) <= extents_count(e));
	assert_true(extents_asked(e) * 2 < probes);
	print_message("%s: %llu probes, %llu asked of libdw, %zu extents\n", path,
		      (unsigned long long)probes, (unsigned long long)extents_asked(e),
		      extents_count(e));
	extents_free(e);
}

static int local_function(int x)
{
	return x * 3 + 1;
}

static void test_this_program(void **state)
{
	(void)state;
	(void)local_function(1);
	whole_file(path_of((const void *)whole_file), 6000);
}

static void test_libc(void **state)
{
	(void)state;
	whole_file(path_of((const void *)printf), 3000);
}

static void test_libdw(void **state)
{
	(void)state;
	whole_file(path_of((const void *)dwfl_module_addrinfo), 3000);
}

/* One extent, asked about from its middle first, then its start: libdw
 * asked once at most (not at all: the only symbol there), the offsets
 * measured from the symbol's start. */
static void test_asked_once(void **state)
{
	(void)state;
	Dwfl_Module *mod = module_of(path_of((const void *)whole_file));
	struct extents *e = extents_new(mod);
	assert_non_null(e);
	Dl_info info;
	assert_true(dladdr((const void *)whole_file, &info) != 0);
	uint64_t start = (uint64_t)((const char *)(const void *)whole_file - (const char *)info.dli_fbase);
	GElf_Off off;
	GElf_Sym sym;
	const char *name = extents_symbol(e, start + 5, &off, &sym);
	assert_string_equal(name, "whole_file");
	assert_int_equal(off, 5);
	uint64_t asked = extents_asked(e);
	assert_true(asked <= 1);
	name = extents_symbol(e, start, &off, &sym);
	assert_string_equal(name, "whole_file");
	assert_int_equal(off, 0);
	assert_int_equal(extents_asked(e), asked);
	extents_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_this_program, new_run, end_run),
		cmocka_unit_test_setup_teardown(test_libc, new_run, end_run),
		cmocka_unit_test_setup_teardown(test_libdw, new_run, end_run),
		cmocka_unit_test_setup_teardown(test_asked_once, new_run, end_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
