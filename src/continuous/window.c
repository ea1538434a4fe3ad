/* window.c - window file names and separators (window.h). */
#include "continuous/window.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "output/output.h"
#include "output/pyroscope.h"

char *window_stamp(uint64_t unix_ns, char *out)
{
	/* the second the push names the window's start by (from=), so that
	 * a file and its push agree */
	uint64_t from, until;
	pyroscope_window_seconds(unix_ns, unix_ns, &from, &until);
	time_t t = (time_t)from;
	struct tm tm;
	if (!gmtime_r(&t, &tm) || strftime(out, WINDOW_STAMP_LEN + 1, "%Y%m%dT%H%M%SZ", &tm) == 0)
		snprintf(out, WINDOW_STAMP_LEN + 1, "00000000T000000Z");
	return out;
}

int window_file_name(const char *path, uint64_t unix_ns, char *out, size_t outsz)
{
	char stamp[WINDOW_STAMP_LEN + 1];
	window_stamp(unix_ns, stamp);
	size_t n = strlen(path);
	const char *slash = strrchr(path, '/');
	size_t base = slash ? (size_t)(slash - path) + 1 : 0; /* the file's own name */
	size_t ext = n - format_extension(path + base, NULL); /* where the extension starts */
	if (ext == n) {
		const char *dot = strrchr(path + base, '.');
		if (dot && dot > path + base && dot[1])
			ext = (size_t)(dot - path);
	}
	int w = snprintf(out, outsz, "%.*s.%s%s", (int)ext, path, stamp, path + ext);
	return w < 0 || (size_t)w >= outsz ? -1 : w;
}

const char *window_separator(enum output_format fmt, const char *what, char *out,
			     size_t outsz)
{
	const struct format_info *fi = format_info(fmt);
	switch (fi ? fi->separator : SEPARATE_NONE) {
	case SEPARATE_BLANK:
		snprintf(out, outsz, "\n");
		return out;
	case SEPARATE_COMMENT:
		snprintf(out, outsz, "# ptrace_profiler: %s\n", what);
		return out;
	case SEPARATE_NONE:
		break;
	}
	return NULL;
}
