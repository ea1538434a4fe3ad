/* Unit tests: backend types and states of 14 to 18 in pg_stat_activity's
 * words, the query frame, the idle-wait predicate, process titles and the
 * root frame. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "db/pgactivity.h"
#include "db/pgshape.h"
#include "db/pgtitle.h"
#include "db/title.h"

#define NAME(major, type) pg_backend_type_name(major, type)

static void backend_types(void **state)
{
	(void)state;
	/* the client backend moved: 3 in 14-15, 4 in 16, 1 from 17 */
	assert_string_equal(NAME(14, 3), "client backend");
	assert_string_equal(NAME(15, 3), "client backend");
	assert_string_equal(NAME(16, 4), "client backend");
	assert_string_equal(NAME(17, 1), "client backend");
	assert_string_equal(NAME(18, 1), "client backend");
	for (int major = 14; major <= 18; major++) {
		int client = 0, worker = 0;
		for (int t = 0; t < 20; t++) {
			client += pg_backend_type_client(major, t);
			worker += pg_backend_type_worker(major, t);
			if (pg_backend_type_client(major, t))
				assert_string_equal(NAME(major, t), "client backend");
			if (pg_backend_type_worker(major, t))
				assert_string_equal(NAME(major, t), "background worker");
		}
		assert_int_equal(client, 1);
		assert_int_equal(worker, 1);
		/* who reports a state: sessions and workers, never the
		 * auxiliary processes */
		int reports = 0;
		for (int t = 0; t < 20; t++) {
			const char *n = NAME(major, t);
			bool want = n && (strcmp(n, "client backend") == 0 || strcmp(n, "walsender") == 0 ||
					  strcmp(n, "autovacuum worker") == 0 ||
					  strcmp(n, "standalone backend") == 0 ||
					  strcmp(n, "background worker") == 0);
			assert_int_equal(pg_backend_type_reports(major, t), want);
			reports += want;
		}
		assert_int_equal(reports, major >= 16 ? 5 : 4);
		assert_null(NAME(major, 0)); /* B_INVALID */
		assert_null(NAME(major, -1));
	}
	assert_string_equal(NAME(15, 6), "checkpointer");
	assert_false(pg_backend_type_reports(15, 6));  /* checkpointer */
	assert_false(pg_backend_type_reports(15, 1));  /* autovacuum launcher */
	assert_true(pg_backend_type_reports(15, 2));   /* autovacuum worker */
	assert_true(pg_backend_type_reports(15, 3));   /* client backend */
	assert_true(pg_backend_type_reports(15, 9));   /* walsender */
	assert_true(pg_backend_type_reports(17, 1));   /* client backend */
	assert_false(pg_backend_type_reports(17, 10)); /* checkpointer */
	assert_false(pg_backend_type_reports(15, 0));  /* the postmaster */
	assert_string_equal(NAME(15, 10), "walwriter");
	assert_string_equal(NAME(15, 12), "logger");
	assert_null(NAME(15, 13));
	assert_string_equal(NAME(14, 12), "stats collector"); /* 14's only */
	assert_string_equal(NAME(16, 9), "standalone backend");
	assert_string_equal(NAME(17, 6), "slotsync worker");
	assert_string_equal(NAME(17, 13), "walsummarizer");
	assert_string_equal(NAME(17, 15), "logger");
	assert_string_equal(NAME(18, 2), "dead-end client backend");
	assert_string_equal(NAME(18, 12), "io worker");
	assert_string_equal(NAME(18, 17), "logger");
	assert_null(NAME(18, 18));
	assert_null(NAME(13, 3));
	assert_null(NAME(19, 1));
}

static void states(void **state)
{
	(void)state;
	for (int major = 14; major <= 17; major++) {
		assert_int_equal(pg_state_of(major, 0), PG_STATE_NONE);
		assert_int_equal(pg_state_of(major, 1), PG_STATE_IDLE);
		assert_int_equal(pg_state_of(major, 2), PG_STATE_ACTIVE);
		assert_int_equal(pg_state_of(major, 6), PG_STATE_DISABLED);
		assert_int_equal(pg_state_of(major, 7), PG_STATE_UNKNOWN);
	}
	/* 18 put STATE_STARTING second */
	assert_int_equal(pg_state_of(18, 1), PG_STATE_STARTING);
	assert_int_equal(pg_state_of(18, 2), PG_STATE_IDLE);
	assert_int_equal(pg_state_of(18, 3), PG_STATE_ACTIVE);
	assert_int_equal(pg_state_of(18, 7), PG_STATE_DISABLED);
	assert_int_equal(pg_state_of(18, 8), PG_STATE_UNKNOWN);
	assert_int_equal(pg_state_of(13, 1), PG_STATE_UNKNOWN);
	assert_int_equal(pg_state_of(15, -1), PG_STATE_UNKNOWN);
	assert_string_equal(pg_state_name(pg_state_of(15, 3)), "idle in transaction");
	assert_string_equal(pg_state_name(pg_state_of(15, 4)), "fastpath function call");
	assert_string_equal(pg_state_name(pg_state_of(15, 5)), "idle in transaction (aborted)");
	assert_string_equal(pg_state_name(pg_state_of(18, 1)), "starting");
	assert_null(pg_state_name(PG_STATE_NONE));
	assert_null(pg_state_name(PG_STATE_UNKNOWN));
}

static const char *frame_of(const struct pg_activity *a)
{
	static char buf[256];
	pg_query_frame(a, buf, sizeof(buf));
	return buf;
}

static void query_frames(void **state)
{
	(void)state;
	struct pg_activity a = { .state = PG_STATE_ACTIVE, .query_id = -17425642808054694LL,
				 .text_hash = 7, .text = "select pg_sleep($1)" };
	assert_string_equal(frame_of(&a), "query=-17425642808054694 select pg_sleep($1)");
	/* no id from the server: the hash, read as signed, marked as one (it
	 * must never pass for the server's id: pg_stat_activity shows NULL) */
	a.query_id = 0;
	a.text_hash = 0xcbf29ce484222325ULL;
	assert_string_equal(frame_of(&a), "query=hash:-3750763034362895579 select pg_sleep($1)");
	/* sanitized: a ';' of a multi-statement text, a control character */
	snprintf(a.text, sizeof(a.text), "select $1; select \"a\tb\"");
	a.query_id = 12;
	assert_string_equal(frame_of(&a), "query=12 select $1: select \"a?b\"");
	a.text[0] = '\0';
	assert_string_equal(frame_of(&a), "query=12");
	a.state = PG_STATE_IDLE;
	assert_string_equal(frame_of(&a), "idle");
	a.state = PG_STATE_IDLE_IN_TRANSACTION_ABORTED;
	assert_string_equal(frame_of(&a), "idle in transaction (aborted)");
	a.state = PG_STATE_NONE;
	char out[8] = "x";
	assert_int_equal(pg_query_frame(&a, out, sizeof(out)), 0);
	assert_string_equal(out, "");
}

/* A statement read while parsed (no id yet: its text's hash) and the same
 * statement with the server's id: after the run, one frame. */
static void shapes_renamed_to_their_id(void **state)
{
	(void)state;
	struct pg_shape_ids m = PG_SHAPE_IDS_INIT;
	struct pg_activity parsed = { .state = PG_STATE_ACTIVE, .text_hash = 0xcbf29ce484222325ULL,
				      .text = "SELECT abalance FROM t WHERE aid = $1" };
	struct pg_activity known = parsed;
	known.query_id = -1744;
	char hashed[160], with_id[160], out[160];
	pg_query_frame(&parsed, hashed, sizeof(hashed));
	pg_query_frame(&known, with_id, sizeof(with_id));
	assert_string_equal(hashed, "query=hash:-3750763034362895579 SELECT abalance FROM t WHERE aid = $1");
	/* nothing noted: nothing renamed */
	assert_int_equal(pg_shape_frame(&m, hashed, out, sizeof(out)), 0);
	assert_int_equal(pg_shape_ids_note(&m, parsed.text_hash, 0), 0); /* no id: nothing */
	assert_int_equal(pg_shape_ids_find(&m, parsed.text_hash), 0);
	assert_int_equal(pg_shape_ids_note(&m, parsed.text_hash, known.query_id), 0);
	assert_int_equal(pg_shape_ids_find(&m, parsed.text_hash), -1744);
	/* the frame made from the hash becomes the server id's, byte for byte */
	assert_int_equal(pg_shape_frame(&m, hashed, out, sizeof(out)), strlen(with_id));
	assert_string_equal(out, with_id);
	/* the server id's frame, a state's word and other ids stay */
	assert_int_equal(pg_shape_frame(&m, with_id, out, sizeof(out)), 0);
	assert_int_equal(pg_shape_frame(&m, "idle", out, sizeof(out)), 0);
	assert_int_equal(pg_shape_frame(&m, "query=5 SELECT $1", out, sizeof(out)), 0);
	/* a server id that is the number of a noted hash is no hash */
	assert_int_equal(pg_shape_frame(&m, "query=-3750763034362895579 SELECT $1", out, sizeof(out)), 0);
	/* the first id a text had stays (another search_path, another id) */
	assert_int_equal(pg_shape_ids_note(&m, parsed.text_hash, 99), 0);
	assert_int_equal(pg_shape_ids_find(&m, parsed.text_hash), -1744);
	/* a frame without text; numbers that are not a frame's */
	assert_int_equal(pg_shape_frame(&m, "query=hash:-3750763034362895579", out, sizeof(out)), 11);
	assert_string_equal(out, "query=-1744");
	assert_int_equal(pg_shape_frame(&m, "query=hash:-3750763034362895579x", out, sizeof(out)), 0);
	assert_int_equal(pg_shape_frame(&m, "query=hash: -3750763034362895579 a", out, sizeof(out)), 0);
	assert_int_equal(pg_shape_frame(&m, "query=hash:", out, sizeof(out)), 0);
	assert_int_equal(pg_shape_frame(&m, "xquery=hash:-3750763034362895579 a", out, sizeof(out)), 0);
	/* out too small: no frame, and nothing cut */
	strcpy(out, "kept");
	assert_int_equal(pg_shape_frame(&m, hashed, out, 12), 0);
	assert_string_equal(out, "kept");
	/* many shapes: the index finds each as it grows */
	for (uint64_t h = 1; h <= 2000; h++)
		assert_int_equal(pg_shape_ids_note(&m, h * 0x9e3779b97f4a7c15ULL, (int64_t)h), 0);
	for (uint64_t h = 1; h <= 2000; h++)
		assert_int_equal(pg_shape_ids_find(&m, h * 0x9e3779b97f4a7c15ULL), (int64_t)h);
	assert_int_equal(pg_shape_ids_find(&m, parsed.text_hash), -1744);
	pg_shape_ids_free(&m);
	assert_int_equal(m.n, 0);
	assert_int_equal(pg_shape_ids_find(&m, parsed.text_hash), 0);
	pg_shape_ids_free(&m); /* twice is fine */
}

static void idle_waits(void **state)
{
	(void)state;
	for (int major = 14; major <= 18; major++) {
		const struct pg_wait_table *t = pg_wait_table_for(major);
		assert_non_null(t);
		/* any Activity event, of any process */
		assert_true(pg_wait_is_idle(t, 0x05000004, false, PG_STATE_NONE));
		/* ClientRead: idle for an idle client backend */
		assert_true(pg_wait_is_idle(t, 0x06000000, true, PG_STATE_IDLE));
		assert_true(pg_wait_is_idle(t, 0x06000000, true, PG_STATE_UNKNOWN));
		assert_false(pg_wait_is_idle(t, 0x06000000, true, PG_STATE_ACTIVE));
		assert_false(pg_wait_is_idle(t, 0x06000000, true, PG_STATE_IDLE_IN_TRANSACTION));
		assert_false(pg_wait_is_idle(t, 0x06000000, false, PG_STATE_IDLE)); /* a walsender */
		assert_false(pg_wait_is_idle(t, 0x06000001, true, PG_STATE_IDLE));  /* ClientWrite */
		assert_false(pg_wait_is_idle(t, 0, true, PG_STATE_IDLE));           /* on CPU */
		assert_false(pg_wait_is_idle(t, 0x03000004, true, PG_STATE_ACTIVE)); /* Lock:tuple */
	}
	/* a version without a table: by number */
	assert_true(pg_wait_is_idle(NULL, 0x05000001, false, PG_STATE_NONE));
	assert_true(pg_wait_is_idle(NULL, 0x06000000, true, PG_STATE_IDLE));
	assert_false(pg_wait_is_idle(NULL, 0x0a000001, true, PG_STATE_IDLE));
}

static const char *title_of(const char *cmdline, size_t len, const char *exe)
{
	static char buf[TITLE_MAX + 1];
	process_title(cmdline, len, exe, buf, sizeof(buf));
	return buf;
}
#define TITLE(lit, exe) title_of(lit, sizeof(lit), exe)

static void titles(void **state)
{
	(void)state;
	/* rewritten */
	assert_string_equal(TITLE("nginx: worker process", "/usr/sbin/nginx"), "nginx: worker process");
	assert_string_equal(TITLE("nginx: master process /usr/sbin/nginx -g daemon on; master_process on;",
				  "/usr/sbin/nginx"),
			    "nginx: master process /usr/sbin/nginx -g daemon on: master_proce");
	assert_string_equal(TITLE("sshd: alice@pts/0", "/usr/sbin/sshd"), "sshd: alice@pts/0");
	assert_string_equal(TITLE("postgres: checkpointer   ", "/usr/lib/postgresql/15/bin/postgres"),
			    "postgres: checkpointer");
	assert_string_equal(TITLE("redis-server 127.0.0.1:6379\0\0\0", "/usr/bin/redis-server"),
			    "redis-server 127.0.0.1:6379");
	assert_string_equal(TITLE("a\nb c", "/bin/x"), "a?b c");
	/* not rewritten: argv[0] is the program's name or path */
	assert_string_equal(TITLE("/usr/lib/postgresql/15/bin/postgres\0-D\0/var/lib/pg",
				  "/usr/lib/postgresql/15/bin/postgres"), "");
	assert_string_equal(TITLE("python3\0script.py", "/usr/bin/python3.11"), "");
	assert_string_equal(TITLE("/opt/my app/run\0x y", "/opt/my app/run"), "");
	assert_string_equal(TITLE("./my app/run", "/opt/my app/run"), "");
	assert_string_equal(TITLE("/opt/my app/run", "/opt/my app/run (deleted)"), "");
	assert_string_equal(TITLE("", "/bin/true"), "");
	assert_string_equal(TITLE("   ", "/bin/true"), "");
	/* no NUL at all (a title that ran into the environment): len ends it */
	assert_string_equal(title_of("nginx: worker process", 5, "/usr/sbin/nginx"), "");
	assert_string_equal(title_of("nginx: worker process", 12, "/usr/sbin/nginx"), "nginx: worke");
	/* cut at TITLE_MAX between characters */
	char long_title[200];
	memset(long_title, 'x', sizeof(long_title));
	memcpy(long_title, "w ", 2);
	memcpy(long_title + 63, "\xc3\xa9", 2); /* é across the limit */
	long_title[199] = '\0';
	assert_int_equal(strlen(title_of(long_title, sizeof(long_title), "/bin/w")), 63);
	char small[4];
	assert_int_equal(process_title("a b", 4, "/x", small, sizeof(small)), 3);
}

/* pg_title_type: the type of a server process of a major we have no
 * tables for, from the titles 13 to 18 write (ps_status.c, bgworker.c,
 * BackendInitialize) */
static void title_types(void **state)
{
	(void)state;
	static const struct {
		const char *title, *type;
	} cases[] = {
		{ "postgres: checkpointer", "checkpointer" },
		{ "postgres: main: background writer", "background writer" }, /* cluster_name */
		{ "postgres: startup recovering 000000010000000000000003", "startup" },
		{ "postgres: walreceiver streaming 0/3000148", "walreceiver" },
		{ "postgres: archiver last was 000000010000000000000002", "archiver" },
		{ "postgres: autovacuum worker", "autovacuum worker" },
		{ "postgres: autovacuum launcher", "autovacuum launcher" },
		{ "postgres: walsummarizer", "walsummarizer" },
		{ "postgres: io worker 2", "io worker" },
		{ "postgres: alice shop [local] idle", "client backend" },
		{ "postgres: alice shop 10.0.0.7(52144) SELECT", "client backend" },
		{ "postgres: main: bob db ::1(40000) idle in transaction", "client backend" },
		/* a user named as a type is still a session */
		{ "postgres: checkpointer db [local] idle", "client backend" },
		{ "postgres: walsender rep [local] streaming 0/3000060", "walsender" },
		{ "postgres: walsender rep shop 10.0.0.7(52144) START_REPLICATION", "walsender" },
		{ "postgres: logical replication launcher", "logical replication launcher" },
		{ "postgres: parallel worker for PID 4242", "parallel worker" },
		{ "postgres: logical replication apply worker for subscription 16394",
		  "logical replication apply worker" },
		{ "postgres: logical replication parallel apply worker for subscription 16394",
		  "logical replication parallel worker" },
		{ "postgres: TimescaleDB Background Worker Scheduler",
		  "TimescaleDB Background Worker Scheduler" },
	};
	char out[96];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = pg_title_type(cases[i].title, out, sizeof(out));
		assert_string_equal(out, cases[i].type);
		assert_int_equal(n, strlen(cases[i].type));
	}
	/* not a title of PostgreSQL's: the postmaster's command line, an
	 * empty rest, another program's */
	assert_int_equal(pg_title_type("/usr/lib/postgresql/15/bin/postgres -D /d", out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(pg_title_type("postgres: ", out, sizeof(out)), 0);
	assert_int_equal(pg_title_type("postgres: main: ", out, sizeof(out)), 0);
	assert_int_equal(pg_title_type("nginx: worker process", out, sizeof(out)), 0);
	/* cut to the room given */
	assert_int_equal(pg_title_type("postgres: checkpointer", out, 6), 5);
	assert_string_equal(out, "check");
	/* every type the tables spell is found in a title that starts with it
	 * (those a title never shows - sessions, bgw_type's stand-in - aside) */
	for (int major = 14; major <= 18; major++)
		for (int32_t t = 1; t < 20; t++) {
			const char *name = NAME(major, t);
			if (!name || pg_backend_type_client(major, t) || pg_backend_type_worker(major, t))
				continue;
			char title[128];
			snprintf(title, sizeof(title), "postgres: %s now", name);
			pg_title_type(title, out, sizeof(out));
			assert_string_equal(out, name);
		}
	assert_true(pg_backend_types_known(14) && pg_backend_types_known(18));
	assert_false(pg_backend_types_known(19) || pg_backend_types_known(0) ||
		     pg_backend_types_known(13));
}

static void root_frames(void **state)
{
	(void)state;
	char out[128];
	process_root_frame("postgres", 1234, "client backend", out, sizeof(out));
	assert_string_equal(out, "postgres[1234] client backend");
	process_root_frame("postgres", 1234, NULL, out, sizeof(out));
	assert_string_equal(out, "postgres[1234]");
	process_root_frame("a;b", 7, "", out, sizeof(out));
	assert_string_equal(out, "a:b[7]");
	process_root_frame("nginx", 9, "nginx: worker process", out, sizeof(out));
	assert_string_equal(out, "nginx[9] nginx: worker process");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(backend_types),
		cmocka_unit_test(states),
		cmocka_unit_test(query_frames),
		cmocka_unit_test(shapes_renamed_to_their_id),
		cmocka_unit_test(idle_waits),
		cmocka_unit_test(titles),
		cmocka_unit_test(title_types),
		cmocka_unit_test(root_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
