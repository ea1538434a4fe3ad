/* format.c - the table of output formats (format.h). */
#include "output/format.h"

#include <string.h>

#include "output/output.h" /* the writers the table names */

static int write_folded(FILE *f, const struct profile *p)
{
	return output_folded(f, p->stacks);
}

static int write_svg(FILE *f, const struct profile *p)
{
	return output_svg(f, p, NULL);
}

static int write_speedscope(FILE *f, const struct profile *p)
{
	return output_speedscope(f, p, 0);
}

/* An extension picks a format only where it says so unambiguously;
 * .folded, .txt and the like are folded, the default. */
static const struct format_info formats[] = {
	{ FORMAT_FOLDED, "folded", NULL, false, false, SEPARATE_BLANK, write_folded },
	{ FORMAT_STAP, "stap", NULL, false, true, SEPARATE_COMMENT, output_stap },
	{ FORMAT_SVG, "svg", ".svg", false, false, SEPARATE_NONE, write_svg },
	{ FORMAT_SPEEDSCOPE, "speedscope", ".speedscope.json", true, false, SEPARATE_NONE,
	  write_speedscope },
	{ FORMAT_PPROF, "pprof", ".pb.gz", true, false, SEPARATE_NONE, output_pprof },
	{ FORMAT_PERF_SCRIPT, "perf-script", NULL, true, false, SEPARATE_COMMENT,
	  output_perf_script },
	{ FORMAT_HTML, "html", ".html", true, false, SEPARATE_NONE, output_html },
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

const struct format_info *format_nth(size_t i)
{
	return i < N_FORMATS ? &formats[i] : NULL;
}

const struct format_info *format_info(enum output_format f)
{
	for (size_t i = 0; i < N_FORMATS; i++)
		if (formats[i].format == f)
			return &formats[i];
	return NULL;
}

int parse_format(const char *text, enum output_format *out)
{
	for (size_t i = 0; text && i < N_FORMATS; i++)
		if (strcmp(text, formats[i].name) == 0) {
			*out = formats[i].format;
			return 0;
		}
	return -1;
}

const char *format_name(enum output_format f)
{
	const struct format_info *fi = format_info(f);
	return fi ? fi->name : "?";
}

size_t format_extension(const char *name, enum output_format *format)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < N_FORMATS; i++) {
		const char *ext = formats[i].extension;
		size_t len = ext ? strlen(ext) : 0;
		if (ext && n > len && strcmp(name + n - len, ext) == 0) {
			if (format)
				*format = formats[i].format;
			return len;
		}
	}
	return 0;
}

enum output_format format_for_path(const char *path)
{
	enum output_format f;
	return format_extension(path, &f) ? f : FORMAT_FOLDED;
}
