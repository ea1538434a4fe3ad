/* fuzz_elf.c - an ELF image the target's owner wrote, taken from memory
 * (files_add_memory, as the vDSO or a deleted library is): its program
 * headers (layout.h), build-id, where .eh_frame_hdr or .eh_frame is, the
 * search table made of .eh_frame (eh_frame.h), reads of its loadable
 * bytes, the placing of mappings of it (layout_place), then libdw's view
 * of it (file_dwfl_module) and the names symbolize gives at a few of its
 * addresses: symbol table, DWARF scopes, inlined functions and lines.
 *
 * Debug files are looked for nowhere that exists: the image has no path,
 * the debuginfo path names no folder, and debuginfod is off.  Only a dwz
 * file an image's .gnu_debugaltlink names by absolute path is tried there,
 * as the profiler would (debuginfo.h: only a regular file, never a
 * blocking open, taken only with the build-id it must have). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "name/symbolize.h"
#include "unwind/eh_frame.h"
#include "unwind/files.h"
#include "unwind/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);
const char *__lsan_default_suppressions(void);

/* libdw 0.188's dwarf_getscopes loses the scopes it found when its
 * second pass (abstract origins) fails on broken DWARF: it returns -1 and
 * neither hands the array over nor frees it.  A leak of libdw's, a few
 * dozen bytes per address named in such a file (symbolize names each
 * address once), not ours to free, and the only leak allowed: full
 * stacks (the slow unwinder: libdw keeps no frame pointers) name exactly
 * that call. */
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0:malloc_context_size=10";
}

const char *__lsan_default_suppressions(void)
{
	return "leak:dwarf_getscopes\n";
}

#define NOWHERE "/nonexistent/ptrace_profiler-fuzz"

static void read_some(struct file *f, uint64_t vaddr)
{
	uint8_t buf[64];
	if (file_read(f, vaddr, buf, sizeof(buf)) == 0) {
		/* every byte was written: ASan and MSan-like checks see a use */
		volatile uint8_t sum = 0;
		for (size_t i = 0; i < sizeof(buf); i++)
			sum ^= buf[i];
	}
}

static void place(const struct elf_layout *l)
{
	struct file_mapping maps[LAYOUT_MAX_LOADS];
	int copy[LAYOUT_MAX_LOADS];
	uint64_t bias[LAYOUT_MAX_LOADS], biases[LAYOUT_MAX_LOADS];
	uint64_t at = 0x7f0000000000ULL;
	for (size_t i = 0; i < l->n_loads; i++) {
		const struct elf_load *e = &l->load[i];
		uint64_t off = e->offset & ~0xfffULL;
		uint64_t len = ((e->offset + e->filesz + 0xfff) & ~0xfffULL) - off;
		maps[i] = (struct file_mapping){ at + (e->vaddr & ~0xfffULL),
						 at + (e->vaddr & ~0xfffULL) + (len ? len : 0x1000),
						 off, e->exec };
		size_t k = layout_biases(l, &maps[i], biases, LAYOUT_MAX_LOADS);
		if (k > l->n_loads)
			abort();
	}
	size_t copies = layout_place(l, maps, l->n_loads, copy, bias);
	if (copies > l->n_loads)
		abort();
	for (size_t i = 0; i < l->n_loads; i++) {
		if (copy[i] < -1 || copy[i] >= (int)copies)
			abort();
	}
	for (size_t i = 0; i < copies; i++) {
		uint64_t low, high;
		if (layout_range(l, bias[i], &low, &high) == 0 && high < low)
			abort();
	}
}

static void name_at(struct namer *n, struct file *f, uint64_t vaddr)
{
	const char *const *names;
	size_t k = symbolize_file(n, f, vaddr, &names);
	if (k > 1 + SYMBOLIZE_MAX_INLINE)
		abort();
	for (size_t i = 0; i < k; i++)
		if (!names[i] || strlen(names[i]) > 1 << 20)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsetenv("DEBUGINFOD_URLS");
	/* A run of its own (registry and namer): a name cached for one
	 * input must not stand for the next one's. */
	struct symbolize_options o = { .inline_frames = true, .lines = true };
	struct namer *namer = namer_new(&o);
	struct files *fs = files_new(NOWHERE);
	if (!fs || !namer) {
		namer_free(namer);
		files_free(fs);
		return 0;
	}
	bool added;
	struct file *f = files_add_memory(fs, data, size, "[fuzz]", &added);
	if (f) {
		if (!added || files_count(fs) != 1)
			abort();
		const struct elf_layout *l = file_layout(f);
		if (!l->n_loads || l->n_loads > LAYOUT_MAX_LOADS)
			abort();
		for (size_t i = 0; i < l->n_loads; i++) {
			read_some(f, l->load[i].vaddr);
			read_some(f, l->load[i].vaddr + l->load[i].filesz / 2);
			read_some(f, l->load[i].vaddr + l->load[i].filesz - 1);
		}
		uint64_t hdr_size, hdr = file_eh_frame_hdr(f, &hdr_size);
		if (hdr)
			read_some(f, hdr);
		size_t n;
		uint64_t base;
		const struct eh_frame_entry *t = file_eh_frame_index(f, &n, &base);
		for (size_t i = 0; t && i < n; i++) {
			read_some(f, base + (uint64_t)(int64_t)t[i].fde);
			if (i && t[i - 1].start > t[i].start)
				abort();
		}
		place(l);
		/* The same bytes again: the same file, if it has a build-id. */
		struct file *again = files_add_memory(fs, data, size, "[fuzz]", &added);
		if (!again || (again == f) == added)
			abort();
		if (file_dwfl_module(f)) {
			name_at(namer, f, l->base);
			for (size_t i = 0; i < l->n_loads && i < 4; i++)
				if (l->load[i].exec) {
					name_at(namer, f, l->load[i].vaddr);
					name_at(namer, f, l->load[i].vaddr + l->load[i].memsz / 2);
					name_at(namer, f, l->load[i].vaddr + l->load[i].memsz - 1);
				}
			for (size_t i = 0; t && i < n && i < 8; i++)
				name_at(namer, f, base + (uint64_t)(int64_t)t[i].start);
		}
	}
	namer_free(namer);
	files_free(fs);
	return 0;
}
