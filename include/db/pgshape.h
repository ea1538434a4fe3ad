/* pgshape.h - the server's query ids of the statement shapes a run saw,
 * and the frames made before an id was known, renamed after the run.
 *
 * A statement read while the server still parses it has no query id yet
 * (st_query_id is 0 until parse analysis): its frame falls back to the
 * hash of its normalized text, "query=hash:N TEXT" (pgactivity.h), unless a
 * backend of the run already knew the id (pgbackend.h's recent ids,
 * count.c's id_elsewhere).  The first run of a statement in the whole
 * instance has no such luck, and one shape would be two frames.  So the
 * sampler notes, as it reads, which id each normalized text had (one
 * lookup when a backend's shape changes), and after the run - at naming
 * time, off the tick - a frame whose number is the hash of a text seen
 * with an id is renamed "query=ID TEXT": the frame the server's id gives
 * the same text (the same hash, the same normalized text, the same first
 * PG_QUERY_TEXT_MAX bytes).  With compute_query_id off no id is seen and
 * nothing is renamed.
 *
 * Pure (no I/O).
 */
#ifndef PTRACE_PROFILER_PGSHAPE_H
#define PTRACE_PROFILER_PGSHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash_index.h"

struct pg_shape_id {
	uint64_t hash; /* FNV-1a 64 of the normalized text (pgquery.h) */
	int64_t id;    /* the server's st_query_id for it, never 0 */
};

struct pg_shape_ids {
	struct pg_shape_id *e;
	size_t n, cap;
	struct hash_index ix; /* hash -> index in e */
	bool ix_ok;
};

#define PG_SHAPE_IDS_INIT { NULL, 0, 0, { NULL, 0, 0 }, false }
void pg_shape_ids_free(struct pg_shape_ids *m);

/* The normalized text whose hash is hash was seen with the server's id
 * (id 0: nothing to note).  A text seen with several ids (the same
 * statement under another search_path) keeps the first.  0, or -1 when
 * out of memory. */
int pg_shape_ids_note(struct pg_shape_ids *m, uint64_t hash, int64_t id);

/* The id noted for hash, 0 if none. */
int64_t pg_shape_ids_find(const struct pg_shape_ids *m, uint64_t hash);

/* A query frame whose number is the hash of its text, not the server's
 * id: "query=hash:N TEXT" (pgactivity.h's pg_query_frame). */
#define PG_HASH_FRAME_PREFIX "query=hash:"

/* A query frame "query=hash:N TEXT" (or "query=hash:N") whose N, the
 * text's hash, was noted with an id: "query=ID TEXT" into out
 * (sanitized as the frame was: only the number changes).  Returns its
 * length; 0 (out untouched) when frame stays as it is - not a query frame,
 * no id noted for it, or out too small. */
size_t pg_shape_frame(const struct pg_shape_ids *m, const char *frame, char *out, size_t outsz);

#endif
