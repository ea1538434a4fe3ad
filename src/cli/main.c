/* main.c - parse, attach (or launch), sample, detach, print.
 *
 * Whatever ends the run - -n or -t reached, SIGINT/SIGTERM/SIGHUP/SIGPIPE,
 * the target's exit - the threads are detached first (the target must not
 * wait for our output), then what was collected is written.  SIGUSR1 asks
 * for the profile so far and sampling goes on; with --period or --push the
 * windows go to a writer thread, and on to a sender (continuous.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "profile/aggregate.h"
#include "continuous/continuous.h"
#include "options.h"
#include "db/oracle.h"
#include "db/pgstate.h"
#include "tracee/snapshot.h"
#include "output/output.h"
#include "output/pyroscope.h"
#include "tracee/procfs.h"
#include "sample/sampler.h"
#include "cli/summary.h"
#include "tracee/target.h"
#include "continuous/window.h"

static volatile int quit;
static volatile sig_atomic_t dump; /* SIGUSR1: the profile so far */

static void on_quit(int sig)
{
	(void)sig;
	quit = 1;
}

static void on_dump(int sig)
{
	(void)sig;
	dump = 1;
}

static void setup_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit; /* no SA_RESTART: waits return EINTR at once */
	sigemptyset(&sa.sa_mask);
	/* Every signal whose default would end us ends the run instead:
	 * detach, then write what was collected.  (Killed by the kernel -
	 * SIGKILL, a crash - the kernel detaches and the target runs on.) */
	int quit_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR2,
			       SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR,
			       SIGSTKFLT };
	for (size_t i = 0; i < sizeof(quit_signals) / sizeof(quit_signals[0]); i++)
		sigaction(quit_signals[i], &sa, NULL);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaction(sig, &sa, NULL);
	/* SIGUSR1: write the profile so far, and go on (continuous.h). */
	sa.sa_handler = on_dump;
	sigaction(SIGUSR1, &sa, NULL);
	/* Tracee events arrive as SIGCHLD; it stays blocked and is waited for
	 * with sigtimedwait between ticks. */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
}

/* Our own peak resident set, for the summary: 0 if /proc does not say. */
static uint64_t peak_rss_kb(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	if (fd >= 0)
		close(fd);
	uint64_t kb = 0;
	if (len <= 0 || parse_status_kb(buf, (size_t)len, "VmHWM", &kb) != 0)
		return 0;
	return kb;
}

/* Both Oracle fields must be readable in the target before we start. */
static int oracle_addresses_readable(const struct options *o, const struct target *t,
				     char *err, size_t errlen)
{
	static struct snapshot probe; /* large: not on the stack */
	const char *names[2] = { "--ksuseopc", "--ksusetim" };
	uint64_t addr[2] = { o->ksuseopc_addr, o->ksusetim_addr };
	for (int i = 0; i < 2; i++) {
		probe.n_words = 1;
		probe.word_addr[0] = addr[i];
		if (snapshot_read_words(t->pid, &probe) != 0) {
			snprintf(err, errlen, "cannot read %s address 0x%llx (%llu) in process %d: %s",
				 names[i], (unsigned long long)addr[i], (unsigned long long)addr[i],
				 (int)t->pid, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* --pg-wait-events on a server older than 14, which keeps no pointer to
 * its wait event: refused before sampling, as bad input is.  (Processes
 * that are no PostgreSQL server at all are only warned about, by the
 * sampler: their samples say [no PostgreSQL state].) */
static int pg_servers_supported(const struct options *o, const struct target *ts, size_t n,
				char *err, size_t errlen)
{
	struct files *fs = files_new(o->debuginfo_path);
	int rc = 0;
	for (size_t i = 0; i < n && fs && rc == 0; i++) {
		struct modules *m = modules_open(fs, ts[i].pid);
		struct pg_process pg;
		if (m && pg_probe(ts[i].pid, m, &pg, err, errlen) == PG_PROBE_TOO_OLD)
			rc = -1;
		modules_close(m);
	}
	files_free(fs);
	return rc;
}

/* Detaches the targets attached so far (on an error before sampling). */
static void release(struct target *ts, size_t n, const struct options *o)
{
	for (size_t i = 0; i < n; i++) {
		target_detach(&ts[i]);
		if (o->command)
			kill(ts[i].pid, SIGTERM);
		target_free(&ts[i]);
	}
}

/* Every --tid must be a thread of one of the processes. */
static bool missing_thread(const struct options *o, const struct target *ts, size_t n,
			   char *err, size_t errlen)
{
	for (size_t k = 0; k < o->n_tids; k++) {
		bool found = false;
		for (size_t i = 0; i < n && !found; i++)
			found = target_has_thread(&ts[i], o->tids[k]);
		if (!found) {
			snprintf(err, errlen, "no thread %d in the process%s given with -p",
				 (int)o->tids[k], n > 1 ? "es" : "");
			return true;
		}
	}
	return false;
}

/* The command line as typed (for the SVG's title, pprof's comments). */
static const char *command_line(int argc, char **argv, char *out, size_t outsz)
{
	size_t used = 0;
	out[0] = '\0';
	for (int i = 0; i < argc && used + 1 < outsz; i++) {
		int w = snprintf(out + used, outsz - used, "%s%s", i ? " " : "", argv[i]);
		if (w < 0)
			break;
		used += (size_t)w < outsz - used ? (size_t)w : outsz - used - 1;
	}
	return out;
}

/* "postgres (PID 1234)" or "13 processes". */
static const char *target_line(const struct target *ts, size_t n, char *out, size_t outsz)
{
	if (n == 1)
		snprintf(out, outsz, "%s (PID %d)", ts[0].comm, (int)ts[0].pid);
	else
		snprintf(out, outsz, "%zu processes", n);
	return out;
}

int main(int argc, char **argv)
{
	struct options o;
	char err[512];

	switch (options_parse(argc, argv, &o, err, sizeof(err))) {
	case PARSE_EXIT_OK:
		return 0;
	case PARSE_ERROR:
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		return 2;
	case PARSE_OK:
		break;
	}

	/* Everything the user gave is checked before the target is touched. */
	struct event_names *names = NULL;
	if (o.event_names && !(names = oracle_names_load(o.event_names, err, sizeof(err)))) {
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		return 2;
	}

	FILE *out = stdout;
	if (o.output_path && o.period_ns) {
		/* Windows go to FILE.STAMP.EXT: FILE itself is never made, but
		 * its directory must take them. */
		char probe[4200];
		snprintf(probe, sizeof(probe), "%s.probe.%d", o.output_path, (int)getpid());
		FILE *f = fopen(probe, "we");
		if (!f) {
			fprintf(stderr, "ptrace_profiler: cannot write '%s' (next to '%s'): %s\n", probe,
				o.output_path, strerror(errno));
			return 2;
		}
		fclose(f);
		unlink(probe);
	} else if (o.output_path) {
		out = fopen(o.output_path, "we");
		if (!out) {
			fprintf(stderr, "ptrace_profiler: cannot write '%s': %s\n",
				o.output_path, strerror(errno));
			return 2;
		}
	}
	setup_signals();
	/* Wake up on time: the default 50 us timer slack is half of a 100 us tick. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	static struct target ts[MAX_TARGETS];
	size_t n = 0;
	if (o.command) {
		if (target_launch(&ts[0], o.command, err, sizeof(err)) != 0) {
			fprintf(stderr, "ptrace_profiler: %s\n", err);
			return 2;
		}
		n = 1;
	} else {
		/* With several processes, one that cannot be traced is named
		 * with its reason and the others are profiled. */
		bool invalid = false, denied = false;
		for (size_t k = 0; k < o.n_pids; k++) {
			enum attach_error e = target_attach(&ts[n], o.pids[k], o.tids, o.n_tids,
							    err, sizeof(err));
			if (e == ATTACH_OK) {
				n++;
				continue;
			}
			fprintf(stderr, "ptrace_profiler: %s\n", err);
			invalid |= e == ATTACH_INVALID;
			denied |= e != ATTACH_INVALID;
		}
		if (n == 0)
			return invalid && !denied ? 2 : 1;
		if (missing_thread(&o, ts, n, err, sizeof(err))) {
			fprintf(stderr, "ptrace_profiler: %s\n", err);
			release(ts, n, &o);
			return 2;
		}
	}
	if (o.ksuseopc_addr && oracle_addresses_readable(&o, &ts[0], err, sizeof(err)) != 0) {
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		release(ts, n, &o);
		return 2;
	}
	if (o.pg_wait_events && pg_servers_supported(&o, ts, n, err, sizeof(err)) != 0) {
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		release(ts, n, &o);
		return 2;
	}
	for (size_t i = 0; i < n; i++)
		if (!ts[i].kernel_stacks) {
			fprintf(stderr, "ptrace_profiler: warning: cannot read /proc/%d/stack "
				"(needs root): user stacks only\n", (int)ts[i].pid);
			break;
		}

	struct stack_table *table = stack_table_new();
	struct sampler *sampler =
		table ? sampler_new(&o, ts, &n, MAX_TARGETS, names, table, out) : NULL;
	struct sampler_result r;
	memset(&r, 0, sizeof(r));
	char command[512], target[128];
	command_line(argc, argv, command, sizeof(command));
	target_line(ts, n, target, sizeof(target));
	/* The writer (SIGUSR1, --period) and sender (--push) threads. */
	struct continuous *cont = NULL;
	if (sampler && !format_info(o.format)->streams) {
		char app[PYROSCOPE_NAME_MAX + 1];
		if (o.app_name)
			snprintf(app, sizeof(app), "%s", o.app_name);
		else
			pyroscope_app_name_from(ts[0].comm, app);
		if (!(cont = continuous_start(&o, command, target, app, err, sizeof(err)))) {
			fprintf(stderr, "ptrace_profiler: %s\n", err);
			sampler_free(sampler);
			sampler = NULL;
		} else {
			sampler_continuous(sampler, cont, &dump);
		}
	} else if (sampler) {
		sampler_continuous(sampler, NULL, &dump); /* stap: SIGUSR1 flushes */
	}
	int rc = sampler ? sampler_run(sampler, &quit, &r) : -1;

	/* whether each had exited before we let go: the notes below */
	static bool exited[MAX_TARGETS];
	for (size_t i = 0; i < n; i++) {
		exited[i] = ts[i].exited;
		target_detach(&ts[i]);
	}
	/* Detached: nothing is left to protect.  Naming may take a while
	 * (debug info, debuginfod), and Ctrl-C then means stop now. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (o.command && !exited[0]) {
		/* Launched and still running: it was started for this run, so
		 * it ends with it, as with perf record -- COMMAND. */
		kill(ts[0].pid, SIGTERM);
		waitpid(ts[0].pid, NULL, 0);
	}

	if (rc == 0 && sampler_name_stacks(sampler, &r) != 0)
		rc = -1;
	/* Every window and SIGUSR1 profile written, and pushed (or given up). */
	continuous_stop(cont);
	unsigned written = continuous_writes(cont);
	char final_tmp[4200] = ""; /* SIGUSR1 replaced FILE: replace it again, whole */
	if (written && o.output_path && !o.period_ns) {
		snprintf(final_tmp, sizeof(final_tmp), "%s.tmp.%d", o.output_path, (int)getpid());
		fclose(out);
		if (!(out = fopen(final_tmp, "we")))
			snprintf(r.error, sizeof(r.error), "cannot write '%.100s': %s", final_tmp,
				 strerror(errno));
	}
	if (written && !o.output_path && !o.period_ns) {
		char sep[128];
		if (window_separator(o.format, "the profile of the whole run", sep, sizeof(sep)))
			fputs(sep, out);
	}
	if (rc == 0 && !format_info(o.format)->streams && !o.period_ns && out) {
		/* stap went out sample by sample; every other format now (the
		 * windows of --period went with the last one) */
		struct profile profile = {
			.stacks = table,
			.command = command,
			.target = target,
			.interval_ns = o.interval_ns,
			.start_unix_ns = r.start_unix_ns,
			.duration_ns = r.wall_ns,
			.total_samples = r.samples,
		};
		sampler_profile(sampler, &profile);
		if (output_write(out, o.format, &profile) != 0 && !r.error[0])
			snprintf(r.error, sizeof(r.error), "cannot write the %s output: %s",
				 format_name(o.format), strerror(errno));
	}
	if (out && (fflush(out) != 0 || ferror(out)) && !r.error[0])
		snprintf(r.error, sizeof(r.error), "cannot write the output: %s", strerror(errno));
	if (!sampler && !r.error[0])
		snprintf(r.error, sizeof(r.error), "cannot start sampling");
	if (r.error[0]) {
		fprintf(stderr, "ptrace_profiler: %s\n", r.error);
		rc = -1;
	}
	for (size_t i = 0; i < n && !o.subprocesses; i++)
		if (exited[i])
			fprintf(stderr, "ptrace_profiler: process %d exited; profile covers its run until then\n",
				(int)ts[i].pid);
	r.peak_rss_kb = peak_rss_kb();
	summary_print(stderr, &o, ts, n, sampler, &r);
	continuous_summary(stderr, cont);
	continuous_free(cont);
	sampler_free(sampler);
	stack_table_free(table);
	oracle_names_free(names);
	for (size_t i = 0; i < n; i++)
		target_free(&ts[i]);
	if (out && out != stdout)
		fclose(out); /* flushed and checked above */
	if (final_tmp[0] && out && (rc != 0 || rename(final_tmp, o.output_path) != 0)) {
		if (rc == 0)
			fprintf(stderr, "ptrace_profiler: cannot rename '%s' to '%s': %s\n", final_tmp,
				o.output_path, strerror(errno));
		unlink(final_tmp);
		rc = -1;
	}
	if (rc != 0)
		return 1;
	/* Launched: the command's own status, as a shell reports it, when it
	 * ended by itself; ended by us at the end of the run, 0. */
	if (o.command && exited[0]) {
		int st = ts[0].exit_status;
		return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 0;
	}
	return 0;
}
