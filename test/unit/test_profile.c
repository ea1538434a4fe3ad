/* Unit tests: one pass over a profile's samples (profile.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "profile/profile.h"
#include "profile_fixture.h"

struct seen {
	uint64_t time[8];
	size_t n, stop_at; /* stop_at: fn fails on that sample (0: never) */
};

static int see(const struct profile_sample *s, void *arg)
{
	struct seen *v = arg;
	if (v->n < 8)
		v->time[v->n] = s->time_ns;
	v->n++;
	if (v->stop_at && v->n == v->stop_at) {
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

static void three_samples(struct fixture *fx)
{
	fixture_init(fx, "ptrace_profiler -p 42", "db (PID 42)", 1000000);
	size_t w = fixture_thread(fx, 42, 43, "db", "db_writer");
	size_t c = fixture_thread(fx, 42, 44, "db", "db_checkpoint");
	fixture_sample(fx, w, 1000, 1000, (const char *[]){ "db_writer", "R (running)", "main", NULL });
	fixture_sample(fx, c, 2000, 1000, (const char *[]){ "db_checkpoint", "S (sleeping)", NULL });
	fixture_sample(fx, w, 3000, 2000, (const char *[]){ "db_writer", "R (running)", "main", NULL });
}

static void every_sample_from_the_start(void **state)
{
	(void)state;
	struct fixture fx;
	three_samples(&fx);
	const struct profile *p = fixture_profile(&fx);
	for (int pass = 0; pass < 2; pass++) {
		struct seen v = { 0 };
		assert_int_equal(sample_pass(p, see, &v), 0);
		assert_int_equal(v.n, 3);
		assert_true(v.time[0] == 1000 && v.time[1] == 2000 && v.time[2] == 3000);
	}
	assert_int_equal(fx.rewinds, 2);
	fixture_free(&fx);
}

static void stops_where_fn_fails(void **state)
{
	(void)state;
	struct fixture fx;
	three_samples(&fx);
	struct seen v = { .stop_at = 2 };
	errno = 0;
	assert_int_equal(sample_pass(fixture_profile(&fx), see, &v), -1);
	assert_int_equal(errno, ENOSPC); /* fn's */
	assert_int_equal(v.n, 2);
	fixture_free(&fx);
}

static void no_samples_or_a_bad_one(void **state)
{
	(void)state;
	struct fixture fx;
	three_samples(&fx);
	struct seen v = { 0 };
	/* counts only: no samples to read */
	errno = 0;
	assert_int_equal(sample_pass(fixture_profile_as(&fx, 0), see, &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(v.n, 0);
	/* a sample naming a thread that does not exist, then a stack */
	fx.samples[1].thread = 7;
	errno = 0;
	assert_int_equal(sample_pass(fixture_profile(&fx), see, &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(v.n, 1);
	fx.samples[1].thread = 0;
	fx.samples[2].stack = 99;
	v.n = 0;
	errno = 0;
	assert_int_equal(sample_pass(fixture_profile(&fx), see, &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(v.n, 2);
	fixture_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_from_the_start),
		cmocka_unit_test(stops_where_fn_fails),
		cmocka_unit_test(no_samples_or_a_bad_one),
	};
	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
