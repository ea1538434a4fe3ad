/* top_layout.c - --top's screen as lines of text (top_layout.h). */
#include "cli/top_layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MIN_FUNCTIONS 5 /* the tables shrink before the functions get fewer */
#define TABLE_ROWS 5    /* a table's lines while the functions have room */
#define FUNCTION_COLUMNS 36 /* "%Own %Total OwnTime TotalTime  " */
#define TABLE_COLUMNS 18    /* "Share Time  " */

size_t top_fit_name(const char *name, size_t width, char *out, size_t outsz)
{
	if (width >= outsz)
		width = outsz - 1;
	size_t len = strlen(name), n = 0;
	if (len <= width) {
		memcpy(out, name, len);
		n = len;
	} else if (width < 6) { /* no room for both ends */
		memcpy(out, name, width);
		n = width;
	} else {
		size_t head = (width - 2) / 2, tail = width - 2 - head;
		memcpy(out, name, head);
		memcpy(out + head, "..", 2);
		memcpy(out + head + 2, name + len - tail, tail);
		n = width;
	}
	out[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
			out[i] = '?';
	return n;
}

const char *top_seconds(double s, char *out, size_t outsz)
{
	snprintf(out, outsz, s < 9.995 ? "%.2fs" : s < 999.95 ? "%.1fs" : s < 1e8 ? "%.0fs" : ">1e8s", s);
	return out;
}

/* The lines made so far. */
struct screen {
	struct top_line *out;
	size_t n, rows;
	size_t cols;
};

__attribute__((format(printf, 3, 4)))
static void put(struct screen *sc, enum top_attr attr, const char *fmt, ...)
{
	if (sc->n >= sc->rows)
		return;
	struct top_line *l = &sc->out[sc->n++];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->text, sizeof(l->text), fmt, ap);
	va_end(ap);
	size_t width = sc->cols < sizeof(l->text) ? sc->cols : sizeof(l->text) - 1;
	size_t len = strlen(l->text);
	if (len > width)
		l->text[len = width] = '\0';
	if (attr == TOP_BAR) { /* the bar across the screen */
		memset(l->text + len, ' ', width - len);
		l->text[width] = '\0';
	}
	l->attr = attr;
}

/* Room left for a name after cols used by the columns. */
static size_t name_width(const struct screen *sc, size_t used)
{
	return sc->cols > used + 1 ? sc->cols - used : 1;
}

static const char *span_words(enum top_span span)
{
	return span == TOP_WINDOW ? "last window" : "since start";
}

static void header(struct screen *sc, const struct top_model *m, const struct top_view *v)
{
	const struct top_figures *f = top_model_figures(m, v->span);
	const char *paused = top_model_paused(m) ? "PAUSED" : "";
	size_t right = strlen(paused) ? strlen(paused) + 1 : 0;
	char target[256];
	if (f->processes > 1)
		snprintf(target, sizeof(target), "ptrace_profiler --top: %zu processes", f->processes);
	else
		snprintf(target, sizeof(target), "ptrace_profiler --top: %s", v->target);
	size_t left = sc->cols > right ? sc->cols - right : 0;
	if (right) /* at the right edge */
		put(sc, TOP_BOLD, "%-*.*s %s", (int)left, (int)left, target, paused);
	else
		put(sc, TOP_BOLD, "%s", target);
	double secs = (double)f->duration_ns / 1e9;
	if (!f->windows)
		put(sc, TOP_PLAIN, "waiting for the first window (1 s)");
	else if (v->span == TOP_WINDOW)
		put(sc, TOP_PLAIN, "window %u: the last %.2f s", top_model_figures(m, TOP_SINCE_START)->windows,
		    secs);
	else
		put(sc, TOP_PLAIN, "since the start: %.1f s in %u window%s", secs, f->windows,
		    f->windows == 1 ? "" : "s");
	if (!f->windows || !f->duration_ns) {
		put(sc, TOP_PLAIN, "%s", "");
		return;
	}
	/* The rate: ticks sampled per second (they come at random, so a 1 s
	 * window at 100/s varies by some 10 %).  Stops of different threads
	 * add up: per thread, as the summary says. */
	double threads = f->ticks ? (double)f->samples / (double)f->ticks : 1;
	double ns = (double)f->duration_ns;
	double rate = (double)f->ticks * 1e9 / ns, asked = 1e9 / (double)v->interval_ns;
	put(sc, TOP_PLAIN, "rate %.*f/s of %.*f/s; target stopped %.3g ms/s, %.2f%% of each thread's time",
	    rate < 100 ? 1 : 0, rate, asked < 100 ? 1 : 0, asked,
	    (double)f->stopped_ns / 1e6 / (ns / 1e9),
	    threads > 0 ? 100.0 * (double)f->stopped_ns / (ns * threads) : 0);
}

static void functions(struct screen *sc, const struct top_model *m, const struct top_view *v,
		      size_t lines)
{
	put(sc, TOP_BAR, "%7s %7s %8s %9s  Function (by %s, %s%s)", "%Own", "%Total", "OwnTime",
	    "TotalTime", v->sort == TOP_BY_OWN ? "own" : "total", span_words(v->span),
	    v->frames == TOP_KERNEL ? ", kernel too" : "");
	struct top_row rows[256];
	if (lines > sizeof(rows) / sizeof(rows[0]))
		lines = sizeof(rows) / sizeof(rows[0]);
	size_t n = top_model_functions(m, v->span, v->sort, v->frames, rows, lines);
	for (size_t i = 0; i < n; i++) {
		char name[TOP_LINE_MAX], own[16], total[16];
		top_fit_name(rows[i].name, name_width(sc, FUNCTION_COLUMNS), name, sizeof(name));
		put(sc, TOP_PLAIN, "%6.1f%% %6.1f%% %8s %9s  %s", 100 * rows[i].own_share,
		    100 * rows[i].total_share, top_seconds(rows[i].own_s, own, sizeof(own)),
		    top_seconds(rows[i].total_s, total, sizeof(total)), name);
	}
}

static const char *const table_titles[TOP_KINDS] = {
	[TOP_STATE] = "Thread state", [TOP_WAIT] = "Wait event", [TOP_QUERY] = "Query",
};

static void table(struct screen *sc, const struct top_model *m, const struct top_view *v,
		  enum top_kind kind, size_t lines)
{
	put(sc, TOP_BAR, "%7s %8s  %s (%s)", "Share", "Time", table_titles[kind], span_words(v->span));
	struct top_row rows[64];
	if (lines > sizeof(rows) / sizeof(rows[0]))
		lines = sizeof(rows) / sizeof(rows[0]);
	size_t n = top_model_table(m, kind, v->span, rows, lines);
	for (size_t i = 0; i < n; i++) {
		char name[TOP_LINE_MAX], time[16];
		top_fit_name(rows[i].name, name_width(sc, TABLE_COLUMNS), name, sizeof(name));
		put(sc, TOP_PLAIN, "%6.1f%% %8s  %s", 100 * rows[i].total_share,
		    top_seconds(rows[i].total_s, time, sizeof(time)), name);
	}
}

/* Lines for each table (0: not shown) and the functions, within avail
 * lines: every table its length up to TABLE_ROWS, shrunk (the longest
 * first, then dropped from the last) while the functions would get fewer
 * than MIN_FUNCTIONS; what is left over goes to the functions, then back
 * to the tables. */
static size_t budget(size_t avail, size_t n_functions, const size_t want[TOP_KINDS],
		     size_t lines[TOP_KINDS])
{
	size_t used = 1; /* the functions' bar */
	for (int k = TOP_STATE; k < TOP_KINDS; k++) {
		lines[k] = want[k] < TABLE_ROWS ? want[k] : TABLE_ROWS;
		used += lines[k] ? 1 + lines[k] : 0;
	}
	size_t fmin = n_functions < MIN_FUNCTIONS ? n_functions : MIN_FUNCTIONS;
	for (;;) {
		if (used + fmin <= avail)
			break;
		int longest = 0;
		for (int k = TOP_STATE; k < TOP_KINDS; k++)
			if (lines[k] > 1 && (!longest || lines[k] > lines[longest]))
				longest = k;
		int last = 0;
		for (int k = TOP_STATE; k < TOP_KINDS; k++)
			if (lines[k])
				last = k;
		if (longest) {
			lines[longest]--;
			used--;
		} else if (last) {
			used -= 1 + lines[last];
			lines[last] = 0;
		} else {
			break;
		}
	}
	size_t fn = avail > used ? avail - used : 0;
	if (fn > n_functions)
		fn = n_functions;
	size_t spare = avail > used + fn ? avail - used - fn : 0;
	for (int k = TOP_STATE; k < TOP_KINDS && spare; k++) {
		size_t more = lines[k] && want[k] > lines[k] ? want[k] - lines[k] : 0;
		more = more < spare ? more : spare;
		lines[k] += more;
		spare -= more;
	}
	return fn;
}

static void footer(struct screen *sc, const struct top_model *m, const struct top_view *v)
{
	put(sc, TOP_BOLD, "q quit  s sort by %s  w %s  p %s  k %s",
	    v->sort == TOP_BY_OWN ? "total" : "own",
	    v->span == TOP_WINDOW ? "since the start" : "last window",
	    top_model_paused(m) ? "resume" : "pause",
	    v->frames == TOP_USER ? "kernel frames too" : "user frames only");
}

size_t top_layout(const struct top_model *m, const struct top_view *v, int cols, int rows,
		  struct top_line *out)
{
	if (rows <= 0 || cols <= 0)
		return 0;
	struct screen sc = { out, 0, (size_t)rows - (rows > 1), (size_t)cols };
	header(&sc, m, v);
	size_t avail = sc.rows > sc.n ? sc.rows - sc.n : 0;
	if (v->note) {
		put(&sc, TOP_PLAIN, "%s", v->note);
	} else if (avail && top_model_figures(m, v->span)->windows) {
		size_t want[TOP_KINDS] = { 0 }, lines[TOP_KINDS] = { 0 };
		for (int k = TOP_STATE; k < TOP_KINDS; k++)
			want[k] = top_model_count(m, k, v->span, v->frames);
		size_t fn = budget(avail, top_model_count(m, TOP_FUNCTION, v->span, v->frames), want, lines);
		functions(&sc, m, v, fn);
		for (int k = TOP_STATE; k < TOP_KINDS; k++)
			if (lines[k])
				table(&sc, m, v, k, lines[k]);
	}
	while (sc.n < sc.rows)
		put(&sc, TOP_PLAIN, "%s", "");
	if (rows > 1) {
		sc.rows++;
		footer(&sc, m, v);
	}
	return sc.n;
}
