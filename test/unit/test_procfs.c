/* Unit tests: /proc stat, stack, syscall and maps parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tracee/procfs.h"

/* An exact-size heap copy without a terminating NUL: a parser that reads
 * past len trips AddressSanitizer. */
static char *exact(const char *s, size_t *len)
{
	*len = strlen(s);
	char *p = malloc(*len ? *len : 1);
	memcpy(p, s, *len);
	return p;
}

/* PARSE(buf, len, &out) refuses (-1) every text of the array BAD, each in
 * a buffer of its exact size, as a read would give it. */
#define ALL_REFUSED(BAD, PARSE, OUT_TYPE)                                     \
	do {                                                                  \
		for (size_t i_ = 0; i_ < sizeof(BAD) / sizeof((BAD)[0]); i_++) { \
			size_t len_;                                          \
			char *b_ = exact((BAD)[i_], &len_);                   \
			OUT_TYPE out_;                                        \
			if (PARSE(b_, len_, &out_) != -1)                     \
				fail_msg("accepted '%s'", (BAD)[i_]);         \
			free(b_);                                             \
		}                                                             \
	} while (0)

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
	assert_int_equal(st.stime, 5);
	assert_false(st.kernel_thread);
	free(b);
}

/* A kernel thread (kthreadd's child) has PF_KTHREAD in its flags. */
static void stat_kernel_thread(void **state)
{
	(void)state;
	const char *line = "15 (ksoftirqd/0) S 2 0 0 0 -1 69238880 0 0 0 0 0 14 0 0 20 0 "
			   "1 0 4 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 0 0 0 0 0 0\n";
	size_t len;
	char *b = exact(line, &len);
	struct task_stat st;
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_true(st.kernel_thread);
	assert_string_equal(st.comm, "ksoftirqd/0");
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
	assert_int_equal(st.stime, -1);
	free(b);
}

static void stat_rejects(void **state)
{
	(void)state;
	const char *bad[] = { "", "1234", "1234 (x", "1234 x) S", "1234 (x)", "1234 (x) ", ")(" };
	ALL_REFUSED(bad, parse_task_stat, struct task_stat);
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

/* R with no kernel stack is on a CPU; preempted (in user mode or in the
 * kernel), woken and waiting, or let go from our stop, it is queued. */
static void cpu_presence(void **state)
{
	(void)state;
	struct kernel_stack ks = stack_of((const char *const[]){ NULL });
	assert_true(kernel_stack_on_cpu(&ks));
	ks = stack_of((const char *const[]){ "irqentry_exit_to_user_mode",
					     "asm_sysvec_apic_timer_interrupt", NULL });
	assert_false(kernel_stack_on_cpu(&ks));
	ks = stack_of((const char *const[]){ "preempt_schedule_irq", "irqentry_exit",
					     "asm_sysvec_reschedule_ipi", "clear_page_erms",
					     "do_syscall_64", "entry_SYSCALL_64_after_hwframe", NULL });
	assert_false(kernel_stack_on_cpu(&ks));
	ks = stack_of((const char *const[]){ "futex_do_wait", "__futex_wait", "do_syscall_64",
					     "entry_SYSCALL_64_after_hwframe", NULL });
	assert_false(kernel_stack_on_cpu(&ks));
	/* let go from our stop, still waiting for a CPU */
	ks = stack_of((const char *const[]){ "ptrace_stop", "ptrace_do_notify", "get_signal",
					     "arch_do_signal_or_restart", NULL });
	assert_false(kernel_stack_on_cpu(&ks));
}

static void exec_start(void **state)
{
	(void)state;
	const char *text = "cat (7529, #threads: 1)\n"
			   "-------------------------------------------------------------------\n"
			   "se.exec_start                                :        613000.569533\n"
			   "se.vruntime                                  :         54502.473851\n";
	size_t len;
	char *b = exact(text, &len);
	uint64_t ns = 0;
	assert_int_equal(parse_sched_exec_start(b, len, &ns), 0);
	assert_int_equal(ns, 613000569533ULL);
	free(b);
	b = exact("se.exec_start : 0.000001", &len); /* last line, no newline */
	assert_int_equal(parse_sched_exec_start(b, len, &ns), 0);
	assert_int_equal(ns, 1);
	free(b);
	const char *bad[] = { "", "se.exec_start\n", "se.exec_start : 12\n", "se.exec_start : 12.5\n",
			      "se.exec_start : 1.0000001\n", "se.exec_startx : 1.000000\n",
			      "se.exec_start : 1.000000 ms\n", "se.exec_start 1.000000\n",
			      "se.vruntime : 1.000000\n", "se.exec_start : 9999999999999999.000000\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = exact(bad[i], &len);
		if (parse_sched_exec_start(b, len, &ns) == 0)
			fail_msg("accepted '%s'", bad[i]);
		free(b);
	}
}

static void status_kb(void **state)
{
	(void)state;
	const char *text = "Name:\tsleep\nVmPeak:\t    8432 kB\nVmHWM:\t   24072 kB\n"
			   "VmRSS:\t     984 kB\nThreads:\t1\n";
	size_t len;
	char *b = exact(text, &len);
	uint64_t kb = 0;
	assert_int_equal(parse_status_kb(b, len, "VmHWM", &kb), 0);
	assert_int_equal(kb, 24072);
	assert_int_equal(parse_status_kb(b, len, "VmRSS", &kb), 0);
	assert_int_equal(kb, 984);
	assert_int_equal(parse_status_kb(b, len, "VmSwap", &kb), -1);
	assert_int_equal(parse_status_kb(b, len, "Threads", &kb), -1); /* no kB */
	assert_int_equal(parse_status_kb(b, len, "VmHW", &kb), -1);
	free(b);
	b = exact("VmHWM:\t7 kB", &len); /* last line, no newline */
	assert_int_equal(parse_status_kb(b, len, "VmHWM", &kb), 0);
	assert_int_equal(kb, 7);
	free(b);
	const char *bad[] = { "", "VmHWM:\n", "VmHWM:\t kB\n", "VmHWM:\t12 MB\n", "VmHWM:\t12 kB x\n",
			      "VmHWM:\t-12 kB\n", "VmHWM \t12 kB\n", "VmHWM:\t9999999999999999 kB\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = exact(bad[i], &len);
		if (parse_status_kb(b, len, "VmHWM", &kb) == 0)
			fail_msg("accepted '%s'", bad[i]);
		free(b);
	}
}

static void stat_cpu(void **state)
{
	(void)state;
	size_t len;
	struct cpu_times ct;
	char *b = exact("cpu  37486 2 9974 85906 700 0 171 1610 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n", &len);
	assert_int_equal(parse_proc_stat_cpu(b, len, &ct), 0);
	assert_int_equal(ct.total, 37486 + 2 + 9974 + 85906 + 700 + 0 + 171 + 1610);
	assert_int_equal(ct.steal, 1610);
	assert_int_equal(ct.idle, 85906 + 700);
	free(b);
	b = exact("cpu  10 20 30 40\n", &len); /* an old kernel: no steal */
	assert_int_equal(parse_proc_stat_cpu(b, len, &ct), 0);
	assert_int_equal(ct.total, 100);
	assert_int_equal(ct.steal, 0);
	assert_int_equal(ct.idle, 40);
	free(b);
	const char *bad[] = { "", "cpu\n", "cpu  1 2 3\n", "cpu0 1 2 3 4 5 6 7 8\n", "cpu  1 2 x 4\n",
			      "intr 1 2 3 4\n", "cpu  1 2 3 -4\n", "cpu  1 2 3 4x 5\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = exact(bad[i], &len);
		if (parse_proc_stat_cpu(b, len, &ct) == 0)
			fail_msg("accepted '%s'", bad[i]);
		free(b);
	}
}

static void status_numbers(void **state)
{
	(void)state;
	const char *text = "Name:\tnode\nTgid:\t4242\nUid:\t1000\t1001\t1002\t1003\n"
			   "NStgid:\t4242\t17\t1\nThreads:\t1 \nVmHWM:\t   24072 kB\n";
	size_t len;
	char *b = exact(text, &len);
	uint64_t v = 0;
	assert_int_equal(parse_status_number(b, len, "Uid", 1, &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(parse_status_number(b, len, "Uid", 2, &v), 0);
	assert_int_equal(v, 1001);
	assert_int_equal(parse_status_number(b, len, "Uid", -1, &v), 0);
	assert_int_equal(v, 1003);
	assert_int_equal(parse_status_number(b, len, "NStgid", -1, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(parse_status_number(b, len, "Tgid", -1, &v), 0); /* not NStgid */
	assert_int_equal(v, 4242);
	assert_int_equal(parse_status_number(b, len, "Threads", 1, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(parse_status_number(b, len, "Uid", 5, &v), -1);
	assert_int_equal(parse_status_number(b, len, "Uid", 0, &v), -1);
	assert_int_equal(parse_status_number(b, len, "Gid", 1, &v), -1);
	assert_int_equal(parse_status_number(b, len, "Name", 1, &v), -1);
	assert_int_equal(parse_status_number(b, len, "VmHWM", 1, &v), -1); /* "kB" */
	free(b);
	const char *bad[] = { "", "Uid:\n", "Uid:\t\n", "Uid:\t-1\n", "Uid:\t1x\n",
			      "Uid \t1\n", "Uid:\t9999999999999999\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = exact(bad[i], &len);
		if (parse_status_number(b, len, "Uid", -1, &v) == 0)
			fail_msg("accepted '%s'", bad[i]);
		free(b);
	}
	b = exact("Uid:\t7", &len); /* last line, no newline */
	assert_int_equal(parse_status_number(b, len, "Uid", 1, &v), 0);
	assert_int_equal(v, 7);
	free(b);
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

static void syscall_blocked_outside_a_call(void **state)
{
	(void)state;
	size_t len;
	char *b = exact("-1 0x7ffc71dde298 0x7f76ed273503\n", &len);
	struct blocked_syscall w;
	memset(&w, 0xaa, sizeof(w));
	assert_int_equal(parse_proc_syscall(b, len, &w), 0);
	assert_int_equal(w.nr, -1);
	assert_int_equal(w.args[0], 0);
	assert_int_equal(w.args[5], 0);
	assert_int_equal(w.sp, 0x7ffc71dde298ULL);
	assert_int_equal(w.pc, 0x7f76ed273503ULL);
	free(b);
}

static void syscall_not_blocked(void **state)
{
	(void)state;
	const char *bad[] = { "running\n", "-1 0x7ffc71dde298\n", "-1 0x1 0x2 0x3", "-1", "", "230",
			      "230 0x0 0x0 0x0 0x0 0x0 0x0 0x1", "230 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2 junk",
			      "230 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0xZZ" };
	ALL_REFUSED(bad, parse_proc_syscall, struct blocked_syscall);
}

static void schedstat_runs(void **state)
{
	(void)state;
	size_t len;
	char *b = exact("4267208 17093 2\n", &len);
	struct sched_counts c = { 99, 99, 99 };
	assert_int_equal(parse_schedstat(b, len, &c), 0);
	assert_int_equal(c.run_ns, 4267208);
	assert_int_equal(c.wait_ns, 17093);
	assert_int_equal(c.runs, 2);
	free(b);
	b = exact("18446744073709551 0 18446744073709551615", &len); /* no newline, max */
	assert_int_equal(parse_schedstat(b, len, &c), 0);
	assert_true(c.runs == UINT64_MAX);
	assert_int_equal(c.wait_ns, 0);
	free(b);
}

static void schedstat_rejects(void **state)
{
	(void)state;
	const char *bad[] = { "", "\n", "1 2", "1 2\n", "1 2 ", "1  2 3", "1 2 3x", "1 2 3 4",
			      "a 2 3", "1 2 184467440737095516150", "-1 2 3" };
	ALL_REFUSED(bad, parse_schedstat, struct sched_counts);
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
	assert_int_equal(m.dev_major, 0xfe);
	assert_int_equal(m.dev_minor, 1);
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
	ALL_REFUSED(bad, parse_maps_line, struct map_entry);
}

/* A stat line with fields 1..n: pid, comm, state, then 4, 5, ... n. */
static char *stat_line(const char *comm, int n, size_t *len)
{
	char text[1024];
	int off = snprintf(text, sizeof(text), "42 (%s) R", comm);
	for (int f = 4; f <= n; f++)
		off += snprintf(text + off, sizeof(text) - (size_t)off, " %d", f == 20 ? 3 : f == 39 ? 7 : f);
	return exact(text, len);
}

static void stat_processor_is_field_39(void **state)
{
	(void)state;
	struct task_stat st;
	size_t len;
	char *b = stat_line("x", 39, &len); /* ends right after the processor */
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_int_equal(st.processor, 7);
	assert_int_equal(st.num_threads, 3);
	free(b);
	b = stat_line("x", 38, &len);
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_int_equal(st.processor, -1);
	assert_int_equal(st.num_threads, 3);
	free(b);
	b = stat_line("x", 52, &len);
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_int_equal(st.processor, 7);
	free(b);
	/* Spaces and ") S (" in comm do not shift the fields. */
	b = stat_line("a) S (b c", 52, &len);
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_string_equal(st.comm, "a) S (b c");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.processor, 7);
	assert_int_equal(st.num_threads, 3);
	free(b);
	b = stat_line("x", 19, &len);
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_int_equal(st.num_threads, -1);
	free(b);
}

static void stat_every_prefix(void **state)
{
	(void)state;
	/* A read cut anywhere: never past len.  Cut inside comm, an earlier
	 * ')' may pass for the end of it; from the state on, all is right. */
	const char *line = "9 (we (ird) name)) D 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 4 18 19 "
			   "20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 11 0\n";
	size_t state_at = (size_t)(strstr(line, ")) D") - line) + 3;
	for (size_t n = 0; n <= strlen(line); n++) {
		char *b = malloc(n ? n : 1);
		memcpy(b, line, n);
		struct task_stat st;
		int r = parse_task_stat(b, n, &st);
		if (n <= state_at) {
			if (r == 0)
				assert_true(strlen(st.comm) < COMM_MAX);
		} else {
			assert_int_equal(r, 0);
			assert_int_equal(st.state, 'D');
			assert_string_equal(st.comm, "we (ird) name)");
		}
		free(b);
	}
	size_t len;
	char *b = exact(line, &len);
	struct task_stat st;
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_string_equal(st.comm, "we (ird) name)");
	assert_int_equal(st.num_threads, 4);
	assert_int_equal(st.processor, 11);
	free(b);
}

static void stat_long_and_odd_comm(void **state)
{
	(void)state;
	char comm[300];
	memset(comm, 'c', sizeof(comm) - 1);
	comm[sizeof(comm) - 1] = '\0';
	size_t len;
	char *b = stat_line(comm, 40, &len);
	struct task_stat st;
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_int_equal(strlen(st.comm), COMM_MAX - 1);
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.processor, 7);
	free(b);

	/* comm is raw: a newline in it is kept (frame_sanitize's business). */
	b = exact("5 (a\nb) S 1", &len);
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_string_equal(st.comm, "a\nb");
	assert_int_equal(st.state, 'S');
	free(b);

	b = exact("5 () Z 1", &len);
	assert_int_equal(parse_task_stat(b, len, &st), 0);
	assert_string_equal(st.comm, "");
	assert_int_equal(st.state, 'Z');
	free(b);

	/* Not "PID (": no stat line. */
	const char *bad[] = { "(a) S 1", "x (a) S 1", "5(a) S 1", "5  (a)S 1", "-5 (a) S 1",
			      "5 (a)  S 1", "5 (a)\nS", "5 (a) Sx 1", "5 (a) sleeping 1" };
	ALL_REFUSED(bad, parse_task_stat, struct task_stat);
}

static void state_words_all(void **state)
{
	(void)state;
	const char *want[][2] = {
		{ "R", "R (running)" }, { "S", "S (sleeping)" }, { "D", "D (disk sleep)" },
		{ "T", "T (stopped)" }, { "t", "t (tracing stop)" }, { "X", "X (dead)" },
		{ "Z", "Z (zombie)" }, { "P", "P (parked)" }, { "I", "I (idle)" },
		{ "W", "W (waking)" }, { "K", "K (wakekill)" }, { "x", "x (dead)" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(state_description(want[i][0][0]), want[i][1]);
	const char unknown[] = { '\0', 'r', 's', 'Q', '?', ' ', '\n', (char)0xff };
	for (size_t i = 0; i < sizeof(unknown); i++)
		assert_string_equal(state_description(unknown[i]), "? (unknown)");
}

static void kernel_stack_odd_lines(void **state)
{
	(void)state;
	struct kernel_stack ks;
	size_t len;
	const char *text = "\n\n"
			   "[<0>] \n"                   /* no symbol */
			   "[<0>]\n"
			   "do_nanosleep+0x6f/0x190\n"  /* no address */
			   "[<0> do_x+0x1/0x2\n"        /* no ']' */
			   "[<0>] bare_symbol\n"        /* no offset: kept */
			   "[<0>]   \tspaced+0x1/0x2\n"
			   "[<ffffffffc0a1b2c3>] xfs_buf_lock+0x3e/0xf0 [xfs]\n"
			   "[<0>] __x64_sys_read+0x19/0x20";
	char *b = exact(text, &len);
	assert_int_equal(parse_kernel_stack(b, len, &ks), 4);
	assert_int_equal(ks.depth, 4);
	assert_string_equal(ks.frame[0], "bare_symbol");
	assert_string_equal(ks.frame[1], "spaced");
	assert_string_equal(ks.frame[2], "xfs_buf_lock");
	assert_string_equal(ks.frame[3], "__x64_sys_read");
	free(b);

	b = exact("", &len);
	assert_int_equal(parse_kernel_stack(b, len, &ks), 0);
	free(b);
	b = exact("\n", &len);
	assert_int_equal(parse_kernel_stack(b, len, &ks), 0);
	free(b);
}

static void kernel_stack_every_prefix(void **state)
{
	(void)state;
	const char *text = "[<0>] do_nanosleep+0x6f/0x190\n"
			   "[<0>] hrtimer_nanosleep+0xd7/0x1b0 [mod]\n"
			   "[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";
	for (size_t n = 0; n <= strlen(text); n++) {
		char *b = malloc(n ? n : 1);
		memcpy(b, text, n);
		struct kernel_stack ks;
		int d = parse_kernel_stack(b, n, &ks);
		assert_true(d >= 0 && d <= 3);
		for (int i = 0; i < d; i++)
			assert_true(ks.frame[i][0] != '\0');
		free(b);
	}
}

static void kernel_filter_every_stop_artifact(void **state)
{
	(void)state;
	const char *artifacts[] = { "ptrace_stop", "ptrace_do_notify", "ptrace_notify",
				    "ptrace_signal", "do_signal_stop", "do_jobctl_trap",
				    "signal_delivered" };
	for (size_t a = 0; a < sizeof(artifacts) / sizeof(artifacts[0]); a++)
		for (int at = 0; at < 3; at++) {
			const char *frames[4] = { "get_signal", "do_syscall_64",
						  "entry_SYSCALL_64_after_hwframe", NULL };
			frames[at] = artifacts[a];
			struct kernel_stack ks = stack_of(frames);
			if (kernel_stack_filter(&ks) != 0 || ks.depth != 0)
				fail_msg("%s at %d kept", artifacts[a], at);
		}
	/* Names that only look alike stay. */
	struct kernel_stack ks = stack_of((const char *const[]){
		"ptrace_stop_x", "xptrace_stop", "do_signal_stop2", "ptrace", NULL });
	assert_int_equal(kernel_stack_filter(&ks), 4);
}

static void kernel_filter_every_interrupt_entry(void **state)
{
	(void)state;
	const char *entries[] = { "asm_sysvec_apic_timer_interrupt", "asm_sysvec_reschedule_ipi",
				  "asm_sysvec_call_function_single", "asm_common_interrupt",
				  "common_interrupt", "ret_from_intr", "apic_timer_interrupt",
				  "reschedule_interrupt" };
	for (size_t e = 0; e < sizeof(entries) / sizeof(entries[0]); e++) {
		struct kernel_stack ks = stack_of((const char *const[]){
			"__schedule", "preempt_schedule_irq", entries[e], NULL });
		if (kernel_stack_filter(&ks) != 0)
			fail_msg("%s outermost kept", entries[e]);
		/* Not outermost: the interrupt came inside the kernel. */
		ks = stack_of((const char *const[]){ entries[e], "vfs_read", "do_syscall_64", NULL });
		if (kernel_stack_filter(&ks) != 3)
			fail_msg("%s inside a system call dropped", entries[e]);
	}
	/* Exceptions are the thread's own kernel work. */
	const char *exceptions[] = { "asm_exc_page_fault", "asm_exc_int3", "common_interrupt_x",
				     "asm_sysve" };
	for (size_t e = 0; e < sizeof(exceptions) / sizeof(exceptions[0]); e++) {
		struct kernel_stack ks = stack_of((const char *const[]){ "handle_mm_fault", exceptions[e], NULL });
		if (kernel_stack_filter(&ks) != 2)
			fail_msg("%s dropped", exceptions[e]);
	}
	struct kernel_stack none = { 0 };
	assert_int_equal(kernel_stack_filter(&none), 0);
}

static void maps_special_paths(void **state)
{
	(void)state;
	struct {
		const char *line, *path;
	} cases[] = {
		{ "7ffc1000-7ffc2000 rw-p 00000000 00:00 0                          [stack]\n", "[stack]" },
		{ "7ffd3000-7ffd5000 r-xp 00000000 00:00 0                          [vdso]", "[vdso]" },
		{ "7f00-7f10 r-xp 00001000 08:02 99 /opt/my app/lib x.so (deleted)\n",
		  "/opt/my app/lib x.so (deleted)" },
		{ "7f00-7f10 r--s 00000000 00:05 7\t/dev/shm/seg\n", "/dev/shm/seg" },
		{ "7f00-7f10 ---p 00000000 00:00 0\n", "" },
		{ "7f00-7f10 rw-p 00000000 00:00 0\n/second/line\n", "" },
		{ "0-1000 rw-p 0 0:0 0 /x", "/x" },
		{ "7f00-7f10 r-xp 0 08:02 18446744073709551615 /big", "/big" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		char *b = exact(cases[i].line, &len);
		struct map_entry m;
		if (parse_maps_line(b, len, &m) != 0)
			fail_msg("rejected '%s'", cases[i].line);
		assert_int_equal(m.path_len, strlen(cases[i].path));
		assert_memory_equal(m.path, cases[i].path, m.path_len);
		assert_true(m.path >= b && m.path + m.path_len <= b + len);
		free(b);
	}
	size_t len;
	char *b = exact("7ffc1000-7ffc2000 rw-s 00a0b000 fe:01 4242 /f", &len);
	struct map_entry m;
	assert_int_equal(parse_maps_line(b, len, &m), 0);
	assert_int_equal(m.offset, 0xa0b000);
	assert_string_equal(m.perms, "rw-s");
	assert_int_equal(m.inode, 4242);
	free(b);
}

/* The device as the kernel prints it, "%02x:%02x": wider majors and
 * minors (NVMe partitions, device mapper, overlayfs' anonymous devices)
 * print more digits; the same inode on two devices is two files. */
static void maps_devices(void **state)
{
	(void)state;
	struct {
		const char *line;
		uint32_t major, minor;
	} cases[] = {
		{ "1000-2000 r-xp 00000000 fe:01 7 /a", 0xfe, 0x01 },
		{ "1000-2000 r-xp 00000000 103:05 7 /a", 0x103, 0x05 },
		{ "1000-2000 r-xp 00000000 00:2a 7 /a", 0, 0x2a },
		{ "1000-2000 r-xp 00000000 fd:100 7 /a", 0xfd, 0x100 },
		{ "1000-2000 r-xp 00000000 FE:0A 7 /a", 0xfe, 0x0a },
		{ "1000-2000 r-xp 00000000 ffffffff:fffff 7 /a", 0xffffffffU, 0xfffff },
		{ "1000-2000 rw-p 00000000 00:00 0", 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		char *b = exact(cases[i].line, &len);
		struct map_entry m;
		if (parse_maps_line(b, len, &m) != 0)
			fail_msg("rejected '%s'", cases[i].line);
		if (m.dev_major != cases[i].major || m.dev_minor != cases[i].minor)
			fail_msg("'%s': %x:%x", cases[i].line, m.dev_major, m.dev_minor);
		free(b);
	}
	const char *bad[] = {
		"1000-2000 r-xp 0 fe01 7 /a",            /* no colon */
		"1000-2000 r-xp 0 fe: 7 /a",             /* no minor */
		"1000-2000 r-xp 0 :01 7 /a",             /* no major */
		"1000-2000 r-xp 0 fe::01 7 /a",
		"1000-2000 r-xp 0 fe:0g 7 /a",
		"1000-2000 r-xp 0 100000000:01 7 /a",    /* more than 32 bits */
		"1000-2000 r-xp 0 01:100000000 7 /a",
		"1000-2000 r-xp 0 11112222333344445:01 7 /a",
	};
	ALL_REFUSED(bad, parse_maps_line, struct map_entry);
}

static void maps_rejects_more(void **state)
{
	(void)state;
	const char *bad[] = {
		"1000-2000 r-x 0 00:00 0",           /* three perm letters */
		"1000-2000 rwxq 0 00:00 0",
		"1000-2000 xwrp 0 00:00 0",
		"1000-2000r-xp 0 00:00 0",           /* fields run together */
		"1000-2000 r-xp0 00:00 0",
		"1000-2000 r-xp 0 00:000",
		"1000-2000 r-xp 0 00:00 12x /p",
		"1000-2000 r-xp 0 00:00 18446744073709551616 /p", /* inode overflow */
		"1000 - 2000 r-xp 0 00:00 0",
		"\n1000-2000 r-xp 0 00:00 0",
		"1000-2000 r-xp 0 00:00",
		"1000-2000 r-xp 0 00:00 ",
	};
	ALL_REFUSED(bad, parse_maps_line, struct map_entry);
}

static void maps_every_prefix(void **state)
{
	(void)state;
	const char *line = "55d0c8a4e000-55d0c8a50000 r-xp 00002000 fe:01 1234   /usr/bin/cat\n";
	size_t inode_end = (size_t)(strstr(line, "1234") - line) + 4;
	for (size_t n = 0; n <= strlen(line); n++) {
		char *b = malloc(n ? n : 1);
		memcpy(b, line, n);
		struct map_entry m;
		int r = parse_maps_line(b, n, &m);
		if (r == 0)
			assert_true(m.path >= b && m.path + m.path_len <= b + n);
		if (n >= inode_end) {
			/* Past the inode only the path is cut. */
			assert_int_equal(r, 0);
			assert_int_equal(m.inode, 1234);
			assert_memory_equal(m.path, "/usr/bin/cat", m.path_len);
		}
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stat_plain),
		cmocka_unit_test(stat_hostile_comm),
		cmocka_unit_test(stat_kernel_thread),
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
		cmocka_unit_test(syscall_blocked_outside_a_call),
		cmocka_unit_test(cpu_presence),
		cmocka_unit_test(exec_start),
		cmocka_unit_test(schedstat_runs),
		cmocka_unit_test(schedstat_rejects),
		cmocka_unit_test(maps_lines),
		cmocka_unit_test(maps_rejects),
		cmocka_unit_test(stat_processor_is_field_39),
		cmocka_unit_test(stat_every_prefix),
		cmocka_unit_test(stat_long_and_odd_comm),
		cmocka_unit_test(state_words_all),
		cmocka_unit_test(kernel_stack_odd_lines),
		cmocka_unit_test(kernel_stack_every_prefix),
		cmocka_unit_test(kernel_filter_every_stop_artifact),
		cmocka_unit_test(kernel_filter_every_interrupt_entry),
		cmocka_unit_test(maps_special_paths),
		cmocka_unit_test(status_kb),
		cmocka_unit_test(stat_cpu),
		cmocka_unit_test(status_numbers),
		cmocka_unit_test(maps_devices),
		cmocka_unit_test(maps_rejects_more),
		cmocka_unit_test(maps_every_prefix),
	};
	return cmocka_run_group_tests_name("procfs", tests, NULL, NULL);
}
