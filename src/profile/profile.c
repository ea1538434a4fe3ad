/* profile.c - a sample's frames in the order profile.h gives them. */
#include "profile/profile.h"

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
