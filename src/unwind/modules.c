/* modules.c - one process's mappings, and which file of the run's
 * registry each module is. */
#define _GNU_SOURCE
#include "unwind/modules.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "base/descriptors.h"
#include "base/hash_index.h"
#include "base/regular_file.h"
#include "unwind/image.h"
#include "unwind/layout.h"
#include "tracee/procfs.h"
#include "base/clock.h"

/* An address in no known mapping re-reads the maps, at most every 20 ms
 * and never sooner than 50 times the last read took after it ended: fast
 * enough for a program still loading its libraries, bounded for one that
 * jumps to addresses no re-read can explain - whose re-reads take at most
 * a fiftieth of the time however many mappings it has (30000: 10-25 ms a
 * read, one every 0.5-1.3 s, where every sample re-read them before). */
#define REFRESH_MIN_NS 20000000ULL
#define REFRESH_COST_FACTOR 50
/* Addresses told apart when counting those left unknown for want of a
 * re-read; more are counted as "more". */
#define SKIPPED_ADDRS_MAX 4096
#define DELETED_SUFFIX " (deleted)"
#define VDSO_MAX (1u << 20) /* a vDSO is a few pages */
#define IMAGE_FROM_MEMORY_MAX (512u << 20) /* a deleted file read from memory */
/* A program's or library's file: mapped whole (address space, not
 * memory), read only where the unwinder looks, so the bound only keeps
 * out the absurd (a sparse file of a terabyte). */
#define IMAGE_MAX ((uint64_t)16 << 30)

/* Which file: device and inode, as the maps print them. */
struct file_id {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
};

static bool same_file(const struct file_id *a, const struct file_id *b)
{
	return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor && a->inode == b->inode;
}

/* One loaded copy of a file (or the vDSO, or code no copy explains). */
struct module {
	struct module_image img;
	char *name;               /* img.name's storage */
	bool vdso, opaque;
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
	int want;         /* the module it belongs to, -1 if none */
};

/* A module as the maps just read describe it. */
struct want {
	const char *name; /* the path as the maps say it, or "[vdso]" */
	struct file *file;
	uint64_t bias, low, high;
	bool vdso, opaque;
	struct module *mod; /* the module that is it, once matched or made */
};

/* Which module an address in a mapping belongs to. */
struct owner {
	uint64_t start, end;
	struct module *mod;
};

/* A file this process maps, found in the registry once while it stays
 * mapped; file NULL if it could not be opened or is no ELF file. */
struct file_seen {
	struct file_id id;
	bool seen;
	struct file *file;
};

struct modules {
	struct files *files;             /* the run's */
	pid_t pid;                       /* the process */
	pid_t task;                      /* whose /proc/TASK/ files we read */
	struct module *last_entry;       /* unwinding reads one module in bursts */
	const struct owner *last_owner;
	uint64_t next_refresh_ns;        /* no re-read on a miss before */
	unsigned refreshes, generation, images_opened;
	struct modules_skips skips;      /* misses that did not re-read */
	uint64_t *skipped_addrs;         /* the addresses of those, told apart */
	struct hash_index skipped_index; /* (over skipped_addrs) */
	size_t cap_skipped;
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
	struct want *wants;              /* modules in the maps just read */
	size_t n_wants, cap_wants;
	struct module **mods;            /* the modules now, each allocated once */
	size_t n_mods, cap_mods;
	struct owner *owners;            /* module of each mapping, by address */
	size_t n_owners, cap_owners;
	struct file_seen *seen;          /* the files mapped, by device and inode */
	size_t n_seen, cap_seen;
	uint64_t vdso_start, vdso_end;   /* the vDSO as last read */
	struct file *vdso;
	void (*on_removal)(void *arg);   /* runs before a module goes */
	void *on_removal_arg;
	bool frozen;                     /* never re-read: the program is gone */
	bool refreshing;                 /* in a re-read (its removal hook) */
	bool short_of_descriptors;       /* a file not opened for want of them */
};

/* An image we may read: a regular file of at most IMAGE_MAX bytes, opened
 * as such (regular_file.h: never a device's open, never a FIFO's, which
 * blocks), and when inode is nonzero, the very file that is mapped.  The
 * paths are the target owner's to choose (/proc/PID/root/...). */
static int open_image(const char *path, uint64_t inode)
{
	struct stat st;
	int fd = open_regular(path, IMAGE_MAX, &st);
	if (fd >= 0 && inode && (uint64_t)st.st_ino != inode) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The file mapped at [start, end): the mapping itself, right even if the
 * file was deleted, replaced or lives in another mount namespace (needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE); else the path as the target
 * sees it, then as we do; else the program's own file, /proc/PID/exe,
 * which a tracer without either capability may open (deleted or not) - the
 * last three only if they are still the inode that is mapped. */
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
	if (fd < 0 && inode) {
		snprintf(proc, sizeof(proc), "/proc/%d/exe", (int)m->task);
		fd = open_image(proc, inode);
	}
	return fd;
}

static struct want *add_want(struct modules *m, const char *name, struct file *file,
			     uint64_t bias, uint64_t low, uint64_t high)
{
	if (!array_reserve((void **)&m->wants, m->n_wants + 1, &m->cap_wants, sizeof(*m->wants)))
		return NULL;
	struct want *w = &m->wants[m->n_wants++];
	*w = (struct want){ name, file, bias, low, high, false, false, NULL };
	return w;
}

static void add_anon(struct modules *m, uint64_t start, uint64_t end, const char *name)
{
	if (!array_reserve((void **)&m->anon, m->n_anon + 1, &m->cap_anon, sizeof(*m->anon)))
		return;
	m->anon[m->n_anon++] = (struct anon_region){ start, end, name };
}

static void add_range(struct modules *m, uint64_t start, uint64_t end)
{
	if (!array_reserve((void **)&m->ranges, m->n_ranges + 1, &m->cap_ranges, sizeof(*m->ranges)))
		return;
	m->ranges[m->n_ranges++] = (struct range){ start, end };
}

static void add_row(struct modules *m, const struct file_row *row)
{
	if (!array_reserve((void **)&m->rows, m->n_rows + 1, &m->cap_rows, sizeof(*m->rows)))
		return;
	m->rows[m->n_rows++] = *row;
}

/* The whole of /proc/TASK/maps into m->maps, NUL-terminated.  Bytes, or
 * -1 with errno set. */
static ssize_t read_maps_of(struct modules *m, pid_t task)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)task);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	for (;;) {
		/* a page free at least: what /proc gives per read */
		if (!array_reserve((void **)&m->maps, len + 4096, &m->maps_cap, 1)) {
			close(fd);
			errno = ENOMEM;
			return -1;
		}
		ssize_t got = read(fd, m->maps + len, m->maps_cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;
			close(fd);
			errno = err;
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
	int err = errno; /* the looks for another task must not replace it */
	pid_t was = m->task;
	ensure_live_task(m);
	if (m->task != was)
		return read_maps_of(m, m->task);
	errno = err;
	return len;
}

/* A deleted library that we may not open (map_files needs a capability,
 * /proc/PID/exe is only the program): its pages as the process maps them,
 * read from its memory as eu-stack does, each mapping at its file offset.
 * Code and unwind tables are the file's bytes; pages the loader wrote
 * (relocations) are the process's; what was never mapped reads as zeros,
 * the section headers among it, which are therefore dropped: names come
 * from .dynsym, found through the dynamic segment (image.h). */
static struct file *file_in_memory(struct modules *m, const size_t *idx, size_t n,
				   const char *path)
{
	uint64_t size = 0;
	for (size_t i = 0; i < n; i++) {
		const struct file_row *row = &m->rows[idx[i]];
		if (row->offset + (row->end - row->start) > size)
			size = row->offset + (row->end - row->start);
	}
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/%d/mem", (int)m->task);
	uint8_t *image = size <= IMAGE_FROM_MEMORY_MAX ? calloc(1, (size_t)size) : NULL;
	int fd = image ? open(proc, O_RDONLY | O_CLOEXEC) : -1;
	struct file *f = NULL;
	if (fd >= 0) {
		uint64_t load_bias = 0;
		for (size_t i = 0; i < n; i++) {
			const struct file_row *row = &m->rows[idx[i]];
			size_t len = (size_t)(row->end - row->start);
			if (pread(fd, image + row->offset, len, (off_t)row->start) != (ssize_t)len)
				memset(image + row->offset, 0, len); /* what it holds is unknown */
			else if (row->offset == 0)
				load_bias = row->start;
		}
		bool added = false;
		if (image_from_memory(image, (size_t)size, load_bias) == 0 &&
		    (f = files_add_memory(m->files, image, (size_t)size, path, &added)) && added)
			m->images_opened++;
		close(fd);
	}
	free(image);
	return f;
}

/* The file of the n rows of one file (indices in idx), from the registry:
 * looked up once while this process keeps it mapped.  NULL if it cannot
 * be read or is no ELF file. */
static struct file *file_of(struct modules *m, const size_t *idx, size_t n)
{
	const struct file_row *row = &m->rows[idx[0]];
	for (size_t i = 0; i < m->n_seen; i++) {
		struct file_seen *fs = &m->seen[i];
		if (same_file(&fs->id, &row->id)) {
			fs->seen = true;
			return fs->file;
		}
	}
	if (!array_reserve((void **)&m->seen, m->n_seen + 1, &m->cap_seen, sizeof(*m->seen)))
		return NULL;
	struct file_seen *fs = &m->seen[m->n_seen++];
	*fs = (struct file_seen){ row->id, true, NULL };
	size_t len = strlen(row->path), suffix = strlen(DELETED_SUFFIX);
	bool deleted = len > suffix && strcmp(row->path + len - suffix, DELETED_SUFFIX) == 0;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.*s", (int)(deleted ? len - suffix : len), row->path);
	int fd = open_mapped(m, path, deleted, row->id.inode, row->start, row->end);
	if (fd < 0) {
		/* The main thread may have exited since the maps were read. */
		pid_t was = m->task;
		ensure_live_task(m);
		if (m->task != was)
			fd = open_mapped(m, path, deleted, row->id.inode, row->start, row->end);
	}
	if (fd < 0 && descriptors_short()) {
		/* ours the fault, not the file's: not remembered as unreadable,
		 * tried again at the next read of the maps */
		m->n_seen--;
		m->short_of_descriptors = true;
		return NULL;
	}
	bool added = false;
	if (fd >= 0)
		fs->file = files_add_fd(m->files, fd, path, &added);
	else if (deleted)
		fs->file = file_in_memory(m, idx, n, path);
	if (added)
		m->images_opened++;
	return fs->file;
}

/* Forgets the files no longer mapped: a new file may get the inode of one
 * deleted (not while the registry holds it; but this process may have
 * found no file for it). */
static void drop_unseen_files(struct modules *m)
{
	size_t kept = 0;
	for (size_t i = 0; i < m->n_seen; i++)
		if (m->seen[i].seen) {
			m->seen[kept] = m->seen[i];
			m->seen[kept++].seen = false;
		}
	m->n_seen = kept;
}

/* The vDSO mapped at row, read from the target's memory once. */
static struct file *vdso_of(struct modules *m, const struct file_row *row)
{
	if (m->vdso_start == row->start && m->vdso_end == row->end)
		return m->vdso;
	m->vdso_start = row->start;
	m->vdso_end = row->end;
	m->vdso = NULL;
	size_t len = (size_t)(row->end - row->start);
	ensure_live_task(m); /* the main thread may have exited since */
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)m->task);
	int fd = len <= VDSO_MAX ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	uint8_t *image = fd >= 0 ? malloc(len) : NULL;
	if (image && pread(fd, image, len, (off_t)row->start) == (ssize_t)len) {
		bool added = false;
		m->vdso = files_add_memory(m->files, image, len, "[vdso]", &added);
		if (added)
			m->images_opened++;
	}
	free(image);
	if (fd >= 0)
		close(fd);
	return m->vdso;
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
 * no file, named after the file and nothing in it.  Its bias makes an
 * address's offset in the file (the mapping's offset kept): what
 * addr2line -e takes for most files, where it is also the ELF address. */
static void add_opaque(struct modules *m, struct file_row *row)
{
	struct want *w = add_want(m, row->vdso ? "[vdso]" : row->path, NULL,
				  row->start - row->offset, row->start, row->end);
	if (!w)
		return;
	w->opaque = true;
	w->vdso = row->vdso;
	row->want = (int)(w - m->wants);
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
	const struct file_row *first = &m->rows[idx[0]];
	struct file *file = first->vdso ? vdso_of(m, first) : file_of(m, idx, n);
	const struct elf_layout *l = file ? file_layout(file) : NULL;
	struct file_mapping *maps = calloc(n, sizeof(*maps));
	int *copy = calloc(n, sizeof(*copy));
	uint64_t *bias = calloc(n, sizeof(*bias));
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
		struct want *w = add_want(m, first->vdso ? "[vdso]" : first->path, file, bias[c], low,
					  high);
		if (!w)
			break;
		w->vdso = first->vdso;
		for (size_t i = 0; i < n; i++)
			if (copy[i] == (int)c)
				m->rows[idx[i]].want = (int)(w - m->wants);
	}
	for (size_t i = 0; i < n; i++) {
		struct file_row *row = &m->rows[idx[i]];
		if (row->exec && row->want < 0)
			add_opaque(m, row);
	}
	free(maps);
	free(copy);
	free(bias);
}

/* Parses the maps just read into rows, wants, m->anon and m->ranges. */
static void parse_maps(struct modules *m, char *maps, size_t len)
{
	m->n_anon = m->n_wants = m->n_ranges = m->n_rows = 0;
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
	if (!array_reserve((void **)&m->order, m->n_rows, &m->cap_order, sizeof(*m->order)))
		return;
	size_t n_files = 0;
	for (size_t i = 0; i < m->n_rows; i++) {
		if (m->rows[i].vdso)
			place_file(m, &i, 1);
		else
			m->order[n_files++] = i;
	}
	if (n_files > 1) /* none at all: a process that is exiting */
		qsort_r(m->order, n_files, sizeof(*m->order), by_file_then_address, m->rows);
	for (size_t i = 0; i < n_files;) {
		size_t j = i + 1;
		while (j < n_files && same_file(&m->rows[m->order[j]].id, &m->rows[m->order[i]].id))
			j++;
		place_file(m, &m->order[i], j - i);
		i = j;
	}
	drop_unseen_files(m);
}

/* Is mod what w describes: the same file, copy, place and name? */
static bool module_is(const struct module *mod, const struct want *w)
{
	return mod->img.file == w->file && mod->img.bias == w->bias && mod->img.low == w->low &&
	       mod->img.high == w->high && mod->vdso == w->vdso && mod->opaque == w->opaque &&
	       strcmp(mod->name, w->name) == 0;
}

static void free_module(struct module *mod)
{
	if (mod)
		free(mod->name);
	free(mod);
}

static struct module *new_module(const struct want *w)
{
	struct module *mod = calloc(1, sizeof(*mod));
	if (!mod || !(mod->name = strdup(w->name))) {
		free(mod);
		return NULL;
	}
	mod->vdso = w->vdso;
	mod->opaque = w->opaque;
	mod->img = (struct module_image){ mod->name, w->low, w->high, w->bias, w->file, 0, 0 };
	uint64_t size, hdr = w->file ? file_eh_frame_hdr(w->file, &size) : 0;
	if (hdr) {
		mod->img.eh_frame_hdr = hdr + w->bias;
		mod->img.eh_frame_hdr_size = size;
	}
	return mod;
}

/* The modules the maps just read describe: the ones already there kept
 * (what was learnt of their addresses holds), the others made; those that
 * go are used one last time (on_removal) before they do.  Whether any
 * came or went: the return value. */
static bool match_modules(struct modules *m)
{
	bool *kept = calloc(m->n_mods ? m->n_mods : 1, sizeof(*kept));
	bool changed = false;
	for (size_t i = 0; i < m->n_wants; i++) {
		struct want *w = &m->wants[i];
		for (size_t k = 0; k < m->n_mods && !w->mod; k++)
			if (kept && !kept[k] && module_is(m->mods[k], w)) {
				kept[k] = true;
				w->mod = m->mods[k];
			}
		if (!w->mod) {
			w->mod = new_module(w);
			changed = true;
		}
	}
	bool removed = false;
	for (size_t k = 0; k < m->n_mods; k++)
		removed |= !kept || !kept[k];
	if (removed && m->on_removal) {
		/* What is known of addresses in a module that goes (dlclose)
		 * must be used before it goes: the owners are still the old
		 * ones. */
		m->on_removal(m->on_removal_arg);
	}
	for (size_t k = 0; k < m->n_mods; k++)
		if (!kept || !kept[k])
			free_module(m->mods[k]);
	free(kept);
	m->n_mods = 0;
	for (size_t i = 0; i < m->n_wants; i++) {
		if (!m->wants[i].mod)
			continue;
		if (!array_reserve((void **)&m->mods, m->n_mods + 1, &m->cap_mods, sizeof(*m->mods))) {
			free_module(m->wants[i].mod);
			m->wants[i].mod = NULL;
			continue;
		}
		m->mods[m->n_mods++] = m->wants[i].mod;
	}
	return changed || removed;
}

/* The module of each mapping, by address. */
static void build_owners(struct modules *m)
{
	m->n_owners = 0;
	m->last_owner = NULL;
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct file_row *row = &m->rows[i];
		struct module *mod = row->want < 0 ? NULL : m->wants[row->want].mod;
		if (!mod)
			continue;
		if (!array_reserve((void **)&m->owners, m->n_owners + 1, &m->cap_owners, sizeof(*m->owners)))
			return;
		m->owners[m->n_owners++] = (struct owner){ row->start, row->end, mod };
	}
}

/* A re-read begun at start has ended: when the next may begin. */
static void note_read_cost(struct modules *m, uint64_t start)
{
	uint64_t end = now_ns(), took = end - start, wait = took * REFRESH_COST_FACTOR;
	if (wait < REFRESH_MIN_NS)
		wait = REFRESH_MIN_NS;
	m->next_refresh_ns = end + wait;
	if (took > m->skips.slowest_read_ns)
		m->skips.slowest_read_ns = took;
	if (wait > m->skips.longest_wait_ns)
		m->skips.longest_wait_ns = wait;
}

static bool same_addr(const void *table, uint32_t id, const void *key)
{
	return ((const uint64_t *)table)[id] == *(const uint64_t *)key;
}

/* A miss at addr that did not re-read the maps: counted, and addr told
 * apart from those before it (up to SKIPPED_ADDRS_MAX). */
static void note_skipped(struct modules *m, uint64_t addr)
{
	m->skips.lookups++;
	if (m->skips.more)
		return;
	if (!m->skipped_index.slots && hash_index_init(&m->skipped_index) != 0) {
		m->skips.more = true;
		return;
	}
	uint64_t h = hash_word(addr);
	if (hash_index_find(&m->skipped_index, h, same_addr, m->skipped_addrs, &addr) != HASH_NONE)
		return;
	size_t n = m->skips.addresses;
	if (n >= SKIPPED_ADDRS_MAX ||
	    !array_reserve((void **)&m->skipped_addrs, n + 1, &m->cap_skipped,
			   sizeof(*m->skipped_addrs)) ||
	    hash_index_add(&m->skipped_index, h, (uint32_t)n) != 0) {
		m->skips.more = true;
		return;
	}
	m->skipped_addrs[n] = addr;
	m->skips.addresses++;
}

int modules_refresh(struct modules *m)
{
	/* A re-read from inside one (from its removal hook) would replace the
	 * module list and the maps the outer one is still matching. */
	if (m->frozen || m->refreshing)
		return 0;
	m->refreshing = true;
	uint64_t start = now_ns();
	m->refreshes++;
	ssize_t len = read_maps(m);
	if (len < 0) {
		note_read_cost(m, start);
		m->refreshing = false;
		return -1;
	}
	parse_maps(m, m->maps, (size_t)len);
	m->last_entry = NULL; /* the hook's look-ups may have cached one that goes */
	bool changed = match_modules(m);
	build_owners(m);
	m->last_entry = NULL;
	if (changed)
		m->generation++;
	note_read_cost(m, start);
	m->refreshing = false;
	return 0;
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

void modules_ended(struct modules *m)
{
	m->frozen = true;
	size_t len = 0;
	for (size_t i = 0; i < m->n_anon; i++)
		len += strlen(m->anon[i].name) + 1;
	char *names = malloc(len + 1);
	if (!names)
		return; /* all kept: they still work */
	char *at = names;
	for (size_t i = 0; i < m->n_anon; i++) {
		size_t n = strlen(m->anon[i].name) + 1;
		memcpy(at, m->anon[i].name, n);
		m->anon[i].name = at;
		at += n;
	}
	free(m->maps);
	m->maps = names;
	m->maps_cap = len + 1;
	free(m->rows);
	free(m->order);
	free(m->wants);
	m->rows = NULL;
	m->order = NULL;
	m->wants = NULL;
	m->n_rows = m->cap_rows = m->cap_order = m->n_wants = m->cap_wants = 0;
}

struct modules *modules_open(struct files *fs, pid_t pid)
{
	struct modules *m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->files = fs;
	m->pid = pid;
	use_task(m, pid);
	if (modules_refresh(m) != 0) {
		int err = errno;
		modules_close(m);
		errno = err;
		return NULL;
	}
	/* A program just started or exec'd is still loading its libraries:
	 * the first miss re-reads the maps at once. */
	m->next_refresh_ns = 0;
	m->refreshes = 0;
	return m;
}

void modules_close(struct modules *m)
{
	if (!m)
		return;
	for (size_t k = 0; k < m->n_mods; k++)
		free_module(m->mods[k]);
	free(m->mods);
	free(m->maps);
	free(m->anon);
	free(m->ranges);
	free(m->rows);
	free(m->order);
	free(m->wants);
	free(m->owners);
	free(m->seen);
	free(m->skipped_addrs);
	hash_index_free(&m->skipped_index);
	free(m);
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
 * Not a module's range: it runs from its first segment to its last, gaps
 * included (lld's are 2 MiB), and two copies of a file may overlap; only
 * the mappings say whose an address is. */
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

/* The module of the mapping holding addr; an address in no mapping we
 * know re-reads the maps first (rate limited): a library loaded since. */
static struct module *module_at(struct modules *m, uint64_t addr)
{
	const struct owner *o = owner_of(m, addr);
	if (o || m->frozen || modules_anon_name(m, addr))
		return o ? o->mod : NULL;
	if (now_ns() < m->next_refresh_ns) {
		note_skipped(m, addr);
		return NULL;
	}
	modules_refresh(m);
	o = owner_of(m, addr);
	return o ? o->mod : NULL;
}

static struct module *usable(struct modules *m, struct module *mod)
{
	if (!mod || !mod->img.file)
		return NULL;
	m->last_entry = mod;
	return mod;
}

const struct module_image *modules_find(struct modules *m, uint64_t addr)
{
	struct module *mod = usable(m, module_at(m, addr));
	return mod ? &mod->img : NULL;
}

const struct module_image *modules_at(struct modules *m, uint64_t addr)
{
	const struct owner *o = owner_of(m, addr);
	return o ? &o->mod->img : NULL;
}

int modules_read(struct modules *m, uint64_t addr, void *out, size_t len)
{
	/* The module mapped there; else, where nothing of a module is mapped,
	 * the one being unwound: its tables are where its program headers
	 * put them even in a copy that maps only some of its code (node's
	 * second mapping of its text). */
	struct module *mod = NULL;
	const struct owner *o = owner_of(m, addr);
	if (o)
		mod = usable(m, o->mod);
	else if (m->last_entry && addr >= m->last_entry->img.low && addr < m->last_entry->img.high)
		mod = m->last_entry;
	else
		mod = usable(m, module_at(m, addr));
	if (!mod)
		return -1;
	return file_read(mod->img.file, addr - mod->img.bias, out, len);
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

void modules_skips(const struct modules *m, struct modules_skips *out)
{
	*out = m->skips;
}

bool modules_short_of_descriptors(const struct modules *m)
{
	return m->short_of_descriptors;
}

unsigned modules_images_opened(const struct modules *m)
{
	return m->images_opened;
}
