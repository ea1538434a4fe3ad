/* Unit tests: server processes' wait words read through one process
 * (pgprocs.h), on this process's own memory standing for a PGPROC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "db/pgprocs.h"
#include "db/pgstate.h"
#include "tracee/snapshot.h"

/* A PGPROC as PostgreSQL 15 lays the fields we use out: the pid at 712
 * bytes before the word, its latch's owner_pid at 696. */
struct fake_proc {
	int32_t head[8];
	int32_t pid;            /* at word - 712 */
	int32_t middle[3];
	int32_t owner_pid;      /* at word - 696 */
	int32_t tail[173];
	uint32_t wait_event_info;
};

static void the_nearest_pid_before_the_word(void **state)
{
	(void)state;
	int32_t w[8] = { 1, 2, 77, 3, 4, 5, 6, 7 };
	assert_int_equal(pg_pid_offset_find(w, 8, 77), -24);
	w[7] = 77; /* just before the word */
	assert_int_equal(pg_pid_offset_find(w, 8, 77), -4);
	assert_int_equal(pg_pid_offset_find(w, 8, 78), 0);
	assert_int_equal(pg_pid_offset_find(w, 0, 77), 0);
	struct fake_proc p = { .pid = 4242, .owner_pid = 4242 };
	assert_int_equal(offsetof(struct fake_proc, wait_event_info) - offsetof(struct fake_proc, pid), 712);
	const int32_t *before = (const int32_t *)&p.wait_event_info - 178;
	assert_int_equal(pg_pid_offset_find(before, 178, 4242), -696); /* owner_pid */
	p.owner_pid = 0; /* given up: the latch's cleared */
	assert_int_equal(pg_pid_offset_find(before, 178, 4242), -712);
}

static void learnt_from_memory(void **state)
{
	(void)state;
	static struct {
		char room[PG_PID_WINDOW];
		struct fake_proc p;
	} m;
	m.p.pid = m.p.owner_pid = (int32_t)getpid();
	assert_int_equal(pg_pid_offset_learn(getpid(), (uint64_t)(uintptr_t)&m.p.wait_event_info), -696);
	assert_int_equal(pg_pid_offset_learn(getpid(), 0), 0);
	assert_int_equal(pg_pid_offset_learn(getpid(), (uint64_t)(uintptr_t)&m.p.wait_event_info + 1), 0);
	m.p.pid = m.p.owner_pid = 1; /* not this process's */
	assert_int_equal(pg_pid_offset_learn(getpid(), (uint64_t)(uintptr_t)&m.p.wait_event_info), 0);
}

/* Each word is its process's only while its slot carries its pid; a
 * failed read leaves the entries after it unread. */
static void words_kept_only_under_their_pid(void **state)
{
	(void)state;
	static struct fake_proc procs[3];
	struct pg_proc_read e[4];
	for (int i = 0; i < 3; i++) {
		procs[i].pid = 100 + i;
		procs[i].wait_event_info = 0x05000000u + (uint32_t)i;
		e[i] = (struct pg_proc_read){ .word_addr = (uint64_t)(uintptr_t)&procs[i].wait_event_info,
					      .pid_offset = -712, .pid = 100 + i };
	}
	assert_int_equal(pg_procs_read(getpid(), e, 3), 3);
	for (int i = 0; i < 3; i++) {
		assert_true(e[i].ok);
		assert_int_equal(e[i].word, 0x05000000u + (uint32_t)i);
	}
	procs[1].pid = 555; /* its slot another backend's now */
	assert_int_equal(pg_procs_read(getpid(), e, 3), 2);
	assert_true(e[0].ok);
	assert_false(e[1].ok);
	assert_true(e[2].ok);
	/* an unreadable word: it and those after it not ok */
	e[3] = e[2];
	e[1] = (struct pg_proc_read){ .word_addr = 4096, .pid_offset = -712, .pid = 101 };
	procs[1].pid = 101;
	assert_int_equal(pg_procs_read(getpid(), e, 4), 1);
	assert_true(e[0].ok);
	assert_false(e[1].ok);
	assert_false(e[2].ok);
	assert_false(e[3].ok);
	/* no offset learnt: never ok */
	e[0].pid_offset = 0;
	assert_int_equal(pg_procs_read(getpid(), e, 1), 0);
	/* no such process */
	e[0].pid_offset = -712;
	assert_int_equal(pg_procs_read(0x7ffffff0, e, 1), 0);
	assert_false(e[0].ok);
}

/* More than one call's worth (512 a call). */
static void many_in_several_calls(void **state)
{
	(void)state;
	enum { N = 1100 };
	static struct fake_proc procs[N];
	static struct pg_proc_read e[N];
	for (int i = 0; i < N; i++) {
		procs[i].pid = 1000 + i;
		procs[i].wait_event_info = (uint32_t)i;
		e[i] = (struct pg_proc_read){ .word_addr = (uint64_t)(uintptr_t)&procs[i].wait_event_info,
					      .pid_offset = -712, .pid = 1000 + i };
	}
	assert_int_equal(pg_procs_read(getpid(), e, N), N);
	assert_int_equal(e[N - 1].word, N - 1);
	assert_int_equal(e[600].word, 600);
}

/* More of each process's memory in the same call (its status slot):
 * read after the pid, ok only with it; entries packed within IOV_MAX. */
static void more_read_with_each(void **state)
{
	(void)state;
	enum { N = 300, MORE = 5 };
	static struct fake_proc procs[N];
	static int64_t slot[N][MORE], got[N][MORE];
	static struct iovec l[N][MORE], r[N][MORE];
	static struct pg_proc_read e[N];
	for (int i = 0; i < N; i++) {
		procs[i].pid = 2000 + i;
		for (int m = 0; m < MORE; m++) {
			slot[i][m] = 1000 * i + m;
			l[i][m] = (struct iovec){ &got[i][m], sizeof(got[i][m]) };
			r[i][m] = (struct iovec){ &slot[i][m], sizeof(slot[i][m]) };
		}
		e[i] = (struct pg_proc_read){ .word_addr = (uint64_t)(uintptr_t)&procs[i].wait_event_info,
					      .pid_offset = -712, .pid = 2000 + i,
					      .more_local = l[i], .more_remote = r[i], .n_more = MORE };
	}
	assert_int_equal(pg_procs_read(getpid(), e, N), N); /* 146 a call: 3 calls */
	for (int i = 0; i < N; i++) {
		assert_true(e[i].more_ok);
		assert_int_equal(got[i][MORE - 1], 1000 * i + MORE - 1);
	}
	procs[7].pid = 1; /* another's slot: its more not ok either */
	r[9][2].iov_base = (void *)4096; /* unreadable: 9's more, and 10 on */
	assert_int_equal(pg_procs_read(getpid(), e, 20), 9 - 1 + 1);
	assert_false(e[7].ok);
	assert_false(e[7].more_ok);
	assert_true(e[8].more_ok);
	assert_true(e[9].ok);
	assert_false(e[9].more_ok);
	assert_false(e[10].ok);
}

/* A word read by pg_word itself (the snapshot's not read, or its pointer
 * moved) is read through the process: the snapshot says so, and the
 * sampler then counts it as the process's own (app.c). */
static void a_word_read_by_itself_says_through_whom(void **state)
{
	(void)state;
	static uint32_t word = 0x05000001, other = 0x06000002;
	static uint32_t *pointer = &word;
	struct pg_process p = { .server = true, .pointer_addr = (uint64_t)(uintptr_t)&pointer };
	struct snapshot *sn = calloc(1, sizeof(*sn));
	assert_non_null(sn);
	pg_words(&p, sn);
	sn->words_ok = 0;
	sn->words_tid = getpid() + 1; /* left by another read */
	uint32_t w = 0;
	assert_int_equal(pg_word(&p, getpid(), sn, &w), 0);
	assert_int_equal(w, 0x05000001);
	assert_true(snapshot_words_through(sn, getpid()));
	/* moved since: the snapshot's words stand for the moment they were
	 * read; not read, the word where it points now */
	pointer = &other;
	assert_int_equal(pg_word(&p, getpid(), sn, &w), 0);
	assert_int_equal(w, 0x05000001);
	sn->words_ok = 0;
	sn->words_tid = getpid() + 1;
	assert_int_equal(pg_word(&p, getpid(), sn, &w), 0);
	assert_int_equal(w, 0x06000002);
	assert_int_equal(p.word_addr, (uint64_t)(uintptr_t)&other);
	assert_true(snapshot_words_through(sn, getpid()));
	free(sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_nearest_pid_before_the_word),
		cmocka_unit_test(learnt_from_memory),
		cmocka_unit_test(words_kept_only_under_their_pid),
		cmocka_unit_test(many_in_several_calls),
		cmocka_unit_test(more_read_with_each),
		cmocka_unit_test(a_word_read_by_itself_says_through_whom),
	};
	return cmocka_run_group_tests_name("pgprocs", tests, NULL, NULL);
}
