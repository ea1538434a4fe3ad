/* Unit tests: naming addresses of this very process - its functions, an
 * inlined helper and its lines, unnamed bytes, anonymous executable memory,
 * a library deleted while mapped - and what a re-read of the maps keeps. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "modules.h"
#include "symbolize.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

static const struct symbolize_options plain_names = { false, false, false };

/* The names at ip, joined with ';' as they will appear in a stack. */
static const char *joined(struct symbolizer *s, uint64_t ip, enum frame_kind kind)
{
	static char text[4096];
	const char *const *names;
	size_t n = symbolize(s, ip, kind, &names);
	text[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(text, ";");
		strncat(text, names[i], sizeof(text) - strlen(text) - 2);
	}
	return text;
}

/* An address inside an inlined function, and the lines that name it. */
static int helper_line, call_line;

static inline __attribute__((always_inline)) uint64_t inlined_helper(void)
{
	uint64_t pc;
	helper_line = __LINE__ + 1;
	__asm__ volatile("1: lea 1b(%%rip), %0" : "=r"(pc));
	return pc;
}

__attribute__((noinline, noclone)) uint64_t outer_fn(void)
{
	call_line = __LINE__ + 1;
	uint64_t pc = inlined_helper();
	__asm__ volatile("" ::: "memory");
	return pc;
}

static void own_functions_named(void **state)
{
	(void)state;
	struct modules *m = modules_open(getpid(), NULL);
	assert_non_null(m);
	struct symbolizer *s = symbolizer_new(m, &plain_names);
	uint64_t fn = (uint64_t)(uintptr_t)&outer_fn;
	assert_string_equal(joined(s, fn + 1, FRAME_EXACT), "outer_fn");
	/* A return address just past a call is looked up one byte back. */
	assert_string_equal(joined(s, fn + 1, FRAME_CALL), "outer_fn");
	assert_string_equal(joined(s, 8, FRAME_EXACT), "[unknown]");
	assert_string_equal(joined(s, 0, FRAME_CALL), "[unknown]");
	/* Where a signal handler returns to. */
	assert_string_equal(joined(s, fn, FRAME_SIGNAL), "[signal]");
	symbolizer_free(s);
	modules_close(m);
}

static void inlined_frames_and_lines(void **state)
{
	(void)state;
	uint64_t pc = outer_fn();
	char want[256];
	struct modules *m = modules_open(getpid(), NULL);
	assert_non_null(m);

	struct symbolize_options inl = { .inline_frames = true };
	struct symbolizer *s = symbolizer_new(m, &inl);
	assert_string_equal(joined(s, pc, FRAME_EXACT), "outer_fn;inlined_helper_[i]");
	symbolizer_free(s);

	struct symbolize_options both = { .inline_frames = true, .lines = true };
	s = symbolizer_new(m, &both);
	snprintf(want, sizeof(want), "outer_fn (test_symbolize.c:%d);inlined_helper (test_symbolize.c:%d)_[i]",
		 call_line, helper_line);
	assert_string_equal(joined(s, pc, FRAME_EXACT), want);
	symbolizer_free(s);

	/* Without inline frames the function's line is where it calls. */
	struct symbolize_options lines = { .lines = true };
	s = symbolizer_new(m, &lines);
	snprintf(want, sizeof(want), "outer_fn (test_symbolize.c:%d)", call_line);
	assert_string_equal(joined(s, pc, FRAME_EXACT), want);
	symbolizer_free(s);

	s = symbolizer_new(m, &plain_names);
	assert_string_equal(joined(s, pc, FRAME_EXACT), "outer_fn");
	symbolizer_free(s);
	modules_close(m);
}

/* A second process mapping the same files (here: a second view of this
 * one) is named from what the first one read: same names, by build-id and
 * offset, the options part of the key; and after the first symbolizer is
 * gone the second reads for itself. */
static void names_shared_across_processes(void **state)
{
	(void)state;
	uint64_t pc = outer_fn();
	char want[256];
	snprintf(want, sizeof(want), "outer_fn (test_symbolize.c:%d);inlined_helper (test_symbolize.c:%d)_[i]",
		 call_line, helper_line);
	struct symbolize_options both = { .inline_frames = true, .lines = true };
	struct modules *m1 = modules_open(getpid(), NULL), *m2 = modules_open(getpid(), NULL);
	assert_non_null(m1);
	assert_non_null(m2);
	struct symbolizer *s1 = symbolizer_new(m1, &both), *s2 = symbolizer_new(m2, &both);
	assert_string_equal(joined(s1, pc, FRAME_EXACT), want);
	uint64_t hits = symbolize_shared_hits();
	assert_string_equal(joined(s2, pc, FRAME_EXACT), want);
	assert_int_equal(symbolize_shared_hits(), hits + 1);
	/* an address s1 never named: s2 has it read by s1, same answer */
	uint64_t fn = (uint64_t)(uintptr_t)&outer_fn;
	snprintf(want, sizeof(want), "outer_fn (test_symbolize.c:");
	assert_memory_equal(joined(s2, fn + 1, FRAME_EXACT), want, strlen(want));
	/* other options, other names: not taken from the shared ones */
	struct symbolizer *s3 = symbolizer_new(m2, &plain_names);
	assert_string_equal(joined(s3, pc, FRAME_EXACT), "outer_fn");
	symbolizer_free(s3);
	/* s1 gone: s2 reads for itself */
	symbolizer_free(s1);
	modules_close(m1);
	uint64_t own = (uint64_t)(uintptr_t)&own_functions_named;
	assert_memory_equal(joined(s2, own + 1, FRAME_EXACT), "own_functions_named (test_symbolize.c:",
			    strlen("own_functions_named (test_symbolize.c:"));
	symbolizer_free(s2);
	modules_close(m2);
}

extern const char __ehdr_start; /* the linker's: our own ELF header */

static void unnamed_bytes_name_their_module(void **state)
{
	(void)state;
	uint64_t header = (uint64_t)(uintptr_t)&__ehdr_start;
	struct modules *m = modules_open(getpid(), NULL);
	struct symbolizer *s = symbolizer_new(m, &plain_names);
	/* No symbol covers the ELF header (a size-less one only names its own
	 * first byte): the module, never the nearest name. */
	assert_string_equal(joined(s, header + 0x10, FRAME_EXACT), "[test_symbolize]");
	symbolizer_free(s);
	struct symbolize_options addresses = { .addresses = true };
	s = symbolizer_new(m, &addresses);
	assert_string_equal(joined(s, header + 0x10, FRAME_EXACT), "test_symbolize+0x10");
	/* Named frames stay named. */
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&outer_fn, FRAME_EXACT), "outer_fn");
	symbolizer_free(s);
	modules_close(m);
}

static void anonymous_code(void **state)
{
	(void)state;
	uint8_t *jit = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	/* Name the second page (kernels without CONFIG_ANON_VMA_NAME refuse). */
	bool named = prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, jit + 4096, 4096, "jit code") == 0;
	struct modules *m = modules_open(getpid(), NULL);
	struct symbolizer *s = symbolizer_new(m, &plain_names);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)jit + 16, FRAME_EXACT), "[anon]");
	if (named)
		assert_string_equal(joined(s, (uint64_t)(uintptr_t)jit + 4096 + 16, FRAME_EXACT),
				    "[anon:jit code]");
	/* An address in anonymous code is known: it re-reads nothing. */
	unsigned reads = modules_refresh_count(m);
	joined(s, (uint64_t)(uintptr_t)jit + 32, FRAME_EXACT);
	assert_int_equal(modules_refresh_count(m), reads);
	symbolizer_free(s);
	modules_close(m);
	munmap(jit, 8192);
}

/* Modules reported back to back, then a gap: an address in the gap is in
 * no module, however libdw's lookup table was built. */
static void gap_after_adjacent_modules(void **state)
{
	(void)state;
	static const Dwfl_Callbacks callbacks = { .find_elf = dwfl_linux_proc_find_elf,
						  .find_debuginfo = dwfl_standard_find_debuginfo };
	Dwfl *dwfl = dwfl_begin(&callbacks);
	assert_non_null(dwfl);
	dwfl_report_begin(dwfl);
	assert_non_null(dwfl_report_module(dwfl, "/a", 0x100000, 0x200000));
	assert_non_null(dwfl_report_module(dwfl, "/b", 0x200000, 0x300000));
	assert_non_null(dwfl_report_module(dwfl, "/c", 0x1000000, 0x1100000));
	assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
	const struct {
		uint64_t addr;
		const char *module; /* NULL: none */
	} cases[] = {
		{ 0x0ff000, NULL }, { 0x100000, "/a" }, { 0x1fffff, "/a" }, { 0x200000, "/b" },
		{ 0x2fffff, "/b" }, { 0x300000, NULL }, { 0x500000, NULL }, { 0xffffff, NULL },
		{ 0x1000000, "/c" }, { 0x10fffff, "/c" }, { 0x1100000, NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		Dwfl_Module *mod = modules_dwfl_addrmodule(dwfl, cases[i].addr);
		const char *name = mod ? dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;
		if (cases[i].module ? !name || strcmp(name, cases[i].module) : name != NULL)
			fail_msg("%#" PRIx64 ": %s, expected %s", cases[i].addr, name ? name : "none",
				 cases[i].module ? cases[i].module : "none");
	}
	dwfl_end(dwfl);
}

/* SPARE_LIB (built by make, linked by no test) and its one function. */
#ifndef SPARE_LIB
#define SPARE_LIB "build/test/libspare.so"
#endif

static void *spare_function(const char *path, void **handle)
{
	*handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	return *handle ? dlsym(*handle, "spare_function") : NULL;
}

static void unchanged_modules_are_kept(void **state)
{
	(void)state;
	struct modules *m = modules_open(getpid(), NULL);
	struct symbolizer *s = symbolizer_new(m, &plain_names);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&outer_fn, FRAME_EXACT), "outer_fn");
	unsigned generation = modules_generation(m), opened = modules_images_opened(m);
	assert_int_equal(modules_refresh(m), 0);
	assert_int_equal(modules_generation(m), generation);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&outer_fn, FRAME_EXACT), "outer_fn");
	assert_int_equal(modules_images_opened(m), opened);

	/* A library loaded after we looked: found on the first miss once the
	 * re-read's rate limit (one per 20 ms) allows. */
	usleep(25000);
	void *h;
	void *fn = spare_function(SPARE_LIB, &h);
	assert_non_null(fn);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)fn, FRAME_EXACT), "spare_function");
	assert_int_equal(modules_generation(m), generation + 1);
	/* Only the new library was opened. */
	assert_int_equal(modules_images_opened(m), opened + 1);
	symbolizer_free(s);
	modules_close(m);
	dlclose(h);
}

static void deleted_library_still_named(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* /proc/PID/map_files needs CAP_SYS_ADMIN */
	char dir[] = "/tmp/pp-deleted-XXXXXX", copy[64], cmd[256];
	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/libgone.so", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", SPARE_LIB, copy);
	assert_int_equal(system(cmd), 0);
	void *h;
	void *fn = spare_function(copy, &h);
	assert_non_null(fn);
	Dl_info gone;
	assert_true(dladdr(fn, &gone) != 0);
	assert_int_equal(unlink(copy), 0);
	rmdir(dir);

	struct modules *m = modules_open(getpid(), NULL);
	struct symbolizer *s = symbolizer_new(m, &plain_names);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)fn, FRAME_EXACT), "spare_function");
	/* Its unnamed bytes say which file, and that it is gone. */
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)gone.dli_fbase + 0x10, FRAME_EXACT),
			    "[libgone.so (deleted)]");
	symbolizer_free(s);
	modules_close(m);
	dlclose(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_functions_named),
		cmocka_unit_test(inlined_frames_and_lines),
		cmocka_unit_test(unnamed_bytes_name_their_module),
		cmocka_unit_test(anonymous_code),
		cmocka_unit_test(gap_after_adjacent_modules),
		cmocka_unit_test(unchanged_modules_are_kept),
		cmocka_unit_test(deleted_library_still_named),
		cmocka_unit_test(names_shared_across_processes),
	};
	return cmocka_run_group_tests_name("symbolize", tests, NULL, NULL);
}
