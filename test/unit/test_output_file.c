/* Unit tests: an output file written beside its name and renamed over it
 * (output_file.h): FILE untouched until the commit, and after a discard;
 * nothing left beside it; the mode the shell's > would give; names that
 * are no regular file written to directly; symbolic links kept; and, as
 * root, nothing another user plants (links, FIFOs, devices) followed or
 * written through. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "output/output_file.h"

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_output_file.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The file's text ("" if it is not there). */
static const char *text_of(const char *path)
{
	static char buf[256];
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

static size_t files_in_dir(void)
{
	size_t n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void replaces_only_at_the_commit(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/out.folded", dir);
	put(path, "previous\n");
	struct output_file of;
	assert_int_equal(output_file_open(&of, path), 0);
	fputs("new profile\n", of.f);
	fflush(of.f);
	assert_string_equal(text_of(path), "previous\n"); /* not yet */
	/* written without a name (O_TMPFILE): nothing beside it to leave
	 * behind; or, where the file system cannot, NAME.tmp.RANDOM */
	if (of.unnamed) {
		assert_int_equal(files_in_dir(), 1);
		assert_string_equal(of.tmp, "");
	} else {
		assert_int_equal(files_in_dir(), 2);
		assert_int_equal(strncmp(of.tmp, "out.folded.tmp.", 15), 0);
		assert_int_equal(strlen(of.tmp), 15 + 16); /* 64 random bits */
	}
	assert_int_equal(output_file_commit(&of), 0);
	assert_string_equal(text_of(path), "new profile\n");
	assert_int_equal(files_in_dir(), 1);
	assert_null(of.f);
	assert_int_equal(output_file_commit(&of), 0); /* twice: nothing more */
	unlink(path);
}

static void discard_leaves_the_file(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/keep.folded", dir);
	put(path, "previous\n");
	struct output_file of;
	assert_int_equal(output_file_open(&of, path), 0);
	assert_true(output_file_replaces(&of)); /* a run without samples keeps it */
	fputs("half a profile", of.f);
	output_file_discard(&of);
	assert_string_equal(text_of(path), "previous\n");
	assert_int_equal(files_in_dir(), 1);
	output_file_discard(&of); /* twice: nothing more */
	unlink(path);
	/* a new name: not made at all */
	assert_int_equal(output_file_open(&of, path), 0);
	assert_false(output_file_replaces(&of));
	output_file_discard(&of);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(files_in_dir(), 0);
}

/* A writer killed before its commit (SIGKILL: no handler, no discard)
 * leaves NAME as it was and nothing beside it. */
static void killed_before_the_commit_leaves_nothing(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/killed.folded", dir);
	put(path, "previous\n");
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct output_file of;
		if (output_file_open(&of, path) != 0)
			_exit(2);
		fputs("half a profile\n", of.f);
		fflush(of.f);
		raise(SIGKILL);
		_exit(3);
	}
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status));
	assert_string_equal(text_of(path), "previous\n");
	struct output_file probe;
	assert_int_equal(output_file_open(&probe, path), 0);
	bool unnamed = probe.unnamed;
	output_file_discard(&probe);
	if (unnamed)
		assert_int_equal(files_in_dir(), 1);
	unlink(path);
}

static void two_at_once_do_not_collide(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/both.folded", dir);
	struct output_file a, b;
	assert_int_equal(output_file_open(&a, path), 0);
	assert_int_equal(output_file_open(&b, path), 0);
	if (!a.unnamed)
		assert_string_not_equal(a.tmp, b.tmp);
	fputs("a\n", a.f);
	fputs("b\n", b.f);
	assert_int_equal(output_file_commit(&a), 0);
	assert_string_equal(text_of(path), "a\n");
	assert_int_equal(output_file_commit(&b), 0); /* the last one wins, whole */
	assert_string_equal(text_of(path), "b\n");
	unlink(path);
}

static void no_directory_is_an_error(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/no/such/dir/x.folded", dir);
	struct output_file of;
	errno = 0;
	assert_int_equal(output_file_open(&of, path), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(of.f);
	output_file_discard(&of); /* harmless */
}

static void mode_as_the_shell_gives(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/mode.folded", dir);
	mode_t old = umask(022);
	struct output_file of;
	assert_int_equal(output_file_open(&of, path), 0);
	assert_int_equal(output_file_commit(&of), 0);
	umask(old);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	unlink(path);
}

static void not_a_regular_file_is_written_directly(void **state)
{
	(void)state;
	struct output_file of;
	assert_int_equal(output_file_open(&of, "/dev/null"), 0);
	assert_string_equal(of.tmp, "");
	fputs("gone\n", of.f);
	assert_int_equal(output_file_commit(&of), 0);
	struct stat st;
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode)); /* still the device */
}

static void a_link_stays_a_link(void **state)
{
	(void)state;
	char real[128], link[128];
	snprintf(real, sizeof(real), "%s/real.folded", dir);
	snprintf(link, sizeof(link), "%s/link.folded", dir);
	put(real, "previous\n");
	assert_int_equal(symlink("real.folded", link), 0);
	struct output_file of;
	assert_int_equal(output_file_open(&of, link), 0);
	fputs("new\n", of.f);
	assert_int_equal(output_file_commit(&of), 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(text_of(real), "new\n");
	unlink(link);
	unlink(real);
}

/* The uid another user's files get in these tests; they need root. */
#define STRANGER 65534

static bool as_root(void)
{
	return geteuid() == 0;
}

static void a_file_of_ours_keeps_its_mode(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/private.folded", dir);
	put(path, "previous\n");
	assert_int_equal(chmod(path, 0600), 0);
	struct output_file of;
	assert_int_equal(output_file_open(&of, path), 0);
	assert_int_equal(output_file_commit(&of), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	unlink(path);
}

/* A stranger's link at the name: the link is replaced, what it leads to
 * is not touched. */
static void a_strangers_link_is_replaced_not_followed(void **state)
{
	(void)state;
	if (!as_root())
		skip();
	char secret[128], link[128];
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	snprintf(link, sizeof(link), "%s/planted.folded", dir);
	put(secret, "root only\n");
	assert_int_equal(chmod(secret, 0600), 0);
	assert_int_equal(symlink(secret, link), 0);
	assert_int_equal(lchown(link, STRANGER, STRANGER), 0);
	struct output_file of;
	assert_int_equal(output_file_open(&of, link), 0);
	fputs("profile\n", of.f);
	assert_int_equal(output_file_commit(&of), 0);
	assert_string_equal(text_of(secret), "root only\n");
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode)); /* the link itself replaced */
	assert_string_equal(text_of(link), "profile\n");
	assert_int_equal(stat(secret, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	unlink(link);
	unlink(secret);
}

/* A stranger's link inside the path: refused, with a line that says so. */
static void a_strangers_link_inside_the_path_is_refused(void **state)
{
	(void)state;
	if (!as_root())
		skip();
	char sub[128], path[160];
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(symlink("/etc", sub), 0);
	assert_int_equal(lchown(sub, STRANGER, STRANGER), 0);
	snprintf(path, sizeof(path), "%s/x.folded", sub);
	struct output_file of;
	assert_int_equal(output_file_open(&of, path), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(of.why, "not followed"));
	assert_null(of.f);
	assert_int_equal(access("/etc/x.folded", F_OK), -1);
	unlink(sub);
}

/* A stranger's FIFO is replaced; ours with no reader is an error at once,
 * never a hang. */
static void fifos_never_hang(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/fifo.folded", dir);
	assert_int_equal(mkfifo(path, 0666), 0);
	alarm(10); /* a hang fails the test */
	struct output_file of;
	assert_int_equal(output_file_open(&of, path), -1);
	assert_int_equal(errno, ENXIO);
	assert_non_null(strstr(of.why, "nobody reads"));
	if (as_root()) {
		assert_int_equal(lchown(path, STRANGER, STRANGER), 0);
		assert_int_equal(output_file_open(&of, path), 0);
		fputs("profile\n", of.f);
		assert_int_equal(output_file_commit(&of), 0);
		struct stat st;
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISREG(st.st_mode));
	}
	alarm(0);
	unlink(path);
}

static void a_block_device_is_never_written(void **state)
{
	(void)state;
	if (!as_root())
		skip();
	char path[128];
	snprintf(path, sizeof(path), "%s/disk", dir);
	if (mknod(path, S_IFBLK | 0600, makedev(7, 0)) != 0)
		skip(); /* no mknod here (a container) */
	struct output_file of;
	assert_int_equal(output_file_open(&of, path), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(of.why, "block device"));
	unlink(path);
}

/* /dev/stdout is /proc/self/fd/1: the kernel's link, followed. */
static void dev_stdout_is_our_stdout(void **state)
{
	(void)state;
	struct stat st;
	if (fstat(1, &st) != 0 || S_ISREG(st.st_mode))
		skip(); /* a file: nothing to tell apart */
	struct output_file of;
	assert_int_equal(output_file_open(&of, "/dev/stdout"), 0);
	assert_string_equal(of.tmp, "");
	output_file_discard(&of);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replaces_only_at_the_commit),
		cmocka_unit_test(a_file_of_ours_keeps_its_mode),
		cmocka_unit_test(a_strangers_link_is_replaced_not_followed),
		cmocka_unit_test(a_strangers_link_inside_the_path_is_refused),
		cmocka_unit_test(fifos_never_hang),
		cmocka_unit_test(a_block_device_is_never_written),
		cmocka_unit_test(dev_stdout_is_our_stdout),
		cmocka_unit_test(discard_leaves_the_file),
		cmocka_unit_test(killed_before_the_commit_leaves_nothing),
		cmocka_unit_test(two_at_once_do_not_collide),
		cmocka_unit_test(no_directory_is_an_error),
		cmocka_unit_test(mode_as_the_shell_gives),
		cmocka_unit_test(not_a_regular_file_is_written_directly),
		cmocka_unit_test(a_link_stays_a_link),
	};
	return cmocka_run_group_tests_name("output_file", tests, make_dir, remove_dir);
}
