/* Unit tests: the JIT map parser (/tmp/perf-PID.map lines, hostile ones
 * included), the ids it takes from /proc/PID/status, and the file: found
 * under the process's root, read again as it grows or is rewritten,
 * refused when it is a link, not a regular file or someone else's. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "name/perfmap.h"

/* An exact-size heap copy without a terminating NUL: a parser that reads
 * past len trips AddressSanitizer. */
static char *exact(const char *s, size_t len)
{
	char *p = malloc(len ? len : 1);
	memcpy(p, s, len);
	return p;
}

static struct perfmap *parsed(const char *text)
{
	struct perfmap *pm = perfmap_new();
	assert_non_null(pm);
	size_t len = strlen(text);
	char *b = exact(text, len);
	perfmap_add(pm, b, len);
	free(b);
	return pm;
}

static void name_is(struct perfmap *pm, uint64_t addr, const char *want)
{
	const char *got = perfmap_lookup(pm, addr);
	if (want ? !got || strcmp(got, want) : got != NULL)
		fail_msg("%#llx: '%s', expected '%s'", (unsigned long long)addr, got ? got : "(none)",
			 want ? want : "(none)");
}

static void lines_as_jits_write_them(void **state)
{
	(void)state;
	struct perfmap *pm = parsed(
		/* node --perf-basic-prof */
		"3ef4d1e0 38 LazyCompile:~hot /srv/app.js:12\n"
		/* jcmd Compiler.perfmap */
		"0x00007f1234560000 0x0000000000000100 java.lang.String::hashCode()I\n"
		/* tabs, upper-case hex, CRLF, blanks at the end */
		"7F0000001000\t10\tStub:CallIC \r\n"
		"7f0000002000 10 name;with;semicolons\n");
	assert_int_equal(perfmap_entries(pm), 4);
	assert_int_equal(perfmap_skipped(pm), 0);
	name_is(pm, 0x3ef4d1e0, "LazyCompile:~hot /srv/app.js:12");
	name_is(pm, 0x3ef4d1e0 + 0x37, "LazyCompile:~hot /srv/app.js:12");
	name_is(pm, 0x3ef4d1e0 + 0x38, NULL); /* end is outside */
	name_is(pm, 0x3ef4d1df, NULL);
	name_is(pm, 0x7f1234560080, "java.lang.String::hashCode()I");
	name_is(pm, 0x7f0000001000, "Stub:CallIC");
	name_is(pm, 0x7f000000100f, "Stub:CallIC");
	/* Raw: sanitizing is the caller's (frame.h), as for every name. */
	name_is(pm, 0x7f0000002004, "name;with;semicolons");
	name_is(pm, 0, NULL);
	name_is(pm, UINT64_MAX, NULL);
	perfmap_free(pm);
}

/* A line still being written is not used until its newline comes. */
static void partial_lines_wait(void **state)
{
	(void)state;
	struct perfmap *pm = perfmap_new();
	const char *text = "1000 10 first\n2000 10 sec";
	assert_int_equal(perfmap_add(pm, text, strlen(text)), strlen("1000 10 first\n"));
	name_is(pm, 0x1000, "first");
	name_is(pm, 0x2000, NULL);
	const char *rest = "2000 10 second\n";
	assert_int_equal(perfmap_add(pm, rest, strlen(rest)), strlen(rest));
	name_is(pm, 0x2000, "second");
	assert_int_equal(perfmap_add(pm, "", 0), 0);
	assert_int_equal(perfmap_add(pm, "no newline at all", 17), 0);
	perfmap_free(pm);
}

static void bad_lines_skipped(void **state)
{
	(void)state;
	const char *bad[] = {
		"1000 0 empty_code\n",           /* size 0 names nothing */
		"1000 10\n",                     /* no name */
		"1000 10 \n",                    /* blanks only */
		"1000 10    \t \r\n",
		"1000\n",
		"\n",
		"\r\n",
		"zz 10 f\n",
		"1000 zz f\n",
		"1000 -10 f\n",
		"-1000 10 f\n",
		"1000,10 f\n",
		"100010 f\n",                    /* one field short */
		"1000 10f\n",
		"0x 10 f\n",
		"10000000000000000 10 f\n",      /* 17 digits */
		"1000 10000000000000000 f\n",
		"ffffffffffffff00 100 wraps\n",  /* start + size past 2^64 */
		" 1000 10 leading_blank\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct perfmap *pm = parsed(bad[i]);
		if (perfmap_entries(pm) != 0)
			fail_msg("accepted '%s'", bad[i]);
		assert_int_equal(perfmap_skipped(pm), 1);
		name_is(pm, 0x1000, NULL);
		perfmap_free(pm);
	}
	/* The good lines around bad ones are kept. */
	struct perfmap *pm = parsed("1000 10 a\ngarbage\n\x01\x02\x03\n2000 10 b\n");
	assert_int_equal(perfmap_entries(pm), 2);
	assert_int_equal(perfmap_skipped(pm), 2);
	name_is(pm, 0x2008, "b");
	perfmap_free(pm);
	/* The largest end there is. */
	pm = parsed("ffffffffffffff00 ff top\n");
	name_is(pm, 0xfffffffffffffffe, "top");
	name_is(pm, UINT64_MAX, NULL);
	perfmap_free(pm);
}

/* Code freed and its memory reused: which name held when a sample was
 * taken is not known, so none is given where they differ. */
static void overlaps(void **state)
{
	(void)state;
	struct perfmap *pm = parsed("1000 100 old\n"
				    "1080 100 new\n"
				    "3000 100 same\n"
				    "3000 100 same\n"
				    "3040 10 same\n"
				    "5000 1000 outer\n"
				    "5400 10 inner\n");
	name_is(pm, 0x1000, "old");
	name_is(pm, 0x107f, "old");
	name_is(pm, 0x1080, NULL);
	name_is(pm, 0x10ff, NULL);
	name_is(pm, 0x1100, "new");
	name_is(pm, 0x3044, "same"); /* logged again: one name */
	name_is(pm, 0x5100, "outer");
	name_is(pm, 0x5404, NULL);
	name_is(pm, 0x5410, "outer"); /* past inner, still in outer */
	perfmap_free(pm);

	/* More entries over one address than any JIT leaves: no name. */
	pm = perfmap_new();
	char line[64];
	for (int i = 0; i < 200; i++) {
		int n = snprintf(line, sizeof(line), "%x 100000 same\n", 0x10000 + i);
		perfmap_add(pm, line, (size_t)n);
	}
	name_is(pm, 0x10000, "same");
	name_is(pm, 0x20000, NULL);
	perfmap_free(pm);
}

static void hostile_names(void **state)
{
	(void)state;
	/* A NUL inside a name would cut it short: it shows as '?'. */
	const char text[] = "1000 10 a\0b\n";
	struct perfmap *pm = perfmap_new();
	char *b = exact(text, sizeof(text) - 1);
	assert_int_equal(perfmap_add(pm, b, sizeof(text) - 1), sizeof(text) - 1);
	free(b);
	name_is(pm, 0x1000, "a?b");
	perfmap_free(pm);

	/* A name longer than PERFMAP_NAME_MAX is cut there. */
	size_t len = 20 + PERFMAP_NAME_MAX * 3;
	char *huge = malloc(len + 1);
	int n = snprintf(huge, len, "1000 10 ");
	memset(huge + n, 'x', len - (size_t)n - 1);
	huge[len - 1] = '\n';
	pm = perfmap_new();
	assert_int_equal(perfmap_add(pm, huge, len), len);
	assert_int_equal(strlen(perfmap_lookup(pm, 0x1000)), PERFMAP_NAME_MAX);
	perfmap_free(pm);
	free(huge);

	/* Every prefix of a line, in a buffer of its exact size. */
	const char *line = "0x7f0000001000 0x20 LazyCompile:*fib /x.js:1\n";
	for (size_t k = 0; k <= strlen(line); k++) {
		pm = perfmap_new();
		b = exact(line, k);
		size_t used = perfmap_add(pm, b, k);
		free(b);
		assert_int_equal(used, k == strlen(line) ? k : 0);
		assert_int_equal(perfmap_entries(pm), k == strlen(line) ? 1 : 0);
		perfmap_free(pm);
	}

	/* Random bytes: no crash, no read out of bounds, names only from
	 * lines that parse. */
	srand(7);
	for (int round = 0; round < 200; round++) {
		size_t size = (size_t)(rand() % 512);
		char *junk = malloc(size ? size : 1);
		for (size_t i = 0; i < size; i++)
			junk[i] = "0123456789abcdefx \t\n\r;\0\xff"[rand() % 24];
		pm = perfmap_new();
		assert_true(perfmap_add(pm, junk, size) <= size);
		for (int a = 0; a < 16; a++)
			perfmap_lookup(pm, (uint64_t)rand() << 8);
		perfmap_free(pm);
		free(junk);
	}
}

static void cleared(void **state)
{
	(void)state;
	struct perfmap *pm = parsed("1000 10 a\n");
	perfmap_clear(pm);
	assert_int_equal(perfmap_entries(pm), 0);
	name_is(pm, 0x1000, NULL);
	perfmap_add(pm, "2000 10 b\n", 10);
	name_is(pm, 0x2000, "b");
	name_is(pm, 0x1000, NULL);
	perfmap_free(pm);
}

static void status_ids(void **state)
{
	(void)state;
	pid_t pid;
	uid_t uid;
	const char *nested = "Name:\tnode\nTgid:\t4242\nNgid:\t0\nPid:\t4242\n"
			     "Uid:\t1000\t1001\t1001\t1001\nGid:\t5\t5\t5\t5\n"
			     "NStgid:\t4242\t17\t1\nNSpid:\t4250\t20\t4\n";
	assert_int_equal(perfmap_status_ids(nested, strlen(nested), &pid, &uid), 0);
	assert_int_equal(pid, 1);   /* innermost namespace, and the process's */
	assert_int_equal(uid, 1001); /* effective */
	const char *old_kernel = "Tgid:\t77\nUid:\t0\t0\t0\t0\n";
	assert_int_equal(perfmap_status_ids(old_kernel, strlen(old_kernel), &pid, &uid), 0);
	assert_int_equal(pid, 77);
	assert_int_equal(uid, 0);
	const char *bad[] = {
		"", "Tgid:\t77\n", "Uid:\t0\t0\t0\t0\n", "NStgid:\t\nUid:\t0\t0\n",
		"NStgid:\tx\nUid:\t0\t0\n", "NStgid:\t0\nUid:\t0\t0\n", "NStgid:\t5\nUid:\t0\n",
		"NStgid:\t99999999999\nUid:\t0\t0\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *b = exact(bad[i], strlen(bad[i]));
		if (perfmap_status_ids(b, strlen(bad[i]), &pid, &uid) != -1)
			fail_msg("accepted '%s'", bad[i]);
		free(b);
	}
	/* This very process, as /proc shows it. */
	char text[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t got = read(fd, text, sizeof(text));
	close(fd);
	assert_int_equal(perfmap_status_ids(text, (size_t)got, &pid, &uid), 0);
	assert_int_equal(uid, geteuid());
}

/* A root directory with tmp/ in it, as /proc/PID/root shows one. */
static char root[64];

static int make_root(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/pp-perfmap-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	char tmp[96];
	snprintf(tmp, sizeof(tmp), "%s/tmp", root);
	return mkdir(tmp, 0755);
}

static int remove_root(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_map(const char *name, const char *text, const char *mode)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/tmp/%s", root, name);
	FILE *f = fopen(path, mode);
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct perfmap_file *file_for(pid_t pid)
{
	int fd = open(root, O_PATH | O_DIRECTORY);
	assert_true(fd >= 0);
	return perfmap_file_at(fd, pid, geteuid(), 0);
}

/* perfmap_file_changes: the same while the file is, another number once
 * it has grown or been rewritten. */
static void file_changes_counted(void **state)
{
	(void)state;
	struct perfmap_file *f = file_for(33);
	unsigned none = perfmap_file_changes(f);
	assert_int_equal(perfmap_file_changes(f), none);
	write_map("perf-33.map", "1000 10 first\n", "w");
	unsigned one = perfmap_file_changes(f);
	assert_int_not_equal(one, none);
	assert_int_equal(perfmap_file_changes(f), one);
	write_map("perf-33.map", "half", "a"); /* no whole line yet */
	assert_int_equal(perfmap_file_changes(f), one);
	write_map("perf-33.map", "-written\n", "a");
	unsigned two = perfmap_file_changes(f);
	assert_int_not_equal(two, one);
	write_map("perf-33.map", "1000 10 again\n", "w");
	assert_int_not_equal(perfmap_file_changes(f), two);
	assert_string_equal(perfmap_file_lookup(f, 0x1000), "again");
	perfmap_file_close(f);
}

/* perfmap_file_freeze: what was appended since the last look is read,
 * then nothing more; a file rewritten before the freeze is not read. */
static void file_frozen(void **state)
{
	(void)state;
	struct perfmap_file *f = file_for(34);
	write_map("perf-34.map", "1000 10 first\n", "w");
	assert_string_equal(perfmap_file_lookup(f, 0x1000), "first");
	write_map("perf-34.map", "2000 10 appended\n", "a");
	perfmap_file_freeze(f);
	write_map("perf-34.map", "3000 10 after\n", "a");
	assert_string_equal(perfmap_file_lookup(f, 0x2000), "appended");
	assert_null(perfmap_file_lookup(f, 0x3000));
	perfmap_file_close(f);

	f = file_for(35); /* no file at the last look: all of it */
	assert_null(perfmap_file_lookup(f, 0x1000));
	write_map("perf-35.map", "1000 10 first\n", "w");
	perfmap_file_freeze(f);
	write_map("perf-35.map", "2000 10 after\n", "a");
	assert_string_equal(perfmap_file_lookup(f, 0x1000), "first");
	assert_null(perfmap_file_lookup(f, 0x2000));
	perfmap_file_close(f);

	f = file_for(36); /* rewritten since the last look: the new program's */
	write_map("perf-36.map", "1000 10 old\n", "w");
	assert_string_equal(perfmap_file_lookup(f, 0x1000), "old");
	write_map("perf-36.map", "1000 4 new\n", "w");
	perfmap_file_freeze(f);
	assert_string_equal(perfmap_file_lookup(f, 0x1000), "old");
	perfmap_file_close(f);
	perfmap_file_freeze(NULL);
}

static void file_read_as_it_grows(void **state)
{
	(void)state;
	struct perfmap_file *f = file_for(31);
	/* No file yet: nothing, and it is looked for again. */
	assert_null(perfmap_file_lookup(f, 0x1000));
	write_map("perf-31.map", "1000 10 first\n2000 10 half", "w");
	assert_string_equal(perfmap_file_lookup(f, 0x1000), "first");
	assert_null(perfmap_file_lookup(f, 0x2000));
	write_map("perf-31.map", "-written\n3000 10 third\n", "a");
	assert_string_equal(perfmap_file_lookup(f, 0x2000), "half-written");
	assert_string_equal(perfmap_file_lookup(f, 0x3004), "third");
	/* Rewritten whole, shorter (jcmd Compiler.perfmap): read anew. */
	write_map("perf-31.map", "1000 10 again\n", "w");
	assert_string_equal(perfmap_file_lookup(f, 0x1000), "again");
	assert_null(perfmap_file_lookup(f, 0x3004));
	/* Replaced by another file: read anew. */
	write_map("perf-31.map.new", "4000 10 renamed\n", "w");
	char from[160], to[160];
	snprintf(from, sizeof(from), "%s/tmp/perf-31.map.new", root);
	snprintf(to, sizeof(to), "%s/tmp/perf-31.map", root);
	assert_int_equal(rename(from, to), 0);
	assert_string_equal(perfmap_file_lookup(f, 0x4000), "renamed");
	assert_null(perfmap_file_lookup(f, 0x1000));
	/* Another process's map is not ours. */
	write_map("perf-32.map", "5000 10 other\n", "w");
	assert_null(perfmap_file_lookup(f, 0x5000));
	perfmap_file_close(f);
}

/* A line longer than a read holds is skipped whole, not read as the
 * lines its pieces might look like. */
static void file_monster_line(void **state)
{
	(void)state;
	size_t len = 1u << 20; /* a read's worth */
	char *text = malloc(len + 64);
	size_t n = (size_t)sprintf(text, "1000 10 ");
	memset(text + n, 'x', len - n);
	/* The line goes on past the read: what follows looks like an entry. */
	n = len + (size_t)sprintf(text + len, "2000 10 fake\n3000 10 after\n");
	text[n] = '\0';
	write_map("perf-33.map", text, "w");
	free(text);
	struct perfmap_file *f = file_for(33);
	assert_null(perfmap_file_lookup(f, 0x2000));
	assert_string_equal(perfmap_file_lookup(f, 0x3000), "after");
	perfmap_file_close(f);
}

static void file_refused(void **state)
{
	(void)state;
	char path[160], target[160];
	/* A symbolic link as the file... */
	write_map("secret", "1000 10 secret\n", "w");
	snprintf(target, sizeof(target), "%s/tmp/secret", root);
	snprintf(path, sizeof(path), "%s/tmp/perf-41.map", root);
	assert_int_equal(symlink(target, path), 0);
	struct perfmap_file *f = file_for(41);
	assert_null(perfmap_file_lookup(f, 0x1000));
	perfmap_file_close(f);
	/* ...or as tmp (another root's /tmp, or anywhere). */
	char other[96];
	snprintf(other, sizeof(other), "/tmp/pp-perfmap-root-XXXXXX");
	assert_non_null(mkdtemp(other));
	char otmp[128];
	snprintf(otmp, sizeof(otmp), "%s/tmp", other);
	snprintf(target, sizeof(target), "%s/tmp", root);
	assert_int_equal(symlink(target, otmp), 0);
	int fd = open(other, O_PATH | O_DIRECTORY);
	f = perfmap_file_at(fd, 31, geteuid(), 0);
	write_map("perf-31.map", "1000 10 via_link\n", "w");
	assert_null(perfmap_file_lookup(f, 0x1000));
	perfmap_file_close(f);
	unlink(otmp);
	rmdir(other);
	/* Not a regular file: a FIFO would block a reader. */
	snprintf(path, sizeof(path), "%s/tmp/perf-42.map", root);
	assert_int_equal(mkfifo(path, 0644), 0);
	f = file_for(42);
	assert_null(perfmap_file_lookup(f, 0x1000));
	perfmap_file_close(f);
	/* Someone else's file (only root can make one). */
	if (geteuid() == 0) {
		write_map("perf-43.map", "1000 10 planted\n", "w");
		snprintf(path, sizeof(path), "%s/tmp/perf-43.map", root);
		assert_int_equal(chown(path, 54321, 54321), 0);
		fd = open(root, O_PATH | O_DIRECTORY);
		f = perfmap_file_at(fd, 43, 1000, 0); /* the process runs as 1000 */
		assert_null(perfmap_file_lookup(f, 0x1000));
		perfmap_file_close(f);
		/* root's neither: in a user namespace the process can mount
		 * a root-only file there (issue 28) */
		assert_int_equal(chown(path, 0, 0), 0);
		fd = open(root, O_PATH | O_DIRECTORY);
		f = perfmap_file_at(fd, 43, 1000, 0);
		assert_null(perfmap_file_lookup(f, 0x1000));
		perfmap_file_close(f);
		/* the process's own */
		assert_int_equal(chown(path, 1000, 1000), 0);
		fd = open(root, O_PATH | O_DIRECTORY);
		f = perfmap_file_at(fd, 43, 1000, 0);
		assert_string_equal(perfmap_file_lookup(f, 0x1000), "planted");
		perfmap_file_close(f);
	}
}

/* This process's /tmp/perf-PID.map, one entry (own_jit_code), its path
 * in path. */
static void write_own_map(char *path, size_t len)
{
	snprintf(path, len, "/tmp/perf-%d.map", (int)getpid());
	FILE *out = fopen(path, "w");
	assert_non_null(out);
	fputs("7f0000000000 100 own_jit_code\n", out);
	fclose(out);
}

/* This process: /tmp/perf-PID.map under /proc/self/root. */
static void own_process(void **state)
{
	(void)state;
	char path[64];
	write_own_map(path, sizeof(path));
	struct perfmap_file *f = perfmap_file_open(getpid());
	assert_non_null(f);
	assert_string_equal(perfmap_file_lookup(f, 0x7f0000000010), "own_jit_code");
	perfmap_file_close(f);
	unlink(path);
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* Processes with one root, in one mount namespace, hold one handle on it
 * between them (a backend per transaction: one each, kept until named),
 * closed with the last. */
static void one_root_handle_for_many(void **state)
{
	(void)state;
	char path[64];
	write_own_map(path, sizeof(path));
	int before = open_fds();
	struct perfmap_file *f[50];
	for (int i = 0; i < 50; i++)
		assert_non_null(f[i] = perfmap_file_open(getpid()));
	assert_int_equal(open_fds(), before + 1);
	assert_string_equal(perfmap_file_lookup(f[49], 0x7f0000000010), "own_jit_code");
	for (int i = 0; i < 49; i++)
		perfmap_file_close(f[i]);
	assert_int_equal(open_fds(), before + 1);
	assert_string_equal(perfmap_file_lookup(f[49], 0x7f0000000010), "own_jit_code");
	perfmap_file_close(f[49]);
	assert_int_equal(open_fds(), before);
	unlink(path);
}

/* A budget: entries and names kept within it, the rest counted. */
static void budget_bounds_memory(void **state)
{
	(void)state;
	struct perfmap *pm = perfmap_new();
	perfmap_set_budget(pm, 4096);
	char line[64];
	for (int i = 0; i < 1000; i++) {
		int n = snprintf(line, sizeof(line), "%x 1 f%d\n", 0x1000 + 2 * i, i);
		assert_int_equal(perfmap_add(pm, line, (size_t)n), (size_t)n);
	}
	size_t kept = perfmap_entries(pm);
	assert_true(kept > 50 && kept < 1000);
	assert_int_equal(perfmap_over_budget(pm), 1000 - kept);
	assert_int_equal(perfmap_skipped(pm), 1000 - kept);
	name_is(pm, 0x1000, "f0"); /* the first kept */
	name_is(pm, 0x1000 + 2 * 999, NULL);
	perfmap_clear(pm);
	assert_int_equal(perfmap_over_budget(pm), 0);
	perfmap_free(pm);
}

/* Two processes whose map is one file (a hard link) share one parse; one
 * frozen keeps what it had when the file is rewritten. */
static void file_shared_by_inode(void **state)
{
	(void)state;
	char a[160], b[160];
	write_map("perf-61.map", "1000 10 first\n", "w");
	snprintf(a, sizeof(a), "%s/tmp/perf-61.map", root);
	snprintf(b, sizeof(b), "%s/tmp/perf-62.map", root);
	assert_int_equal(link(a, b), 0);
	struct perfmap_file *f = file_for(61), *g = file_for(62);
	assert_string_equal(perfmap_file_lookup(f, 0x1000), "first");
	assert_string_equal(perfmap_file_lookup(g, 0x1000), "first");
	assert_ptr_equal(perfmap_file_entries(f), perfmap_file_entries(g));
	perfmap_file_freeze(f);
	write_map("perf-61.map", "2000 10 new\n", "w"); /* rewritten in place */
	assert_string_equal(perfmap_file_lookup(g, 0x2000), "new");
	assert_null(perfmap_file_lookup(g, 0x1000));
	assert_string_equal(perfmap_file_lookup(f, 0x1000), "first");
	assert_null(perfmap_file_lookup(f, 0x2000));
	perfmap_file_close(f);
	perfmap_file_close(g);
	unlink(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_as_jits_write_them),
		cmocka_unit_test(partial_lines_wait),
		cmocka_unit_test(bad_lines_skipped),
		cmocka_unit_test(overlaps),
		cmocka_unit_test(hostile_names),
		cmocka_unit_test(cleared),
		cmocka_unit_test(budget_bounds_memory),
		cmocka_unit_test(status_ids),
		cmocka_unit_test(one_root_handle_for_many),
		cmocka_unit_test_setup_teardown(file_read_as_it_grows, make_root, remove_root),
		cmocka_unit_test_setup_teardown(file_changes_counted, make_root, remove_root),
		cmocka_unit_test_setup_teardown(file_frozen, make_root, remove_root),
		cmocka_unit_test_setup_teardown(file_monster_line, make_root, remove_root),
		cmocka_unit_test_setup_teardown(file_refused, make_root, remove_root),
cmocka_unit_test_setup_teardown(file_shared_by_inode, make_root, remove_root),
		cmocka_unit_test(own_process),
	};
	return cmocka_run_group_tests_name("perfmap", tests, NULL, NULL);
}
