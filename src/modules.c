/* modules.c - the target's mappings, reported to libdw; the images it maps. */
#define _GNU_SOURCE
#include "modules.h"

#include <dirent.h>
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

#include "layout.h"
#include "procfs.h"

#define MAX_LOADS LAYOUT_MAX_LOADS
/* An address in no known mapping re-reads the maps, at most every 20 ms:
 * fast enough for a program still loading its libraries, bounded for one
 * that jumps to addresses no re-read can explain. */
#define REFRESH_MIN_NS 20000000ULL
#define DELETED_SUFFIX " (deleted)"

struct load_segment {
	uint64_t vaddr, offset, filesz;
};

/* Which file: device and inode, as the maps print them. */
struct file_id {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
};

static bool same_file(const struct file_id *a, const struct file_id *b)
{
	return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor && a->inode == b->inode;
}

/* Hung on each Dwfl_Module's userdata when it is first reported. */
struct module_entry {
	struct modules *owner;
	/* Which file is mapped, as the maps line said. */
	char *path;               /* without " (deleted)" */
	bool deleted, vdso;
	bool opaque;              /* mapped code no program header explains: no ELF */
	struct file_id id;
	uint64_t bias;            /* this copy's: target address = ELF vaddr + bias */
	uint64_t map_start, map_end; /* one of its mappings: map_files/START-END */
	/* The image, read the first time the unwinder needs it. */
	bool built, usable;       /* usable: an ELF image could be read */
	bool trusted;             /* libdw's bias is ours (false only if it is not) */
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

/* A mapping of a file, or the vDSO, while the maps are parsed. */
struct file_row {
	uint64_t start, end, offset;
	struct file_id id;
	const char *path; /* NUL-terminated, in the maps buffer */
	bool exec, vdso;
	int report;       /* the module it belongs to, -1 if none */
};

/* A module as it will be reported to libdw. */
struct report {
	const char *name; /* the path as the maps say it, or "[vdso: PID]" */
	uint64_t low, high;
	const char *path;
	struct file_id id;
	uint64_t bias;
	uint64_t map_start, map_end;
	bool vdso, opaque;
	Dwfl_Module *mod; /* once reported */
};

/* Which module an address in a mapping belongs to. */
struct owner {
	uint64_t start, end;
	Dwfl_Module *mod;
};

/* A mapped file's program headers, read once while it stays mapped. */
struct file_layout {
	struct file_id id;
	bool ok, seen;
	struct elf_layout l;
};

struct modules {
	pid_t pid;                       /* the process */
	pid_t task;                      /* whose /proc/TASK/ files we read */
	Dwfl *dwfl;
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	struct module_entry *last_entry; /* unwinding reads one module in bursts */
	const struct owner *last_owner;
	uint64_t last_refresh_ns;
	unsigned refreshes, generation, images_opened;
	bool changed;                    /* this refresh added or removed modules */
	bool stale;                      /* libdw kept a module for another file */
	char *maps;                      /* the last read of /proc/PID/maps; */
	size_t maps_cap;                 /* anon names point into it */
	struct anon_region *anon;        /* executable, not file-backed, by address */
	size_t n_anon, cap_anon;
	struct range *ranges;            /* every mapping, by address */
	size_t n_ranges, cap_ranges;
	struct file_row *rows;           /* the maps just read: files and the vDSO */
	size_t n_rows, cap_rows;
	size_t *order;                   /* rows by file, while they are grouped */
	size_t cap_order;
	struct report *reports;          /* modules in the maps just read */
	size_t n_reports, cap_reports;
	struct owner *owners;            /* module of each mapping, by address */
	size_t n_owners, cap_owners;
	struct file_layout *layouts;     /* program headers of the files mapped */
	size_t n_layouts, cap_layouts;
	char vdso_name[32];              /* "[vdso: TASK]", libdw's name for it */
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

/* The file mapped at [start, end): the mapping itself, right even if the
 * file was deleted, replaced or lives in another mount namespace (needs
 * CAP_SYS_ADMIN); else the path as the target sees it, then as we do,
 * only if it is still the inode that is mapped. */
static int open_mapped(const struct modules *m, const char *path, bool deleted, uint64_t inode,
		       uint64_t start, uint64_t end)
{
	char proc[PATH_MAX + 64];
	snprintf(proc, sizeof(proc), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)m->task,
		 start, end);
	int fd = open_image(proc, 0);
	if (fd < 0 && !deleted) {
		snprintf(proc, sizeof(proc), "/proc/%d/root%s", (int)m->task, path);
		fd = open_image(proc, inode);
		if (fd < 0)
			fd = open_image(path, inode);
	}
	return fd;
}

static void ensure_live_task(struct modules *m);

/* Dwfl_Callbacks.find_elf: the file the target mapped, or nothing. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct module_entry *e = *userdata;
	if (e) /* the main thread may have exited since the maps were read */
		ensure_live_task(e->owner);
	if (!e || e->vdso) {
		/* "[vdso: TASK]": libdw reads the image from /proc/TASK/mem. */
		int fd = dwfl_linux_proc_find_elf(mod, userdata, e ? e->owner->vdso_name : name,
						  base, file_name, elfp);
		if (e && *elfp)
			e->owner->images_opened++;
		return fd;
	}
	if (e->opaque)
		return -1; /* its bytes are no place we can name from the file */
	struct modules *m = e->owner;
	int fd = open_mapped(m, e->path, e->deleted, e->id.inode, e->map_start, e->map_end);
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

/* Is e the module r describes: the same file, copy and kind?  libdw keeps
 * a module reported again with the same name and range, whatever it is. */
static bool entry_is(const struct module_entry *e, const struct report *r)
{
	return e->vdso == r->vdso && e->opaque == r->opaque &&
	       (r->vdso || (same_file(&e->id, &r->id) && e->bias == r->bias));
}

static void report_module(struct modules *m, struct report *r)
{
	Dwfl_Module *mod = dwfl_report_module(m->dwfl, r->name, r->low, r->high);
	r->mod = mod;
	if (!mod)
		return;
	void **userdata;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	struct module_entry *e = *userdata;
	if (e) {
		/* Reported again, unchanged: nothing to re-read.  One of its
		 * mappings as they are now, for map_files. */
		if (!entry_is(e, r))
			m->stale = true;
		e->map_start = r->map_start;
		e->map_end = r->map_end;
		return;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->owner = m;
	if (!r->vdso) {
		size_t len = strlen(r->path), suffix = strlen(DELETED_SUFFIX);
		e->deleted = len > suffix && strcmp(r->path + len - suffix, DELETED_SUFFIX) == 0;
		e->path = strndup(r->path, e->deleted ? len - suffix : len);
		e->id = r->id;
		e->bias = r->bias;
		e->opaque = r->opaque;
		e->map_start = r->map_start;
		e->map_end = r->map_end;
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

static struct report *add_report(struct modules *m, const struct file_row *row, uint64_t low,
				 uint64_t high)
{
	if (!room_for_one((void **)&m->reports, m->n_reports, &m->cap_reports, sizeof(*m->reports)))
		return NULL;
	struct report *r = &m->reports[m->n_reports++];
	*r = (struct report){ row->vdso ? m->vdso_name : row->path, low, high, row->path, row->id,
			      0, row->start, row->end, row->vdso, false, NULL };
	return r;
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

static void add_row(struct modules *m, const struct file_row *row)
{
	if (!room_for_one((void **)&m->rows, m->n_rows, &m->cap_rows, sizeof(*m->rows)))
		return;
	m->rows[m->n_rows++] = *row;
}

/* The whole of /proc/TASK/maps into m->maps, NUL-terminated.  Bytes or -1. */
static ssize_t read_maps_of(struct modules *m, pid_t task)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)task);
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

static void use_task(struct modules *m, pid_t task)
{
	m->task = task;
	snprintf(m->vdso_name, sizeof(m->vdso_name), "[vdso: %d]", (int)task);
}

/* Does /proc/TASK/ still show the process's memory?  Its maps are empty
 * once the thread has exited (a zombie leader), absent once it is reaped. */
static bool task_has_maps(pid_t task)
{
	char path[64], c;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)task);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t got = read(fd, &c, 1);
	close(fd);
	return got == 1;
}

/* A task whose /proc/TASK/ files describe the process: m->task while it
 * does, else the leader, else any live thread. */
static void ensure_live_task(struct modules *m)
{
	if (task_has_maps(m->task))
		return;
	if (m->task != m->pid && task_has_maps(m->pid)) {
		use_task(m, m->pid);
		return;
	}
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)m->pid);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (!*end && tid > 0 && tid != m->pid && tid != m->task && task_has_maps((pid_t)tid)) {
			use_task(m, (pid_t)tid);
			break;
		}
	}
	closedir(d);
}

/* The maps, from a task that still has them.  A process whose main thread
 * has exited (pthread_exit in main; "Zl" in ps) while others run shows
 * empty /proc/PID/maps, map_files and root: its live threads' own
 * /proc/TID/ files still show the process's memory. */
static ssize_t read_maps(struct modules *m)
{
	ssize_t len = read_maps_of(m, m->task);
	if (len > 0)
		return len;
	pid_t was = m->task;
	ensure_live_task(m);
	return m->task == was ? len : read_maps_of(m, m->task);
}

/* The program headers of the file row maps, read once while it stays
 * mapped; NULL if it cannot be opened or is no executable or library. */
static const struct elf_layout *layout_of(struct modules *m, const struct file_row *row)
{
	for (size_t i = 0; i < m->n_layouts; i++) {
		struct file_layout *fl = &m->layouts[i];
		if (same_file(&fl->id, &row->id)) {
			fl->seen = true;
			return fl->ok ? &fl->l : NULL;
		}
	}
	if (!room_for_one((void **)&m->layouts, m->n_layouts, &m->cap_layouts, sizeof(*m->layouts)))
		return NULL;
	struct file_layout *fl = &m->layouts[m->n_layouts++];
	fl->id = row->id;
	fl->seen = true;
	fl->ok = false;
	size_t len = strlen(row->path), suffix = strlen(DELETED_SUFFIX);
	bool deleted = len > suffix && strcmp(row->path + len - suffix, DELETED_SUFFIX) == 0;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.*s", (int)(deleted ? len - suffix : len), row->path);
	int fd = open_mapped(m, path, deleted, row->id.inode, row->start, row->end);
	if (fd >= 0) {
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		fl->ok = layout_from_elf(elf, &fl->l) == 0;
		elf_end(elf);
		close(fd);
	}
	return fl->ok ? &fl->l : NULL;
}

/* Forgets the layouts of files no longer mapped: a new file may get the
 * inode of one deleted. */
static void drop_unseen_layouts(struct modules *m)
{
	size_t kept = 0;
	for (size_t i = 0; i < m->n_layouts; i++)
		if (m->layouts[i].seen) {
			m->layouts[kept] = m->layouts[i];
			m->layouts[kept++].seen = false;
		}
	m->n_layouts = kept;
}

static int by_file_then_address(const void *a, const void *b, void *arg)
{
	const struct file_row *rows = arg, *x = &rows[*(const size_t *)a], *y = &rows[*(const size_t *)b];
	if (x->id.dev_major != y->id.dev_major)
		return x->id.dev_major < y->id.dev_major ? -1 : 1;
	if (x->id.dev_minor != y->id.dev_minor)
		return x->id.dev_minor < y->id.dev_minor ? -1 : 1;
	if (x->id.inode != y->id.inode)
		return x->id.inode < y->id.inode ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Code of the file that no copy of it explains: a module of its own with
 * no ELF, named after the file and nothing in it. */
static void add_opaque(struct modules *m, struct file_row *row)
{
	struct report *r = add_report(m, row, row->start, row->end);
	if (!r)
		return;
	r->opaque = true;
	row->report = (int)(r - m->reports);
}

/* The n rows of one file (indices in idx, by address): one module per
 * loaded copy of it, at the copy's bias, and its code no copy explains on
 * its own. */
static void place_file(struct modules *m, const size_t *idx, size_t n)
{
	bool has_code = false;
	for (size_t i = 0; i < n; i++)
		has_code |= m->rows[idx[i]].exec;
	if (!has_code)
		return; /* data files (locale archives, fonts) hold no code to name */
	struct file_mapping *maps = calloc(n, sizeof(*maps));
	int *copy = calloc(n, sizeof(*copy));
	uint64_t *bias = calloc(n, sizeof(*bias));
	const struct elf_layout *l = layout_of(m, &m->rows[idx[0]]);
	size_t copies = 0;
	if (maps && copy && bias && l) {
		for (size_t i = 0; i < n; i++) {
			const struct file_row *row = &m->rows[idx[i]];
			maps[i] = (struct file_mapping){ row->start, row->end, row->offset, row->exec };
		}
		copies = layout_place(l, maps, n, copy, bias);
	} else if (copy) {
		for (size_t i = 0; i < n; i++)
			copy[i] = -1;
	}
	for (size_t c = 0; c < copies; c++) {
		uint64_t low, high;
		if (layout_range(l, bias[c], &low, &high) != 0)
			continue; /* its code is left unexplained below */
		struct report *r = NULL;
		for (size_t i = 0; i < n; i++) {
			struct file_row *row = &m->rows[idx[i]];
			if (copy[i] != (int)c)
				continue;
			if (!r && row->exec) {
				r = add_report(m, row, low, high);
				if (!r)
					break;
				r->bias = bias[c];
			}
		}
		for (size_t i = 0; r && i < n; i++)
			if (copy[i] == (int)c)
				m->rows[idx[i]].report = (int)(r - m->reports);
	}
	for (size_t i = 0; i < n; i++) {
		struct file_row *row = &m->rows[idx[i]];
		if (row->exec && row->report < 0)
			add_opaque(m, row);
	}
	free(maps);
	free(copy);
	free(bias);
}

/* Parses the maps just read into rows, reports, m->anon and m->ranges. */
static void parse_maps(struct modules *m, char *maps, size_t len)
{
	m->n_anon = m->n_reports = m->n_ranges = m->n_rows = 0;
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
		struct file_row row = { me.start, me.end, me.offset,
					{ me.dev_major, me.dev_minor, me.inode },
					me.path, exec, false, -1 };
		if (me.path_len && me.path[0] == '/') {
			add_row(m, &row);
		} else if (exec && me.path_len == 6 && memcmp(me.path, "[vdso]", 6) == 0) {
			row.vdso = true;
			add_row(m, &row);
		} else if (exec) {
			/* JIT code, an executable heap or stack, [vsyscall]. */
			add_anon(m, me.start, me.end, me.path_len ? me.path : "[anon]");
		}
		line = next;
	}

	/* A file's mappings, wherever they lie, by its identity. */
	if (m->cap_order < m->n_rows) {
		size_t *o = realloc(m->order, m->n_rows * sizeof(*o));
		if (!o)
			return;
		m->order = o;
		m->cap_order = m->n_rows;
	}
	size_t n_files = 0;
	for (size_t i = 0; i < m->n_rows; i++) {
		if (m->rows[i].vdso) {
			struct report *r = add_report(m, &m->rows[i], m->rows[i].start, m->rows[i].end);
			if (r)
				m->rows[i].report = (int)(r - m->reports);
		} else {
			m->order[n_files++] = i;
		}
	}
	qsort_r(m->order, n_files, sizeof(*m->order), by_file_then_address, m->rows);
	for (size_t i = 0; i < n_files;) {
		size_t j = i + 1;
		while (j < n_files && same_file(&m->rows[m->order[j]].id, &m->rows[m->order[i]].id))
			j++;
		place_file(m, &m->order[i], j - i);
		i = j;
	}
	drop_unseen_layouts(m);
}

/* The module of each mapping, by address, once libdw has them. */
static void build_owners(struct modules *m)
{
	m->n_owners = 0;
	m->last_owner = NULL;
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct file_row *row = &m->rows[i];
		const struct report *r = row->report < 0 ? NULL : &m->reports[row->report];
		if (!r || !r->mod)
			continue;
		void **userdata;
		dwfl_module_info(r->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		if (!*userdata || !entry_is(*userdata, r))
			continue; /* libdw holds another file under this name and range */
		if (!room_for_one((void **)&m->owners, m->n_owners, &m->cap_owners, sizeof(*m->owners)))
			return;
		m->owners[m->n_owners++] = (struct owner){ row->start, row->end, r->mod };
	}
}

/* Will mod's addresses still mean what they meant?  Yes if the same file
 * is reported as the same copy at the same place. */
static int check_kept(Dwfl_Module *mod, void **userdata, const char *name,
		      Dwarf_Addr start, void *arg)
{
	struct modules *m = arg;
	Dwarf_Addr low, high;
	dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	for (size_t i = 0; i < m->n_reports; i++) {
		const struct report *r = &m->reports[i];
		if (r->low == start && r->high == high && strcmp(r->name, name) == 0 &&
		    (!*userdata || entry_is(*userdata, r)))
			return DWARF_CB_OK;
	}
	m->changed = true; /* this one goes */
	return DWARF_CB_ABORT;
}

static void report_all(struct modules *m)
{
	dwfl_report_begin(m->dwfl);
	for (size_t i = 0; i < m->n_reports; i++)
		report_module(m, &m->reports[i]);
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
	m->last_owner = NULL;
	m->stale = false;
	report_all(m);
	int rc = dwfl_report_end(m->dwfl, module_removed, m);
	if (m->stale) {
		/* libdw kept a module for a name and range that now hold
		 * another file (or copy): start afresh, every module anew. */
		dwfl_report_begin(m->dwfl);
		dwfl_report_end(m->dwfl, module_removed, m);
		report_all(m);
		rc = dwfl_report_end(m->dwfl, module_removed, m);
		m->changed = true;
	}
	build_owners(m);
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
	elf_version(EV_CURRENT);
	m->pid = pid;
	use_task(m, pid);
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
	free(m->rows);
	free(m->order);
	free(m->reports);
	free(m->owners);
	free(m->layouts);
	free(m);
}

/* Reads the program headers once: where the loadable bytes sit in the
 * file, and where .eh_frame_hdr is. */
static void build_entry(Dwfl_Module *mod, struct module_entry *e)
{
	Dwarf_Addr low, high, bias;
	const char *name = dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	e->built = true;
	e->trusted = true;
	e->img.name = e->vdso ? "[vdso]" : name ? name : "";
	e->img.low = low;
	e->img.high = high;

	Elf *elf = dwfl_module_getelf(mod, &bias);
	if (!elf)
		return;
	if (!e->vdso && bias != e->bias) {
		/* Cannot happen (libdw's bias is low - base, as layout.c
		 * computes it): if it does, nothing from this module. */
		e->trusted = false;
		return;
	}
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

/* The module whose mapping holds addr, as of the last read of the maps.
 * Not libdw's dwfl_addrmodule: a module's range there runs from its
 * first segment to its last, gaps included (lld's are 2 MiB), and two
 * copies of a file may overlap; only the mappings say whose an address
 * is. */
static const struct owner *owner_of(struct modules *m, uint64_t addr)
{
	const struct owner *o = m->last_owner;
	if (o && addr >= o->start && addr < o->end)
		return o;
	size_t lo = 0, hi = m->n_owners;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < m->owners[mid].start) {
			hi = mid;
		} else if (addr >= m->owners[mid].end) {
			lo = mid + 1;
		} else {
			m->last_owner = &m->owners[mid];
			return m->last_owner;
		}
	}
	return NULL;
}

static struct module_entry *entry_of(Dwfl_Module *mod)
{
	void **userdata;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	struct module_entry *e = *userdata;
	if (e && !e->built)
		build_entry(mod, e);
	return e;
}

/* The module of the mapping holding addr; an address in no mapping we
 * know re-reads the maps first (rate limited): a library loaded since. */
static Dwfl_Module *module_at(struct modules *m, uint64_t addr)
{
	const struct owner *o = owner_of(m, addr);
	if (!o && !m->frozen && !modules_anon_name(m, addr) &&
	    monotonic_ns() - m->last_refresh_ns >= REFRESH_MIN_NS) {
		modules_refresh(m);
		o = owner_of(m, addr);
	}
	return o ? o->mod : NULL;
}

static struct module_entry *usable_entry(struct modules *m, Dwfl_Module *mod)
{
	struct module_entry *e = mod ? entry_of(mod) : NULL;
	if (!e || !e->usable || !e->trusted)
		return NULL;
	m->last_entry = e;
	return e;
}

const struct module_image *modules_find(struct modules *m, uint64_t addr)
{
	struct module_entry *e = usable_entry(m, module_at(m, addr));
	return e ? &e->img : NULL;
}

int modules_read(struct modules *m, uint64_t addr, void *out, size_t len)
{
	/* The module mapped there; else, where nothing of a module is mapped,
	 * the one being unwound: its tables are where its program headers
	 * put them even in a copy that maps only some of its code (node's
	 * second mapping of its text). */
	struct module_entry *e = NULL;
	const struct owner *o = owner_of(m, addr);
	if (o)
		e = usable_entry(m, o->mod);
	else if (m->last_entry && addr >= m->last_entry->img.low && addr < m->last_entry->img.high)
		e = m->last_entry;
	else
		e = usable_entry(m, module_at(m, addr));
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

Dwfl_Module *modules_dwfl_module(struct modules *m, uint64_t addr)
{
	const struct owner *o = owner_of(m, addr);
	if (!o)
		return NULL;
	struct module_entry *e = entry_of(o->mod);
	return e && !e->trusted ? NULL : o->mod;
}

Dwfl *modules_dwfl(struct modules *m)
{
	return m->dwfl;
}

pid_t modules_task(const struct modules *m)
{
	return m->task;
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
