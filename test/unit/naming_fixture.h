/* naming_fixture.h - the run's files and namers for a naming test, fresh
 * for each test: new_run and end_run as cmocka's setup and teardown,
 * namer_with for each namer a test wants (freed by end_run).  Include
 * after cmocka.h, files.h and symbolize.h. */
#ifndef NAMING_FIXTURE_H
#define NAMING_FIXTURE_H

static struct files *files;
static struct namer *namers[64];
static size_t n_namers;

__attribute__((unused)) static struct namer *namer_with(const struct symbolize_options *o)
{
	assert_true(n_namers < sizeof(namers) / sizeof(namers[0]));
	namers[n_namers] = namer_new(o);
	assert_non_null(namers[n_namers]);
	return namers[n_namers++];
}

static int new_run(void **state)
{
	(void)state;
	files = files_new(NULL);
	return files ? 0 : -1;
}

static int end_run(void **state)
{
	(void)state;
	while (n_namers)
		namer_free(namers[--n_namers]);
	files_free(files);
	files = NULL;
	return 0;
}

#endif
