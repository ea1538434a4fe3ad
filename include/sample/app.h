/* app.h - what a sample says of the application, read from its memory
 * without a stop: its process's words (Oracle's session state, a
 * PostgreSQL process's wait word: snapshot.h reads them with a stack, or
 * alone), the application's state frame made of them, and a PostgreSQL
 * backend's status and statement (pgbackend.h) for --pg-queries and
 * --no-idle, read once a round at most and only when one of its threads
 * has run since.  count.h counts the samples these frames go into.
 */
#ifndef PTRACE_PROFILER_SAMPLE_APP_H
#define PTRACE_PROFILER_SAMPLE_APP_H

#include "sample/records.h"

struct stack_table;
struct timeline;

/* The words a copy of a thread of pg's process reads with its stack, into
 * snap (snapshot.h): Oracle's (o's addresses), or the PostgreSQL
 * process's own wait word when o asks for what it tells; none otherwise.
 * A recording's and --dump's alike. */
void app_words_for(const struct options *o, const struct pg_process *pg, struct snapshot *snap);

/* The same for the sampler s and one of its processes p. */
void app_set_words(struct sampler *s, const struct process *p);

/* The words of p for its thread tid, not stopped: read now, or, when none
 * of p's threads has run since they were last read, that read's - a
 * process writes its own (and a read costs more than the rest of a
 * still thread's look). */
void app_read_words(struct sampler *s, struct process *p, pid_t tid);

/* The application's state frame from the words in s->snap (Oracle's
 * session state, a PostgreSQL process's wait event) into buf; NULL when
 * none was asked for. */
const char *app_state(struct sampler *s, struct process *p, char *buf, size_t len);

/* The same frame into ob (has_app, app): every sample is counted with
 * one, whatever path counts it (a tick counted without it showed no
 * wait event at all in a --pg-wait-events profile). */
void app_state_into(struct sampler *s, struct process *p, struct observation *ob);

/* After the run, or once a window is named (off the tick): the query
 * frames of table t made from a statement's text hash while it was parsed
 * (pgshape.h) become the frame of the server's id for the same text, if
 * the run saw one - the stacks merged, and the timeline tl (NULL: none)
 * renumbered to match.  Nothing without --pg-queries.  0, or -1 when out
 * of memory (t and tl then as they were). */
int app_merge_shapes(struct sampler *s, struct stack_table *t, struct timeline *tl);

#endif
