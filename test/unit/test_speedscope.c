/* Unit tests: speedscope JSON - the schema's required fields, one profile
 * per thread with its samples in time order, samples and weights of equal
 * length, shares per frame equal to the folded output's, the same file
 * whatever the memory budget, hostile names. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output/output.h"
#include "json_mini.h"
#include "profile_fixture.h"
#include "written.h"

static char *speedscope_of(const struct profile *p, size_t budget)
{
	struct written w;
	assert_int_equal(output_speedscope(written_open(&w), p, budget), 0);
	return written_text(&w);
}

static const char *const A[] = { "db_main", "R (running)", "main", "cpu_work", NULL };
static const char *const B[] = { "db_main", "R (running)", "main", "cpu_work", "mix_[i]", NULL };
static const char *const C[] = { "db_main", "S (sleeping)", "main", "nap", "do_nanosleep_[k]", NULL };
static const char *const D[] = { "db_writer", "On CPU (Oracle state)", "R (running)", "writer", NULL };
static const char *const E[] = { "db_idle", "S (sleeping)", "idle", NULL };

/* Three threads; db_main's samples in the order A A B C A B..., weights 1 ms
 * (uniform) or growing by 1 us a sample. */
static void make(struct fixture *fx, bool uniform)
{
	fixture_init(fx, "ptrace_profiler -p 7 -o x.speedscope.json", "db (PID 7)", 1000000);
	size_t m = fixture_thread(fx, 7, 7, "db", "db_main");
	size_t w = fixture_thread(fx, 7, 8, "db", "db_writer");
	fixture_thread(fx, 7, 9, "db", "db_nothing"); /* never sampled */
	size_t i3 = fixture_thread(fx, 7, 10, "db", "db_idle");
	uint64_t t = 0;
	for (uint64_t i = 0; i < 60; i++) {
		uint64_t wt = uniform ? 1000000 : 1000000 + i * 1000;
		t += wt;
		const char *const *s = i % 4 == 0 || i % 4 == 1 ? A : i % 4 == 2 ? B : C;
		if (i % 7 == 6)
			s = A;
		fixture_sample(fx, m, t, wt, s);
		if (i % 3 == 0)
			fixture_sample(fx, w, t + 100, uniform ? 1000000 : 3 * wt, D);
		if (i % 10 == 0)
			fixture_sample(fx, i3, t + 200, uniform ? 1000000 : 10 * wt, E);
	}
}

/* The document's root after the checks every file must pass. */
static const struct jval *parse_checked(struct jdoc *d, const char *text)
{
	size_t root = json_parse(d, text);
	if (d->err)
		fail_msg("not JSON: %s at '%.40s'", d->err, d->p);
	const struct jval *r = &d->v[root];
	const struct jval *schema = jget(d, r, "$schema"), *shared = jget(d, r, "shared");
	const struct jval *frames = jget(d, shared, "frames"), *profiles = jget(d, r, "profiles");
	assert_non_null(schema);
	assert_string_equal(schema->str, "https://www.speedscope.app/file-format-schema.json");
	assert_non_null(frames);
	assert_int_equal(frames->type, J_ARR);
	for (size_t i = 0; i < frames->n_kids; i++) {
		const struct jval *name = jget(d, jat(d, frames, i), "name");
		assert_non_null(name);
		assert_int_equal(name->type, J_STR);
	}
	assert_non_null(profiles);
	assert_int_equal(profiles->type, J_ARR);
	const struct jval *active = jget(d, r, "activeProfileIndex");
	assert_true(active && active->type == J_NUM && active->num >= 0 &&
		    (profiles->n_kids == 0 || active->num < profiles->n_kids));
	assert_string_equal(jget(d, r, "exporter")->str, "ptrace_profiler " "0.1.0");
	for (size_t i = 0; i < profiles->n_kids; i++) {
		const struct jval *p = jat(d, profiles, i);
		assert_string_equal(jget(d, p, "type")->str, "sampled");
		assert_int_equal(jget(d, p, "name")->type, J_STR);
		assert_string_equal(jget(d, p, "unit")->str, "nanoseconds");
		const struct jval *sv = jget(d, p, "startValue"), *ev = jget(d, p, "endValue");
		const struct jval *samples = jget(d, p, "samples"), *weights = jget(d, p, "weights");
		assert_true(sv && sv->type == J_NUM && ev && ev->type == J_NUM);
		assert_true(samples && samples->type == J_ARR && weights && weights->type == J_ARR);
		assert_int_equal(samples->n_kids, weights->n_kids);
		double sum = 0;
		for (size_t k = 0; k < weights->n_kids; k++) {
			const struct jval *st = jat(d, samples, k), *w = jat(d, weights, k);
			assert_int_equal(w->type, J_NUM);
			assert_true(w->num > 0);
			sum += w->num;
			assert_int_equal(st->type, J_ARR);
			for (size_t j = 0; j < st->n_kids; j++) {
				const struct jval *ix = jat(d, st, j);
				assert_true(ix->type == J_NUM && ix->num >= 0 && ix->num < frames->n_kids &&
					    ix->num == floor(ix->num));
			}
		}
		/* speedscope lays the samples end to end over [start, end] */
		assert_true(ev->num - sv->num == sum);
	}
	return r;
}

static const char *frame_name(const struct jdoc *d, const struct jval *r, double ix)
{
	return jget(d, jat(d, jget(d, jget(d, r, "shared"), "frames"), (size_t)ix), "name")->str;
}

static void schema_fields_and_per_thread_profiles(void **state)
{
	(void)state;
	struct fixture fx;
	make(&fx, true);
	char *text = speedscope_of(fixture_profile(&fx), 0);
	struct jdoc d;
	const struct jval *r = parse_checked(&d, text);
	const struct jval *profiles = jget(&d, r, "profiles");
	/* threads with samples only, in thread order */
	assert_int_equal(profiles->n_kids, 3);
	assert_string_equal(jget(&d, jat(&d, profiles, 0), "name")->str, "db_main (tid 7)");
	assert_string_equal(jget(&d, jat(&d, profiles, 1), "name")->str, "db_writer (tid 8)");
	assert_string_equal(jget(&d, jat(&d, profiles, 2), "name")->str, "db_idle (tid 10)");
	assert_int_equal(jget(&d, r, "activeProfileIndex")->num, 0); /* the heaviest */
	assert_string_equal(jget(&d, r, "name")->str, "db (PID 7)");
	/* each frame once */
	const struct jval *frames = jget(&d, jget(&d, r, "shared"), "frames");
	for (size_t i = 0; i < frames->n_kids; i++)
		for (size_t j = i + 1; j < frames->n_kids; j++)
			assert_string_not_equal(frame_name(&d, r, (double)i), frame_name(&d, r, (double)j));

	/* every sample of the thread, in time order, root first */
	size_t per_thread[4] = { 0 };
	for (size_t i = 0; i < fx.n; i++) {
		const struct profile_sample *s = &fx.samples[i];
		size_t prof = s->thread == 0 ? 0 : s->thread == 1 ? 1 : 2;
		const struct jval *st = jat(&d, jget(&d, jat(&d, profiles, prof), "samples"),
					    per_thread[prof]);
		const struct jval *w = jat(&d, jget(&d, jat(&d, profiles, prof), "weights"),
					   per_thread[prof]++);
		const char *frames_of[16];
		size_t n = stack_table_frames(fx.t, s->stack, frames_of, 16, NULL);
		assert_int_equal(st->n_kids, n);
		for (size_t k = 0; k < n; k++)
			assert_string_equal(frame_name(&d, r, jat(&d, st, k)->num), frames_of[k]);
		assert_true(w->num == (double)s->weight_ns);
	}
	assert_int_equal(per_thread[0], 60);
	assert_int_equal(per_thread[1], 20);
	assert_int_equal(per_thread[2], 6);
	/* the first sample of db_main at 1 ms stands for [0, 1 ms] */
	assert_true(jget(&d, jat(&d, profiles, 0), "startValue")->num == 0);
	assert_true(jget(&d, jat(&d, profiles, 0), "endValue")->num == 60e6);
	assert_true(jget(&d, jat(&d, profiles, 1), "startValue")->num == 100);
	json_free(&d);
	free(text);
	fixture_free(&fx);
}

/* Share of the samples (by count in folded, by weight in speedscope) under
 * each frame name, counted once per stack. */
struct share { char name[64]; double v; };

static void share_add(struct share *sh, size_t *n, const char *name, double v)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(sh[i].name, name) == 0) {
			sh[i].v += v;
			return;
		}
	snprintf(sh[*n].name, sizeof(sh[*n].name), "%s", name);
	sh[(*n)++].v = v;
}

static bool seen_before(const char *const *names, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (strcmp(names[j], names[k]) == 0)
			return true;
	return false;
}

static void shares_equal_the_folded_output(void **state)
{
	(void)state;
	struct fixture fx;
	make(&fx, true);
	const struct profile *p = fixture_profile(&fx);
	char *folded = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&folded, &len);
	assert_int_equal(output_write(f, FORMAT_FOLDED, p), 0);
	fclose(f);

	struct share fs[64], ss[64];
	size_t nf = 0, ns = 0;
	double ftotal = 0, stotal = 0;
	for (char *line = strtok(folded, "\n"); line; line = strtok(NULL, "\n")) {
		char *sp = strrchr(line, ' ');
		*sp = '\0';
		double count = atof(sp + 1);
		ftotal += count;
		const char *names[32];
		size_t k = 0;
		for (char *fr = strtok_r(line, ";", &sp); fr; fr = strtok_r(NULL, ";", &sp))
			names[k++] = fr;
		for (size_t i = 0; i < k; i++)
			if (!seen_before(names, i))
				share_add(fs, &nf, names[i], count);
	}
	char *text = speedscope_of(p, 0);
	struct jdoc d;
	const struct jval *r = parse_checked(&d, text);
	const struct jval *profiles = jget(&d, r, "profiles");
	for (size_t i = 0; i < profiles->n_kids; i++) {
		const struct jval *samples = jget(&d, jat(&d, profiles, i), "samples");
		const struct jval *weights = jget(&d, jat(&d, profiles, i), "weights");
		for (size_t k = 0; k < samples->n_kids; k++) {
			const struct jval *st = jat(&d, samples, k);
			double w = jat(&d, weights, k)->num;
			stotal += w;
			const char *names[32];
			for (size_t j = 0; j < st->n_kids; j++)
				names[j] = frame_name(&d, r, jat(&d, st, j)->num);
			for (size_t j = 0; j < st->n_kids; j++)
				if (!seen_before(names, j))
					share_add(ss, &ns, names[j], w);
		}
	}
	assert_int_equal(nf, ns);
	assert_int_equal(nf, 13);
	for (size_t i = 0; i < nf; i++) {
		size_t j = 0;
		while (j < ns && strcmp(ss[j].name, fs[i].name) != 0)
			j++;
		if (j == ns)
			fail_msg("%s is not in the speedscope file", fs[i].name);
		if (fabs(fs[i].v / ftotal - ss[j].v / stotal) > 1e-12)
			fail_msg("%s: folded %.4f, speedscope %.4f", fs[i].name, fs[i].v / ftotal,
				 ss[j].v / stotal);
	}
	json_free(&d);
	free(text);
	free(folded);
	fixture_free(&fx);
}

static void weights_are_wall_time(void **state)
{
	(void)state;
	struct fixture fx;
	make(&fx, false);
	char *text = speedscope_of(fixture_profile(&fx), 0);
	struct jdoc d;
	const struct jval *r = parse_checked(&d, text);
	const struct jval *profiles = jget(&d, r, "profiles");
	double want[3] = { 0 };
	for (size_t i = 0; i < fx.n; i++)
		want[fx.samples[i].thread == 0 ? 0 : fx.samples[i].thread == 1 ? 1 : 2] +=
			(double)fx.samples[i].weight_ns;
	for (size_t i = 0; i < 3; i++) {
		const struct jval *pr = jat(&d, profiles, i);
		double span = jget(&d, pr, "endValue")->num - jget(&d, pr, "startValue")->num;
		assert_true(span == want[i]);
	}
	/* db_writer weighs 3x, db_idle 10x the samples of db_main they
	 * follow: db_idle (6 samples) outweighs db_writer (20)?  No: 6 * 10 <
	 * 20 * 3 < 60; db_main stays the heaviest. */
	assert_int_equal(jget(&d, r, "activeProfileIndex")->num, 0);
	json_free(&d);
	free(text);
	fixture_free(&fx);
}

static void same_file_whatever_the_budget(void **state)
{
	(void)state;
	struct fixture fx;
	make(&fx, false);
	const struct profile *p = fixture_profile(&fx);
	fx.rewinds = 0;
	char *whole = speedscope_of(p, 0);
	assert_int_equal(fx.rewinds, 2); /* count, then all threads at once */
	/* 25 samples' worth: db_main (60) on its own is streamed in two
	 * passes, db_writer (20) and db_idle (6) do not fit together */
	fx.rewinds = 0;
	char *small = speedscope_of(p, 25 * 12);
	assert_string_equal(small, whole);
	assert_int_equal(fx.rewinds, 1 + 2 + 1 + 1);
	/* less than any thread: every one streamed */
	fx.rewinds = 0;
	char *tiny = speedscope_of(p, 1);
	assert_string_equal(tiny, whole);
	assert_int_equal(fx.rewinds, 1 + 2 * 3);
	free(whole);
	free(small);
	free(tiny);
	fixture_free(&fx);
}

static void hostile_names_stay_json(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "cmd \"quoted\"\n", "t\\", 1000);
	fixture_thread(&fx, 1, 2, "p", "th\"r\\ead");
	const char *name = "a\"b\\c/d\x01\x1f\x7f \xe2\x82\xac \xff end";
	fixture_sample(&fx, 0, 1000, 1000, (const char *[]){ "th\"r\\ead", "R (running)", name, NULL });
	char *text = speedscope_of(fixture_profile(&fx), 0);
	struct jdoc d;
	const struct jval *r = parse_checked(&d, text);
	const struct jval *frames = jget(&d, jget(&d, r, "shared"), "frames");
	assert_int_equal(frames->n_kids, 3);
	assert_string_equal(frame_name(&d, r, 2), "a\"b\\c/d\x01\x1f\x7f \xe2\x82\xac \xef\xbf\xbd end");
	assert_string_equal(jget(&d, jat(&d, jget(&d, r, "profiles"), 0), "name")->str,
			    "th\"r\\ead (tid 2)");
	assert_string_equal(jget(&d, r, "name")->str, "t\\");
	json_free(&d);
	free(text);
	fixture_free(&fx);
}

static void refuses_what_it_cannot_write(void **state)
{
	(void)state;
	struct fixture fx;
	make(&fx, true);
	FILE *f = fopen("/dev/null", "w");
	/* no samples: the format keeps time */
	errno = 0;
	assert_int_equal(output_write(f, FORMAT_SPEEDSCOPE, fixture_profile_as(&fx, 0)), -1);
	assert_int_equal(errno, EINVAL);
	/* a sample of a stack or thread that does not exist */
	fixture_profile(&fx);
	fx.samples[5].stack = 999;
	errno = 0;
	assert_int_equal(output_write(f, FORMAT_SPEEDSCOPE, &fx.p), -1);
	assert_int_equal(errno, EINVAL);
	fx.samples[5].stack = 0;
	fx.samples[7].thread = 4;
	errno = 0;
	assert_int_equal(output_write(f, FORMAT_SPEEDSCOPE, &fx.p), -1);
	assert_int_equal(errno, EINVAL);
	fclose(f);
	fx.samples[7].thread = 0;
	f = fopen("/dev/full", "w");
	if (f) {
		assert_int_equal(output_write(f, FORMAT_SPEEDSCOPE, &fx.p), -1);
		fclose(f);
	}
	fixture_free(&fx);
}

static void no_samples_at_all(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "cmd", "t", 1000);
	fixture_thread(&fx, 1, 1, "p", "t");
	char *text = speedscope_of(fixture_profile(&fx), 0);
	struct jdoc d;
	const struct jval *r = parse_checked(&d, text);
	assert_int_equal(jget(&d, r, "profiles")->n_kids, 0);
	json_free(&d);
	free(text);
	fixture_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(schema_fields_and_per_thread_profiles),
		cmocka_unit_test(shares_equal_the_folded_output),
		cmocka_unit_test(weights_are_wall_time),
		cmocka_unit_test(same_file_whatever_the_budget),
		cmocka_unit_test(hostile_names_stay_json),
		cmocka_unit_test(refuses_what_it_cannot_write),
		cmocka_unit_test(no_samples_at_all),
	};
	return cmocka_run_group_tests_name("speedscope", tests, NULL, NULL);
}
