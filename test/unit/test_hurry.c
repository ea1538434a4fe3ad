/* Unit tests: naming in a hurry (symbolize_hurry, a second stop signal
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
	symbolize_hurry(&flag);
	struct modules *m = modules_open(files, getpid());
	assert_non_null(m);
	struct symbolizer *s = symbolizer_new(namer_with(&plain), m);
	assert_string_equal(name_at(s, named_before), "named_before");
	uint64_t before = symbolize_hurried();

	flag = 1;
	assert_string_equal(name_at(s, named_before), "named_before"); /* known */
	assert_string_equal(name_at(s, named_in_a_hurry), "[test_hurry]");
	assert_int_equal(symbolize_hurried(), before + 1);
	/* another process's symbolizer, a namer that read nothing yet */
	struct symbolizer *fresh = symbolizer_new(namer_with(&plain), m);
	assert_string_equal(name_at(fresh, named_before), "[test_hurry]");
	assert_int_equal(symbolize_hurried(), before + 2);
	symbolizer_free(fresh);

	flag = 0;
	struct symbolizer *again = symbolizer_new(namer_with(&plain), m);
	assert_string_equal(name_at(again, named_in_a_hurry), "named_in_a_hurry");
	assert_int_equal(symbolize_hurried(), before + 2);
	symbolizer_free(again);
	symbolizer_free(s);
	modules_close(m);
	symbolize_hurry(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(known_names_stay_the_rest_by_module, new_run, end_run),
	};
	return cmocka_run_group_tests_name("hurry", tests, NULL, NULL);
}
