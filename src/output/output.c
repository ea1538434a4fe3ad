/* output.c - output_write (output.h): a format's writer from the table,
 * and what a failed write reports. */
#include "output/output.h"

#include <errno.h>

int output_write(FILE *f, enum output_format fmt, const struct profile *p)
{
	if (!p || !p->stacks) {
		errno = EINVAL;
		return -1;
	}
	errno = 0; /* what a failure below reports is its own errno, or EIO */
	const struct format_info *fi = format_info(fmt);
	if (!fi) {
		errno = EINVAL;
		return -1;
	}
	int rc = fi->write(f, p);
	/* A full disk or a closed pipe shows only once the buffer goes out. */
	if (rc != 0 || fflush(f) != 0 || ferror(f)) {
		if (!errno)
			errno = EIO; /* the stream's error flag, no errno of its own */
		return -1;
	}
	return 0;
}
