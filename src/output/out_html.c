/* out_html.c - the report: one self-contained HTML file of the run over
 * time (--format html, -o NAME.html).
 *
 * The page (src/output/report.html, built in as report_page) draws the
 * average active threads per time bucket, stacked by what the reader
 * picks - OS state, wait event, process type, statement, process - and
 * the flame graph and top lists of any range dragged on it, or of a
 * series clicked.  No network: the data and the code are in the file.
 * The data, a script statement "const D = {...};" where the page has its
 * DATA marker:
 *
 *   frames  every frame name once (JSON strings, '<' '>' '&' escaped)
 *   stacks  each stack's frame indexes, root first, by stack id
 *   values  every dimension value once ("R (running)", "IO:WALSync",
 *           "client backend", "query=...", "postgres[42] checkpointer")
 *   kinds   per stack six numbers: its state, event, type, query and
 *           process as indexes into values, then 1 when it is idle
 *           (a PostgreSQL main loop's Activity wait, ClientRead of an
 *           idle session: what --no-idle leaves out; the postmaster
 *           asleep, which reports no wait), else 0
 *   threads thread names
 *   S       the samples as the profile keeps them (in time order but
 *           for a round's spread ticks), four numbers each, times in
 *           tenths of a millisecond: the time since the sample before
 *           (0 within a round, signed), the weight less what it nearly always
 *           is - the time since the thread's sample before, or the
 *           interval for its first - (so 0), the stack id, the thread
 *           index.  The page adds them back up as it loads.  Absolute
 *           times and weights took ~17 bytes a sample by half an hour
 *           in; these ~9 (a 30-minute run of 10 processes at 10 ms is
 *           1.8 million samples).
 *   read_bucket_ns, R, RK   with the reads (activity.h; absent
 *           without): R three numbers a row, the 100 ms bucket less the
 *           row before's, a pair (-1: the row is the bucket's ticks), a
 *           count; RK per pair its event, type, process and statement
 *           as indexes into values, then 1 when idle (as kinds; a
 *           ClientRead with no statement read is idle).  The chart by
 *           any dimension but the OS state draws these: a bucket's reads
 *           over its ticks.
 *
 * The dimensions are read from each stack's frames as profile.h lays them
 * out, once here, so the page never guesses a frame's kind: the event is
 * the application state without its " (... state)" ("On CPU" is "CPU"),
 * or the OS state where there is none; the type is the root without its
 * "comm[PID] " and "/thread".  Memory: the stacks and values (one entry
 * each, never per sample); the samples are streamed in one pass.
 */
#include "output/output.h"
#include "output/escape.h"
#include "output/frame_role.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash_index.h"
#include "base/intern.h"
#include "base/ptr_index.h"
#include "profile/activity.h"
#include "report_page.h" /* report_page[]: the page, generated from report.html */

#define MAX_DEPTH 512
#define DATA_MARKER "/*DATA*/"

enum dimension { DIM_STATE, DIM_EVENT, DIM_TYPE, DIM_QUERY, DIM_PROCESS, N_DIMS };

struct report {
	FILE *f;
	const struct profile *p;
	struct intern_set *words; /* the values' text */
	struct ptr_index frames;  /* frame name -> index */
	struct ptr_index values;  /* interned value -> index */
	uint32_t *kinds;          /* per stack: N_DIMS values, then idle */
	bool comma;
	int64_t last;             /* the sample before's time (0.1 ms) */
	uint64_t *thread_last;    /* per thread: its sample before's time + 1, 0 none */
};

/* s as a JSON string that may sit inside a <script>: json_string's, with
 * '<', '>' and '&' as \u escapes ("</script>" in a name ends nothing). */
static void script_string(FILE *f, const char *s)
{
	char *tmp = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&tmp, &len);
	if (!m) {
		fputs("\"?\"", f);
		return;
	}
	json_string(m, s);
	fclose(m);
	for (size_t i = 0; i < len; i++) {
		if (tmp[i] == '<')
			fputs("\\u003c", f);
		else if (tmp[i] == '>')
			fputs("\\u003e", f);
		else if (tmp[i] == '&')
			fputs("\\u0026", f);
		else
			fputc(tmp[i], f);
	}
	free(tmp);
}

/* The index of a value's text, interned; UINT32_MAX when out of memory. */
static uint32_t value_index(struct report *r, const char *text)
{
	const char *w = intern(r->words, text);
	uint32_t i;
	if (!w || ptr_index_get(&r->values, w, &i, NULL) != 0)
		return UINT32_MAX;
	return i;
}

/* "postgres[42] client backend/worker" -> "client backend"; a root with
 * no words after "comm[PID]" is its comm; "all", a --group-by type root,
 * as it is. */
static void type_of_root(const char *root, char *out, size_t outsz)
{
	const char *close = strstr(root, "] ");
	const char *open = close ? memchr(root, '[', (size_t)(close - root)) : NULL;
	const char *words = open ? close + 2 : root;
	size_t n = strcspn(words, "/");
	if (!open) { /* no "[PID] words": the comm, or a thread under a process */
		const char *bracket = strchr(root, '[');
		n = bracket ? (size_t)(bracket - root) : strcspn(root, "/");
	}
	snprintf(out, outsz, "%.*s", (int)n, words);
}

/* "postgres[42] client backend/worker" -> "postgres[42] client backend" */
static void process_of_root(const char *root, char *out, size_t outsz)
{
	snprintf(out, outsz, "%.*s", (int)strcspn(root, "/"), root);
}

/* An application state frame as its event: "event=IO:WALSync
 * (PostgreSQL state)" -> "IO:WALSync", "On CPU (...)" -> "CPU",
 * "[no PostgreSQL state]" as it is. */
static void event_of(const char *app, char *out, size_t outsz)
{
	const char *open = strrchr(app, '(');
	size_t n = open && open > app && ends_with(app, " state)") ? (size_t)(open - app - 1) : strlen(app);
	const char *text = app;
	if (strncmp(text, "event=", 6) == 0) {
		text += 6;
		n -= 6;
	}
	if (n == 6 && strncmp(text, "On CPU", 6) == 0)
		snprintf(out, outsz, "CPU");
	else
		snprintf(out, outsz, "%.*s", (int)n, text);
}

/* The kinds of stack id, from its frames (profile.h's order). */
static int note_kinds(struct report *r, uint32_t id, const char **frames, size_t n)
{
	size_t code = frame_code_start(frames, n);
	const char *state = NULL, *app = NULL, *query = NULL;
	for (size_t i = 1; i < code && i < n; i++) {
		if (frame_is_os_state(frames[i]))
			state = frames[i];
		else if (frame_is_app_state(frames[i]))
			app = frames[i];
		else
			query = frames[i];
	}
	char text[1024];
	uint32_t *k = &r->kinds[(size_t)id * (N_DIMS + 1)];
	k[DIM_STATE] = value_index(r, state ? state : "-");
	if (app)
		event_of(app, text, sizeof(text));
	else
		snprintf(text, sizeof(text), "%s", state ? state : "-");
	k[DIM_EVENT] = value_index(r, text);
	bool activity = strncmp(text, "Activity:", 9) == 0;
	bool client_read = strcmp(text, "Client:ClientRead") == 0;
	type_of_root(n ? frames[0] : "-", text, sizeof(text));
	k[DIM_TYPE] = value_index(r, text);
	/* the postmaster reports no wait: asleep, it waits for connections */
	bool postmaster_asleep = strcmp(text, "postmaster") == 0 && state && state[0] == 'S';
	k[DIM_QUERY] = value_index(r, query ? query : "-");
	process_of_root(n ? frames[0] : "-", text, sizeof(text));
	k[DIM_PROCESS] = value_index(r, text);
	/* what --no-idle leaves out of a PostgreSQL server (pgactivity.h),
	 * and the postmaster's sleep, which is no session's time */
	k[N_DIMS] = activity || (client_read && query && strcmp(query, "idle") == 0) || postmaster_asleep;
	for (int d = 0; d < N_DIMS; d++)
		if (k[d] == UINT32_MAX)
			return -1;
	return 0;
}

/* Every stack: its frame indexes written, its kinds noted. */
static int write_stacks(struct report *r)
{
	size_t n_stacks = stack_table_distinct(r->p->stacks);
	const char **frames = malloc(MAX_DEPTH * sizeof(*frames));
	r->kinds = calloc(n_stacks ? n_stacks : 1, (N_DIMS + 1) * sizeof(*r->kinds));
	if (!frames || !r->kinds) {
		free(frames);
		errno = ENOMEM;
		return -1;
	}
	fputs("\"stacks\":[", r->f);
	for (size_t id = 0; id < n_stacks; id++) {
		uint64_t count;
		size_t n = stack_table_frames(r->p->stacks, id, frames, MAX_DEPTH, &count);
		fputs(id ? ",[" : "[", r->f);
		for (size_t i = 0; i < n; i++) {
			uint32_t k;
			if (ptr_index_get(&r->frames, frames[i], &k, NULL) != 0) {
				free(frames);
				errno = ENOMEM;
				return -1;
			}
			fprintf(r->f, "%s%" PRIu32, i ? "," : "", k);
		}
		fputc(']', r->f);
		if (note_kinds(r, (uint32_t)id, frames, n) != 0) {
			free(frames);
			errno = ENOMEM;
			return -1;
		}
	}
	fputs("],\n", r->f);
	free(frames);
	return 0;
}

static void write_strings(struct report *r, const char *name, const struct ptr_index *ix)
{
	fprintf(r->f, "\"%s\":[", name);
	for (size_t i = 0; i < ix->n; i++) {
		if (i)
			fputc(',', r->f);
		script_string(r->f, ix->keys[i]);
	}
	fputs("],\n", r->f);
}

static void write_kinds(struct report *r)
{
	size_t n = stack_table_distinct(r->p->stacks) * (N_DIMS + 1);
	fputs("\"kinds\":[", r->f);
	for (size_t i = 0; i < n; i++)
		fprintf(r->f, "%s%" PRIu32, i ? "," : "", r->kinds[i]);
	fputs("],\n", r->f);
}

static void write_threads(struct report *r)
{
	fputs("\"threads\":[", r->f);
	for (size_t i = 0; i < r->p->n_threads; i++) {
		const struct profile_thread *t = &r->p->threads[i];
		char name[512];
		if (t->tid)
			snprintf(name, sizeof(name), "%s (tid %d)", t->name ? t->name : "?", (int)t->tid);
		else
			snprintf(name, sizeof(name), "%s", t->name ? t->name : "?");
		if (i)
			fputc(',', r->f);
		script_string(r->f, name);
	}
	fputs("],\n", r->f);
}

/* Tenths of a millisecond, rounded. */
static uint64_t tenths_ms(uint64_t ns)
{
	return (ns + 50000) / 100000;
}

static int write_sample(const struct profile_sample *s, void *arg)
{
	struct report *r = arg;
	assert(s->thread < r->p->n_threads);
	/* (signed: the ticks a round stands for are spread over its span
	 * thread by thread, so a time may be earlier than the one before) */
	int64_t t = (int64_t)tenths_ms(s->time_ns), before = (int64_t)r->thread_last[s->thread];
	int64_t usual = before ? t - (before - 1) : (int64_t)tenths_ms(r->p->interval_ns);
	fprintf(r->f, "%s%" PRId64 ",%" PRId64 ",%" PRIu32 ",%" PRIu32, r->comma ? "," : "",
		t - r->last, (int64_t)tenths_ms(s->weight_ns) - usual, s->stack, s->thread);
	r->last = t;
	r->thread_last[s->thread] = (uint64_t)t + 1;
	r->comma = true;
	return 0;
}

/* --- the reads (activity.h) ------------------------------------------ */

/* A root, event and statement of the reads, as the page's values. */
struct read_pair {
	uint32_t root, event, query;
	uint32_t values[5]; /* event, type, process, statement, then 1 when idle */
};

struct reads_out {
	struct report *r;
	struct read_pair *pairs;
	size_t n, cap;
	struct hash_index ix;
	uint32_t last_bucket;
	bool comma;
	int error;
};

static bool pair_eq(const void *table, uint32_t id, const void *key)
{
	const struct reads_out *o = table;
	const uint32_t *k = key;
	return o->pairs[id].root == k[0] && o->pairs[id].event == k[1] && o->pairs[id].query == k[2];
}

/* The pair's values, as note_kinds reads a stack's: the event from the
 * state frame, the type and process from the root, the statement's frame
 * ("-" without).  Idle as note_kinds says: a main loop's Activity wait,
 * and ClientRead of an idle session - or, with no statement read
 * (without --pg-queries), any ClientRead: a session waiting for its
 * client is idle to the chart then, as ASH counts Oracle's client wait. */
static int pair_values(struct reads_out *o, const struct activity *a, struct read_pair *pr)
{
	char text[1024];
	const char *root = activity_text(a, pr->root), *event = activity_text(a, pr->event);
	const char *query = pr->query == ACTIVITY_NONE ? "-" : activity_text(a, pr->query);
	if (!root || !event || !query)
		return -1;
	event_of(event, text, sizeof(text));
	pr->values[0] = value_index(o->r, text);
	pr->values[4] = strncmp(text, "Activity:", 9) == 0 ||
			(strcmp(text, "Client:ClientRead") == 0 &&
			 (strcmp(query, "-") == 0 || strcmp(query, "idle") == 0));
	type_of_root(root, text, sizeof(text));
	pr->values[1] = value_index(o->r, text);
	process_of_root(root, text, sizeof(text));
	pr->values[2] = value_index(o->r, text);
	pr->values[3] = value_index(o->r, query);
	for (int i = 0; i < 4; i++)
		if (pr->values[i] == UINT32_MAX)
			return -1;
	return 0;
}

static int write_read(const struct activity_row *row, void *arg)
{
	struct reads_out *o = arg;
	long pair = -1;
	if (row->root != ACTIVITY_NONE) {
		const uint32_t key[3] = { row->root, row->event, row->query };
		uint64_t h = hash_word(((uint64_t)row->root << 32 | row->event) ^ hash_word(row->query));
		uint32_t id = hash_index_find(&o->ix, h, pair_eq, o, key);
		if (id == HASH_NONE) {
			if (!array_reserve((void **)&o->pairs, o->n + 1, &o->cap, sizeof(*o->pairs)) ||
			    hash_index_add(&o->ix, h, (uint32_t)o->n) != 0)
				return o->error = ENOMEM;
			o->pairs[o->n] = (struct read_pair){ .root = row->root, .event = row->event,
							     .query = row->query };
			if (pair_values(o, o->r->p->activity, &o->pairs[o->n]) != 0)
				return o->error = ENOMEM;
			id = (uint32_t)o->n++;
		}
		pair = id;
	}
	fprintf(o->r->f, "%s%" PRIu32 ",%ld,%" PRIu32, o->comma ? "," : "",
		row->bucket - o->last_bucket, pair, row->count);
	o->last_bucket = row->bucket;
	o->comma = true;
	return 0;
}

/* "R": the reads, three numbers a row: the bucket (100 ms) less the row
 * before's, the pair (-1: the bucket's ticks), the count; then "RK", per
 * pair its event, type, process and statement as values, and 1 when
 * idle. */
static int write_reads(struct report *r)
{
	struct reads_out o = { .r = r };
	if (hash_index_init(&o.ix) != 0) {
		errno = ENOMEM;
		return -1;
	}
	fprintf(r->f, "\"read_bucket_ns\":%llu,\"R\":[", (unsigned long long)ACTIVITY_BUCKET_NS);
	int rc = activity_pass(r->p->activity, write_read, &o);
	fputs("],\n\"RK\":[", r->f);
	for (size_t i = 0; rc == 0 && i < o.n; i++)
		fprintf(r->f, "%s%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32, i ? "," : "",
			o.pairs[i].values[0], o.pairs[i].values[1], o.pairs[i].values[2],
			o.pairs[i].values[3], o.pairs[i].values[4]);
	fputs("],\n", r->f);
	free(o.pairs);
	hash_index_free(&o.ix);
	if (rc != 0)
		errno = o.error ? o.error : errno;
	return rc != 0 ? -1 : 0;
}

static void write_meta(struct report *r)
{
	const struct profile *p = r->p;
	fputs("\"title\":", r->f);
	script_string(r->f, p->target ? p->target : "ptrace_profiler");
	fputs(",\"command\":", r->f);
	script_string(r->f, p->command ? p->command : "");
	fprintf(r->f, ",\"interval_ns\":%" PRIu64 ",\"duration_ns\":%" PRIu64
		",\"start_unix_ms\":%" PRIu64 ",\"total\":%" PRIu64 ",\n",
		p->interval_ns, p->duration_ns, p->start_unix_ns / 1000000, p->total_samples);
}

int output_html(FILE *f, const struct profile *p)
{
	if (!p->samples) { /* the sampler keeps time for this format */
		errno = EINVAL;
		return -1;
	}
	const char *marker = strstr(report_page, DATA_MARKER);
	struct report r = { .f = f, .p = p, .words = intern_new(),
			    .thread_last = calloc(p->n_threads + 1, sizeof(uint64_t)) };
	int rc = -1;
	if (!marker || !r.words || !r.thread_last) {
		errno = marker ? ENOMEM : EINVAL;
		goto out;
	}
	fwrite(report_page, 1, (size_t)(marker - report_page), f);
	fputs("const D = {", f);
	write_meta(&r);
	if (write_stacks(&r) != 0)
		goto out;
	if (p->activity && write_reads(&r) != 0)
		goto out;
	write_strings(&r, "frames", &r.frames);
	write_strings(&r, "values", &r.values);
	write_kinds(&r);
	write_threads(&r);
	fputs("\"S\":[", f);
	if (sample_pass(p, write_sample, &r) != 0 && errno != EINVAL)
		goto out; /* (EINVAL: no samples; the page says so) */
	fputs("]};\n", f);
	fputs(marker + strlen(DATA_MARKER), f);
	rc = ferror(f) ? -1 : 0;
out:
	free(r.kinds);
	free(r.thread_last);
	ptr_index_free(&r.frames);
	ptr_index_free(&r.values);
	intern_free(r.words);
	return rc;
}
