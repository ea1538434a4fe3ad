/* Unit tests: counting distinct stacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <malloc.h>

#include "profile/aggregate.h"

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
	/* ids in the order of first sight */
	assert_int_equal(stack_table_add(t, STACK("z"), 3), 0);
	assert_int_equal(stack_table_add(t, STACK("a", "b", "c"), 1), 1);
	assert_int_equal(stack_table_add(t, STACK("a", "b"), 5), 2);
	assert_int_equal(stack_table_add(t, STACK("a", "b", "c"), 2), 1);
	assert_int_equal(stack_table_add(t, STACK("y"), 3), 3);
	assert_int_equal(stack_table_distinct(t), 4);
	assert_int_equal(stack_table_total(t), 14);

	struct seen s = { .n = 0 };
	stack_table_visit_sorted(t, collect, &s);
	assert_int_equal(s.n, 4);
	/* byte order of the folded text, whatever the counts */
	assert_string_equal(s.text[0], "a;b");
	assert_int_equal(s.count[0], 5);
	assert_string_equal(s.text[1], "a;b;c");
	assert_int_equal(s.count[1], 3);
	assert_string_equal(s.text[2], "y");
	assert_string_equal(s.text[3], "z");

	/* and by id */
	const char *frames[4];
	uint64_t count = 0;
	assert_int_equal(stack_table_frames(t, 1, frames, 4, &count), 3);
	assert_string_equal(frames[2], "c");
	assert_int_equal(count, 3);
	assert_int_equal(stack_table_frames(t, 1, frames, 2, NULL), 2); /* cut to max */
	assert_int_equal(stack_table_frames(t, 4, frames, 4, &count), 0);
	assert_null(stack_table_words(t, 4, NULL, NULL));
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
			assert_int_equal(stack_table_add(t, frames, 2, 1), i);
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

static void readding_allocates_nothing(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	char name[32];
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		const char *frames[] = { "proc", "S (sleeping)", "main", name };
		assert_int_equal(stack_table_add(t, frames, 4, 1), i);
	}
	/* Seen stacks, from fresh copies of their strings: nothing is kept
	 * (mallinfo2 sees memory held, not a malloc freed again; under
	 * AddressSanitizer it sees nothing at all). */
	char copies[300][32];
	for (int i = 0; i < 300; i++)
		snprintf(copies[i], sizeof(copies[i]), "f%d", i);
	struct mallinfo2 before = mallinfo2();
	for (int round = 0; round < 10; round++)
		for (int i = 0; i < 300; i++) {
			const char *frames[] = { "proc", "S (sleeping)", "main", copies[i] };
			assert_int_equal(stack_table_add(t, frames, 4, 1), i);
		}
	struct mallinfo2 after = mallinfo2();
	assert_int_equal(after.uordblks, before.uordblks);
	assert_int_equal(after.arena, before.arena);
	assert_int_equal(stack_table_distinct(t), 300);
	assert_int_equal(stack_table_total(t), 3300);
	stack_table_free(t);
}

struct ptrs {
	const char *first[8];
	int n;
};

static void first_frames(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	(void)n;
	(void)count;
	struct ptrs *p = arg;
	p->first[p->n++] = frames[0];
}

static void frames_are_interned(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	char a[] = "main", b[] = "main";
	stack_table_add(t, (const char *const[]){ a, "x" }, 2, 2);
	stack_table_add(t, (const char *const[]){ b, "y" }, 2, 1);
	struct ptrs p = { .n = 0 };
	stack_table_visit_sorted(t, first_frames, &p);
	assert_int_equal(p.n, 2);
	assert_ptr_equal(p.first[0], p.first[1]); /* one copy of "main" */
	assert_ptr_not_equal(p.first[0], a);
	stack_table_free(t);
}

static void counts_add_up(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	stack_table_add(t, STACK("a"), 7);
	stack_table_add(t, STACK("a"), 0);
	stack_table_add(t, STACK("a"), 1000000000000ULL);
	assert_int_equal(stack_table_distinct(t), 1);
	assert_int_equal(stack_table_total(t), 1000000000007ULL);
	struct seen s = { .n = 0 };
	stack_table_visit_sorted(t, collect, &s);
	assert_int_equal(s.count[0], 1000000000007ULL);
	/* A prefix, an extension and a NULL frame are stacks of their own. */
	stack_table_add(t, STACK("a", "b"), 1);
	stack_table_add(t, (const char *const[]){ "a", NULL }, 2, 1);
	stack_table_add(t, STACK("a", ""), 1); /* same text as the NULL one */
	assert_int_equal(stack_table_distinct(t), 3);
	s.n = 0;
	stack_table_visit_sorted(t, collect, &s);
	assert_string_equal(s.text[1], "a;");
	assert_int_equal(s.count[1], 2);
	assert_string_equal(s.text[2], "a;b");
	stack_table_free(t);
}

static int calls;
static void count_calls(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	(void)frames;
	(void)n;
	(void)count;
	(void)arg;
	calls++;
}

static void empty_table_and_bad_input(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	calls = 0;
	stack_table_visit_sorted(t, count_calls, NULL);
	assert_int_equal(calls, 0);
	assert_int_equal(stack_table_distinct(t), 0);
	assert_int_equal(stack_table_total(t), 0);
	const char *frames[] = { "a" };
	assert_int_equal(stack_table_add(t, frames, 0, 1), -1);
	assert_int_equal(stack_table_add(t, NULL, 3, 1), -1);
	assert_int_equal(stack_table_distinct(t), 0);
	stack_table_free(t);
	stack_table_free(NULL);
}

struct deep {
	size_t n;
	int ok;
};

static void check_deep(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	struct deep *d = arg;
	char want[24];
	d->n = n;
	d->ok = count == 2;
	for (size_t i = 0; i < n && d->ok; i++) {
		snprintf(want, sizeof(want), "f%zu", i);
		d->ok = strcmp(frames[i], want) == 0;
	}
}

static void deep_stacks(void **state)
{
	(void)state;
	/* Deeper than any the sampler makes: still one stack, whole. */
	enum { DEPTH = 3000 };
	static char names[DEPTH][16];
	static const char *frames[DEPTH];
	for (size_t i = 0; i < DEPTH; i++) {
		snprintf(names[i], sizeof(names[i]), "f%zu", i);
		frames[i] = names[i];
	}
	struct stack_table *t = stack_table_new();
	assert_int_equal(stack_table_add(t, frames, DEPTH, 1), 0);
	assert_int_equal(stack_table_add(t, frames, DEPTH, 1), 0);
	assert_int_equal(stack_table_distinct(t), 1);
	struct deep d = { 0, 0 };
	stack_table_visit_sorted(t, check_deep, &d);
	assert_int_equal(d.n, DEPTH);
	assert_true(d.ok);
	stack_table_free(t);
}

/* Random stacks over names that prefix each other and sort around ';':
 * the visit order must be strcmp of the folded text, whatever the counts. */
struct order_check {
	char prev[256];
	uint64_t prev_count;
	size_t n;
	uint64_t sum;
};

static void check_order(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	struct order_check *c = arg;
	char text[256] = "";
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(text, ";");
		strcat(text, frames[i]);
	}
	if (c->n && strcmp(c->prev, text) >= 0)
		fail_msg("'%s' not after '%s'", text, c->prev);
	strcpy(c->prev, text);
	c->prev_count = count;
	c->n++;
	c->sum += count;
}

static void random_order_property(void **state)
{
	(void)state;
	const char *alphabet[] = { "a", "ab", "a!", "b", "a:b", "[k]", "A", "", "a b" };
	struct stack_table *t = stack_table_new();
	srand(12345);
	uint64_t total = 0;
	for (int i = 0; i < 4000; i++) {
		const char *frames[6];
		size_t n = 1 + (size_t)rand() % 5;
		for (size_t k = 0; k < n; k++)
			frames[k] = alphabet[rand() % 9];
		uint64_t count = 1 + (uint64_t)(rand() % 3);
		assert_true(stack_table_add(t, frames, n, count) >= 0);
		total += count;
	}
	struct order_check c = { .n = 0 };
	stack_table_visit_sorted(t, check_order, &c);
	assert_int_equal(c.n, stack_table_distinct(t));
	assert_int_equal(c.sum, total);
	assert_int_equal(stack_table_total(t), total);
	stack_table_free(t);
}

struct words_seen {
	size_t n_stacks;
	uint64_t sum, heaviest;
	size_t heaviest_n;
	uint64_t heaviest_last;
};

static void collect_words(const uint64_t *words, size_t n, uint64_t count, void *arg)
{
	struct words_seen *w = arg;
	w->n_stacks++;
	w->sum += count;
	if (count > w->heaviest) {
		w->heaviest = count;
		w->heaviest_n = n;
		w->heaviest_last = words[n - 1];
	}
}

static void word_stacks(void **state)
{
	(void)state;
	/* Stacks still to be named: addresses and interned strings, as the
	 * sampler encodes them. */
	struct stack_table *t = stack_table_new();
	const char *root = stack_table_intern(t, "worker");
	assert_ptr_equal(stack_table_intern(t, "worker"), root);
	char copy[] = "worker";
	assert_ptr_equal(stack_table_intern(t, copy), root); /* by text, not address */
	uint64_t a[] = { (uintptr_t)root, 0x401000 << 2, 0x401234 << 2 | 1 };
	uint64_t b[] = { (uintptr_t)root, 0x401000 << 2, 0x401234 << 2 | 2 }; /* other kind */
	for (int i = 0; i < 3; i++)
		assert_int_equal(stack_table_add_words(t, a, 3, 1), 0);
	assert_int_equal(stack_table_add_words(t, b, 3, 1), 1);
	assert_int_equal(stack_table_add_words(t, a, 2, 1), 2); /* a prefix is another stack */
	assert_int_equal(stack_table_add_words(t, a, 0, 1), -1);
	assert_int_equal(stack_table_add_words(t, NULL, 3, 1), -1);
	assert_int_equal(stack_table_distinct(t), 3);
	assert_int_equal(stack_table_total(t), 5);
	struct words_seen w = { 0 };
	stack_table_visit_words(t, collect_words, &w);
	assert_int_equal(w.n_stacks, 3);
	assert_int_equal(w.sum, 5);
	assert_int_equal(w.heaviest, 3);
	assert_int_equal(w.heaviest_n, 3);
	assert_int_equal(w.heaviest_last, 0x401234 << 2 | 1);

	/* Cleared: no stacks, no counts; interned strings stay valid. */
	stack_table_clear(t);
	assert_int_equal(stack_table_distinct(t), 0);
	assert_int_equal(stack_table_total(t), 0);
	w = (struct words_seen){ 0 };
	stack_table_visit_words(t, collect_words, &w);
	assert_int_equal(w.n_stacks, 0);
	assert_string_equal(root, "worker");
	assert_ptr_equal(stack_table_intern(t, "worker"), root);
	assert_int_equal(stack_table_add_words(t, b, 3, 2), 0); /* ids start again */
	assert_int_equal(stack_table_distinct(t), 1);
	assert_int_equal(stack_table_total(t), 2);
	stack_table_free(t);
}

static void cleared_table_names_again(void **state)
{
	(void)state;
	/* A named table cleared and refilled sorts and prints as new. */
	struct stack_table *t = stack_table_new();
	stack_table_add(t, STACK("a", "b"), 4);
	stack_table_clear(t);
	stack_table_add(t, STACK("c"), 1);
	stack_table_add(t, STACK("a", "b"), 2);
	struct seen s = { .n = 0 };
	stack_table_visit_sorted(t, collect, &s);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.text[0], "a;b");
	assert_int_equal(s.count[0], 2);
	assert_string_equal(s.text[1], "c");
	stack_table_free(t);
}

static void max_depth_sizes_a_buffer(void **state)
{
	(void)state;
	/* What the writers size their frame buffers by: the deepest stack,
	 * at least 1, through clears and copies. */
	struct stack_table *t = stack_table_new();
	assert_int_equal(stack_table_max_depth(t), 1); /* empty: still a buffer */
	stack_table_add(t, STACK("a", "b", "c"), 1);
	assert_int_equal(stack_table_max_depth(t), 3);
	stack_table_add(t, STACK("a"), 1);
	stack_table_add(t, STACK("a", "b", "c"), 5); /* seen before */
	assert_int_equal(stack_table_max_depth(t), 3);
	stack_table_add(t, STACK("a", "b", "c", "d", "e"), 1);
	assert_int_equal(stack_table_max_depth(t), 5);
	struct stack_table *c = stack_table_copy(t);
	assert_non_null(c);
	assert_int_equal(stack_table_max_depth(c), 5);
	stack_table_free(c);
	stack_table_clear(t);
	assert_int_equal(stack_table_max_depth(t), 1);
	stack_table_add(t, STACK("x", "y"), 1);
	assert_int_equal(stack_table_max_depth(t), 2);
	const uint64_t words[7] = { 1, 2, 3, 4, 5, 6, 7 };
	stack_table_add_words(t, words, 7, 1);
	assert_int_equal(stack_table_max_depth(t), 7);
	stack_table_free(t);
}

/* Renames "query=hash:-9 X" to "query=42 X" (a statement read while parsed,
 * then with its id: pgshape.h), counting how often it is asked. */
struct renamer {
	int asked;
};

static const char *rename_parsed(const char *frame, void *arg)
{
	((struct renamer *)arg)->asked++;
	return strcmp(frame, "query=hash:-9 X") == 0 ? "query=42 X" : NULL;
}

static const char *rename_nothing(const char *frame, void *arg)
{
	(void)frame;
	(void)arg;
	return NULL;
}

static void renamed_frames_merge_stacks(void **state)
{
	(void)state;
	struct stack_table *t = stack_table_new();
	assert_int_equal(stack_table_add(t, STACK("pg", "query=hash:-9 X", "f"), 3), 0);
	assert_int_equal(stack_table_add(t, STACK("pg", "query=42 X", "f"), 5), 1);
	assert_int_equal(stack_table_add(t, STACK("pg", "query=hash:-9 X", "g", "h"), 1), 2);
	assert_int_equal(stack_table_add(t, STACK("pg", "idle", "f"), 2), 3);
	assert_int_equal(stack_table_add(t, STACK("pg", "query=42 X", "g", "h"), 4), 4);
	uint32_t map[5] = { 7, 7, 7, 7, 7 };
	/* nothing to rename: nothing moves, the map untouched */
	assert_int_equal(stack_table_rename(t, rename_nothing, NULL, map), 0);
	assert_int_equal(stack_table_distinct(t), 5);
	assert_int_equal(map[0], 7);
	struct renamer r = { 0 };
	assert_int_equal(stack_table_rename(t, rename_parsed, &r, map), 2);
	assert_true(r.asked >= 16); /* every frame of every stack */
	/* merged into the first of them; ids dense, first-sight order */
	assert_int_equal(stack_table_distinct(t), 3);
	assert_int_equal(stack_table_total(t), 15);
	assert_int_equal(map[0], 0);
	assert_int_equal(map[1], 0);
	assert_int_equal(map[2], 1);
	assert_int_equal(map[3], 2);
	assert_int_equal(map[4], 1);
	const char *frames[4];
	uint64_t count = 0;
	assert_int_equal(stack_table_frames(t, 0, frames, 4, &count), 3);
	assert_string_equal(frames[1], "query=42 X");
	assert_int_equal(count, 8);
	assert_int_equal(stack_table_frames(t, 1, frames, 4, &count), 4);
	assert_string_equal(frames[1], "query=42 X");
	assert_string_equal(frames[3], "h");
	assert_int_equal(count, 5);
	assert_int_equal(stack_table_frames(t, 2, frames, 4, &count), 3);
	assert_string_equal(frames[1], "idle");
	assert_int_equal(stack_table_max_depth(t), 4);
	/* the index answers for the new table: a stack seen is found again */
	assert_int_equal(stack_table_add(t, STACK("pg", "query=42 X", "f"), 1), 0);
	assert_int_equal(stack_table_add(t, STACK("pg", "query=hash:-9 X", "f"), 1), 3);
	struct seen s = { .n = 0 };
	stack_table_visit_sorted(t, collect, &s);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.text[0], "pg;idle;f");
	assert_string_equal(s.text[1], "pg;query=42 X;f");
	assert_int_equal(s.count[1], 9);
	assert_string_equal(s.text[3], "pg;query=hash:-9 X;f");
	/* without a map, and a table with nothing in it */
	assert_int_equal(stack_table_rename(t, rename_parsed, &r, NULL), 1);
	assert_int_equal(stack_table_distinct(t), 3);
	stack_table_clear(t);
	assert_int_equal(stack_table_rename(t, rename_parsed, &r, map), 0);
	stack_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_and_orders),
		cmocka_unit_test(renamed_frames_merge_stacks),
		cmocka_unit_test(frame_boundaries_matter),
		cmocka_unit_test(ties_in_folded_byte_order),
		cmocka_unit_test(input_strings_are_copied),
		cmocka_unit_test(many_stacks_grow_the_table),
		cmocka_unit_test(rejects_empty_stack),
		cmocka_unit_test(readding_allocates_nothing),
		cmocka_unit_test(word_stacks),
		cmocka_unit_test(cleared_table_names_again),
		cmocka_unit_test(frames_are_interned),
		cmocka_unit_test(counts_add_up),
		cmocka_unit_test(empty_table_and_bad_input),
		cmocka_unit_test(deep_stacks),
		cmocka_unit_test(max_depth_sizes_a_buffer),
		cmocka_unit_test(random_order_property),
	};
	return cmocka_run_group_tests_name("aggregate", tests, NULL, NULL);
}
