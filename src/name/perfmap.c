/* perfmap.c - JIT code names from /tmp/perf-PID.map: the parser, then the
 * file. */
#define _GNU_SOURCE
#include "name/perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "tracee/procfs.h"
#include "base/clock.h"

/* Entries that may cover one address, looked at before giving up: more
 * overlapping code than any JIT leaves is not named. */
#define OVERLAP_MAX 64
#define CHUNK (1u << 20) /* the file is read this much at a time */

struct entry {
	uint64_t start; /* [start, start + size) */
	uint32_t size;  /* no JIT makes a piece of code of 4 GB */
	uint32_t name;  /* offset in names (a file's names are < 4 GB) */
};

struct perfmap {
	struct entry *e;
	size_t n, cap;
	char *names; /* NUL-terminated names, back to back */
	size_t names_len, names_cap;
	uint64_t *max_end; /* by start: the largest end up to each entry */
	size_t max_end_cap;
	bool sorted;
	size_t skipped;
	size_t budget; /* bytes of entries and names kept at most; 0: no bound */
	size_t over;   /* lines skipped for the budget */
};

struct perfmap *perfmap_new(void)
{
	return calloc(1, sizeof(struct perfmap));
}

void perfmap_free(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->e);
	free(pm->names);
	free(pm->max_end);
	free(pm);
}

struct perfmap *perfmap_copy(const struct perfmap *pm)
{
	struct perfmap *c = perfmap_new();
	if (!c)
		return NULL;
	*c = *pm;
	c->e = NULL, c->names = NULL, c->max_end = NULL;
	c->cap = c->names_cap = c->max_end_cap = 0;
	c->sorted = false;
	if (!array_reserve((void **)&c->e, pm->n, &c->cap, sizeof(*c->e)) ||
	    !array_reserve((void **)&c->names, pm->names_len, &c->names_cap, 1)) {
		perfmap_free(c);
		return NULL;
	}
	if (pm->n)
		memcpy(c->e, pm->e, pm->n * sizeof(*c->e));
	if (pm->names_len)
		memcpy(c->names, pm->names, pm->names_len);
	return c;
}

void perfmap_clear(struct perfmap *pm)
{
	pm->n = pm->names_len = pm->skipped = pm->over = 0;
	pm->sorted = true;
}

void perfmap_set_budget(struct perfmap *pm, size_t bytes)
{
	pm->budget = bytes;
}

size_t perfmap_over_budget(const struct perfmap *pm)
{
	return pm->over;
}

/* What n entries and names of names_len bytes take. */
static size_t kept_bytes(size_t n, size_t names_len)
{
	return n * (sizeof(struct entry) + sizeof(uint64_t)) + names_len;
}

size_t perfmap_entries(const struct perfmap *pm)
{
	return pm->n;
}

size_t perfmap_skipped(const struct perfmap *pm)
{
	return pm->skipped;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A hex number at *p, "0x" allowed, 1 to 16 digits; advances *p. */
static bool hex(const char **p, const char *end, uint64_t *out)
{
	const char *q = *p;
	if (end - q >= 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	uint64_t v = 0;
	int digits = 0;
	for (; q < end; q++, digits++) {
		char c = *q;
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			break;
		if (digits == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return false;
	*out = v;
	*p = q;
	return true;
}

/* At least one blank, then past them all. */
static bool blanks(const char **p, const char *end)
{
	if (*p >= end || !is_blank(**p))
		return false;
	while (*p < end && is_blank(**p))
		(*p)++;
	return true;
}

/* One line, without its '\n'. */
static void add_line(struct perfmap *pm, const char *p, const char *end)
{
	uint64_t start, size;
	if (end > p && end[-1] == '\r')
		end--;
	if (!hex(&p, end, &start) || !blanks(&p, end) || !hex(&p, end, &size) ||
	    !blanks(&p, end) || size == 0 || size > UINT32_MAX || start + size < start) {
		pm->skipped++;
		return;
	}
	while (end > p && is_blank(end[-1]))
		end--;
	size_t len = (size_t)(end - p);
	if (len == 0) {
		pm->skipped++;
		return;
	}
	if (len > PERFMAP_NAME_MAX)
		len = PERFMAP_NAME_MAX;
	if ((pm->budget && kept_bytes(pm->n + 1, pm->names_len + len + 1) > pm->budget) ||
	    pm->names_len + len + 1 > UINT32_MAX) {
		pm->over++;
		pm->skipped++;
		return;
	}
	if (!array_reserve((void **)&pm->e, pm->n + 1, &pm->cap, sizeof(*pm->e)) ||
	    !array_reserve((void **)&pm->names, pm->names_len + len + 1, &pm->names_cap, 1)) {
		pm->skipped++;
		return;
	}
	char *name = pm->names + pm->names_len;
	memcpy(name, p, len);
	for (size_t i = 0; i < len; i++)
		if (name[i] == '\0')
			name[i] = '?'; /* a NUL would cut the name short */
	name[len] = '\0';
	pm->e[pm->n++] = (struct entry){ start, (uint32_t)size, (uint32_t)pm->names_len };
	pm->names_len += len + 1;
	pm->sorted = false;
}

size_t perfmap_add(struct perfmap *pm, const char *buf, size_t len)
{
	size_t used = 0;
	while (used < len) {
		const char *nl = memchr(buf + used, '\n', len - used);
		if (!nl)
			break;
		add_line(pm, buf + used, nl);
		used = (size_t)(nl - buf) + 1;
	}
	return used;
}

static int by_start(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

static uint64_t end_of(const struct entry *e)
{
	return e->start + e->size;
}

static bool sort_entries(struct perfmap *pm)
{
	if (pm->sorted)
		return true;
	if (!array_reserve((void **)&pm->max_end, pm->n, &pm->max_end_cap, sizeof(*pm->max_end)))
		return false;
	qsort(pm->e, pm->n, sizeof(*pm->e), by_start);
	for (size_t i = 0; i < pm->n; i++)
		pm->max_end[i] = i && pm->max_end[i - 1] > end_of(&pm->e[i]) ? pm->max_end[i - 1] :
									       end_of(&pm->e[i]);
	pm->sorted = true;
	return true;
}

const char *perfmap_lookup(struct perfmap *pm, uint64_t addr)
{
	if (!pm->n || !sort_entries(pm))
		return NULL;
	/* The last entry starting at or before addr... */
	size_t lo = 0, hi = pm->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pm->e[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ...and back, while an entry so far may still reach addr. */
	const char *found = NULL;
	for (size_t i = lo, looked = 0; i-- > 0 && pm->max_end[i] > addr;) {
		if (++looked > OVERLAP_MAX)
			return NULL;
		if (addr >= end_of(&pm->e[i]))
			continue;
		const char *name = pm->names + pm->e[i].name;
		if (found && strcmp(found, name) != 0)
			return NULL; /* two different pieces of code were here */
		found = name;
	}
	return found;
}

int perfmap_status_ids(const char *buf, size_t len, pid_t *nstgid, uid_t *euid)
{
	uint64_t pid, uid;
	if ((parse_status_number(buf, len, "NStgid", -1, &pid) != 0 &&
	     parse_status_number(buf, len, "Tgid", -1, &pid) != 0) ||
	    parse_status_number(buf, len, "Uid", 2, &uid) != 0 || pid == 0 || pid > INT_MAX ||
	    uid > (uid_t)-1)
		return -1;
	*nstgid = (pid_t)pid;
	*euid = (uid_t)uid;
	return 0;
}

/* --- the file ---------------------------------------------------------- */

/* A file's parsed entries, shared by every process whose map is that file
 * (its device and inode): four processes that map one file cost one parse.
 * The registry and everything in it are under one lock: the sampler opens
 * and closes files while the writer thread names. */
struct shared {
	dev_t dev;
	ino_t ino;
	uint64_t used;    /* bytes parsed, up to the last complete line */
	bool skipping;    /* inside a line longer than CHUNK */
	unsigned changes; /* reads that found the file changed */
	unsigned refs;
	bool listed;      /* in the registry (a frozen copy is not) */
	struct perfmap *pm;
	struct shared *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct shared *registry;
static size_t files_over;   /* files whose lines stopped at the bound */
static uint64_t bytes_over; /* their bytes not read */

/* Root handles, one per root directory and mount namespace, shared by
 * the processes that have them (held under lock): a process's is kept
 * until it is named, after it exits too, and PostgreSQL under pgbench -C
 * (a backend per transaction) held 701 of them after 10 s, one per
 * backend seen, all the same "/".  A root is the same for two processes
 * only in the same mount namespace: /tmp under it is that namespace's. */
struct root_handle {
	dev_t dev;
	ino_t ino, mntns;
	int fd;
	unsigned refs;
};
static struct root_handle *roots;
static size_t n_roots, cap_roots;

/* fd, /proc/TASK/root opened: an equal one already held (and fd closed),
 * or fd, kept to be shared; fd alone when it cannot tell. */
static int root_share(pid_t task, int fd)
{
	char path[64];
	struct stat root, ns;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)task);
	if (fstat(fd, &root) != 0 || stat(path, &ns) != 0)
		return fd;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_roots; i++)
		if (roots[i].dev == root.st_dev && roots[i].ino == root.st_ino &&
		    roots[i].mntns == ns.st_ino) {
			roots[i].refs++;
			pthread_mutex_unlock(&lock);
			close(fd);
			return roots[i].fd;
		}
	if (array_reserve((void **)&roots, n_roots + 1, &cap_roots, sizeof(*roots)))
		roots[n_roots++] = (struct root_handle){ root.st_dev, root.st_ino, ns.st_ino, fd, 1 };
	pthread_mutex_unlock(&lock);
	return fd;
}

/* A root handle given up: closed with its last user. */
static void root_release(int fd)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_roots; i++)
		if (roots[i].fd == fd) {
			if (--roots[i].refs == 0) {
				close(fd);
				roots[i] = roots[--n_roots];
			}
			pthread_mutex_unlock(&lock);
			return;
		}
	pthread_mutex_unlock(&lock);
	close(fd); /* never shared */
}

struct perfmap_file {
	int root_fd;
	pid_t nstgid;
	uid_t owner;
	uint64_t recheck_ns, checked_ns;
	bool checked;
	unsigned switches; /* times it became another file */
	bool frozen;       /* never read again: the process exec'd */
	struct shared *sh; /* the file's entries; NULL before one is found */
	char *buf;
	size_t buf_cap;
	char name[PERFMAP_NAME_MAX + 1]; /* the last name looked up, copied */
};

static void unlist(struct shared *sh)
{
	for (struct shared **p = &registry; *p; p = &(*p)->next)
		if (*p == sh) {
			*p = sh->next;
			break;
		}
	sh->listed = false;
}

static void release(struct shared *sh)
{
	if (!sh || --sh->refs > 0)
		return;
	if (sh->listed)
		unlist(sh);
	perfmap_free(sh->pm);
	free(sh);
}

/* The entries of the file dev:ino, one more reference; NULL if no memory. */
static struct shared *attach(dev_t dev, ino_t ino)
{
	for (struct shared *sh = registry; sh; sh = sh->next)
		if (sh->dev == dev && sh->ino == ino) {
			sh->refs++;
			return sh;
		}
	struct shared *sh = calloc(1, sizeof(*sh));
	if (sh && !(sh->pm = perfmap_new())) {
		free(sh);
		return NULL;
	}
	if (sh) {
		*sh = (struct shared){ .dev = dev, .ino = ino, .refs = 1, .listed = true,
				       .pm = sh->pm, .next = registry };
		registry = sh;
	}
	return sh;
}

struct perfmap_file *perfmap_file_at(int root_fd, pid_t nstgid, uid_t euid, uint64_t recheck_ns)
{
	struct perfmap_file *f = calloc(1, sizeof(*f));
	if (!f) {
		root_release(root_fd);
		return NULL;
	}
	f->root_fd = root_fd;
	f->nstgid = nstgid;
	f->owner = euid;
	f->recheck_ns = recheck_ns;
	return f;
}

struct perfmap_file *perfmap_file_open(pid_t task)
{
	char path[64], status[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)task);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t got = read(fd, status, sizeof(status));
	close(fd);
	pid_t nstgid;
	uid_t euid;
	if (got <= 0 || perfmap_status_ids(status, (size_t)got, &nstgid, &euid) != 0)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/root", (int)task);
	int root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return NULL;
	return perfmap_file_at(root_share(task, root), nstgid, euid, 100000000ULL);
}

void perfmap_file_close(struct perfmap_file *f)
{
	if (!f)
		return;
	root_release(f->root_fd);
	pthread_mutex_lock(&lock);
	release(f->sh);
	pthread_mutex_unlock(&lock);
	free(f->buf);
	free(f);
}

/* The file, if it is one we may read: tmp/perf-PID.map under the root, no
 * symbolic link on the way, a regular file of the process's own user (not
 * root's: in a user namespace a root-only file can be mounted there), no
 * blocking open. */
static int open_map(struct perfmap_file *f, struct stat *st)
{
	int tmp = openat(f->root_fd, "tmp", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tmp < 0)
		return -1;
	char name[64];
	snprintf(name, sizeof(name), "perf-%d.map", (int)f->nstgid);
	int fd = openat(tmp, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(tmp);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_uid != f->owner) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads what was added to the file since the last look; from its start if
 * it is another file or shorter than what was read (unless only_grown:
 * then nothing).  Under the lock. */
static void reread(struct perfmap_file *f, bool only_grown)
{
	struct stat st;
	int fd = open_map(f, &st);
	if (fd < 0)
		return;
	struct shared *sh = f->sh;
	if (!sh || st.st_dev != sh->dev || st.st_ino != sh->ino) {
		if (only_grown || !(sh = attach(st.st_dev, st.st_ino))) {
			close(fd);
			return;
		}
		release(f->sh);
		f->sh = sh;
		f->switches++;
	}
	uint64_t was = sh->used;
	bool cleared = false;
	if ((uint64_t)st.st_size < sh->used) {
		if (only_grown) {
			close(fd);
			return;
		}
		cleared = true;
		perfmap_clear(sh->pm);
		sh->used = 0;
		sh->skipping = false;
	}
	uint64_t size = (uint64_t)st.st_size < PERFMAP_FILE_MAX ? (uint64_t)st.st_size : PERFMAP_FILE_MAX;
	/* about the file's size in memory, however short its lines */
	perfmap_set_budget(sh->pm, size + size / 2 > PERFMAP_BUDGET_MIN ? size + size / 2 :
									  PERFMAP_BUDGET_MIN);
	while (sh->used < size) {
		size_t want = size - sh->used;
		if (want > CHUNK)
			want = CHUNK;
		if (!array_reserve((void **)&f->buf, want, &f->buf_cap, 1))
			break;
		ssize_t got = pread(fd, f->buf, want, (off_t)sh->used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		size_t off = 0;
		if (sh->skipping) {
			/* The rest of a line too long to keep: not a line. */
			const char *nl = memchr(f->buf, '\n', (size_t)got);
			if (!nl) {
				sh->used += (uint64_t)got;
				continue;
			}
			off = (size_t)(nl - f->buf) + 1;
			sh->skipping = false;
		}
		size_t used = off + perfmap_add(sh->pm, f->buf + off, (size_t)got - off);
		if (used == 0) {
			if ((size_t)got < CHUNK)
				break; /* the last line, still being written */
			sh->skipping = true; /* a whole chunk without a newline */
			used = (size_t)got;
		}
		sh->used += used;
		if (perfmap_over_budget(sh->pm)) {
			/* full: the rest is not read, now or later (a file
			 * rewritten from its start is read anew) */
			files_over++;
			bytes_over += size - sh->used;
			sh->used = size;
			break;
		}
	}
	close(fd);
	if (cleared || sh->used != was)
		sh->changes++;
	/* the 1 MB read buffer is not kept between looks */
	free(f->buf);
	f->buf = NULL;
	f->buf_cap = 0;
}

/* The file as it is now: read again if it may have changed.  Under the
 * lock. */
static void look_again(struct perfmap_file *f)
{
	if (f->frozen)
		return;
	uint64_t now = now_ns();
	if (!f->checked || now - f->checked_ns >= f->recheck_ns) {
		f->checked = true;
		f->checked_ns = now;
		reread(f, false);
	}
}

void perfmap_file_freeze(struct perfmap_file *f)
{
	if (!f || f->frozen)
		return;
	pthread_mutex_lock(&lock);
	/* What was appended to the file read before is still the old
	 * program's; a file the new one has rewritten (or replaced) is not.
	 * (No file read yet: whatever is there now.) */
	reread(f, f->sh != NULL);
	f->frozen = true;
	/* Frozen, its entries are its own: nobody attaches to them, and
	 * another process's look at the file (the new program rewriting it)
	 * cannot change them. */
	struct shared *sh = f->sh;
	if (sh && sh->refs > 1) {
		struct shared *own = calloc(1, sizeof(*own));
		if (own && (own->pm = perfmap_copy(sh->pm))) {
			*own = (struct shared){ .dev = sh->dev, .ino = sh->ino, .used = sh->used,
						.changes = sh->changes, .refs = 1, .pm = own->pm };
			release(sh);
			f->sh = own;
		} else {
			free(own);
			release(sh); /* no memory for a copy: no names rather than wrong ones */
			f->sh = NULL;
		}
	} else if (sh && sh->listed) {
		unlist(sh);
	}
	pthread_mutex_unlock(&lock);
}

const char *perfmap_file_lookup(struct perfmap_file *f, uint64_t addr)
{
	pthread_mutex_lock(&lock);
	look_again(f);
	const char *name = f->sh ? perfmap_lookup(f->sh->pm, addr) : NULL;
	if (name)
		snprintf(f->name, sizeof(f->name), "%s", name);
	pthread_mutex_unlock(&lock);
	return name ? f->name : NULL;
}

unsigned perfmap_file_changes(struct perfmap_file *f)
{
	pthread_mutex_lock(&lock);
	look_again(f);
	unsigned n = f->switches + (f->sh ? f->sh->changes : 0);
	pthread_mutex_unlock(&lock);
	return n;
}

size_t perfmap_file_over_budget(struct perfmap_file *f)
{
	pthread_mutex_lock(&lock);
	size_t n = f->sh ? perfmap_over_budget(f->sh->pm) : 0;
	pthread_mutex_unlock(&lock);
	return n;
}

const struct perfmap *perfmap_file_entries(struct perfmap_file *f)
{
	pthread_mutex_lock(&lock);
	look_again(f);
	const struct perfmap *pm = f->sh ? f->sh->pm : NULL;
	pthread_mutex_unlock(&lock);
	return pm;
}

size_t perfmap_files_over_budget(uint64_t *bytes)
{
	pthread_mutex_lock(&lock);
	size_t n = files_over;
	*bytes = bytes_over;
	pthread_mutex_unlock(&lock);
	return n;
}
