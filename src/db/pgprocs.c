/* pgprocs.c - every server process's wait event word in one read
 * (pgprocs.h). */
#define _GNU_SOURCE
#include "db/pgprocs.h"

#include <assert.h>
#include <sys/uio.h>

#include "db/pgsym.h"

/* Entries a call reads: two iovecs each, within IOV_MAX (1024). */
#define PROCS_PER_CALL 512

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

/* One call for up to PROCS_PER_CALL entries: how many are ok. */
static size_t read_some(pid_t reader, struct pg_proc_read *e, size_t n)
{
	assert(n > 0 && n <= PROCS_PER_CALL);
	struct iovec local[2 * PROCS_PER_CALL], remote[2 * PROCS_PER_CALL];
	int32_t pids[PROCS_PER_CALL];
	for (size_t i = 0; i < n; i++) {
		e[i].ok = false;
		/* the word first, then the pid: a pid still its own after the
		 * word was read means the slot was its own when it was */
		local[2 * i] = (struct iovec){ &e[i].word, sizeof(e[i].word) };
		remote[2 * i] = (struct iovec){ (void *)(uintptr_t)e[i].word_addr, sizeof(uint32_t) };
		local[2 * i + 1] = (struct iovec){ &pids[i], sizeof(pids[i]) };
		remote[2 * i + 1] = (struct iovec){
			(void *)(uintptr_t)(e[i].word_addr + (uint64_t)(int64_t)e[i].pid_offset),
			sizeof(int32_t)
		};
	}
	ssize_t got = process_vm_readv(reader, local, 2 * n, remote, 2 * n, 0);
	size_t whole = got > 0 ? (size_t)got / (sizeof(uint32_t) + sizeof(int32_t)) : 0, ok = 0;
	for (size_t i = 0; i < whole && i < n; i++) {
		e[i].ok = e[i].pid_offset != 0 && pids[i] == (int32_t)e[i].pid;
		ok += e[i].ok;
	}
	return ok;
}

size_t pg_procs_read(pid_t reader, struct pg_proc_read *e, size_t n)
{
	size_t ok = 0;
	for (size_t at = 0; at < n; at += PROCS_PER_CALL)
		ok += read_some(reader, e + at, n - at < PROCS_PER_CALL ? n - at : PROCS_PER_CALL);
	return ok;
}
