/* modules.c - the target's ELF images through libdw's process reporting. */
#define _GNU_SOURCE
#include "modules.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LOADS 16
/* An address in no known module re-reads the maps, at most every 20 ms:
 * fast enough for a program still loading its libraries, bounded for one
 * that runs code from anonymous memory (a JIT) that no re-read can name. */
#define REFRESH_MIN_NS 20000000ULL

struct load_segment {
	uint64_t vaddr, offset, filesz;
};

/* Hung on each Dwfl_Module's userdata, built the first time it is needed. */
struct module_entry {
	struct module_image img;
	int n_loads;
	struct load_segment load[MAX_LOADS];
	bool usable; /* false: no ELF could be read; not retried */
};

struct modules {
	pid_t pid;
	Dwfl *dwfl;
	Dwfl_Module *last;          /* one-entry cache: unwinding reads the same module in bursts */
	struct module_entry *last_entry;
	uint64_t last_refresh_ns;
	unsigned refreshes;
};

static char *debuginfo_path;

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* libdw passes the address of the module's userdata (void **), as it does
 * for dwfl_getmodules callbacks, although the prototype says void *. */
static int free_removed(Dwfl_Module *mod, void *userdata_ptr, const char *name,
			Dwarf_Addr base, void *arg)
{
	(void)mod, (void)name, (void)base, (void)arg;
	void **userdata = userdata_ptr;
	free(*userdata);
	*userdata = NULL;
	return DWARF_CB_OK;
}

int modules_refresh(struct modules *m)
{
	m->last = NULL;
	m->last_entry = NULL;
	m->last_refresh_ns = monotonic_ns();
	m->refreshes++;
	/* A new reporting round keeps modules reported again unchanged (same
	 * name and range), with their userdata: nothing is re-read for them. */
	dwfl_report_begin(m->dwfl);
	int rc = dwfl_linux_proc_report(m->dwfl, m->pid);
	dwfl_report_end(m->dwfl, free_removed, NULL);
	return rc == 0 ? 0 : -1;
}

int modules_new_program(struct modules *m)
{
	int rc = modules_refresh(m);
	/* A program just started or exec'd is still loading its libraries:
	 * the next miss re-reads the maps at once. */
	m->last_refresh_ns = 0;
	return rc;
}

struct modules *modules_open(pid_t pid)
{
	struct modules *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->pid = pid;
	m->dwfl = dwfl_begin(&proc_callbacks);
	if (!m->dwfl || modules_new_program(m) != 0) {
		modules_close(m);
		return NULL;
	}
	m->refreshes = 0;
	return m;
}

static int free_userdata(Dwfl_Module *mod, void **userdata, const char *name,
			 Dwarf_Addr start, void *arg)
{
	(void)mod, (void)name, (void)start, (void)arg;
	free(*userdata);
	*userdata = NULL;
	return DWARF_CB_OK;
}

void modules_close(struct modules *m)
{
	if (!m)
		return;
	if (m->dwfl) {
		dwfl_getmodules(m->dwfl, free_userdata, NULL, 0);
		dwfl_end(m->dwfl);
	}
	free(m);
}

/* Reads the program headers once: where the loadable bytes sit in the
 * file, and where .eh_frame_hdr is. */
static void build_entry(Dwfl_Module *mod, struct module_entry *e)
{
	Dwarf_Addr low, high, bias;
	const char *name = dwfl_module_info(mod, NULL, &low, &high, NULL, NULL,
					    NULL, NULL);
	e->img.name = name ? name : "";
	e->img.low = low;
	e->img.high = high;

	Elf *elf = dwfl_module_getelf(mod, &bias);
	if (!elf)
		return;
	size_t size = 0;
	char *raw = elf_rawfile(elf, &size);
	size_t phnum;
	if (!raw || elf_getphdrnum(elf, &phnum) != 0)
		return;
	e->img.bias = bias;
	e->img.file = (const uint8_t *)raw;
	e->img.file_size = size;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD && e->n_loads < MAX_LOADS) {
			e->load[e->n_loads++] = (struct load_segment){
				ph.p_vaddr, ph.p_offset, ph.p_filesz };
		} else if (ph.p_type == PT_GNU_EH_FRAME) {
			e->img.eh_frame_hdr = ph.p_vaddr + bias;
			e->img.eh_frame_hdr_size = ph.p_memsz;
		}
	}
	e->usable = e->n_loads > 0;
}

static struct module_entry *entry_of(struct modules *m, Dwfl_Module *mod)
{
	if (mod == m->last)
		return m->last_entry;
	void **userdata;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!*userdata) {
		struct module_entry *e = calloc(1, sizeof(*e));
		if (!e)
			return NULL;
		build_entry(mod, e);
		*userdata = e;
	}
	m->last = mod;
	m->last_entry = *userdata;
	return m->last_entry;
}

static struct module_entry *find_entry(struct modules *m, uint64_t addr)
{
	if (m->last_entry && addr >= m->last_entry->img.low &&
	    addr < m->last_entry->img.high)
		return m->last_entry;
	Dwfl_Module *mod = dwfl_addrmodule(m->dwfl, addr);
	if (!mod && monotonic_ns() - m->last_refresh_ns >= REFRESH_MIN_NS) {
		modules_refresh(m);
		mod = dwfl_addrmodule(m->dwfl, addr);
	}
	if (!mod)
		return NULL;
	struct module_entry *e = entry_of(m, mod);
	return e && e->usable ? e : NULL;
}

const struct module_image *modules_find(struct modules *m, uint64_t addr)
{
	struct module_entry *e = find_entry(m, addr);
	return e ? &e->img : NULL;
}

int modules_read(struct modules *m, uint64_t addr, void *out, size_t len)
{
	struct module_entry *e = find_entry(m, addr);
	if (!e)
		return -1;
	uint64_t vaddr = addr - e->img.bias;
	for (int i = 0; i < e->n_loads; i++) {
		const struct load_segment *l = &e->load[i];
		if (vaddr < l->vaddr || vaddr - l->vaddr >= l->filesz)
			continue;
		uint64_t off = l->offset + (vaddr - l->vaddr);
		if (off >= e->img.file_size)
			return -1;
		/* libunwind reads aligned words: the last one of a segment may
		 * run past the file; what lies beyond reads as zero. */
		size_t avail = e->img.file_size - off;
		size_t n = len < avail ? len : avail;
		memcpy(out, e->img.file + off, n);
		memset((uint8_t *)out + n, 0, len - n);
		return 0;
	}
	return -1;
}

Dwfl *modules_dwfl(struct modules *m)
{
	return m->dwfl;
}

unsigned modules_refresh_count(const struct modules *m)
{
	return m->refreshes;
}
