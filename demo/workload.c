/* workload.c - the bundled demo: a toy "database" with the three kinds of
 * time a DBA meets.  Thread "db_main" parses queries and sorts rows (CPU),
 * writes and fsyncs a log (blocking I/O), and idles between requests
 * (sleeping); thread "db_logger" waits on a pipe for occasional messages.
 *   workload [SECONDS]   (default 30) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static char log_path[64];
static int log_pipe[2];
static volatile sig_atomic_t done;

static void on_term(int sig) { (void)sig; done = 1; }

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

__attribute__((noinline)) uint64_t parse_query(uint64_t seed)
{
	for (int i = 0; i < 3000000; i++)
		seed = seed * 2862933555777941757ULL + 3037000493ULL;
	return seed;
}

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

__attribute__((noinline)) void sort_rows(uint64_t seed)
{
	static uint32_t rows[200000];
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		rows[i] = (uint32_t)(seed = seed * 6364136223846793005ULL + 1);
	qsort(rows, sizeof(rows) / sizeof(rows[0]), sizeof(rows[0]), cmp);
}

__attribute__((noinline)) void wait_for_disk(int fd)
{
	char block[4096];
	memset(block, 'x', sizeof(block));
	for (int i = 0; i < 8; i++)
		if (write(fd, block, sizeof(block)) < 0)
			break;
	fsync(fd);
}

__attribute__((noinline)) void sleep_between_requests(void)
{
	struct timespec ts = { 0, 20 * 1000000L };
	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void wait_for_message(void)
{
	char buf[64];
	while (!done && read(log_pipe[0], buf, sizeof(buf)) > 0)
		;
}

static void *logger(void *arg)
{
	(void)arg;
	wait_for_message();
	return NULL;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 30;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	prctl(PR_SET_NAME, "db_main");
	snprintf(log_path, sizeof(log_path), "/tmp/ptrace_profiler_demo.%d", (int)getpid());
	int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || pipe(log_pipe) != 0)
		return 1;
	pthread_t t;
	pthread_create(&t, NULL, logger, NULL);
	pthread_setname_np(t, "db_logger");

	uint64_t end = now_ms() + (uint64_t)seconds * 1000, seed = 1;
	for (int request = 0; !done && now_ms() < end; request++) {
		seed = parse_query(seed);
		sort_rows(seed);
		wait_for_disk(fd);
		sleep_between_requests();
		if (request % 10 == 0 && write(log_pipe[1], "req\n", 4) < 0)
			break;
		if (request % 50 == 0 && ftruncate(fd, 0) != 0)
			break;
	}
	done = 1;
	close(log_pipe[1]); /* wakes the logger */
	pthread_join(t, NULL);
	close(fd);
	unlink(log_path);
	return 0;
}
