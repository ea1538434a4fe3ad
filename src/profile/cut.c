/* cut.c - the run's tally of cut stacks (cut.h). */
#include "profile/cut.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t total;
static struct cut_module modules[CUT_MODULES_MAX];
static size_t n_modules;

void cut_count(const char *module, bool anon, uint64_t samples)
{
	pthread_mutex_lock(&lock);
	total += samples;
	size_t i = 0;
	while (i < n_modules && strncmp(modules[i].name, module, CUT_MODULE_NAME_MAX - 1) != 0)
		i++;
	if (i == n_modules && n_modules < CUT_MODULES_MAX) {
		snprintf(modules[i].name, sizeof(modules[i].name), "%s", module);
		modules[i].anon = anon;
		modules[i].samples = 0;
		n_modules++;
	}
	if (i < n_modules)
		modules[i].samples += samples;
	pthread_mutex_unlock(&lock);
}

struct cut_tally cut_tally(void)
{
	pthread_mutex_lock(&lock);
	struct cut_tally t = { .samples = total };
	for (size_t i = 0; i < n_modules; i++)
		if (modules[i].samples > t.most.samples)
			t.most = modules[i];
	pthread_mutex_unlock(&lock);
	return t;
}

void cut_reset(void)
{
	pthread_mutex_lock(&lock);
	total = 0;
	n_modules = 0;
	pthread_mutex_unlock(&lock);
}
