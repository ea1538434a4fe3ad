/* regular_file.c - a regular file opened without trusting its path
 * (regular_file.h). */
#define _GNU_SOURCE
#include "base/regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* Is st a regular file of at most max_size bytes?  errno says why not. */
static int check(const struct stat *st, uint64_t max_size)
{
	if (!S_ISREG(st->st_mode)) {
		errno = EINVAL;
		return -1;
	}
	if ((uint64_t)st->st_size > max_size) {
		errno = EFBIG;
		return -1;
	}
	return 0;
}

static void close_keeping_errno(int fd)
{
	int err = errno;
	close(fd);
	errno = err;
}

int open_regular(const char *path, uint64_t max_size, struct stat *st)
{
	struct stat first, now;
	int where = open(path, O_PATH | O_CLOEXEC);
	if (where < 0)
		return -1;
	if (fstat(where, &first) != 0 || check(&first, max_size) != 0) {
		close_keeping_errno(where);
		return -1;
	}
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", where);
	int fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close_keeping_errno(where);
	if (fd < 0)
		return -1;
	/* The same inode: /proc/self/fd/N is it, whatever the path is now;
	 * checked again all the same (its size may have grown). */
	if (fstat(fd, &now) != 0)
		goto fail;
	if (now.st_ino != first.st_ino || now.st_dev != first.st_dev) {
		errno = EINVAL;
		goto fail;
	}
	if (check(&now, max_size) != 0)
		goto fail;
	if (st)
		*st = now;
	return fd;
fail:
	close_keeping_errno(fd);
	return -1;
}
