/* Unit tests: naming addresses of this very process - its functions, an
 * inlined helper and its lines, unnamed bytes, anonymous executable memory,
 * a library deleted while mapped - and what a re-read of the maps keeps. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "unwind/files.h"
#include "unwind/modules.h"
#include "name/symbolize.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

/* The run's files and namers, fresh for each test (setup, teardown). */
#include "naming_fixture.h"

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

/* glibc's shape, in small: a function declared under an internal asm
 * name (glibc's __GI___libc_read is read()'s), its code exported under a
 * public alias, and a call to it inlined.  DWARF names the inlined copy
 * by the internal name; its out-of-line copy's symbols are the internal
 * one (hidden, so local after linking) and the public alias (global). */
uint64_t internal_helper(void) __asm__("__GI_internal_helper")
	__attribute__((visibility("hidden")));
__attribute__((always_inline)) inline uint64_t internal_helper(void)
{
	uint64_t pc;
	__asm__ volatile("1: lea 1b(%%rip), %0" : "=r"(pc));
	return pc;
}
extern __typeof(internal_helper) public_helper __attribute__((alias("__GI_internal_helper")));

__attribute__((noinline, noclone)) uint64_t calls_internal(void)
{
	uint64_t pc = internal_helper();
	__asm__ volatile("" ::: "memory");
	return pc;
}

/* An asm name and no out-of-line copy at all (a C99 inline definition:
 * every declaration says inline, so none is emitted): the asm name, the
 * symbol it would have had. */
inline __attribute__((always_inline)) uint64_t lonely_helper(void) __asm__("lonely_label");
inline __attribute__((always_inline)) uint64_t lonely_helper(void)
{
	uint64_t pc;
	__asm__ volatile("1: lea 1b(%%rip), %0" : "=r"(pc));
	return pc;
}

__attribute__((noinline, noclone)) uint64_t calls_lonely(void)
{
	uint64_t pc = lonely_helper();
	__asm__ volatile("" ::: "memory");
	return pc;
}

static void own_functions_named(void **state)
{
	(void)state;
	struct modules *m = modules_open(files, getpid());
	assert_non_null(m);
	struct symbolizer *s = symbolizer_new(namer_with(&plain_names), m);
	uint64_t fn = (uint64_t)(uintptr_t)&outer_fn;
	assert_string_equal(joined(s, fn + 1, FRAME_EXACT), "outer_fn");
	/* A return address just past a call is looked up one byte back. */
	assert_string_equal(joined(s, fn + 1, FRAME_CALL), "outer_fn");
	assert_string_equal(joined(s, 8, FRAME_EXACT), "[unknown]");
	assert_string_equal(joined(s, 0, FRAME_CALL), "[unknown]");
	/* Where a signal handler returns to. */
	assert_string_equal(joined(s, fn, FRAME_SIGNAL), "[signal]");
	/* The mark of a cut stack, which has no address. */
	assert_string_equal(joined(s, 0, FRAME_TRUNCATED), "[truncated]");
	symbolizer_free(s);
	modules_close(m);
}

static void inlined_frames_and_lines(void **state)
{
	(void)state;
	uint64_t pc = outer_fn();
	char want[256];
	struct modules *m = modules_open(files, getpid());
	assert_non_null(m);

	struct symbolize_options inl = { .inline_frames = true };
	struct symbolizer *s = symbolizer_new(namer_with(&inl), m);
	assert_string_equal(joined(s, pc, FRAME_EXACT), "outer_fn;inlined_helper_[i]");
	symbolizer_free(s);

	struct symbolize_options both = { .inline_frames = true, .lines = true };
	s = symbolizer_new(namer_with(&both), m);
	snprintf(want, sizeof(want), "outer_fn (test_symbolize.c:%d);inlined_helper (test_symbolize.c:%d)_[i]",
		 call_line, helper_line);
	assert_string_equal(joined(s, pc, FRAME_EXACT), want);
	symbolizer_free(s);

	/* Without inline frames the function's line is where it calls. */
	struct symbolize_options lines = { .lines = true };
	s = symbolizer_new(namer_with(&lines), m);
	snprintf(want, sizeof(want), "outer_fn (test_symbolize.c:%d)", call_line);
	assert_string_equal(joined(s, pc, FRAME_EXACT), want);
	symbolizer_free(s);

	s = symbolizer_new(namer_with(&plain_names), m);
	assert_string_equal(joined(s, pc, FRAME_EXACT), "outer_fn");
	symbolizer_free(s);
	modules_close(m);
}

static void inlined_named_as_out_of_line(void **state)
{
	(void)state;
	struct modules *m = modules_open(files, getpid());
	assert_non_null(m);
	struct symbolize_options inl = { .inline_frames = true };
	struct symbolizer *s = symbolizer_new(namer_with(&inl), m);
	/* The out-of-line copy is named by its global alias... */
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&public_helper, FRAME_EXACT), "public_helper");
	/* ...and so is the inlined one, not by the internal asm name. */
	assert_string_equal(joined(s, calls_internal(), FRAME_EXACT), "calls_internal;public_helper_[i]");
	/* With no copy to take a name from, the asm name. */
	assert_string_equal(joined(s, calls_lonely(), FRAME_EXACT), "calls_lonely;lonely_label_[i]");
	/* The plain C helper keeps its name. */
	assert_string_equal(joined(s, outer_fn(), FRAME_EXACT), "outer_fn;inlined_helper_[i]");
	symbolizer_free(s);
	modules_close(m);
}

extern const char __ehdr_start; /* the linker's: our own ELF header */

static void unnamed_bytes_name_their_module(void **state)
{
	(void)state;
	uint64_t header = (uint64_t)(uintptr_t)&__ehdr_start;
	struct modules *m = modules_open(files, getpid());
	struct symbolizer *s = symbolizer_new(namer_with(&plain_names), m);
	/* No symbol covers the ELF header (a size-less one only names its own
	 * first byte): the module, never the nearest name. */
	assert_string_equal(joined(s, header + 0x10, FRAME_EXACT), "[test_symbolize]");
	symbolizer_free(s);
	struct symbolize_options addresses = { .addresses = true };
	s = symbolizer_new(namer_with(&addresses), m);
	assert_string_equal(joined(s, header + 0x10, FRAME_EXACT), "test_symbolize+0x10");
	/* Named frames stay named. */
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&outer_fn, FRAME_EXACT), "outer_fn");
	symbolizer_free(s);
	modules_close(m);
}

/* Code of a file that is no ELF file (or could not be read): with
 * --addresses, its offset in the file, as addr2line -e takes it, not the
 * offset in the mapping. */
static void unreadable_file_offsets(void **state)
{
	(void)state;
	char path[] = "/tmp/pp-opaque-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 3 * 4096), 0);
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 2 * 4096);
	close(fd);
	if (code == MAP_FAILED) {
		unlink(path);
		skip(); /* /tmp mounted noexec */
	}
	struct modules *m = modules_open(files, getpid());
	const struct module_image *img = modules_at(m, (uint64_t)(uintptr_t)code);
	assert_non_null(img);
	assert_null(img->file);
	struct symbolize_options addresses = { .addresses = true };
	struct symbolizer *s = symbolizer_new(namer_with(&addresses), m);
	char want[64];
	snprintf(want, sizeof(want), "%s+0x2010", path + strlen("/tmp/"));
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)code + 0x10, FRAME_EXACT), want);
	symbolizer_free(s);
	s = symbolizer_new(namer_with(&plain_names), m);
	snprintf(want, sizeof(want), "[%s]", path + strlen("/tmp/"));
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)code + 0x10, FRAME_EXACT), want);
	symbolizer_free(s);
	modules_close(m);
	munmap(code, 4096);
	unlink(path);
}

static void anonymous_code(void **state)
{
	(void)state;
	uint8_t *jit = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	/* Name the second page (kernels without CONFIG_ANON_VMA_NAME refuse). */
	bool named = prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, jit + 4096, 4096, "jit code") == 0;
	struct modules *m = modules_open(files, getpid());
	struct symbolizer *s = symbolizer_new(namer_with(&plain_names), m);
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


/* Code a JIT named in /tmp/perf-PID.map: "NAME_[j]" inside an entry,
 * sanitized; "[anon]" outside every entry. */
static void jit_map_names(void **state)
{
	(void)state;
	uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%" PRIxPTR " 20 LazyCompile:*hot /srv/app.js:3\n", (uintptr_t)jit);
	fprintf(f, "%" PRIxPTR " 10 evil;name\n", (uintptr_t)jit + 0x100);
	/* an entry over an ELF function names nothing there */
	fprintf(f, "%" PRIxPTR " 40 not_outer_fn\n", (uintptr_t)&outer_fn);
	fclose(f);
	struct modules *m = modules_open(files, getpid());
	struct symbolizer *s = symbolizer_new(namer_with(&plain_names), m);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)jit + 4, FRAME_EXACT),
			    "LazyCompile:*hot /srv/app.js:3_[j]");
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)jit + 0x20, FRAME_EXACT), "[anon]");
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)jit + 0x104, FRAME_EXACT), "evil:name_[j]");
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&outer_fn + 1, FRAME_EXACT), "outer_fn");
	symbolizer_free(s);
	modules_close(m);
	unlink(path);
	munmap(jit, 4096);
}

#include "jit_map.h"

/* JIT code is named as the JIT's map says now, not as it said the first
 * time the address was named (naming runs again and again with --period
 * or SIGUSR1): code named after it was first seen, memory reused for
 * other code. */
static void jit_names_as_of_now(void **state)
{
	(void)state;
	uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(jit != MAP_FAILED);
	uint64_t code = (uint64_t)(uintptr_t)jit;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	struct modules *m = modules_open(files, getpid());
	struct symbolizer *s = symbolizer_new(namer_with(&plain_names), m);
	assert_string_equal(joined(s, code + 4, FRAME_EXACT), "[anon]");
	write_jit_map(code, "first");
	usleep(110000); /* the map is looked at again at most every 100 ms */
	assert_string_equal(joined(s, code + 4, FRAME_EXACT), "first_[j]");
	write_jit_map(code, "second");
	usleep(110000);
	assert_string_equal(joined(s, code + 4, FRAME_EXACT), "second_[j]");
	symbolizer_free(s);
	modules_close(m);
	unlink(path);
	munmap(jit, 4096);
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

/* Until a miss may re-read m's maps again: 20 ms after the last read, or
 * 50 times what it took (modules.h), and a little more. */
static void wait_for_reread(const struct modules *m)
{
	struct modules_skips k;
	modules_skips(m, &k);
	assert_true(k.longest_wait_ns >= 20000000);
	usleep((useconds_t)(k.longest_wait_ns / 1000 + 5000));
}

static void unchanged_modules_are_kept(void **state)
{
	(void)state;
	struct modules *m = modules_open(files, getpid());
	struct symbolizer *s = symbolizer_new(namer_with(&plain_names), m);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&outer_fn, FRAME_EXACT), "outer_fn");
	unsigned generation = modules_generation(m), opened = modules_images_opened(m);
	assert_int_equal(modules_refresh(m), 0);
	assert_int_equal(modules_generation(m), generation);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&outer_fn, FRAME_EXACT), "outer_fn");
	assert_int_equal(modules_images_opened(m), opened);

	/* A library loaded after we looked: found on the unwinder's first
	 * miss (naming reads no maps) once the re-read's bound allows. */
	wait_for_reread(m);
	void *h;
	void *fn = spare_function(SPARE_LIB, &h);
	assert_non_null(fn);
	assert_non_null(modules_find(m, (uint64_t)(uintptr_t)fn));
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)fn, FRAME_EXACT), "spare_function");
	assert_int_equal(modules_generation(m), generation + 1);
	/* Only the new library was opened. */
	assert_int_equal(modules_images_opened(m), opened + 1);
	symbolizer_free(s);
	modules_close(m);
	dlclose(h);
}

/* A miss re-reads the maps, but the next miss only once the last read's
 * bound has passed: until then, the address is unknown and counted - each
 * address once, each look-up - and known modules are still found. */
static void misses_wait_for_the_next_read(void **state)
{
	(void)state;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *region = mmap(NULL, 3 * (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(region != MAP_FAILED);
	assert_int_equal(munmap(region + page, (size_t)page), 0);
	uint64_t hole = (uint64_t)(uintptr_t)(region + page);
	struct modules *m = modules_open(files, getpid());
	assert_non_null(m);
	wait_for_reread(m);
	struct modules_skips k;
	assert_null(modules_find(m, hole));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(modules_refresh_count(m), 1);
	modules_skips(m, &k);
	assert_int_equal(k.lookups, 0);
	assert_true(k.slowest_read_ns > 0);
	assert_true(k.longest_wait_ns >= 50 * k.slowest_read_ns);

	assert_null(modules_find(m, hole));
	assert_null(modules_find(m, hole + 8));
	assert_null(modules_find(m, hole));
	assert_non_null(modules_find(m, (uint64_t)(uintptr_t)&outer_fn));
	uint8_t byte;
	assert_int_equal(modules_read(m, hole + 16, &byte, 1), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	unsigned reads = modules_refresh_count(m);
	modules_skips(m, &k);
	modules_close(m);
	munmap(region, (size_t)page);
	munmap(region + 2 * page, (size_t)page);
	/* A host that kept us off the CPU past the bound proves nothing. */
	if ((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec) >= 20000000)
		skip();
	assert_int_equal(reads, 1);
	assert_int_equal(k.lookups, 4);
	assert_int_equal(k.addresses, 3);
	assert_false(k.more);
}

/* Naming uses the maps as they were last read, never reads them again:
 * the unwinder did when the sample was taken, and a re-read in the middle
 * of naming would name the stacks after it from other maps.  An address
 * in no mapping we know is unknown, even once the re-read's rate limit
 * would allow one. */
static void naming_reads_no_maps(void **state)
{
	(void)state;
	void *h;
	uint64_t fn = (uint64_t)(uintptr_t)spare_function(SPARE_LIB, &h);
	assert_true(fn != 0);
	struct modules *m = modules_open(files, getpid());
	struct symbolizer *s = symbolizer_new(namer_with(&plain_names), m);
	assert_string_equal(joined(s, fn, FRAME_EXACT), "spare_function");
	unsigned reads = modules_refresh_count(m);
	dlclose(h);
	wait_for_reread(m);
	assert_string_equal(joined(s, 8, FRAME_EXACT), "[unknown]");
	assert_int_equal(modules_refresh_count(m), reads);
	/* Counted while the library was there: still its name. */
	assert_string_equal(joined(s, fn + 1, FRAME_EXACT), "spare_function");
	symbolizer_free(s);
	modules_close(m);
}

/* What the removal hook below saw. */
struct in_hook {
	struct modules *m;
	struct symbolizer *s;
	uint64_t fn;
	int calls;
	unsigned reads;
	char name[256];
};

/* Names as a program's hook does (its pending stacks), past the re-read's
 * rate limit, and asks for a re-read itself. */
static void name_in_hook(void *arg)
{
	struct in_hook *h = arg;
	unsigned reads = modules_refresh_count(h->m);
	h->calls++;
	wait_for_reread(h->m);
	joined(h->s, 8, FRAME_EXACT); /* in no mapping */
	snprintf(h->name, sizeof(h->name), "%s", joined(h->s, h->fn, FRAME_EXACT));
	modules_refresh(h->m);
	h->reads = modules_refresh_count(h->m) - reads;
}

/* The removal hook runs inside a re-read: a second one started from it
 * would replace the module list the first is still matching. */
static void removal_hook_reads_no_maps(void **state)
{
	(void)state;
	void *lib;
	uint64_t fn = (uint64_t)(uintptr_t)spare_function(SPARE_LIB, &lib);
	assert_true(fn != 0);
	struct modules *m = modules_open(files, getpid());
	struct in_hook h = { m, symbolizer_new(namer_with(&plain_names), m), fn, 0, 0, "" };
	modules_on_removal(m, name_in_hook, &h);
	dlclose(lib);
	assert_int_equal(modules_refresh(m), 0);
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.reads, 0);
	/* The module going was still there for the hook. */
	assert_string_equal(h.name, "spare_function");
	assert_string_not_equal(joined(h.s, fn, FRAME_EXACT), "spare_function");
	assert_string_equal(joined(h.s, (uint64_t)(uintptr_t)&outer_fn, FRAME_EXACT), "outer_fn");
	symbolizer_free(h.s);
	modules_close(m);
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

	struct modules *m = modules_open(files, getpid());
	struct symbolizer *s = symbolizer_new(namer_with(&plain_names), m);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)fn, FRAME_EXACT), "spare_function");
	/* Its unnamed bytes say which file, and that it is gone. */
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)gone.dli_fbase + 0x10, FRAME_EXACT),
			    "[libgone.so (deleted)]");
	symbolizer_free(s);
	modules_close(m);
	dlclose(h);
}


struct exec_load {
	const char *want;
	uint64_t vaddr, offset, filesz;
};

static int find_exec_load(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct exec_load *x = arg;
	if (!strstr(info->dlpi_name, x->want))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			*x = (struct exec_load){ x->want, ph->p_vaddr, ph->p_offset, ph->p_filesz };
			return 1;
		}
	}
	return 0;
}

/* One file's code mapped a second time, elsewhere (as V8 maps part of
 * node's text): the copy is named from the file at its own bias.  A page
 * mapped executable that no executable segment holds (the ELF header) is
 * named after the file, never from it; code right after a library's last
 * mapping is not the library's. */
static void file_mapped_twice_and_apart(void **state)
{
	(void)state;
	void *h;
	uint8_t *fn = spare_function(SPARE_LIB, &h);
	assert_non_null(fn);
	Dl_info info;
	assert_true(dladdr(fn, &info) != 0);
	struct exec_load text = { "libspare.so", 0, 0, 0 };
	assert_true(dl_iterate_phdr(find_exec_load, &text) == 1);
	uint64_t page = text.offset & ~4095ULL, len = (text.offset + text.filesz - page + 4095) & ~4095ULL;
	int fd = open(SPARE_LIB, O_RDONLY);
	assert_true(fd >= 0);
	/* Apart, with a guard page between: the kernel merges adjacent
	 * mappings of consecutive file pages into one. */
	uint8_t *room = mmap(NULL, len + 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(room != MAP_FAILED);
	uint8_t *copy = mmap(room + 4096, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd,
			     (off_t)page);
	uint8_t *header = mmap(room + 2 * 4096 + len, 4096, PROT_READ | PROT_EXEC,
			       MAP_PRIVATE | MAP_FIXED, fd, 0);
	assert_true(copy != MAP_FAILED && header != MAP_FAILED);
	close(fd);
	uint64_t fn_vaddr = (uint64_t)(fn - (uint8_t *)info.dli_fbase);
	uint8_t *fn_copy = copy + (fn_vaddr - text.vaddr + text.offset - page);
	assert_memory_equal(fn_copy, fn, 8); /* the same code */

	/* Code in anonymous memory right after the library's last mapping. */
	uint64_t lib_end = 0, start, end;
	struct modules *m = modules_open(files, getpid());
	for (uint64_t a = (uint64_t)(uintptr_t)info.dli_fbase;
	     modules_mapping_of(m, a, &start, &end) == 0; a = end)
		lib_end = end;
	uint8_t *after = mmap((void *)(uintptr_t)lib_end, 4096, PROT_READ | PROT_EXEC,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	bool adjacent = after == (void *)(uintptr_t)lib_end;
	assert_int_equal(modules_refresh(m), 0);

	struct symbolizer *s = symbolizer_new(namer_with(&plain_names), m);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)fn, FRAME_EXACT), "spare_function");
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)fn_copy, FRAME_EXACT), "spare_function");
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)header + 0x10, FRAME_EXACT), "[libspare.so]");
	if (adjacent)
		assert_string_equal(joined(s, (uint64_t)(uintptr_t)after + 0x10, FRAME_EXACT), "[anon]");
	symbolizer_free(s);
	modules_close(m);
	munmap(room, len + 3 * 4096);
	if (after != MAP_FAILED)
		munmap(after, 4096);
	dlclose(h);
}


static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* Waits (up to 2 s) until /proc/PID/maps reads empty or not. */
static bool maps_empty_within(pid_t pid, bool empty)
{
	char path[64], c;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	for (int i = 0; i < 200; i++) {
		int fd = open(path, O_RDONLY);
		ssize_t got = fd >= 0 ? read(fd, &c, 1) : -1;
		if (fd >= 0)
			close(fd);
		if ((got == 0) == empty)
			return true;
		usleep(10000);
	}
	return false;
}

/* A process whose main thread has exited (pthread_exit in main) while
 * another runs: /proc/PID/maps, map_files and root are empty, the live
 * thread's /proc/TID/ files are not.  Read through it, whether the main
 * thread was gone when we first looked or went afterwards. */
static void dead_main_thread(void **state)
{
	(void)state;
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pthread_t t;
		char c;
		if (pthread_create(&t, NULL, idle_thread, NULL) != 0 || read(go[0], &c, 1) != 1)
			_exit(1);
		pthread_exit(NULL);
	}
	/* Its own copy of this binary: the same addresses, the same names. */
	assert_true(maps_empty_within(child, false));
	struct modules *alive = modules_open(files, child);
	assert_non_null(alive);
	assert_int_equal(modules_task(alive), child);
	assert_int_equal(write(go[1], "x", 1), 1);
	assert_true(maps_empty_within(child, true));

	/* Read before, named after the main thread went: the files were
	 * read with the maps; a re-read goes through a live thread. */
	struct symbolizer *s = symbolizer_new(namer_with(&plain_names), alive);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&outer_fn, FRAME_EXACT), "outer_fn");
	assert_int_equal(modules_refresh(alive), 0);
	assert_int_not_equal(modules_task(alive), child);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&outer_fn, FRAME_EXACT), "outer_fn");
	symbolizer_free(s);
	modules_close(alive);

	/* Looked at only now: the maps come from the live thread. */
	struct modules *m = modules_open(files, child);
	assert_non_null(m);
	assert_int_not_equal(modules_task(m), child);
	s = symbolizer_new(namer_with(&plain_names), m);
	assert_string_equal(joined(s, (uint64_t)(uintptr_t)&outer_fn, FRAME_EXACT), "outer_fn");
	symbolizer_free(s);
	modules_close(m);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(go[0]);
	close(go[1]);
}

/* A copy of this process, waiting until killed (or until we are gone);
 * each test reaps its own. */
static pid_t idle_copy(int go[2])
{
	assert_int_equal(pipe(go), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		char c;
		close(go[1]); /* ends with us if a failed assertion leaves it */
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	return child;
}

static void end_copy(pid_t child, int go[2])
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(go[0]);
	close(go[1]);
}

/* Two processes of one program: the second opens no file the first did
 * not, and its addresses - the same ones, after fork - are named from the
 * first one's lookups, in this binary, libc and the vDSO alike. */
static void two_processes_share_names(void **state)
{
	(void)state;
	int go[2];
	pid_t child = idle_copy(go);
	struct namer *n = namer_with(&plain_names);
	struct modules *mine = modules_open(files, getpid());
	assert_non_null(mine);
	size_t read_once = files_count(files);
	struct modules *theirs = modules_open(files, child);
	assert_non_null(theirs);
	assert_int_equal(files_count(files), read_once);
	assert_int_equal(modules_images_opened(theirs), 0);

	struct symbolizer *a = symbolizer_new(n, mine), *b = symbolizer_new(n, theirs);
	uint64_t fn = (uint64_t)(uintptr_t)&outer_fn, libc = (uint64_t)(uintptr_t)&getpid;
	uint64_t vdso = (uint64_t)getauxval(AT_SYSINFO_EHDR);
	const struct module_image *v = modules_at(mine, vdso);
	assert_non_null(v);
	assert_non_null(v->file);
	assert_ptr_equal(modules_at(theirs, vdso)->file, v->file);
	const char *const *names;
	assert_int_equal(symbolize(a, fn, FRAME_EXACT, &names), 1);
	const char *own = names[0];
	assert_string_equal(own, "outer_fn");
	char libc_name[256];
	snprintf(libc_name, sizeof(libc_name), "%s", joined(a, libc, FRAME_EXACT));
	assert_string_not_equal(libc_name, "[unknown]");
	uint64_t looked_up = namer_lookups(n);
	assert_int_equal(symbolize(b, fn, FRAME_EXACT, &names), 1);
	assert_ptr_equal(names[0], own); /* the very same name, not found again */
	assert_string_equal(joined(b, libc, FRAME_EXACT), libc_name);
	assert_int_equal(namer_lookups(n), looked_up);
	symbolizer_free(a);
	symbolizer_free(b);
	modules_close(mine);
	modules_close(theirs);
	end_copy(child, go);
}

/* A child that loads path and says where its function is: name it, as
 * dlsym found it. */
static pid_t loads(const char *path, const char *name, uint64_t *where, int go[2])
{
	int said[2];
	assert_int_equal(pipe(said), 0);
	assert_int_equal(pipe(go), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(go[1]); /* ends with us if a failed assertion leaves it */
		close(said[0]);
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		uint64_t fn = h ? (uint64_t)(uintptr_t)dlsym(h, name) : 0;
		char c;
		if (write(said[1], &fn, sizeof(fn)) != sizeof(fn) || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(said[0], where, sizeof(*where)), sizeof(*where));
	assert_true(*where != 0);
	close(said[0]);
	close(said[1]);
	return child;
}

/* A library replaced at its path between two forks (renamed into place,
 * as a package upgrade does): the same size, the same modification time,
 * the same code at the same address, another name.  Each process is named
 * from its own file; with build-ids and without. */
static void replaced_file_not_shared(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* the first child's file is deleted: map_files needs CAP_SYS_ADMIN */
	char dir[] = "/tmp/pp-replaced-XXXXXX", path[64], next[64], cmd[512];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/libupgraded.so", dir);
	snprintf(next, sizeof(next), "%s/next.so", dir);
	for (int with_id = 1; with_id >= 0; with_id--) {
		const char *versions[2] = { SPARE_LIB, SPARE_TWIN };
		const char *names[2] = { "spare_function", "spare_twinfunc" };
		pid_t child[2];
		int go[2][2];
		uint64_t fn[2];
		for (int v = 0; v < 2; v++) {
			if (with_id)
				snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", versions[v], next);
			else
				snprintf(cmd, sizeof(cmd), "objcopy --remove-section=.note.gnu.build-id '%s' '%s'",
					 versions[v], next);
			assert_int_equal(system(cmd), 0);
			snprintf(cmd, sizeof(cmd), "touch -d '2024-01-01 00:00:00' '%s' && mv '%s' '%s'",
				 next, next, path);
			assert_int_equal(system(cmd), 0);
			child[v] = loads(path, names[v], &fn[v], go[v]);
		}
		/* Forks of one parent load alike: one address, two files. */
		assert_int_equal(fn[0], fn[1]);
		struct namer *n = namer_with(&plain_names);
		for (int v = 0; v < 2; v++) {
			struct modules *m = modules_open(files, child[v]);
			assert_non_null(m);
			struct symbolizer *s = symbolizer_new(n, m);
			assert_string_equal(joined(s, fn[v], FRAME_EXACT), names[v]);
			symbolizer_free(s);
			modules_close(m);
		}
		for (int v = 0; v < 2; v++)
			end_copy(child[v], go[v]);
	}
	unlink(path);
	rmdir(dir);
}

/* No function is shown inlined into itself from its own first line: with
 * Debian 12's libc6-dbg, send()'s code is the out-of-line __libc_send
 * holding an inlined __libc_send whose call line is its own declaration,
 * and the stack read "__send;__send_[i]".  Every address of send(),
 * inline frames on: no frame followed by the same name inlined.  Skipped
 * where libc's debug info is not installed (no line of send.c). */
static void no_function_inlined_into_itself(void **state)
{
	(void)state;
	Dl_info info;
	void *sym = dlsym(RTLD_DEFAULT, "send");
	if (!sym || !dladdr(sym, &info) || !info.dli_fname)
		skip();
	int fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	bool added;
	struct file *file = files_add_fd(files, fd, info.dli_fname, &added);
	assert_non_null(file);
	struct namer *n = namer_with(&(struct symbolize_options){ true, false, false });
	uint64_t start = (uint64_t)((const char *)sym - (const char *)info.dli_fbase);
	const char *const *names;
	struct namer *with_lines = namer_with(&(struct symbolize_options){ false, true, false });
	if (!symbolize_file(with_lines, file, start, &names) || !strstr(names[0], "send.c:"))
		skip(); /* no debug info for libc here (libc6-dbg) */
	for (uint64_t a = start; a < start + 160; a++) {
		size_t k = symbolize_file(n, file, a, &names);
		for (size_t i = 1; i < k; i++) {
			size_t len = strlen(names[i - 1]);
			if (!strncmp(names[i], names[i - 1], len) && !strcmp(names[i] + len, "_[i]"))
				fail_msg("0x%llx: %s;%s", (unsigned long long)a, names[i - 1], names[i]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(own_functions_named, new_run, end_run),
		cmocka_unit_test_setup_teardown(inlined_frames_and_lines, new_run, end_run),
		cmocka_unit_test_setup_teardown(inlined_named_as_out_of_line, new_run, end_run),
		cmocka_unit_test_setup_teardown(unnamed_bytes_name_their_module, new_run, end_run),
		cmocka_unit_test_setup_teardown(unreadable_file_offsets, new_run, end_run),
		cmocka_unit_test_setup_teardown(anonymous_code, new_run, end_run),
		cmocka_unit_test_setup_teardown(jit_map_names, new_run, end_run),
		cmocka_unit_test_setup_teardown(jit_names_as_of_now, new_run, end_run),
		cmocka_unit_test_setup_teardown(file_mapped_twice_and_apart, new_run, end_run),
		cmocka_unit_test_setup_teardown(unchanged_modules_are_kept, new_run, end_run),
		cmocka_unit_test_setup_teardown(misses_wait_for_the_next_read, new_run, end_run),
		cmocka_unit_test_setup_teardown(naming_reads_no_maps, new_run, end_run),
		cmocka_unit_test_setup_teardown(removal_hook_reads_no_maps, new_run, end_run),
		cmocka_unit_test_setup_teardown(deleted_library_still_named, new_run, end_run),
		cmocka_unit_test_setup_teardown(dead_main_thread, new_run, end_run),
		cmocka_unit_test_setup_teardown(two_processes_share_names, new_run, end_run),
		cmocka_unit_test_setup_teardown(replaced_file_not_shared, new_run, end_run),
		cmocka_unit_test_setup_teardown(no_function_inlined_into_itself, new_run, end_run),
	};
	return cmocka_run_group_tests_name("symbolize", tests, NULL, NULL);
}
