/* app.c - what a sample says of the application (app.h). */
#define _GNU_SOURCE
#include "sample/app.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "db/oracle.h"
#include "db/pgactivity.h"
#include "profile/timeline.h"

/* Is a PostgreSQL process's wait word read with each capture?  For its
 * frame, for the time model's wait events, for the idle wait. */
static bool pg_words_wanted(const struct options *o)
{
	return o->pg_wait_events || o->pg_queries || o->no_idle;
}

void app_words_for(const struct options *o, const struct pg_process *pg, struct snapshot *snap)
{
	snap->n_words = 0;
	snap->words_ok = 0;
	if (o->ksuseopc_addr) {
		snap->n_words = 2;
		snap->word_addr[0] = o->ksuseopc_addr;
		snap->word_addr[1] = o->ksusetim_addr;
	} else if (pg_words_wanted(o) && pg->server) {
		pg_words(pg, snap);
	}
}

void app_set_words(struct sampler *s, const struct process *p)
{
	app_words_for(s->o, &p->pg, s->snap);
}

/* The run time of p's threads as their last looks read it (round.c),
 * summed: unchanged, none of them has run since.  false when a thread's
 * is not known. */
static bool process_run_ns(const struct sampler *s, const struct process *p, uint64_t *out)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < p->t->n_threads; i++) {
		const struct thread *th = &p->t->threads[i];
		if (th->gone)
			continue;
		const struct sampled_thread *st = th->slot ? sampled_at(s, th->slot - 1) : NULL;
		if (!st || !st->sched_seen)
			return false;
		sum += st->sched_last.run_ns;
	}
	*out = sum;
	return true;
}

void app_read_words(struct sampler *s, struct process *p, pid_t tid)
{
	app_set_words(s, p);
	struct snapshot *sn = s->snap;
	struct words_read *w = &p->words;
	if (!sn->n_words)
		return;
	uint64_t run_ns = 0;
	bool known = process_run_ns(s, p, &run_ns);
	size_t addr_len = (size_t)sn->n_words * sizeof(sn->word_addr[0]);
	if (known && w->valid && w->run_ns == run_ns && w->n == sn->n_words &&
	    memcmp(w->addr, sn->word_addr, addr_len) == 0) {
		memcpy(sn->word, w->word, sizeof(sn->word));
		sn->words_ok = w->ok;
		sn->words_tid = w->tid;
		s->r->words_reused++;
		return;
	}
	snapshot_read_words(tid, sn);
	*w = (struct words_read){ known, run_ns, sn->n_words, sn->words_ok, sn->words_tid, { 0 }, { 0 } };
	memcpy(w->addr, sn->word_addr, sizeof(w->addr));
	memcpy(w->word, sn->word, sizeof(w->word));
}

/* A statement read while it was parsed has no id yet (0): the id another
 * backend of the run learnt for the same normalized text (pgbackend.h's
 * recent ids), so that a backend's first run of a statement is the same
 * frame as everyone's.  0 when none has it. */
static int64_t id_elsewhere(const struct sampler *s, const struct process *self, uint64_t hash)
{
	for (size_t i = 0; i < s->n_targets; i++) {
		const struct process *p = &s->procs[i];
		for (unsigned k = 0; p != self && p->pgb_ok && k < PG_RECENT_IDS; k++)
			if (p->pgb.recent[k].id && p->pgb.recent[k].hash == hash)
				return p->pgb.recent[k].id;
	}
	return 0;
}

struct shape_rename {
	const struct pg_shape_ids *m;
	char frame[PG_QUERY_TEXT_MAX + 48];
};

static const char *shape_renamed(const char *frame, void *arg)
{
	struct shape_rename *r = arg;
	return pg_shape_frame(r->m, frame, r->frame, sizeof(r->frame)) ? r->frame : NULL;
}

int app_merge_shapes(struct sampler *s, struct stack_table *t, struct timeline *tl)
{
	if (!s->o->pg_queries || !s->shapes.n || !t || !stack_table_distinct(t))
		return 0;
	size_t n = stack_table_distinct(t);
	uint32_t *map = malloc(n * sizeof(*map));
	if (!map)
		return -1;
	struct shape_rename r = { .m = &s->shapes };
	long renamed = stack_table_rename(t, shape_renamed, &r, map);
	if (renamed > 0 && tl)
		timeline_renumber(tl, map, n);
	free(map);
	return renamed < 0 ? -1 : 0;
}

/* Its state and statement, read from its memory without a stop (one
 * process_vm_readv); or, when none of its threads has run since the last
 * read, that read's: a backend writes its own status only. */
static void read_status(struct sampler *s, struct process *p)
{
	uint64_t runs = 0;
	bool runs_known = process_run_ns(s, p, &runs);
	if (p->status_read && runs_known && runs == p->status_run_ns) {
		if (p->status_round != s->cur.number) /* the figure is per round */
			s->r->status_reused++;
		p->status_round = s->cur.number;
		return;
	}
	if (p->status_read && p->read_round == s->cur.number)
		return; /* once per round (another thread of it ran meanwhile) */
	struct pg_activity a;
	uint64_t t0 = now_ns();
	enum pg_read r = pg_backend_read(&p->pgb, &a);
	s->r->status_ns += now_ns() - t0;
	s->r->status_reads++;
	p->status_round = p->read_round = s->cur.number;
	p->status_read = runs_known;
	p->status_run_ns = runs;
	/* caught writing each time: its last settled reading, if any */
	bool ok = r == PG_READ_OK || (r == PG_READ_UNSETTLED && p->pgb.have_activity);
	p->state = ok ? a.state : PG_STATE_UNKNOWN;
	char query[sizeof(p->query)] = "";
	if (ok && a.query_id)
		s->r->query_ids = true;
	else if (ok && a.state == PG_STATE_ACTIVE && s->r->query_ids) /* ids on: being parsed */
		a.query_id = id_elsewhere(s, p, a.text_hash);
	if (ok && a.query_id && s->o->pg_queries && a.text_hash != p->shape_noted) {
		/* for the frames of the same text made before its id was known,
		 * renamed after the run (app_merge_shapes); out of memory, they
		 * stay as they are */
		pg_shape_ids_note(&s->shapes, a.text_hash, a.query_id);
		p->shape_noted = a.text_hash;
	}
	if (ok && s->o->pg_queries)
		pg_query_frame(&a, query, sizeof(query));
	if (strcmp(query, p->query) != 0) {
		memcpy(p->query, query, sizeof(query));
		p->query_entry = -1;
	}
}

/* At each observation of p (after any stop of it, never during one: a
 * backend held stopped inside a write of its status would read as
 * unsettled): its type and, for --pg-queries and --no-idle, its status -
 * read once per round at most, and only when one of its threads has run
 * since the last read. */
static void note_process(struct sampler *s, struct process *p)
{
	if (!p->pgb_ok)
		return;
	bool typed = pg_backend_type(&p->pgb) != NULL;
	p->client = typed && pg_backend_type_client(p->pgb.major, p->pgb.type);
	/* the auxiliary processes have no state to read (our stops make
	 * them run: what they did since would not tell) */
	if ((s->o->pg_queries || s->o->no_idle) && typed &&
	    pg_backend_type_reports(p->pgb.major, p->pgb.type))
		read_status(s, p);
}

/* Were the words in sn (if any) read from p's memory, through any of
 * its threads? */
static bool words_of(const struct snapshot *sn, const struct process *p)
{
	if (snapshot_words_through(sn, p->t->pid))
		return true;
	for (size_t i = 0; i < p->t->n_threads; i++)
		if (snapshot_words_through(sn, p->t->threads[i].tid))
			return true;
	return false;
}

const char *app_state(struct sampler *s, struct process *p, char *buf, size_t len)
{
	note_process(s, p);
	/* Never another process's words (they sit at the same addresses in
	 * every process of an instance): none, if that is what s->snap has
	 * (a capture of another process's between p's read and now). */
	bool foreign = !words_of(s->snap, p);
	if (foreign) {
		s->r->words_foreign++;
		s->snap->words_ok = 0;
	}
	if (pg_words_wanted(s->o)) {
		p->word_ok = !foreign && p->pg.server && s->snap->n_words &&
			     pg_word(&p->pg, p->t->pid, s->snap, &p->word) == 0;
		p->word_fresh = true;
	}
	if (s->o->pg_wait_events)
		return pg_state_frame(&p->pg, p->word_ok, p->word, buf, len);
	if (!s->o->ksuseopc_addr)
		return NULL;
	return oracle_words_frame(s->snap->words_ok, s->snap->word[0], (int32_t)s->snap->word[1],
				  s->names, buf, len);
}

void app_state_into(struct sampler *s, struct process *p, struct observation *ob)
{
	char app[APP_STATE_MAX];
	const char *a = app_state(s, p, app, sizeof(app));
	ob->has_app = a != NULL;
	if (a)
		snprintf(ob->app, sizeof(ob->app), "%s", a);
}
