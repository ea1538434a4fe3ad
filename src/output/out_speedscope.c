/* out_speedscope.c - speedscope's JSON file format.
 *
 *   {"$schema": "https://www.speedscope.app/file-format-schema.json",
 *    "shared": {"frames": [{"name": ...}, ...]},
 *    "profiles": [{"type": "sampled", "name": THREAD, "unit": "nanoseconds",
 *                  "samples": [[ROOT, ..., LEAF], ...], "weights": [NS, ...],
 *                  "startValue": ..., "endValue": ...}, ...], ...}
 *
 * One sampled profile per thread that has samples, in time order, each
 * weighted by the wall time it stands for (the interval since that thread's
 * previous sample): speedscope lays samples end to end by weight, so its
 * "Time Order" view is the thread's timeline.  startValue is the start of
 * the first sample's interval, endValue the last sample's time.
 *
 * Memory: the samples are read from the source, never held whole.  One
 * pass counts each thread's; then threads are taken in groups whose
 * samples fit the budget (a stack id and a weight, 12 bytes each) and each
 * group costs one more pass.  A thread with more samples than the budget
 * on its own is written straight from two passes (stacks, then weights).
 * A stack's index list is formatted once, as text.
 */
#include "output/output.h"
#include "output/escape.h"
#include "output/numbers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/ptr_index.h"
#include "base/version.h"

#define DEFAULT_BUDGET (64u << 20)
#define PER_SAMPLE (sizeof(uint32_t) + sizeof(uint64_t))

struct ss_thread {
	uint64_t count, weight;   /* from the counting pass */
	uint32_t *stacks;         /* a group's, gathered */
	uint64_t *weights;
	size_t n;
	int64_t start;            /* first sample's time - its weight */
	bool started;
};

struct ss {
	FILE *f;
	const struct profile *p;
	char *text;               /* every stack's "[i,j,k]", back to back */
	size_t *text_off;         /* stack id -> offset; [n] = the end */
	struct ss_thread *th;
	size_t first, last;       /* the group: threads [first, last) */
	bool comma;               /* streaming: an element was written */
};

static int count_one(const struct profile_sample *s, void *arg)
{
	struct ss *ss = arg;
	ss->th[s->thread].count++;
	ss->th[s->thread].weight += s->weight_ns;
	return 0;
}

static void note_start(struct ss_thread *t, const struct profile_sample *s)
{
	if (!t->started) {
		t->start = (int64_t)s->time_ns - (int64_t)s->weight_ns;
		t->started = true;
	}
}

static int gather_one(const struct profile_sample *s, void *arg)
{
	struct ss *ss = arg;
	if (s->thread < ss->first || s->thread >= ss->last)
		return 0;
	struct ss_thread *t = &ss->th[s->thread];
	if (t->n >= t->count) { /* the source gave more than it counted */
		errno = EINVAL;
		return -1;
	}
	note_start(t, s);
	t->stacks[t->n] = s->stack;
	t->weights[t->n++] = s->weight_ns;
	return 0;
}

static void write_stack(struct ss *ss, uint32_t id)
{
	fwrite(ss->text + ss->text_off[id], 1, ss->text_off[id + 1] - ss->text_off[id], ss->f);
}

static void write_u64(FILE *f, uint64_t v)
{
	char buf[24];
	fwrite(buf, 1, u64_to_dec(v, buf), f);
}

static void profile_head(struct ss *ss, size_t i)
{
	const struct profile_thread *t = &ss->p->threads[i];
	char name[512];
	if (t->tid) /* else processes merged (--group-by type, all): the root alone */
		snprintf(name, sizeof(name), "%s (tid %d)", t->name ? t->name : "?", (int)t->tid);
	else
		snprintf(name, sizeof(name), "%s", t->name ? t->name : "?");
	fputs("{\"type\":\"sampled\",\"name\":", ss->f);
	json_string(ss->f, name);
	fputs(",\"unit\":\"nanoseconds\",\n\"samples\":[", ss->f);
}

static void profile_tail(struct ss *ss, const struct ss_thread *t)
{
	fprintf(ss->f, "],\n\"startValue\":%" PRId64 ",\"endValue\":%" PRId64 "}",
		t->start, t->start + (int64_t)t->weight);
}

/* The group's threads, from memory. */
static void write_group(struct ss *ss, bool *first_profile)
{
	for (size_t i = ss->first; i < ss->last; i++) {
		struct ss_thread *t = &ss->th[i];
		if (!t->count)
			continue;
		fputs(*first_profile ? "\n" : ",\n", ss->f);
		*first_profile = false;
		profile_head(ss, i);
		for (size_t k = 0; k < t->n; k++) {
			if (k)
				fputc(',', ss->f);
			write_stack(ss, t->stacks[k]);
		}
		fputs("],\n\"weights\":[", ss->f);
		for (size_t k = 0; k < t->n; k++) {
			if (k)
				fputc(',', ss->f);
			write_u64(ss->f, t->weights[k]);
		}
		profile_tail(ss, t);
	}
}

/* One thread too big for the budget: its stacks in one pass, its weights
 * in another. */
static int stream_stacks(const struct profile_sample *s, void *arg)
{
	struct ss *ss = arg;
	if (s->thread != ss->first)
		return 0;
	note_start(&ss->th[s->thread], s);
	if (ss->comma)
		fputc(',', ss->f);
	ss->comma = true;
	write_stack(ss, s->stack);
	return 0;
}

static int stream_weights(const struct profile_sample *s, void *arg)
{
	struct ss *ss = arg;
	if (s->thread != ss->first)
		return 0;
	if (ss->comma)
		fputc(',', ss->f);
	ss->comma = true;
	write_u64(ss->f, s->weight_ns);
	return 0;
}

static int stream_thread(struct ss *ss, size_t i, bool *first_profile)
{
	ss->first = i;
	ss->last = i + 1;
	fputs(*first_profile ? "\n" : ",\n", ss->f);
	*first_profile = false;
	profile_head(ss, i);
	ss->comma = false;
	if (sample_pass(ss->p, stream_stacks, ss) != 0)
		return -1;
	fputs("],\n\"weights\":[", ss->f);
	ss->comma = false;
	if (sample_pass(ss->p, stream_weights, ss) != 0)
		return -1;
	profile_tail(ss, &ss->th[i]);
	return 0;
}

/* Every frame once, in shared.frames, and each stack's list of indices as
 * text.  frames holds the names in index order. */
static int index_frames(struct ss *ss, const char ***names_out, size_t *n_names)
{
	const struct stack_table *t = ss->p->stacks;
	size_t n_stacks = stack_table_distinct(t), len = 0, cap = 0;
	struct ptr_index idx = { 0 };
	ss->text_off = malloc((n_stacks + 1) * sizeof(*ss->text_off));
	if (!ss->text_off)
		goto oom;
	for (size_t id = 0; id < n_stacks; id++) {
		size_t n;
		const uint64_t *w = stack_table_words(t, id, &n, NULL);
		ss->text_off[id] = len;
		for (size_t i = 0; i < n; i++) {
			const char *name = (const char *)(uintptr_t)w[i];
			uint32_t k;
			if (ptr_index_get(&idx, name, &k, NULL) != 0)
				goto oom;
			/* a comma or '[', and a number */
			if (!array_reserve((void **)&ss->text, len + 24, &cap, 1))
				goto oom;
			ss->text[len++] = i ? ',' : '[';
			len += u64_to_dec(k, ss->text + len);
		}
		if (!array_reserve((void **)&ss->text, len + 2, &cap, 1))
			goto oom;
		if (n == 0)
			ss->text[len++] = '[';
		ss->text[len++] = ']';
	}
	ss->text_off[n_stacks] = len;
	/* The index's keys are the names in index order: kept, the rest freed. */
	*n_names = idx.n;
	*names_out = (const char **)idx.keys;
	idx.keys = NULL;
	ptr_index_free(&idx);
	return 0;
oom:
	ptr_index_free(&idx);
	errno = ENOMEM;
	return -1;
}

/* The profile shown first: the heaviest thread's, by its position among
 * the threads with samples. */
static size_t heaviest_profile(const struct ss *ss)
{
	size_t active = 0, position = 0;
	uint64_t heaviest = 0;
	for (size_t i = 0; i < ss->p->n_threads; i++) {
		if (!ss->th[i].count)
			continue;
		if (position == 0 || ss->th[i].weight > heaviest) {
			heaviest = ss->th[i].weight;
			active = position;
		}
		position++;
	}
	return active;
}

/* Everything before the profiles: the file's name, the profile shown
 * first, and every frame once. */
static void write_head(struct ss *ss, const char *const *names, size_t n_names)
{
	FILE *f = ss->f;
	const struct profile *p = ss->p;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"ptrace_profiler " PROFILER_VERSION "\",\n\"name\":", f);
	json_string(f, p->target && p->target[0] ? p->target
			: p->command && p->command[0] ? p->command : "ptrace_profiler");
	fprintf(f, ",\n\"activeProfileIndex\":%zu,\n\"shared\":{\"frames\":[",
		heaviest_profile(ss));
	for (size_t i = 0; i < n_names; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_string(f, names[i]);
		fputc('}', f);
	}
	fputs("]},\n\"profiles\":[", f);
}

/* The end of a group that begins at thread i: as many threads as fit the
 * budget together. */
static size_t group_end(const struct ss *ss, size_t i, size_t budget)
{
	size_t bytes = 0, j = i;
	for (; j < ss->p->n_threads; j++) {
		size_t need = ss->th[j].count * PER_SAMPLE;
		if (ss->th[j].count > budget / PER_SAMPLE || bytes + need > budget)
			break;
		bytes += need;
	}
	return j;
}

/* Threads [first, last): their samples gathered in one pass, then
 * written from memory. */
static int gather_group(struct ss *ss, size_t first, size_t last, bool *first_profile)
{
	ss->first = first;
	ss->last = last;
	bool ok = true;
	for (size_t k = first; k < last && ok; k++) {
		struct ss_thread *t = &ss->th[k];
		if (!t->count)
			continue;
		t->stacks = malloc(t->count * sizeof(*t->stacks));
		t->weights = malloc(t->count * sizeof(*t->weights));
		ok = t->stacks && t->weights;
	}
	if (!ok)
		errno = ENOMEM;
	if (ok && sample_pass(ss->p, gather_one, ss) == 0)
		write_group(ss, first_profile);
	else
		ok = false;
	for (size_t k = first; k < last; k++) {
		free(ss->th[k].stacks);
		free(ss->th[k].weights);
		ss->th[k].stacks = NULL;
		ss->th[k].weights = NULL;
	}
	return ok ? 0 : -1;
}

/* Every thread with samples, in order: one over the budget on its own
 * streamed, the others in groups that fit it. */
static int write_profiles(struct ss *ss, size_t budget)
{
	bool first_profile = true;
	for (size_t i = 0; i < ss->p->n_threads;) {
		if (!ss->th[i].count) {
			i++;
		} else if (ss->th[i].count > budget / PER_SAMPLE) {
			if (stream_thread(ss, i, &first_profile) != 0)
				return -1;
			i++;
		} else {
			size_t j = group_end(ss, i, budget);
			if (gather_group(ss, i, j, &first_profile) != 0)
				return -1;
			i = j;
		}
	}
	return 0;
}

int output_speedscope(FILE *f, const struct profile *p, size_t budget)
{
	if (!budget)
		budget = DEFAULT_BUDGET;
	if (!p->samples) {
		errno = EINVAL;
		return -1;
	}
	struct ss ss = { .f = f, .p = p };
	ss.th = calloc(p->n_threads ? p->n_threads : 1, sizeof(*ss.th));
	if (!ss.th) {
		errno = ENOMEM;
		return -1;
	}
	const char **names = NULL;
	size_t n_names = 0;
	int rc = -1;
	if (index_frames(&ss, &names, &n_names) == 0 && sample_pass(p, count_one, &ss) == 0) {
		write_head(&ss, names, n_names);
		if (write_profiles(&ss, budget) == 0) {
			fputs("\n]}\n", f);
			rc = ferror(f) ? -1 : 0;
		}
	}
	free(names);
	free(ss.text);
	free(ss.text_off);
	free(ss.th);
	return rc;
}
