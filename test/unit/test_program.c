/* Unit tests: a program of this very process - its stacks named after an
 * execve by what the old program left, not by what the new one writes. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "profile/aggregate.h"
#include "profile/cut.h"
#include "unwind/files.h"
#include "profile/program.h"
#include "name/symbolize.h"

/* The run's files, names and output table, fresh for each test. */
static struct program_shared shared;
static struct stack_table *named;

static int new_run(void **state)
{
	(void)state;
	static const struct symbolize_options plain = { false, false, false };
	shared.files = files_new(NULL);
	shared.namer = namer_new(&plain);
	named = stack_table_new();
	return shared.files && shared.namer && named ? 0 : -1;
}

static int end_run(void **state)
{
	(void)state;
	stack_table_free(named);
	namer_free(shared.namer);
	files_free(shared.files);
	return 0;
}

/* The frames p names at ip, joined with ';'. */
static const char *named_at(struct program *p, uint64_t ip)
{
	static char text[2048];
	const char *user[PROGRAM_USER_FRAMES_MAX];
	uint64_t user_ip[PROGRAM_USER_FRAMES_MAX];
	struct unwound_frame frame = { ip, FRAME_EXACT };
	size_t n = program_name_frames(p, &frame, 1, user, user_ip);
	text[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(text, ";");
		strncat(text, user[i], sizeof(text) - strlen(text) - 2);
	}
	return text;
}

#include "jit_map.h"

/* After an execve the JIT map of the process is the new program's: the
 * old program's JIT code is named by what the old one wrote (read once
 * more at the exec), never by what the new one writes. */
static void exec_keeps_old_jit_names(void **state)
{
	(void)state;
	uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	uint64_t code = (uint64_t)(uintptr_t)jit;
	write_jit_map(code, "old_code");
	struct program *old = program_open(getpid(), &shared, named, NULL);
	assert_non_null(old);
	struct program *next = program_exec(old, getpid());
	assert_non_null(next);
	assert_ptr_equal(next->older, old);
	write_jit_map(code, "new_code");
	usleep(110000); /* the map is looked at again at most every 100 ms */
	assert_string_equal(named_at(next, code + 4), "new_code_[j]");
	assert_string_equal(named_at(old, code + 4), "old_code_[j]");
	program_free(next);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	munmap(jit, 4096);
}

/* The frames p names for frames[0..n), root first, joined with ';'. */
static const char *named_frames(struct program *p, const struct unwound_frame *frames, size_t n,
				uint64_t count)
{
	static char text[2048];
	const char *user[PROGRAM_USER_FRAMES_MAX];
	uint64_t user_ip[PROGRAM_USER_FRAMES_MAX];
	size_t k = program_name_samples(p, frames, n, count, user, user_ip);
	text[0] = '\0';
	for (size_t i = 0; i < k; i++) {
		if (i)
			strcat(text, ";");
		strncat(text, user[i], sizeof(text) - strlen(text) - 2);
	}
	return text;
}

__attribute__((noinline)) void some_work(void)
{
	__asm__ volatile("" ::: "memory");
}

/* Go's scheduler stack begins here: no unwind info, rbp into another
 * stack; only the name tells. */
__asm__(".text\n"
	".globl runtime.mcall\n"
	".type runtime.mcall, @function\n"
	"runtime.mcall:\n"
	"	nop\n"
	"	nop\n"
	"	ud2\n"
	".size runtime.mcall, .-runtime.mcall\n");
extern char go_mcall[] __asm__("runtime.mcall");

/* A cut stack's mark is named at its root side and its samples counted
 * by where the unwind stopped; after a frame known by name to begin a
 * thread the mark goes. */
static void cut_stacks_marked_and_counted(void **state)
{
	(void)state;
	struct cuts cuts;
	cuts_start(&cuts);
	shared.cuts = &cuts;
	uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	struct program *p = program_open(getpid(), &shared, named, NULL);
	assert_non_null(p);
	const struct unwound_frame mark = { 0, FRAME_TRUNCATED };
	struct unwound_frame in_file[] = { { (uint64_t)(uintptr_t)&some_work, FRAME_EXACT }, mark };
	assert_string_equal(named_frames(p, in_file, 2, 5), "[truncated];some_work");
	struct unwound_frame in_go[] = { { (uint64_t)(uintptr_t)go_mcall + 1, FRAME_EXACT }, mark };
	assert_string_equal(named_frames(p, in_go, 2, 100), "runtime.mcall");
	struct cut_tally t = cut_tally(&cuts);
	assert_int_equal(t.samples, 5);
	assert_string_equal(t.most.name, "[test_program]");
	assert_false(t.most.anon);

	/* Counted by address while sampling, named after: the mark survives
	 * the packing, and its samples are counted with their number. */
	struct unwound_frame in_jit[] = { { (uint64_t)(uintptr_t)jit + 4, FRAME_EXACT }, mark };
	struct sample_view v = { .thread = "t", .state = "R (running)" };
	uint32_t stack;
	struct program_stack again;
	assert_int_equal(program_count(p, &v, in_jit, 2, 7, &stack, &again), 0);
	/* the same again, by id: no words hashed, the same count after */
	assert_int_equal(program_count_again(p, &again, 1, &stack), 0);
	assert_int_equal(program_name_all(p), 0);
	/* named: the id means nothing any more, and says so */
	assert_int_equal(program_count_again(p, &again, 1, &stack), -1);
	const char *frames[8];
	uint64_t count = 0;
	size_t n = stack_table_frames(named, 0, frames, 8, &count);
	assert_int_equal(n, 4);
	assert_string_equal(frames[2], "[truncated]");
	assert_string_equal(frames[3], "[anon]");
	assert_int_equal(count, 8);
	t = cut_tally(&cuts);
	assert_int_equal(t.samples, 13);
	assert_string_equal(t.most.name, "[anon]");
	assert_true(t.most.anon);
	assert_int_equal(t.most.samples, 8);
	program_free(p);
	munmap(jit, 4096);
	shared.cuts = NULL;
	cuts_end(&cuts);
}

/* A process gone (a child, reaped): no program, and the reason is the
 * read of its maps' own (the sampler's summary quotes it), not what errno
 * held before; after an execve the old program stays as it was. */
static void gone_process_says_why(void **state)
{
	(void)state;
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	errno = 0;
	assert_null(program_open(child, &shared, named, NULL));
	assert_int_equal(errno, ENOENT);
	struct program *old = program_open(getpid(), &shared, named, NULL);
	assert_non_null(old);
	errno = EPERM;
	assert_null(program_exec(old, child));
	assert_int_equal(errno, ENOENT);
	assert_non_null(old->unwinder); /* not retired */
	assert_null(old->older);
	program_free(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(exec_keeps_old_jit_names, new_run, end_run),
		cmocka_unit_test_setup_teardown(cut_stacks_marked_and_counted, new_run, end_run),
		cmocka_unit_test_setup_teardown(gone_process_says_why, new_run, end_run),
	};
	return cmocka_run_group_tests_name("program", tests, NULL, NULL);
}
