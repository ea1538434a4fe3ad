/* profile.c - a sample's frames in the order profile.h gives them; one
 * pass over a profile's samples. */
#include "profile/profile.h"

#include <errno.h>

size_t sample_frames(const struct sample_view *s, const char **out, size_t max)
{
	size_t n = 0;
	if (n < max)
		out[n++] = s->thread;
	if (s->query && n < max)
		out[n++] = s->query;
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

int sample_pass(const struct profile *p,
		int (*fn)(const struct profile_sample *s, void *arg), void *arg)
{
	const struct sample_source *src = p->samples;
	if (!src || !src->next) {
		errno = EINVAL;
		return -1;
	}
	if (src->rewind && src->rewind(src->arg) != 0)
		return -1;
	size_t stacks = stack_table_distinct(p->stacks);
	for (;;) {
		struct profile_sample s;
		int rc = src->next(src->arg, &s);
		if (rc == 0)
			return 0;
		if (rc < 0)
			return -1;
		if (s.stack >= stacks || s.thread >= p->n_threads) {
			errno = EINVAL;
			return -1;
		}
		if (fn(&s, arg) != 0)
			return -1;
	}
}
