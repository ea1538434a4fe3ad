/* options.c - command line parsing, from one table of options (getopt_long's
 * tables, the parsers and --help are all made from its rows); see options.h
 * for the rules. */
#define _GNU_SOURCE
#include "options.h"
#include "db/oracle.h"
#include "output/pyroscope.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* (options.h) Digits with at most one '.', and '%' or nothing after them;
 * the share above 0 and at most 100. */
int parse_share(const char *text, double *out)
{
	size_t digits = text ? strspn(text, "0123456789.") : 0;
	if (!digits || (text[digits] && strcmp(text + digits, "%") != 0))
		return -1; /* also rejects "", "-1%", "+1", " 1", "1e2", "0x1" */
	char *end;
	double v = strtod(text, &end);
	if (end == text || (*end == '%' && end[1]) || (*end && *end != '%'))
		return -1;
	if (!(v > 0) || v > 100)
		return -1;
	*out = v / 100;
	return 0;
}

/* Splits "1.5ms" into an exact decimal value times a unit, without floating
 * point: 1.5ms = 15 * 10^5 ns.  Returns -1 on anything but digits, at most
 * one '.', and one of the units (or none: ms). */
int parse_interval(const char *text, uint64_t *ns_out)
{
	if (!text || !isdigit((unsigned char)text[0]))
		return -1; /* also rejects "", "-5ms", "+5", " 5" */
	const char *p = text;
	uint64_t whole = 0, frac = 0, frac_scale = 1;
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -1;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		for (; isdigit((unsigned char)*p); p++) {
			if (frac_scale >= 1000000000ULL)
				return -1; /* finer than 1 ns in any unit */
			frac = frac * 10 + (uint64_t)(*p - '0');
			frac_scale *= 10;
		}
	}
	uint64_t unit;
	if (*p == '\0' || strcmp(p, "ms") == 0)
		unit = 1000000ULL;
	else if (strcmp(p, "ns") == 0)
		unit = 1ULL;
	else if (strcmp(p, "us") == 0)
		unit = 1000ULL;
	else if (strcmp(p, "s") == 0)
		unit = 1000000000ULL;
	else
		return -1;
	if (whole > UINT64_MAX / unit)
		return -1;
	uint64_t ns = whole * unit;
	uint64_t frac_ns = frac * unit / frac_scale; /* frac < frac_scale: no overflow */
	if (frac * unit % frac_scale != 0)
		return -1; /* e.g. "1.5ns": not a whole number of ns */
	if (ns > UINT64_MAX - frac_ns)
		return -1;
	ns += frac_ns;
	if (ns == 0 || ns > (uint64_t)INT64_MAX)
		return -1;
	*ns_out = ns;
	return 0;
}

int parse_count(const char *text, uint64_t *out)
{
	if (!text || !isdigit((unsigned char)text[0]))
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || *end || v == 0 || v > (unsigned long long)INT64_MAX)
		return -1;
	*out = v;
	return 0;
}

int parse_pid(const char *text, pid_t *out)
{
	uint64_t v;
	if (parse_count(text, &v) != 0 || v > 0x7fffffff)
		return -1;
	*out = (pid_t)v;
	return 0;
}

int parse_pid_list(const char *text, pid_t *out, size_t max, const char **bad)
{
	size_t n = 0;
	for (const char *item = text;; ) {
		size_t len = strcspn(item, ",");
		char copy[24];
		pid_t v;
		*bad = item;
		int ok = len < sizeof(copy);
		if (ok) {
			memcpy(copy, item, len);
			copy[len] = '\0';
			ok = parse_pid(copy, &v) == 0;
		}
		for (size_t i = 0; ok && i < n; i++)
			ok = out[i] != v;
		if (!ok)
			return -1;
		if (n == max) {
			*bad = NULL;
			return -1;
		}
		out[n++] = v;
		if (!item[len])
			return (int)n;
		item += len + 1;
	}
}

/* The bad item of a list, for the message: "12" of "5,12x,7". */
static const char *item_text(const char *bad, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(bad, ","), bad);
	return buf;
}

/* --- the table of options ------------------------------------------------
 *
 * One row per option, in the order --help lists them: getopt_long's table,
 * the short options' string, the dispatch and the help text are all made
 * from it, so an option is added in one place. */

struct parsing;
struct option_row;
typedef enum parse_result (*option_parser)(struct parsing *ps, const struct option_row *row,
					   const char *value);

struct option_row {
	const char *name;      /* long name, without "--"; NULL: a help line only */
	char short_name;       /* 'p' for -p; 0: none */
	const char *value;     /* what it takes, as --help names it; NULL: nothing */
	option_parser parse;
	size_t flag;           /* option_flag's bool in struct options */
	const char *label;     /* help only: a heading (no help text) or a left column */
	const char *help;      /* lines after the first are indented under it */
	unsigned modes;        /* the modes it goes with (IN_*); anything else is
				  refused, naming it (mode_rules) */
};

/* Which modes an option goes with: a bit per enum run_mode. */
#define IN_RECORD (1u << MODE_RECORD)
#define IN_DIFF (1u << MODE_DIFF)
#define IN_DUMP (1u << MODE_DUMP)
#define IN_TOP (1u << MODE_TOP)
#define ANY_MODE (IN_RECORD | IN_DIFF | IN_DUMP | IN_TOP)
#define TARGET (IN_RECORD | IN_DUMP | IN_TOP)  /* about a target: not --diff */
#define SAMPLING (IN_RECORD | IN_TOP)          /* about sampling: not --dump either */

/* What parsing remembers beside the options themselves. */
struct parsing {
	struct options *o;
	char *err;
	size_t errlen;
	bool format_given, push_queue_given;
	uint64_t given;              /* the option rows given, a bit each */
	unsigned char order[64];     /* their indexes, in the order first given */
	size_t n_order;
	const char *delay_text;      /* -d's value, as given */
	int argc;              /* the command line, for an option of two values */
	char **argv;
};

__attribute__((format(printf, 2, 3)))
static enum parse_result fail(struct parsing *ps, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
	return PARSE_ERROR;
}

static enum parse_result pid_list(struct parsing *ps, const char *arg, bool pids)
{
	struct options *o = ps->o;
	const char *bad, *what = pids ? "pid" : "tid";
	char item[64];
	int n = pids ? parse_pid_list(arg, o->pids, MAX_PIDS, &bad)
		     : parse_pid_list(arg, o->tids, MAX_TIDS, &bad);
	if (n < 0 && !bad)
		return fail(ps, "too many %ss in '%s' (at most %d)", what, arg,
			    pids ? MAX_PIDS : MAX_TIDS);
	if (n < 0)
		return fail(ps, "invalid %s '%s' in '%s' for %s: expected positive integers, comma-separated, each once",
			    what, item_text(bad, item, sizeof(item)), arg, pids ? "-p" : "--tid");
	*(pids ? &o->n_pids : &o->n_tids) = (size_t)n;
	return PARSE_OK;
}

static enum parse_result option_pid(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row;
	return pid_list(ps, arg, true);
}

static enum parse_result option_tid(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row;
	return pid_list(ps, arg, false);
}

#define TIME_UNITS "expected a positive number with unit ns, us, ms or s"

/* The shortest -d: one round, with a thread that runs, takes 20-45 us
 * here (its stop 7-20 us); below this the rounds come back to back, a
 * whole CPU at SCHED_FIFO, and the target is stopped most of its time
 * (-d 1ns: "8.8e+08 ticks a second achieved", the target lost 88 %). */
#define MIN_INTERVAL_NS 50000ULL

static enum parse_result option_delay(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row;
	if (parse_interval(arg, &ps->o->interval_ns) != 0)
		return fail(ps, "invalid interval '%s' for -d: " TIME_UNITS, arg);
	if (ps->o->interval_ns < MIN_INTERVAL_NS)
		return fail(ps, "invalid interval '%s' for -d: at least 50us (a round takes 20-45 us: "
			    "shorter ones would run back to back and stop the target most of its time)",
			    arg);
	ps->delay_text = arg;
	return PARSE_OK;
}

static enum parse_result option_count(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row;
	if (parse_count(arg, &ps->o->count) != 0)
		return fail(ps, "invalid count '%s' for -n: expected a positive integer", arg);
	return PARSE_OK;
}

static enum parse_result option_duration(struct parsing *ps, const struct option_row *row,
					 const char *arg)
{
	(void)row;
	if (parse_interval(arg, &ps->o->duration_ns) != 0)
		return fail(ps, "invalid duration '%s' for -t: " TIME_UNITS, arg);
	return PARSE_OK;
}

static enum parse_result option_output(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row;
	if (!arg[0])
		return fail(ps, "invalid output file '' for -o");
	ps->o->output_path = arg;
	return PARSE_OK;
}

/* "folded, stap, ... or perf-script": every --format word, from the table. */
static const char *format_words(char *out, size_t outsz)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; format_nth(i) && len < outsz; i++) {
		const char *sep = i == 0 ? "" : format_nth(i + 1) ? ", " : " or ";
		int n = snprintf(out + len, outsz - len, "%s%s", sep, format_nth(i)->name);
		if (n < 0)
			break;
		len += (size_t)n;
	}
	return out;
}

static enum parse_result option_format(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row;
	char words[128];
	if (parse_format(arg, &ps->o->format) != 0)
		return fail(ps, "unknown format '%s' for --format: expected %s", arg,
			    format_words(words, sizeof(words)));
	ps->format_given = true;
	return PARSE_OK;
}

/* --ksuseopc and --ksusetim */
static enum parse_result option_address(struct parsing *ps, const struct option_row *row,
					const char *arg)
{
	bool opc = strcmp(row->name, "ksuseopc") == 0;
	if (parse_address(arg, opc ? &ps->o->ksuseopc_addr : &ps->o->ksusetim_addr) != 0)
		return fail(ps, "invalid address '%s' for --%s: expected a decimal or 0x hex address",
			    arg, row->name);
	return PARSE_OK;
}

static enum parse_result option_event_names(struct parsing *ps, const struct option_row *row,
					    const char *arg)
{
	(void)row;
	if (!arg[0])
		return fail(ps, "invalid file '' for --event-names");
	ps->o->event_names = arg;
	return PARSE_OK;
}

static enum parse_result option_debuginfo_path(struct parsing *ps, const struct option_row *row,
					       const char *arg)
{
	(void)row;
	if (!arg[0])
		return fail(ps, "invalid path '' for --debuginfo-path");
	ps->o->debuginfo_path = arg;
	return PARSE_OK;
}

/* An option that only turns something on: the row says which bool. */
static enum parse_result option_flag(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)arg;
	*(bool *)((char *)ps->o + row->flag) = true;
	return PARSE_OK;
}

static enum parse_result option_group_by(struct parsing *ps, const struct option_row *row,
					 const char *arg)
{
	(void)row;
	static const char *const names[] = { [GROUP_PID] = "pid", [GROUP_TYPE] = "type",
					     [GROUP_ALL] = "all", [GROUP_THREAD] = "thread" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(arg, names[i]) == 0) {
			ps->o->group_by = (enum group_by)i;
			return PARSE_OK;
		}
	return fail(ps, "invalid grouping '%s' for --group-by: expected pid, thread, type or all",
		    arg);
}

static enum parse_result option_period(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row;
	if (parse_interval(arg, &ps->o->period_ns) != 0)
		return fail(ps, "invalid period '%s' for --period: " TIME_UNITS, arg);
	if (ps->o->period_ns < MIN_PERIOD_NS)
		return fail(ps, "invalid period '%s' for --period: at least 1s (windows are named and pushed to the second)", arg);
	return PARSE_OK;
}

static enum parse_result option_push(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row;
	if (pyroscope_check_url(arg, ps->err, ps->errlen) != 0)
		return PARSE_ERROR;
	ps->o->push_url = arg;
	return PARSE_OK;
}

static enum parse_result option_app_name(struct parsing *ps, const struct option_row *row,
					 const char *arg)
{
	(void)row;
	if (!pyroscope_app_name_ok(arg))
		return fail(ps, "invalid application name '%s' for --app-name: expected 1 to %d of A-Z a-z 0-9 _ . - /",
			    arg, PYROSCOPE_NAME_MAX);
	ps->o->app_name = arg;
	return PARSE_OK;
}

static enum parse_result option_label(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row;
	struct options *o = ps->o;
	struct pyroscope_label l;
	if (pyroscope_parse_label(arg, &l, ps->err, ps->errlen) != 0)
		return PARSE_ERROR;
	for (size_t i = 0; i < o->n_labels; i++)
		if (strcmp(o->labels[i].key, l.key) == 0)
			return fail(ps, "label key '%s' given twice for --label ('%s')", l.key, arg);
	if (o->n_labels == PYROSCOPE_LABELS_MAX)
		return fail(ps, "too many labels at '%s' for --label (at most %d)", arg,
			    PYROSCOPE_LABELS_MAX);
	o->labels[o->n_labels++] = l;
	return PARSE_OK;
}

static enum parse_result option_push_queue(struct parsing *ps, const struct option_row *row,
					   const char *arg)
{
	(void)row;
	uint64_t n;
	if (parse_count(arg, &n) != 0 || n > MAX_PUSH_QUEUE)
		return fail(ps, "invalid queue length '%s' for --push-queue: expected an integer from 1 to %d",
			    arg, MAX_PUSH_QUEUE);
	ps->o->push_queue = (size_t)n;
	ps->push_queue_given = true;
	return PARSE_OK;
}

static enum parse_result option_max_overhead(struct parsing *ps, const struct option_row *row,
					     const char *arg)
{
	(void)row;
	if (parse_share(arg, &ps->o->max_overhead) != 0)
		return fail(ps, "invalid share '%s' for --max-overhead: expected a percentage above 0 and at most 100, such as 1%% or 0.5%%",
			    arg);
	return PARSE_OK;
}

/* The option that asks for a mode, for messages. */
static const char *mode_option(enum run_mode m)
{
	switch (m) {
	case MODE_DIFF: return "--diff";
	case MODE_DUMP: return "--dump";
	case MODE_TOP: return "--top";
	case MODE_RECORD: break;
	}
	return "recording";
}

/* One mode at a time: --diff, --dump and --top exclude one another. */
static enum parse_result set_mode(struct parsing *ps, enum run_mode m)
{
	enum run_mode had = ps->o->mode;
	if (had != MODE_RECORD && had != m)
		return fail(ps, "%s and %s do not go together: one mode at a time",
			    mode_option(had < m ? had : m), mode_option(had < m ? m : had));
	ps->o->mode = m;
	return PARSE_OK;
}

/* --diff BEFORE AFTER: getopt gives BEFORE, AFTER is the next word. */
static enum parse_result option_diff(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row;
	if (optind >= ps->argc || !ps->argv[optind])
		return fail(ps, "option '--diff' needs two files: --diff BEFORE AFTER");
	const char *after = ps->argv[optind];
	if (after[0] == '-' && after[1])
		return fail(ps, "option '--diff' needs two files: --diff BEFORE AFTER, not '%s' after '%s'",
			    after, arg);
	if (!arg[0] || !after[0])
		return fail(ps, "invalid file '' for --diff");
	if (set_mode(ps, MODE_DIFF) != PARSE_OK)
		return PARSE_ERROR;
	optind++; /* getopt goes on after AFTER */
	ps->o->diff_before = arg;
	ps->o->diff_after = after;
	return PARSE_OK;
}

static enum parse_result option_dump(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row, (void)arg;
	return set_mode(ps, MODE_DUMP);
}

static enum parse_result option_top(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)row, (void)arg;
	return set_mode(ps, MODE_TOP);
}

static enum parse_result option_help(struct parsing *ps, const struct option_row *row, const char *arg)
{
	(void)ps, (void)row, (void)arg;
	options_print_help();
	return PARSE_EXIT_OK;
}

static enum parse_result option_version(struct parsing *ps, const struct option_row *row,
					const char *arg)
{
	(void)ps, (void)row, (void)arg;
	printf("ptrace_profiler %s\n", PROFILER_VERSION);
	return PARSE_EXIT_OK;
}

#define FLAG(field) option_flag, offsetof(struct options, field)

static const struct option_row option_rows[] = {
	{ .label = "Options:" },
	{ "pid", 'p', "PID[,PID...]", option_pid, 0, NULL,
	  "profile these running processes (all threads)",
	  TARGET },
	{ "tid", 0, "TID[,TID...]", option_tid, 0, NULL,
	  "only these threads (of the processes given with -p)",
	  TARGET },
	{ "subprocesses", 0, NULL, FLAG(subprocesses), NULL,
	  "also every descendant of the processes, present\n"
	  "and future (picked up within 50 ms)",
	  SAMPLING },
	{ "delay", 'd', "INTERVAL", option_delay, 0, NULL,
	  "time between samples: 100us, 1.5ms, 2s, at least\n"
	  "50us; a bare number means milliseconds (default\n"
	  "10ms)",
	  SAMPLING },
	{ "count", 'n', "N", option_count, 0, NULL,
	  "stop after N ticks (a round that runs past the next\n"
	  "tick stands for it too)",
	  SAMPLING },
	{ "duration", 't', "TIME", option_duration, 0, NULL,
	  "stop after TIME (same units as --delay)",
	  SAMPLING },
	{ "max-overhead", 0, "PCT", option_max_overhead, 0, NULL,
	  "keep every target thread stopped at most PCT of its\n"
	  "time, and the profiler's CPU at most PCT of the\n"
	  "machine's (1%, 0.5%): busy threads are stopped at\n"
	  "fewer ticks, ticks come less often",
	  SAMPLING },
	{ "output", 'o', "FILE", option_output, 0, NULL,
	  "write the profile to FILE (default: stdout); a name\n"
	  "ending in .svg, .speedscope.json, .pb.gz or .html\n"
	  "picks that format, any other folded",
	  IN_RECORD | IN_DUMP | IN_DIFF },
	{ "format", 0, "FORMAT", option_format, 0, NULL,
	  "what to write (wins over the name of -o):\n"
	  "  folded       stacks and counts, for flamegraph.pl\n"
	  "               (default)\n"
	  "  svg          interactive flame graph, one file\n"
	  "  speedscope   speedscope.app JSON, a timeline per\n"
	  "               thread\n"
	  "  pprof        gzipped profile.proto, for go tool pprof\n"
	  "  perf-script  perf script text, one block per sample\n"
	  "               (FlameScope, Firefox Profiler)\n"
	  "  html         the report, one file: active threads\n"
	  "               over time by state, event, statement;\n"
	  "               the flame graph of a range dragged on it\n"
	  "  stap         the original Ptrace_Profiler's blocks",
	  IN_RECORD | IN_DIFF },
	{ "ksuseopc", 0, "ADDR", option_address, 0, NULL,
	  "Oracle: address of X$KSUSE.KSUSEOPC (event#) of the\n"
	  "session, decimal or 0x hex (oracle_scripts/)",
	  TARGET },
	{ "ksusetim", 0, "ADDR", option_address, 0, NULL,
	  "Oracle: address of X$KSUSE.KSUSETIM; with --ksuseopc\n"
	  "adds the wait event under the thread name",
	  TARGET },
	{ "event-names", 0, "FILE", option_event_names, 0, NULL,
	  "Oracle: event names (eventsname.sql's sed file,\n"
	  "or N<TAB>NAME lines)",
	  TARGET },
	{ "pg-wait-events", 0, NULL, FLAG(pg_wait_events), NULL,
	  "PostgreSQL 14-18: each process's wait event under\n"
	  "the thread name, as pg_stat_activity names it\n"
	  "(event=IO:WALSync, On CPU); with --subprocesses on\n"
	  "the postmaster, the whole instance",
	  TARGET },
	{ "pg-queries", 0, NULL, FLAG(pg_queries), NULL,
	  "PostgreSQL 14-18: under the root, each backend's\n"
	  "statement as query=ID TEXT (pg_stat_activity's\n"
	  "query_id, the text without its constants; without\n"
	  "an id query=hash:N TEXT), or its\n"
	  "state (idle, idle in transaction); read from its\n"
	  "memory, no stop; the summary gives the top 10",
	  SAMPLING },
	{ "no-idle", 0, NULL, FLAG(no_idle), NULL,
	  "leave out samples of processes in their idle wait:\n"
	  "PostgreSQL's Activity events (a background\n"
	  "process's main loop) and an idle session's\n"
	  "ClientRead; elsewhere a thread asleep (S) that has\n"
	  "not run since its last sample",
	  SAMPLING },
	{ "all-threads", 0, NULL, FLAG(all_threads), NULL,
	  "the summary lists every thread of each process\n"
	  "(default: its 10 busiest, the rest in one line)",
	  SAMPLING },
	{ "verbose", 'v', NULL, FLAG(verbose), NULL,
	  "the summary in full: how each sample was read\n"
	  "(stops, reads without one, reuse), stops and\n"
	  "rounds timed, the sampler's priority",
	  SAMPLING },
	{ "group-by", 0, "WHAT", option_group_by, 0, NULL,
	  "the stacks' root: pid (default) each process,\n"
	  "postgres[1234] client backend; thread each thread\n"
	  "apart, name[TID]; type each backend type (a\n"
	  "process title, else comm) with its processes\n"
	  "merged; all one root",
	  SAMPLING },
	{ "no-inline", 0, NULL, FLAG(no_inline), NULL,
	  "no frames for inlined functions (default: shown,\n"
	  "NAME_[i], where debug info has them)",
	  TARGET },
	{ "lines", 0, NULL, FLAG(lines), NULL,
	  "source file and line after each name, where debug\n"
	  "info has them: NAME (file.c:42)",
	  TARGET },
	{ "addresses", 0, NULL, FLAG(addresses), NULL,
	  "frames without a name as module+0xOFFSET (the\n"
	  "address addr2line -e module takes), not [module]",
	  TARGET },
	{ "debuginfo-path", 0, "PATH", option_debuginfo_path, 0, NULL,
	  "where separate debug files are looked for,\n"
	  "colon-separated (default :.debug:/usr/lib/debug)",
	  TARGET },
	{ .label = "\nContinuous profiling:" },
	{ "period", 0, "TIME", option_period, 0, NULL,
	  "a profile per window of TIME (at least 1s): with -o,\n"
	  "each to FILE with the window's start (UTC) before\n"
	  "the extension (out.20261123T140000Z.folded); to\n"
	  "stdout one after the other (folded: an empty line\n"
	  "between them)",
	  IN_RECORD },
	{ "push", 0, "URL", option_push, 0, NULL,
	  "POST each window (folded) to Grafana Pyroscope's\n"
	  "URL/ingest, from a queue a sender thread empties;\n"
	  "failed pushes are retried, and when the queue is\n"
	  "full the oldest window is dropped (default --period\n"
	  "10s; nothing on stdout unless -o, and a --format\n"
	  "other than folded only with -o)",
	  IN_RECORD },
	{ "app-name", 0, "NAME", option_app_name, 0, NULL,
	  "the application in Pyroscope (default: the target's\n"
	  "command name); NAME.wall is the profile's name",
	  IN_RECORD },
	{ "label", 0, "KEY=VALUE", option_label, 0, NULL,
	  "a label on every window pushed (repeatable, up to 16)",
	  IN_RECORD },
	{ "push-queue", 0, "N", option_push_queue, 0, NULL,
	  "windows kept while the server is behind (default 16)",
	  IN_RECORD },
	{ .label = "SIGUSR1", .help = "writes the profile so far (replacing -o FILE) and\n"
				      "goes on; with --period, ends the current window" },
	{ .label = "\nOne look at every thread:" },
	{ "dump", 0, NULL, option_dump, 0, NULL,
	  "each thread of the -p processes once, stopped as\n"
	  "briefly as a sample (a blocked one read without a\n"
	  "stop): state, kernel frames, then user frames\n"
	  "innermost first with file:line and inlined frames,\n"
	  "as eu-stack and pstack print them; with\n"
	  "--pg-wait-events each one's wait event",
	  IN_DUMP },
	{ .label = "\nWatching live:" },
	{ "top", 0, NULL, option_top, 0, NULL,
	  "a full-screen view of the targets, redrawn every\n"
	  "second: functions by own and total share over the\n"
	  "last window and since the start, thread states,\n"
	  "wait events and queries; keys: q quit, s sort\n"
	  "by own/total, w last window/since the start,\n"
	  "p pause, k kernel frames too; needs a terminal",
	  IN_TOP },
	{ .label = "\nComparing two profiles (no target):" },
	{ "diff", 0, "BEFORE AFTER", option_diff, 0, NULL,
	  "two folded profiles (ours, or any stackcollapse\n"
	  "output) as the two-count lines flamegraph.pl draws\n"
	  "a differential flame graph from (stack COUNT1\n"
	  "COUNT2, counts as they are, as difffolded.pl's);\n"
	  "with -o x.svg or --format svg, that flame graph:\n"
	  "AFTER's shapes, red where a frame grew, blue where\n"
	  "it shrank",
	  IN_DIFF },
	{ "diff-counts", 0, NULL, FLAG(diff_counts), NULL,
	  "compare the sample counts as they are (the default)",
	  IN_DIFF },
	{ "diff-shares", 0, NULL, FLAG(diff_shares), NULL,
	  "compare shares of each profile's total (COUNT1\n"
	  "scaled to AFTER's total, difffolded.pl -n): for\n"
	  "runs of different lengths or rates",
	  IN_DIFF },
	{ .label = "" },
	{ "help", 'h', NULL, option_help, 0, NULL, "show this help",
	  ANY_MODE },
	{ "version", 'V', NULL, option_version, 0, NULL, "show the version",
	  ANY_MODE },
};
#define N_ROWS (sizeof(option_rows) / sizeof(option_rows[0]))

/* getopt_long's value for a row: its short option, else past every char. */
static int row_value(size_t i)
{
	return option_rows[i].short_name ? option_rows[i].short_name : 256 + (int)i;
}

static const struct option_row *row_of_value(int value)
{
	for (size_t i = 0; i < N_ROWS; i++)
		if (option_rows[i].name && row_value(i) == value)
			return &option_rows[i];
	return NULL;
}

/* getopt_long's tables, made from the rows.  "+": options end at the
 * first operand (the command's own options are its own); ":": a missing
 * value is told apart from an unknown option. */
static struct option long_options[N_ROWS + 1];
static char short_options[2 + 2 * N_ROWS + 1];

static void make_getopt_tables(void)
{
	size_t n = 0, s = 0;
	short_options[s++] = '+';
	short_options[s++] = ':';
	for (size_t i = 0; i < N_ROWS; i++) {
		const struct option_row *r = &option_rows[i];
		if (!r->name)
			continue;
		assert(r->modes & IN_RECORD || r->modes == IN_DIFF || r->modes == IN_DUMP ||
		       r->modes == IN_TOP); /* every option goes with some mode */
		long_options[n++] = (struct option){ r->name, r->value ? required_argument : no_argument,
						     NULL, row_value(i) };
		if (r->short_name) {
			short_options[s++] = r->short_name;
			if (r->value)
				short_options[s++] = ':';
		}
	}
	long_options[n] = (struct option){ 0 };
	short_options[s] = '\0';
}

/* --- --help --------------------------------------------------------------- */

#define HELP_COLUMN 25 /* where the help text of an option starts */

static const char help_intro[] =
"Usage: ptrace_profiler -p PID [OPTIONS]\n"
"       ptrace_profiler [OPTIONS] -- COMMAND [ARGS...]\n"
"       ptrace_profiler --dump -p PID [OPTIONS]\n"
"       ptrace_profiler --top -p PID [OPTIONS]\n"
"       ptrace_profiler --diff BEFORE AFTER [-o OUT.svg]\n"
"\n"
"Sample where a live process spends its wall-clock time, on and off CPU.\n"
"Each tick reads every thread's state and kernel stack from /proc, stops\n"
"the thread just long enough to copy its registers and live stack, lets it\n"
"run, and then unwinds and names the copy. Output is folded stacks\n"
"(thread;state;user frames;kernel frames_[k] COUNT) for flamegraph.pl, or\n"
"a flame graph, speedscope, pprof or perf script file (--format).\n"
"\n";

static const char help_end[] =
"\n"
"Without -n or -t it runs until Ctrl-C (SIGINT), SIGTERM (or any signal\n"
"that would end it but SIGUSR1) or the target's exit; in every case it\n"
"detaches, names and writes what it collected (a second signal while it\n"
"names writes at once, frames not named yet as [module]); -o FILE is\n"
"replaced only by a whole profile. A summary (rate reached, how long the\n"
"target was kept stopped) goes to stderr.\n"
"A COMMAND is started, profiled, and ended with the run if still alive;\n"
"options end at \"--\" or at the first word that is not one, so the\n"
"command's own options are its own.\n"
"\n"
"Examples:\n"
"  ptrace_profiler -p 1234 -d 100us -n 5000 > out.folded\n"
"  flamegraph.pl out.folded > out.svg\n"
"  ptrace_profiler -p 1234 -t 30s -o db.folded     # 30 s at 100 samples/s\n"
"  ptrace_profiler -p 1234 -t 30s -o db.svg        # a flame graph to open\n"
"  ptrace_profiler -p 1234 -t 30s -o db.pb.gz && go tool pprof -top db.pb.gz\n"
"  ptrace_profiler -d 1ms -- ./myprog arg1          # launch and profile\n"
"  ptrace_profiler -p 1234 -t 10s --lines -o db.folded   # with file:line\n"
"  ptrace_profiler -p $(head -1 $PGDATA/postmaster.pid) --subprocesses -t 30s \\\n"
"      --pg-wait-events -o pg.folded               # a whole PostgreSQL server\n"
"  ptrace_profiler -p $(head -1 $PGDATA/postmaster.pid) --subprocesses -t 30s \\\n"
"      --pg-wait-events --pg-queries --group-by type --no-idle -o pg.svg\n"
"                                                  # its time by backend type and query\n"
"  ptrace_profiler -p 1234 --format stap | stackcollapse-stap.pl | flamegraph.pl > out.svg\n"
"  ptrace_profiler -p 1234 --push http://pyroscope:4040 --label env=prod  # to Grafana\n"
"  ptrace_profiler -p 1234 --period 60s -o db.folded   # db.20261123T140000Z.folded...\n"
"  ptrace_profiler --diff before.folded after.folded -o diff.svg   # what changed\n"
"  ptrace_profiler --dump -p 1234                  # every thread's stack, once\n"
"  ptrace_profiler --top -p 1234                   # live, redrawn every second\n"
"\n"
"Needs root or CAP_SYS_PTRACE for other users' processes (and see\n"
"kernel.yama.ptrace_scope); kernel stacks need root. See ptrace_profiler(1).\n";

/* "  -p, --pid PID[,PID...]", then its help, each further line under the
 * first. */
static void print_row(const struct option_row *r)
{
	if (!r->help) { /* a heading */
		printf("%s\n", r->label);
		return;
	}
	char left[64];
	if (r->label)
		snprintf(left, sizeof(left), "  %s", r->label);
	else
		snprintf(left, sizeof(left), "  %c%c%s--%s%s%s", r->short_name ? '-' : ' ',
			 r->short_name ? r->short_name : ' ', r->short_name ? ", " : "  ", r->name,
			 r->value ? " " : "", r->value ? r->value : "");
	int len = (int)strlen(left);
	printf("%s%*s", left, len < HELP_COLUMN ? HELP_COLUMN - len : 2, "");
	for (const char *line = r->help;;) {
		int n = (int)strcspn(line, "\n");
		printf("%.*s\n", n, line);
		if (!line[n])
			break;
		line += n + 1;
		printf("%*s", HELP_COLUMN, "");
	}
}

void options_print_help(void)
{
	fputs(help_intro, stdout);
	for (size_t i = 0; i < N_ROWS; i++)
		print_row(&option_rows[i]);
	fputs(help_end, stdout);
}

/* --- parsing ----------------------------------------------------------- */

/* The option as the user wrote it, for messages: "-d" or "--delay". */
static const char *spelled(int argc, char **argv, int index)
{
	return index > 0 && index < argc ? argv[index] : "option";
}

/* What getopt_long's '?' was about.  optopt is the short option, or the
 * long option's value when "--help=x" gave a value to one that takes none,
 * or 0 for a long option unknown or ambiguous ("--d": --delay, --duration). */
static enum parse_result bad_option(struct parsing *ps, const char *word)
{
	if (strncmp(word, "--", 2) != 0 || !word[2])
		return fail(ps, "unknown option '-%c'", optopt ? optopt : '?');
	size_t len = strcspn(word + 2, "=");
	if (optopt)
		return fail(ps, "option '%.*s' takes no value", (int)len + 2, word);
	int matches = 0;
	for (const struct option *lo = long_options; lo->name; lo++)
		matches += strncmp(lo->name, word + 2, len) == 0;
	if (matches > 1)
		return fail(ps, "ambiguous option '%.*s'", (int)len + 2, word);
	return fail(ps, "unknown option '%.*s'", (int)len + 2, word);
}

/* --period, --push and their companions, once every option is read. */
static enum parse_result continuous_rules(struct parsing *ps)
{
	struct options *o = ps->o;
	for (size_t i = 0; o->group_by == GROUP_TYPE && o->push_url && i < o->n_labels; i++)
		if (strcmp(o->labels[i].key, GROUP_LABEL) == 0)
			return fail(ps, "--label %s=%s with --group-by type: that label is the profiler's, each type's own",
				    o->labels[i].key, o->labels[i].value);
	if (!o->push_url && (o->app_name || o->n_labels || ps->push_queue_given))
		return fail(ps, "%s needs --push URL", o->app_name ? "--app-name" :
			    o->n_labels ? "--label" : "--push-queue");
	if (o->push_url && !o->period_ns)
		o->period_ns = DEFAULT_PUSH_PERIOD_NS;
	if (!o->period_ns)
		return PARSE_OK;
	if (o->period_ns < o->interval_ns)
		return fail(ps, "--period is shorter than the interval (-d): a window would hold no round");
	const struct format_info *fi = format_info(o->format);
	if (fi->streams)
		return fail(ps, "--format %s is written sample by sample: it has no windows (--period, --push)",
			    fi->name);
	/* Without -o a push run writes nothing: what it sends is folded. */
	if (o->push_url && !o->output_path && o->format != FORMAT_FOLDED)
		return fail(ps, "--push sends folded stacks and writes nothing without -o: --format %s needs -o FILE",
			    format_name(o->format));
	if (!o->output_path && fi->separator == SEPARATE_NONE)
		return fail(ps, "--period with --format %s to stdout: one document per file, give -o FILE",
			    fi->name);
	return PARSE_OK;
}

/* An option's name in a message: "-p", or "--period" where it has no
 * short one. */
static const char *option_name(const struct option_row *r, char *out, size_t outsz)
{
	if (r->short_name)
		snprintf(out, outsz, "-%c", r->short_name);
	else
		snprintf(out, outsz, "--%s", r->name);
	return out;
}

/* Every option given goes with the mode asked (its row's modes, as git's
 * parse-options keeps them with the option): the first that does not is
 * named, in the mode's words. */
static enum parse_result mode_rules(struct parsing *ps)
{
	enum run_mode m = ps->o->mode;
	for (size_t i = 0; i < ps->n_order; i++) {
		const struct option_row *r = &option_rows[ps->order[i]];
		if (r->modes & (1u << m))
			continue;
		char name[40];
		option_name(r, name, sizeof(name));
		switch (m) {
		case MODE_DIFF:
			return fail(ps, "--diff compares two profiles and takes no target: %s does not go with it",
				    name);
		case MODE_DUMP:
			return fail(ps, "--dump takes one look and writes text: %s does not go with it", name);
		case MODE_TOP:
			return fail(ps, "--top draws on the terminal: %s does not go with it", name);
		case MODE_RECORD:
			/* (only --diff's own options lack it) */
			return fail(ps, "%s needs --diff BEFORE AFTER", name);
		}
	}
	return PARSE_OK;
}

/* --diff compares two files: nothing about a target goes with it. */
static enum parse_result diff_rules(struct parsing *ps)
{
	struct options *o = ps->o;
	if (mode_rules(ps) != PARSE_OK)
		return PARSE_ERROR;
	if (o->command)
		return fail(ps, "--diff compares two profiles and takes no target: COMMAND does not go with it ('%s')",
			    o->command[0]);
	if (o->format != FORMAT_FOLDED && o->format != FORMAT_SVG)
		return fail(ps, "--diff writes folded or svg, not --format %s", format_name(o->format));
	if (o->diff_counts && o->diff_shares)
		return fail(ps, "--diff-counts and --diff-shares are mutually exclusive");
	return PARSE_OK;
}

/* --top draws on the terminal, a window a second: nothing about output
 * files or windows goes with it (the rows say which), and no interval
 * longer than a window. */
static enum parse_result top_rules(struct parsing *ps)
{
	if (mode_rules(ps) != PARSE_OK)
		return PARSE_ERROR;
	if (ps->o->interval_ns > TOP_WINDOW_NS)
		return fail(ps, "invalid interval '%s' for -d with --top: at most 1s (the screen is redrawn every second)",
			    ps->delay_text);
	return PARSE_OK;
}

/* The options that name the target, and those that go together or not,
 * once every option is read. */
static enum parse_result combination_rules(struct parsing *ps)
{
	struct options *o = ps->o;
	if (o->mode == MODE_DIFF)
		return diff_rules(ps);
	if (o->mode == MODE_RECORD && mode_rules(ps) != PARSE_OK)
		return PARSE_ERROR;
	bool have_pid = o->n_pids > 0;
	if (have_pid && o->command)
		return fail(ps, "-p and a COMMAND are mutually exclusive ('%s')", o->command[0]);
	if (o->n_tids && !have_pid)
		return fail(ps, "--tid needs -p: the threads of which process?");
	if (o->mode == MODE_DUMP && !have_pid)
		return fail(ps, "--dump needs -p PID: %s", o->command ?
			    "a command just started has nothing to show" : "the threads of which process?");
	if (!have_pid && !o->command)
		return fail(ps, "no target: give -p PID or -- COMMAND");
	if (!o->ksuseopc_addr != !o->ksusetim_addr)
		return fail(ps, "--ksuseopc and --ksusetim go together (only --%s was given)",
			    o->ksuseopc_addr ? "ksuseopc" : "ksusetim");
	if (o->ksuseopc_addr && o->n_pids > 1)
		return fail(ps, "--ksuseopc and --ksusetim are addresses in one session's process: give one pid, not %zu",
			    o->n_pids);
	if (o->subprocesses && o->n_tids)
		return fail(ps, "--subprocesses and --tid do not go together: --tid names threads of the processes given with -p");
	if (o->subprocesses && o->ksuseopc_addr)
		return fail(ps, "--subprocesses and --ksuseopc do not go together: the Oracle addresses are one session's");
	if ((o->pg_wait_events || o->pg_queries) && o->ksuseopc_addr)
		return fail(ps, "%s and --ksuseopc do not go together: one application state per sample (PostgreSQL's or Oracle's)",
			    o->pg_wait_events ? "--pg-wait-events" : "--pg-queries");
	if (o->event_names && !o->ksuseopc_addr)
		return fail(ps, "--event-names '%s' needs --ksuseopc and --ksusetim", o->event_names);
	if (o->mode == MODE_DUMP) /* one look, written as text */
		return mode_rules(ps);
	if (o->mode == MODE_TOP && top_rules(ps) != PARSE_OK)
		return PARSE_ERROR;
	return continuous_rules(ps);
}

/* The rows given, each once, in the order first given (mode_rules). */
static void note_given(struct parsing *ps, const struct option_row *row)
{
	size_t i = (size_t)(row - option_rows);
	_Static_assert(N_ROWS <= 64, "a bit per row in struct parsing's given");
	if (ps->given & (UINT64_C(1) << i))
		return;
	ps->given |= UINT64_C(1) << i;
	ps->order[ps->n_order++] = (unsigned char)i;
}

enum parse_result options_parse(int argc, char **argv, struct options *o,
				char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->interval_ns = DEFAULT_INTERVAL_NS;
	o->format = FORMAT_FOLDED;
	o->push_queue = DEFAULT_PUSH_QUEUE;
	err[0] = '\0';
	struct parsing ps = { .o = o, .err = err, .errlen = errlen, .argc = argc, .argv = argv };
	make_getopt_tables();

	opterr = 0;
	optind = 0; /* glibc: full re-initialization, so tests can call us again */
	for (;;) {
		int prev = optind ? optind : 1;
		int c = getopt_long(argc, argv, short_options, long_options, NULL);
		if (c == -1)
			break;
		if (c == ':' && row_of_value(optopt) && row_of_value(optopt)->parse == option_diff)
			return fail(&ps, "option '--diff' needs two files: --diff BEFORE AFTER");
		if (c == ':')
			return fail(&ps, "option '%s' needs a value", spelled(argc, argv, prev));
		const struct option_row *row = row_of_value(c);
		if (!row)
			return bad_option(&ps, spelled(argc, argv, prev));
		note_given(&ps, row);
		enum parse_result r = row->parse(&ps, row, optarg);
		if (r != PARSE_OK)
			return r;
	}
	if (!ps.format_given && o->output_path)
		o->format = format_for_path(o->output_path);
	if (optind < argc)
		o->command = &argv[optind]; /* "--" ends the options; without it the first operand does */
	return combination_rules(&ps);
}
