/* pgtitle.c - a PostgreSQL process's type from its title (pgtitle.h).
 *
 * Where the words come from: init_ps_display() of 13 to 18 (ps_status.c)
 * writes "postgres: ", cluster_name and ": " when set, then its fixed part:
 * GetBackendTypeDesc() for an auxiliary process, the bgw_name for a
 * background worker (bgworker.c), and for a session what
 * BackendInitialize() builds - "walsender " for a walsender, the user,
 * the database (none for a physical walsender), the host and "(PORT)".
 */
#include "db/pgtitle.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "db/pgactivity.h"

#define PREFIX "postgres: "

/* Background workers of PostgreSQL's own whose bgw_name says more than
 * their bgw_type, which pg_stat_activity shows: the name's first words,
 * and the type.  ("logical replication launcher" is both.) */
static const struct {
	const char *title, *type;
} workers[] = {
	{ "parallel worker for PID", "parallel worker" },
	{ "logical replication launcher", "logical replication launcher" },
	{ "logical replication worker", "logical replication worker" },             /* 14, 15 */
	{ "logical replication apply worker", "logical replication apply worker" }, /* 16- */
	{ "logical replication tablesync worker", "logical replication tablesync worker" },
	{ "logical replication parallel apply worker", "logical replication parallel worker" },
};

/* The length of the word at s (up to a space or the end). */
static size_t word_len(const char *s)
{
	return strcspn(s, " ");
}

/* The word after s's first n words ("" when there is none). */
static const char *word_after(const char *s, int n)
{
	while (n-- > 0) {
		s += word_len(s);
		s += strspn(s, " ");
	}
	return s;
}

/* A session's host: "[local]", or an address or name and "(PORT)". */
static bool host_like(const char *w, size_t n)
{
	if (n == 7 && memcmp(w, "[local]", 7) == 0)
		return true;
	if (n < 4 || w[n - 1] != ')')
		return false;
	size_t digits = 0;
	while (digits + 2 < n && w[n - 2 - digits] >= '0' && w[n - 2 - digits] <= '9')
		digits++;
	return digits > 0 && w[n - 2 - digits] == '(' && n - 2 - digits > 0;
}

static size_t put(const char *words, size_t n, char *out, size_t outsz)
{
	if (outsz == 0)
		return 0;
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, words, n);
	out[n] = '\0';
	return n;
}

size_t pg_title_type(const char *title, char *out, size_t outsz)
{
	put("", 0, out, outsz);
	if (strncmp(title, PREFIX, strlen(PREFIX)) != 0)
		return 0;
	const char *rest = title + strlen(PREFIX);
	rest += strspn(rest, " ");
	size_t first = word_len(rest);
	/* cluster_name: "postgres: main: checkpointer" */
	if (first > 1 && rest[first - 1] == ':' && rest[first] == ' ') {
		rest += first;
		rest += strspn(rest, " ");
		first = word_len(rest);
	}
	if (!*rest)
		return 0;
	/* a session: USER DATABASE HOST, or walsender USER [DATABASE] HOST */
	const char *third = word_after(rest, 2);
	bool walsender = first == 9 && memcmp(rest, "walsender", 9) == 0;
	if (!walsender && host_like(third, word_len(third)))
		return put("client backend", strlen("client backend"), out, outsz);
	for (size_t i = 0; i < sizeof(workers) / sizeof(workers[0]); i++) {
		size_t n = strlen(workers[i].title);
		if (strncmp(rest, workers[i].title, n) == 0 && (rest[n] == ' ' || rest[n] == '\0'))
			return put(workers[i].type, strlen(workers[i].type), out, outsz);
	}
	/* the longest type some major spells that starts the words */
	size_t best = 0;
	for (size_t end = first;; end += 1 + word_len(rest + end + 1)) {
		if (pg_backend_type_spelled(rest, end))
			best = end;
		if (rest[end] == '\0')
			break;
	}
	if (best)
		return put(rest, best, out, outsz);
	/* a worker of an extension's: its own name, all of it */
	size_t n = strlen(rest);
	while (n && rest[n - 1] == ' ')
		n--;
	return put(rest, n, out, outsz);
}
