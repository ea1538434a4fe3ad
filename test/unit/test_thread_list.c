#define _GNU_SOURCE
/* Unit tests: the threads a profile's samples name (thread_list.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "profile/thread_list.h"

/* Entries by index, their strings the list's own; found by name. */
static void added_and_found(void **state)
{
	(void)state;
	struct thread_list l = { 0 };
	char name[16] = "worker";
	assert_int_equal(thread_list_add(&l, 10, 11, "server", name), 0);
	assert_int_equal(thread_list_add(&l, 0, 0, "postgres client backend",
					 "postgres client backend"), 1);
	strcpy(name, "changed"); /* copied, not kept */
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].name, "worker");
	assert_string_equal(l.v[0].process, "server");
	assert_int_equal(l.v[0].pid, 10);
	assert_int_equal(l.v[0].tid, 11);
	assert_int_equal(thread_list_find(&l, "postgres client backend"), 1);
	assert_int_equal(thread_list_find(&l, "worker"), 0);
	assert_int_equal(thread_list_find(&l, "changed"), -1);
	thread_list_clear(&l);
	assert_int_equal(l.n, 0);
	assert_null(l.v);
	assert_int_equal(thread_list_find(&l, "worker"), -1);
}

/* A copy owns its strings: the original cleared, the copy reads on. */
static void copies_are_whole(void **state)
{
	(void)state;
	struct thread_list a = { 0 }, b;
	for (int i = 0; i < 100; i++) {
		char n[16];
		snprintf(n, sizeof(n), "t%d", i);
		assert_int_equal(thread_list_add(&a, 1, 100 + i, "p", n), i);
	}
	assert_int_equal(thread_list_copy(&a, &b), 0);
	assert_ptr_not_equal(a.v[7].name, b.v[7].name);
	thread_list_clear(&a);
	assert_int_equal(b.n, 100);
	assert_string_equal(b.v[99].name, "t99");
	assert_int_equal(b.v[99].tid, 199);
	struct thread_list empty = { 0 }, c;
	assert_int_equal(thread_list_copy(&empty, &c), 0);
	assert_int_equal(c.n, 0);
	thread_list_clear(&c);
	thread_list_clear(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(added_and_found),
		cmocka_unit_test(copies_are_whole),
	};
	return cmocka_run_group_tests_name("thread_list", tests, NULL, NULL);
}
