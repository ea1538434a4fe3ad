/* options.h - command line: what the user asked for, validated.
 *
 * Parsing is pure (no I/O besides the error text it fills in), so every rule
 * about units and bad input is unit-tested.  A bad value yields PARSE_ERROR
 * and a one-line message naming the value; main() prints it and exits 2.
 */
#ifndef PTRACE_PROFILER_OPTIONS_H
#define PTRACE_PROFILER_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "output/format.h"
#include "output/pyroscope_label.h"

#include "base/version.h"

#define MAX_PIDS 64
#define MAX_TARGETS 4096 /* processes in one run, with --subprocesses */
#define MAX_TIDS 256

/* --group-by: what a stack's root frame names (docs/usage.md). */
enum group_by {
	GROUP_PID,   /* each process (and thread): "postgres[1234] client backend" */
	GROUP_TYPE,  /* each backend type, or process title, or comm: processes merged */
	GROUP_ALL,   /* one root for every sample */
	GROUP_THREAD, /* each thread apart, by its id: "mariadbd[4321]" */
};

/* The label --push gives each type's part of a window with --group-by
 * type (its value: the root frame, as a label value may be). */
#define GROUP_LABEL "backend_type"

/* What a run does (modes.h). */
enum run_mode {
	MODE_RECORD,  /* sample the target, write its profile (the default) */
	MODE_DIFF,    /* --diff BEFORE AFTER: two profiles compared, no target */
	MODE_DUMP,    /* --dump: every thread's stacks once, as eu-stack prints them */
	MODE_TOP,     /* --top: a full-screen view of the target, redrawn every second */
};

struct options {
	enum run_mode mode;
	pid_t pids[MAX_PIDS];      /* -p PID[,PID...]; none when a command is launched */
	size_t n_pids;
	pid_t tids[MAX_TIDS];      /* --tid TID[,TID...]; none = every thread */
	size_t n_tids;
	char **command;            /* argv after "--"; NULL with -p */
	uint64_t interval_ns;      /* -d; default 10 ms */
	uint64_t count;            /* -n sampling rounds; 0 = no limit */
	uint64_t duration_ns;      /* -t; 0 = no limit */
	const char *output_path;   /* -o; NULL = stdout */
	enum output_format format; /* --format */
	uint64_t ksuseopc_addr;    /* --ksuseopc; 0 = no Oracle state */
	uint64_t ksusetim_addr;    /* --ksusetim; given with --ksuseopc */
	const char *event_names;   /* --event-names FILE; NULL = numbers */
	bool no_inline;            /* --no-inline: no "_[i]" frames */
	bool lines;                /* --lines: " (file.c:42)" after names */
	bool addresses;            /* --addresses: "lib.so+0x1a2b" for unnamed frames */
	const char *debuginfo_path; /* --debuginfo-path; NULL = libdw's default */
	bool subprocesses;         /* --subprocesses: descendants too, new ones included */
	bool pg_wait_events;       /* --pg-wait-events: PostgreSQL's wait event per sample */
	bool pg_queries;           /* --pg-queries: each backend's query (or state) per sample */
	bool no_idle;              /* --no-idle: samples of threads in their idle wait left out */
	bool all_threads;          /* --all-threads: the summary lists every thread, not each
				      process's busiest */
	bool verbose;              /* -v: the summary's lines on how samples were read and
				      timed too, not only what they found and cost */
	enum group_by group_by;    /* --group-by pid|type|all */
	double max_overhead;       /* --max-overhead: a share (0.01 for 1%); 0 = no bound */
	/* Continuous profiling (docs/continuous.md) */
	uint64_t period_ns;        /* --period: a profile per window; 0 = one for the run */
	const char *push_url;      /* --push URL: each window POSTed to URL/ingest */
	const char *app_name;      /* --app-name; NULL = the target's comm */
	struct pyroscope_label labels[PYROSCOPE_LABELS_MAX]; /* --label k=v, in order */
	size_t n_labels;
	size_t push_queue;         /* --push-queue: windows waiting to be sent, at most */
	/* --diff (docs/diff.md) */
	const char *diff_before;   /* --diff BEFORE AFTER: the two folded files */
	const char *diff_after;
	bool diff_counts;          /* --diff-counts: raw samples (the default) */
	bool diff_shares;          /* --diff-shares: shares of each total */
};

#define DEFAULT_INTERVAL_NS 10000000ULL /* 10 ms: see docs/usage.md "Defaults" */
#define DEFAULT_PUSH_PERIOD_NS 10000000000ULL /* --push without --period: 10 s */
#define MIN_PERIOD_NS 1000000000ULL /* windows are named and pushed to the second */
#define TOP_WINDOW_NS 1000000000ULL /* --top: a window, and a redraw, every second */
#define DEFAULT_PUSH_QUEUE 16
#define MAX_PUSH_QUEUE 1000

enum parse_result { PARSE_OK, PARSE_EXIT_OK, PARSE_ERROR };

/* "100us", "1.5ms", "2s", "250ns"; a bare number is milliseconds, as in the
 * original Ptrace_Profiler.  Zero, negative, overflow (> ~584 years),
 * trailing junk and unknown units are rejected: returns -1. */
int parse_interval(const char *text, uint64_t *ns_out);

/* "1%", "0.5%", "2" (percent, the sign optional): a share above 0 and at
 * most 100 %, as a fraction (0.01).  Anything else is -1. */
int parse_share(const char *text, double *out);

/* A positive decimal integer that fits in 63 bits; anything else is -1. */
int parse_count(const char *text, uint64_t *out);

/* A positive pid (decimal); anything else is -1.  Existence is not checked. */
int parse_pid(const char *text, pid_t *out);

/* "12,34,56": up to max positive pids, no empty item, no duplicate.
 * Returns the count, or -1 (then *bad points at the offending item, or is
 * NULL when the list is too long). */
int parse_pid_list(const char *text, pid_t *out, size_t max, const char **bad);

/* Fills *o (defaults first).  PARSE_EXIT_OK means --help or --version was
 * printed to stdout; PARSE_ERROR leaves a one-line message in err. */
enum parse_result options_parse(int argc, char **argv, struct options *o,
				char *err, size_t errlen);

void options_print_help(void);

#endif
