/* Unit tests: pprof - the gzipped profile.proto read back with the tests'
 * protobuf reader (pprof_read.h: varints and length-delimited fields): sample types,
 * one sample per stack and thread with its counts, wall time and labels,
 * one Location and Function per frame, the mappings, the string table. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "output/output.h"
#include "pprof_read.h"
#include "profile_fixture.h"

/* --- reading it back (pprof_read.h) --------------------------------- */

static void decoded_free(struct decoded *d)
{
	pprof_decoded_free(d);
}

static const char *str(const struct decoded *d, uint64_t i)
{
	const char *s = pprof_str(d, i);
	assert_non_null(s);
	return s;
}

/* The name of a location's function. */
static const char *loc_name(const struct decoded *d, uint64_t id)
{
	const char *name = pprof_loc_name(d, id);
	if (!name)
		fail_msg("no location %lu", (unsigned long)id);
	return name;
}

static const struct label *label(const struct decoded *d, const struct psample *s, const char *key)
{
	for (size_t i = 0; i < s->n_labels; i++)
		if (strcmp(str(d, s->labels[i].key), key) == 0)
			return &s->labels[i];
	return NULL;
}

/* Writes p as pprof and reads it back. */
static void roundtrip(const struct profile *p, struct decoded *d)
{
	char *gz = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&gz, &len);
	assert_int_equal(output_write(f, FORMAT_PPROF, p), 0);
	fclose(f);
	assert_true(len > 18);
	assert_int_equal((uint8_t)gz[0], 0x1f); /* gzip */
	assert_int_equal((uint8_t)gz[1], 0x8b);
	/* one gzip member, nothing after */
	uint8_t *raw = NULL;
	size_t n = 0;
	assert_int_equal(pprof_gunzip(gz, len, &raw, &n), 0);
	assert_int_equal(pprof_decode(raw, n, d), 0);
	free(raw);
	free(gz);
}

/* --- the tests --------------------------------------------------------- */

static const char *const A[] = { "db_main", "R (running)", "main", "cpu_work", NULL };
static const char *const C[] = { "db_main", "S (sleeping)", "main", "nap", "do_nanosleep_[k]", NULL };
static const char *const D[] = { "db_worker", "event=log file sync (Oracle state)", "S (sleeping)",
				 "main", "nap", "do_nanosleep_[k]", NULL };

static void make(struct fixture *fx)
{
	fixture_init(fx, "ptrace_profiler -p 7 -o x.pb.gz", "db (PID 7)", 1000000);
	fx->p.duration_ns = 0;
	size_t m = fixture_thread(fx, 7, 7, "db", "db_main");
	/* two threads with the same name: one stack, two samples */
	size_t w1 = fixture_thread(fx, 7, 8, "db", "db_worker");
	size_t w2 = fixture_thread(fx, 7, 9, "db", "db_worker");
	for (uint64_t i = 0; i < 30; i++) {
		fixture_sample(fx, m, (i + 1) * 1000000, 1000000, i % 3 ? A : C);
		fixture_sample(fx, i % 2 ? w1 : w2, (i + 1) * 1000000 + 5, 500000 + i, D);
	}
	static const struct profile_module mods[] = {
		{ "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f0000000000, 0x7f0000200000, 0x28000, "ab12cd34" },
		{ "/opt/db/bin/db", 0x400000, 0x480000, 0, NULL },
	};
	fx->p.modules = mods;
	fx->p.n_modules = 2;
}

static void header_and_sample_types(void **state)
{
	(void)state;
	struct fixture fx;
	make(&fx);
	static struct decoded d;
	roundtrip(fixture_profile(&fx), &d);
	assert_true(d.n_strings > 0);
	assert_string_equal(d.strings[0], "");
	assert_int_equal(d.n_types, 2);
	assert_string_equal(str(&d, d.types[0][0]), "samples");
	assert_string_equal(str(&d, d.types[0][1]), "count");
	assert_string_equal(str(&d, d.types[1][0]), "wall");
	assert_string_equal(str(&d, d.types[1][1]), "nanoseconds");
	assert_string_equal(str(&d, d.default_type), "wall");
	assert_string_equal(str(&d, d.period_type[0]), "wall");
	assert_string_equal(str(&d, d.period_type[1]), "nanoseconds");
	assert_int_equal(d.period, 1000000);
	assert_int_equal(d.time_nanos, 1764000000ULL * 1000000000ULL);
	assert_int_equal(d.duration, 30000005);
	assert_int_equal(d.n_comments, 2);
	assert_string_equal(str(&d, d.comments[0]), "ptrace_profiler -p 7 -o x.pb.gz");
	assert_string_equal(str(&d, d.comments[1]), "db (PID 7)");
	/* the modules */
	assert_int_equal(d.n_maps, 2);
	assert_int_equal(d.map[0][0], 1);
	assert_int_equal(d.map[0][1], 0x7f0000000000);
	assert_int_equal(d.map[0][2], 0x7f0000200000);
	assert_int_equal(d.map[0][3], 0x28000);
	assert_string_equal(str(&d, d.map[0][4]), "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_string_equal(str(&d, d.map[0][5]), "ab12cd34");
	assert_int_equal(d.map[0][6], 1);
	assert_int_equal(d.map[1][0], 2);
	assert_string_equal(str(&d, d.map[1][4]), "/opt/db/bin/db");
	assert_string_equal(str(&d, d.map[1][5]), "");
	/* strings once each */
	for (size_t i = 0; i < d.n_strings; i++)
		for (size_t j = i + 1; j < d.n_strings; j++)
			if (strcmp(d.strings[i], d.strings[j]) == 0)
				fail_msg("'%s' twice in the string table", d.strings[i]);
	decoded_free(&d);
	fixture_free(&fx);
}

static void samples_by_stack_and_thread(void **state)
{
	(void)state;
	struct fixture fx;
	make(&fx);
	static struct decoded d;
	roundtrip(fixture_profile(&fx), &d);
	/* db_main: A and C; db_worker tid 8 and tid 9: D each */
	assert_int_equal(d.n_samples, 4);
	int64_t count = 0, wall = 0, want_wall = 0;
	for (size_t i = 0; i < fx.n; i++)
		want_wall += (int64_t)fx.samples[i].weight_ns;
	bool seen[4] = { false };
	for (size_t i = 0; i < d.n_samples; i++) {
		const struct psample *s = &d.samples[i];
		assert_int_equal(s->n_values, 2);
		count += s->values[0];
		wall += s->values[1];
		/* leaf first: the last frame is the thread */
		const char *leaf = loc_name(&d, s->loc[0]), *root = loc_name(&d, s->loc[s->n_loc - 1]);
		const struct label *th = label(&d, s, "thread"), *tid = label(&d, s, "tid");
		const struct label *pid = label(&d, s, "pid"), *st = label(&d, s, "state");
		const struct label *app = label(&d, s, "app_state");
		assert_non_null(th);
		assert_string_equal(str(&d, th->str), root);
		assert_non_null(tid);
		assert_non_null(pid);
		assert_int_equal(pid->num, 7);
		assert_non_null(st);
		if (strcmp(leaf, "cpu_work") == 0) {
			seen[0] = true;
			assert_int_equal(s->n_loc, 4);
			assert_int_equal(s->values[0], 20);
			assert_int_equal(s->values[1], 20 * 1000000);
			assert_string_equal(str(&d, st->str), "R (running)");
			assert_null(app);
			assert_string_equal(loc_name(&d, s->loc[1]), "main");
			assert_string_equal(loc_name(&d, s->loc[2]), "R (running)");
		} else if (strcmp(root, "db_main") == 0) {
			seen[1] = true;
			assert_string_equal(leaf, "do_nanosleep_[k]");
			assert_int_equal(s->values[0], 10);
			assert_string_equal(str(&d, st->str), "S (sleeping)");
			assert_null(app);
		} else {
			assert_string_equal(root, "db_worker");
			assert_true(tid->num == 8 || tid->num == 9);
			seen[tid->num - 6] = true;
			assert_int_equal(s->n_loc, 6);
			assert_int_equal(s->values[0], 15);
			/* tid 8 has the odd samples: 500000 + 1, 3, ... 29 */
			assert_int_equal(s->values[1], 15 * 500000 + (tid->num == 8 ? 225 : 210));
			assert_non_null(app);
			assert_string_equal(str(&d, app->str), "event=log file sync (Oracle state)");
			assert_string_equal(str(&d, st->str), "S (sleeping)");
		}
	}
	assert_true(seen[0] && seen[1] && seen[2] && seen[3]);
	assert_int_equal(count, 60);
	assert_int_equal(wall, want_wall);
	/* a Location and a Function per distinct frame, one Line each */
	assert_int_equal(d.n_locs, 9);
	assert_int_equal(d.n_fns, 9);
	for (size_t i = 0; i < d.n_locs; i++) {
		assert_int_equal(d.loc_lines[i], 1);
		assert_int_equal(d.loc_id[i], i + 1);
		for (size_t j = i + 1; j < d.n_fns; j++)
			assert_string_not_equal(str(&d, d.fn_name[i]), str(&d, d.fn_name[j]));
		assert_int_equal(d.fn_name[i], d.fn_sys[i]);
	}
	decoded_free(&d);
	fixture_free(&fx);
}

static void counts_only_profile(void **state)
{
	(void)state;
	struct fixture fx;
	make(&fx);
	/* a stack without samples is no sample */
	fixture_stack(&fx, (const char *[]){ "db_main", "R (running)", "ghost", NULL }, 0);
	static struct decoded d;
	roundtrip(fixture_profile_as(&fx, 0), &d);
	/* one sample per distinct stack, the interval's worth of wall time */
	assert_int_equal(d.n_samples, 3);
	int64_t count = 0;
	for (size_t i = 0; i < d.n_samples; i++) {
		const struct psample *s = &d.samples[i];
		count += s->values[0];
		assert_int_equal(s->values[1], s->values[0] * 1000000);
		assert_null(label(&d, s, "tid"));
		assert_non_null(label(&d, s, "thread"));
		assert_non_null(label(&d, s, "state"));
	}
	assert_int_equal(count, 60);
	decoded_free(&d);
	fixture_free(&fx);
}

static void names_kept_byte_for_byte(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, NULL, NULL, 1000);
	fixture_thread(&fx, 1, 2, "p", "t");
	const char *odd = "operator<<(std::ostream&, \"x\") \xff\xfe \xe2\x82\xac";
	fixture_sample(&fx, 0, 1, 1, (const char *[]){ "t", "R (running)", odd, NULL });
	static struct decoded d;
	roundtrip(fixture_profile(&fx), &d);
	assert_int_equal(d.n_samples, 1);
	assert_string_equal(loc_name(&d, d.samples[0].loc[0]), odd);
	assert_int_equal(d.n_comments, 0);
	decoded_free(&d);
	fixture_free(&fx);
}

static void errors(void **state)
{
	(void)state;
	struct fixture fx;
	make(&fx);
	fixture_profile(&fx);
	fx.samples[3].thread = 77;
	FILE *f = fopen("/dev/null", "w");
	errno = 0;
	assert_int_equal(output_write(f, FORMAT_PPROF, &fx.p), -1);
	assert_int_equal(errno, EINVAL);
	fclose(f);
	fx.samples[3].thread = 0;
	f = fopen("/dev/full", "w");
	if (f) {
		assert_int_equal(output_write(f, FORMAT_PPROF, &fx.p), -1);
		fclose(f);
	}
	fixture_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_and_sample_types),
		cmocka_unit_test(samples_by_stack_and_thread),
		cmocka_unit_test(counts_only_profile),
		cmocka_unit_test(names_kept_byte_for_byte),
		cmocka_unit_test(errors),
	};
	return cmocka_run_group_tests_name("pprof", tests, NULL, NULL);
}
