/* Unit tests: a thread's registers and stack, copied by the kernel as it
 * leaves a CPU (switch_copy.h).  A sleeping child's copy is the very
 * set a stop reads and the stack it sleeps on; a disarmed watch copies
 * nothing; a take gives the newest switch since the time asked and
 * consumes what it read; and, as root, a child spinning in user code on
 * our CPU is copied at the instant our wake-up takes that CPU from it -
 * where it spins, no stop.  Without permission for perf events (not
 * root, perf_event_paranoid above 1) the live tests skip. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "tracee/procfs.h"
#include "tracee/switch_copy.h"
#include "sleeper_child.h"

#define STACK_BYTES 4096

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A watch on pid, or a skip when perf events are not ours to open. */
static struct switch_copy *copy_or_skip(pid_t pid, struct child *c)
{
	int err = 0;
	struct switch_copy *w = switch_copy_open(pid, STACK_BYTES, &err);
	if (!w && (err == EACCES || err == EPERM || err == ENOENT || err == ENOSYS)) {
		fprintf(stderr, "  (no perf events: %s)\n", strerror(err));
		if (c)
			end_child(c);
		else
			kill(pid, SIGKILL), waitpid(pid, NULL, 0);
		skip();
	}
	assert_non_null(w);
	return w;
}

/* The stack a sleeping child has at sp, as process_vm_readv reads it. */
static size_t read_stack(pid_t pid, uint64_t sp, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)sp, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	return n > 0 ? (size_t)n : 0;
}

static void a_sleep_is_copied_as_a_stop_sees_it(void **state)
{
	(void)state;
	struct child c = start_sleeper();
	asleep(c.pid);
	struct switch_copy *w = copy_or_skip(c.pid, &c);
	static unsigned char stack[STACK_BYTES], now[STACK_BYTES];
	struct switch_copied got;
	/* disarmed: a sleep is not copied */
	wake(&c);
	assert_int_equal(switch_copy_take(w, 0, &got, stack, sizeof(stack)), TAKE_NONE);
	assert_int_equal(switch_copy_arm(w), 0);
	uint64_t before = mono_ns();
	struct blocked_syscall b = wake(&c); /* its second wake-up */
	assert_int_equal(switch_copy_take(w, before, &got, stack, sizeof(stack)), TAKE_COPY);
	assert_true(got.at_ns >= before && got.at_ns <= mono_ns());
	assert_true(got.cpu >= 0);
	assert_int_equal(got.regs.rsp, b.sp);
	assert_int_equal(got.regs.rip, b.pc);
	assert_int_equal(got.regs.r12, 2); /* this sleep's, not an older one's */
	assert_int_equal((long)got.regs.orig_rax, -1); /* unknown */
	/* its stack as it sleeps on it */
	assert_true(got.stack_len > 0 && got.stack_len <= sizeof(stack));
	assert_int_equal(read_stack(c.pid, b.sp, now, got.stack_len), got.stack_len);
	assert_memory_equal(stack, now, got.stack_len);
	/* a take consumes: the same switch is not given twice */
	struct switch_copied again;
	assert_int_equal(switch_copy_take(w, before, &again, stack, sizeof(stack)), TAKE_NONE);
	/* the registers a stop reads (its stop ends the wait: the result
	 * registers differ, not the arguments nor the saved ones) */
	struct user_regs_struct stop = stop_regs(c.pid);
	assert_int_equal(stop.rsp, got.regs.rsp);
	assert_int_equal(stop.rip, got.regs.rip);
	assert_int_equal(stop.rbx, got.regs.rbx);
	assert_int_equal(stop.rbp, got.regs.rbp);
	assert_int_equal(stop.r12, got.regs.r12);
	assert_int_equal(stop.r13, got.regs.r13);
	assert_int_equal(stop.r14, got.regs.r14);
	assert_int_equal(stop.r15, got.regs.r15);
	assert_int_equal(stop.rdi, got.regs.rdi);
	assert_int_equal(stop.rsi, got.regs.rsi);
	assert_int_equal(stop.rdx, got.regs.rdx);
	assert_int_equal(stop.r10, got.regs.r10);
	switch_copy_close(w);
	end_child(&c);
}

/* A take gives the newest switch since the time asked, none before. */
static void only_switches_since_are_taken(void **state)
{
	(void)state;
	struct child c = start_sleeper();
	asleep(c.pid);
	struct switch_copy *w = copy_or_skip(c.pid, &c);
	static unsigned char stack[STACK_BYTES];
	struct switch_copied got;
	assert_int_equal(switch_copy_arm(w), 0);
	wake(&c);
	wake(&c);
	uint64_t since = mono_ns();
	assert_int_equal(switch_copy_take(w, since, &got, stack, sizeof(stack)), TAKE_NONE);
	wake(&c);
	wake(&c); /* the newest of these two */
	assert_int_equal(switch_copy_take(w, since, &got, stack, sizeof(stack)), TAKE_COPY);
	assert_int_equal(got.regs.r12, 4);
	/* disarmed: nothing more */
	assert_int_equal(switch_copy_disarm(w), 0);
	wake(&c);
	assert_int_equal(switch_copy_take(w, 0, &got, stack, sizeof(stack)), TAKE_NONE);
	/* a short room cuts the copy */
	assert_int_equal(switch_copy_arm(w), 0);
	wake(&c);
	assert_int_equal(switch_copy_take(w, 0, &got, stack, 64), TAKE_COPY);
	assert_int_equal(got.stack_len, 64);
	switch_copy_close(w);
	end_child(&c);
}

/* Spins in user code, r12 and r13 set, until killed. */
static __attribute__((noreturn, noinline)) void spinner(void)
{
	__asm__ volatile("mov $0x5eed, %%r12\n\t"
			 "mov $0xbeef, %%r13\n\t"
			 "1: jmp 1b"
			 :
			 :
			 : "r12", "r13");
	__builtin_unreachable();
}

static void pin_to(int cpu)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
}

/* As a followed thread is sampled: we wake on its CPU, above it, and the
 * kernel copies it as it leaves the CPU to us. */
static void our_wake_up_copies_a_running_thread(void **state)
{
	(void)state;
	cpu_set_t was;
	assert_int_equal(sched_getaffinity(0, sizeof(was), &was), 0);
	int cpu = sched_getcpu();
	struct sched_param fifo = { .sched_priority = 1 }, other = { 0 };
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pin_to(cpu);
		spinner();
	}
	struct switch_copy *w = copy_or_skip(pid, NULL);
	pin_to(cpu);
	if (sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) {
		fprintf(stderr, "  (no SCHED_FIFO: %s)\n", strerror(errno));
		switch_copy_close(w);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		sched_setaffinity(0, sizeof(was), &was);
		skip();
	}
	static unsigned char stack[STACK_BYTES], now[STACK_BYTES];
	struct switch_copied got = { 0 };
	enum switch_take took = TAKE_NONE;
	uint64_t woke = 0, slept = 0;
	/* a few tries: the child must have started spinning first */
	for (int i = 0; i < 50 && !(took == TAKE_COPY && got.regs.r12 == 0x5eed); i++) {
		assert_int_equal(switch_copy_arm(w), 0);
		slept = mono_ns();
		struct timespec ms = { 0, 2000000 };
		nanosleep(&ms, NULL);
		woke = mono_ns();
		took = switch_copy_take(w, slept, &got, stack, sizeof(stack));
		assert_int_equal(switch_copy_disarm(w), 0);
	}
	sched_setscheduler(0, SCHED_OTHER, &other);
	sched_setaffinity(0, sizeof(was), &was);
	assert_int_equal(took, TAKE_COPY);
	/* at our wake-up, in its loop, no stop */
	assert_true(got.at_ns >= slept && got.at_ns <= woke);
	assert_int_equal(got.cpu, cpu);
	assert_int_equal(got.regs.r12, 0x5eed);
	assert_int_equal(got.regs.r13, 0xbeef);
	uintptr_t at = (uintptr_t)got.regs.rip, fn = (uintptr_t)&spinner;
	assert_true(at >= fn && at < fn + 64);
	assert_true(got.stack_len > 0);
	size_t n = got.stack_len < 256 ? got.stack_len : 256;
	assert_int_equal(read_stack(pid, got.regs.rsp, now, n), n);
	assert_memory_equal(stack, now, n);
	switch_copy_close(w);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void a_gone_thread_has_no_watch(void **state)
{
	(void)state;
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	int err = 0;
	assert_null(switch_copy_open(gone, STACK_BYTES, &err));
	/* (without permission for perf events, that is said first) */
	assert_true(err == ESRCH || err == EACCES || err == EPERM);
	switch_copy_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_sleep_is_copied_as_a_stop_sees_it),
		cmocka_unit_test(only_switches_since_are_taken),
		cmocka_unit_test(our_wake_up_copies_a_running_thread),
		cmocka_unit_test(a_gone_thread_has_no_watch),
	};
	return cmocka_run_group_tests_name("switch_copy", tests, NULL, NULL);
}
