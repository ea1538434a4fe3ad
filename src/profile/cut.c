/* cut.c - a run's tally of cut stacks (cut.h). */
#include "profile/cut.h"

#include <stdio.h>
#include <string.h>

void cuts_start(struct cuts *c)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
}

void cuts_end(struct cuts *c)
{
	pthread_mutex_destroy(&c->lock);
}

void cut_count(struct cuts *c, const char *module, bool anon, uint64_t samples)
{
	pthread_mutex_lock(&c->lock);
	c->samples += samples;
	size_t i = 0;
	while (i < c->n_modules && strncmp(c->modules[i].name, module, CUT_MODULE_NAME_MAX - 1) != 0)
		i++;
	if (i == c->n_modules && c->n_modules < CUT_MODULES_MAX) {
		snprintf(c->modules[i].name, sizeof(c->modules[i].name), "%s", module);
		c->modules[i].anon = anon;
		c->modules[i].samples = 0;
		c->n_modules++;
	}
	if (i < c->n_modules)
		c->modules[i].samples += samples;
	pthread_mutex_unlock(&c->lock);
}

struct cut_tally cut_tally(struct cuts *c)
{
	pthread_mutex_lock(&c->lock);
	struct cut_tally t = { .samples = c->samples };
	for (size_t i = 0; i < c->n_modules; i++)
		if (c->modules[i].samples > t.most.samples)
			t.most = c->modules[i];
	pthread_mutex_unlock(&c->lock);
	return t;
}
