/* pgprocs.c - every server process's wait event word in one read
 * (pgprocs.h). */
#define _GNU_SOURCE
#include "db/pgprocs.h"

#include <assert.h>
#include <sys/uio.h>

#include "db/pgsym.h"

/* iovecs a call reads at most (the kernel's IOV_MAX). */
#define IOVS_PER_CALL 1024

int32_t pg_pid_offset_find(const int32_t *window, size_t n, int32_t pid)
{
	for (size_t i = n; i-- > 0;)
		if (window[i] == pid)
			return -(int32_t)((n - i) * sizeof(int32_t));
	return 0;
}

int32_t pg_pid_offset_learn(pid_t pid, uint64_t word_addr)
{
	int32_t window[PG_PID_WINDOW / sizeof(int32_t)];
	if (!word_addr || word_addr < PG_PID_WINDOW || word_addr % sizeof(int32_t) ||
	    pg_read(pid, word_addr - PG_PID_WINDOW, window, sizeof(window)) != 0)
		return 0;
	return pg_pid_offset_find(window, sizeof(window) / sizeof(window[0]), (int32_t)pid);
}

/* One call for the entries from e on that fit in it: how many it took
 * (*ok: how many of them are ok). */
static size_t read_some(pid_t reader, struct pg_proc_read *e, size_t n, size_t *ok)
{
	struct iovec local[IOVS_PER_CALL], remote[IOVS_PER_CALL];
	int32_t pids[IOVS_PER_CALL / 2];
	size_t took = 0, iovs = 0;
	for (; took < n && iovs + 2 + e[took].n_more <= IOVS_PER_CALL; took++) {
		struct pg_proc_read *x = &e[took];
		x->ok = x->more_ok = false;
		/* the word first, then the pid: a pid still its own after the
		 * word was read means the slot was its own when it was */
		local[iovs] = (struct iovec){ &x->word, sizeof(x->word) };
		remote[iovs++] = (struct iovec){ (void *)(uintptr_t)x->word_addr, sizeof(uint32_t) };
		local[iovs] = (struct iovec){ &pids[took], sizeof(pids[took]) };
		remote[iovs++] = (struct iovec){
			(void *)(uintptr_t)(x->word_addr + (uint64_t)(int64_t)x->pid_offset),
			sizeof(int32_t)
		};
		for (size_t m = 0; m < x->n_more; m++, iovs++) {
			local[iovs] = x->more_local[m];
			remote[iovs] = x->more_remote[m];
		}
	}
	assert(took > 0 && iovs <= IOVS_PER_CALL);
	ssize_t got = process_vm_readv(reader, local, iovs, remote, iovs, 0);
	size_t left = got > 0 ? (size_t)got : 0;
	*ok = 0;
	for (size_t i = 0; i < took; i++) { /* the bytes read, in order */
		struct pg_proc_read *x = &e[i];
		size_t want = sizeof(uint32_t) + sizeof(int32_t), more = 0;
		for (size_t m = 0; m < x->n_more; m++)
			more += x->more_local[m].iov_len;
		if (left < want)
			break;
		left -= want;
		x->ok = x->pid_offset != 0 && pids[i] == (int32_t)x->pid;
		*ok += x->ok;
		x->more_ok = x->ok && left >= more;
		left = left >= more ? left - more : 0;
	}
	return took;
}

size_t pg_procs_read(pid_t reader, struct pg_proc_read *e, size_t n)
{
	size_t ok = 0;
	for (size_t at = 0; at < n;) {
		size_t some;
		at += read_some(reader, e + at, n - at, &some);
		ok += some;
	}
	return ok;
}
