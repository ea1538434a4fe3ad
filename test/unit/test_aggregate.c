/* Unit tests: counting distinct stacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aggregate.h"

struct seen {
	char text[64][256];
	uint64_t count[64];
	int n;
};

static void collect(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	struct seen *s = arg;
	char *t = s->text[s->n];
	t[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(t, ";");
		strcat(t, frames[i]);
	}
	s->count[s->n++] = count;
}

#define STACK(...) ((const char *const[]){ __VA_ARGS__ }), sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *)

static void counts_and_orders(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	assert_non_null(t);
	assert_int_equal(stack_table_add(t, STACK("a", "b", "c"), 1), 0);
	assert_int_equal(stack_table_add(t, STACK("a", "b"), 5), 0);
	assert_int_equal(stack_table_add(t, STACK("a", "b", "c"), 2), 0);
	assert_int_equal(stack_table_add(t, STACK("z"), 3), 0);
	assert_int_equal(stack_table_add(t, STACK("y"), 3), 0);
	assert_int_equal(stack_table_distinct(t), 4);
	assert_int_equal(stack_table_total(t), 14);

	struct seen s = { .n = 0 };
	stack_table_visit_sorted(t, collect, &s);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.text[0], "a;b");     /* heaviest first */
	assert_int_equal(s.count[0], 5);
	assert_string_equal(s.text[1], "a;b;c");   /* 3, 3, 3: byte order */
	assert_string_equal(s.text[2], "y");
	assert_string_equal(s.text[3], "z");
	stack_table_free(t);
}

static void frame_boundaries_matter(void **state)
{
	(void)state;
	/* "ab";"c" and "a";"bc" are different stacks with different text. */
	struct stack_table *t = stack_table_new();
	stack_table_add(t, STACK("ab", "c"), 1);
	stack_table_add(t, STACK("a", "bc"), 1);
	assert_int_equal(stack_table_distinct(t), 2);
	struct seen s = { .n = 0 };
	stack_table_visit_sorted(t, collect, &s);
	/* ';' (0x3b) sorts before 'b' (0x62). */
	assert_string_equal(s.text[0], "a;bc");
	assert_string_equal(s.text[1], "ab;c");
	stack_table_free(t);
}

static void ties_in_folded_byte_order(void **state)
{
	(void)state;
	/* "x!" vs "x" then "y": the folded texts are "x!;y" and "x;y", and '!'
	 * (0x21) sorts before ';' (0x3b) although "x" < "x!" as strings. */
	struct stack_table *t = stack_table_new();
	stack_table_add(t, STACK("x", "y"), 2);
	stack_table_add(t, STACK("x!", "y"), 2);
	stack_table_add(t, STACK("x"), 2);
	struct seen s = { .n = 0 };
	stack_table_visit_sorted(t, collect, &s);
	assert_string_equal(s.text[0], "x");
	assert_string_equal(s.text[1], "x!;y");
	assert_string_equal(s.text[2], "x;y");
	stack_table_free(t);
}

static void input_strings_are_copied(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	char buf[16];
	strcpy(buf, "main");
	const char *frames[] = { buf };
	stack_table_add(t, frames, 1, 1);
	strcpy(buf, "XXXX"); /* the caller reuses its buffer */
	struct seen s = { .n = 0 };
	stack_table_visit_sorted(t, collect, &s);
	assert_string_equal(s.text[0], "main");
	stack_table_free(t);
}

static void many_stacks_grow_the_table(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	char name[32];
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 5000; i++) {
			snprintf(name, sizeof(name), "f%d", i);
			const char *frames[] = { "root", name };
			assert_int_equal(stack_table_add(t, frames, 2, 1), 0);
		}
	assert_int_equal(stack_table_distinct(t), 5000);
	assert_int_equal(stack_table_total(t), 15000);
	stack_table_free(t);
}

static void rejects_empty_stack(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	assert_int_equal(stack_table_add(t, NULL, 0, 1), -1);
	assert_int_equal(stack_table_total(t), 0);
	stack_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_and_orders),
		cmocka_unit_test(frame_boundaries_matter),
		cmocka_unit_test(ties_in_folded_byte_order),
		cmocka_unit_test(input_strings_are_copied),
		cmocka_unit_test(many_stacks_grow_the_table),
		cmocka_unit_test(rejects_empty_stack),
	};
	return cmocka_run_group_tests_name("aggregate", tests, NULL, NULL);
}
