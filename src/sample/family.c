/* family.c - children and execve (family.h). */
#define _GNU_SOURCE
#include "sample/family.h"
#include "sample/capture.h"
#include "sample/owed.h"
#include "sample/retire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* A PostgreSQL server process exports its backend type (pgbackend.h):
 * one pass over its program's .dynsym, which a program that is no server
 * holds few names in.  Then its version (pg_probe) names the type. */
static bool open_backend(struct sampler *s, struct process *p)
{
	struct pg_backend b;
	if (pg_backend_open(p->t->pid, p->program->modules, 0, &b) != 0 || !b.type_addr)
		return false;
	if (!s->o->pg_wait_events && !s->o->pg_queries) {
		/* not asked for: nothing said of it, whatever pg_probe finds */
		char quiet[512];
		pg_probe(p->t->pid, p->program->modules, &p->pg, quiet, sizeof(quiet));
	}
	b.major = p->pg.version_known ? p->pg.version.major : 0;
	p->pgb = b;
	return true;
}

/* A server of a version we have no tables for (pg_probe's msg says which):
 * true the first time the run meets that version, msg then completed with
 * what it lacks; false after, for the next process of the same server. */
static bool unknown_version_first(struct sampler *s, const struct process *p, char *msg,
				  size_t len)
{
	int major = p->pg.version_known ? p->pg.version.major : 0;
	for (unsigned i = 0; i < s->said.n_pg_unknown; i++)
		if (s->said.pg_unknown[i] == major)
			return false;
	if (s->said.n_pg_unknown < sizeof(s->said.pg_unknown) / sizeof(s->said.pg_unknown[0]))
		s->said.pg_unknown[s->said.n_pg_unknown++] = major;
	size_t n = strlen(msg);
	bool events = s->o->pg_wait_events, queries = s->o->pg_queries;
	snprintf(msg + n, len - n, ": %s%sits processes named by their titles%s",
		 events ? "wait events as numbers, " : "", events && !queries ? "and " : "",
		 queries ? ", and no query frames (--pg-queries): where a session keeps its "
			   "statement may have moved" : "");
	return true;
}

enum pg_probe family_probe_pg(struct sampler *s, struct process *p, char *msg, size_t len)
{
	const struct options *o = s->o;
	enum pg_probe r = PG_PROBE_SERVER;
	msg[0] = '\0';
	p->pg = (struct pg_process){ 0 };
	p->title[0] = '\0';
	p->status_round = p->read_round = 0;
	p->status_read = false;
	p->state = PG_STATE_UNKNOWN;
	p->client = false;
	p->query[0] = '\0';
	p->query_entry = -1;
	p->shape_noted = 0;
	p->word_ok = false;
	if (o->pg_wait_events || o->pg_queries) {
		r = pg_probe(p->t->pid, p->program->modules, &p->pg, msg, len);
		/* one seized as it exits (a backend of a client without a
		 * pool ends 35 times a second): counted, not said - 527 of
		 * 590 lines in a minute of pgbench -C */
		if (s->r)
			s->r->family_exiting += r == PG_PROBE_GONE;
		/* out of descriptors: said once, counted in the summary */
		bool again = r == PG_PROBE_NO_ROOM && s->r && s->r->family_no_room++;
		/* a shell the server runs for each WAL file: said once */
		if (r == PG_PROBE_NOT_POSTGRES) {
			again = s->said.not_pg;
			s->said.not_pg = true;
			if (s->r)
				s->r->family_not_pg++;
		}
		if (r == PG_PROBE_SERVER && msg[0])
			again = !unknown_version_first(s, p, msg, len);
		if (msg[0] && r != PG_PROBE_TOO_OLD && !again)
			fprintf(stderr, "ptrace_profiler: %s\n", msg);
	}
	p->pgb_ok = r != PG_PROBE_TOO_OLD && open_backend(s, p);
	if (!p->pgb_ok) /* once: nginx and sshd set theirs as they start */
		process_title_read(p->t->pid, p->title, sizeof(p->title));
	return r;
}

/* After an execve: the old program's modules describe what its stacks
 * ran; they are kept, unchanging, to name them after the run. */
void follow_exec(struct sampler *s, struct process *p)
{
	if (p->t->execs == p->execs_seen)
		return;
	p->execs_seen = p->t->execs;
	struct program *next = program_exec(p->program, p->t->pid);
	if (!next && (errno == ENOENT || errno == ESRCH)) {
		/* It ended as it ran its new program (an archive_command's
		 * /bin/true): its exit is on its way, and a look before it
		 * finds a zombie, no sample.  Counted, not an error. */
		if (s->r)
			s->r->family_exec_gone++;
		return;
	}
	if (!next) { /* (program_exec sets errno) */
		sampler_fail(s, "cannot read the modules of the new program", errno);
		return;
	}
	p->program = next;
	char msg[512];
	if (family_probe_pg(s, p, msg, sizeof(msg)) == PG_PROBE_TOO_OLD)
		fprintf(stderr, "ptrace_profiler: warning: %s: [no PostgreSQL state]\n", msg);
	/* Its other threads are gone; stack bounds and memories are the old
	 * program's. */
	for (size_t k = 0; k < p->t->n_threads; k++) {
		struct sampled_thread *st = sampled_of(s, p, &p->t->threads[k]);
		if (!st)
			continue;
		st->cold.still_ticks = 0; /* the old program's: it ran, to exec */
		st->cold.on = false;
		st->cold.quiet_looks = 0;
		st->peek.stack_low = st->peek.stack_top = 0;
		if (owed_any(st)) /* the old program's ticks: no stack of it will come */
			owed_count(s, p, st, NULL, 0, 1);
		free(st->memory);
		st->memory = NULL;
	}
}

static bool traced(const struct sampler *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_targets; i++)
		if (s->ts[i].pid == pid && !s->ts[i].retired)
			return true;
	for (size_t i = 0; i < s->n_pg_skipped; i++)
		if (s->pg_skipped[i] == pid)
			return true;
	return false;
}

/* A descendant --pg-wait-events cannot follow (a server older than 14):
 * said once, let go, and not seized again. */
static void skip_descendant(struct sampler *s, struct process *p, const char *why)
{
	fprintf(stderr, "ptrace_profiler: %s: not profiled\n", why);
	if (array_reserve((void **)&s->pg_skipped, s->n_pg_skipped + 1, &s->cap_pg_skipped,
			  sizeof(*s->pg_skipped)))
		s->pg_skipped[s->n_pg_skipped++] = p->t->pid;
	program_free(p->program);
	p->program = NULL;
	target_detach(p->t);
	target_free(p->t);
}

bool family_follow(struct sampler *s)
{
	unsigned seized = 0;
	for (size_t i = 0; i < s->n_targets; i++) {
		if (s->ts[i].exited)
			continue;
		pid_t kids[256];
		size_t n = target_children(&s->ts[i], kids, sizeof(kids) / sizeof(kids[0]));
		for (size_t k = 0; k < n; k++) {
			if (traced(s, kids[k]))
				continue;
			if (seized == FAMILY_SEIZE_MAX) {
				s->r->family_deferred++;
				return false;
			}
			/* a slot let go by a process that ended, or a new one */
			size_t at = retire_slot_for_new(s);
			if (at == SIZE_MAX) {
				/* said when it happens, not only at the end: every
				 * window after it is blind to new processes */
				if (!s->r->family_full++)
					fprintf(stderr, "ptrace_profiler: warning: %zu processes followed, "
						"the most one run holds: new ones (%d first) not followed "
						"from now on\n", s->n_targets, (int)kids[k]);
				return true;
			}
			if (!array_reserve((void **)&s->procs, s->n_targets + 1, &s->cap_procs,
					   sizeof(*s->procs)))
				return true;
			struct target *t = &s->ts[at];
			struct target was = *t; /* a slot let go stays so, if not taken */
			*t = (struct target){ 0 };
			char err[256];
			seized++; /* tried: what it cost is spent, taken or not */
			/* One that ended or exec'd a setuid program meanwhile is
			 * simply not followed. */
			if (target_attach(t, kids[k], NULL, 0, err, sizeof(err)) != ATTACH_OK) {
				*t = was;
				continue;
			}
			struct process *p = &s->procs[at];
			*p = (struct process){ .t = t, .execs_seen = t->execs };
			t->on_drop = capture_thread_ended;
			t->drop_arg = s;
			p->program = program_open(t->pid, &s->shared,
						  s->win.table ? s->win.table : s->table,
						  s->timeline);
			if (!p->program) {
				target_detach(t);
				target_free(t);
				*t = was;
				continue;
			}
			char msg[512];
			if (family_probe_pg(s, p, msg, sizeof(msg)) == PG_PROBE_TOO_OLD) {
				skip_descendant(s, p, msg);
				*t = was;
				continue;
			}
			retire_slot_taken(s, at);
			s->r->family_joined++;
		}
	}
	return true;
}
