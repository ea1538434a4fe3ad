/* Unit tests: a system call as a kernel frame (name/syscall.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "base/frame.h"
#include "name/syscall.h"

/* The table is the build's own <asm/unistd_64.h>: glibc's numbers agree. */
static void names_by_number(void **state)
{
	(void)state;
	assert_string_equal(syscall_name(SYS_read), "read");
	assert_string_equal(syscall_name(SYS_pread64), "pread64");
	assert_string_equal(syscall_name(SYS_futex), "futex");
	assert_string_equal(syscall_name(SYS_epoll_wait), "epoll_wait");
	assert_null(syscall_name(-1));
	assert_null(syscall_name(100000));
}

static int pack(const char *const *frames, int n, char *out)
{
	return frames_pack(frames, n, out, 512);
}

static const char *joined(const char *packed, int n)
{
	static char buf[512];
	const char *list[16];
	int k = frames_unpack(packed, n, list, 16);
	buf[0] = '\0';
	for (int i = 0; i < k; i++) {
		strcat(buf, i ? ";" : "");
		strcat(buf, list[i]);
	}
	return buf;
}

/* Preempted on its way out of pread64: the call in place of the way out. */
static void the_way_out_becomes_the_call(void **state)
{
	(void)state;
	const char *in[] = { "entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]",
			     "exit_to_user_mode_loop_[k]" };
	char packed[512], out[512];
	int n = pack(in, 3, packed);
	int k = syscall_frames_at_call(packed, n, SYS_pread64, out, sizeof(out));
	assert_int_equal(k, 3);
	assert_string_equal(joined(out, k),
			    "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];"
			    "__x64_sys_pread64_[k]");
	/* nothing after the entry: the call added */
	n = pack(in, 2, packed);
	k = syscall_frames_at_call(packed, n, SYS_sendto, out, sizeof(out));
	assert_string_equal(joined(out, k),
			    "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_sendto_[k]");
	/* a number the table does not know */
	n = pack(in, 3, packed);
	k = syscall_frames_at_call(packed, n, 9999, out, sizeof(out));
	assert_string_equal(joined(out, k),
			    "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];syscall_9999_[k]");
}

/* A blocking call woken before it slept, preempted at its sleep (a
 * kernel that does not preempt calls): the wait's frames are of a moment
 * after the tick; the call is what it was doing at it.  So is a long
 * call preempted at a cond_resched() deep inside. */
static void a_later_point_in_the_call_becomes_the_call(void **state)
{
	(void)state;
	const char *woken[] = { "entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]",
				"__x64_sys_epoll_wait_[k]", "do_epoll_wait_[k]" };
	char packed[512], out[512];
	int n = pack(woken, 4, packed);
	int k = syscall_frames_at_call(packed, n, SYS_epoll_wait, out, sizeof(out));
	assert_int_equal(k, 3);
	assert_string_equal(joined(out, k), "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];"
			    "__x64_sys_epoll_wait_[k]");
	const char *write[] = { "entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]",
				"ksys_write_[k]", "vfs_write_[k]", "generic_perform_write_[k]" };
	n = pack(write, 5, packed);
	k = syscall_frames_at_call(packed, n, SYS_write, out, sizeof(out));
	assert_string_equal(joined(out, k), "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];"
			    "__x64_sys_write_[k]");
}

/* Preempted by the tick's interrupt inside the call (a kernel that
 * preempts calls): where it was, kept; so is a stack that is no system
 * call's. */
static void frames_at_the_tick_are_kept(void **state)
{
	(void)state;
	const char *inside[] = { "entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]",
				 "__x64_sys_pread64_[k]", "ksys_pread64_[k]", "vfs_read_[k]",
				 "filemap_read_[k]", "asm_sysvec_apic_timer_interrupt_[k]",
				 "irqentry_exit_[k]" };
	char packed[512], out[512];
	int n = pack(inside, 8, packed);
	int k = syscall_frames_at_call(packed, n, SYS_pread64, out, sizeof(out));
	assert_int_equal(k, 8);
	assert_string_equal(joined(out, k), joined(packed, n));
	const char *fault[] = { "asm_exc_page_fault_[k]", "exc_page_fault_[k]" };
	n = pack(fault, 2, packed);
	k = syscall_frames_at_call(packed, n, SYS_pread64, out, sizeof(out));
	assert_string_equal(joined(out, k), "asm_exc_page_fault_[k];exc_page_fault_[k]");
	/* too small a buffer: none, as frames_pack */
	const char *way[] = { "entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]",
			      "exit_to_user_mode_loop_[k]" };
	n = pack(way, 3, packed);
	assert_int_equal(syscall_frames_at_call(packed, n, SYS_pread64, out, 20), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_by_number),
		cmocka_unit_test(the_way_out_becomes_the_call),
		cmocka_unit_test(a_later_point_in_the_call_becomes_the_call),
		cmocka_unit_test(frames_at_the_tick_are_kept),
	};
	return cmocka_run_group_tests_name("syscall", tests, NULL, NULL);
}
