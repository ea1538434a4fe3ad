/* Unit tests: pprof - the gzipped profile.proto read back with a protobuf
 * reader written here (varints and length-delimited fields): sample types,
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
#include "profile_fixture.h"

/* --- reading it back --------------------------------------------------- */

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

/* The next field: its number and wire type; a varint's value in *v, a
 * length-delimited field's bytes in *sub.  false at the end. */
static bool rd_field(struct rd *r, unsigned *field, uint64_t *v, struct rd *sub)
{
	if (r->p >= r->end || r->bad)
		return false;
	uint64_t key = rd_varint(r);
	*field = (unsigned)(key >> 3);
	switch (key & 7) {
	case 0:
		*v = rd_varint(r);
		break;
	case 2: {
		uint64_t len = rd_varint(r);
		if (len > (uint64_t)(r->end - r->p)) {
			r->bad = true;
			return false;
		}
		*sub = (struct rd){ .p = r->p, .end = r->p + len };
		r->p += len;
		break;
	}
	default: /* we write no other wire type */
		r->bad = true;
		return false;
	}
	return !r->bad;
}

#define MAXN 256

struct label { uint64_t key, str, num; };
struct psample {
	uint64_t loc[64];
	size_t n_loc;
	int64_t values[4];
	size_t n_values;
	struct label labels[8];
	size_t n_labels;
};

struct decoded {
	char *strings[MAXN * 2];
	size_t n_strings;
	uint64_t types[4][2];
	size_t n_types;
	struct psample samples[MAXN];
	size_t n_samples;
	uint64_t loc_id[MAXN], loc_fn[MAXN], loc_lines[MAXN];
	size_t n_locs;
	uint64_t fn_id[MAXN], fn_name[MAXN], fn_sys[MAXN];
	size_t n_fns;
	uint64_t map[8][7]; /* id start limit offset file build has_functions */
	size_t n_maps;
	uint64_t time_nanos, duration, period, period_type[2], default_type;
	uint64_t comments[4];
	size_t n_comments;
};

/* Packed or not, numbers of a repeated field. */
static void rd_repeated(unsigned wire_len, uint64_t v, struct rd *sub, uint64_t *out, size_t *n,
			size_t max)
{
	if (!wire_len) {
		if (*n < max)
			out[(*n)++] = v;
		return;
	}
	while (sub->p < sub->end && !sub->bad && *n < max)
		out[(*n)++] = rd_varint(sub);
}

static void decode(const uint8_t *buf, size_t len, struct decoded *d)
{
	memset(d, 0, sizeof(*d));
	struct rd r = { .p = buf, .end = buf + len }, sub, s2, s3;
	unsigned field, f2, f3;
	uint64_t v = 0, v2 = 0, v3 = 0;
	while (rd_field(&r, &field, &v, &sub)) {
		const uint8_t *fstart = sub.p;
		(void)fstart;
		switch (field) {
		case 1: { /* sample_type */
			uint64_t *t = d->types[d->n_types++];
			while (rd_field(&sub, &f2, &v2, &s2))
				t[f2 - 1] = v2;
			break;
		}
		case 2: { /* sample */
			struct psample *s = &d->samples[d->n_samples++];
			while (rd_field(&sub, &f2, &v2, &s2)) {
				if (f2 == 1) {
					rd_repeated(1, 0, &s2, s->loc, &s->n_loc, 64);
				} else if (f2 == 2) {
					uint64_t vals[4];
					size_t nv = 0;
					rd_repeated(1, 0, &s2, vals, &nv, 4);
					for (size_t i = 0; i < nv; i++)
						s->values[s->n_values++] = (int64_t)vals[i];
				} else if (f2 == 3) {
					struct label *l = &s->labels[s->n_labels++];
					while (rd_field(&s2, &f3, &v3, &s3))
						if (f3 == 1) l->key = v3;
						else if (f3 == 2) l->str = v3;
						else if (f3 == 3) l->num = v3;
				}
			}
			break;
		}
		case 3: { /* mapping */
			uint64_t *m = d->map[d->n_maps++];
			while (rd_field(&sub, &f2, &v2, &s2))
				if (f2 >= 1 && f2 <= 7)
					m[f2 - 1] = v2;
			break;
		}
		case 4: { /* location */
			size_t i = d->n_locs++;
			while (rd_field(&sub, &f2, &v2, &s2)) {
				if (f2 == 1)
					d->loc_id[i] = v2;
				else if (f2 == 4) {
					d->loc_lines[i]++;
					while (rd_field(&s2, &f3, &v3, &s3))
						if (f3 == 1)
							d->loc_fn[i] = v3;
				}
			}
			break;
		}
		case 5: { /* function */
			size_t i = d->n_fns++;
			while (rd_field(&sub, &f2, &v2, &s2))
				if (f2 == 1) d->fn_id[i] = v2;
				else if (f2 == 2) d->fn_name[i] = v2;
				else if (f2 == 3) d->fn_sys[i] = v2;
			break;
		}
		case 6: /* string_table */
			d->strings[d->n_strings++] = strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
			break;
		case 9: d->time_nanos = v; break;
		case 10: d->duration = v; break;
		case 11:
			while (rd_field(&sub, &f2, &v2, &s2))
				d->period_type[f2 - 1] = v2;
			break;
		case 12: d->period = v; break;
		case 13: d->comments[d->n_comments++] = v; break;
		case 14: d->default_type = v; break;
		default: fail_msg("unexpected field %u", field);
		}
	}
	assert_false(r.bad);
}

static void decoded_free(struct decoded *d)
{
	for (size_t i = 0; i < d->n_strings; i++)
		free(d->strings[i]);
}

static const char *str(const struct decoded *d, uint64_t i)
{
	assert_true(i < d->n_strings);
	return d->strings[i];
}

/* The name of a location's function. */
static const char *loc_name(const struct decoded *d, uint64_t id)
{
	for (size_t i = 0; i < d->n_locs; i++)
		if (d->loc_id[i] == id)
			for (size_t k = 0; k < d->n_fns; k++)
				if (d->fn_id[k] == d->loc_fn[i])
					return str(d, d->fn_name[k]);
	fail_msg("no location %lu", (unsigned long)id);
	return NULL;
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
	size_t cap = 1 << 20;
	uint8_t *raw = malloc(cap);
	z_stream z = { 0 };
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (uint8_t *)gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.avail_in, 0); /* one gzip member, nothing after */
	size_t n = cap - z.avail_out;
	inflateEnd(&z);
	decode(raw, n, d);
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
