/* Unit tests: what a stop's registers say about a system call; a
 * blocked thread's stack copied ahead of knowing its sp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "tracee/snapshot.h"

/* A thread stopped by PTRACE_INTERRUPT while blocked in read(3, buf, 1):
 * the kernel aborted the call with -ERESTARTSYS, pc is after `syscall`. */
static struct user_regs_struct in_read(void)
{
	struct user_regs_struct r;
	memset(&r, 0, sizeof(r));
	r.orig_rax = SYS_read;
	r.rax = (unsigned long long)-512;
	r.rdi = 3;
	r.rsi = 0x7ffc0000;
	r.rdx = 1;
	r.rsp = 0x7ffcfff0;
	r.rip = 0x401002;
	return r;
}

static void syscall_from_regs(void **state)
{
	(void)state;
	struct user_regs_struct r = in_read();
	struct blocked_syscall w;
	assert_int_equal(snapshot_syscall(&r, &w), 0);
	assert_int_equal(w.nr, SYS_read);
	assert_int_equal(w.args[0], 3);
	assert_int_equal(w.args[1], 0x7ffc0000);
	assert_int_equal(w.args[2], 1);
	assert_int_equal(w.sp, 0x7ffcfff0);
	assert_int_equal(w.pc, 0x401002);
	r.orig_rax = (unsigned long long)-1; /* stopped in user code */
	assert_int_equal(snapshot_syscall(&r, &w), -1);
}

static void restarting_codes(void **state)
{
	(void)state;
	struct user_regs_struct r = in_read();
	long codes[] = { -512, -513, -514, -516 }; /* ERESTARTSYS..RESTARTBLOCK */
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		r.rax = (unsigned long long)codes[i];
		assert_true(snapshot_restarting(&r));
	}
	long not_restart[] = { 0, 1, -4 /* EINTR: the caller sees it */, -11, -515, -517 };
	for (size_t i = 0; i < sizeof(not_restart) / sizeof(not_restart[0]); i++) {
		r.rax = (unsigned long long)not_restart[i];
		assert_false(snapshot_restarting(&r));
	}
	r = in_read();
	r.orig_rax = (unsigned long long)-1; /* not in a call: rax is user data */
	assert_false(snapshot_restarting(&r));
}

static void restart_pending_only_before_the_instruction(void **state)
{
	(void)state;
	struct user_regs_struct r = in_read();
	struct blocked_syscall w;
	assert_int_equal(snapshot_syscall(&r, &w), 0);

	/* reloaded for the restart: pc back on `syscall`, rax = the number */
	struct user_regs_struct again = r;
	again.rip = w.pc - 2;
	again.rax = SYS_read;
	assert_true(snapshot_restart_pending(&again, &w));
	/* nanosleep's restart goes through restart_syscall */
	again.rax = SYS_restart_syscall;
	assert_true(snapshot_restart_pending(&again, &w));
	/* back in user mode, an interrupt just before the instruction */
	again.rax = SYS_read;
	again.orig_rax = (unsigned long long)-1;
	assert_true(snapshot_restart_pending(&again, &w));
	again.orig_rax = SYS_read;

	/* back in the same call, and this stop aborted it again */
	struct user_regs_struct twice = r;
	assert_true(snapshot_restart_pending(&twice, &w));
	twice.rax = 0; /* the call completed: it moved on */
	assert_false(snapshot_restart_pending(&twice, &w));

	/* read() returned 0 (EOF): rax equals the number too, pc is past */
	struct user_regs_struct done = r;
	done.rax = 0;
	assert_false(snapshot_restart_pending(&done, &w));
	/* elsewhere: another call at the same place, other arguments, another
	 * frame, another instruction */
	struct user_regs_struct other = again;
	other.orig_rax = SYS_write;
	other.rax = SYS_write;
	assert_false(snapshot_restart_pending(&other, &w));
	other = again;
	other.rip = w.pc + 0x40;
	assert_false(snapshot_restart_pending(&other, &w));
	other = again;
	other.rax = (unsigned long long)-512; /* still aborted, not reloaded */
	assert_false(snapshot_restart_pending(&other, &w));
	other = again;
	other.rdx = 2;
	assert_false(snapshot_restart_pending(&other, &w));
	other = again;
	other.rsp -= 64;
	assert_false(snapshot_restart_pending(&other, &w));
	other = again;
	other.orig_rax = (unsigned long long)-1;
	other.rip = w.pc; /* user code right after the call */
	assert_false(snapshot_restart_pending(&other, &w));
}

/* A "stack" of ours, copied ahead from below where it slept (with a
 * word, in the same read), then cut at the sp it sleeps at: what
 * snapshot_peek would have copied.  An sp below the copy is refused. */
static void copy_ahead_then_cut(void **state)
{
	(void)state;
	enum { LEN = 8192 };
	uint8_t *stack = malloc(LEN);
	assert_non_null(stack);
	for (int i = 0; i < LEN; i++)
		stack[i] = (uint8_t)(i * 7);
	static uint32_t word = 0x0a000001;
	struct snapshot *sn = calloc(1, sizeof(*sn));
	assert_non_null(sn);
	uint64_t base = (uint64_t)(uintptr_t)stack, top = base + LEN;
	sn->n_words = 1;
	sn->word_addr[0] = (uint64_t)(uintptr_t)&word;
	assert_int_equal(snapshot_copy_ahead(getpid(), base + 1024, top, sn), 0);
	assert_true(sn->words_ok);
	assert_int_equal(sn->word[0], 0x0a000001);
	struct blocked_syscall w = { .nr = SYS_read, .sp = base + 4096, .pc = 0x401002 };
	assert_int_equal(snapshot_peek_ahead(&w, sn), 0);
	assert_int_equal(sn->stack_start, base + 4096 - SNAPSHOT_RED_ZONE);
	assert_int_equal(sn->stack_len, LEN - 4096 + SNAPSHOT_RED_ZONE);
	assert_memory_equal(sn->stack, stack + 4096 - SNAPSHOT_RED_ZONE, sn->stack_len);
	assert_true(sn->partial_regs);
	assert_int_equal(sn->regs.rsp, w.sp);
	assert_int_equal(sn->regs.rip, w.pc);
	/* deeper than the copy: copied again by the caller */
	assert_int_equal(snapshot_copy_ahead(getpid(), base + 4096, top, sn), 0);
	w.sp = base + 2048;
	assert_int_equal(snapshot_peek_ahead(&w, sn), -1);
	/* ended short of the top, then the rest appended */
	assert_int_equal(snapshot_copy_ahead(getpid(), base + 1024, base + 4096, sn), 0);
	assert_int_equal(sn->stack_len, 3072);
	assert_int_equal(snapshot_extend(getpid(), top, sn), 0);
	assert_int_equal(sn->stack_start, base + 1024);
	assert_int_equal(sn->stack_len, LEN - 1024);
	assert_memory_equal(sn->stack, stack + 1024, sn->stack_len);
	assert_int_equal(snapshot_extend(getpid(), top, sn), -1); /* nothing left */
	/* above the top, or a region too big: nothing copied */
	assert_int_equal(snapshot_copy_ahead(getpid(), top, top, sn), -1);
	assert_int_equal(snapshot_copy_ahead(getpid(), 0, SNAPSHOT_STACK_MAX + 1, sn), -1);
	free(sn);
	free(stack);
}

/* The same word's place in another process (a fork: the same addresses,
 * as an instance's shared memory is in each of its processes) holds that
 * process's value: the words say whose they are. */
static void words_know_whose(void **state)
{
	(void)state;
	static volatile uint32_t word = 1;
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		word = 2;
		char c = 0;
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	struct snapshot *sn = calloc(1, sizeof(*sn));
	assert_non_null(sn);
	sn->n_words = 1;
	sn->word_addr[0] = (uint64_t)(uintptr_t)&word;
	assert_true(snapshot_words_through(sn, getpid())); /* none read: none foreign */
	assert_int_equal(snapshot_read_words(child, sn), 0);
	assert_int_equal(sn->word[0], 2);
	assert_true(snapshot_words_through(sn, child));
	assert_false(snapshot_words_through(sn, getpid()));
	assert_int_equal(snapshot_read_words(getpid(), sn), 0);
	assert_int_equal(sn->word[0], 1);
	assert_true(snapshot_words_through(sn, getpid()));
	assert_false(snapshot_words_through(sn, child));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	free(sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(syscall_from_regs),
		cmocka_unit_test(restarting_codes),
		cmocka_unit_test(restart_pending_only_before_the_instruction),
		cmocka_unit_test(copy_ahead_then_cut),
		cmocka_unit_test(words_know_whose),
	};
	return cmocka_run_group_tests_name("snapshot", tests, NULL, NULL);
}
