/* pprof_read.h - a reader of the gzipped profile.proto we write, for the
 * tests: varints and length-delimited fields (the only wire types the
 * writer uses), into fixed tables.  test_pprof.c reads its round trips
 * with it; test/tools/write_formats.c (read-pprof) prints a real run's
 * file for the integration tests, where go tool pprof may be absent.
 * Header-only: each user includes it once, PPROF_READ_MAX defined first
 * for room (samples, locations, functions; twice that for strings). */
#ifndef PTRACE_PROFILER_TEST_PPROF_READ_H
#define PTRACE_PROFILER_TEST_PPROF_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifndef PPROF_READ_MAX
#define PPROF_READ_MAX 256
#endif
#define PPROF_READ_DEPTH 128 /* locations of one sample */

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static inline uint64_t rd_varint(struct rd *r)
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
static inline bool rd_field(struct rd *r, unsigned *field, uint64_t *v, struct rd *sub)
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

struct label { uint64_t key, str, num; };
struct psample {
	uint64_t loc[PPROF_READ_DEPTH];
	size_t n_loc;
	int64_t values[4];
	size_t n_values;
	struct label labels[8];
	size_t n_labels;
};

struct decoded {
	char *strings[PPROF_READ_MAX * 2];
	size_t n_strings;
	uint64_t types[4][2];
	size_t n_types;
	struct psample samples[PPROF_READ_MAX];
	size_t n_samples;
	uint64_t loc_id[PPROF_READ_MAX], loc_fn[PPROF_READ_MAX], loc_lines[PPROF_READ_MAX];
	size_t n_locs;
	uint64_t fn_id[PPROF_READ_MAX], fn_name[PPROF_READ_MAX], fn_sys[PPROF_READ_MAX];
	size_t n_fns;
	uint64_t map[8][7]; /* id start limit offset file build has_functions */
	size_t n_maps;
	uint64_t time_nanos, duration, period, period_type[2], default_type;
	uint64_t comments[4];
	size_t n_comments;
};

/* Packed or not, numbers of a repeated field; more than max is bad. */
static inline void rd_repeated(unsigned wire_len, uint64_t v, struct rd *sub, uint64_t *out,
			       size_t *n, size_t max)
{
	if (!wire_len) {
		if (*n < max)
			out[(*n)++] = v;
		else
			sub->bad = true;
		return;
	}
	while (sub->p < sub->end && !sub->bad && *n < max)
		out[(*n)++] = rd_varint(sub);
	if (sub->p < sub->end)
		sub->bad = true;
}

/* A table's next slot, or none (bad) when it is full. */
#define PPROF_SLOT(n, max, bad) ((n) < (max) ? (n)++ : ((bad) = true, (size_t)0))

/* Decodes the uncompressed Profile message.  0, or -1 when it is not one
 * we wrote (another wire type, an unknown field) or does not fit. */
static inline int pprof_decode(const uint8_t *buf, size_t len, struct decoded *d)
{
	memset(d, 0, sizeof(*d));
	struct rd r = { .p = buf, .end = buf + len }, sub = { 0 }, s2 = { 0 }, s3;
	unsigned field, f2, f3;
	uint64_t v = 0, v2 = 0, v3 = 0;
	bool bad = false;
	while (!bad && (sub = (struct rd){ 0 }, rd_field(&r, &field, &v, &sub))) {
		switch (field) {
		case 1: { /* sample_type */
			uint64_t *t = d->types[PPROF_SLOT(d->n_types, 4, bad)];
			while (rd_field(&sub, &f2, &v2, &s2))
				if (f2 == 1 || f2 == 2)
					t[f2 - 1] = v2;
			break;
		}
		case 2: { /* sample */
			struct psample *s = &d->samples[PPROF_SLOT(d->n_samples, PPROF_READ_MAX, bad)];
			while ((s2 = (struct rd){ 0 }, rd_field(&sub, &f2, &v2, &s2))) {
				if (f2 == 1) {
					rd_repeated(1, 0, &s2, s->loc, &s->n_loc, PPROF_READ_DEPTH);
				} else if (f2 == 2) {
					uint64_t vals[4];
					size_t nv = 0;
					rd_repeated(1, 0, &s2, vals, &nv, 4);
					for (size_t i = 0; i < nv && s->n_values < 4; i++)
						s->values[s->n_values++] = (int64_t)vals[i];
				} else if (f2 == 3) {
					struct label *l = &s->labels[PPROF_SLOT(s->n_labels, 8, bad)];
					while (rd_field(&s2, &f3, &v3, &s3))
						if (f3 == 1) l->key = v3;
						else if (f3 == 2) l->str = v3;
						else if (f3 == 3) l->num = v3;
				}
				bad = bad || s2.bad;
			}
			break;
		}
		case 3: { /* mapping */
			uint64_t *m = d->map[PPROF_SLOT(d->n_maps, 8, bad)];
			while (rd_field(&sub, &f2, &v2, &s2))
				if (f2 >= 1 && f2 <= 7)
					m[f2 - 1] = v2;
			break;
		}
		case 4: { /* location */
			size_t i = PPROF_SLOT(d->n_locs, PPROF_READ_MAX, bad);
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
			size_t i = PPROF_SLOT(d->n_fns, PPROF_READ_MAX, bad);
			while (rd_field(&sub, &f2, &v2, &s2))
				if (f2 == 1) d->fn_id[i] = v2;
				else if (f2 == 2) d->fn_name[i] = v2;
				else if (f2 == 3) d->fn_sys[i] = v2;
			break;
		}
		case 6: /* string_table */
			if (d->n_strings < PPROF_READ_MAX * 2)
				d->strings[d->n_strings++] = strndup((const char *)sub.p,
								     (size_t)(sub.end - sub.p));
			else
				bad = true;
			break;
		case 9: d->time_nanos = v; break;
		case 10: d->duration = v; break;
		case 11:
			while (rd_field(&sub, &f2, &v2, &s2))
				if (f2 == 1 || f2 == 2)
					d->period_type[f2 - 1] = v2;
			break;
		case 12: d->period = v; break;
		case 13: d->comments[PPROF_SLOT(d->n_comments, 4, bad)] = v; break;
		case 14: d->default_type = v; break;
		default: bad = true; /* a field we never write */
		}
		bad = bad || sub.bad;
	}
	return bad || r.bad ? -1 : 0;
}

static inline void pprof_decoded_free(struct decoded *d)
{
	for (size_t i = 0; i < d->n_strings; i++)
		free(d->strings[i]);
	d->n_strings = 0;
}

/* String i of the table, NULL when there is none. */
static inline const char *pprof_str(const struct decoded *d, uint64_t i)
{
	return i < d->n_strings ? d->strings[i] : NULL;
}

/* The name of a location's function, NULL when there is none. */
static inline const char *pprof_loc_name(const struct decoded *d, uint64_t id)
{
	for (size_t i = 0; i < d->n_locs; i++)
		if (d->loc_id[i] == id)
			for (size_t k = 0; k < d->n_fns; k++)
				if (d->fn_id[k] == d->loc_fn[i])
					return pprof_str(d, d->fn_name[k]);
	return NULL;
}

/* One gzip member, nothing after it, inflated into *out (malloc'd, *n
 * bytes).  0, or -1. */
static inline int pprof_gunzip(const void *gz, size_t len, uint8_t **out, size_t *n)
{
	size_t cap = 1 << 20;
	uint8_t *raw = malloc(cap);
	z_stream z = { 0 };
	if (!raw || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(raw);
		return -1;
	}
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	int rc = Z_OK;
	do {
		if (z.total_out == cap) {
			uint8_t *grown = realloc(raw, cap * 2);
			if (!grown)
				break;
			raw = grown;
			cap *= 2;
		}
		z.next_out = raw + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		rc = inflate(&z, Z_NO_FLUSH);
	} while (rc == Z_OK);
	size_t total = z.total_out;
	bool whole = rc == Z_STREAM_END && z.avail_in == 0;
	inflateEnd(&z);
	if (!whole) {
		free(raw);
		return -1;
	}
	*out = raw;
	*n = total;
	return 0;
}

#endif
