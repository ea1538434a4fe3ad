/* options.c - command line parsing; see options.h for the rules. */
#define _GNU_SOURCE
#include "options.h"
#include "db/oracle.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits "1.5ms" into an exact decimal value times a unit, without floating
 * point: 1.5ms = 15 * 10^5 ns.  Returns -1 on anything but digits, at most
 * one '.', and one of the units (or none: ms). */
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

void options_print_help(void)
{
	printf(
"Usage: ptrace_profiler -p PID [OPTIONS]\n"
"       ptrace_profiler [OPTIONS] -- COMMAND [ARGS...]\n"
"\n"
"Sample where a live process spends its wall-clock time, on and off CPU.\n"
"Each tick reads every thread's state and kernel stack from /proc, stops\n"
"the thread just long enough to copy its registers and live stack, lets it\n"
"run, and then unwinds and names the copy. Output is folded stacks\n"
"(thread;state;user frames;kernel frames_[k] COUNT) for flamegraph.pl, or\n"
"a flame graph, speedscope, pprof or perf script file (--format).\n"
"\n"
"Options:\n"
"  -p, --pid PID[,PID...] profile these running processes (all threads)\n"
"      --tid TID[,TID...] only these threads (of the processes given with -p)\n"
"      --subprocesses     also every descendant of the processes, present\n"
"                         and future (picked up within 50 ms)\n"
"  -d, --delay INTERVAL   time between samples: 100us, 1.5ms, 2s, 500ns;\n"
"                         a bare number means milliseconds (default 10ms)\n"
"  -n, --count N          stop after N sampling rounds\n"
"  -t, --duration TIME    stop after TIME (same units as --delay)\n"
"  -o, --output FILE      write the profile to FILE (default: stdout); a name\n"
"                         ending in .svg, .speedscope.json or .pb.gz picks\n"
"                         that format, any other folded\n"
"      --format FORMAT    what to write (wins over the name of -o):\n"
"                           folded       stacks and counts, for flamegraph.pl\n"
"                                        (default)\n"
"                           svg          interactive flame graph, one file\n"
"                           speedscope   speedscope.app JSON, a timeline per\n"
"                                        thread\n"
"                           pprof        gzipped profile.proto, for go tool pprof\n"
"                           perf-script  perf script text, one block per sample\n"
"                                        (FlameScope, Firefox Profiler)\n"
"                           stap         the original Ptrace_Profiler's blocks\n"
"      --ksuseopc ADDR    Oracle: address of X$KSUSE.KSUSEOPC (event#) of the\n"
"                         session, decimal or 0x hex (oracle_scripts/)\n"
"      --ksusetim ADDR    Oracle: address of X$KSUSE.KSUSETIM; with --ksuseopc\n"
"                         adds the wait event under the thread name\n"
"      --event-names FILE Oracle: event names (eventsname.sql's sed file,\n"
"                         or N<TAB>NAME lines)\n"
"      --pg-wait-events   PostgreSQL 14-17: each process's wait event under\n"
"                         the thread name, as pg_stat_activity names it\n"
"                         (event=IO:WALSync, On CPU); with --subprocesses on\n"
"                         the postmaster, the whole instance\n"
"      --no-inline        no frames for inlined functions (default: shown,\n"
"                         NAME_[i], where debug info has them)\n"
"      --lines            source file and line after each name, where debug\n"
"                         info has them: NAME (file.c:42)\n"
"      --addresses        frames without a name as module+0xOFFSET (the\n"
"                         address addr2line -e module takes), not [module]\n"
"      --debuginfo-path PATH  where separate debug files are looked for,\n"
"                         colon-separated (default :.debug:/usr/lib/debug)\n"
"\n"
"Continuous profiling:\n"
"      --period TIME      a profile per window of TIME (at least 1s): with -o,\n"
"                         each to FILE with the window's start (UTC) before\n"
"                         the extension (out.20261123T140000Z.folded); to\n"
"                         stdout one after the other (folded: an empty line\n"
"                         between them)\n"
"      --push URL         POST each window (folded) to Grafana Pyroscope's\n"
"                         URL/ingest, from a queue a sender thread empties;\n"
"                         failed pushes are retried, and when the queue is\n"
"                         full the oldest window is dropped (default --period\n"
"                         10s; nothing on stdout unless -o, and a --format\n"
"                         other than folded only with -o)\n"
"      --app-name NAME    the application in Pyroscope (default: the target's\n"
"                         command name); NAME.wall is the profile's name\n"
"      --label KEY=VALUE  a label on every window pushed (repeatable, up to 16)\n"
"      --push-queue N     windows kept while the server is behind (default 16)\n"
"  SIGUSR1                writes the profile so far (replacing -o FILE) and\n"
"                         goes on; with --period, ends the current window\n"
"  -h, --help             show this help\n"
"  -V, --version          show the version\n"
"\n"
"Without -n or -t it runs until Ctrl-C (SIGINT), SIGTERM (or any signal\n"
"that would end it but SIGUSR1) or the target's exit; in every case it detaches and\n"
"writes what it collected. A summary\n"
"(rate reached, how long the target was kept stopped) goes to stderr.\n"
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
"  ptrace_profiler -p 1234 --format stap | stackcollapse-stap.pl | flamegraph.pl > out.svg\n"
"  ptrace_profiler -p 1234 --push http://pyroscope:4040 --label env=prod  # to Grafana\n"
"  ptrace_profiler -p 1234 --period 60s -o db.folded   # db.20261123T140000Z.folded...\n"
"\n"
"Needs root or CAP_SYS_PTRACE for other users' processes (and see\n"
"kernel.yama.ptrace_scope); kernel stacks need root. See ptrace_profiler(1).\n");
}

__attribute__((format(printf, 3, 4)))
static enum parse_result fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return PARSE_ERROR;
}

enum {
	OPT_FORMAT = 256, OPT_KSUSEOPC, OPT_KSUSETIM, OPT_EVENT_NAMES, OPT_TID,
	OPT_NO_INLINE, OPT_LINES, OPT_ADDRESSES, OPT_DEBUGINFO_PATH, OPT_SUBPROCESSES,
	OPT_PG_WAIT_EVENTS,
	OPT_PERIOD, OPT_PUSH, OPT_APP_NAME, OPT_LABEL, OPT_PUSH_QUEUE, OPT_MAX_OVERHEAD,
};

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "delay", required_argument, NULL, 'd' },
	{ "count", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "ksuseopc", required_argument, NULL, OPT_KSUSEOPC },
	{ "ksusetim", required_argument, NULL, OPT_KSUSETIM },
	{ "event-names", required_argument, NULL, OPT_EVENT_NAMES },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "addresses", no_argument, NULL, OPT_ADDRESSES },
	{ "debuginfo-path", required_argument, NULL, OPT_DEBUGINFO_PATH },
	{ "subprocesses", no_argument, NULL, OPT_SUBPROCESSES },
	{ "pg-wait-events", no_argument, NULL, OPT_PG_WAIT_EVENTS },
	{ "max-overhead", required_argument, NULL, OPT_MAX_OVERHEAD },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ "push", required_argument, NULL, OPT_PUSH },
	{ "app-name", required_argument, NULL, OPT_APP_NAME },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "push-queue", required_argument, NULL, OPT_PUSH_QUEUE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* The option as the user wrote it, for messages: "-d" or "--delay". */
static const char *spelled(int argc, char **argv, int index)
{
	return index > 0 && index < argc ? argv[index] : "option";
}

/* What getopt_long's '?' was about.  optopt is the short option, or the
 * long option's value when "--help=x" gave a value to one that takes none,
 * or 0 for a long option unknown or ambiguous ("--d": --delay, --duration). */
static enum parse_result bad_option(int argc, char **argv, int index, char *err,
				    size_t errlen)
{
	const char *word = spelled(argc, argv, index);
	if (strncmp(word, "--", 2) != 0 || !word[2])
		return fail(err, errlen, "unknown option '-%c'", optopt ? optopt : '?');
	size_t len = strcspn(word + 2, "=");
	if (optopt)
		return fail(err, errlen, "option '%.*s' takes no value", (int)len + 2, word);
	int matches = 0;
	for (const struct option *lo = long_options; lo->name; lo++)
		matches += strncmp(lo->name, word + 2, len) == 0;
	if (matches > 1)
		return fail(err, errlen, "ambiguous option '%.*s'", (int)len + 2, word);
	return fail(err, errlen, "unknown option '%.*s'", (int)len + 2, word);
}

/* --period, --push and their companions, once every option is read. */
static enum parse_result continuous_rules(struct options *o, bool push_queue_given, char *err,
					  size_t errlen)
{
	if (!o->push_url && (o->app_name || o->n_labels || push_queue_given))
		return fail(err, errlen, "%s needs --push URL", o->app_name ? "--app-name" :
			    o->n_labels ? "--label" : "--push-queue");
	if (o->push_url && !o->period_ns)
		o->period_ns = DEFAULT_PUSH_PERIOD_NS;
	if (!o->period_ns)
		return PARSE_OK;
	if (o->period_ns < o->interval_ns)
		return fail(err, errlen, "--period is shorter than the interval (-d): a window would hold no round");
	if (o->format == FORMAT_STAP)
		return fail(err, errlen, "--format stap is written sample by sample: it has no windows (--period, --push)");
	/* Without -o a push run writes nothing: what it sends is folded. */
	if (o->push_url && !o->output_path && o->format != FORMAT_FOLDED)
		return fail(err, errlen, "--push sends folded stacks and writes nothing without -o: --format %s needs -o FILE",
			    format_name(o->format));
	bool one_per_file = o->format == FORMAT_SVG || o->format == FORMAT_SPEEDSCOPE ||
			    o->format == FORMAT_PPROF;
	if (!o->output_path && one_per_file)
		return fail(err, errlen, "--period with --format %s to stdout: one document per file, give -o FILE",
			    format_name(o->format));
	return PARSE_OK;
}

enum parse_result options_parse(int argc, char **argv, struct options *o,
				char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->interval_ns = DEFAULT_INTERVAL_NS;
	o->format = FORMAT_FOLDED;
	o->push_queue = DEFAULT_PUSH_QUEUE;
	err[0] = '\0';

	opterr = 0;
	optind = 0; /* glibc: full re-initialization, so tests can call us again */
	bool have_pid = false, format_given = false, push_queue_given = false;
	for (;;) {
		int prev = optind ? optind : 1;
		int c = getopt_long(argc, argv, "+:p:d:n:t:o:hV", long_options, NULL);
		if (c == -1)
			break;
		const char *arg = optarg;
		switch (c) {
		case 'p':
		case OPT_TID: {
			const char *bad, *what = c == 'p' ? "pid" : "tid";
			char item[64];
			int n = c == 'p' ? parse_pid_list(optarg, o->pids, MAX_PIDS, &bad)
					 : parse_pid_list(optarg, o->tids, MAX_TIDS, &bad);
			if (n < 0 && !bad)
				return fail(err, errlen, "too many %ss in '%s' (at most %d)", what, arg,
					    c == 'p' ? MAX_PIDS : MAX_TIDS);
			if (n < 0)
				return fail(err, errlen, "invalid %s '%s' in '%s' for %s: expected positive integers, comma-separated, each once",
					    what, item_text(bad, item, sizeof(item)), arg, c == 'p' ? "-p" : "--tid");
			if (c == 'p')
				o->n_pids = (size_t)n;
			else
				o->n_tids = (size_t)n;
			have_pid |= c == 'p';
			break;
		}
		case 'd':
			if (parse_interval(arg, &o->interval_ns) != 0)
				return fail(err, errlen, "invalid interval '%s' for -d: expected a positive number with unit ns, us, ms or s", arg);
			break;
		case 'n':
			if (parse_count(arg, &o->count) != 0)
				return fail(err, errlen, "invalid count '%s' for -n: expected a positive integer", arg);
			break;
		case 't':
			if (parse_interval(arg, &o->duration_ns) != 0)
				return fail(err, errlen, "invalid duration '%s' for -t: expected a positive number with unit ns, us, ms or s", arg);
			break;
		case 'o':
			if (!arg[0])
				return fail(err, errlen, "invalid output file '' for -o");
			o->output_path = arg;
			break;
		case OPT_FORMAT:
			if (parse_format(arg, &o->format) != 0)
				return fail(err, errlen, "unknown format '%s' for --format: expected folded, stap, svg, speedscope, pprof or perf-script", arg);
			format_given = true;
			break;
		case OPT_KSUSEOPC:
		case OPT_KSUSETIM:
			if (parse_address(arg, c == OPT_KSUSEOPC ? &o->ksuseopc_addr : &o->ksusetim_addr) != 0)
				return fail(err, errlen, "invalid address '%s' for --%s: expected a decimal or 0x hex address",
					    arg, c == OPT_KSUSEOPC ? "ksuseopc" : "ksusetim");
			break;
		case OPT_EVENT_NAMES:
			if (!arg[0])
				return fail(err, errlen, "invalid file '' for --event-names");
			o->event_names = arg;
			break;
		case OPT_NO_INLINE:
			o->no_inline = true;
			break;
		case OPT_LINES:
			o->lines = true;
			break;
		case OPT_ADDRESSES:
			o->addresses = true;
			break;
		case OPT_SUBPROCESSES:
			o->subprocesses = true;
			break;
		case OPT_PG_WAIT_EVENTS:
			o->pg_wait_events = true;
			break;
		case OPT_MAX_OVERHEAD:
			if (parse_share(arg, &o->max_overhead) != 0)
				return fail(err, errlen, "invalid share '%s' for --max-overhead: expected a percentage above 0 and at most 100, such as 1%% or 0.5%%", arg);
			break;
		case OPT_DEBUGINFO_PATH:
			if (!arg[0])
				return fail(err, errlen, "invalid path '' for --debuginfo-path");
			o->debuginfo_path = arg;
			break;
		case OPT_PERIOD:
			if (parse_interval(arg, &o->period_ns) != 0)
				return fail(err, errlen, "invalid period '%s' for --period: expected a positive number with unit ns, us, ms or s", arg);
			if (o->period_ns < MIN_PERIOD_NS)
				return fail(err, errlen, "invalid period '%s' for --period: at least 1s (windows are named and pushed to the second)", arg);
			break;
		case OPT_PUSH:
			if (pyroscope_check_url(arg, err, errlen) != 0)
				return PARSE_ERROR;
			o->push_url = arg;
			break;
		case OPT_APP_NAME:
			if (!pyroscope_app_name_ok(arg))
				return fail(err, errlen, "invalid application name '%s' for --app-name: expected 1 to %d of A-Z a-z 0-9 _ . - /",
					    arg, PYROSCOPE_NAME_MAX);
			o->app_name = arg;
			break;
		case OPT_LABEL: {
			struct pyroscope_label l;
			if (pyroscope_parse_label(arg, &l, err, errlen) != 0)
				return PARSE_ERROR;
			for (size_t i = 0; i < o->n_labels; i++)
				if (strcmp(o->labels[i].key, l.key) == 0)
					return fail(err, errlen, "label key '%s' given twice for --label ('%s')", l.key, arg);
			if (o->n_labels == PYROSCOPE_LABELS_MAX)
				return fail(err, errlen, "too many labels at '%s' for --label (at most %d)", arg,
					    PYROSCOPE_LABELS_MAX);
			o->labels[o->n_labels++] = l;
			break;
		}
		case OPT_PUSH_QUEUE: {
			uint64_t n;
			if (parse_count(arg, &n) != 0 || n > MAX_PUSH_QUEUE)
				return fail(err, errlen, "invalid queue length '%s' for --push-queue: expected an integer from 1 to %d",
					    arg, MAX_PUSH_QUEUE);
			o->push_queue = (size_t)n;
			push_queue_given = true;
			break;
		}
		case 'h':
			options_print_help();
			return PARSE_EXIT_OK;
		case 'V':
			printf("ptrace_profiler %s\n", PROFILER_VERSION);
			return PARSE_EXIT_OK;
		case ':':
			return fail(err, errlen, "option '%s' needs a value", spelled(argc, argv, prev));
		default:
			return bad_option(argc, argv, prev, err, errlen);
		}
	}
	if (!format_given && o->output_path)
		o->format = format_for_path(o->output_path);
	if (optind < argc) {
		/* "--" ends the options; without it the first operand does. */
		o->command = &argv[optind];
	}
	if (have_pid && o->command)
		return fail(err, errlen, "-p and a COMMAND are mutually exclusive ('%s')", o->command[0]);
	if (o->n_tids && !have_pid)
		return fail(err, errlen, "--tid needs -p: the threads of which process?");
	if (!have_pid && !o->command)
		return fail(err, errlen, "no target: give -p PID or -- COMMAND");
	if (!o->ksuseopc_addr != !o->ksusetim_addr)
		return fail(err, errlen, "--ksuseopc and --ksusetim go together (only --%s was given)",
			    o->ksuseopc_addr ? "ksuseopc" : "ksusetim");
	if (o->ksuseopc_addr && o->n_pids > 1)
		return fail(err, errlen, "--ksuseopc and --ksusetim are addresses in one session's process: give one pid, not %zu",
			    o->n_pids);
	if (o->subprocesses && o->n_tids)
		return fail(err, errlen, "--subprocesses and --tid do not go together: --tid names threads of the processes given with -p");
	if (o->subprocesses && o->ksuseopc_addr)
		return fail(err, errlen, "--subprocesses and --ksuseopc do not go together: the Oracle addresses are one session's");
	if (o->pg_wait_events && o->ksuseopc_addr)
		return fail(err, errlen, "--pg-wait-events and --ksuseopc do not go together: one application state per sample (PostgreSQL's or Oracle's)");
	if (o->event_names && !o->ksuseopc_addr)
		return fail(err, errlen, "--event-names '%s' needs --ksuseopc and --ksusetim",
			    o->event_names);
	return continuous_rules(o, push_queue_given, err, errlen);
}
