/* output.c - folded and stap text. */
#include "output.h"

#include <inttypes.h>

size_t sample_frames(const struct sample_view *s, const char **out, size_t max)
{
	size_t n = 0;
	if (n < max)
		out[n++] = s->thread;
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

/* stackcollapse-stap.pl keeps what follows " : " and drops the last
 * "+..." of each line: "+0x0" protects names that contain a '+'. */
int output_stap_sample(FILE *f, const struct sample_view *s)
{
	for (size_t i = s->n_kernel; i-- > 0;)
		fprintf(f, " 0x%016" PRIx64 " : %s+0x0\n", (uint64_t)0, s->kernel[i]);
	for (size_t i = s->n_user; i-- > 0;)
		fprintf(f, " 0x%016" PRIx64 " : %s+0x0\n",
			s->user_ip ? s->user_ip[i] : (uint64_t)0, s->user[i]);
	fprintf(f, " %s\n1\n\n", s->state);
	return ferror(f) ? -1 : 0;
}
