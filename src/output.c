/* output.c - folded and stap text. */
#include "output.h"

#include <inttypes.h>

size_t sample_frames(const struct sample_view *s, const char **out, size_t max)
{
	size_t n = 0;
	if (n < max)
		out[n++] = s->thread;
	if (s->app_state && n < max)
		out[n++] = s->app_state;
	if (n < max)
		out[n++] = s->state;
	for (size_t i = 0; i < s->n_user && n < max; i++)
		out[n++] = s->user[i];
	for (size_t i = 0; i < s->n_kernel && n < max; i++)
		out[n++] = s->kernel[i];
	return n;
}

static void print_folded(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	FILE *f = arg;
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(';', f);
		fputs(frames[i], f);
	}
	fprintf(f, " %" PRIu64 "\n", count);
}

int output_folded(FILE *f, const struct stack_table *t)
{
	stack_table_visit_sorted(t, print_folded, f);
	return ferror(f) ? -1 : 0;
}

/* stackcollapse-stap.pl keeps what follows the last " : " of a line and
 * drops from its last '+': a name is written with " : " folded to ": ",
 * and followed by "+0x0", so that it comes out whole. */
static void stap_frame(FILE *f, uint64_t addr, const char *name)
{
	fprintf(f, " 0x%016" PRIx64 " : ", addr);
	for (const char *p = name; *p; p++)
		if (!(p[0] == ' ' && p[1] == ':' && p[2] == ' '))
			fputc(*p, f);
	fputs("+0x0\n", f);
}

int output_stap_sample(FILE *f, const struct sample_view *s)
{
	for (size_t i = s->n_kernel; i-- > 0;)
		stap_frame(f, 0, s->kernel[i]);
	for (size_t i = s->n_user; i-- > 0;)
		stap_frame(f, s->user_ip ? s->user_ip[i] : 0, s->user[i]);
	fprintf(f, " %s\n", s->state);
	if (s->app_state)
		fprintf(f, " %s\n", s->app_state);
	fputs("1\n\n", f);
	return ferror(f) ? -1 : 0;
}
