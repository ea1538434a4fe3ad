/* continuous.c - the writer thread: windows to files, stdout and the push
 * queue (continuous.h). */
#define _GNU_SOURCE
#include "continuous/continuous.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bqueue.h"
#include "base/descriptors.h"
#include "output/output.h"
#include "output/output_file.h"
#include "base/priority.h"
#include "continuous/push.h"
#include "output/pyroscope.h"
#include "continuous/window.h"

#define WRITER_QUEUE 64 /* windows waiting for the writer */

struct continuous {
	const struct options *o;
	char *command, *target;
	struct bqueue *queue;
	pthread_t thread;
	bool started;
	struct pusher *pusher;
	/* counts, read after the writer is joined */
	unsigned writes;          /* profiles written to the output */
	uint64_t windows, dumps, write_errors;
	uint64_t not_queued;      /* windows with no folded text for the push */
	uint64_t naming_ns_total, naming_ns_max, naming_skipped;
	uint64_t last_until;      /* the last window's until (s), window_seconds */
	char last_error[160];
};

void window_free(struct window *w)
{
	if (!w)
		return;
	stack_table_free(w->stacks);
	timeline_free(w->timeline);
	timeline_view_free(w->view);
	thread_list_clear(&w->threads);
	free(w);
}

static void free_window(void *w)
{
	window_free(w);
}

/* The samples' times from the window's start (the records count from the
 * run's first tick). */
struct shifted {
	const struct sample_source *inner;
	uint64_t shift;
	struct sample_source source;
};

static int shifted_next(void *arg, struct profile_sample *out)
{
	struct shifted *s = arg;
	int rc = s->inner->next(s->inner->arg, out);
	if (rc == 1)
		out->time_ns = out->time_ns > s->shift ? out->time_ns - s->shift : 0;
	return rc;
}

static int shifted_rewind(void *arg)
{
	struct shifted *s = arg;
	return s->inner->rewind(s->inner->arg);
}

/* Writes w in the output's format to f; 0 or -1 (errno). */
static int write_profile(struct continuous *c, struct window *w, FILE *f)
{
	struct profile p = {
		.stacks = w->stacks,
		.threads = w->threads.v,
		.n_threads = w->threads.n,
		.command = c->command,
		.target = c->target,
		.interval_ns = c->o->interval_ns,
		.start_unix_ns = w->start_unix_ns,
		.duration_ns = w->end_unix_ns > w->start_unix_ns ? w->end_unix_ns - w->start_unix_ns : 0,
		.total_samples = w->samples,
	};
	struct shifted sh;
	const struct sample_source *src = w->timeline ? timeline_source(w->timeline) :
					  w->view ? timeline_view_source(w->view) : NULL;
	if ((w->timeline || w->view) && !src)
		return -1;
	if (src) {
		sh = (struct shifted){ src, w->start_unix_ns - w->run_start_unix_ns,
				       { shifted_next, shifted_rewind, NULL } };
		sh.source.arg = &sh;
		p.samples = &sh.source;
	}
	return output_write(f, c->o->format, &p);
}

/* FILE written through a file beside it renamed over it (output_file.h):
 * a reader sees the old profile or the new one, never half of one.  Out
 * of descriptors (a server of many threads, a file each), the ones kept
 * aside for it are lent (descriptors.h): the window is still written. */
static int write_file(struct continuous *c, struct window *w, const char *path)
{
	struct output_file of;
	int rc = output_file_open(&of, path);
	if (rc != 0 && (errno == EMFILE || errno == ENFILE) && descriptors_lend())
		rc = output_file_open(&of, path);
	if (rc == 0 && write_profile(c, w, of.f) != 0) {
		int e = errno;
		output_file_discard(&of);
		errno = e;
		rc = -1;
	} else if (rc == 0) {
		rc = output_file_commit(&of);
	}
	int e = errno;
	descriptors_keep_spare();
	errno = e;
	return rc;
}

static int write_stdout(struct continuous *c, struct window *w, const char *what)
{
	char sep[160];
	if (c->writes > 0 && window_separator(c->o->format, what, sep, sizeof(sep)))
		fputs(sep, stdout);
	int rc = write_profile(c, w, stdout);
	return rc == 0 && fflush(stdout) == 0 ? 0 : -1;
}

/* The window's folded text for the push queue: malloc'd, or NULL
 * (errno). */
static char *folded_text(const struct window *w, size_t *len)
{
	char *buf = NULL;
	errno = 0;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	int rc = output_folded(f, w->stacks);
	if (fclose(f) != 0 || rc != 0) {
		int e = errno ? errno : ENOMEM; /* memory is all it writes to */
		free(buf);
		errno = e;
		return NULL;
	}
	return buf;
}

static void handle(struct continuous *c, struct window *w)
{
	const struct options *o = c->o;
	char stamp[WINDOW_STAMP_LEN + 1], what[64], where[4200] = "", ebuf[128];
	uint64_t from = 0, until = 0; /* its file's and its push's seconds */
	if (w->kind == WINDOW_DUMP) {
		window_stamp(w->start_unix_ns, stamp);
	} else {
		window_seconds(w->start_unix_ns, w->end_unix_ns, &c->last_until, &from, &until);
		window_stamp_second(from, stamp);
	}
	int rc = 0, write_errno = 0;
	if (w->kind == WINDOW_DUMP) {
		c->dumps++;
		snprintf(what, sizeof(what), "profile so far, written on SIGUSR1 (%u)", w->number);
		if (o->output_path) {
			rc = write_file(c, w, o->output_path);
			snprintf(where, sizeof(where), "%s", o->output_path);
		} else {
			rc = write_stdout(c, w, what);
			snprintf(where, sizeof(where), "stdout");
		}
		write_errno = errno;
		if (rc == 0)
			c->writes++;
		if (rc == 0)
			fprintf(stderr, "ptrace_profiler: SIGUSR1: the profile so far (%" PRIu64 " samples in %" PRIu64
				" rounds since the start) written to %s\n", w->samples, w->rounds, where);
	} else {
		c->windows++;
		c->naming_ns_total += w->naming_ns;
		if (w->naming_ns > c->naming_ns_max)
			c->naming_ns_max = w->naming_ns;
		c->naming_skipped += w->skipped_ticks;
		snprintf(what, sizeof(what), "window %s", stamp);
		if (o->output_path) {
			char path[4096] = "";
			if (window_file_name(o->output_path, from, path, sizeof(path)) < 0) {
				errno = ENAMETOOLONG;
				rc = -1;
			} else {
				rc = write_file(c, w, path);
			}
			snprintf(where, sizeof(where), "written to %s", path);
		} else if (!o->push_url) {
			rc = write_stdout(c, w, what);
			snprintf(where, sizeof(where), "written to stdout");
		}
		if (rc == 0 && (o->output_path || !o->push_url))
			c->writes++;
		write_errno = errno; /* before the push's text is made */
		bool queued = false;
		if (c->pusher) {
			size_t len = 0;
			char *body = folded_text(w, &len);
			queued = body && push_submit(c->pusher, body, len, from * 1000000000ULL,
						     until * 1000000000ULL, w->samples, stamp) == 0;
			if (!queued) {
				c->not_queued++;
				fprintf(stderr, "ptrace_profiler: window %s not queued for push: %s\n", stamp,
					strerror_r(errno, ebuf, sizeof(ebuf)));
			}
		}
		if (rc == 0)
			fprintf(stderr, "ptrace_profiler: window %s from %" PRIu64 " until %" PRIu64 ": %" PRIu64
				" samples in %" PRIu64 " rounds, named in %.1f ms between ticks (%" PRIu64
				" ticks skipped)%s%s%s\n",
				stamp, from, until, w->samples, w->rounds, (double)w->naming_ns / 1e6,
				w->skipped_ticks,
				where[0] ? "; " : "", where, queued ? "; queued for push" : "");
	}
	if (rc != 0) {
		/* strerror_r: this is the writer thread, the sampler's may be in
		 * strerror */
		const char *why = strerror_r(write_errno, ebuf, sizeof(ebuf));
		char limit[48];
		if (write_errno == EMFILE) { /* the limit, not the file, is the news */
			snprintf(limit, sizeof(limit), "out of descriptors (ulimit -n %" PRIu64 ")",
				 descriptors_limit());
			why = limit;
		}
		c->write_errors++;
		snprintf(c->last_error, sizeof(c->last_error), "%s: %s", what, why);
		fprintf(stderr, "ptrace_profiler: cannot write the %s: %s\n", what, why);
	}
}

static void *writer(void *arg)
{
	struct continuous *c = arg;
	struct window *w;
	while ((w = bqueue_pop(c->queue, 0))) {
		handle(c, w);
		window_free(w);
	}
	return NULL;
}

struct continuous *continuous_start(const struct options *o, const char *command,
				    const char *target, const char *app, char *err, size_t errlen)
{
	struct continuous *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->o = o;
	descriptors_keep_spare(); /* for writing windows, whatever the sampler opens */
	c->command = strdup(command);
	c->target = strdup(target);
	c->queue = bqueue_new(WRITER_QUEUE);
	if (!c->command || !c->target || !c->queue) {
		snprintf(err, errlen, "out of memory");
		continuous_free(c);
		return NULL;
	}
	if (o->push_url && !(c->pusher = push_start(o, app, err, errlen))) {
		continuous_free(c);
		return NULL;
	}
	int rc = priority_start_background(&c->thread, writer, c);
	if (rc != 0) {
		snprintf(err, errlen, "cannot start the writer thread: %s", strerror(rc));
		continuous_free(c);
		return NULL;
	}
	c->started = true;
	return c;
}

struct continuous *continuous_start_queue(const struct options *o, char *err, size_t errlen)
{
	struct continuous *c = calloc(1, sizeof(*c));
	if (c) {
		c->o = o;
		c->queue = bqueue_new(WRITER_QUEUE);
	}
	if (!c || !c->queue) {
		snprintf(err, errlen, "out of memory");
		continuous_free(c);
		return NULL;
	}
	return c;
}

struct window *continuous_next(struct continuous *c, uint64_t deadline_ns, bool *ended)
{
	struct window *w = bqueue_pop(c->queue, deadline_ns);
	struct bqueue_counts q = { 0 };
	if (!w)
		bqueue_counts(c->queue, &q);
	*ended = !w && q.closed && q.length == 0;
	return w;
}

void continuous_submit(struct continuous *c, struct window *w)
{
	struct window *old = bqueue_push(c->queue, w);
	if (old) {
		char stamp[WINDOW_STAMP_LEN + 1];
		fprintf(stderr, "ptrace_profiler: window %s dropped: the writer is %d windows behind\n",
			window_stamp(old->start_unix_ns, stamp), WRITER_QUEUE);
		window_free(old);
	}
}

void continuous_stop(struct continuous *c)
{
	if (!c)
		return;
	if (c->queue)
		bqueue_close(c->queue); /* the writer, or continuous_next's caller, ends */
	if (c->started) {
		pthread_join(c->thread, NULL);
		c->started = false;
	}
	push_stop(c->pusher);
}

unsigned continuous_writes(const struct continuous *c)
{
	return c ? c->writes : 0;
}

void continuous_summary(FILE *f, const struct continuous *c)
{
	if (!c)
		return;
	struct bqueue_counts q;
	bqueue_counts(c->queue, &q);
	if (c->windows || c->o->period_ns) {
		char every[32];
		snprintf(every, sizeof(every), "%.3g s", (double)c->o->period_ns / 1e9);
		fprintf(f, "  windows                %" PRIu64 " of %s", c->windows, every);
		if (c->windows)
			fprintf(f, ", named between ticks: %.1f ms mean, %.1f ms max, %" PRIu64
				" ticks skipped", (double)c->naming_ns_total / (double)c->windows / 1e6,
				(double)c->naming_ns_max / 1e6, c->naming_skipped);
		fputc('\n', f);
	}
	if (c->dumps)
		fprintf(f, "  SIGUSR1                %" PRIu64 " times the profile so far written\n", c->dumps);
	if (c->write_errors || q.dropped)
		fprintf(f, "  not written            %" PRIu64 " write errors (last: %s), %" PRIu64
			" windows dropped (the writer behind)\n", c->write_errors,
			c->last_error[0] ? c->last_error : "none", q.dropped);
	if (c->not_queued)
		fprintf(f, "  not queued for push    %" PRIu64 " windows: no memory for their folded text\n",
			c->not_queued);
	if (c->pusher)
		push_summary(f, c->pusher);
}

void continuous_free(struct continuous *c)
{
	if (!c)
		return;
	continuous_stop(c);
	push_free(c->pusher);
	bqueue_free(c->queue, free_window);
	free(c->command);
	free(c->target);
	free(c);
}
