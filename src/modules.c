/* modules.c - the target's mappings, reported to libdw; the images it maps. */
#define _GNU_SOURCE
#include "modules.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"

#define MAX_LOADS 16
/* An address in no known mapping re-reads the maps, at most every 20 ms:
 * fast enough for a program still loading its libraries, bounded for one
 * that jumps to addresses no re-read can explain. */
#define REFRESH_MIN_NS 20000000ULL
#define DELETED_SUFFIX " (deleted)"

struct load_segment {
	uint64_t vaddr, offset, filesz;
};

/* Hung on each Dwfl_Module's userdata when it is first reported. */
struct module_entry {
	struct modules *owner;
	/* Which file is mapped, as the maps line said. */
	char *path;               /* without " (deleted)" */
	bool deleted, vdso;
	uint64_t inode;
	uint64_t map_start, map_end; /* its first mapping: map_files/START-END */
	/* The image, read the first time the unwinder needs it. */
	bool built, usable;       /* usable: an ELF image could be read */
	struct module_image img;
	int n_loads;
	struct load_segment load[MAX_LOADS];
};

struct range {
	uint64_t start, end;
};

struct anon_region {
	uint64_t start, end;
	const char *name; /* "[anon]" or the mapping's own name */
};

struct modules {
	pid_t pid;
	Dwfl *dwfl;
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	struct module_entry *last_entry; /* unwinding reads one module in bursts */
	uint64_t last_refresh_ns;
	unsigned refreshes, generation, images_opened;
	bool changed;                    /* this refresh added or removed modules */
	char *maps;                      /* the last read of /proc/PID/maps; */
	size_t maps_cap;                 /* anon names point into it */
	struct anon_region *anon;        /* executable, not file-backed, by address */
	size_t n_anon, cap_anon;
	struct range *ranges;            /* every mapping, by address */
	size_t n_ranges, cap_ranges;
	struct report *reports;          /* modules in the maps just read */
	size_t n_reports, cap_reports;
	char vdso_name[32];              /* "[vdso: PID]", libdw's name for it */
	void (*on_removal)(void *arg);   /* runs before a module goes */
	void *on_removal_arg;
	bool frozen;                     /* never re-read: the program is gone */
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void free_entry(struct module_entry *e)
{
	if (e)
		free(e->path);
	free(e);
}

/* An image we may read: a regular file (never a device or a FIFO, which
 * could block), and when inode is nonzero, the very file that is mapped. */
static int open_image(const char *path, uint64_t inode)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (inode && (uint64_t)st.st_ino != inode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Dwfl_Callbacks.find_elf: the file the target mapped, or nothing. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct module_entry *e = *userdata;
	if (!e || e->vdso) {
		/* "[vdso: PID]": libdw reads the image from /proc/PID/mem. */
		int fd = dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
		if (e && *elfp)
			e->owner->images_opened++;
		return fd;
	}
	struct modules *m = e->owner;
	char path[PATH_MAX + 64];
	/* The mapping itself: right even if the file was deleted, replaced or
	 * lives in another mount namespace (needs CAP_SYS_ADMIN). */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)m->pid,
		 e->map_start, e->map_end);
	int fd = open_image(path, 0);
	if (fd < 0 && !e->deleted) {
		/* The path as the target sees it, then as we do: only if it is
		 * still the inode that is mapped. */
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)m->pid, e->path);
		fd = open_image(path, e->inode);
		if (fd < 0)
			fd = open_image(e->path, e->inode);
	}
	if (fd < 0)
		return -1;
	/* The original path, for .gnu_debuglink's search next to it. */
	*file_name = strdup(e->path);
	m->images_opened++;
	return fd;
}

/* libdw passes the address of the module's userdata (void **), as it does
 * for dwfl_getmodules callbacks, although the prototype says void *. */
static int module_removed(Dwfl_Module *mod, void *userdata_ptr, const char *name,
			  Dwarf_Addr base, void *arg)
{
	(void)mod, (void)name, (void)base;
	struct modules *m = arg;
	void **userdata = userdata_ptr;
	free_entry(*userdata);
	*userdata = NULL;
	m->changed = true;
	return DWARF_CB_OK;
}

/* Consecutive maps lines of one file: one module. */
struct file_group {
	const char *path; /* as in the maps line, NUL-terminated */
	uint64_t inode, low, high, first_start, first_end;
	bool exec;
};

/* A module as it will be reported to libdw; group NULL for the vDSO. */
struct report {
	const char *name;
	uint64_t low, high;
	struct file_group group;
	bool vdso;
};

static void report_module(struct modules *m, const char *name, uint64_t low, uint64_t high,
			  const struct file_group *g)
{
	Dwfl_Module *mod = dwfl_report_module(m->dwfl, name, low, high);
	if (!mod)
		return;
	void **userdata;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (*userdata)
		return; /* reported again, unchanged: nothing to re-read */
	struct module_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->owner = m;
	if (g) {
		size_t len = strlen(g->path), suffix = strlen(DELETED_SUFFIX);
		e->deleted = len > suffix && strcmp(g->path + len - suffix, DELETED_SUFFIX) == 0;
		e->path = strndup(g->path, e->deleted ? len - suffix : len);
		e->inode = g->inode;
		e->map_start = g->first_start;
		e->map_end = g->first_end;
	} else {
		e->vdso = true;
		e->path = strdup("[vdso]");
	}
	if (!e->path) {
		free(e);
		return;
	}
	*userdata = e;
	m->changed = true;
}

/* Room for one more element in *array (used of *cap, each size bytes). */
static bool room_for_one(void **array, size_t used, size_t *cap, size_t size)
{
	if (used < *cap)
		return true;
	size_t n = *cap ? *cap * 2 : 64;
	void *grown = realloc(*array, n * size);
	if (!grown)
		return false;
	*array = grown;
	*cap = n;
	return true;
}

static void add_report(struct modules *m, const char *name, uint64_t low, uint64_t high,
		       const struct file_group *g)
{
	if (!room_for_one((void **)&m->reports, m->n_reports, &m->cap_reports, sizeof(*m->reports)))
		return;
	struct report *r = &m->reports[m->n_reports++];
	*r = (struct report){ name, low, high, { 0 }, g == NULL };
	if (g)
		r->group = *g;
}

static void add_group(struct modules *m, const struct file_group *g)
{
	/* Data files (locale archives, fonts) hold no code to name. */
	if (g->path && g->exec)
		add_report(m, g->path, g->low, g->high, g);
}

static void add_anon(struct modules *m, uint64_t start, uint64_t end, const char *name)
{
	if (!room_for_one((void **)&m->anon, m->n_anon, &m->cap_anon, sizeof(*m->anon)))
		return;
	m->anon[m->n_anon++] = (struct anon_region){ start, end, name };
}

static void add_range(struct modules *m, uint64_t start, uint64_t end)
{
	if (!room_for_one((void **)&m->ranges, m->n_ranges, &m->cap_ranges, sizeof(*m->ranges)))
		return;
	m->ranges[m->n_ranges++] = (struct range){ start, end };
}

/* The whole of /proc/PID/maps into m->maps, NUL-terminated.  Bytes or -1. */
static ssize_t read_maps(struct modules *m)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)m->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	for (;;) {
		if (m->maps_cap - len < 4096) {
			size_t cap = m->maps_cap ? m->maps_cap * 2 : 65536;
			char *n = realloc(m->maps, cap);
			if (!n) {
				close(fd);
				return -1;
			}
			m->maps = n;
			m->maps_cap = cap;
		}
		ssize_t got = read(fd, m->maps + len, m->maps_cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			close(fd);
			return -1;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	m->maps[len] = '\0';
	return (ssize_t)len;
}

/* Parses the maps just read into m->reports and m->anon. */
static void parse_maps(struct modules *m, char *maps, size_t len)
{
	m->n_anon = m->n_reports = m->n_ranges = 0;
	struct file_group g = { 0 };
	uint64_t prev_end = 0; /* where the previous line's mapping ended */
	char *line = maps, *end = maps + len;
	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *next = nl ? nl + 1 : end;
		if (nl)
			*nl = '\0'; /* paths and anon names become strings */
		struct map_entry me;
		if (parse_maps_line(line, (size_t)((nl ? nl : end) - line), &me) != 0) {
			line = next;
			continue;
		}
		add_range(m, me.start, me.end);
		bool exec = me.perms[2] == 'x';
		bool adjacent = me.start == prev_end;
		prev_end = me.end;
		if (me.path_len && me.path[0] == '/') {
			/* A module's segments are contiguous (its .bss, anonymous,
			 * may sit between them); the same file mapped elsewhere
			 * (an ELF reader's own mmap of it) is another mapping. */
			if (g.path && adjacent && me.inode == g.inode && strcmp(me.path, g.path) == 0) {
				g.high = me.end; /* another part of the same file */
			} else {
				add_group(m, &g);
				g = (struct file_group){ me.path, me.inode, me.start, me.end,
							 me.start, me.end, false };
			}
			g.exec |= exec;
		} else if (exec && me.path_len == 6 && memcmp(me.path, "[vdso]", 6) == 0) {
			add_report(m, m->vdso_name, me.start, me.end, NULL);
		} else if (exec) {
			/* JIT code, an executable heap or stack, [vsyscall]. */
			add_anon(m, me.start, me.end, me.path_len ? me.path : "[anon]");
		}
		line = next;
	}
	add_group(m, &g);
}

/* Will mod's addresses still mean what they meant?  Yes if the same file
 * is reported at the same start: while the dynamic linker maps, remaps and
 * protects a library its end moves, not what its addresses name. */
static int check_kept(Dwfl_Module *mod, void **userdata, const char *name,
		      Dwarf_Addr start, void *arg)
{
	(void)mod, (void)userdata;
	struct modules *m = arg;
	for (size_t i = 0; i < m->n_reports; i++)
		if (m->reports[i].low == start && strcmp(m->reports[i].name, name) == 0)
			return DWARF_CB_OK;
	m->changed = true; /* this one goes */
	return DWARF_CB_ABORT;
}

int modules_refresh(struct modules *m)
{
	if (m->frozen)
		return 0;
	m->last_refresh_ns = monotonic_ns();
	m->refreshes++;
	m->changed = false;
	ssize_t len = read_maps(m);
	if (len < 0)
		return -1;
	parse_maps(m, m->maps, (size_t)len);
	if (m->on_removal) {
		/* What is known of addresses in a module that goes (dlclose)
		 * must be used before it goes. */
		dwfl_getmodules(m->dwfl, check_kept, m, 0);
		if (m->changed)
			m->on_removal(m->on_removal_arg);
		m->changed = false;
	}

	/* A new reporting round keeps modules reported again unchanged (same
	 * name and range), with their userdata: nothing is re-read for them. */
	m->last_entry = NULL; /* the hook's look-ups may have cached one that goes */
	dwfl_report_begin(m->dwfl);
	for (size_t i = 0; i < m->n_reports; i++) {
		const struct report *r = &m->reports[i];
		report_module(m, r->name, r->low, r->high, r->vdso ? NULL : &r->group);
	}
	int rc = dwfl_report_end(m->dwfl, module_removed, m);
	if (m->changed)
		m->generation++;
	return rc == 0 ? 0 : -1;
}

void modules_on_removal(struct modules *m, void (*fn)(void *arg), void *arg)
{
	m->on_removal = fn;
	m->on_removal_arg = arg;
}

void modules_freeze(struct modules *m)
{
	m->frozen = true;
}

struct modules *modules_open(pid_t pid, const char *debuginfo_path)
{
	struct modules *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->pid = pid;
	snprintf(m->vdso_name, sizeof(m->vdso_name), "[vdso: %d]", (int)pid);
	if (debuginfo_path && !(m->debuginfo_path = strdup(debuginfo_path))) {
		free(m);
		return NULL;
	}
	m->callbacks = (Dwfl_Callbacks){
		.find_elf = find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &m->debuginfo_path,
	};
	m->dwfl = dwfl_begin(&m->callbacks);
	if (!m->dwfl || modules_refresh(m) != 0) {
		modules_close(m);
		return NULL;
	}
	/* A program just started or exec'd is still loading its libraries:
	 * the first miss re-reads the maps at once. */
	m->last_refresh_ns = 0;
	m->refreshes = 0;
	return m;
}

static int free_userdata(Dwfl_Module *mod, void **userdata, const char *name,
			 Dwarf_Addr start, void *arg)
{
	(void)mod, (void)name, (void)start, (void)arg;
	free_entry(*userdata);
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
	free(m->debuginfo_path);
	free(m->maps);
	free(m->anon);
	free(m->ranges);
	free(m->reports);
	free(m);
}

/* Reads the program headers once: where the loadable bytes sit in the
 * file, and where .eh_frame_hdr is. */
static void build_entry(Dwfl_Module *mod, struct module_entry *e)
{
	Dwarf_Addr low, high, bias;
	const char *name = dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	e->built = true;
	e->img.name = e->vdso ? "[vdso]" : name ? name : "";
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

int modules_mapping_of(const struct modules *m, uint64_t addr, uint64_t *start,
		       uint64_t *end)
{
	size_t lo = 0, hi = m->n_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < m->ranges[mid].start) {
			hi = mid;
		} else if (addr >= m->ranges[mid].end) {
			lo = mid + 1;
		} else {
			*start = m->ranges[mid].start;
			*end = m->ranges[mid].end;
			return 0;
		}
	}
	return -1;
}

const char *modules_anon_name(const struct modules *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n_anon;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < m->anon[mid].start)
			hi = mid;
		else if (addr >= m->anon[mid].end)
			lo = mid + 1;
		else
			return m->anon[mid].name;
	}
	return NULL;
}

Dwfl_Module *modules_dwfl_addrmodule(Dwfl *dwfl, uint64_t addr)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr low, high;
	if (mod && (!dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL) ||
		    addr < low || addr >= high))
		return NULL;
	return mod;
}

Dwfl_Module *modules_dwfl_module(struct modules *m, uint64_t addr)
{
	return modules_dwfl_addrmodule(m->dwfl, addr);
}

static struct module_entry *find_entry(struct modules *m, uint64_t addr)
{
	struct module_entry *e = m->last_entry;
	if (e && addr >= e->img.low && addr < e->img.high)
		return e;
	Dwfl_Module *mod = modules_dwfl_addrmodule(m->dwfl, addr);
	if (!mod && !m->frozen && !modules_anon_name(m, addr) &&
	    monotonic_ns() - m->last_refresh_ns >= REFRESH_MIN_NS) {
		modules_refresh(m);
		mod = modules_dwfl_addrmodule(m->dwfl, addr);
	}
	if (!mod)
		return NULL;
	void **userdata;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	e = *userdata;
	if (!e)
		return NULL;
	if (!e->built)
		build_entry(mod, e);
	if (!e->usable)
		return NULL;
	m->last_entry = e;
	return e;
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

unsigned modules_generation(const struct modules *m)
{
	return m->generation;
}

unsigned modules_refresh_count(const struct modules *m)
{
	return m->refreshes;
}

unsigned modules_images_opened(const struct modules *m)
{
	return m->images_opened;
}
