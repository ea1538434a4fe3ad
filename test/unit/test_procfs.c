/* Unit tests: /proc stat, stack, syscall and maps parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "procfs.h"

/* An exact-size heap copy without a terminating NUL: a parser that reads
 * past len trips AddressSanitizer. */
static char *exact(const char *s, size_t *len)
{
	*len = strlen(s);
	char *p = malloc(*len ? *len : 1);
	memcpy(p, s, *len);
	return p;
}

static void stat_plain(void **state)
{
	(void)state;
	const char *line = "1234 (postgres) S 1 1234 1234 0 -1 4194560 1200 0 0 0 10 5 0 0 20 0 "
			   "7 0 100 1000000 200 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n";
	size_t len;
	char *b = exact(line, &len);
	struct task_stat st;
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_string_equal(st.comm, "postgres");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.processor, 1);
	assert_int_equal(st.num_threads, 7);
	free(b);
}

static void stat_hostile_comm(void **state)
{
	(void)state;
	/* comm may hold spaces and parentheses: only the last ')' ends it. */
	const char *line = "77 (a) S (b) c) R 1 2 3";
	size_t len;
	char *b = exact(line, &len);
	struct task_stat st;
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_string_equal(st.comm, "a) S (b) c");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.processor, -1); /* line too short */
	assert_int_equal(st.num_threads, -1);
	free(b);
}

static void stat_rejects(void **state)
{
	(void)state;
	const char *bad[] = { "", "1234", "1234 (x", "1234 x) S", "1234 (x)", "1234 (x) ", ")(" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len;
		char *b = exact(bad[i], &len);
		struct task_stat st;
		if (parse_task_stat(b, len, &st) != -1)
			fail_msg("accepted '%s'", bad[i]);
		free(b);
	}
}

static void state_words(void **state)
{
	(void)state;
	assert_string_equal(state_description('R'), "R (running)");
	assert_string_equal(state_description('S'), "S (sleeping)");
	assert_string_equal(state_description('D'), "D (disk sleep)");
	assert_string_equal(state_description('T'), "T (stopped)");
	assert_string_equal(state_description('t'), "t (tracing stop)");
	assert_string_equal(state_description('Z'), "Z (zombie)");
	assert_string_equal(state_description('I'), "I (idle)");
	assert_string_equal(state_description('q'), "? (unknown)");
}

static void kernel_stack_lines(void **state)
{
	(void)state;
	const char *text = "[<0>] do_nanosleep+0x6f/0x190\n"
			   "[<ffffffffc0a1b2c3>] nfs_wait_bit_killable+0x1e/0x90 [nfs]\n"
			   "garbage line\n"
			   "[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e"; /* no final newline */
	size_t len;
	char *b = exact(text, &len);
	struct kernel_stack ks;
	assert_int_equal(parse_kernel_stack(b, len, &ks), 3);
	assert_string_equal(ks.frame[0], "do_nanosleep");
	assert_string_equal(ks.frame[1], "nfs_wait_bit_killable");
	assert_string_equal(ks.frame[2], "entry_SYSCALL_64_after_hwframe");
	assert_int_equal(parse_kernel_stack(b, 0, &ks), 0);
	free(b);
}

static void kernel_stack_nul_bytes(void **state)
{
	(void)state;
	/* Found by fuzzing: a NUL inside a line made an empty frame. */
	static const char text[] = "[<0>]\0do_nanosleep+0\n[<0>] vfs_\0read+0x1/0x2\n";
	struct kernel_stack ks;
	assert_int_equal(parse_kernel_stack(text, sizeof(text) - 1, &ks), 1);
	assert_string_equal(ks.frame[0], "vfs_");
}

static void kernel_stack_bounded(void **state)
{
	(void)state;
	/* More frames than kept, and a symbol longer than kept. */
	size_t cap = (KSTACK_MAX + 10) * 40 + KSYM_MAX * 2 + 64;
	char *text = calloc(1, cap);
	size_t off = 0;
	off += (size_t)snprintf(text + off, cap - off, "[<0>] ");
	for (int i = 0; i < KSYM_MAX * 2; i++)
		text[off++] = 'x';
	off += (size_t)snprintf(text + off, cap - off, "+0x1/0x2\n");
	for (int i = 0; i < KSTACK_MAX + 10; i++)
		off += (size_t)snprintf(text + off, cap - off, "[<0>] f%d+0x1/0x2\n", i);
	struct kernel_stack ks;
	assert_int_equal(parse_kernel_stack(text, off, &ks), KSTACK_MAX);
	assert_int_equal(strlen(ks.frame[0]), KSYM_MAX - 1);
	assert_string_equal(ks.frame[1], "f0");
	free(text);
}

static struct kernel_stack stack_of(const char *const *frames)
{
	struct kernel_stack ks = { 0 };
	for (; *frames; frames++)
		strcpy(ks.frame[ks.depth++], *frames);
	return ks;
}

static void kernel_filter_drops_our_stop(void **state)
{
	(void)state;
	struct kernel_stack ks = stack_of((const char *const[]){
		"ptrace_stop", "do_jobctl_trap", "get_signal", "arch_do_signal_or_restart",
		"syscall_exit_to_user_mode", "do_syscall_64", "entry_SYSCALL_64_after_hwframe", NULL });
	assert_int_equal(kernel_stack_filter(&ks), 0);
}

static void kernel_filter_drops_user_preemption(void **state)
{
	(void)state;
	struct kernel_stack ks = stack_of((const char *const[]){
		"irqentry_exit_to_user_mode", "asm_sysvec_apic_timer_interrupt", NULL });
	assert_int_equal(kernel_stack_filter(&ks), 0);
	ks = stack_of((const char *const[]){ "schedule", "common_interrupt", NULL });
	assert_int_equal(kernel_stack_filter(&ks), 0);
}

static void kernel_filter_keeps_real_work(void **state)
{
	(void)state;
	/* An interrupt taken inside a system call is the call's business. */
	struct kernel_stack ks = stack_of((const char *const[]){
		"asm_sysvec_apic_timer_interrupt", "copy_user_generic", "vfs_read",
		"do_syscall_64", "entry_SYSCALL_64_after_hwframe", NULL });
	assert_int_equal(kernel_stack_filter(&ks), 5);
	/* Page faults are kernel work done for the thread. */
	ks = stack_of((const char *const[]){ "handle_mm_fault", "exc_page_fault",
					     "asm_exc_page_fault", NULL });
	assert_int_equal(kernel_stack_filter(&ks), 3);
	ks = stack_of((const char *const[]){ "do_nanosleep", "hrtimer_nanosleep", NULL });
	assert_int_equal(kernel_stack_filter(&ks), 2);
}

static void syscall_blocked(void **state)
{
	(void)state;
	const char *line = "230 0x0 0x0 0x7ffc71dde2b0 0x7ffc71dde2f0 0x0 0x0 0x7ffc71dde298 0x7f76ed273503\n";
	size_t len;
	char *b = exact(line, &len);
	struct blocked_syscall w;
	assert_int_equal(parse_proc_syscall(b, len, &w), 0);
	assert_int_equal(w.nr, 230);
	assert_int_equal(w.args[2], 0x7ffc71dde2b0ULL);
	assert_int_equal(w.args[5], 0);
	assert_int_equal(w.sp, 0x7ffc71dde298ULL);
	assert_int_equal(w.pc, 0x7f76ed273503ULL);
	free(b);
}

static void syscall_not_blocked(void **state)
{
	(void)state;
	const char *bad[] = { "running\n", "-1 0x7ffc71dde298 0x7f76ed273503\n", "", "230",
			      "230 0x0 0x0 0x0 0x0 0x0 0x0 0x1", "230 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2 junk",
			      "230 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0xZZ" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len;
		char *b = exact(bad[i], &len);
		struct blocked_syscall w;
		if (parse_proc_syscall(b, len, &w) != -1)
			fail_msg("accepted '%s'", bad[i]);
		free(b);
	}
}

static void maps_lines(void **state)
{
	(void)state;
	struct map_entry m;
	size_t len;
	char *b = exact("55d0c8a4e000-55d0c8a50000 r-xp 00002000 fe:01 1234   /usr/bin/cat\n", &len);
	assert_int_equal(parse_maps_line(b, len, &m), 0);
	assert_int_equal(m.start, 0x55d0c8a4e000ULL);
	assert_int_equal(m.end, 0x55d0c8a50000ULL);
	assert_int_equal(m.offset, 0x2000);
	assert_string_equal(m.perms, "r-xp");
	assert_int_equal(m.inode, 1234);
	assert_int_equal(m.path_len, strlen("/usr/bin/cat"));
	assert_memory_equal(m.path, "/usr/bin/cat", m.path_len);
	free(b);

	b = exact("7ffd1000-7ffd2000 rw-p 00000000 00:00 0 ", &len);
	assert_int_equal(parse_maps_line(b, len, &m), 0);
	assert_int_equal(m.path_len, 0);
	free(b);

	b = exact("7f00-7f10 r-xp 00000000 08:02 99 /opt/my app/lib x.so (deleted)", &len);
	assert_int_equal(parse_maps_line(b, len, &m), 0);
	assert_int_equal(m.path_len, strlen("/opt/my app/lib x.so (deleted)"));
	free(b);
}

static void maps_rejects(void **state)
{
	(void)state;
	const char *bad[] = { "", "zzzz", "1000-", "2000-1000 r-xp 0 00:00 0", "1000-2000 r-x",
			      "1000-2000 r-xp 0 0000 0", "1000-2000 r-xp 0 00:00 x",
			      "10000000000000000-2 r-xp 0 00:00 0" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len;
		char *b = exact(bad[i], &len);
		struct map_entry m;
		if (parse_maps_line(b, len, &m) != -1)
			fail_msg("accepted '%s'", bad[i]);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stat_plain),
		cmocka_unit_test(stat_hostile_comm),
		cmocka_unit_test(stat_rejects),
		cmocka_unit_test(state_words),
		cmocka_unit_test(kernel_stack_lines),
		cmocka_unit_test(kernel_stack_nul_bytes),
		cmocka_unit_test(kernel_stack_bounded),
		cmocka_unit_test(kernel_filter_drops_our_stop),
		cmocka_unit_test(kernel_filter_drops_user_preemption),
		cmocka_unit_test(kernel_filter_keeps_real_work),
		cmocka_unit_test(syscall_blocked),
		cmocka_unit_test(syscall_not_blocked),
		cmocka_unit_test(maps_lines),
		cmocka_unit_test(maps_rejects),
	};
	return cmocka_run_group_tests_name("procfs", tests, NULL, NULL);
}
