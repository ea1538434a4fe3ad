/* output_file.c - written beside, renamed over (output_file.h). */
#define _GNU_SOURCE
#include "output/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file a name stands for: a symbolic link's target, so that the link
 * stays and what it leads to is replaced; the name itself otherwise (also
 * when it does not exist yet). */
static int real_name(const char *path, char *out, size_t outsz)
{
	struct stat st;
	char resolved[PATH_MAX];
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, resolved))
		path = resolved;
	if ((size_t)snprintf(out, outsz, "%s", path) >= outsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int output_file_open(struct output_file *of, const char *path)
{
	static atomic_uint made; /* two files of one run never share a name */
	of->f = NULL;
	of->tmp[0] = '\0';
	if (real_name(path, of->path, sizeof(of->path)) != 0)
		return -1;
	struct stat st;
	if (stat(of->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* /dev/null, a FIFO, a terminal: nothing to keep, nothing to rename */
		of->f = fopen(of->path, "we");
		return of->f ? 0 : -1;
	}
	unsigned n = atomic_fetch_add(&made, 1);
	if ((size_t)snprintf(of->tmp, sizeof(of->tmp), "%s.tmp.%d.%u", of->path, (int)getpid(), n) >=
	    sizeof(of->tmp)) {
		of->tmp[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	/* O_EXCL: never into a file someone else made; 0666 less the umask,
	 * as the shell's > gives. */
	int fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0 && !(of->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		unlink(of->tmp);
		errno = e;
	}
	if (!of->f)
		of->tmp[0] = '\0';
	return of->f ? 0 : -1;
}

int output_file_commit(struct output_file *of)
{
	if (!of->f)
		return 0;
	int rc = fclose(of->f);
	of->f = NULL;
	if (!of->tmp[0])
		return rc == 0 ? 0 : -1;
	if (rc == 0 && rename(of->tmp, of->path) == 0) {
		of->tmp[0] = '\0';
		return 0;
	}
	int e = errno;
	unlink(of->tmp);
	of->tmp[0] = '\0';
	errno = e;
	return -1;
}

void output_file_discard(struct output_file *of)
{
	if (of->f)
		fclose(of->f);
	of->f = NULL;
	if (of->tmp[0])
		unlink(of->tmp);
	of->tmp[0] = '\0';
}
