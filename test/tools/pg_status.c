/* pg_status - what the db layer reads of PostgreSQL processes, without the
 * sampler and without ptrace: their type, state, statement frame and wait
 * event, through pgbackend.h and pgstate.h, for the integration tests
 * (test/integration/80-postgres.sh) to compare with pg_stat_activity, and
 * to measure a status read.
 *
 *   pg_status [-n ROUNDS] [-i MS] PID...
 *       every MS (10) milliseconds, ROUNDS (1) times, one line per process:
 *       ROUND PID TYPE STATE ID FRAME WAIT IDLE, tab-separated: TYPE as
 *       pg_stat_activity.backend_type ("-" when none), STATE its state
 *       word ("-"), ID the query frame's id ("-" when no statement),
 *       FRAME the --pg-queries frame ("-"), WAIT "type:name" of its wait
 *       event ("CPU" for none), IDLE 1 when that wait is the idle one
 *   pg_status -w [-n ROUNDS] [-i MS] PID...
 *       the wait words alone, each round: ROUND PID WAIT - a light
 *       observer of the processes' own memory, beside the profiler
 *   pg_status -t PID...
 *       PID and its title (process_title_read), "-" when not rewritten
 *   pg_status -c N PID
 *       N status reads of one process: microseconds (wall, CPU) and system
 *       calls per read, how many were unchanged, retried, unsettled
 *   pg_status -q
 *       each line of standard input as a statement: "HASH<TAB>NORMALIZED",
 *       HASH signed as a query frame prints it
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/pgbackend.h"
#include "db/pgquery.h"
#include "db/pgstate.h"
#include "db/pgsym.h"
#include "db/title.h"
#include "unwind/files.h"

struct watched {
	pid_t pid;
	struct modules *m;
	struct pg_process pg;
	struct pg_backend b;
	bool ok;
	uint32_t word;          /* -w: this round's */
};

static void open_one(struct files *fs, struct watched *w)
{
	char msg[512];
	w->m = modules_open(fs, w->pid);
	w->ok = w->m && pg_probe(w->pid, w->m, &w->pg, msg, sizeof(msg)) == PG_PROBE_SERVER &&
		w->pg.version_known &&
		pg_backend_open(w->pid, w->m, w->pg.version.major, &w->b) == 0;
	if (!w->ok)
		fprintf(stderr, "pg_status: %d: not a PostgreSQL 14+ server process %s\n", (int)w->pid, msg);
}

/* The wait word now: the pointer, then what it points to. */
static uint32_t wait_word(const struct watched *w)
{
	uint64_t ptr = 0;
	uint32_t word = 0;
	if (pg_read(w->pid, w->pg.pointer_addr, &ptr, sizeof(ptr)) == 0 && ptr)
		pg_read(w->pid, ptr, &word, sizeof(word));
	return word;
}

/* "type:name" of word, "CPU" for none, the number when not named. */
static const char *wait_text(const struct watched *w, uint32_t word, char *out, size_t outsz)
{
	const char *wt = pg_wait_type(w->pg.table, word), *wn = pg_wait_name(w->pg.table, word);
	if (!word)
		snprintf(out, outsz, "CPU");
	else if (wt && wn)
		snprintf(out, outsz, "%s:%s", wt, wn);
	else
		snprintf(out, outsz, "0x%08x", word);
	return out;
}

static void print_one(int round, struct watched *w)
{
	struct pg_activity a = { .state = PG_STATE_UNKNOWN };
	char frame[256], id[32] = "-";
	const char *type = pg_backend_type(&w->b);
	enum pg_read r = pg_backend_read(&w->b, &a);
	bool have = r == PG_READ_OK || (r == PG_READ_UNSETTLED && w->b.have_activity);
	if (!have)
		a.state = PG_STATE_UNKNOWN;
	size_t n = have ? pg_query_frame(&a, frame, sizeof(frame)) : 0;
	if (have && a.state == PG_STATE_ACTIVE)
		snprintf(id, sizeof(id), "%" PRId64, a.query_id ? a.query_id : (int64_t)a.text_hash);
	uint32_t word = wait_word(w);
	char wait[128];
	wait_text(w, word, wait, sizeof(wait));
	bool client = w->b.type >= 0 && pg_backend_type_client(w->b.major, w->b.type);
	printf("%d\t%d\t%s\t%s\t%s\t%s\t%s\t%d\n", round, (int)w->pid, type ? type : "-",
	       have && pg_state_name(a.state) ? pg_state_name(a.state) : "-", id, n ? frame : "-", wait,
	       pg_wait_is_idle(w->pg.table, word, client, a.state));
}

static double now_us(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cost(struct watched *w, long n)
{
	struct pg_activity a;
	long ok = 0;
	double start = now_us(CLOCK_MONOTONIC), cpu_start = now_us(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < n; i++)
		ok += pg_backend_read(&w->b, &a) == PG_READ_OK;
	double us = now_us(CLOCK_MONOTONIC) - start, cpu = now_us(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
	printf("reads %ld ok %ld us_per_read %.2f cpu_us_per_read %.2f syscalls_per_read %.3f "
	       "unchanged %lu retries %lu unsettled %lu statement_bytes %zu\n", n, ok, us / n, cpu / n,
	       (double)w->b.syscalls / n,
	       w->b.unchanged, w->b.retries, w->b.unsettled, w->b.activity_size);
	return ok ? 0 : 1;
}

static int normalize_lines(void)
{
	char line[65536], out[PG_QUERY_TEXT_MAX + 1];
	while (fgets(line, sizeof(line), stdin)) {
		size_t len = strcspn(line, "\n");
		uint64_t h;
		pg_query_normalize(line, len, out, sizeof(out), &h);
		printf("%" PRId64 "\t%s\n", (int64_t)h, out);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long rounds = 1, interval_ms = 10, cost_reads = 0;
	bool words_only = false;
	bool titles = false;
	int c;
	while ((c = getopt(argc, argv, "n:i:c:tqw")) != -1) {
		switch (c) {
		case 'n': rounds = atol(optarg); break;
		case 'i': interval_ms = atol(optarg); break;
		case 'w': words_only = true; break;
		case 'c': cost_reads = atol(optarg); break;
		case 't': titles = true; break;
		case 'q': return normalize_lines();
		default: return 2;
		}
	}
	int n = argc - optind;
	if (n <= 0)
		return 2;
	if (titles) {
		for (int i = 0; i < n; i++) {
			char title[TITLE_MAX + 1];
			size_t len = process_title_read(atoi(argv[optind + i]), title, sizeof(title));
			printf("%s\t%s\n", argv[optind + i], len ? title : "-");
		}
		return 0;
	}
	struct files *fs = files_new(NULL);
	struct watched *w = calloc((size_t)n, sizeof(*w));
	for (int i = 0; i < n; i++) {
		w[i].pid = atoi(argv[optind + i]);
		open_one(fs, &w[i]);
	}
	if (cost_reads)
		return w[0].ok ? cost(&w[0], cost_reads) : 1;
	for (long r = 0; r < rounds; r++) {
		char wait[128];
		for (int i = 0; i < n; i++)
			if (w[i].ok && words_only) /* the words first, then the writing */
				w[i].word = wait_word(&w[i]);
		for (int i = 0; i < n; i++)
			if (w[i].ok && words_only)
				printf("%ld\t%d\t%s\n", r, (int)w[i].pid, wait_text(&w[i], w[i].word, wait, sizeof(wait)));
			else if (w[i].ok)
				print_one((int)r, &w[i]);
		fflush(stdout);
		if (r + 1 < rounds)
			usleep((useconds_t)(interval_ms * 1000));
	}
	for (int i = 0; i < n; i++)
		if (w[i].m)
			modules_close(w[i].m);
	files_free(fs);
	free(w);
	return 0;
}
