/* Unit tests: --top's screen model and layout - what is counted and drawn
 * from hand-made windows of named stacks, without a terminal. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/top_layout.h"
#include "cli/top_model.h"
#include "profile/aggregate.h"

/* A window from folded lines "a;b;c COUNT", one per string, NULL-ended. */
static struct stack_table *window_of(const char *const *lines)
{
	struct stack_table *t = stack_table_new();
	assert_non_null(t);
	for (; *lines; lines++) {
		char buf[1024];
		snprintf(buf, sizeof(buf), "%s", *lines);
		char *sp = strrchr(buf, ' ');
		assert_non_null(sp);
		*sp = '\0';
		uint64_t count = strtoull(sp + 1, NULL, 10);
		const char *frames[64];
		size_t n = 0;
		for (char *f = strtok(buf, ";"); f; f = strtok(NULL, ";"))
			frames[n++] = f;
		assert_true(stack_table_add(t, frames, n, count) >= 0);
	}
	return t;
}

/* Counts the window into m: 1 s long, a tick per 10 ms. */
static void add(struct top_model *m, const char *const *lines)
{
	struct stack_table *t = window_of(lines);
	struct top_window_info info = { .duration_ns = 1000000000, .ticks = 100,
					.stopped_ns = 2000000 };
	assert_int_equal(top_model_add_window(m, t, &info), 0);
	stack_table_free(t); /* the model keeps its own names */
}

/* The row named name among n, or fail. */
static const struct top_row *row(const struct top_row *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

static bool has_row(const struct top_row *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return true;
	return false;
}

/* split.c's split: 50 % cpu_work, 30 % sleep_work (in the kernel), 20 %
 * cpu_other. */
static const char *const split[] = {
	"split;R (running);_start;main;cpu_work;now;clock_gettime 50",
	"split;S (sleeping);_start;main;sleep_work;clock_nanosleep;entry_SYSCALL_64_[k];do_nanosleep_[k] 30",
	"split;R (running);_start;main;cpu_other 20",
	NULL,
};

static void own_and_total_shares(void **state)
{
	(void)state;
	struct top_model *m = top_model_new();
	add(m, split);
	struct top_row r[32];
	size_t n = top_model_functions(m, TOP_WINDOW, TOP_BY_OWN, TOP_USER, r, 32);
	/* own: the innermost user frame; kernel frames stay with the call */
	assert_string_equal(r[0].name, "clock_gettime");
	assert_string_equal(r[1].name, "clock_nanosleep");
	assert_string_equal(r[2].name, "cpu_other");
	assert_int_equal(r[0].own, 50);
	assert_true(r[1].own_share > 0.299 && r[1].own_share < 0.301);
	assert_false(has_row(r, n, "do_nanosleep_[k]"));
	/* total: every function a stack passes through */
	assert_int_equal(row(r, n, "main")->total, 100);
	assert_int_equal(row(r, n, "main")->own, 0);
	assert_true(row(r, n, "cpu_work")->total_share > 0.499 && row(r, n, "cpu_work")->total_share < 0.501);
	assert_int_equal(row(r, n, "sleep_work")->total, 30);
	/* a sample stands for 10 ms */
	assert_true(row(r, n, "cpu_work")->total_s > 0.499 && row(r, n, "cpu_work")->total_s < 0.501);
	/* by total: main first (100 %), then cpu_work */
	n = top_model_functions(m, TOP_WINDOW, TOP_BY_TOTAL, TOP_USER, r, 32);
	assert_int_equal(r[0].total, 100);
	assert_int_equal(r[n - 1].total, 20);
	/* the states */
	n = top_model_table(m, TOP_STATE, TOP_WINDOW, r, 32);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].name, "R (running)");
	assert_int_equal(r[0].total, 70);
	assert_string_equal(r[1].name, "S (sleeping)");
	assert_int_equal(top_model_table(m, TOP_WAIT, TOP_WINDOW, r, 32), 0);
	assert_int_equal(top_model_table(m, TOP_QUERY, TOP_WINDOW, r, 32), 0);
	top_model_free(m);
}

static void kernel_frames_as_functions(void **state)
{
	(void)state;
	struct top_model *m = top_model_new();
	add(m, split);
	struct top_row r[32];
	size_t n = top_model_functions(m, TOP_WINDOW, TOP_BY_OWN, TOP_KERNEL, r, 32);
	assert_int_equal(row(r, n, "do_nanosleep_[k]")->own, 30);
	assert_int_equal(row(r, n, "entry_SYSCALL_64_[k]")->total, 30);
	assert_int_equal(row(r, n, "clock_nanosleep")->own, 0);
	assert_int_equal(row(r, n, "clock_nanosleep")->total, 30);
	assert_int_equal(row(r, n, "clock_gettime")->own, 50);
	assert_int_equal(top_model_count(m, TOP_FUNCTION, TOP_WINDOW, TOP_KERNEL), n);
	assert_int_equal(top_model_count(m, TOP_FUNCTION, TOP_WINDOW, TOP_USER), n - 2);
	top_model_free(m);
}

static void stacks_without_user_frames(void **state)
{
	(void)state;
	struct top_model *m = top_model_new();
	const char *const w[] = {
		"t;S (sleeping) 4",                         /* state alone */
		"t;D (disk sleep);io_schedule_[k];blk_wait_[k] 6", /* kernel alone */
		"t;R (running);main;f;g;f;g;f 10",            /* recursion */
		NULL,
	};
	add(m, w);
	struct top_row r[32];
	size_t n = top_model_functions(m, TOP_WINDOW, TOP_BY_OWN, TOP_USER, r, 32);
	assert_int_equal(row(r, n, "[no stack]")->own, 4);
	assert_int_equal(row(r, n, "blk_wait_[k]")->own, 6); /* its innermost kernel frame */
	assert_false(has_row(r, n, "io_schedule_[k]"));
	assert_int_equal(row(r, n, "f")->own, 10);
	assert_int_equal(row(r, n, "f")->total, 10); /* once per stack */
	assert_int_equal(row(r, n, "g")->total, 10);
	n = top_model_functions(m, TOP_WINDOW, TOP_BY_OWN, TOP_KERNEL, r, 32);
	assert_int_equal(row(r, n, "io_schedule_[k]")->total, 6);
	assert_int_equal(row(r, n, "[no stack]")->own, 4);
	n = top_model_table(m, TOP_STATE, TOP_WINDOW, r, 32);
	assert_int_equal(row(r, n, "D (disk sleep)")->total, 6);
	top_model_free(m);
}

/* Every state the profile writes is a state, not a function: the ones
 * in lower case, and ours (the screen listed "t (stopped by
 * ptrace_profiler)" among the functions, at 0.8 % total). */
static void every_state_is_a_state(void **state)
{
	(void)state;
	struct top_model *m = top_model_new();
	const char *const w[] = {
		"t;t (stopped by ptrace_profiler);main;work 3",
		"t;t (tracing stop);main;work 2",
		"t;event=Client:ClientRead (PostgreSQL state);S (sleeping);main;wait 5",
		NULL,
	};
	add(m, w);
	struct top_row r[32];
	size_t n = top_model_table(m, TOP_STATE, TOP_WINDOW, r, 32);
	assert_int_equal(row(r, n, "t (stopped by ptrace_profiler)")->total, 3);
	assert_int_equal(row(r, n, "t (tracing stop)")->total, 2);
	assert_int_equal(row(r, n, "S (sleeping)")->total, 5);
	n = top_model_functions(m, TOP_WINDOW, TOP_BY_OWN, TOP_USER, r, 32);
	assert_false(has_row(r, n, "t (stopped by ptrace_profiler)"));
	assert_false(has_row(r, n, "t (tracing stop)"));
	assert_int_equal(row(r, n, "work")->own, 5);
	n = top_model_table(m, TOP_WAIT, TOP_WINDOW, r, 32);
	assert_int_equal(row(r, n, "event=Client:ClientRead (PostgreSQL state)")->total, 5);
	top_model_free(m);
}

static void window_and_since_the_start(void **state)
{
	(void)state;
	struct top_model *m = top_model_new();
	const char *const w1[] = { "t;R (running);main;a 30", NULL };
	const char *const w2[] = { "t;R (running);main;b 10", NULL };
	add(m, w1);
	add(m, w2);
	struct top_row r[8];
	size_t n = top_model_functions(m, TOP_WINDOW, TOP_BY_OWN, TOP_USER, r, 8);
	assert_false(has_row(r, n, "a")); /* the last window only */
	assert_true(row(r, n, "b")->own_share > 0.999);
	n = top_model_functions(m, TOP_SINCE_START, TOP_BY_OWN, TOP_USER, r, 8);
	assert_int_equal(row(r, n, "a")->own, 30);
	assert_true(row(r, n, "a")->own_share > 0.749 && row(r, n, "a")->own_share < 0.751);
	assert_true(row(r, n, "b")->own_s > 0.099 && row(r, n, "b")->own_s < 0.101);
	const struct top_figures *f = top_model_figures(m, TOP_SINCE_START);
	assert_int_equal(f->windows, 2);
	assert_int_equal(f->samples, 40);
	assert_int_equal(f->ticks, 200);
	assert_int_equal(f->stopped_ns, 4000000);
	assert_int_equal(top_model_figures(m, TOP_WINDOW)->samples, 10);
	/* at most max rows, the first ones */
	assert_int_equal(top_model_functions(m, TOP_SINCE_START, TOP_BY_OWN, TOP_USER, r, 1), 1);
	assert_string_equal(r[0].name, "a");
	top_model_free(m);
}

static void pause_keeps_what_is_shown(void **state)
{
	(void)state;
	struct top_model *m = top_model_new();
	const char *const w1[] = { "t;R (running);main;a 10", NULL };
	const char *const w2[] = { "t;R (running);main;b 10", NULL };
	const char *const w3[] = { "t;R (running);main;c 10", NULL };
	add(m, w1);
	top_model_pause(m, true);
	assert_true(top_model_paused(m));
	add(m, w2);
	add(m, w3);
	struct top_row r[8];
	size_t n = top_model_functions(m, TOP_WINDOW, TOP_BY_OWN, TOP_USER, r, 8);
	assert_int_equal(n, 2); /* main, a: as before the pause */
	assert_true(has_row(r, n, "a"));
	assert_int_equal(top_model_figures(m, TOP_SINCE_START)->windows, 1);
	top_model_pause(m, false);
	n = top_model_functions(m, TOP_WINDOW, TOP_BY_OWN, TOP_USER, r, 8);
	assert_true(has_row(r, n, "c")); /* the latest window */
	assert_false(has_row(r, n, "b"));
	n = top_model_functions(m, TOP_SINCE_START, TOP_BY_OWN, TOP_USER, r, 8);
	assert_int_equal(n, 4); /* main, a, b, c */
	assert_int_equal(row(r, n, "main")->total, 30);
	assert_int_equal(top_model_figures(m, TOP_SINCE_START)->windows, 3);
	/* a pause with nothing arriving changes nothing */
	top_model_pause(m, true);
	top_model_pause(m, false);
	assert_int_equal(top_model_figures(m, TOP_SINCE_START)->windows, 3);
	n = top_model_functions(m, TOP_WINDOW, TOP_BY_OWN, TOP_USER, r, 8);
	assert_true(has_row(r, n, "c"));
	top_model_free(m);
}

/* --subprocesses --pg-wait-events (--pg-queries): wait events and query
 * frames between the thread and its OS state. */
static const char *const pg[] = {
	"postgres[100]/postgres;query=42 SELECT abalance FROM pgbench_accounts WHERE aid = $1;On CPU (PostgreSQL state);R (running);main;PostgresMain;exec_simple_query 40",
	"postgres[101]/postgres;idle;event=Client:ClientRead (PostgreSQL state);S (sleeping);main;PostgresMain;secure_read;__recv 30",
	"postgres[102]/postgres;event=Activity:WalWriterMain (PostgreSQL state);S (sleeping);main;WalWriterMain;epoll_wait 20",
	"postgres[103]/postgres;[no PostgreSQL state];S (sleeping);main;epoll_wait 10",
	NULL,
};

static void wait_events_and_queries(void **state)
{
	(void)state;
	struct top_model *m = top_model_new();
	add(m, pg);
	struct top_row r[16];
	size_t n = top_model_table(m, TOP_WAIT, TOP_WINDOW, r, 16);
	assert_int_equal(n, 4);
	assert_string_equal(r[0].name, "On CPU (PostgreSQL state)");
	assert_true(r[0].total_share > 0.399 && r[0].total_share < 0.401);
	assert_int_equal(row(r, n, "[no PostgreSQL state]")->total, 10);
	n = top_model_table(m, TOP_QUERY, TOP_WINDOW, r, 16);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].name, "query=42 SELECT abalance FROM pgbench_accounts WHERE aid = $1");
	assert_int_equal(row(r, n, "idle")->total, 30);
	n = top_model_table(m, TOP_STATE, TOP_WINDOW, r, 16);
	assert_int_equal(row(r, n, "S (sleeping)")->total, 60);
	n = top_model_functions(m, TOP_WINDOW, TOP_BY_OWN, TOP_USER, r, 16);
	assert_int_equal(row(r, n, "epoll_wait")->own, 30);
	assert_false(has_row(r, n, "idle"));
	assert_int_equal(top_model_figures(m, TOP_WINDOW)->processes, 4);
	top_model_free(m);
}

static void root_pids(void **state)
{
	(void)state;
	assert_int_equal(top_root_pid("postgres[4242]/postgres"), 4242);
	assert_int_equal(top_root_pid("a[b][7]/kworker/0:1"), 7);
	assert_int_equal(top_root_pid("split"), 0);
	assert_int_equal(top_root_pid("x[12]"), 12);
	assert_int_equal(top_root_pid("x[]/y"), 0);
	/* named by a backend type or a title (issue 21) */
	assert_int_equal(top_root_pid("postgres[1234] client backend"), 1234);
	assert_int_equal(top_root_pid("postgres[77] logical replication launcher/bgworker"), 77);
	assert_int_equal(top_root_pid("nginx[9] nginx: worker process"), 9);
	assert_int_equal(top_root_pid("sshd[31] sshd: alice [priv]"), 31);
	/* a number in brackets that is not the PID's place */
	assert_int_equal(top_root_pid("x[12]y/z"), 0);
	assert_int_equal(top_root_pid("client backend"), 0);
	assert_int_equal(top_root_pid("x[1234567890] y"), 0);
}

static void names_fit_their_column(void **state)
{
	(void)state;
	char out[64];
	assert_int_equal(top_fit_name("cpu_work", 20, out, sizeof(out)), 8);
	assert_string_equal(out, "cpu_work");
	/* start and end kept: the "_[i]" of an inlined frame stays */
	assert_int_equal(top_fit_name("std::vector<int>::_M_realloc_insert_[i]", 20, out, sizeof(out)), 20);
	assert_string_equal(out, "std::vect..nsert_[i]");
	assert_int_equal(strlen(out), 20);
	top_fit_name("caf\xc3\xa9\x01", 20, out, sizeof(out));
	assert_string_equal(out, "caf???");
	top_fit_name("abcdefgh", 4, out, sizeof(out));
	assert_string_equal(out, "abcd");
	top_fit_name("abcdefgh", 100, out, 5); /* the buffer is the limit */
	assert_string_equal(out, "abcd");
}

static void seconds_fit_their_column(void **state)
{
	(void)state;
	char out[16];
	assert_string_equal(top_seconds(0.5, out, sizeof(out)), "0.50s");
	assert_string_equal(top_seconds(12.34, out, sizeof(out)), "12.3s");
	assert_string_equal(top_seconds(1234.4, out, sizeof(out)), "1234s");
	assert_true(strlen(top_seconds(99999999, out, sizeof(out))) <= 9);
}

/* The line that starts (after spaces and a share) with text's row: its
 * index, or -1. */
static int line_with(const struct top_line *l, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(l[i].text, text))
			return (int)i;
	return -1;
}

static void screen_of_the_split(void **state)
{
	(void)state;
	struct top_model *m = top_model_new();
	add(m, split);
	struct top_view v = { TOP_WINDOW, TOP_BY_OWN, TOP_USER, 10000000, "split (PID 42)", NULL };
	struct top_line l[24];
	size_t n = top_layout(m, &v, 80, 24, l);
	assert_int_equal(n, 24);
	for (size_t i = 0; i < n; i++) {
		assert_true(strlen(l[i].text) <= 80);
		if (l[i].attr == TOP_BAR)
			assert_int_equal(strlen(l[i].text), 80); /* across the screen */
	}
	assert_string_equal(l[0].text, "ptrace_profiler --top: split (PID 42)");
	assert_string_equal(l[1].text, "window 1: the last 1.00 s");
	assert_string_equal(l[2].text, "rate 100/s of 100/s; target stopped 2 ms/s, 0.20% of each thread's time");
	assert_int_equal(l[3].attr, TOP_BAR);
	assert_non_null(strstr(l[3].text, "Function (by own, last window)"));
	assert_string_equal(l[4].text, "  50.0%   50.0%    0.50s     0.50s  clock_gettime");
	assert_string_equal(l[5].text, "  30.0%   30.0%    0.30s     0.30s  clock_nanosleep");
	assert_string_equal(l[6].text, "  20.0%   20.0%    0.20s     0.20s  cpu_other");
	int cpu_work = line_with(l, n, "  cpu_work");
	assert_true(cpu_work > 6);
	assert_non_null(strstr(l[cpu_work].text, "   0.0%   50.0%"));
	int states = line_with(l, n, "Thread state (last window)");
	assert_true(states > cpu_work);
	assert_int_equal(l[states].attr, TOP_BAR);
	assert_string_equal(l[states + 1].text, "  70.0%    0.70s  R (running)");
	assert_string_equal(l[states + 2].text, "  30.0%    0.30s  S (sleeping)");
	assert_int_equal(line_with(l, n, "Wait event"), -1); /* none in these stacks */
	assert_string_equal(l[23].text, "q quit  s sort by total  w since the start  p pause  k kernel frames too");
	/* the keys' changes */
	v.sort = TOP_BY_TOTAL;
	v.span = TOP_SINCE_START;
	top_model_pause(m, true);
	n = top_layout(m, &v, 80, 24, l);
	assert_non_null(strstr(l[0].text, "PAUSED"));
	assert_int_equal(strlen(l[0].text), 80);
	assert_string_equal(l[1].text, "since the start: 1.0 s in 1 window");
	assert_non_null(strstr(l[3].text, "Function (by total, since start)"));
	assert_non_null(strstr(l[4].text, "100.0%"));
	assert_string_equal(l[23].text, "q quit  s sort by own  w last window  p resume  k kernel frames too");
	v.frames = TOP_KERNEL; /* the bar still says it all in 80 columns */
	n = top_layout(m, &v, 80, 24, l);
	assert_non_null(strstr(l[3].text, "Function (by total, since start, kernel too)"));
	assert_non_null(strstr(l[23].text, "k user frames only"));
	top_model_free(m);
}

static void screen_before_the_first_window(void **state)
{
	(void)state;
	struct top_model *m = top_model_new();
	struct top_view v = { TOP_WINDOW, TOP_BY_OWN, TOP_USER, 10000000, "split (PID 42)", NULL };
	struct top_line l[24];
	size_t n = top_layout(m, &v, 80, 24, l);
	assert_int_equal(n, 24);
	assert_string_equal(l[1].text, "waiting for the first window (1 s)");
	assert_int_equal(line_with(l, n, "Function"), -1);
	top_model_free(m);
}

/* A small screen with every table: the tables shrink, the functions keep
 * a few lines, every line is within the screen. */
static void small_screen_with_every_table(void **state)
{
	(void)state;
	struct top_model *m = top_model_new();
	add(m, pg);
	struct top_view v = { TOP_WINDOW, TOP_BY_OWN, TOP_USER, 10000000, "postgres (PID 99)", NULL };
	struct top_line l[16];
	size_t n = top_layout(m, &v, 60, 16, l);
	assert_int_equal(n, 16);
	assert_string_equal(l[0].text, "ptrace_profiler --top: 4 processes");
	int fn = line_with(l, n, "Function"), st = line_with(l, n, "Thread state"),
	    we = line_with(l, n, "Wait event"), q = line_with(l, n, "Query (");
	assert_true(fn == 3 && st > fn && we > st && q > we);
	assert_int_equal(st - fn - 1, 5); /* functions: at least 5 */
	for (size_t i = 0; i < n; i++)
		assert_true(strlen(l[i].text) <= 60);
	/* the query keeps its start and end in 60 columns */
	int sel = line_with(l, n, "query=42");
	assert_true(sel > q);
	assert_non_null(strstr(l[sel].text, ".."));
	assert_non_null(strstr(l[sel].text, "= $1"));
	/* a tall screen: every row of every table */
	struct top_line tall[60];
	n = top_layout(m, &v, 200, 60, tall);
	assert_true(line_with(tall, n, "[no PostgreSQL state]") > line_with(tall, n, "Wait event"));
	assert_true(line_with(tall, n, "exec_simple_query") > 0);
	/* tiny screens: no line past them */
	assert_int_equal(top_layout(m, &v, 10, 3, l), 3);
	assert_int_equal(top_layout(m, &v, 80, 1, l), 1);
	assert_int_equal(top_layout(m, &v, 80, 0, l), 0);
	top_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_and_total_shares),
		cmocka_unit_test(kernel_frames_as_functions),
		cmocka_unit_test(stacks_without_user_frames),
		cmocka_unit_test(every_state_is_a_state),
		cmocka_unit_test(window_and_since_the_start),
		cmocka_unit_test(pause_keeps_what_is_shown),
		cmocka_unit_test(wait_events_and_queries),
		cmocka_unit_test(root_pids),
		cmocka_unit_test(names_fit_their_column),
		cmocka_unit_test(seconds_fit_their_column),
		cmocka_unit_test(screen_of_the_split),
		cmocka_unit_test(screen_before_the_first_window),
		cmocka_unit_test(small_screen_with_every_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
