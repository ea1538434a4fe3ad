/* Unit tests: the functions known by name to begin a thread's stack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <cmocka.h>

#include "name/outermost.h"

static void go_scheduler_stacks(void **state)
{
	(void)state;
	assert_true(outermost_name("runtime.mstart"));
	assert_true(outermost_name("runtime.mstart.abi0"));
	assert_true(outermost_name("runtime.mcall"));
	assert_true(outermost_name("runtime.goexit.abi0"));
	assert_true(outermost_name("runtime.rt0_go.abi0"));
	/* --lines' suffix on a one-frame stack's */
	assert_true(outermost_name("runtime.mstart.abi0 (asm_amd64.s:394)"));
}

static void not_these(void **state)
{
	(void)state;
	/* frames that are not the first, though their names are close */
	assert_false(outermost_name("runtime.mstart0"));
	assert_false(outermost_name("runtime.mstart1"));
	assert_false(outermost_name("runtime.goexit1"));
	assert_false(outermost_name("runtime.mcall.abi0x"));
	assert_false(outermost_name(".abi0"));
	/* the goroutine that switched stacks runs on */
	assert_false(outermost_name("runtime.systemstack.abi0"));
	assert_false(outermost_name("runtime.morestack.abi0"));
	/* glibc's are told by their unwind info, and only there: a thread
	 * inside the clone3 call sits where the child begins */
	assert_false(outermost_name("__clone3"));
	assert_false(outermost_name("clone"));
	assert_false(outermost_name("_start"));
	assert_false(outermost_name("[truncated]"));
	assert_false(outermost_name(""));
	assert_false(outermost_name(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(go_scheduler_stacks),
		cmocka_unit_test(not_these),
	};
	return cmocka_run_group_tests_name("outermost", tests, NULL, NULL);
}
