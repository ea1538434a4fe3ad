#define _GNU_SOURCE
/* Unit tests: the timeline's records (timeline.h), and the errors it
 * reports - its own, never what errno held before: the sampler quotes
 * them in its summary - and the named ids renumbered when the named
 * stacks merge (stack_table_rename). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "profile/timeline.h"

/* Written by address-time stack ids, read back by their named ids, in
 * the order they were added. */
static void samples_read_back_named(void **state)
{
	(void)state;
	struct timeline *tl = timeline_new();
	assert_non_null(tl);
	uint32_t a = timeline_new_stack(tl), b = timeline_new_stack(tl);
	assert_int_equal(timeline_add(tl, 100, 10, a, 0), 0);
	assert_int_equal(timeline_add(tl, 200, 20, b, 1), 0);
	assert_int_equal(timeline_add(tl, 300, 30, a, 1), 0);
	assert_int_equal(timeline_name(tl, a, 7), 0);
	assert_int_equal(timeline_name(tl, b, 3), 0);
	const struct sample_source *src = timeline_source(tl);
	assert_non_null(src);
	const struct profile_sample want[] = { { 100, 10, 7, 0 }, { 200, 20, 3, 1 },
					       { 300, 30, 7, 1 } };
	for (size_t i = 0; i < 3; i++) {
		struct profile_sample s;
		assert_int_equal(src->next(src->arg, &s), 1);
		assert_int_equal(s.time_ns, want[i].time_ns);
		assert_int_equal(s.weight_ns, want[i].weight_ns);
		assert_int_equal(s.stack, want[i].stack);
		assert_int_equal(s.thread, want[i].thread);
	}
	struct profile_sample s;
	assert_int_equal(src->next(src->arg, &s), 0);
	timeline_free(tl);
}

/* The temporary file may not grow (RLIMIT_FSIZE 0): once the records'
 * buffer goes out the write fails, and timeline_add returns that
 * write's error (EFBIG) though errno said ENOENT before each call; the
 * source then fails with it too. */
static void write_error_is_its_own(void **state)
{
	(void)state;
	struct timeline *tl = timeline_new();
	assert_non_null(tl);
	uint32_t a = timeline_new_stack(tl);
	struct rlimit was;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	struct rlimit none = { 0, was.rlim_max };
	void (*before)(int) = signal(SIGXFSZ, SIG_IGN); /* EFBIG, not the end of us */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &none), 0);
	int err = 0;
	uint64_t added = 0;
	while (!err && added < 1000000) {
		errno = ENOENT;
		if (!(err = timeline_add(tl, added, 1, a, 0)))
			added++;
	}
	setrlimit(RLIMIT_FSIZE, &was);
	signal(SIGXFSZ, before);
	assert_int_equal(err, EFBIG);
	assert_true(added > 1000); /* the buffer took those */
	errno = 0;
	assert_null(timeline_source(tl));
	assert_int_equal(errno, EFBIG);
	timeline_free(tl);
}

/* No descriptor left for the temporary file: NULL, and errno says so. */
static void no_file_says_why(void **state)
{
	(void)state;
	int lowest = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(lowest >= 0);
	close(lowest);
	struct rlimit was;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	struct rlimit few = { (rlim_t)lowest, was.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &few), 0);
	errno = 0;
	struct timeline *tl = timeline_new();
	int err = errno;
	setrlimit(RLIMIT_NOFILE, &was);
	assert_null(tl);
	assert_int_equal(err, EMFILE);
}

/* The samples' named stacks, in order, into out: how many. */
static size_t read_stacks(struct timeline *tl, uint32_t *out, size_t max)
{
	const struct sample_source *src = timeline_source(tl);
	assert_non_null(src);
	assert_int_equal(src->rewind(src->arg), 0);
	struct profile_sample smp;
	size_t n = 0;
	int r;
	while ((r = src->next(src->arg, &smp)) == 1 && n < max)
		out[n++] = smp.stack;
	assert_int_equal(r, 0);
	return n;
}

static void renumbered_after_a_merge(void **state)
{
	(void)state;
	struct timeline *tl = timeline_new();
	assert_non_null(tl);
	uint32_t a = timeline_new_stack(tl), b = timeline_new_stack(tl), c = timeline_new_stack(tl);
	assert_int_equal(timeline_add(tl, 10, 1, a, 0), 0);
	assert_int_equal(timeline_add(tl, 20, 1, b, 0), 0);
	assert_int_equal(timeline_add(tl, 30, 1, c, 1), 0);
	assert_int_equal(timeline_add(tl, 40, 1, b, 1), 0);
	/* named stacks 0, 1, 2; then 1 merged into 0, 2 became 1 */
	assert_int_equal(timeline_name(tl, a, 0), 0);
	assert_int_equal(timeline_name(tl, b, 1), 0);
	assert_int_equal(timeline_name(tl, c, 2), 0);
	uint32_t got[8];
	assert_int_equal(read_stacks(tl, got, 8), 4);
	assert_int_equal(got[1], 1);
	const uint32_t map[] = { 0, 0, 1 };
	timeline_renumber(tl, map, 3);
	assert_int_equal(read_stacks(tl, got, 8), 4);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 0);
	assert_int_equal(got[2], 1);
	assert_int_equal(got[3], 0);
	/* an id beyond the map stays (a map of a smaller table) */
	const uint32_t short_map[] = { 5 };
	timeline_renumber(tl, short_map, 1);
	assert_int_equal(read_stacks(tl, got, 8), 4);
	assert_int_equal(got[0], 5);
	assert_int_equal(got[2], 1);
	timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(samples_read_back_named),
		cmocka_unit_test(write_error_is_its_own),
		cmocka_unit_test(no_file_says_why),
		cmocka_unit_test(renumbered_after_a_merge),
	};
	return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
