/* Unit tests: separate debug files found without trusting their paths -
 * the CRC-32 of .gnu_debuglink, open_regular's refusals (a FIFO, without
 * blocking; a directory; a device; a file too big), and the search:
 * FIFOs, directories and devices on the way are skipped, a file with the
 * wrong build-id or CRC is rejected, the module's own file is never
 * taken, the right file is found by build-id, next to the program, in
 * .debug/ and under a global folder, and nothing relative to the working
 * directory is looked at.  alarm() guards every test: a blocking open
 * ends the run with SIGALRM instead of hanging it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/regular_file.h"
#include "unwind/debuginfo.h"

#ifndef SPARE_LIB
#define SPARE_LIB "build/test/libspare.so"
#endif
#ifndef SPARE_TWIN
#define SPARE_TWIN "build/test/libspare_twin.so"
#endif

#define GUARD_S 20 /* a test blocked in open() is killed, not waited for */

static char dir[64];
static uint8_t lib_id[64];
static size_t lib_id_len;
static uint32_t lib_crc;

static void run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* dir/name */
static const char *in_dir(const char *name)
{
	static char paths[8][512];
	static int next;
	char *p = paths[next++ % 8];
	snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
	return p;
}

static uint32_t crc_of(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	uint8_t buf[4096];
	uint32_t crc = 0;
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		crc = debuginfo_crc32(crc, buf, n);
	fclose(f);
	return crc;
}

static int setup(void **state)
{
	(void)state;
	elf_version(EV_CURRENT);
	snprintf(dir, sizeof(dir), "/tmp/pp-debuginfo-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	int fd = open(SPARE_LIB, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	const void *id = NULL;
	ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (len <= 0 || (size_t)len > sizeof(lib_id))
		return -1;
	memcpy(lib_id, id, (size_t)len);
	lib_id_len = (size_t)len;
	elf_end(elf);
	close(fd);
	lib_crc = crc_of(SPARE_LIB);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A fresh layout for each test: dir/bin/prog (a copy of the spare
 * library: the module's own file), dir/bin/.debug/, dir/global/. */
static int fresh(void **state)
{
	(void)state;
	alarm(GUARD_S);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%s'/* && mkdir -p '%s/bin/.debug' '%s/global' && cp '%s' '%s/bin/prog'", dir,
		 dir, dir, SPARE_LIB, dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int unguard(void **state)
{
	(void)state;
	alarm(0);
	return 0;
}

/* What the module dir/bin/prog asks for: its build-id, or (by_crc) the
 * spare library's CRC alone. */
static struct debuginfo_want want_for(bool by_crc)
{
	struct stat st;
	assert_int_equal(stat(in_dir("bin/prog"), &st), 0);
	struct debuginfo_want w = { .main_dev = st.st_dev, .main_ino = st.st_ino };
	if (by_crc) {
		w.crc = lib_crc;
		w.has_crc = true;
	} else {
		w.build_id = lib_id;
		w.build_id_len = lib_id_len;
	}
	return w;
}

/* The search for dir/bin/prog with .gnu_debuglink link, the path
 * ":.debug:DIR/global"; the file found (its path checked against
 * expect, NULL for none). */
static void expect_found(const struct debuginfo_want *w, const char *link, const char *expect)
{
	char path[256], *found = NULL;
	snprintf(path, sizeof(path), ":.debug:%s/global", dir);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int fd = debuginfo_search(path, in_dir("bin/prog"), link, w, &found);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 5); /* no open that waited */
	if (!expect) {
		assert_int_equal(fd, -1);
		assert_null(found);
		return;
	}
	assert_true(fd >= 0);
	assert_non_null(found);
	assert_string_equal(found, expect);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	free(found);
	close(fd);
}

static void crc32_known(void **state)
{
	(void)state;
	/* the check value of CRC-32/ISO-HDLC */
	assert_int_equal(debuginfo_crc32(0, "123456789", 9), 0xcbf43926u);
	assert_int_equal(debuginfo_crc32(0, "", 0), 0);
	uint32_t part = debuginfo_crc32(0, "12345", 5);
	assert_int_equal(debuginfo_crc32(part, "6789", 4), 0xcbf43926u);
}

static void open_regular_refuses(void **state)
{
	(void)state;
	const char *fifo = in_dir("fifo");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* no writer: a blocking open would wait for ever */
	errno = 0;
	assert_int_equal(open_regular(fifo, 1 << 20, NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(open_regular(in_dir("bin"), 1 << 20, NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(open_regular("/dev/null", 1 << 20, NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(symlink("/dev/null", in_dir("null")), 0);
	assert_int_equal(open_regular(in_dir("null"), 1 << 20, NULL), -1);
	assert_int_equal(open_regular(in_dir("missing"), 1 << 20, NULL), -1);
	assert_int_equal(errno, ENOENT);
	/* a sparse file of 1 TiB, over a bound of 1 MiB */
	int big = open(in_dir("big"), O_WRONLY | O_CREAT, 0600);
	assert_true(big >= 0);
	assert_int_equal(ftruncate(big, (off_t)1 << 40), 0);
	close(big);
	assert_int_equal(open_regular(in_dir("big"), 1 << 20, NULL), -1);
	assert_int_equal(errno, EFBIG);
	struct stat st;
	int fd = open_regular(in_dir("bin/prog"), 1 << 30, &st);
	assert_true(fd >= 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	char magic[4];
	assert_int_equal(pread(fd, magic, 4, 0), 4);
	assert_memory_equal(magic, "\177ELF", 4);
	close(fd);
}

/* FIFOs next to the program and in .debug/: skipped, not waited on; the
 * file under the global folder (DIR/global/DIR/bin/prog.debug) found. */
static void fifos_skipped(void **state)
{
	(void)state;
	struct debuginfo_want w = want_for(false);
	assert_int_equal(mkfifo(in_dir("bin/prog.debug"), 0600), 0);
	assert_int_equal(mkfifo(in_dir("bin/.debug/prog.debug"), 0600), 0);
	expect_found(&w, "prog.debug", NULL);
	char global[512];
	snprintf(global, sizeof(global), "%s/global%s/bin", dir, dir);
	run("mkdir -p '%s' && cp '%s' '%s/prog.debug'", global, SPARE_LIB, global);
	strcat(global, "/prog.debug");
	expect_found(&w, "prog.debug", global);
	/* and by CRC alone */
	w = want_for(true);
	expect_found(&w, "prog.debug", global);
}

/* A directory and a device (a symbolic link to /dev/null) in the way. */
static void directory_and_device_skipped(void **state)
{
	(void)state;
	struct debuginfo_want w = want_for(false);
	assert_int_equal(mkdir(in_dir("bin/prog.debug"), 0700), 0);
	assert_int_equal(symlink("/dev/null", in_dir("bin/.debug/prog.debug")), 0);
	expect_found(&w, "prog.debug", NULL);
	run("cp '%s' '%s'", SPARE_LIB, in_dir("global/prog.debug"));
	expect_found(&w, "prog.debug", in_dir("global/prog.debug"));
}

/* The twin (another build-id, another CRC) next to the program is
 * rejected; the right file in .debug/ is found. */
static void wrong_file_rejected(void **state)
{
	(void)state;
	run("cp '%s' '%s'", SPARE_TWIN, in_dir("bin/prog.debug"));
	struct debuginfo_want w = want_for(false);
	expect_found(&w, "prog.debug", NULL);
	w = want_for(true);
	expect_found(&w, "prog.debug", NULL);
	/* a right build-id with a wrong CRC: a module without a build-id
	 * asks for the CRC */
	w.crc ^= 1;
	run("cp '%s' '%s'", SPARE_LIB, in_dir("bin/.debug/prog.debug"));
	expect_found(&w, "prog.debug", NULL);
	w = want_for(true);
	expect_found(&w, "prog.debug", in_dir("bin/.debug/prog.debug"));
	w = want_for(false);
	expect_found(&w, "prog.debug", in_dir("bin/.debug/prog.debug"));
}

/* A link to the program itself (the same inode) proves nothing. */
static void own_file_not_taken(void **state)
{
	(void)state;
	struct debuginfo_want w = want_for(false);
	expect_found(&w, "prog", NULL);
	assert_int_equal(link(in_dir("bin/prog"), in_dir("bin/.debug/prog")), 0);
	expect_found(&w, "prog", NULL);
}

/* By build-id under an absolute entry, a FIFO at that place in another
 * entry first; and without a .gnu_debuglink, basename.debug with a
 * build-id only. */
static void by_build_id_and_invented_name(void **state)
{
	(void)state;
	char sub[4], rest[160], *r = rest;
	snprintf(sub, sizeof(sub), "%02x", lib_id[0]);
	for (size_t i = 1; i < lib_id_len; i++)
		r += sprintf(r, "%02x", lib_id[i]);
	run("mkdir -p '%s/other/.build-id/%s' '%s/global/.build-id/%s'", dir, sub, dir, sub);
	run("mkfifo '%s/other/.build-id/%s/%s.debug'", dir, sub, rest);
	run("cp '%s' '%s/global/.build-id/%s/%s.debug'", SPARE_LIB, dir, sub, rest);
	struct debuginfo_want w = want_for(false);
	char path[256], *found = NULL, expect[512];
	snprintf(path, sizeof(path), "%s/other:%s/global", dir, dir);
	snprintf(expect, sizeof(expect), "%s/global/.build-id/%s/%s.debug", dir, sub, rest);
	int fd = debuginfo_search(path, NULL, NULL, &w, &found);
	assert_true(fd >= 0);
	assert_string_equal(found, expect);
	free(found);
	close(fd);
	/* the same without a build-id: no proof of anything */
	w = want_for(true);
	w.has_crc = false;
	assert_int_equal(debuginfo_search(path, NULL, NULL, &w, &found), -1);

	run("rm -r '%s/global/.build-id' && cp '%s' '%s'", dir, SPARE_LIB,
	    in_dir("bin/.debug/prog.debug"));
	w = want_for(false);
	expect_found(&w, NULL, in_dir("bin/.debug/prog.debug"));
	w = want_for(true);
	w.has_crc = false;
	expect_found(&w, NULL, NULL);
}

/* A module named by a relative path is looked for by build-id alone:
 * never relative to our working directory. */
static void never_relative(void **state)
{
	(void)state;
	run("cp '%s' '%s'", SPARE_LIB, in_dir("bin/prog.debug"));
	char cwd[512];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(in_dir("bin")), 0);
	struct debuginfo_want w = want_for(false);
	char *found = NULL;
	int fd = debuginfo_search(":.debug", "prog", "prog.debug", &w, &found);
	int fd2 = debuginfo_search(":.debug", "/prog", "bin/prog.debug", &w, &found);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(fd, -1);
	assert_int_equal(fd2, -1);
	assert_null(found);
}

/* A dwz file: by the altlink's build-id, at ALT's own (absolute) path
 * after a FIFO at the path relative to the debug file. */
static void dwz_file(void **state)
{
	(void)state;
	run("mkdir -p '%s/dwz' && cp '%s' '%s/dwz/common.debug'", dir, SPARE_LIB, dir);
	run("mkdir -p '%s/bin/.dwz' && mkfifo '%s/bin/.dwz/common.debug'", dir, dir);
	struct debuginfo_want w = want_for(false);
	w.alt = true;
	char *found = NULL;
	int fd = debuginfo_search(":.debug", in_dir("bin/prog"), "../nowhere/common.debug", &w,
				  &found);
	assert_int_equal(fd, -1);
	fd = debuginfo_search(":.debug", in_dir("bin/prog"), in_dir("dwz/common.debug"), &w, &found);
	assert_true(fd >= 0);
	assert_string_equal(found, in_dir("dwz/common.debug"));
	free(found);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crc32_known),
		cmocka_unit_test_setup_teardown(open_regular_refuses, fresh, unguard),
		cmocka_unit_test_setup_teardown(fifos_skipped, fresh, unguard),
		cmocka_unit_test_setup_teardown(directory_and_device_skipped, fresh, unguard),
		cmocka_unit_test_setup_teardown(wrong_file_rejected, fresh, unguard),
		cmocka_unit_test_setup_teardown(own_file_not_taken, fresh, unguard),
		cmocka_unit_test_setup_teardown(by_build_id_and_invented_name, fresh, unguard),
		cmocka_unit_test_setup_teardown(never_relative, fresh, unguard),
		cmocka_unit_test_setup_teardown(dwz_file, fresh, unguard),
	};
	return cmocka_run_group_tests_name("debuginfo", tests, setup, teardown);
}
