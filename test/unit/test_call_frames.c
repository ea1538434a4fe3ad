/* Unit tests: a held thread's kernel frames learnt from its stops
 * (call_frames.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/frame.h"
#include "sample/call_frames.h"

#define NR_PREAD64 17
#define NR_WRITE 1

/* As count_kernel_frames packs them, outermost first. */
static int packed(char *out, const char *const *list, int n)
{
	memset(out, 0, MEMORY_KERNEL_BYTES);
	return frames_pack(list, n, out, MEMORY_KERNEL_BYTES);
}

/* A call's way out on a kernel that does not preempt calls. */
static const char *const WAY_OUT[] = {
	"entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]",
	"syscall_exit_to_user_mode_[k]", "exit_to_user_mode_loop_[k]", "schedule_[k]",
	"__schedule_[k]",
};
/* One preempted inside the call, where the tick came. */
static const char *const IN_THE_CALL[] = {
	"entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]", "ksys_pread64_[k]",
	"filemap_read_[k]", "asm_sysvec_apic_timer_interrupt_[k]", "irqentry_exit_[k]",
	"preempt_schedule_irq_[k]",
};
static const char *const PAGE_FAULT[] = {
	"asm_exc_page_fault_[k]", "exc_page_fault_[k]", "irqentry_exit_to_user_mode_[k]",
	"schedule_[k]",
};

static void learn_times(struct call_frames *cf, int times, const char *const *list, int n,
			bool in_call, long nr)
{
	char k[MEMORY_KERNEL_BYTES];
	int m = packed(k, list, n);
	for (int i = 0; i < times; i++)
		call_frames_learn(cf, k, m, in_call, nr);
}

/* Known after CALL_FRAMES_TRUSTED stops that read the shape, a call among
 * them; given as the first call's frames, none out of a call. */
static void known_after_the_shape_is_seen(void **state)
{
	(void)state;
	struct call_frames cf;
	memset(&cf, 0, sizeof(cf));
	learn_times(&cf, CALL_FRAMES_TRUSTED, NULL, 0, false, -1); /* user code */
	assert_false(call_frames_known(&cf)); /* no call seen yet */
	learn_times(&cf, 1, WAY_OUT, 6, true, NR_PREAD64);
	assert_true(call_frames_known(&cf));
	/* another call, the same way out */
	learn_times(&cf, 1, WAY_OUT, 6, true, NR_WRITE);
	assert_true(call_frames_known(&cf));
	char out[MEMORY_KERNEL_BYTES];
	assert_int_equal(call_frames_give(&cf, false, out), 0);
	int n = call_frames_give(&cf, true, out);
	char want[MEMORY_KERNEL_BYTES];
	assert_int_equal(n, packed(want, WAY_OUT, 6));
	assert_memory_equal(out, want, frames_packed_len(want, n));
}

/* A kernel that preempts calls shows where in the call: never known. */
static void broken_by_a_call_preempted_inside(void **state)
{
	(void)state;
	struct call_frames cf;
	memset(&cf, 0, sizeof(cf));
	learn_times(&cf, 20, WAY_OUT, 6, true, NR_PREAD64);
	assert_true(call_frames_known(&cf));
	learn_times(&cf, 1, IN_THE_CALL, 7, true, NR_PREAD64);
	assert_false(call_frames_known(&cf));
	learn_times(&cf, 100, WAY_OUT, 6, true, NR_PREAD64);
	assert_false(call_frames_known(&cf)); /* for the run */
}

/* A call whose look read no frames: the thread ran between its look and
 * its trap (another CPU took it meanwhile) - nothing of the shape. */
static void a_thread_that_ran_since_tells_nothing(void **state)
{
	(void)state;
	struct call_frames cf;
	memset(&cf, 0, sizeof(cf));
	learn_times(&cf, 1, NULL, 0, true, NR_PREAD64);
	assert_int_equal(cf.matched, 0);
	assert_int_equal(cf.n_call, 0);
	learn_times(&cf, 20, WAY_OUT, 6, true, NR_PREAD64);
	learn_times(&cf, 3, NULL, 0, true, NR_WRITE);
	assert_true(call_frames_known(&cf));
	assert_int_equal(cf.matched, 20);
}

/* Out of a call with frames (a page fault's way out): tolerated while
 * rare, one in CALL_FRAMES_OTHERS. */
static void page_faults_tolerated_while_rare(void **state)
{
	(void)state;
	struct call_frames cf;
	memset(&cf, 0, sizeof(cf));
	learn_times(&cf, CALL_FRAMES_OTHERS - 1, WAY_OUT, 6, true, NR_PREAD64);
	learn_times(&cf, 1, NULL, 0, false, -1);
	learn_times(&cf, 1, PAGE_FAULT, 4, false, -1);
	assert_true(call_frames_known(&cf));
	learn_times(&cf, 1, PAGE_FAULT, 4, false, -1);
	assert_false(call_frames_known(&cf));
	learn_times(&cf, CALL_FRAMES_OTHERS, NULL, 0, false, -1);
	assert_true(call_frames_known(&cf)); /* rare again */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_after_the_shape_is_seen),
		cmocka_unit_test(broken_by_a_call_preempted_inside),
		cmocka_unit_test(page_faults_tolerated_while_rare),
		cmocka_unit_test(a_thread_that_ran_since_tells_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
