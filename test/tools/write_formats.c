/* write_formats - writes a hand-made profile in any format, through
 * output_write(), for the integration tests (test/integration/70-formats.sh)
 * to hand to the real readers (go tool pprof, xmllint, chromium), and
 * measures every format on a large profile.
 *
 *   write_formats FORMAT FILE      the demo profile (below) into FILE
 *   write_formats bench DIR [SAMPLES STACKS DEPTH]
 *                                  each format into DIR/bench.*: bytes and
 *                                  milliseconds (best of 5), one line each
 *   write_formats read-pprof FILE  a pprof file (the binary's own) read back
 *                                  with the tests' reader (pprof_read.h),
 *                                  one line per Sample: its frames root
 *                                  first, ';'-joined, its count, then each
 *                                  label as a TAB and key=value - for the
 *                                  integration tests, go tool pprof or not
 *
 * The demo: two threads of "demo (PID 4242)" for 1 s at 1 ms.  db_main
 * spends 60 % in cpu_work (under it 1/3 in an inlined mix_[i]), 25 % asleep
 * in the kernel, 15 % in a function whose name is hostile markup; db_writer
 * sleeps in read() under an application state.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "options.h"
#include "output/output.h"
#include "../unit/profile_fixture.h"
#define PPROF_READ_MAX 8192
#include "../unit/pprof_read.h"

#define HOSTILE "<script>alert(\"x\")</script> & ]]> 'q' \xff\xfe"

static void demo(struct fixture *fx)
{
	fixture_init(fx, "ptrace_profiler -p 4242 -d 1ms -t 1s -o demo", "demo (PID 4242)", 1000000);
	size_t m = fixture_thread(fx, 4242, 4242, "demo", "db_main");
	size_t w = fixture_thread(fx, 4242, 4243, "demo", "db_writer");
	const char *work[] = { "db_main", "R (running)", "_start", "main", "cpu_work", NULL };
	const char *mix[] = { "db_main", "R (running)", "_start", "main", "cpu_work", "mix_[i]", NULL };
	const char *nap[] = { "db_main", "S (sleeping)", "_start", "main", "nap", "clock_nanosleep",
			      "entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]",
			      "hrtimer_nanosleep_[k]", NULL };
	const char *odd[] = { "db_main", "R (running)", "_start", "main", HOSTILE, "[libodd.so.1]", NULL };
	const char *rd[] = { "db_writer", "event=db file sequential read (Oracle state)", "S (sleeping)",
			     "__clone3", "start_thread", "writer", "read",
			     "entry_SYSCALL_64_after_hwframe_[k]", "ksys_read_[k]", "pipe_read_[k]", NULL };
	for (uint64_t i = 0; i < 1000; i++) {
		uint64_t t = (i + 1) * 1000000;
		const char *const *s = i % 20 < 8 ? work : i % 20 < 12 ? mix : i % 20 < 17 ? nap : odd;
		fixture_sample(fx, m, t, 1000000, s);
		fixture_sample(fx, w, t + 1000, 1000000, rd);
	}
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* STACKS distinct stacks of DEPTH frames over 4 threads, SAMPLES samples. */
static void big(struct fixture *fx, size_t samples, size_t stacks, size_t depth)
{
	fixture_init(fx, "ptrace_profiler -p 4242 -d 1ms", "bench (PID 4242)", 1000000);
	static const char *names[] = { "db_main", "db_writer", "db_reader", "db_logger" };
	for (size_t i = 0; i < 4; i++)
		fixture_thread(fx, 4242, (pid_t)(4242 + i), "bench", names[i]);
	const char **frames = calloc(depth + 1, sizeof(*frames));
	char **own = calloc(stacks * depth, sizeof(*own));
	for (size_t s = 0; s < stacks; s++) {
		/* a tree: stack s shares a prefix with its neighbours */
		for (size_t d = 0; d < depth; d++) {
			if (asprintf(&own[s * depth + d], "namespace::Class%zu::function_%zu(int, char const*)",
				     d, d < 3 ? 0 : (s >> (d % 8)) + d) < 0)
				exit(1);
			frames[d] = own[s * depth + d];
		}
		frames[0] = names[s % 4];
		frames[1] = s % 3 ? "R (running)" : "S (sleeping)";
		stack_table_add(fx->t, frames, depth, 0); /* ids 0..stacks-1 */
	}
	uint64_t seed = 42;
	for (size_t i = 0; i < samples; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t s = (size_t)(seed >> 33) % stacks;
		for (size_t d = 0; d < depth; d++)
			frames[d] = own[s * depth + d];
		frames[0] = names[s % 4];
		frames[1] = s % 3 ? "R (running)" : "S (sleeping)";
		frames[depth] = NULL;
		fixture_sample(fx, s % 4, (i / 4 + 1) * 1000000, 1000000, frames);
	}
	/* the table keeps its own copies */
	for (size_t i = 0; i < stacks * depth; i++)
		free(own[i]);
	free(own);
	free(frames);
}

static int bench(const char *dir, size_t samples, size_t stacks, size_t depth)
{
	struct fixture fx;
	big(&fx, samples, stacks, depth);
	const struct profile *p = fixture_profile(&fx);
	static const struct { enum output_format fmt; const char *ext; } all[] = {
		{ FORMAT_FOLDED, "folded" }, { FORMAT_SVG, "svg" },
		{ FORMAT_SPEEDSCOPE, "speedscope.json" }, { FORMAT_PPROF, "pb.gz" },
		{ FORMAT_PERF_SCRIPT, "perf" }, { FORMAT_STAP, "stap" },
	};
	printf("# %zu samples, %zu distinct stacks of depth %zu, %zu threads\n", samples,
	       stack_table_distinct(fx.t), depth, fx.n_threads);
	printf("%-12s %10s %10s %8s %8s\n", "format", "bytes", "bytes/smp", "ms", "us/smp");
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/bench.%s", dir, all[i].ext);
		double best = 1e9;
		long size = 0;
		for (int round = 0; round < 5; round++) {
			FILE *f = fopen(path, "w");
			if (!f)
				return perror(path), 1;
			double t0 = now_ms();
			if (output_write(f, all[i].fmt, p) != 0)
				return perror(format_name(all[i].fmt)), 1;
			double t = now_ms() - t0;
			size = ftell(f);
			fclose(f);
			if (t < best)
				best = t;
		}
		printf("%-12s %10ld %10.1f %8.2f %8.2f\n", format_name(all[i].fmt), size,
		       (double)size / (double)samples, best, best * 1000 / (double)samples);
	}
	fixture_free(&fx);
	return 0;
}

static int read_pprof(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return perror(path), 1;
	char *gz = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 65536 > cap) {
			char *grown = realloc(gz, cap = 2 * cap + 65536);
			if (!grown)
				return fprintf(stderr, "read-pprof: out of memory\n"), 1;
			gz = grown;
		}
		size_t got = fread(gz + len, 1, 65536, f);
		len += got;
		if (got < 65536)
			break;
	}
	fclose(f);
	static struct decoded d;
	uint8_t *raw = NULL;
	size_t n = 0;
	if (pprof_gunzip(gz, len, &raw, &n) != 0 || pprof_decode(raw, n, &d) != 0) {
		fprintf(stderr, "read-pprof: %s: not a gzipped profile.proto as we write it (or too big)\n",
			path);
		return 1;
	}
	int rc = 0;
	for (size_t i = 0; i < d.n_samples; i++) {
		const struct psample *s = &d.samples[i];
		for (size_t k = s->n_loc; k-- > 0;) { /* leaf first in the file */
			const char *name = pprof_loc_name(&d, s->loc[k]);
			rc |= !name;
			printf("%s%s", k + 1 < s->n_loc ? ";" : "", name ? name : "?");
		}
		printf(" %" PRId64, s->n_values ? s->values[0] : 0);
		for (size_t k = 0; k < s->n_labels; k++) {
			const char *key = pprof_str(&d, s->labels[k].key);
			const char *value = s->labels[k].str ? pprof_str(&d, s->labels[k].str) : NULL;
			if (value)
				printf("\t%s=%s", key ? key : "?", value);
			else
				printf("\t%s=%" PRIu64, key ? key : "?", s->labels[k].num);
		}
		putchar('\n');
	}
	pprof_decoded_free(&d);
	free(raw);
	free(gz);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "read-pprof") == 0)
		return read_pprof(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "bench") == 0)
		return bench(argv[2], argc > 3 ? strtoul(argv[3], NULL, 10) : 10000,
			     argc > 4 ? strtoul(argv[4], NULL, 10) : 500,
			     argc > 5 ? strtoul(argv[5], NULL, 10) : 30);
	enum output_format fmt;
	if (argc != 3 || parse_format(argv[1], &fmt) != 0) {
		fprintf(stderr, "usage: write_formats FORMAT FILE | write_formats bench DIR [SAMPLES STACKS DEPTH] | "
			"write_formats read-pprof FILE\n");
		return 2;
	}
	struct fixture fx;
	demo(&fx);
	FILE *f = fopen(argv[2], "w");
	if (!f || output_write(f, fmt, fixture_profile(&fx)) != 0 || fclose(f) != 0) {
		fprintf(stderr, "write_formats: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	fixture_free(&fx);
	return 0;
}
