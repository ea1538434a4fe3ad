/* Unit tests: unwinding copies of stacks, with this very process's
 * modules - a real stack must reach main, and garbage must end quickly. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "modules.h"
#include "snapshot.h"
#include "symbolize.h"
#include "unwind.h"

static struct snapshot snap; /* large: not on the stack */

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(void)
{
	return (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^ (uint64_t)random();
}

static void garbage_stacks_end_quickly(void **state)
{
	(void)state;
	struct modules *m = modules_open(getpid());
	assert_non_null(m);
	struct unwinder *u = unwinder_new(m);
	assert_non_null(u);
	srandom(42);
	uint64_t code = (uint64_t)(uintptr_t)&garbage_stacks_end_quickly;
	uint64_t ips[UNWIND_MAX_FRAMES];
	uint64_t slowest = 0;
	for (int round = 0; round < 2000; round++) {
		memset(&snap.regs, 0, sizeof(snap.regs));
		snap.stack_start = 0x7ff000000000ULL;
		snap.stack_len = 4096 + (size_t)(rnd() % 60000);
		for (size_t i = 0; i < snap.stack_len; i += 8) {
			uint64_t w = rnd();
			/* Some words look like code addresses and stack addresses,
			 * the most misleading garbage there is. */
			if (w % 3 == 0)
				w = code + w % 4096;
			else if (w % 3 == 1)
				w = snap.stack_start + w % snap.stack_len;
			memcpy(snap.stack + i, &w, 8);
		}
		snap.regs.rip = round % 2 ? code + rnd() % 256 : rnd();
		snap.regs.rsp = snap.stack_start + rnd() % snap.stack_len;
		snap.regs.rbp = snap.stack_start + rnd() % snap.stack_len;
		int complete;
		uint64_t t0 = now();
		int n = unwind_snapshot(u, &snap, ips, UNWIND_MAX_FRAMES, &complete);
		uint64_t took = now() - t0;
		if (took > slowest)
			slowest = took;
		assert_in_range(n, 1, UNWIND_MAX_FRAMES);
	}
	/* Generous: a real unwind takes microseconds; a runaway one would
	 * take far longer than this. */
	assert_true(slowest < 200000000ULL);
	unwinder_free(u);
	modules_close(m);
}

static void own_module_is_named(void **state)
{
	(void)state;
	struct modules *m = modules_open(getpid());
	struct symbolizer *s = symbolizer_new(m);
	uint64_t here = (uint64_t)(uintptr_t)&own_module_is_named;
	assert_string_equal(symbolize(s, here + 1, false), "own_module_is_named");
	/* A return address just past a call is looked up one byte back. */
	assert_string_equal(symbolize(s, here + 1, true), "own_module_is_named");
	assert_string_equal(symbolize(s, 8, false), "[unknown]");
	symbolizer_free(s);
	modules_close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(garbage_stacks_end_quickly),
		cmocka_unit_test(own_module_is_named),
	};
	return cmocka_run_group_tests_name("unwind", tests, NULL, NULL);
}
