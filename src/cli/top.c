/* top.c - --top: a recording whose 1 s windows go to the screen instead of
 * files (modes.h).
 *
 * Two threads.  The main one is the session's and the sampler's: the
 * tracer must be the thread that seized the targets.  The screen's thread
 * (nice 19, taking no signal) owns the terminal, since ncurses is not
 * thread-safe: it takes each window from the queue (continuous_next),
 * counts it into the model (top_model.h), lays the screen out
 * (top_layout.h), draws it and reads the keys (top_screen.h).  q closes
 * the screen at once and sends SIGINT to the main thread: the run ends as
 * on Ctrl-C - the targets detached, the last window named, and the
 * summary on stderr once the terminal is as it was.  While the screen is
 * up, what the run says on stderr is kept and written after it.
 */
#define _GNU_SOURCE
#include "cli/modes.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/priority.h"
#include "cli/session.h"
#include "cli/summary.h"
#include "cli/top_layout.h"
#include "cli/top_model.h"
#include "cli/top_screen.h"
#include "continuous/continuous.h"
#include "profile/aggregate.h"
#include "sample/sampler.h"

#define KEY_WAIT_MS 50   /* a key, or a window, is seen within this */
#define MAX_ROWS 256     /* a taller terminal shows this many */

/* What the screen's thread shares with the main one. */
struct top_run {
	const struct options *o;
	struct continuous *cont;
	pthread_t main_thread, thread;
	bool started;      /* the screen's thread */
	bool no_screen;    /* it could not draw: the run ended at once */
	char target[128];  /* as attached: "split (PID 4242)", "3 processes" */
	char error[256];   /* why there was no screen, or no model */
};

static void count_window(struct top_model *m, const struct window *w, struct top_run *t)
{
	struct top_window_info info = {
		.duration_ns = w->end_unix_ns > w->start_unix_ns ? w->end_unix_ns - w->start_unix_ns : 0,
		.ticks = w->ticks, .stopped_ns = w->stopped_ns,
	};
	if (top_model_add_window(m, w->stacks, &info) != 0 && !t->error[0])
		snprintf(t->error, sizeof(t->error), "out of memory counting a window: the screen left out some of it");
}

/* What a key changes in the view; true when it asks to quit. */
static bool on_key(int key, struct top_view *v, struct top_model *m)
{
	switch (key) {
	case 'q': case 'Q': case TOP_KEY_CTRL_C: case TOP_KEY_CTRL_BACKSLASH:
		return true;
	case 's': case 'S':
		v->sort = v->sort == TOP_BY_OWN ? TOP_BY_TOTAL : TOP_BY_OWN;
		break;
	case 'w': case 'W':
		v->span = v->span == TOP_WINDOW ? TOP_SINCE_START : TOP_WINDOW;
		break;
	case 'p': case 'P': case ' ':
		top_model_pause(m, !top_model_paused(m));
		break;
	case 'k': case 'K':
		v->frames = v->frames == TOP_USER ? TOP_KERNEL : TOP_USER;
		break;
	}
	return false;
}

static void draw(struct top_screen *scr, const struct top_model *m, const struct top_view *v,
		 struct top_line *lines)
{
	int cols, rows;
	top_screen_size(scr, &cols, &rows);
	size_t n = top_layout(m, v, cols, rows < MAX_ROWS ? rows : MAX_ROWS, lines);
	top_screen_draw(scr, lines, n);
}

/* The screen's thread: windows in, keys, the screen redrawn when either
 * changed it (or the terminal's size did), until the queue ends. */
static void *screen_thread(void *arg)
{
	struct top_run *t = arg;
	struct top_model *m = top_model_new();
	struct top_line *lines = calloc(MAX_ROWS, sizeof(*lines));
	struct top_screen *scr = NULL;
	if (!m || !lines)
		snprintf(t->error, sizeof(t->error), "out of memory");
	else
		scr = top_screen_open(t->error, sizeof(t->error));
	if (!scr) {
		t->no_screen = true;
		pthread_kill(t->main_thread, SIGINT); /* nothing to show: the run ends */
	}
	struct top_view v = { TOP_WINDOW, TOP_BY_OWN, TOP_USER, t->o->interval_ns, t->target, NULL };
	bool ended = false, dirty = true;
	int cols = 0, rows = 0;
	while (!ended) {
		if (scr && dirty)
			draw(scr, m, &v, lines);
		dirty = false;
		int key = scr ? top_screen_key(scr, KEY_WAIT_MS) : -1;
		if (key >= 0 && on_key(key, &v, m)) {
			top_screen_close(scr); /* at once: the summary follows */
			scr = NULL;
			pthread_kill(t->main_thread, SIGINT);
		}
		dirty |= key >= 0;
		/* With the screen up, a look; without, wait for the end. */
		struct window *w;
		while ((w = continuous_next(t->cont, scr ? 1 : 0, &ended))) {
			if (m)
				count_window(m, w, t);
			window_free(w);
			dirty = true;
		}
		int c = cols, r = rows;
		if (scr)
			top_screen_size(scr, &cols, &rows);
		dirty |= c != cols || r != rows;
	}
	top_screen_close(scr);
	top_model_free(m);
	free(lines);
	return NULL;
}

/* While the screen is up, stderr - when it is the same terminal - goes to
 * a memory file, written out after the screen is closed: a warning, or a
 * process that exited, would be drawn over it. */
struct kept_stderr {
	int saved, file;
};

static void keep_stderr(struct kept_stderr *k)
{
	k->saved = k->file = -1;
	if (!isatty(STDERR_FILENO))
		return;
	k->saved = dup(STDERR_FILENO);
	k->file = memfd_create("ptrace_profiler-stderr", MFD_CLOEXEC);
	if (k->saved < 0 || k->file < 0 || dup2(k->file, STDERR_FILENO) < 0) {
		if (k->saved >= 0)
			close(k->saved);
		if (k->file >= 0)
			close(k->file);
		k->saved = k->file = -1;
	}
}

static void write_kept_stderr(struct kept_stderr *k)
{
	if (k->saved < 0)
		return;
	dup2(k->saved, STDERR_FILENO);
	close(k->saved);
	char buf[4096];
	ssize_t len;
	off_t at = 0;
	while ((len = pread(k->file, buf, sizeof(buf), at)) > 0) {
		if (write(STDERR_FILENO, buf, (size_t)len) != len)
			break;
		at += len;
	}
	close(k->file);
}

/* The sampler and the screen's thread, then sampling until q, a signal,
 * -n/-t or the targets' exit.  Returns sampler_run's status, or -1. */
static int watch(struct session *s, struct sampler *sampler, struct top_run *t,
		 struct sampler_result *r)
{
	char err[sizeof(r->error)];
	if (!(t->cont = continuous_start_queue(s->o, err, sizeof(err)))) {
		snprintf(r->error, sizeof(r->error), "%s", err);
		return -1;
	}
	sampler_continuous(sampler, t->cont, s->dump);
	t->main_thread = pthread_self();
	snprintf(t->target, sizeof(t->target), "%s", session_target_line(s));
	int e = priority_start_background(&t->thread, screen_thread, t);
	if (e != 0) {
		snprintf(r->error, sizeof(r->error), "cannot start the screen's thread: %s", strerror(e));
		return -1;
	}
	t->started = true;
	return sampler_run(sampler, s->quit, r);
}

int mode_top(const struct options *given, const char *command)
{
	char err[256];
	if (top_terminal_check(err, sizeof(err)) != 0) {
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		return 2;
	}
	static struct options o; /* the sampler keeps a pointer */
	o = *given;
	o.period_ns = TOP_WINDOW_NS; /* a window a second, to the screen */
	struct session s;
	int status = session_start(&s, &o, command);
	if (status != 0)
		return status;
	static struct sampler_result r; /* large: the histograms */
	static struct top_run t;
	struct stack_table *table = stack_table_new();
	struct sampler *sampler = table ? sampler_new(&o, s.ts, &s.n, MAX_TARGETS, s.names, table,
						      s.out) : NULL;
	t.o = &o;
	struct kept_stderr kept;
	keep_stderr(&kept);
	int rc = sampler ? watch(&s, sampler, &t, &r) : -1;
	session_detach(&s);
	struct namer *namer = sampler ? sampler_namer(sampler) : NULL;
	session_naming(&s, namer, true);
	if (rc == 0 && sampler_name_stacks(sampler, &r) != 0) /* the last window, to the screen */
		rc = -1;
	session_naming(&s, namer, false);
	continuous_stop(t.cont); /* the screen's thread ends once it has every window */
	if (t.started)
		pthread_join(t.thread, NULL);
	write_kept_stderr(&kept);
	if (t.error[0])
		fprintf(stderr, "ptrace_profiler: %s\n", t.error);
	if (t.no_screen)
		rc = -1;
	if (!sampler && !r.error[0])
		snprintf(r.error, sizeof(r.error), "cannot start sampling");
	if (r.error[0]) {
		fprintf(stderr, "ptrace_profiler: %s\n", r.error);
		rc = -1;
	}
	for (size_t i = 0; i < s.n && !o.subprocesses; i++)
		if (s.exited[i])
			fprintf(stderr, "ptrace_profiler: process %d exited\n", (int)s.ts[i].pid);
	r.peak_rss_kb = summary_peak_rss_kb();
	summary_print(stderr, &o, s.ts, s.n, sampler, &r);
	continuous_free(t.cont);
	sampler_free(sampler);
	stack_table_free(table);
	return session_end(&s, rc);
}
