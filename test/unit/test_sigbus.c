/* Unit tests: a file we mapped and its owner truncated reads as zeros,
 * not as our death (sigbus.h) - a mapping of our own, and a file of the
 * registry read through file_read, which then stops trusting it
 * (files.h: file_intact); a file rewritten in place names nothing; and a
 * SIGBUS of any other kind still ends the process. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/sigbus.h"
#include "unwind/files.h"

#ifndef SPARE_LIB
#define SPARE_LIB "build/test/libspare.so"
#endif
#ifndef SPARE_TWIN
#define SPARE_TWIN "build/test/libspare_twin.so"
#endif

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pp-sigbus-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* dir/name */
static const char *in_dir(const char *name)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* Copies the file at from to dir/name (its bytes, a new inode). */
static void copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(in >= 0 && out >= 0);
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	close(out);
}

/* A mapping of a file of two pages, the file cut to nothing: both pages
 * read as zeros, one counted each.  (cmocka catches SIGBUS around each
 * test: the tests install ours over it.) */
static void zero_pages_past_the_end(void **state)
{
	(void)state;
	assert_int_equal(sigbus_install(), 0); /* over cmocka's, for this test */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd = open(in_dir("two_pages"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	uint8_t *bytes = malloc(2 * page);
	memset(bytes, 0xab, 2 * page);
	assert_int_equal(write(fd, bytes, 2 * page), (ssize_t)(2 * page));
	volatile const uint8_t *map = mmap(NULL, 2 * page, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(map[page + 1], 0xab); /* in memory, as the file was */
	uint64_t before = sigbus_zero_pages();
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(map[page + 1], 0);
	assert_int_equal(sigbus_zero_pages(), before + 1);
	assert_int_equal(map[page + 2], 0); /* the same page: no fault */
	assert_int_equal(map[0], 0);
	assert_int_equal(sigbus_zero_pages(), before + 2);
	munmap((void *)map, 2 * page);
	close(fd);
	free(bytes);
}

/* The vaddr of the last PT_LOAD's first byte in the file. */
static uint64_t last_load(const struct file *f)
{
	const struct elf_layout *l = file_layout(f);
	assert_true(l->n_loads > 0);
	return l->load[l->n_loads - 1].vaddr;
}

/* path, added to a registry of its own (fs). */
static struct file *held(struct files *fs, const char *path)
{
	bool added;
	struct file *f = files_add_fd(fs, open(path, O_RDONLY | O_CLOEXEC), path, &added);
	assert_non_null(f);
	return f;
}

/* A library of the registry, mapped (read once), then truncated by its
 * owner: the next read meets a page cut short, survives, and fails; the
 * file is not read again, nor named. */
static void file_read_after_truncation(void **state)
{
	(void)state;
	assert_int_equal(sigbus_install(), 0);
	const char *path = in_dir("libcut.so");
	copy_file(SPARE_LIB, path);
	struct files *fs = files_new(NULL);
	struct file *f = held(fs, path);
	uint64_t vaddr = last_load(f);
	uint8_t before[16], after[16];
	assert_int_equal(file_read(f, vaddr, before, sizeof(before)), 0);
	assert_true(file_intact(f));
	uint64_t pages = sigbus_zero_pages();
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(file_read(f, vaddr, after, sizeof(after)), -1);
	assert_true(sigbus_zero_pages() > pages);
	assert_false(file_intact(f));
	assert_int_equal(file_read(f, vaddr, after, sizeof(after)), -1);
	assert_null(file_dwfl_module(f));
	files_free(fs);
}

/* Cut to nothing and written again with other bytes of the same size
 * (another build of it) before we read it: no page is cut short when
 * it is read, yet libdw is never given it - its names would be the
 * other file's. */
static void rewritten_in_place_not_named(void **state)
{
	(void)state;
	const char *path = in_dir("librewritten.so");
	copy_file(SPARE_LIB, path);
	struct files *fs = files_new(NULL);
	struct file *f = held(fs, path);
	/* past the file system's clock tick: the new mtime is another */
	nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	copy_file(SPARE_TWIN, path); /* O_TRUNC, then the twin's bytes */
	struct stat a, b;
	assert_int_equal(stat(SPARE_LIB, &a), 0);
	assert_int_equal(stat(path, &b), 0);
	assert_int_equal(a.st_size, b.st_size);
	assert_null(file_dwfl_module(f));
	assert_false(file_intact(f));
	files_free(fs);
}

/* A SIGBUS that is no page of a file cut short (here one sent with
 * kill) still ends the process, as it did without the handler. */
static void other_sigbus_still_ends_us(void **state)
{
	(void)state;
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		sigbus_install();
		kill(getpid(), SIGBUS);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zero_pages_past_the_end),
		cmocka_unit_test(file_read_after_truncation),
		cmocka_unit_test(rewritten_in_place_not_named),
		cmocka_unit_test(other_sigbus_still_ends_us),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
