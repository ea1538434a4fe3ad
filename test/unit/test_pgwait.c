/* Unit tests: PostgreSQL versions and wait event frames, every class of
 * every version, the differences between versions, unknown words. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "db/pgstate.h"
#include "db/pgwait.h"

static const char *frame(int major, uint32_t word)
{
	static char buf[200];
	pg_wait_frame(pg_wait_table_for(major), word, buf, sizeof(buf));
	return buf;
}

#define EXPECT(major, word, text) assert_string_equal(frame(major, word), text)

static void versions_parsed(void **state)
{
	(void)state;
	struct { const char *text; int major, minor; } good[] = {
		{ "15.18 (Debian 15.18-0+deb12u1)", 15, 18 },
		{ "14.13", 14, 13 },
		{ "10.23", 10, 23 },
		{ "9.6.24", 9, 6 },
		{ "9.6", 9, 6 },
		{ "13.4\n", 13, 4 },
		{ "17beta1", 17, -1 },
		{ "16rc1 (Ubuntu)", 16, -1 },
		{ "18devel", 18, -1 },
		{ "15\n", 15, -1 },
		{ "17", 17, -1 },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct pg_version v = { 0, 0 };
		if (pg_version_parse(good[i].text, strlen(good[i].text), &v) != 0)
			fail_msg("rejected '%s'", good[i].text);
		if (v.major != good[i].major || v.minor != good[i].minor)
			fail_msg("'%s': %d.%d", good[i].text, v.major, v.minor);
	}
	const char *bad[] = { "", "x15", "15x", "15.", ".5", "9", "9.", "0.1", "1234567.1",
			      "15.x", "17beta", "16rc", "15-1", " 15", "15,2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pg_version v = { 99, 99 };
		if (pg_version_parse(bad[i], strlen(bad[i]), &v) != -1)
			fail_msg("accepted '%s'", bad[i]);
		assert_int_equal(v.major, 99); /* untouched */
	}
	/* only len bytes are read: "15" of "15.18" */
	struct pg_version v;
	assert_int_equal(pg_version_parse("15.18", 2, &v), 0);
	assert_int_equal(v.major, 15);
	assert_int_equal(v.minor, -1);
}

static void version_in_binary(void **state)
{
	(void)state;
	/* A string among others in .rodata, NUL-terminated, after a decoy. */
	static const char image[] = "\x7f" "ELF\0\0garbage\0postgres (PostgreSQL) %s\n\0"
				    "usage\0postgres (PostgreSQL) 13.4 (Debian 13.4-1)\n\0more";
	struct pg_version v;
	assert_int_equal(pg_version_in_binary(image, sizeof(image) - 1, &v), 0);
	assert_int_equal(v.major, 13);
	assert_int_equal(v.minor, 4);
	static const char old[] = "\0\0postgres (PostgreSQL) 9.6.24\n";
	assert_int_equal(pg_version_in_binary(old, sizeof(old) - 1, &v), 0);
	assert_int_equal(v.major, 9);
	assert_int_equal(v.minor, 6);
	static const char none[] = "PostgreSQL 15.18 on x86_64\0postgres (PostgreSQL)";
	assert_int_equal(pg_version_in_binary(none, sizeof(none) - 1, &v), -1);
	/* the mark at the very end of the buffer: nothing read past it */
	static const char cut[] = "postgres (PostgreSQL) 1";
	assert_int_equal(pg_version_in_binary(cut, sizeof(cut) - 2, &v), -1);
	assert_int_equal(pg_version_in_binary(cut, sizeof(cut) - 1, &v), -1); /* "1" is no release */
	assert_int_equal(pg_version_in_binary("", 0, &v), -1);
}

static void version_names(void **state)
{
	(void)state;
	char buf[16];
	assert_string_equal(pg_version_name(&(struct pg_version){ 15, 18 }, buf, sizeof(buf)), "15");
	assert_string_equal(pg_version_name(&(struct pg_version){ 9, 6 }, buf, sizeof(buf)), "9.6");
	assert_string_equal(pg_version_name(&(struct pg_version){ 13, -1 }, buf, sizeof(buf)), "13");
}

static void tables_for_14_to_18_only(void **state)
{
	(void)state;
	for (int m = 0; m < 30; m++) {
		const struct pg_wait_table *t = pg_wait_table_for(m);
		if (m >= 14 && m <= 18) {
			assert_non_null(t);
			assert_int_equal(t->major, m);
		} else if (t) {
			fail_msg("a table for %d", m);
		}
	}
}

/* The same event in every version where its number stays. */
static void stable_numbers(void **state)
{
	(void)state;
	for (int m = 14; m <= 18; m++) {
		EXPECT(m, 0, "On CPU (PostgreSQL state)");
		EXPECT(m, 0x06000000, "event=Client:ClientRead (PostgreSQL state)");
		EXPECT(m, 0x06000001, "event=Client:ClientWrite (PostgreSQL state)");
		EXPECT(m, 0x03000000, "event=Lock:relation (PostgreSQL state)");
		EXPECT(m, 0x03000004, "event=Lock:tuple (PostgreSQL state)");
		EXPECT(m, 0x03000005, "event=Lock:transactionid (PostgreSQL state)");
		EXPECT(m, 0x0300000a, "event=Lock:advisory (PostgreSQL state)");
		EXPECT(m, 0x01000004, "event=LWLock:ProcArray (PostgreSQL state)");
		EXPECT(m, 0x01000008, "event=LWLock:WALWrite (PostgreSQL state)");
		EXPECT(m, 0x05000000, "event=Activity:ArchiverMain (PostgreSQL state)");
		EXPECT(m, 0x05000004, "event=Activity:CheckpointerMain (PostgreSQL state)");
		EXPECT(m, 0x04000000, "event=BufferPin:BufferPin (PostgreSQL state)");
		EXPECT(m, 0x07000000, "event=Extension:Extension (PostgreSQL state)");
		EXPECT(m, 0x08000000, "event=IPC:AppendReady (PostgreSQL state)");
		EXPECT(m, 0x09000000, "event=Timeout:BaseBackupThrottle (PostgreSQL state)");
		EXPECT(m, 0x0a000000, m < 17 ? "event=IO:BaseBackupRead (PostgreSQL state)"
				      : m == 17 ? "event=IO:BasebackupRead (PostgreSQL state)"
						: "event=IO:AioIoCompletion (PostgreSQL state)");
	}
}

/* What moves between versions: the reason for a table per version. */
static void numbers_that_move(void **state)
{
	(void)state;
	/* IO:WALSync: 14 lacks BaseBackupSync/Write, 16 adds DSMAllocate and
	 * RelationMapReplace (drops RelationMapSync), 17 more files. */
	EXPECT(14, 0x0a000043, "event=IO:WALSync (PostgreSQL state)");
	EXPECT(15, 0x0a000046, "event=IO:WALSync (PostgreSQL state)");
	EXPECT(16, 0x0a000047, "event=IO:WALSync (PostgreSQL state)");
	EXPECT(17, 0x0a00004a, "event=IO:WalSync (PostgreSQL state)");
	EXPECT(15, 0x0a000047, "event=IO:WALSyncMethodAssign (PostgreSQL state)");
	EXPECT(15, 0x0a000048, "event=IO:WALWrite (PostgreSQL state)");
	EXPECT(14, 0x0a00000f, "event=IO:DataFileRead (PostgreSQL state)");
	EXPECT(15, 0x0a000011, "event=IO:DataFileRead (PostgreSQL state)");
	EXPECT(17, 0x0a000011, "event=IO:DataFileRead (PostgreSQL state)");
	/* 17 names events after their enum: WalSync, BufferIo, AutovacuumMain */
	EXPECT(15, 0x08000008, "event=IPC:BufferIO (PostgreSQL state)");
	EXPECT(17, 0x08000008, "event=IPC:BufferIo (PostgreSQL state)");
	EXPECT(15, 0x05000001, "event=Activity:AutoVacuumMain (PostgreSQL state)");
	EXPECT(17, 0x05000001, "event=Activity:AutovacuumMain (PostgreSQL state)");
	/* 14's statistics collector, gone in 15 */
	EXPECT(14, 0x05000007, "event=Activity:PgStatMain (PostgreSQL state)");
	EXPECT(14, 0x0500000c, "event=Activity:WalWriterMain (PostgreSQL state)");
	EXPECT(15, 0x0500000b, "event=Activity:WalWriterMain (PostgreSQL state)");
	EXPECT(15, 0x0500000c, "event=0x0500000c (PostgreSQL state)");
	EXPECT(16, 0x0500000c, "event=Activity:WalWriterMain (PostgreSQL state)");
	EXPECT(17, 0x0500000f, "event=Activity:WalWriterMain (PostgreSQL state)");
	/* Timeout:SpinDelay from 16 */
	EXPECT(15, 0x09000006, "event=Timeout:VacuumDelay (PostgreSQL state)");
	EXPECT(16, 0x09000006, "event=Timeout:SpinDelay (PostgreSQL state)");
	/* Lock:applytransaction from 16 */
	EXPECT(15, 0x0300000b, "event=0x0300000b (PostgreSQL state)");
	EXPECT(16, 0x0300000b, "event=Lock:applytransaction (PostgreSQL state)");
	EXPECT(17, 0x0300000b, "event=Lock:applytransaction (PostgreSQL state)");
}

/* 18: asynchronous I/O (an io worker's main loop, AIO events first in the
 * IO class), a checkpointer shutting down, a B-tree scan tranche. */
static void eighteen(void **state)
{
	(void)state;
	EXPECT(18, 0x05000005, "event=Activity:CheckpointerShutdown (PostgreSQL state)");
	EXPECT(18, 0x05000006, "event=Activity:IoWorkerMain (PostgreSQL state)");
	EXPECT(18, 0x05000011, "event=Activity:WalWriterMain (PostgreSQL state)");
	EXPECT(18, 0x0a000015, "event=IO:DataFileRead (PostgreSQL state)");
	EXPECT(18, 0x0a00004e, "event=IO:WalSync (PostgreSQL state)");
	EXPECT(18, 0x08000008, "event=IPC:BufferIo (PostgreSQL state)");
	EXPECT(18, 0x01000035, "event=LWLock:AioWorkerSubmissionQueue (PostgreSQL state)");
	EXPECT(18, 0x01000036, "event=LWLock:XactBuffer (PostgreSQL state)");
	EXPECT(18, 0x01000045, "event=LWLock:ParallelHashJoin (PostgreSQL state)");
	EXPECT(18, 0x01000046, "event=LWLock:ParallelBtreeScan (PostgreSQL state)");
	EXPECT(18, 0x0100005e, "event=LWLock:AioUringCompletion (PostgreSQL state)");
	EXPECT(18, 0x0100005f, "event=0x0100005f (PostgreSQL state)");
	EXPECT(18, 0x0300000b, "event=Lock:applytransaction (PostgreSQL state)");
	EXPECT(18, 0x04000001, "event=0x04000001 (PostgreSQL state)");
	EXPECT(18, 0x0b000000, "event=0x0b000000 (PostgreSQL state)");
}

static void lwlocks(void **state)
{
	(void)state;
	/* individual locks; 0, 10 and 45 are unassigned in every version */
	for (int m = 14; m <= 17; m++) {
		EXPECT(m, 0x01000000, "event=0x01000000 (PostgreSQL state)");
		EXPECT(m, 0x0100000a, "event=0x0100000a (PostgreSQL state)");
		EXPECT(m, 0x0100002d, "event=0x0100002d (PostgreSQL state)");
		EXPECT(m, 0x0100002f, "event=LWLock:NotifyQueueTail (PostgreSQL state)");
	}
	/* the SLRU locks became tranches in 17 */
	EXPECT(15, 0x0100000b, "event=LWLock:XactSLRU (PostgreSQL state)");
	EXPECT(17, 0x0100000b, "event=0x0100000b (PostgreSQL state)");
	EXPECT(17, 0x0100005a, "event=LWLock:XactSLRU (PostgreSQL state)");
	EXPECT(15, 0x0100002a, "event=LWLock:OldSnapshotTimeMap (PostgreSQL state)");
	EXPECT(17, 0x0100002a, "event=0x0100002a (PostgreSQL state)");
	/* built-in tranches */
	for (int m = 14; m <= 16; m++) {
		EXPECT(m, 0x01000030, "event=LWLock:XactBuffer (PostgreSQL state)");
		EXPECT(m, 0x01000037, "event=LWLock:WALInsert (PostgreSQL state)");
		EXPECT(m, 0x01000038, "event=LWLock:BufferContent (PostgreSQL state)");
		EXPECT(m, 0x0100003c, "event=LWLock:BufferMapping (PostgreSQL state)");
		EXPECT(m, 0x0100003d, "event=LWLock:LockManager (PostgreSQL state)");
	}
	EXPECT(17, 0x01000030, "event=LWLock:WaitEventCustom (PostgreSQL state)");
	EXPECT(17, 0x0100003c, "event=LWLock:WALInsert (PostgreSQL state)");
	EXPECT(17, 0x01000041, "event=LWLock:BufferMapping (PostgreSQL state)");
	/* the last built-in tranche, then extensions' (names only their own
	 * backends know): numbers */
	EXPECT(14, 0x01000047, "event=LWLock:PerXactPredicateList (PostgreSQL state)");
	EXPECT(14, 0x01000048, "event=0x01000048 (PostgreSQL state)");
	EXPECT(15, 0x0100004a, "event=LWLock:PgStatsData (PostgreSQL state)");
	EXPECT(15, 0x0100004b, "event=0x0100004b (PostgreSQL state)");
	EXPECT(16, 0x0100004c, "event=LWLock:LogicalRepLauncherHash (PostgreSQL state)");
	EXPECT(16, 0x0100004d, "event=0x0100004d (PostgreSQL state)");
	EXPECT(17, 0x0100005b, "event=LWLock:ParallelVacuumDSA (PostgreSQL state)");
	EXPECT(17, 0x0100005c, "event=0x0100005c (PostgreSQL state)");
	EXPECT(17, 0x0100ffff, "event=0x0100ffff (PostgreSQL state)");
	for (int m = 14; m <= 18; m++) {
		const struct pg_wait_table *t = pg_wait_table_for(m);
		assert_null(pg_wait_name(t, 0x01000000 | t->first_user_tranche));
		assert_non_null(pg_wait_name(t, 0x01000000 | (t->first_user_tranche - 1)));
	}
}

/* BufferPin and Extension name every id before 17; 17 has custom
 * Extension events (and InjectionPoint ones) whose names live in the
 * server's shared memory: numbers. */
static void single_name_classes(void **state)
{
	(void)state;
	for (int m = 14; m <= 16; m++) {
		EXPECT(m, 0x04000001, "event=BufferPin:BufferPin (PostgreSQL state)");
		EXPECT(m, 0x07000003, "event=Extension:Extension (PostgreSQL state)");
		EXPECT(m, 0x0b000000, "event=0x0b000000 (PostgreSQL state)");
	}
	EXPECT(17, 0x04000001, "event=0x04000001 (PostgreSQL state)");
	EXPECT(17, 0x07000001, "event=0x07000001 (PostgreSQL state)");
	EXPECT(17, 0x0b000000, "event=0x0b000000 (PostgreSQL state)");
	EXPECT(17, 0x0b000002, "event=0x0b000002 (PostgreSQL state)");
	assert_string_equal(pg_wait_type(pg_wait_table_for(17), 0x0b000002), "InjectionPoint");
	assert_null(pg_wait_type(pg_wait_table_for(16), 0x0b000002));
}

static void unknown_words(void **state)
{
	(void)state;
	uint32_t words[] = { 0x02000000, 0x0c000000, 0xff000000, 0x00000001, 0x0a0000ff,
			     0x0a010000, 0x06ff0000, 0x08000100, 0xffffffff };
	for (int m = 14; m <= 18; m++)
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			char want[64];
			snprintf(want, sizeof(want), "event=0x%08x (PostgreSQL state)", words[i]);
			EXPECT(m, words[i], want);
		}
	/* no table (a version we do not know): every word a number */
	char buf[64];
	pg_wait_frame(NULL, 0x0a000046, buf, sizeof(buf));
	assert_string_equal(buf, "event=0x0a000046 (PostgreSQL state)");
	pg_wait_frame(NULL, 0, buf, sizeof(buf));
	assert_string_equal(buf, "On CPU (PostgreSQL state)");
	/* the frame fits, truncated, in a small buffer */
	pg_wait_frame(pg_wait_table_for(15), 0x0a000046, buf, 12);
	assert_string_equal(buf, "event=IO:WA");
}

/* Every id of every class of every version: a name from the table (no
 * hole misnamed, no empty or unsafe name), or its number. */
static void every_class_every_id(void **state)
{
	(void)state;
	for (int m = 14; m <= 18; m++) {
		const struct pg_wait_table *t = pg_wait_table_for(m);
		for (size_t c = 0; c < t->n_classes; c++) {
			const struct pg_wait_class *k = &t->classes[c];
			size_t named = 0;
			for (uint32_t id = 0; id < 0x200; id++) {
				uint32_t word = (uint32_t)k->id << 24 | id;
				const char *name = pg_wait_name(t, word);
				const char *type = pg_wait_type(t, word);
				assert_non_null(type);
				assert_string_equal(type, k->type);
				char got[200], want[200];
				pg_wait_frame(t, word, got, sizeof(got));
				if (name) {
					named++;
					assert_true(strlen(name) > 0 && !strpbrk(name, "; :\n"));
					snprintf(want, sizeof(want), "event=%s:%s (PostgreSQL state)", type, name);
				} else {
					snprintf(want, sizeof(want), "event=0x%08x (PostgreSQL state)", word);
				}
				assert_string_equal(got, want);
			}
			/* a name appears once per class (a shifted table would
			 * not show it, a doubled line would) */
			for (size_t i = 0; i < k->n_events; i++)
				for (size_t j = i + 1; j < k->n_events; j++)
					if (k->events[i] && k->events[j] && strcmp(k->events[i], k->events[j]) == 0)
						fail_msg("%d %s: %s twice", m, k->type, k->events[i]);
			if (!named && strcmp(k->type, "InjectionPoint") != 0)
				fail_msg("%d: class %s names nothing", m, k->type);
		}
	}
	/* how many each version names, class by class */
	static const struct { int m; uint8_t cls; size_t n; } counts[] = {
		{ 14, 0x05, 13 }, { 14, 0x06, 8 }, { 14, 0x08, 48 }, { 14, 0x09, 7 }, { 14, 0x0a, 74 },
		{ 15, 0x05, 12 }, { 15, 0x06, 8 }, { 15, 0x08, 52 }, { 15, 0x09, 8 }, { 15, 0x0a, 74 },
		{ 16, 0x05, 13 }, { 16, 0x06, 8 }, { 16, 0x08, 54 }, { 16, 0x09, 9 }, { 16, 0x0a, 75 },
		{ 17, 0x05, 16 }, { 17, 0x06, 9 }, { 17, 0x08, 58 }, { 17, 0x09, 10 }, { 17, 0x0a, 77 },
		{ 18, 0x05, 18 }, { 18, 0x06, 9 }, { 18, 0x08, 58 }, { 18, 0x09, 10 }, { 18, 0x0a, 81 },
		{ 14, 0x03, 11 }, { 15, 0x03, 11 }, { 16, 0x03, 12 }, { 17, 0x03, 12 }, { 18, 0x03, 12 },
		{ 17, 0x01, 81 }, { 18, 0x01, 84 },
	};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		const struct pg_wait_table *t = pg_wait_table_for(counts[i].m);
		size_t n = 0;
		for (uint32_t id = 0; id < 0x200; id++)
			n += pg_wait_name(t, (uint32_t)counts[i].cls << 24 | id) != NULL;
		if (n != counts[i].n)
			fail_msg("%d class 0x%02x: %zu names, expected %zu", counts[i].m, counts[i].cls, n,
				 counts[i].n);
	}
}

/* The state frame every mode writes (a recording, --dump, --top): no
 * server, a word unread, a word. */
static void state_frames(void **state)
{
	(void)state;
	char out[128];
	struct pg_process none = { .server = false };
	struct pg_process server = { .server = true, .table = pg_wait_table_for(15) };
	assert_string_equal(pg_state_frame(&none, true, 0, out, sizeof(out)), "[no PostgreSQL state]");
	assert_string_equal(pg_state_frame(&server, false, 0, out, sizeof(out)),
			    "[unreadable] (PostgreSQL state)");
	assert_string_equal(pg_state_frame(&server, true, 0, out, sizeof(out)), "On CPU (PostgreSQL state)");
	pg_state_frame(&server, true, 0x09000002, out, sizeof(out));
	assert_string_equal(out, "event=Timeout:PgSleep (PostgreSQL state)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(state_frames),
		cmocka_unit_test(versions_parsed),
		cmocka_unit_test(version_in_binary),
		cmocka_unit_test(version_names),
		cmocka_unit_test(tables_for_14_to_18_only),
		cmocka_unit_test(stable_numbers),
		cmocka_unit_test(numbers_that_move),
		cmocka_unit_test(eighteen),
		cmocka_unit_test(lwlocks),
		cmocka_unit_test(single_name_classes),
		cmocka_unit_test(unknown_words),
		cmocka_unit_test(every_class_every_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
