/* perfmap.c - JIT code names from /tmp/perf-PID.map: the parser, then the
 * file. */
#define _GNU_SOURCE
#include "name/perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
	uint64_t start, end; /* [start, end) */
	size_t name;         /* offset in names */
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

void perfmap_clear(struct perfmap *pm)
{
	pm->n = pm->names_len = pm->skipped = 0;
	pm->sorted = true;
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
	    !blanks(&p, end) || size == 0 || start + size < start) {
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
	pm->e[pm->n++] = (struct entry){ start, start + size, pm->names_len };
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
	return x->end < y->end ? -1 : x->end > y->end;
}

static bool sort_entries(struct perfmap *pm)
{
	if (pm->sorted)
		return true;
	if (!array_reserve((void **)&pm->max_end, pm->n, &pm->max_end_cap, sizeof(*pm->max_end)))
		return false;
	qsort(pm->e, pm->n, sizeof(*pm->e), by_start);
	for (size_t i = 0; i < pm->n; i++)
		pm->max_end[i] = i && pm->max_end[i - 1] > pm->e[i].end ? pm->max_end[i - 1] : pm->e[i].end;
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
		if (addr >= pm->e[i].end)
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

struct perfmap_file {
	int root_fd;
	pid_t nstgid;
	uid_t owner;
	uint64_t recheck_ns, checked_ns;
	bool checked;
	dev_t dev;
	ino_t ino;
	uint64_t used; /* bytes parsed, up to the last complete line */
	bool skipping; /* inside a line longer than CHUNK */
	unsigned changes; /* reads that found the file changed */
	bool frozen;      /* never read again: the process exec'd */
	struct perfmap *pm;
	char *buf;
	size_t buf_cap;
};

struct perfmap_file *perfmap_file_at(int root_fd, pid_t nstgid, uid_t euid, uint64_t recheck_ns)
{
	struct perfmap_file *f = calloc(1, sizeof(*f));
	if (f)
		f->pm = perfmap_new();
	if (!f || !f->pm) {
		free(f);
		close(root_fd);
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
	return perfmap_file_at(root, nstgid, euid, 100000000ULL);
}

void perfmap_file_close(struct perfmap_file *f)
{
	if (!f)
		return;
	close(f->root_fd);
	perfmap_free(f->pm);
	free(f->buf);
	free(f);
}

/* The file, if it is one we may read: tmp/perf-PID.map under the root, no
 * symbolic link on the way, a regular file of the process's user or root. */
static int open_map(struct perfmap_file *f, struct stat *st)
{
	int tmp = openat(f->root_fd, "tmp", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tmp < 0)
		return -1;
	char name[64];
	snprintf(name, sizeof(name), "perf-%d.map", (int)f->nstgid);
	int fd = openat(tmp, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(tmp);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || (st->st_uid != f->owner && st->st_uid != 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads what was added to the file since the last look; from its start if
 * it is another file or shorter than what was read (unless only_grown:
 * then nothing). */
static void reread(struct perfmap_file *f, bool only_grown)
{
	struct stat st;
	int fd = open_map(f, &st);
	if (fd < 0)
		return;
	uint64_t was = f->used;
	bool cleared = false;
	if (st.st_dev != f->dev || st.st_ino != f->ino || (uint64_t)st.st_size < f->used) {
		if (only_grown) {
			close(fd);
			return;
		}
		cleared = true;
		perfmap_clear(f->pm);
		f->used = 0;
		f->skipping = false;
		f->dev = st.st_dev;
		f->ino = st.st_ino;
	}
	uint64_t size = (uint64_t)st.st_size < PERFMAP_FILE_MAX ? (uint64_t)st.st_size : PERFMAP_FILE_MAX;
	while (f->used < size) {
		size_t want = size - f->used;
		if (want > CHUNK)
			want = CHUNK;
		if (!array_reserve((void **)&f->buf, want, &f->buf_cap, 1))
			break;
		ssize_t got = pread(fd, f->buf, want, (off_t)f->used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		size_t off = 0;
		if (f->skipping) {
			/* The rest of a line too long to keep: not a line. */
			const char *nl = memchr(f->buf, '\n', (size_t)got);
			if (!nl) {
				f->used += (uint64_t)got;
				continue;
			}
			off = (size_t)(nl - f->buf) + 1;
			f->skipping = false;
		}
		size_t used = off + perfmap_add(f->pm, f->buf + off, (size_t)got - off);
		if (used == 0) {
			if ((size_t)got < CHUNK)
				break; /* the last line, still being written */
			f->skipping = true; /* a whole chunk without a newline */
			used = (size_t)got;
		}
		f->used += used;
	}
	close(fd);
	if (cleared || f->used != was)
		f->changes++;
}

/* The file as it is now: read again if it may have changed. */
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
	/* What was appended to the file read before is still the old
	 * program's; a file the new one has rewritten (or replaced) is not.
	 * (An inode is never 0: no file was read yet.) */
	reread(f, f->ino != 0);
	f->frozen = true;
}

const char *perfmap_file_lookup(struct perfmap_file *f, uint64_t addr)
{
	look_again(f);
	return perfmap_lookup(f->pm, addr);
}

unsigned perfmap_file_changes(struct perfmap_file *f)
{
	look_again(f);
	return f->changes;
}
