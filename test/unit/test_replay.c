/* Unit tests: decide.h's rule replayed on per-tick traces of real runs.
 *
 * The traces in test/unit/traces/ were recorded with
 * PTRACE_PROFILER_TICK_TRACE (tick_trace.h; traces/README says how each
 * was made) and gzipped.  For every thread at every tick:
 *   - decide() on the recorded view and the replayed memory gives the
 *     action the sampler took;
 *   - the memory evolves by the recorded captures as it did then: a
 *     peek's verdict recomputed here is the recorded one;
 *   - every reused stack that was read again (tracing reads it) was the
 *     same while its run count stood still: reuse is safe on real data.
 * Each trace must also exercise the paths it was recorded for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "sample/decide.h"

#define MAX_THREADS 256

struct replayed {
	int tid;
	struct thread_memory m;
};

struct replay {
	struct replayed threads[MAX_THREADS];
	int n;
	unsigned actions[ACT_STOP + 1];
	unsigned decide_mismatches, peek_mismatches;
	unsigned peeks, stops, verified, verify_failures;
	char first_failure[256];
};

static struct thread_memory *memory(struct replay *r, int tid)
{
	for (int i = 0; i < r->n; i++)
		if (r->threads[i].tid == tid)
			return &r->threads[i].m;
	assert_true(r->n < MAX_THREADS);
	r->threads[r->n].tid = tid;
	memset(&r->threads[r->n].m, 0, sizeof(r->threads[r->n].m));
	return &r->threads[r->n++].m;
}

static enum thread_action action_named(const char *name)
{
	static const char *const names[] = { "skip", "reuse", "parked", "queued", "peek", "stop" };
	for (int a = 0; a <= ACT_STOP; a++)
		if (strcmp(name, names[a]) == 0)
			return (enum thread_action)a;
	fail_msg("unknown action '%s'", name);
	return ACT_SKIP;
}

static void note_failure(struct replay *r, const char *line)
{
	if (!r->first_failure[0])
		snprintf(r->first_failure, sizeof(r->first_failure), "%.200s", line);
}

/* L round tid state runs_known runs group_stop group_stops generation cpu action */
static void look(struct replay *r, const char *line)
{
	unsigned long long round, runs;
	int tid, known, gs, cpu;
	unsigned stops, gen;
	char state, action[16];
	assert_int_equal(sscanf(line, "L %llu %d %c %d %llu %d %u %u %d %15s", &round, &tid, &state,
				&known, &runs, &gs, &stops, &gen, &cpu, action), 10);
	struct tick_view v = { state, known, runs, gs, stops, gen };
	enum thread_action want = action_named(action);
	r->actions[want]++;
	if (decide(&v, memory(r, tid)) != want) {
		r->decide_mismatches++;
		note_failure(r, line);
	}
}

static void unwind_input(const char *fields, struct unwind_input *in)
{
	unsigned long long sp, pc, start, len, hash;
	assert_int_equal(sscanf(fields, "%llx %llx %llx %llu %llx %u", &sp, &pc, &start, &len, &hash,
				&in->generation), 6);
	*in = (struct unwind_input){ sp, pc, start, len, hash, in->generation };
}

/* The n-th space-separated field of line (0 is the letter). */
static const char *field(const char *line, int n)
{
	for (; n > 0 && line; n--)
		if ((line = strchr(line, ' ')))
			line++;
	assert_non_null(line);
	return line;
}

/* P tid sp pc start len hash generation consistent complete counted runs */
static void peek(struct replay *r, const char *line)
{
	int tid, consistent, complete, counted;
	unsigned long long runs;
	struct unwind_input in;
	assert_int_equal(sscanf(line, "P %d", &tid), 1);
	unwind_input(field(line, 2), &in);
	assert_int_equal(sscanf(field(line, 8), "%d %d %d %llu", &consistent, &complete, &counted,
				&runs), 4);
	struct thread_memory *m = memory(r, tid);
	bool same = memory_matches(m, &in);
	if (!same && consistent && complete)
		memory_remember(m, &in, NULL, 0, complete);
	bool verdict = same || (consistent && complete);
	if (verdict != (bool)counted) {
		r->peek_mismatches++;
		note_failure(r, line);
	}
	if (counted)
		memory_after_peek(m, consistent, runs);
	r->peeks++;
}

/* S tid copied parked sp pc start len hash generation complete runs_known
 *   runs group_stop group_stops aborted state_before asked seen resumed
 *   at_once */
static void stop(struct replay *r, const char *line)
{
	int tid, copied, parked, complete, known, gs, aborted;
	unsigned stops;
	unsigned long long runs;
	char before;
	struct unwind_input in;
	assert_int_equal(sscanf(line, "S %d %d %d", &tid, &copied, &parked), 3);
	unwind_input(field(line, 4), &in);
	assert_int_equal(sscanf(field(line, 10), "%d %d %llu %d %u %d %c", &complete, &known, &runs,
				&gs, &stops, &aborted, &before), 7);
	struct thread_memory *m = memory(r, tid);
	if (parked) {
		memory_after_parked_stop(m, known, runs);
	} else if (copied) {
		memory_remember(m, &in, NULL, 0, complete);
		struct stop_facts f = { known, runs, gs, stops, aborted, before, { 0 } };
		memory_after_stop(m, &f);
	}
	r->stops++;
}

/* V tid same runs_before runs_after */
static void verify(struct replay *r, const char *line)
{
	int tid, same;
	unsigned long long before, after;
	assert_int_equal(sscanf(line, "V %d %d %llu %llu", &tid, &same, &before, &after), 4);
	if (before != after)
		return; /* it ran while we read: nothing proven either way */
	r->verified++;
	if (!same) {
		r->verify_failures++;
		note_failure(r, line);
	}
}

static void replay_file(const char *name, struct replay *r)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", TRACES_DIR, name);
	gzFile f = gzopen(path, "rb");
	if (!f)
		fail_msg("cannot read %s", path);
	memset(r, 0, sizeof(*r));
	char line[1024];
	while (gzgets(f, line, sizeof(line))) {
		line[strcspn(line, "\n")] = '\0';
		switch (line[0]) {
		case 'L': look(r, line); break;
		case 'P': peek(r, line); break;
		case 'S': stop(r, line); break;
		case 'V': verify(r, line); break;
		default: break; /* rounds, counts, moves: not decide's */
		}
	}
	gzclose(f);
	print_message("%s: reuse %u, peek %u (%u read), stop %u, queued %u, parked %u; "
		      "%u reuses verified\n", name, r->actions[ACT_REUSE], r->actions[ACT_PEEK],
		      r->peeks, r->actions[ACT_STOP], r->actions[ACT_QUEUED], r->actions[ACT_PARKED],
		      r->verified);
	if (r->first_failure[0])
		print_message("first failure: %s\n", r->first_failure);
	assert_int_equal(r->decide_mismatches, 0);
	assert_int_equal(r->peek_mismatches, 0);
	assert_int_equal(r->verify_failures, 0);
}

/* A thread that works 1 ms every 10 ms (test/targets/burst.c), at -d 100us:
 * reuse while it sleeps, a stop at every tick of its work. */
static void burst_at_100us(void **state)
{
	(void)state;
	struct replay r;
	replay_file("burst-100us.trace.gz", &r);
	assert_true(r.actions[ACT_REUSE] > 1000);
	assert_true(r.actions[ACT_STOP] > 100);
	assert_true(r.actions[ACT_PEEK] > 20);
	assert_true(r.verified > 500);
}

/* The same at -d 1ms. */
static void burst_at_1ms(void **state)
{
	(void)state;
	struct replay r;
	replay_file("burst-1ms.trace.gz", &r);
	assert_true(r.actions[ACT_REUSE] > 500);
	assert_true(r.actions[ACT_STOP] > 50);
	assert_true(r.verified > 300);
}

/* A PostgreSQL 15 backend serving a short query 50 times a second
 * (pgbench -R 50), at -d 100us: ClientRead waits between the queries. */
static void postgres_backend_at_100us(void **state)
{
	(void)state;
	struct replay r;
	replay_file("postgres-100us.trace.gz", &r);
	assert_true(r.actions[ACT_REUSE] > 500);
	assert_true(r.actions[ACT_STOP] > 50);
	assert_true(r.actions[ACT_PEEK] > 20);
	assert_true(r.verified > 300);
}

/* The burst target drifting (a relative sleep after each burst), at
 * -d 500us: between the two rates above. */
static void burst_drift_at_500us(void **state)
{
	(void)state;
	struct replay r;
	replay_file("burst-drift-500us.trace.gz", &r);
	assert_true(r.actions[ACT_REUSE] > 1000);
	assert_true(r.actions[ACT_STOP] > 100);
	assert_true(r.actions[ACT_PEEK] > 20);
	assert_true(r.verified > 1000);
}

/* The PostgreSQL backend again, at -d 1ms. */
static void postgres_backend_at_1ms(void **state)
{
	(void)state;
	struct replay r;
	replay_file("postgres-1ms.trace.gz", &r);
	assert_true(r.actions[ACT_REUSE] > 500);
	assert_true(r.actions[ACT_STOP] > 100);
	assert_true(r.actions[ACT_PEEK] > 20);
	assert_true(r.verified > 500);
}

/* Two spinners on one CPU: queued for a CPU, and preempted. */
static void runqueue_at_1ms(void **state)
{
	(void)state;
	struct replay r;
	replay_file("runqueue-1ms.trace.gz", &r);
	assert_true(r.actions[ACT_STOP] > 500);
	assert_true(r.actions[ACT_QUEUED] > 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(burst_at_100us),
		cmocka_unit_test(burst_at_1ms),
		cmocka_unit_test(burst_drift_at_500us),
		cmocka_unit_test(postgres_backend_at_100us),
		cmocka_unit_test(postgres_backend_at_1ms),
		cmocka_unit_test(runqueue_at_1ms),
	};
	return cmocka_run_group_tests_name("replay", tests, NULL, NULL);
}
