/* Unit tests: our descriptor limit raised to the hard one and given back
 * to a child before it runs a program; a shortage told from other
 * failures (descriptors.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/descriptors.h"

/* Run first: raised to the hard limit, and a child gets the soft limit
 * it would have had. */
static void raised_and_given_back(void **state)
{
	(void)state;
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max == rl.rlim_cur) {
		/* a soft limit below the hard one, as a shell gives */
		if (rl.rlim_max < 64)
			skip();
		struct rlimit low = { rl.rlim_max / 2, rl.rlim_max };
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
		rl = low;
	}
	uint64_t now = descriptors_raise();
	struct rlimit after;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &after), 0);
	assert_true(after.rlim_cur == rl.rlim_max);
	assert_true(now == (rl.rlim_max == RLIM_INFINITY ? 0 : (uint64_t)rl.rlim_max));
	assert_true(descriptors_limit() == now);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		descriptors_restore();
		struct rlimit c;
		_exit(getrlimit(RLIMIT_NOFILE, &c) == 0 && c.rlim_cur == rl.rlim_cur &&
		      c.rlim_max == rl.rlim_max ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Short while fewer than two are left, errno left as it was. */
static void short_when_none_left(void **state)
{
	(void)state;
	struct rlimit rl, low;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = (struct rlimit){ 64, rl.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	errno = EINVAL;
	assert_false(descriptors_short());
	assert_int_equal(errno, EINVAL);
	int fds[64], n = 0;
	while (n < 64 && (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		n++;
	assert_true(n < 64); /* the limit met */
	errno = ENOENT;
	assert_true(descriptors_short());
	assert_int_equal(errno, ENOENT);
	close(fds[--n]);
	assert_true(descriptors_short()); /* one left */
	close(fds[--n]);
	assert_false(descriptors_short());
	while (n > 0)
		close(fds[--n]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(raised_and_given_back),
		cmocka_unit_test(short_when_none_left),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
