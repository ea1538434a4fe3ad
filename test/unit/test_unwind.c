/* Unit tests: unwinding copies of stacks, with this very process's
 * modules - a real stack must reach main, through a signal handler too,
 * and garbage must end quickly. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <cmocka.h>

#include "unwind/files.h"
#include "unwind/modules.h"
#include "tracee/snapshot.h"
#include "name/symbolize.h"
#include "unwind/unwind.h"

/* The run's files and namers, fresh for each test (setup, teardown). */
#include "naming_fixture.h"

static struct snapshot snap; /* large: not on the stack */

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(void)
{
	return (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^ (uint64_t)random();
}

static void garbage_stacks_end_quickly(void **state)
{
	(void)state;
	struct modules *m = modules_open(files, getpid());
	assert_non_null(m);
	struct unwinder *u = unwinder_new(m);
	assert_non_null(u);
	srandom(42);
	uint64_t code = (uint64_t)(uintptr_t)&garbage_stacks_end_quickly;
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	uint64_t slowest = 0;
	for (int round = 0; round < 2000; round++) {
		memset(&snap.regs, 0, sizeof(snap.regs));
		snap.stack_start = 0x7ff000000000ULL;
		snap.stack_len = 4096 + (size_t)(rnd() % 60000);
		for (size_t i = 0; i < snap.stack_len; i += 8) {
			uint64_t w = rnd();
			/* Some words look like code addresses and stack addresses,
			 * the most misleading garbage there is. */
			if (w % 3 == 0)
				w = code + w % 4096;
			else if (w % 3 == 1)
				w = snap.stack_start + w % snap.stack_len;
			memcpy(snap.stack + i, &w, 8);
		}
		snap.regs.rip = round % 2 ? code + rnd() % 256 : rnd();
		snap.regs.rsp = snap.stack_start + rnd() % snap.stack_len;
		snap.regs.rbp = snap.stack_start + rnd() % snap.stack_len;
		int complete;
		uint64_t t0 = now();
		int n = unwind_snapshot(u, &snap, frames, UNWIND_MAX_FRAMES, &complete);
		uint64_t took = now() - t0;
		if (took > slowest)
			slowest = took;
		assert_in_range(n, 1, UNWIND_MAX_FRAMES);
	}
	/* Generous: a real unwind takes microseconds; a runaway one would
	 * take far longer than this. */
	assert_true(slowest < 200000000ULL);
	unwinder_free(u);
	modules_close(m);
}

/* This thread's registers at the call and a copy of its stack, as the
 * sampler would take them from a stopped thread. */
__attribute__((noinline, noclone)) static void capture(struct snapshot *sn)
{
	ucontext_t uc;
	getcontext(&uc);
	const greg_t *g = uc.uc_mcontext.gregs;
	memset(&sn->regs, 0, sizeof(sn->regs));
	sn->regs.rip = (uint64_t)g[REG_RIP];
	sn->regs.rsp = (uint64_t)g[REG_RSP];
	sn->regs.rbp = (uint64_t)g[REG_RBP];
	sn->regs.rbx = (uint64_t)g[REG_RBX];
	sn->regs.r12 = (uint64_t)g[REG_R12];
	sn->regs.r13 = (uint64_t)g[REG_R13];
	sn->regs.r14 = (uint64_t)g[REG_R14];
	sn->regs.r15 = (uint64_t)g[REG_R15];
	/* The copy runs from sp to the top of the mapping holding it. */
	uint64_t sp = sn->regs.rsp, top = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char line[512];
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && sp >= lo && sp < hi)
			top = hi;
	if (f)
		fclose(f);
	sn->stack_start = sp;
	sn->stack_len = top - sp < SNAPSHOT_STACK_MAX ? top - sp : SNAPSHOT_STACK_MAX;
	/* Copied as the sampler copies a target's: by the kernel, which does
	 * not mind AddressSanitizer's poisoned red zones between frames. */
	struct iovec local = { sn->stack, sn->stack_len };
	struct iovec remote = { (void *)(uintptr_t)sp, sn->stack_len };
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)sn->stack_len)
		sn->stack_len = 0;
}

/* The unwound stack of snap, named, root first, joined with ';'. */
static const char *unwound(struct snapshot *sn, int *complete)
{
	static char text[8192];
	struct modules *m = modules_open(files, getpid());
	struct unwinder *u = unwinder_new(m);
	struct symbolize_options o = { .inline_frames = false };
	struct symbolizer *s = symbolizer_new(namer_with(&o), m);
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	int n = unwind_snapshot(u, sn, frames, UNWIND_MAX_FRAMES, complete);
	text[0] = '\0';
	for (int i = n - 1; i >= 0; i--) {
		const char *const *names;
		size_t k = symbolize(s, frames[i].ip, frames[i].kind, &names);
		for (size_t j = 0; j < k; j++) {
			strncat(text, names[j], sizeof(text) - strlen(text) - 2);
			strcat(text, ";");
		}
	}
	symbolizer_free(s);
	unwinder_free(u);
	modules_close(m);
	return text;
}

__attribute__((noinline)) static void level_two(void)
{
	capture(&snap);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void level_one(void)
{
	level_two();
	__asm__ volatile("" ::: "memory");
}

/* A process that ended keeps what names its addresses: its modules and
 * its anonymous mappings' names, after the maps' text is let go. */
static void an_ended_process_keeps_its_names(void **state)
{
	(void)state;
	/* executable memory of no file, as a JIT's, named as a JIT may name
	 * it (where the kernel lets it: else "[anon]") */
	void *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)jit, 4096UL, "pp_test_jit");
	uint64_t in_jit = (uint64_t)(uintptr_t)jit + 16;
	struct modules *m = modules_open(files, getpid());
	assert_non_null(m);
	const struct module_image *code = modules_at(m, (uint64_t)(uintptr_t)&level_one);
	assert_non_null(code);
	const char *anon = modules_anon_name(m, in_jit);
	assert_non_null(anon);
	char was[64];
	snprintf(was, sizeof(was), "%s", anon);
	modules_ended(m);
	assert_ptr_equal(modules_at(m, (uint64_t)(uintptr_t)&level_one), code);
	assert_string_equal(modules_anon_name(m, in_jit), was);
	modules_close(m);
	munmap(jit, 4096);
}

static void own_stack_reaches_main(void **state)
{
	(void)state;
	level_one();
	int complete;
	const char *stack = unwound(&snap, &complete);
	if (!strstr(stack, "main;") || !strstr(stack, ";level_one;level_two;capture;") ||
	    strstr(stack, "[truncated]"))
		fail_msg("stack: %s", stack);
	assert_true(complete);
}

/* How far up its copy an unwind read, and a copy cut below that: the
 * unwind says it asked past the copy's end (a peek then reads the rest),
 * and one cut just above it reads the same frames and nothing past. */
static void a_copy_cut_short_says_so(void **state)
{
	(void)state;
	level_one();
	struct modules *m = modules_open(files, getpid());
	struct unwinder *u = unwinder_new(m);
	struct unwound_frame whole[UNWIND_MAX_FRAMES], frames[UNWIND_MAX_FRAMES];
	int complete;
	int n = unwind_snapshot(u, &snap, whole, UNWIND_MAX_FRAMES, &complete);
	assert_true(complete);
	assert_int_not_equal(whole[n - 1].kind, FRAME_TRUNCATED);
	assert_false(unwind_read_past_copy(u));
	uint64_t top = unwind_read_top(u), end = snap.stack_start + snap.stack_len;
	assert_true(top > snap.regs.rsp && top <= end);
	size_t len = snap.stack_len;
	snap.stack_len = (size_t)(top - snap.stack_start); /* just what it read */
	assert_int_equal(unwind_snapshot(u, &snap, frames, UNWIND_MAX_FRAMES, &complete), n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(frames[i].ip, whole[i].ip);
		assert_int_equal(frames[i].kind, whole[i].kind);
	}
	assert_false(unwind_read_past_copy(u));
	snap.stack_len -= 64; /* the outermost frames' words left out */
	n = unwind_snapshot(u, &snap, frames, UNWIND_MAX_FRAMES, &complete);
	assert_true(unwind_read_past_copy(u));
	assert_true(!complete || frames[n - 1].kind == FRAME_TRUNCATED);
	snap.stack_len = len;
	unwinder_free(u);
	modules_close(m);
}

static void on_signal(int sig)
{
	(void)sig;
	capture(&snap);
	__asm__ volatile("" ::: "memory"); /* a call, not a tail jump */
}

__attribute__((noinline)) static void raise_here(void)
{
	raise(SIGUSR1);
	__asm__ volatile("" ::: "memory");
}

static void through_a_signal_handler(void **state)
{
	(void)state;
	struct sigaction sa = { .sa_handler = on_signal }, old;
	sigaction(SIGUSR1, &sa, &old);
	raise_here();
	sigaction(SIGUSR1, &old, NULL);
	int complete;
	const char *stack = unwound(&snap, &complete);
	/* main ... raise_here, raise's insides in libc, the trampoline, the
	 * handler: the interrupted code and its callers are not lost. */
	const char *sig = strstr(stack, ";[signal];on_signal;capture;");
	const char *raiser = strstr(stack, ";raise_here;");
	if (!strstr(stack, "main;") || !sig || !raiser || raiser > sig || strstr(stack, "[truncated]"))
		fail_msg("stack: %s", stack);
	assert_true(complete);
}

/* A blocked thread is unwound from its sp and pc alone (its /proc
 * syscall file gives no other register).  The result must be the full
 * unwind's, or a failure - never another stack. */
static void sp_and_pc_only(struct snapshot *sn, char *full, size_t len, int *full_complete,
			   const char **partial, int *partial_complete)
{
	snprintf(full, len, "%s", unwound(sn, full_complete));
	struct user_regs_struct all = sn->regs;
	memset(&sn->regs, 0x5a, sizeof(sn->regs)); /* no other register may be used */
	sn->regs.rsp = all.rsp;
	sn->regs.rip = all.rip;
	sn->partial_regs = true;
	*partial = unwound(sn, partial_complete);
	sn->partial_regs = false;
	sn->regs = all;
}

static void partial_registers_never_mislead(void **state)
{
	(void)state;
	static char full[8192];
	const char *partial;
	int full_complete, partial_complete;
	level_one();
	sp_and_pc_only(&snap, full, sizeof(full), &full_complete, &partial, &partial_complete);
	assert_true(full_complete);
	if (partial_complete && strcmp(partial, full) != 0)
		fail_msg("sp+pc: %s\nfull:  %s", partial, full);
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void fp_level_two(void)
{
	capture(&snap);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void fp_level_one(void)
{
	fp_level_two();
	__asm__ volatile("" ::: "memory");
}

/* A function that keeps a frame pointer finds its frame through rbp.  Here
 * the unwind starts in fp_level_two itself (at the return address of its
 * call to capture, with the sp it has there), where rbp was saved by no
 * frame further in: from sp and pc alone it must stop, not guess. */
static void frame_pointer_chain_needs_rbp(void **state)
{
	(void)state;
	static char full[8192];
	const char *partial;
	int full_complete, partial_complete;
	fp_level_one();
	sp_and_pc_only(&snap, full, sizeof(full), &full_complete, &partial, &partial_complete);
	if (!full_complete || !strstr(full, ";fp_level_one;fp_level_two;capture;"))
		fail_msg("full unwind: %s", full);
	if (partial_complete && strcmp(partial, full) != 0)
		fail_msg("sp+pc: %s\nfull:  %s", partial, full);

	/* The return addresses into fp_level_two and fp_level_one, and their
	 * stack slots. */
	struct modules *m = modules_open(files, getpid());
	struct unwinder *u = unwinder_new(m);
	struct unwound_frame frames[UNWIND_MAX_FRAMES];
	int complete;
	int n = unwind_snapshot(u, &snap, frames, UNWIND_MAX_FRAMES, &complete);
	assert_true(n >= 3);
	uint64_t ret = frames[1].ip, slot = 0, slot_up = 0;
	for (size_t off = 0; off + 8 <= snap.stack_len && !slot_up; off += 8) {
		uint64_t w;
		memcpy(&w, snap.stack + off, 8);
		if (w == ret && !slot)
			slot = snap.stack_start + off;
		else if (w == frames[2].ip && slot)
			slot_up = snap.stack_start + off;
	}
	assert_true(slot != 0 && slot_up != 0);
	struct user_regs_struct all = snap.regs;
	memset(&snap.regs, 0, sizeof(snap.regs));
	snap.regs.rip = ret;
	snap.regs.rsp = slot + 8;
	/* Its true frame pointer is there too (pushed below the return
	 * address into fp_level_one): an unwinder that used it would get the
	 * whole stack right this time, and a wrong one the next. */
	snap.regs.rbp = slot_up - 8;
	snap.partial_regs = true;
	n = unwind_snapshot(u, &snap, frames, UNWIND_MAX_FRAMES, &complete);
	snap.partial_regs = false;
	snap.regs = all;
	unwinder_free(u);
	modules_close(m);
	if (complete)
		fail_msg("unwound %d frames from fp_level_two without its rbp", n);
	/* only the frame we started in, and the mark of a cut stack */
	assert_int_equal(n, 2);
	assert_int_equal(frames[1].kind, FRAME_TRUNCATED);
}

/* JIT code that keeps a frame pointer (push %rbp; mov %rsp,%rbp), called
 * from capture()'s place, with the caller's rbp a stack address (as a
 * caller that uses rbp for data leaves it).  The code is not copied:
 * libunwind must not take that saved rbp for the return address. */
static struct snapshot jit_snap;

static void jit_frame_keeps_its_callers(void **state)
{
	(void)state;
	uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	level_one();
	assert_true(snap.stack_len > 0 && snap.stack_len + 16 <= SNAPSHOT_STACK_MAX);
	jit_snap = snap;
	/* The caller's own rbp where it is a stack address (a frame pointer:
	 * the sanitizer build keeps them, and capture's CFA is then rbp's);
	 * else one made up, which capture's rsp-based CFA does not use. */
	uint64_t saved_rbp = snap.regs.rbp, ret = snap.regs.rip;
	if (saved_rbp < snap.stack_start || saved_rbp >= snap.stack_start + snap.stack_len)
		saved_rbp = snap.regs.rsp + 32;
	memcpy(jit_snap.stack, &saved_rbp, 8);
	memcpy(jit_snap.stack + 8, &ret, 8);
	memcpy(jit_snap.stack + 16, snap.stack, snap.stack_len);
	jit_snap.stack_start = snap.stack_start - 16;
	jit_snap.stack_len = snap.stack_len + 16;
	jit_snap.regs.rip = (uint64_t)(uintptr_t)jit + 9; /* inside its loop */
	jit_snap.regs.rsp = jit_snap.regs.rbp = jit_snap.stack_start;
	int complete;
	const char *stack = unwound(&jit_snap, &complete);
	if (!strstr(stack, "main;") || !strstr(stack, ";level_one;level_two;capture;[anon];") ||
	    strstr(stack, "[truncated]"))
		fail_msg("stack: %s", stack);
	munmap(jit, 4096);
}

/* JIT code that keeps no frame pointer and uses rbp for data, as a JVM's
 * does without -XX:+PreserveFramePointer: nothing finds its callers, and
 * libunwind, its frame-pointer guess failing, stops there as if at the
 * end.  The stack is cut, whatever rbp holds: a small number, a stack
 * address, or 0 - which in a file's code would mark a thread's first
 * frame, but JIT code is always called by something. */
static void jit_frame_without_frame_pointer_is_cut(void **state)
{
	(void)state;
	uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	level_one();
	const uint64_t rbps[] = { 0x1234, snap.regs.rsp + 64, 0 };
	for (size_t i = 0; i < sizeof(rbps) / sizeof(rbps[0]); i++) {
		jit_snap = snap;
		jit_snap.regs.rip = (uint64_t)(uintptr_t)jit + 9;
		jit_snap.regs.rbp = rbps[i];
		int complete;
		const char *stack = unwound(&jit_snap, &complete);
		if (strncmp(stack, "[truncated];", 12) != 0 || !strstr(stack, "[anon];"))
			fail_msg("rbp %#" PRIx64 ": %s", rbps[i], stack);
	}
	munmap(jit, 4096);
}

/* Code of a file without unwind info, as hand-written assembly is (musl's
 * _start and clone, Go's runtime): a zero rbp there is where a thread's
 * stack begins, as the ABI asks; any other value, a frame pointer that
 * led nowhere. */
__asm__(".text\n"
	".globl nocfi_start\n"
	".type nocfi_start, @function\n"
	"nocfi_start:\n"
	"	xor %ebp, %ebp\n"
	"	nop\n"
	"	nop\n"
	"	ud2\n"
	".size nocfi_start, .-nocfi_start\n");
extern char nocfi_start[];

static void code_without_unwind_info_ends_at_a_zero_rbp(void **state)
{
	(void)state;
	level_one();
	jit_snap = snap;
	jit_snap.regs.rip = (uint64_t)(uintptr_t)nocfi_start + 3;
	jit_snap.regs.rbp = 0;
	int complete;
	const char *stack = unwound(&jit_snap, &complete);
	assert_string_equal(stack, "nocfi_start;");
	assert_true(complete);
	jit_snap.regs.rbp = 0x1234;
	stack = unwound(&jit_snap, &complete);
	assert_string_equal(stack, "[truncated];nocfi_start;");
}

/* JIT code with a frame pointer whose saved return address lies in no
 * mapping: no return address at all, and nothing to unwind it with.  The
 * unwind stops there, cut, rather than guess on from it. */
static void return_address_in_no_mapping_ends_the_unwind(void **state)
{
	(void)state;
	uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	level_one();
	jit_snap = snap;
	uint64_t frame[2] = { snap.regs.rsp + 64, 0x10000 }; /* saved rbp, return address */
	memcpy(jit_snap.stack, frame, sizeof(frame));
	jit_snap.regs.rip = (uint64_t)(uintptr_t)jit + 9;
	jit_snap.regs.rsp = jit_snap.regs.rbp = jit_snap.stack_start;
	int complete;
	const char *stack = unwound(&jit_snap, &complete);
	assert_string_equal(stack, "[truncated];[anon];");
	assert_false(complete);
	munmap(jit, 4096);
}

/* A stack deeper than the frames kept is cut: its last slot says so. */
static void too_deep_is_cut(void **state)
{
	(void)state;
	level_one();
	struct modules *m = modules_open(files, getpid());
	struct unwinder *u = unwinder_new(m);
	struct unwound_frame frames[4];
	int complete;
	int n = unwind_snapshot(u, &snap, frames, 4, &complete);
	assert_int_equal(n, 4);
	assert_int_equal(frames[3].kind, FRAME_TRUNCATED);
	assert_int_equal(frames[3].ip, 0);
	assert_false(complete);
	unwinder_free(u);
	modules_close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(garbage_stacks_end_quickly, new_run, end_run),
		cmocka_unit_test_setup_teardown(own_stack_reaches_main, new_run, end_run),
		cmocka_unit_test_setup_teardown(an_ended_process_keeps_its_names, new_run, end_run),
		cmocka_unit_test_setup_teardown(a_copy_cut_short_says_so, new_run, end_run),
		cmocka_unit_test_setup_teardown(through_a_signal_handler, new_run, end_run),
		cmocka_unit_test_setup_teardown(partial_registers_never_mislead, new_run, end_run),
		cmocka_unit_test_setup_teardown(frame_pointer_chain_needs_rbp, new_run, end_run),
		cmocka_unit_test_setup_teardown(jit_frame_keeps_its_callers, new_run, end_run),
		cmocka_unit_test_setup_teardown(jit_frame_without_frame_pointer_is_cut, new_run, end_run),
		cmocka_unit_test_setup_teardown(code_without_unwind_info_ends_at_a_zero_rbp, new_run,
						end_run),
		cmocka_unit_test_setup_teardown(return_address_in_no_mapping_ends_the_unwind, new_run,
						end_run),
		cmocka_unit_test_setup_teardown(too_deep_is_cut, new_run, end_run),
	};
	return cmocka_run_group_tests_name("unwind", tests, NULL, NULL);
}
