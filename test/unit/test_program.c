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
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "profile/aggregate.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(exec_keeps_old_jit_names, new_run, end_run),
	};
	return cmocka_run_group_tests_name("program", tests, NULL, NULL);
}
