/* out_pprof.c - profile.proto (github.com/google/pprof), gzipped.
 *
 * The protobuf encoding is written by hand: varints, and length-delimited
 * fields for strings, packed numbers and nested messages.  The Profile
 * message is the top level, whose fields may come in any order and
 * repeated fields interleaved, so it is streamed through zlib's deflate
 * as it is made: a Function and its Location the first time a frame is
 * seen, each Sample when it is complete, and the string table last (a
 * string's index is fixed when it is first used).
 *
 * Sample types: samples/count and wall/nanoseconds (the default).  One
 * Sample per stack and thread, labelled thread (its name), tid and pid
 * (numbers), state (the OS state) and app_state when there is one.  Its
 * locations are every frame of the stack, thread and states included, so
 * that pprof's graphs and flame graphs show the tree the folded output
 * does.  There are no addresses: each distinct frame name is one Location
 * with one Line of its own Function.  The target's modules are listed as
 * Mappings, marked as symbolized.
 */
#include "output/output.h"
#include "output/frame_role.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/array.h"
#include "base/ptr_index.h"

/* --- a growable buffer and the protobuf encoding ---------------------- */

struct pb {
	uint8_t *d;
	size_t n, cap;
	bool oom;
};

static void pb_raw(struct pb *b, const void *data, size_t len)
{
	if (b->oom)
		return;
	if (!array_reserve((void **)&b->d, b->n + len, &b->cap, 1)) {
		b->oom = true;
		return;
	}
	memcpy(b->d + b->n, data, len);
	b->n += len;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;
	while (v >= 0x80) {
		buf[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	pb_raw(b, buf, n);
}

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void pb_tag(struct pb *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; zero is the default and is left out. */
static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_tag(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned field, const void *data, size_t len)
{
	pb_tag(b, field, WIRE_LEN);
	pb_varint(b, len);
	pb_raw(b, data, len);
}

static void pb_msg(struct pb *b, unsigned field, const struct pb *inner)
{
	if (inner->oom)
		b->oom = true;
	pb_bytes(b, field, inner->d, inner->n);
}

/* --- gzip out --------------------------------------------------------- */

struct gz {
	FILE *f;
	z_stream z;
	uint8_t out[1 << 16];
	bool failed;
};

static int gz_pump(struct gz *g, int flush)
{
	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		int rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR)
			return -1;
		size_t have = sizeof(g->out) - g->z.avail_out;
		if (have && fwrite(g->out, 1, have, g->f) != have)
			return -1;
		if (flush == Z_FINISH && rc == Z_STREAM_END)
			return 0;
	} while (g->z.avail_out == 0 || (flush == Z_FINISH));
	return 0;
}

static void gz_write(struct gz *g, const struct pb *b)
{
	if (g->failed)
		return;
	if (b->oom) {
		g->failed = true;
		errno = ENOMEM;
		return;
	}
	g->z.next_in = b->d;
	g->z.avail_in = (uInt)b->n;
	if (gz_pump(g, Z_NO_FLUSH) != 0)
		g->failed = true;
}

/* A top-level field of Profile, made in the scratch buffer. */
static void emit(struct gz *g, struct pb *scratch)
{
	gz_write(g, scratch);
	scratch->n = 0;
}

/* --- the profile ------------------------------------------------------ */

struct pp {
	const struct profile *p;
	struct gz *g;
	struct pb top, msg, sub; /* a top-level field; a message; one inside it */
	struct ptr_index strings; /* string pointer -> its number */
	uint32_t *string_no;      /* pointer number -> index - 1 */
	const char **string_list; /* index - 1 -> string */
	size_t cap_no, cap_list, n_list;
	struct hash_index by_text; /* text -> index - 1 (in string_list) */
	struct ptr_index frames;  /* frame name -> location and function id - 1 */
	const char **frame_buf;
	size_t frame_max;
	uint64_t *ids;
	bool oom;
};

static bool text_eq(const void *table, uint32_t id, const void *key)
{
	const char *const *list = table;
	return strcmp(list[id], key) == 0;
}

/* The string's index in string_table (0 is "").  Strings are looked up by
 * pointer first (frame names are interned), then by text: a thread's name
 * and its root frame are equal texts at two addresses. */
static uint64_t str_id(struct pp *pp, const char *s)
{
	if (!s || !s[0])
		return 0;
	uint32_t k;
	bool added;
	if (ptr_index_get(&pp->strings, s, &k, &added) != 0)
		goto oom;
	if (!added)
		return (uint64_t)pp->string_no[k] + 1;
	if (!array_reserve((void **)&pp->string_no, pp->strings.n, &pp->cap_no,
			   sizeof(*pp->string_no)))
		goto oom;
	uint64_t h = hash_bytes(s, strlen(s));
	uint32_t no = hash_index_find(&pp->by_text, h, text_eq, pp->string_list, s);
	if (no == HASH_NONE) {
		no = (uint32_t)pp->n_list;
		if (!array_reserve((void **)&pp->string_list, pp->n_list + 1, &pp->cap_list,
				   sizeof(*pp->string_list)) ||
		    hash_index_add(&pp->by_text, h, no) != 0)
			goto oom;
		pp->string_list[pp->n_list++] = s;
	}
	pp->string_no[k] = no;
	return (uint64_t)no + 1;
oom:
	pp->oom = true;
	return 0;
}

static void value_type(struct pp *pp, unsigned field, const char *type, const char *unit)
{
	pp->msg.n = 0;
	pb_uint(&pp->msg, 1, str_id(pp, type));
	pb_uint(&pp->msg, 2, str_id(pp, unit));
	pb_msg(&pp->top, field, &pp->msg);
	emit(pp->g, &pp->top);
}

/* The Location id of a frame name; its Function and Location are written
 * the first time. */
static uint64_t location_id(struct pp *pp, const char *name)
{
	uint32_t k;
	bool added;
	if (ptr_index_get(&pp->frames, name, &k, &added) != 0) {
		pp->oom = true;
		return 1;
	}
	uint64_t id = (uint64_t)k + 1;
	if (added) {
		pp->msg.n = 0; /* Function */
		pb_uint(&pp->msg, 1, id);
		uint64_t s = str_id(pp, name);
		pb_uint(&pp->msg, 2, s);
		pb_uint(&pp->msg, 3, s);
		pb_msg(&pp->top, 5, &pp->msg);
		emit(pp->g, &pp->top);

		pp->msg.n = 0; /* Location, with one Line */
		pb_uint(&pp->msg, 1, id);
		pp->sub.n = 0;
		pb_uint(&pp->sub, 1, id);
		pb_msg(&pp->msg, 4, &pp->sub);
		pb_msg(&pp->top, 4, &pp->msg);
		emit(pp->g, &pp->top);
	}
	return id;
}

static void label_str(struct pp *pp, const char *key, const char *value)
{
	pp->sub.n = 0;
	pb_uint(&pp->sub, 1, str_id(pp, key));
	pb_uint(&pp->sub, 2, str_id(pp, value));
	pb_msg(&pp->msg, 3, &pp->sub);
}

static void label_num(struct pp *pp, const char *key, int64_t value)
{
	pp->sub.n = 0;
	pb_uint(&pp->sub, 1, str_id(pp, key));
	pb_uint(&pp->sub, 3, (uint64_t)value);
	pb_msg(&pp->msg, 3, &pp->sub);
}

/* One Sample: a stack, of a thread (or none), with its two values. */
static void write_sample(struct pp *pp, uint32_t stack, const struct profile_thread *thread,
			 uint64_t count, uint64_t wall)
{
	const char **frames = pp->frame_buf;
	size_t n = stack_table_frames(pp->p->stacks, stack, frames, pp->frame_max, NULL);
	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++) /* leaf first */
		pp->ids[i] = location_id(pp, frames[n - 1 - i]);
	size_t code = frame_code_start(frames, n);

	pp->msg.n = 0;
	pp->sub.n = 0;
	for (size_t i = 0; i < n; i++)
		pb_varint(&pp->sub, pp->ids[i]);
	pb_msg(&pp->msg, 1, &pp->sub);
	pp->sub.n = 0;
	pb_varint(&pp->sub, count);
	pb_varint(&pp->sub, wall);
	pb_msg(&pp->msg, 2, &pp->sub);
	label_str(pp, "thread", thread && thread->name ? thread->name : frames[0]);
	if (thread && thread->tid) { /* 0: processes merged (--group-by) */
		label_num(pp, "tid", thread->tid);
		label_num(pp, "pid", thread->pid);
	}
	if (code >= 2)
		label_str(pp, "state", frames[code - 1]);
	for (size_t i = 1; i + 1 < code; i++)
		if (frame_is_app_state(frames[i]))
			label_str(pp, "app_state", frames[i]);
	pb_msg(&pp->top, 2, &pp->msg);
	emit(pp->g, &pp->top);
}

/* Samples by (stack, thread), in first-seen order. */
struct pair {
	uint64_t key; /* stack << 32 | thread */
	uint64_t count, wall;
};

struct pairs {
	struct pair *v;
	size_t n, cap;
	struct hash_index ix; /* key -> index in v */
};

static bool pair_eq(const void *table, uint32_t id, const void *key)
{
	const struct pair *v = table;
	return v[id].key == *(const uint64_t *)key;
}

static int pair_add(const struct profile_sample *s, void *arg)
{
	struct pairs *ps = arg;
	uint64_t key = (uint64_t)s->stack << 32 | s->thread;
	uint64_t h = hash_word(key);
	uint32_t i = hash_index_find(&ps->ix, h, pair_eq, ps->v, &key);
	if (i != HASH_NONE) {
		ps->v[i].count++;
		ps->v[i].wall += s->weight_ns;
		return 0;
	}
	if (!array_reserve((void **)&ps->v, ps->n + 1, &ps->cap, sizeof(*ps->v)))
		goto oom;
	if (hash_index_add(&ps->ix, h, (uint32_t)ps->n) != 0)
		goto oom;
	ps->v[ps->n++] = (struct pair){ key, 1, s->weight_ns };
	return 0;
oom:
	errno = ENOMEM;
	return -1;
}

static int write_samples(struct pp *pp)
{
	const struct profile *p = pp->p;
	if (!p->samples) {
		/* Counts only: the wall time is the interval's worth. */
		size_t n_stacks = stack_table_distinct(p->stacks);
		for (size_t id = 0; id < n_stacks; id++) {
			uint64_t count;
			stack_table_words(p->stacks, id, NULL, &count);
			if (count)
				write_sample(pp, (uint32_t)id, NULL, count, count * p->interval_ns);
		}
		return 0;
	}
	struct pairs ps = { 0 };
	if (hash_index_init(&ps.ix) != 0) {
		errno = ENOMEM;
		return -1;
	}
	int rc = sample_pass(p, pair_add, &ps);
	for (size_t i = 0; rc == 0 && i < ps.n; i++)
		write_sample(pp, (uint32_t)(ps.v[i].key >> 32), &p->threads[(uint32_t)ps.v[i].key],
			     ps.v[i].count, ps.v[i].wall);
	free(ps.v);
	hash_index_free(&ps.ix);
	return rc;
}

int output_pprof(FILE *f, const struct profile *p)
{
	struct gz *gp = calloc(1, sizeof(*gp)); /* 64 KiB of output buffer */
	if (!gp) {
		errno = ENOMEM;
		return -1;
	}
	struct gz *const g = gp;
	g->f = f;
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		errno = ENOMEM;
		return -1;
	}
	struct pp pp = { .p = p, .g = g };
	pp.frame_max = stack_table_max_depth(p->stacks);
	pp.frame_buf = malloc(pp.frame_max * sizeof(*pp.frame_buf));
	pp.ids = malloc(pp.frame_max * sizeof(*pp.ids));
	int rc = pp.frame_buf && pp.ids && hash_index_init(&pp.by_text) == 0 ? 0 : -1;
	if (rc != 0)
		errno = ENOMEM;

	if (rc == 0) {
		value_type(&pp, 1, "samples", "count");
		value_type(&pp, 1, "wall", "nanoseconds");
		value_type(&pp, 11, "wall", "nanoseconds"); /* period_type */
		pb_uint(&pp.top, 12, p->interval_ns);        /* period */
		pb_uint(&pp.top, 9, p->start_unix_ns);       /* time_nanos */
		pb_uint(&pp.top, 10, p->duration_ns);        /* duration_nanos */
		if (p->command && p->command[0])
			pb_uint(&pp.top, 13, str_id(&pp, p->command)); /* comment */
		if (p->target && p->target[0])
			pb_uint(&pp.top, 13, str_id(&pp, p->target));
		pb_uint(&pp.top, 14, str_id(&pp, "wall"));   /* default_sample_type */
		emit(g, &pp.top);

		for (size_t i = 0; i < p->n_modules; i++) {
			const struct profile_module *m = &p->modules[i];
			pp.msg.n = 0;
			pb_uint(&pp.msg, 1, i + 1);
			pb_uint(&pp.msg, 2, m->start);
			pb_uint(&pp.msg, 3, m->end);
			pb_uint(&pp.msg, 4, m->offset);
			pb_uint(&pp.msg, 5, str_id(&pp, m->path));
			pb_uint(&pp.msg, 6, str_id(&pp, m->build_id));
			pb_uint(&pp.msg, 7, 1); /* has_functions: named already */
			pb_msg(&pp.top, 3, &pp.msg);
			emit(g, &pp.top);
		}
		rc = write_samples(&pp);
	}
	if (rc == 0) {
		pb_bytes(&pp.top, 6, "", 0);
		emit(g, &pp.top);
		for (size_t i = 0; i < pp.n_list; i++) {
			const char *s = pp.string_list[i];
			pb_bytes(&pp.top, 6, s, strlen(s));
			emit(g, &pp.top);
		}
		if (pp.oom || g->failed) {
			if (pp.oom)
				errno = ENOMEM;
			rc = -1;
		}
	}
	if (rc == 0 && gz_pump(g, Z_FINISH) != 0)
		rc = -1;
	deflateEnd(&g->z);
	free(g);
	free(pp.top.d);
	free(pp.msg.d);
	free(pp.sub.d);
	free(pp.string_list);
	free(pp.string_no);
	hash_index_free(&pp.by_text);
	free(pp.frame_buf);
	free(pp.ids);
	ptr_index_free(&pp.strings);
	ptr_index_free(&pp.frames);
	return rc == 0 && !ferror(f) ? 0 : -1;
}
