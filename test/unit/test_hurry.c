/* Unit tests: naming in a hurry (namer_hurry, a second stop signal
 * while naming): what is known keeps its name, what is not is named after
 * its module without reading a file, each such address counted, and naming
 * is whole again once the flag is down. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unwind/files.h"
#include "unwind/modules.h"
#include "name/symbolize.h"

#include "naming_fixture.h"

__attribute__((noinline, noclone)) int named_before(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline, noclone)) int named_in_a_hurry(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 2;
}

__attribute__((noinline, noclone)) int named_unhooked(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 3;
}

static const char *name_at(struct symbolizer *s, const void *fn)
{
	const char *const *names;
	size_t n = symbolize(s, (uint64_t)(uintptr_t)fn + 1, FRAME_EXACT, &names);
	assert_true(n >= 1);
	return names[0];
}

static void known_names_stay_the_rest_by_module(void **state)
{
	(void)state;
	static volatile sig_atomic_t flag;
	static const struct symbolize_options plain = { false, false, false };
	struct modules *m = modules_open(files, getpid());
	assert_non_null(m);
	struct namer *n = namer_with(&plain);
	namer_hurry(n, &flag);
	struct symbolizer *s = symbolizer_new(n, m);
	assert_string_equal(name_at(s, named_before), "named_before");
	assert_int_equal(namer_hurried(n), 0);

	flag = 1;
	assert_string_equal(name_at(s, named_before), "named_before"); /* known */
	assert_string_equal(name_at(s, named_in_a_hurry), "[test_hurry]");
	assert_int_equal(namer_hurried(n), 1);
	/* another namer, which read nothing yet: in a hurry with its own flag
	 * only, and counting for itself */
	struct namer *other = namer_with(&plain);
	struct symbolizer *fresh = symbolizer_new(other, m);
	assert_string_equal(name_at(fresh, named_before), "named_before");
	assert_int_equal(namer_hurried(other), 0);
	symbolizer_free(fresh);
	struct namer *late = namer_with(&plain);
	namer_hurry(late, &flag);
	fresh = symbolizer_new(late, m);
	assert_string_equal(name_at(fresh, named_before), "[test_hurry]");
	assert_int_equal(namer_hurried(late), 1);
	assert_int_equal(namer_hurried(n), 1);
	symbolizer_free(fresh);

	/* the flag down, a symbolizer's cache empty: whole again */
	flag = 0;
	struct symbolizer *again = symbolizer_new(n, m);
	assert_string_equal(name_at(again, named_in_a_hurry), "named_in_a_hurry");
	assert_int_equal(namer_hurried(n), 1);
	symbolizer_free(again);
	/* the flag up, but no longer n's */
	namer_hurry(n, NULL);
	flag = 1;
	again = symbolizer_new(n, m);
	assert_string_equal(name_at(again, named_unhooked), "named_unhooked");
	symbolizer_free(again);
	symbolizer_free(s);
	modules_close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(known_names_stay_the_rest_by_module, new_run, end_run),
	};
	return cmocka_run_group_tests_name("hurry", tests, NULL, NULL);
}
