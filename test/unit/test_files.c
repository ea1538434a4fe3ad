/* Unit tests: the run's file registry - a file's build-id, the inode key
 * it falls back on, which copies of a file are one file (the same inode;
 * the same build-id and bytes) and which are not (a stripped copy, two
 * files one after the other at one path, copies without a build-id), an
 * image in memory (the vDSO's), reading a file by its addresses, and
 * libdw's view of it at bias 0. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "unwind/files.h"

#ifndef SPARE_LIB
#define SPARE_LIB "build/test/libspare.so"
#endif
#ifndef SPARE_TWIN
#define SPARE_TWIN "build/test/libspare_twin.so"
#endif

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	elf_version(EV_CURRENT); /* files_new does it; build_id_read comes first */
	snprintf(dir, sizeof(dir), "/tmp/pp-files-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* dir/name */
static const char *in_dir(const char *name)
{
	static char paths[4][256];
	static int next;
	char *p = paths[next++ % 4];
	snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
	return p;
}

static void run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* The file at path, registered; *added as files_add_fd says. */
static struct file *add(struct files *fs, const char *path, bool *added)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	bool dummy;
	return files_add_fd(fs, fd, path, added ? added : &dummy);
}

static size_t build_id_of(const char *path, uint8_t *out)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n = file_build_id(elf, out, FILES_BUILD_ID_MAX);
	elf_end(elf);
	close(fd);
	return n;
}

/* Our own build-id, from the note the kernel mapped, read by hand. */
static int own_note(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uint8_t *out = arg;
	if (info->dlpi_name[0])
		return 0; /* the main program comes first, with no name */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const uint8_t *name = p + sizeof(*nh), *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
				memcpy(out + 1, desc, nh->n_descsz);
				out[0] = (uint8_t)nh->n_descsz;
				return 1;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1;
}

static void build_id_read(void **state)
{
	(void)state;
	uint8_t mine[1 + FILES_BUILD_ID_MAX] = { 0 }, read[FILES_BUILD_ID_MAX];
	dl_iterate_phdr(own_note, mine);
	assert_true(mine[0] >= 16);
	assert_int_equal(build_id_of("/proc/self/exe", read), mine[0]);
	assert_memory_equal(read, mine + 1, mine[0]);
	/* Too small a buffer: none, not a piece of one. */
	int fd = open("/proc/self/exe", O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_int_equal(file_build_id(elf, read, 4), 0);
	elf_end(elf);
	close(fd);
	assert_int_equal(file_build_id(NULL, read, sizeof(read)), 0);
	/* A file without one. */
	run("objcopy --remove-section=.note.gnu.build-id '%s' '%s'", SPARE_LIB, in_dir("noid.so"));
	assert_int_equal(build_id_of(in_dir("noid.so"), read), 0);
}

static void fallback_key(void **state)
{
	(void)state;
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_dev = 8, st.st_ino = 1234, st.st_size = 4096;
	st.st_mtim.tv_sec = 1700000000, st.st_mtim.tv_nsec = 5;
	struct file_key a, b;
	file_key_of(&st, &a);
	assert_true(a.dev == 8 && a.ino == 1234 && a.size == 4096 && a.mtime_sec == 1700000000 &&
		    a.mtime_nsec == 5);
	b = a;
	assert_true(file_key_equal(&a, &b));
	/* Any one part differing: another file (or the same one changed). */
	b.dev = 9;
	assert_false(file_key_equal(&a, &b));
	b = a, b.ino = 1235;
	assert_false(file_key_equal(&a, &b));
	b = a, b.size = 4097;
	assert_false(file_key_equal(&a, &b));
	b = a, b.mtime_sec++;
	assert_false(file_key_equal(&a, &b));
	b = a, b.mtime_nsec++;
	assert_false(file_key_equal(&a, &b));
}

/* The same inode twice, a hard link to it, a copy with the same build-id
 * and bytes: one file, read once. */
static void same_file_shared(void **state)
{
	(void)state;
	struct files *fs = files_new(NULL);
	bool added;
	struct file *f = add(fs, SPARE_LIB, &added);
	assert_non_null(f);
	assert_true(added);
	assert_int_equal(file_index(f), 0);
	assert_string_equal(file_path(f), SPARE_LIB);
	assert_ptr_equal(add(fs, SPARE_LIB, &added), f);
	assert_false(added);
	run("cp '%s' '%s'", SPARE_LIB, in_dir("copy.so"));
	assert_ptr_equal(add(fs, in_dir("copy.so"), &added), f);
	assert_false(added);
	assert_int_equal(files_count(fs), 1);
	files_free(fs);
}

/* strip keeps the build-id and drops the symbols: not the same file. */
static void stripped_copy_not_shared(void **state)
{
	(void)state;
	run("strip -o '%s' '%s'", in_dir("stripped.so"), SPARE_LIB);
	uint8_t a[FILES_BUILD_ID_MAX], b[FILES_BUILD_ID_MAX];
	size_t n = build_id_of(SPARE_LIB, a);
	assert_int_equal(build_id_of(in_dir("stripped.so"), b), n);
	assert_memory_equal(a, b, n);
	struct files *fs = files_new(NULL);
	struct file *f = add(fs, SPARE_LIB, NULL), *g = add(fs, in_dir("stripped.so"), NULL);
	assert_non_null(f);
	assert_non_null(g);
	assert_ptr_not_equal(f, g);
	assert_int_equal(files_count(fs), 2);
	files_free(fs);
}

/* Without a build-id only the inode proves anything: two copies of the
 * same bytes are two files; the same inode, by any name, is one. */
static void no_build_id_by_inode(void **state)
{
	(void)state;
	run("objcopy --remove-section=.note.gnu.build-id '%s' '%s'", SPARE_LIB, in_dir("a.so"));
	run("cp '%s' '%s'", in_dir("a.so"), in_dir("b.so"));
	run("ln -f '%s' '%s'", in_dir("a.so"), in_dir("link.so"));
	struct files *fs = files_new(NULL);
	struct file *a = add(fs, in_dir("a.so"), NULL);
	assert_non_null(a);
	assert_ptr_equal(add(fs, in_dir("link.so"), NULL), a);
	struct file *b = add(fs, in_dir("b.so"), NULL);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_int_equal(files_count(fs), 2);
	files_free(fs);
}

/* One path, two files in turn (each renamed into place, as a package
 * manager does): the same size, the same modification time, the same
 * layout; with build-ids and without. */
static void two_files_at_one_path(void **state)
{
	(void)state;
	for (int with_id = 1; with_id >= 0; with_id--) {
		const char *at = in_dir("lib.so"), *next = in_dir("next.so");
		struct files *fs = files_new(NULL);
		struct file *seen[3];
		const char *versions[3] = { SPARE_LIB, SPARE_TWIN, SPARE_LIB };
		for (int v = 0; v < 3; v++) {
			if (with_id)
				run("cp '%s' '%s'", versions[v], next);
			else
				run("objcopy --remove-section=.note.gnu.build-id '%s' '%s'", versions[v], next);
			run("touch -d '2024-01-01 00:00:00' '%s' && mv '%s' '%s'", next, next, at);
			seen[v] = add(fs, at, NULL);
			assert_non_null(seen[v]);
		}
		assert_ptr_not_equal(seen[0], seen[1]);
		/* The first version back: its bytes again under another inode,
		 * one file by its build-id; without one, a third file. */
		if (with_id) {
			assert_ptr_equal(seen[2], seen[0]);
			assert_int_equal(files_count(fs), 2);
		} else {
			assert_ptr_not_equal(seen[2], seen[0]);
			assert_ptr_not_equal(seen[2], seen[1]);
			assert_int_equal(files_count(fs), 3);
		}
		files_free(fs);
	}
}

static void not_elf(void **state)
{
	(void)state;
	run("echo 'not an ELF file' > '%s'", in_dir("text"));
	struct files *fs = files_new(NULL);
	bool added = true;
	assert_null(add(fs, in_dir("text"), &added));
	assert_false(added);
	/* A directory is no regular file. */
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_null(files_add_fd(fs, fd, dir, &added));
	assert_int_equal(files_count(fs), 0);
	files_free(fs);
}

/* The vDSO as the kernel mapped it in this process: its size from its
 * program headers. */
static size_t own_vdso(const uint8_t **image)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	assert_non_null(base);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	*image = base;
	return size;
}

static void image_in_memory(void **state)
{
	(void)state;
	const uint8_t *vdso;
	size_t size = own_vdso(&vdso);
	struct files *fs = files_new(NULL);
	bool added;
	struct file *f = files_add_memory(fs, vdso, size, "[vdso]", &added);
	assert_non_null(f);
	assert_true(added);
	assert_string_equal(file_path(f), "[vdso]");
	/* Another process's: the same bytes. */
	uint8_t *copy = malloc(size);
	memcpy(copy, vdso, size);
	assert_ptr_equal(files_add_memory(fs, copy, size, "[vdso]", &added), f);
	assert_false(added);
	/* One byte of code differs (another kernel's): the build-id is the
	 * same, the file is not. */
	uint64_t hdr_size, hdr = file_eh_frame_hdr(f, &hdr_size);
	assert_true(hdr != 0 && hdr_size > 0);
	copy[hdr - 1] ^= 0xff;
	struct file *g = files_add_memory(fs, copy, size, "[vdso]", &added);
	assert_non_null(g);
	assert_true(added);
	assert_ptr_not_equal(g, f);
	assert_null(files_add_memory(fs, "nothing", 8, "[vdso]", &added));
	free(copy);
	files_free(fs);
}

/* file_read at a function's address gives the code the loader mapped
 * there; libdw's module names that address, which is its vaddr. */
static void read_and_name_by_vaddr(void **state)
{
	(void)state;
	void *h = dlopen(SPARE_LIB, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	const uint8_t *fn = dlsym(h, "spare_function");
	assert_non_null(fn);
	Dl_info info;
	assert_true(dladdr(fn, &info) != 0);
	uint64_t vaddr = (uint64_t)(uintptr_t)(fn - (const uint8_t *)info.dli_fbase);
	struct files *fs = files_new(NULL);
	struct file *f = add(fs, SPARE_LIB, NULL);
	uint8_t code[16];
	assert_int_equal(file_read(f, vaddr, code, sizeof(code)), 0);
	assert_memory_equal(code, fn, sizeof(code));
	assert_int_equal(file_read(f, file_layout(f)->end + 0x100000, code, 8), -1);
	Dwfl_Module *mod = file_dwfl_module(f);
	assert_non_null(mod);
	assert_ptr_equal(file_dwfl_module(f), mod); /* made once */
	assert_string_equal(dwfl_module_addrname(mod, vaddr), "spare_function");
	files_free(fs);
	dlclose(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(build_id_read),
		cmocka_unit_test(fallback_key),
		cmocka_unit_test(same_file_shared),
		cmocka_unit_test(stripped_copy_not_shared),
		cmocka_unit_test(no_build_id_by_inode),
		cmocka_unit_test(two_files_at_one_path),
		cmocka_unit_test(not_elf),
		cmocka_unit_test(image_in_memory),
		cmocka_unit_test(read_and_name_by_vaddr),
	};
	return cmocka_run_group_tests_name("files", tests, make_dir, remove_dir);
}
