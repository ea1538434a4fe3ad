/* activity_reads.c - the report's reads at every tick (activity_reads.h). */
#define _GNU_SOURCE
#include "sample/activity_reads.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "db/pgactivity.h"
#include "db/pgbackend.h"
#include "db/pgprocs.h"
#include "sample/capture.h"
#include "sample/count.h"
#include "sample/overhead.h"
#include "tracee/target.h"

/* Our thread's CPU time (a system call: two a read tick between rounds,
 * whose wake-up alone is tens of them). */
static uint64_t thread_cpu_ns(void)
{
	struct timespec t;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
		return 0;
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

bool activity_reads_wanted(const struct options *o)
{
	return o->mode == MODE_RECORD && o->format == FORMAT_HTML && o->pg_wait_events &&
	       !o->period_ns;
}

/* The id of the state frame of word in p's version (a cache of 64 by the
 * word: a server has a few dozen words at most in a run). */
static uint32_t event_id(struct reads_state *rs, const struct pg_process *pg, uint32_t word)
{
	struct word_event *e = &rs->events[(word ^ word >> 16 ^ word >> 24) & 63];
	if (e->id != ACTIVITY_NONE && e->table == pg->table && e->word == word)
		return e->id;
	char frame[APP_STATE_MAX];
	pg_state_frame(pg, true, word, frame, sizeof(frame));
	*e = (struct word_event){ pg->table, word, activity_text_id(rs->series, frame) };
	return e->id;
}

/* The frame of a statement id seen before (a cache of 128 by the id):
 * its slot, NULL for no id. */
static struct query_frame *known_query(struct reads_state *rs, const struct pg_activity *a)
{
	if (a->state != PG_STATE_ACTIVE || !a->query_id)
		return NULL;
	return &rs->queries[(uint64_t)a->query_id * 0x9e3779b97f4a7c15ULL >> 57];
}

/* --pg-queries: is p's statement read (a backend of a type that reports
 * one)? */
static bool wants_query(struct sampler *s, struct process *p)
{
	return s->o->pg_queries && p->pgb_ok && pg_backend_type(&p->pgb) &&
	       pg_backend_type_reports(p->pgb.major, p->pgb.type);
}

/* The frame of p's statement as a peek at its status slot found it (r, a
 * and cc: pgbackend.h), as a text id (ACTIVITY_NONE: none, or not read):
 * the frame only when the slot was written since the last read - the
 * id's frame seen before, else from a whole read (the statement's text,
 * normalized: pg_backend_read). */
static uint32_t query_from_peek(struct sampler *s, struct process *p, enum pg_read r,
				const struct pg_activity *peeked, int32_t cc)
{
	struct reads_state *rs = &s->reads;
	if (r != PG_READ_OK)
		return ACTIVITY_NONE;
	if (p->read_cc_known && cc == p->read_cc)
		return p->read_query;
	struct pg_activity a = *peeked;
	struct query_frame *q = known_query(rs, &a);
	uint32_t id = ACTIVITY_NONE;
	if (q && q->query_id == a.query_id) {
		id = q->id;
	} else if (a.state != PG_STATE_ACTIVE || pg_backend_read(&p->pgb, &a) == PG_READ_OK) {
		char frame[PG_QUERY_TEXT_MAX + 48];
		if (pg_query_frame(&a, frame, sizeof(frame)))
			id = activity_text_id(rs->series, frame);
		if (q)
			*q = (struct query_frame){ a.query_id, id };
	} else {
		return ACTIVITY_NONE; /* (its slot, read whole, not settled) */
	}
	p->read_cc_known = true;
	p->read_cc = cc;
	p->read_query = id;
	return id;
}

/* --pg-queries: the frame of p's statement now, its slot peeked at its
 * own way (state, id: 24 bytes), again if caught writing. */
static uint32_t query_id(struct sampler *s, struct process *p)
{
	if (!wants_query(s, p))
		return ACTIVITY_NONE;
	struct pg_activity a;
	int32_t cc = 0;
	enum pg_read r = pg_backend_peek(&p->pgb, &a, &cc);
	if (r == PG_READ_UNSETTLED) /* caught writing: a write is short */
		r = pg_backend_peek(&p->pgb, &a, &cc);
	return query_from_peek(s, p, r, &a, cc);
}

/* --pg-queries: one read of p in the reads' time model (sampler.h's
 * read_time), under its statement's frame (text id query) and in its
 * word.  Out of memory, the model is given up (time_failed). */
static void time_add(struct sampler *s, struct process *p, uint32_t query, uint32_t word)
{
	struct reads_state *rs = &s->reads;
	if (!s->o->pg_queries || query == ACTIVITY_NONE || rs->time_failed)
		return;
	if (query >= rs->n_time_entry) {
		size_t n = (size_t)query + 64;
		long *more = realloc(rs->time_entry, n * sizeof(*more));
		if (!more) {
			rs->time_failed = true;
			return;
		}
		for (size_t i = rs->n_time_entry; i < n; i++)
			more[i] = -1;
		rs->time_entry = more;
		rs->n_time_entry = n;
	}
	long *e = &rs->time_entry[query];
	const char *frame = activity_text(rs->series, query);
	if (*e < 0 && (!frame || (*e = pg_time_entry(&s->r->read_time, frame)) < 0)) {
		rs->time_failed = true;
		return;
	}
	if (pg_time_add(&s->r->read_time, (size_t)*e, 1, word == 0, true, word, p->pg.table) != 0)
		rs->time_failed = true;
}

/* Not read: processes without a PGPROC, whose word is their own
 * variable's, 0 (no wait) while they sleep. */
static bool has_no_pgproc(struct process *p)
{
	const char *type = p->pgb_ok ? pg_backend_type_last(&p->pgb) : NULL;
	return type && (strcmp(type, "postmaster") == 0 || strcmp(type, "logger") == 0 ||
			strcmp(type, "stats collector") == 0);
}

/* p's root frame's id in this bucket: made again in each (its type may
 * have been read since). */
static uint32_t root_id(struct sampler *s, struct process *p, uint32_t bucket)
{
	if (p->read_bucket == bucket + 1)
		return p->read_root;
	char root[COUNT_ROOT_MAX];
	p->read_bucket = bucket + 1;
	p->read_root = !has_no_pgproc(p) && count_process_root(s, p, root, sizeof(root)) ?
			       activity_text_id(s->reads.series, root) : ACTIVITY_NONE;
	return p->read_root;
}

/* Learns where p's PGPROC keeps its pid (pgprocs.h), once for each place
 * of its word, and only for a word outside its binary's image: before it
 * has a PGPROC, the word is a variable of the binary's, beside
 * pointer_addr, whose neighbours (MyProcPid) would agree on an offset
 * that is no PGPROC's.  Two processes agreeing make the instance's. */
static void learn_pid_offset(struct reads_state *rs, struct process *p)
{
	struct pg_process *pg = &p->pg;
	uint64_t far = pg->word_addr > pg->pointer_addr ? pg->word_addr - pg->pointer_addr :
							   pg->pointer_addr - pg->word_addr;
	if (!pg->word_addr || pg->offset_for == pg->word_addr || far < READS_IMAGE_MAX)
		return;
	pg->offset_for = pg->word_addr;
	pg->pid_offset = pg_pid_offset_learn(p->t->pid, pg->word_addr);
	if (!pg->pid_offset || rs->pid_offset)
		return;
	if (rs->pid_seen == pg->pid_offset)
		rs->pid_offset = pg->pid_offset;
	else
		rs->pid_seen = pg->pid_offset;
}

/* p's word its own way (pg_word_read), counted: 1, or 0 (gone). */
static unsigned read_own(struct sampler *s, struct process *p, uint32_t root)
{
	struct reads_state *rs = &s->reads;
	uint32_t word;
	/* (one that cannot be read has exited: not counted) */
	if (pg_word_read(&p->pg, p->t->pid, &word) != 0)
		return 0;
	uint32_t query = query_id(s, p);
	activity_add(rs->series, root, event_id(rs, &p->pg, word), query);
	time_add(s, p, query, word);
	rs->read_own++;
	p->pg.read_through = 0;
	learn_pid_offset(rs, p);
	return 1;
}

/* May p's word be read through another process this tick? */
static bool through(const struct reads_state *rs, const struct process *p)
{
	return rs->pid_offset && p->pg.pid_offset == rs->pid_offset &&
	       p->pg.offset_for == p->pg.word_addr && p->pg.read_through < READS_OWN_EVERY;
}

void activity_read_tick(struct sampler *s, uint64_t now)
{
	struct reads_state *rs = &s->reads;
	if (!rs->series)
		return;
	uint32_t bucket = activity_tick(rs->series, now);
	unsigned read = 0;
	struct pg_proc_read batch[READS_THROUGH_MAX];
	struct pg_peek peek[READS_THROUGH_MAX]; /* --pg-queries: their slots, */
	struct iovec peek_local[READS_THROUGH_MAX][PG_PEEK_IOVS]; /* read in the */
	struct iovec peek_remote[READS_THROUGH_MAX][PG_PEEK_IOVS]; /* same call */
	size_t who[READS_THROUGH_MAX], n = 0;
	for (size_t i = 0; i < s->n_targets; i++) {
		struct process *p = &s->procs[i];
		if (!p->pg.server || !p->t || p->t->n_threads == 0)
			continue;
		uint32_t root = root_id(s, p, bucket);
		if (root == ACTIVITY_NONE)
			continue;
		if (n < READS_THROUGH_MAX && through(rs, p)) {
			batch[n] = (struct pg_proc_read){ .word_addr = p->pg.word_addr,
							  .pid_offset = p->pg.pid_offset,
							  .pid = p->t->pid };
			if (wants_query(s, p) &&
			    pg_backend_peek_iov(&p->pgb, &peek[n], peek_local[n], peek_remote[n])) {
				batch[n].more_local = peek_local[n];
				batch[n].more_remote = peek_remote[n];
				batch[n].n_more = PG_PEEK_IOVS;
			}
			who[n++] = i;
		} else {
			read += read_own(s, p, root);
		}
	}
	if (n) /* through the first of them: any server process would do */
		pg_procs_read(batch[0].pid, batch, n);
	for (size_t k = 0; k < n; k++) {
		struct process *p = &s->procs[who[k]];
		uint32_t root = root_id(s, p, bucket);
		if (!batch[k].ok) { /* its slot another's, or the read failed */
			read += read_own(s, p, root);
			continue;
		}
		uint32_t query = ACTIVITY_NONE;
		struct pg_activity a;
		int32_t cc = 0;
		enum pg_read r = batch[k].more_ok ? pg_backend_peek_done(&p->pgb, &peek[k], &a, &cc) :
						    PG_READ_FAILED;
		if (batch[k].more_ok && r != PG_READ_UNSETTLED)
			query = query_from_peek(s, p, r, &a, cc);
		else /* no slot read with it, or caught writing */
			query = query_id(s, p);
		activity_add(rs->series, root, event_id(rs, &p->pg, batch[k].word), query);
		time_add(s, p, query, batch[k].word);
		rs->read_through++;
		p->pg.read_through++;
		read++;
	}
	rs->procs_read = read;
	uint64_t end = now_ns();
	rs->cpu_ns += end - now; /* (nothing in it sleeps) */
	rs->ticks++;
	/* the next between rounds: an interval from this one */
	rs->due_ns = end + (uint64_t)((double)s->o->interval_ns * rs->scale);
}

/* A trap collected while a read tick waits: the stop's work, not the
 * read's (its CPU is taken out of the tick's). */
static void trap_apart(void *arg, struct target *t, struct thread *th, uint64_t seen_ns)
{
	struct sampler *s = arg;
	uint64_t before = thread_cpu_ns();
	capture_on_trap(arg, t, th, seen_ns);
	s->reads.traps_cpu_ns += thread_cpu_ns() - before;
}

/* Their interval from what the last READS_RESCALE read ticks between
 * rounds cost: within READS_BUDGET_PART of --max-overhead's budget. */
static void rescale(struct sampler *s)
{
	struct reads_state *rs = &s->reads;
	double per = (double)(rs->between_cpu_ns - rs->scaled_cpu_ns) /
		     (double)(rs->between - rs->scaled_between);
	rs->scale = overhead_reads_scale(s->o->max_overhead, s->cpus, per, (double)s->o->interval_ns,
					 READS_BUDGET_PART);
	rs->scaled_between = rs->between;
	rs->scaled_cpu_ns = rs->between_cpu_ns;
}

void activity_reads_between(struct sampler *s, uint64_t next, volatile int *quit)
{
	struct reads_state *rs = &s->reads;
	/* (rounds at the asked rate read at each tick already; and the
	 * rounds of a process or two cost about what its reads would) */
	if (!rs->series || s->own.tick_scale < 1.5 || rs->procs_read < READS_MIN_PROCS)
		return;
	while (rs->due_ns < next && !*quit) {
		uint64_t before = thread_cpu_ns(), in_tick = rs->cpu_ns, traps = rs->traps_cpu_ns;
		targets_wait_until(s->ts, s->n_targets, rs->due_ns, quit, trap_apart, s);
		if (*quit)
			break;
		activity_read_tick(s, now_ns()); /* (sets the next) */
		uint64_t all = thread_cpu_ns() - before, apart = rs->traps_cpu_ns - traps;
		uint64_t spent = all > apart ? all - apart : 0, read = rs->cpu_ns - in_tick;
		rs->cpu_ns += spent > read ? spent - read : 0; /* its wake-up too */
		rs->between++;
		rs->between_cpu_ns += spent;
		if (rs->between - rs->scaled_between >= READS_RESCALE)
			rescale(s);
	}
}
