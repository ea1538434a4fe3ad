/* Unit tests: perf-script text - the exact block, time that never goes
 * back, lines the importers' patterns take, and a collapse of it (as
 * stackcollapse-perf.pl --all does, its tidying of names included) that
 * gives back the folded output's stacks, states and roots whole. */
#define _GNU_SOURCE
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output/output.h"
#include "profile_fixture.h"
#include "written.h"

static char *write_as(const struct profile *p, enum output_format fmt)
{
	struct written w;
	assert_int_equal(output_write(written_open(&w), fmt, p), 0);
	return written_text(&w);
}

static const char *const SLEEP[] = { "db_writer", "event=log file sync (Oracle state)", "S (sleeping)",
				     "_start", "main", "work", "entry_SYSCALL_64_after_hwframe_[k]",
				     "do_nanosleep_[k]", NULL };
static const char *const RUN[] = { "db_main", "R (running)", "main", "cpu_work", "mix_[i]", NULL };

static void exact_blocks(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "cmd", "t", 1000000);
	fx.p.start_unix_ns = 1764000000123456789ULL;
	size_t w = fixture_thread(&fx, 100, 101, "db", "db_writer");
	size_t m = fixture_thread(&fx, 100, 100, "db", "db_main");
	fixture_sample(&fx, w, 1000, 1000000, SLEEP);
	fixture_sample(&fx, m, 2000000, 1000000, RUN);
	char *text = write_as(fixture_profile(&fx), FORMAT_PERF_SCRIPT);
	assert_string_equal(text,
		"db_writer 100/101 1764000000.123457: 1 wall:\n"
		"\t0 do_nanosleep ([kernel.kallsyms])\n"
		"\t0 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])\n"
		"\t0 work ([unknown])\n"
		"\t0 main ([unknown])\n"
		"\t0 _start ([unknown])\n"
		"\t0 S [sleeping] ([unknown])\n"
		"\t0 event=log file sync [Oracle state] ([unknown])\n"
		"\n"
		"db_main 100/100 1764000000.125456: 1 wall:\n"
		"\t0 mix_[i] ([unknown])\n"
		"\t0 cpu_work ([unknown])\n"
		"\t0 main ([unknown])\n"
		"\t0 R [running] ([unknown])\n"
		"\n");
	free(text);
	fixture_free(&fx);
}

/* Seconds.micro of every header, in order. */
static size_t header_times(const char *text, uint64_t *out, size_t max)
{
	size_t n = 0;
	for (const char *line = text; *line && n < max;) {
		size_t len = strcspn(line, "\n");
		if (line[0] != '\t' && len) {
			const char *colon = strstr(line, ": 1 wall:");
			const char *sp = colon;
			while (sp > line && sp[-1] != ' ')
				sp--;
			unsigned long long s, us;
			assert_int_equal(sscanf(sp, "%llu.%6llu:", &s, &us), 2);
			out[n++] = s * 1000000 + us;
		}
		line += len + (line[len] != '\0');
	}
	return n;
}

static void time_never_goes_back(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "cmd", "t", 1000000);
	size_t m = fixture_thread(&fx, 1, 1, "p", "db_main");
	/* a sample out of order: written at the time of the one before */
	uint64_t times[] = { 1000, 2000000, 3000000, 2500000, 2999999, 4000000 };
	for (size_t i = 0; i < 6; i++)
		fixture_sample(&fx, m, times[i] * 1000, 1000000, RUN);
	char *text = write_as(fixture_profile(&fx), FORMAT_PERF_SCRIPT);
	uint64_t got[8];
	assert_int_equal(header_times(text, got, 8), 6);
	uint64_t start_us = fx.p.start_unix_ns / 1000;
	uint64_t want[] = { 1000, 2000000, 3000000, 3000000, 3000000, 4000000 };
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(got[i], start_us + want[i]);
	free(text);
	fixture_free(&fx);
}

static bool matches(const char *pattern, const char *line)
{
	regex_t re;
	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	bool ok = regexec(&re, line, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

/* The shapes the importers parse (speedscope's and FlameScope's patterns,
 * in POSIX terms): a header that starts with the comm, pid/tid, a time
 * with a fraction followed by ": ", and ends with the event and ':'; frame
 * lines "address name (module)" with no space in the module. */
static void lines_the_importers_take(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "cmd", "t", 1000000);
	size_t m = fixture_thread(&fx, 1, 2, "p", "pg worker 3");
	fixture_sample(&fx, m, 1, 1, (const char *[]){ "pg worker 3", "R (running)",
			"Foo::bar(std::map<int, int> const&) (x.c:42)", "[libc.so.6]", NULL });
	char *text = write_as(fixture_profile(&fx), FORMAT_PERF_SCRIPT);
	const char *header = "^[^[:space:]].*[[:space:]]+[0-9]+/[0-9]+[[:space:]]+[0-9]+\\.[0-9]{6}:[[:space:]]+"
			     "[0-9]+ [^[:space:]]+:$";
	const char *frame = "^[\t ]*[0-9a-fA-F]+ .+ \\([^[:space:]()]*\\)$";
	size_t headers = 0, frames = 0, blanks = 0;
	for (char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		char save = line[len];
		line[len] = '\0';
		if (!len)
			blanks++;
		else if (line[0] == '\t') {
			frames++;
			if (!matches(frame, line))
				fail_msg("frame line '%s'", line);
		} else {
			headers++;
			if (!matches(header, line))
				fail_msg("header line '%s'", line);
		}
		line[len] = save;
		line += len + (save != '\0');
	}
	assert_int_equal(headers, 1);
	assert_int_equal(frames, 3);
	assert_int_equal(blanks, 1);
	free(text);
	fixture_free(&fx);
}

/* The comm as stackcollapse-perf.pl and speedscope find it - both read
 * ^(\S.+?)\s+(\d+)... (a non-space, at least one more character, up to
 * the first blank followed by digits): " 12345" would start no header
 * (stackcollapse-perf.pl drops the sample), "pg worker 3" would be comm
 * "pg worker" of pid 3, and "x" would swallow pid and time.  Blanks are
 * written '_', and a comm of one character gets one after it. */
static void comm_read_back_whole(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "cmd", "t", 1000000);
	const char *const names[] = { " 12345", "pg worker 3", "x", "\xc3\xa9", "a\xe3\x80\x80" "1 2",
				      "caf\xc3\xa9", "\xef\xbf\xbd" };
	const char *const want[] = { "_12345 1/", "pg_worker_3 1/", "x_ 1/", "\xc3\xa9_ 1/", "a_1_2 1/",
				     "caf\xc3\xa9 1/", "\xef\xbf\xbd_ 1/" };
	size_t k = sizeof(names) / sizeof(names[0]);
	for (size_t i = 0; i < k; i++) {
		size_t th = fixture_thread(&fx, 1, (pid_t)(2 + i), "p", names[i]);
		fixture_sample(&fx, th, i, 1, (const char *[]){ names[i], "R (running)", "main", NULL });
	}
	char *text = write_as(fixture_profile(&fx), FORMAT_PERF_SCRIPT);
	size_t headers = 0;
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		if (len && line[0] != '\t') {
			assert_true(headers < k);
			if (strncmp(line, want[headers], strlen(want[headers])) != 0)
				fail_msg("header '%.*s', not '%s...'", (int)len, line, want[headers]);
			headers++;
		}
		line += len + (line[len] != '\0');
	}
	assert_int_equal(headers, k);
	free(text);
	fixture_free(&fx);
}

/* What stackcollapse-perf.pl does to a frame's name by default (its
 * "generic tidy"): ';' becomes ':', quotes go, and everything from the
 * first '(' on is cut - unless that '(' opens "(anonymous namespace)", or
 * the name looks like a Go method ("pkg.(*T).M"). */
static void tidy(char *name)
{
	for (char *c = name; *c; c++)
		if (*c == ';')
			*c = ':';
	char *w = name;
	for (char *c = name; *c; c++)
		if (*c != '"' && *c != '\'')
			*w++ = *c;
	*w = '\0';
	regex_t go;
	regcomp(&go, "\\.\\(.*\\)\\.", REG_EXTENDED | REG_NOSUB);
	bool is_go = regexec(&go, name, 0, NULL, 0) == 0;
	regfree(&go);
	if (is_go)
		return;
	for (char *c = name; (c = strchr(c, '(')); c++)
		if (strncmp(c, "(anonymous namespace)", 21) != 0) {
			*c = '\0';
			return;
		}
}

/* stackcollapse-perf.pl --all, in short: the comm is the root, then the
 * frames outermost first, each tidied; a frame in [kernel.kallsyms] gets
 * "_[k]". */
static char *collapse(const char *text)
{
	struct { char *stack; long count; } lines[256];
	size_t n = 0;
	char stack[4096] = "", comm[256] = "";
	char *copy = strdup(text);
	for (char *line = copy; *line;) {
		size_t len = strcspn(line, "\n");
		char save = line[len];
		line[len] = '\0';
		if (len && line[0] != '\t') {
			/* comm: up to the " pid/tid" */
			regex_t re;
			regmatch_t mt[2];
			regcomp(&re, "^(.*) [0-9]+/[0-9]+ [0-9]+\\.[0-9]+: ", REG_EXTENDED);
			assert_int_equal(regexec(&re, line, 2, mt, 0), 0);
			snprintf(comm, sizeof(comm), "%.*s", (int)(mt[1].rm_eo - mt[1].rm_so), line);
			regfree(&re);
			stack[0] = '\0';
		} else if (len) {
			char *name = strchr(line, ' ') + 1, *mod = strrchr(line, '(');
			mod[-1] = '\0';
			bool kernel = strcmp(mod, "(" "[kernel.kallsyms])") == 0;
			tidy(name);
			char tmp[2 * sizeof(stack)];
			snprintf(tmp, sizeof(tmp), "%s%s%s%s", name, kernel ? "_[k]" : "", stack[0] ? ";" : "", stack);
			assert_true(strlen(tmp) < sizeof(stack));
			memcpy(stack, tmp, strlen(tmp) + 1);
		} else {
			char full[sizeof(comm) + sizeof(stack) + 1];
			snprintf(full, sizeof(full), "%s;%s", comm, stack);
			size_t i = 0;
			while (i < n && strcmp(lines[i].stack, full) != 0)
				i++;
			if (i == n) {
				lines[n].stack = strdup(full);
				lines[n++].count = 0;
			}
			lines[i].count++;
		}
		line[len] = save;
		line += len + (save != '\0');
	}
	free(copy);
	/* in byte order, as folded */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(lines[j].stack, lines[i].stack) < 0) {
				char *s = lines[i].stack;
				long c = lines[i].count;
				lines[i] = lines[j];
				lines[j].stack = s;
				lines[j].count = c;
			}
	char *out = NULL;
	size_t olen = 0;
	FILE *f = open_memstream(&out, &olen);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s %ld\n", lines[i].stack, lines[i].count);
		free(lines[i].stack);
	}
	fclose(f);
	return out;
}

static void collapses_to_the_folded_output(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "cmd", "t", 1000000);
	size_t w = fixture_thread(&fx, 100, 101, "db", "db_writer");
	size_t m = fixture_thread(&fx, 100, 100, "db", "db_main");
	const char *const K[] = { "db_main", "D (disk sleep)", "main", "[libc.so.6]", "io_schedule_[k]", NULL };
	for (uint64_t i = 0; i < 50; i++) {
		fixture_sample(&fx, m, i * 1000000, 1000000, i % 5 == 0 ? K : RUN);
		if (i % 2)
			fixture_sample(&fx, w, i * 1000000 + 7, 2000000, SLEEP);
	}
	/* a root that says more than the comm: it follows the comm; a C++
	 * signature is cut at its '(' as perf's own names are */
	size_t b = fixture_thread(&fx, 300, 300, "pg", "postgres");
	fixture_sample(&fx, b, 60000000, 1000000, (const char *[]){ "postgres[300] client backend",
			"Client:ClientRead (PostgreSQL state)", "S (sleeping)", "main",
			"ns::read(int) const", "(anonymous namespace)::f", NULL });
	const struct profile *p = fixture_profile(&fx);
	char *perf = write_as(p, FORMAT_PERF_SCRIPT);
	char *collapsed = collapse(perf);
	/* the folded output's stacks, the states' and events' annotations in
	 * brackets: whole */
	assert_string_equal(collapsed,
		"db_main;D [disk sleep];main;[libc.so.6];io_schedule_[k] 10\n"
		"db_main;R [running];main;cpu_work;mix_[i] 40\n"
		"db_writer;event=log file sync [Oracle state];S [sleeping];_start;main;work;"
		"entry_SYSCALL_64_after_hwframe_[k];do_nanosleep_[k] 25\n"
		"postgres;postgres[300] client backend;Client:ClientRead [PostgreSQL state];"
		"S [sleeping];main;ns::read;(anonymous namespace)::f 1\n");
	char *folded = write_as(p, FORMAT_FOLDED); /* (its spellings, for the record) */
	assert_non_null(strstr(folded, "postgres[300] client backend;Client:ClientRead (PostgreSQL state);"
				       "S (sleeping);main;ns::read(int) const;(anonymous namespace)::f 1\n"));
	/* and stap: the same samples, one block each */
	char *stap = write_as(p, FORMAT_STAP);
	size_t blocks = 0;
	for (const char *s = strstr(stap, "\n1\n\n"); s; s = strstr(s + 1, "\n1\n\n"))
		blocks++;
	assert_int_equal(blocks, 76);
	assert_non_null(strstr(stap, " 0x0000000000000000 : io_schedule_[k]+0x0\n"
				     " 0x0000000000000000 : [libc.so.6]+0x0\n"
				     " 0x0000000000000000 : main+0x0\n"
				     " D (disk sleep)\n1\n\n"));
	free(stap);
	free(collapsed);
	free(folded);
	free(perf);
	fixture_free(&fx);
}

static void needs_samples(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "cmd", "t", 1000000);
	fixture_thread(&fx, 1, 1, "p", "db_main");
	fixture_sample(&fx, 0, 1, 1, RUN);
	FILE *f = fopen("/dev/null", "w");
	errno = 0;
	assert_int_equal(output_write(f, FORMAT_PERF_SCRIPT, fixture_profile_as(&fx, 0)), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(output_write(f, FORMAT_STAP, fixture_profile_as(&fx, 0)), -1);
	assert_int_equal(errno, EINVAL);
	/* folded, svg and pprof do not */
	assert_int_equal(output_write(f, FORMAT_FOLDED, fixture_profile_as(&fx, 0)), 0);
	assert_int_equal(output_write(f, FORMAT_SVG, fixture_profile_as(&fx, 0)), 0);
	assert_int_equal(output_write(f, FORMAT_PPROF, fixture_profile_as(&fx, 0)), 0);
	errno = 0;
	assert_int_equal(output_write(f, (enum output_format)99, fixture_profile(&fx)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(output_write(f, FORMAT_FOLDED, NULL), -1);
	fclose(f);
	fixture_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_blocks),
		cmocka_unit_test(time_never_goes_back),
		cmocka_unit_test(lines_the_importers_take),
		cmocka_unit_test(comm_read_back_whole),
		cmocka_unit_test(collapses_to_the_folded_output),
		cmocka_unit_test(needs_samples),
	};
	return cmocka_run_group_tests_name("perf-script", tests, NULL, NULL);
}
