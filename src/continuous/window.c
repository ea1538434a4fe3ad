/* window.c - window file names and separators (window.h). */
#include "continuous/window.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "output/output.h"
#include "output/pyroscope.h"

void window_seconds(uint64_t start_ns, uint64_t end_ns, uint64_t *last, uint64_t *from,
		    uint64_t *until)
{
	pyroscope_window_seconds(start_ns, end_ns, from, until);
	if (*from < *last)
		*from = *last;
	if (*until <= *from)
		*until = *from + 1;
	assert(*from >= *last && *until > *from);
	*last = *until;
}

char *window_stamp_second(uint64_t second, char *out)
{
	time_t t = (time_t)second;
	struct tm tm;
	if (!gmtime_r(&t, &tm) || strftime(out, WINDOW_STAMP_LEN + 1, "%Y%m%dT%H%M%SZ", &tm) == 0)
		snprintf(out, WINDOW_STAMP_LEN + 1, "00000000T000000Z");
	return out;
}

char *window_stamp(uint64_t unix_ns, char *out)
{
	uint64_t from, until;
	pyroscope_window_seconds(unix_ns, unix_ns, &from, &until);
	return window_stamp_second(from, out);
}

int window_file_name(const char *path, uint64_t second, char *out, size_t outsz)
{
	char stamp[WINDOW_STAMP_LEN + 1];
	window_stamp_second(second, stamp);
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
