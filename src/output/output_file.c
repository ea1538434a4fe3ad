/* output_file.c - written beside, renamed over, never through what another
 * user planted (output_file.h). */
#define _GNU_SOURCE
#include "output/output_file.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define MAX_HOPS 40         /* symbolic links followed in one path, as the kernel's */
#define PROC_MAGIC 0x9fa0   /* procfs's f_type */
#define TMP_TRIES 16        /* random names tried before giving up */

/* How the last name of a path is written. */
enum how {
	HOW_REPLACE, /* a file beside it renamed over it (or made anew) */
	HOW_DIRECT,  /* opened and written, no rename: a device, a FIFO of ours */
	HOW_KERNEL,  /* a /proc link of ours (/proc/self/fd/1), the kernel follows it */
};

/* Owned by us or by root: trusted to say where the output goes. */
static bool ours(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

static int failed(struct output_file *of, int e, const char *path, const char *what)
{
	snprintf(of->why, sizeof(of->why), "cannot write '%s': %s", path, what ? what : strerror(e));
	errno = e;
	return -1;
}

static bool on_proc(int dir)
{
	struct statfs fs;
	return fstatfs(dir, &fs) == 0 && fs.f_type == PROC_MAGIC;
}

/* Opens the directory name lies in, for a step of the walk; replaces *dir. */
static int step_into(int *dir, const char *name, int flags)
{
	int next = openat(*dir, name, O_PATH | O_DIRECTORY | O_CLOEXEC | flags);
	if (next < 0)
		return -1;
	close(*dir);
	*dir = next;
	return 0;
}

/* Walks path one name at a time from the current or the root directory,
 * following only links we or root own (output_file.h's rule).  On success
 * of->dir holds the last name's directory, of->name that name, *st what is
 * there (st_mode 0 when nothing is) and *how the way it is written. */
static int walk(struct output_file *of, const char *path, struct stat *st, enum how *how)
{
	char rest[2 * OUTPUT_PATH_MAX], link[OUTPUT_PATH_MAX];
	if ((size_t)snprintf(rest, sizeof(rest), "%s", path) >= OUTPUT_PATH_MAX)
		return failed(of, ENAMETOOLONG, path, NULL);
	int dir = open(rest[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return failed(of, errno, path, NULL);
	int hops = 0;
	char *p = rest;
	for (;;) {
		while (*p == '/')
			p++;
		size_t len = strcspn(p, "/");
		char *next = p + len;
		while (*next == '/')
			next++;
		bool last = *next == '\0';
		if (len == 0 || len >= OUTPUT_NAME_MAX) {
			close(dir);
			return failed(of, len ? ENAMETOOLONG : EISDIR, path, NULL);
		}
		char name[OUTPUT_NAME_MAX];
		memcpy(name, p, len);
		name[len] = '\0';
		if ((!strcmp(name, ".") || !strcmp(name, "..")) && last) {
			close(dir);
			return failed(of, EISDIR, path, NULL);
		}
		if (!strcmp(name, ".")) {
			p = next;
			continue;
		}
		if (fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) != 0) {
			int e = errno;
			if (!last || e != ENOENT) {
				close(dir);
				return failed(of, e, path, NULL);
			}
			memset(st, 0, sizeof(*st)); /* a new file */
		}
		if (S_ISLNK(st->st_mode) && ours(st)) {
			if (last && on_proc(dir)) {
				*how = HOW_KERNEL;
				break;
			}
			ssize_t n = readlinkat(dir, name, link, sizeof(link) - 1);
			if (++hops > MAX_HOPS || n <= 0 || n >= (ssize_t)sizeof(link) - 1) {
				close(dir);
				return failed(of, n < 0 ? errno : ELOOP, path, NULL);
			}
			link[n] = '\0';
			/* the link's text in place of its name, then what followed it */
			char after[OUTPUT_PATH_MAX];
			snprintf(after, sizeof(after), "%s", next);
			if ((size_t)snprintf(rest, sizeof(rest), "%s%s%s", link, *after ? "/" : "",
					     after) >= OUTPUT_PATH_MAX) {
				close(dir);
				return failed(of, ENAMETOOLONG, path, NULL);
			}
			if (link[0] == '/') {
				close(dir);
				if ((dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
					return failed(of, errno, path, NULL);
			}
			p = rest;
			continue;
		}
		if (!last) {
			if (S_ISLNK(st->st_mode)) {
				char why[OUTPUT_NAME_MAX + 64];
				snprintf(why, sizeof(why),
					 "'%s' is a symbolic link owned by uid %u, not followed", name,
					 (unsigned)st->st_uid);
				close(dir);
				return failed(of, EPERM, path, why);
			}
			if (step_into(&dir, name, strcmp(name, "..") ? O_NOFOLLOW : 0) != 0) {
				int e = errno;
				close(dir);
				return failed(of, e, path, NULL);
			}
			p = next;
			continue;
		}
		/* the last name, no link of ours */
		if (S_ISDIR(st->st_mode)) {
			close(dir);
			return failed(of, EISDIR, path, NULL);
		}
		if (S_ISBLK(st->st_mode) && ours(st)) {
			close(dir);
			return failed(of, EPERM, path, "a block device, never written");
		}
		bool direct = st->st_mode && !S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode) && ours(st);
		*how = direct ? HOW_DIRECT : HOW_REPLACE;
		break;
	}
	of->dir = dir;
	snprintf(of->name, sizeof(of->name), "%.*s", (int)strcspn(p, "/"), p);
	return 0;
}

/* A name nobody can guess: NAME.tmp. and 16 hex digits of getrandom(2)
 * (the clock and a counter should it fail: O_EXCL still holds). */
static void tmp_name(char *out, size_t outsz, const char *name)
{
	static atomic_uint made;
	uint64_t r;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 32 ^
		    atomic_fetch_add(&made, 1);
	}
	int w = snprintf(out, outsz, "%s.tmp.%016llx", name, (unsigned long long)r);
	assert(w > 0 && (size_t)w < outsz); /* open_beside checked the length */
	(void)w;
}

/* A file without a name in of->dir, or -1 (a file system without
 * O_TMPFILE, or any other refusal: the named way says why). */
static int open_unnamed(struct output_file *of)
{
	/* 0666 less the umask, as the shell's > gives a new file */
	int fd = openat(of->dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	of->unnamed = fd >= 0;
	return fd;
}

/* Gives the unnamed file its name beside NAME, ready to be renamed over
 * it: linkat(2) never replaces a name, so a planted one is passed by. */
static int name_unnamed(struct output_file *of)
{
	int fd = fileno(of->f);
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	for (int i = 0; i < TMP_TRIES; i++) {
		tmp_name(of->tmp, sizeof(of->tmp), of->name);
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc's link does not */
		if (linkat(fd, "", of->dir, of->tmp, AT_EMPTY_PATH) == 0 ||
		    linkat(AT_FDCWD, self, of->dir, of->tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	of->tmp[0] = '\0';
	errno = e;
	return -1;
}

static int open_beside(struct output_file *of, const char *path, const struct stat *st)
{
	if (strlen(of->name) + 22 >= sizeof(of->tmp))
		return failed(of, ENAMETOOLONG, path, NULL);
	int fd = open_unnamed(of);
	for (int i = 0; i < TMP_TRIES && fd < 0; i++) {
		tmp_name(of->tmp, sizeof(of->tmp), of->name);
		/* 0666 less the umask, as the shell's > gives a new file */
		fd = openat(of->dir, of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		of->tmp[0] = '\0';
		return failed(of, errno, path, NULL);
	}
	/* A file of ours replaced keeps its permissions, as > keeps them. */
	if (S_ISREG(st->st_mode) && st->st_uid == geteuid())
		(void)fchmod(fd, st->st_mode & 0777);
	if (!(of->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		if (of->tmp[0])
			unlinkat(of->dir, of->tmp, 0);
		of->tmp[0] = '\0';
		of->unnamed = 0;
		return failed(of, e, path, NULL);
	}
	return 0;
}

static int open_direct(struct output_file *of, const char *path, const struct stat *st,
		       enum how how)
{
	/* O_NONBLOCK: a FIFO nobody reads is an error now, not a hang */
	int flags = O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
	int fd = openat(of->dir, of->name, how == HOW_KERNEL ? flags : flags | O_NOFOLLOW);
	if (fd < 0)
		return failed(of, errno, path, errno == ENXIO ? "a FIFO nobody reads" : NULL);
	struct stat now;
	if (how == HOW_DIRECT &&
	    (fstat(fd, &now) != 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)) {
		close(fd);
		return failed(of, EAGAIN, path, "changed while it was opened");
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (!(of->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		return failed(of, e, path, NULL);
	}
	close(of->dir); /* nothing to rename */
	of->dir = -1;
	return 0;
}

int output_file_open(struct output_file *of, const char *path)
{
	of->f = NULL;
	of->dir = -1;
	of->unnamed = 0;
	of->name[0] = of->tmp[0] = of->why[0] = '\0';
	struct stat st;
	enum how how;
	if (walk(of, path, &st, &how) != 0)
		return -1;
	int rc = how == HOW_REPLACE ? open_beside(of, path, &st) : open_direct(of, path, &st, how);
	if (rc != 0 && of->dir >= 0) {
		int e = errno;
		close(of->dir);
		of->dir = -1;
		errno = e;
	}
	assert(rc != 0 || of->f);
	return rc;
}

int output_file_commit(struct output_file *of)
{
	if (!of->f)
		return 0;
	int rc = 0, e = 0;
	if (of->unnamed) { /* written whole, then named: flushed first */
		of->unnamed = 0;
		errno = 0;
		if (fflush(of->f) != 0 || ferror(of->f) || name_unnamed(of) != 0) {
			rc = -1;
			e = errno ? errno : EIO;
		}
	}
	if (fclose(of->f) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	of->f = NULL;
	if (rc == 0 && of->tmp[0] && renameat(of->dir, of->tmp, of->dir, of->name) != 0) {
		rc = -1;
		e = errno;
	}
	if (rc != 0) {
		if (of->tmp[0])
			unlinkat(of->dir, of->tmp, 0);
		snprintf(of->why, sizeof(of->why), "cannot write '%s': %s", of->name, strerror(e));
	}
	of->tmp[0] = '\0';
	if (of->dir >= 0)
		close(of->dir);
	of->dir = -1;
	errno = e;
	return rc == 0 ? 0 : -1;
}

bool output_file_replaces(const struct output_file *of)
{
	struct stat st;
	return of->dir >= 0 && of->name[0] &&
	       fstatat(of->dir, of->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

void output_file_discard(struct output_file *of)
{
	if (of->f)
		fclose(of->f); /* an unnamed file goes with its last descriptor */
	of->f = NULL;
	of->unnamed = 0;
	if (of->tmp[0])
		unlinkat(of->dir, of->tmp, 0);
	of->tmp[0] = '\0';
	if (of->dir >= 0)
		close(of->dir);
	of->dir = -1;
}
