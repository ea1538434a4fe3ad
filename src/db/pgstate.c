/* pgstate.c - a PostgreSQL process's wait event word (pgstate.h). */
#define _GNU_SOURCE
#include "db/pgstate.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/descriptors.h"
#include "db/pgsym.h"
#include "tracee/procfs.h"

#define SYMBOL "my_wait_event_info"
#define PG_VERSION_FILE_MAX 32 /* "18\n" and room to spare */

/* The process's effective uid, from /proc/PID/status; -1 if unknown. */
static int64_t process_euid(pid_t pid)
{
	char path[64], status[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t got = read(fd, status, sizeof(status));
	close(fd);
	uint64_t euid;
	if (got <= 0 || parse_status_number(status, (size_t)got, "Uid", 2, &euid) != 0)
		return -1;
	return (int64_t)euid;
}

/* $PGDATA/PG_VERSION: a server process's working directory is its data
 * directory, and the server refuses to start on one of another version.
 * The server's user controls that directory, so the file is read only if
 * it is what PostgreSQL makes: a regular file, no link (O_NOFOLLOW), of a
 * few bytes, owned by the server's own user - never a device, a FIFO (no
 * blocking open: O_NONBLOCK) or another user's file planted there. */
static int data_directory_version(pid_t pid, struct pg_version *v)
{
	char path[64], text[PG_VERSION_FILE_MAX];
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
	int64_t euid = process_euid(pid);
	int dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || euid < 0) {
		if (dir >= 0)
			close(dir);
		return -1;
	}
	int fd = openat(dir, "PG_VERSION", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(dir);
	if (fd < 0)
		return -1;
	struct stat st;
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= PG_VERSION_FILE_MAX &&
	    (int64_t)st.st_uid == euid)
		n = read(fd, text, sizeof(text));
	close(fd);
	return n > 0 && pg_version_parse(text, (size_t)n, v) == 0 ? 0 : -1;
}

enum pg_probe pg_probe(pid_t pid, struct modules *m, struct pg_process *out, char *msg,
		       size_t msglen)
{
	*out = (struct pg_process){ 0 };
	msg[0] = '\0';
	char link[64], exe[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0 && (errno == ENOENT || errno == ESRCH))
		return PG_PROBE_GONE; /* exiting: its memory is gone, or it is */
	if (n <= 0) {
		snprintf(msg, msglen, "process %d: cannot read %s (%s): no PostgreSQL state", (int)pid,
			 link, strerror(errno));
		return PG_PROBE_NOT_POSTGRES;
	}
	exe[n] = '\0';
	struct pg_binary bin;
	static const char *const symbol[] = { SYMBOL };
	uint64_t addr = 0;
	bool found = pg_binary_of(pid, m, &bin) == 0 && pg_binary_symbols(&bin, symbol, 1, &addr) == 1;
	out->version_known = bin.elf && pg_binary_version(&bin, &out->version) == 0;
	char name[16];
	if (!found) {
		if (out->version_known && out->version.major < PG_WAIT_FIRST_MAJOR) {
			/* 13.11, 9.6: as the server says it */
			if (out->version.major >= 10 && out->version.minor >= 0)
				snprintf(name, sizeof(name), "%d.%d", out->version.major,
					 out->version.minor);
			else
				pg_version_name(&out->version, name, sizeof(name));
			snprintf(msg, msglen, "process %d runs PostgreSQL %s (%s), which has no " SYMBOL
				 ": --pg-wait-events and --pg-queries need PostgreSQL %d or later",
				 (int)pid, name, exe, PG_WAIT_FIRST_MAJOR);
			return PG_PROBE_TOO_OLD;
		}
		char again[PATH_MAX];
		if (readlink(link, again, sizeof(again) - 1) <= 0)
			return PG_PROBE_GONE; /* its maps went as we read them */
		if (modules_short_of_descriptors(m) || descriptors_short()) {
			/* its program unread: ours the fault */
			snprintf(msg, msglen, "out of descriptors (ulimit -n %" PRIu64 "): process %d's "
				 "PostgreSQL state not read; raise the limit", descriptors_limit(),
				 (int)pid);
			return PG_PROBE_NO_ROOM;
		}
		snprintf(msg, msglen, "warning: process %d (%s) is not a PostgreSQL 14+ server process (no "
			 SYMBOL " in it): [no PostgreSQL state]", (int)pid, exe);
		return PG_PROBE_NOT_POSTGRES;
	}
	out->server = true;
	out->pointer_addr = addr;
	if (!out->version_known)
		out->version_known = data_directory_version(pid, &out->version) == 0;
	out->table = out->version_known ? pg_wait_table_for(out->version.major) : NULL;
	if (!out->version_known)
		snprintf(msg, msglen, "warning: process %d (%s): cannot tell its PostgreSQL version (no "
			 "version text in the binary, no PG_VERSION file of its user's in its directory)",
			 (int)pid, exe);
	else if (!out->table)
		snprintf(msg, msglen, "warning: process %d runs PostgreSQL %s, which this build does not "
			 "know (it knows 14 to 18)", (int)pid,
			 pg_version_name(&out->version, name, sizeof(name)));
	uint64_t ptr;
	if (pg_read(pid, out->pointer_addr, &ptr, sizeof(ptr)) == 0)
		out->word_addr = ptr;
	return PG_PROBE_SERVER;
}

void pg_words(const struct pg_process *p, struct snapshot *s)
{
	s->n_words = p->word_addr ? 3 : 2;
	s->word_addr[0] = p->pointer_addr;
	s->word_addr[1] = p->pointer_addr + 4;
	s->word_addr[2] = p->word_addr;
}

int pg_word(struct pg_process *p, pid_t pid, struct snapshot *s, uint32_t *word)
{
	uint64_t ptr;
	if (s->words_ok && s->n_words >= 2) {
		ptr = (uint64_t)s->word[0] | (uint64_t)s->word[1] << 32;
	} else if (pg_read(pid, p->pointer_addr, &ptr, sizeof(ptr)) != 0) {
		s->words_ok = 0;
		return -1;
	}
	if (!(s->words_ok && s->n_words == 3 && ptr == s->word_addr[2])) {
		/* moved since the last sample (or never read): where it points now */
		uint32_t w;
		if (!ptr || pg_read(pid, ptr, &w, sizeof(w)) != 0) {
			s->words_ok = 0;
			return -1;
		}
		s->n_words = 3;
		s->word[0] = (uint32_t)ptr;
		s->word[1] = (uint32_t)(ptr >> 32);
		s->word_addr[2] = ptr;
		s->word[2] = w;
		s->words_ok = 1;
		s->words_tid = pid; /* (read through the process itself) */
	}
	p->word_addr = ptr;
	*word = s->word[2];
	return 0;
}

int pg_word_read(struct pg_process *p, pid_t pid, uint32_t *word)
{
	uint64_t ptr = 0;
	uint32_t w = 0;
	struct iovec local[2] = { { &ptr, sizeof(ptr) }, { &w, sizeof(w) } };
	struct iovec remote[2] = { { (void *)(uintptr_t)p->pointer_addr, sizeof(ptr) },
				   { (void *)(uintptr_t)p->word_addr, sizeof(w) } };
	size_t n = p->word_addr ? 2 : 1;
	ssize_t want = (ssize_t)(sizeof(ptr) + (n == 2 ? sizeof(w) : 0));
	if (process_vm_readv(pid, local, n, remote, n, 0) != want) {
		if (n == 1 || process_vm_readv(pid, local, 1, remote, 1, 0) != (ssize_t)sizeof(ptr))
			return -1;
		n = 1; /* the pointer alone: the old word's place is gone */
	}
	if (n == 1 || ptr != p->word_addr) {
		if (!ptr || pg_read(pid, ptr, &w, sizeof(w)) != 0)
			return -1;
		p->word_addr = ptr;
	}
	*word = w;
	return 0;
}

const char *pg_state_frame(const struct pg_process *p, bool read, uint32_t word, char *out,
			   size_t outsz)
{
	if (!p->server)
		snprintf(out, outsz, "[no PostgreSQL state]");
	else if (!read)
		snprintf(out, outsz, "[unreadable] (PostgreSQL state)");
	else
		pg_wait_frame(p->table, word, out, outsz);
	return out;
}
