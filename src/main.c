/* main.c - parse, attach (or launch), sample, detach, print.
 *
 * Whatever ends the run - -n or -t reached, SIGINT/SIGTERM/SIGHUP/SIGPIPE,
 * the target's exit - the threads are detached first (the target must not
 * wait for our output), then what was collected is written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "aggregate.h"
#include "options.h"
#include "output.h"
#include "sampler.h"
#include "target.h"

static volatile int quit;

static void on_quit(int sig)
{
	(void)sig;
	quit = 1;
}

static void setup_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit; /* no SA_RESTART: waits return EINTR at once */
	sigemptyset(&sa.sa_mask);
	int quit_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	for (size_t i = 0; i < sizeof(quit_signals) / sizeof(quit_signals[0]); i++)
		sigaction(quit_signals[i], &sa, NULL);
	/* Tracee events arrive as SIGCHLD; it stays blocked and is waited for
	 * with sigtimedwait between ticks. */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
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

	FILE *out = stdout;
	if (o.output_path) {
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

	struct target t;
	if (o.command) {
		if (target_launch(&t, o.command, err, sizeof(err)) != 0) {
			fprintf(stderr, "ptrace_profiler: %s\n", err);
			return 2;
		}
	} else {
		enum attach_error e = target_attach(&t, o.pid, err, sizeof(err));
		if (e != ATTACH_OK) {
			fprintf(stderr, "ptrace_profiler: %s\n", err);
			return e == ATTACH_NO_PROCESS ? 2 : 1;
		}
	}
	if (!t.kernel_stacks)
		fprintf(stderr, "ptrace_profiler: warning: cannot read /proc/%d/stack "
			"(needs root): user stacks only\n", (int)t.pid);

	struct stack_table *table = stack_table_new();
	struct sampler_result r;
	int rc = table ? sampler_run(&o, &t, table, out, &quit, &r) : -1;
	if (!table)
		memset(&r, 0, sizeof(r));

	bool exited = t.exited;
	target_detach(&t);
	if (o.command && !exited) {
		/* Launched and still running: it was started for this run, so
		 * it ends with it, as with perf record -- COMMAND. */
		kill(t.pid, SIGTERM);
		waitpid(t.pid, NULL, 0);
	}

	if (rc == 0 && o.format == FORMAT_FOLDED && output_folded(out, table) != 0)
		rc = -1;
	if (fflush(out) != 0 || ferror(out))
		rc = -1;
	if (rc != 0)
		fprintf(stderr, "ptrace_profiler: error writing the output\n");
	if (exited)
		fprintf(stderr, "ptrace_profiler: process %d exited; profile covers its run until then\n",
			(int)t.pid);
	sampler_print_summary(stderr, &o, &t, &r);
	stack_table_free(table);
	target_free(&t);
	if (out != stdout)
		fclose(out);
	return rc == 0 ? 0 : 1;
}
