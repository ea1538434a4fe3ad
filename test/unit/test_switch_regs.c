/* Unit tests: a sleeping thread's registers, from its last switch off a
 * CPU (switch_regs.h) - the very set a stop reads; none when the thread
 * has not slept since the watch began, or slept elsewhere; none after
 * the ring filled; no watch without room.  A child sleeps in epoll_wait
 * with a count of its wake-ups in r12, woken by us through a pipe.
 * Without permission for perf events (not root, perf_event_paranoid
 * above 1) the live tests skip. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "tracee/procfs.h"
#include "tracee/switch_regs.h"
#include "sleeper_child.h"

static struct switch_regs *watches(void)
{
	struct switch_regs *sr = switch_regs_new(4);
	assert_non_null(sr);
	return sr;
}

/* A watch, or a skip when perf events are not ours to open. */
static struct switch_watch *watch_or_skip(struct switch_regs *sr, struct child *c)
{
	struct switch_watch *w = switch_regs_watch(sr, c->pid);
	if (!w && switch_regs_stats(sr).refused_errno) {
		fprintf(stderr, "  (no perf events: %s)\n", strerror(switch_regs_stats(sr).refused_errno));
		end_child(c);
		switch_regs_free(sr);
		skip();
	}
	assert_non_null(w);
	return w;
}

static void the_registers_it_slept_with_are_a_stops(void **state)
{
	(void)state;
	struct child c = start_sleeper();
	struct blocked_syscall b = asleep(c.pid);
	struct switch_regs *sr = watches();
	struct switch_watch *w = watch_or_skip(sr, &c);
	struct user_regs_struct got;
	memset(&got, 0, sizeof(got));
	/* asleep since before the watch: no record of that sleep */
	assert_false(switch_regs_last(sr, w, b.sp, b.pc, &got));
	for (long n = 1; n <= 3; n++) {
		b = wake(&c);
		memset(&got, 0, sizeof(got));
		assert_true(switch_regs_last(sr, w, b.sp, b.pc, &got));
		assert_int_equal(got.r12, n); /* this sleep's, not an older one's */
		/* elsewhere: not this sleep */
		assert_false(switch_regs_last(sr, w, b.sp + 8, b.pc, &got));
		assert_false(switch_regs_last(sr, w, b.sp, b.pc + 1, &got));
	}
	struct user_regs_struct stop = stop_regs(c.pid);
	assert_true(switch_regs_last(sr, w, b.sp, b.pc, &got)); /* the stop's own switch */
	assert_int_equal(stop.rsp, b.sp);
	assert_int_equal(stop.rip, b.pc);
	assert_int_equal(got.rbx, stop.rbx);
	assert_int_equal(got.rbp, stop.rbp);
	assert_int_equal(got.r12, stop.r12);
	assert_int_equal(got.r13, stop.r13);
	assert_int_equal(got.r14, stop.r14);
	assert_int_equal(got.r15, stop.r15);
	assert_int_equal(switch_regs_stats(sr).watching, 1);
	switch_regs_unwatch(sr, w);
	assert_int_equal(switch_regs_stats(sr).watching, 0);
	assert_int_equal(switch_regs_stats(sr).most, 1);
	switch_regs_free(sr);
	end_child(&c);
}

/* More switches than the ring holds between two reads: the newest may be
 * the one dropped, so none is trusted until the next sleep is seen. */
static void a_full_ring_is_not_trusted(void **state)
{
	(void)state;
	struct child c = start_sleeper();
	asleep(c.pid);
	struct switch_regs *sr = watches();
	struct switch_watch *w = watch_or_skip(sr, &c);
	struct user_regs_struct got;
	struct blocked_syscall b = { 0 };
	for (int i = 0; i < 600; i++) /* about 186 fit */
		b = wake(&c);
	assert_false(switch_regs_last(sr, w, b.sp, b.pc, &got));
	assert_true(switch_regs_stats(sr).lost >= 1);
	b = wake(&c); /* the loss is written, then this sleep */
	assert_true(switch_regs_last(sr, w, b.sp, b.pc, &got));
	assert_int_equal(got.r12, 601);
	switch_regs_unwatch(sr, w);
	switch_regs_free(sr);
	end_child(&c);
}

/* Its record moves at each switch onto a CPU and off it, and stands
 * still while it sleeps: a mark proves it has not run. */
static void its_record_stands_still_while_it_sleeps(void **state)
{
	(void)state;
	struct child c = start_sleeper();
	asleep(c.pid);
	struct switch_regs *sr = watches();
	assert_true(switch_regs_room(sr, 2)); /* 0 of 4 open: under half */
	struct switch_watch *w = watch_or_skip(sr, &c);
	uint64_t mark = switch_regs_mark(sr, w);
	usleep(20000);
	assert_true(switch_regs_unmoved(w, mark));
	wake(&c);
	assert_false(switch_regs_unmoved(w, mark));
	mark = switch_regs_mark(sr, w);
	assert_true(switch_regs_unmoved(w, mark));
	/* a signal runs it (to stop): its record moves */
	assert_int_equal(kill(c.pid, SIGSTOP), 0);
	assert_int_equal(kill(c.pid, SIGCONT), 0);
	usleep(20000);
	assert_false(switch_regs_unmoved(w, mark));
	/* no watch: nothing is proven */
	assert_int_equal(switch_regs_mark(sr, NULL), 0);
	assert_false(switch_regs_unmoved(NULL, 0));
	struct switch_watch *w2 = switch_regs_watch(sr, c.pid);
	assert_non_null(w2);
	assert_false(switch_regs_room(sr, 2)); /* 2 of 4: half taken */
	assert_true(switch_regs_room(sr, 1));
	switch_regs_unwatch(sr, w2);
	switch_regs_unwatch(sr, w);
	switch_regs_free(sr);
	end_child(&c);
}

static void no_room_no_watch(void **state)
{
	(void)state;
	struct switch_regs *sr = switch_regs_new(0);
	assert_null(switch_regs_watch(sr, getpid()));
	assert_int_equal(switch_regs_stats(sr).no_room, 1);
	assert_int_equal(switch_regs_stats(sr).refused_errno, 0);
	/* a thread that is gone: no watch, and no refusal of the others */
	struct switch_regs *sr2 = switch_regs_new(4);
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	assert_null(switch_regs_watch(sr2, gone));
	assert_int_equal(switch_regs_stats(sr2).refused_errno, 0);
	assert_false(switch_regs_last(sr2, NULL, 0, 0, NULL));
	switch_regs_unwatch(sr2, NULL);
	switch_regs_free(sr);
	switch_regs_free(sr2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_registers_it_slept_with_are_a_stops),
		cmocka_unit_test(a_full_ring_is_not_trusted),
		cmocka_unit_test(its_record_stands_still_while_it_sleeps),
		cmocka_unit_test(no_room_no_watch),
	};
	return cmocka_run_group_tests_name("switch_regs", tests, NULL, NULL);
}
