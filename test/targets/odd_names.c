/* odd_names.c - threads whose names no output format may pass on as they
 * are, each asleep in doze for as long as the program runs:
 *   "bad\xff\xfe\xc0\xaf\xe2\x82"  invalid UTF-8: stray bytes, an
 *                                  overlong '/', a sequence cut short
 *   "esc\x1b[31m\nnl"              an escape sequence and a newline
 *   " 12345"                       what perf-script readers take for a pid
 *   "a;b 7"                        a folded separator, a count-like tail
 *   "caf\xc3\xa9"                  valid UTF-8, to be kept as it is
 *   "x"                            one character
 * The main thread (the process's comm) is "main\xed\xa0\x80", a UTF-16
 * surrogate.  The names are set by each thread with prctl(PR_SET_NAME),
 * which takes any bytes (15 at most).  Writes "ready" to argv[1] once
 * every thread has its name (if given). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static const char *const names[] = {
	"bad\xff\xfe\xc0\xaf\xe2\x82", "esc\x1b[31m\nnl", " 12345", "a;b 7", "caf\xc3\xa9", "x",
};
#define N_NAMES (sizeof(names) / sizeof(names[0]))

static pthread_barrier_t named;

__attribute__((noinline)) void doze(void)
{
	struct timespec ts = { 0, 50 * 1000000L };
	for (;;)
		nanosleep(&ts, NULL);
}

static void *run(void *arg)
{
	prctl(PR_SET_NAME, (unsigned long)arg, 0, 0, 0);
	pthread_barrier_wait(&named);
	doze();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_barrier_init(&named, NULL, N_NAMES + 1);
	prctl(PR_SET_NAME, (unsigned long)"main\xed\xa0\x80", 0, 0, 0);
	for (size_t i = 0; i < N_NAMES; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, run, (void *)names[i]) != 0)
			return 1;
	}
	pthread_barrier_wait(&named);
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");
		if (!f)
			return 1;
		fputs("ready\n", f);
		fclose(f);
	}
	doze();
}
