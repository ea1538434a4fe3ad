/* oracle.c - Oracle wait-event frames and event-name files. */
#define _GNU_SOURCE
#include "db/oracle.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/frame.h"
#include "base/array.h"

#define MAX_EVENT 1000000 /* Oracle has a few thousand events */

struct event_names {
	char **name; /* indexed by event number */
	size_t cap;
};

int parse_address(const char *text, uint64_t *out)
{
	if (!text || !isdigit((unsigned char)text[0]))
		return -1;
	int base = 10;
	const char *digits = text;
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		base = 16;
		digits = text + 2;
		if (!isxdigit((unsigned char)digits[0]))
			return -1;
	}
	errno = 0;
	char *end;
	unsigned long long v = strtoull(digits, &end, base);
	if (errno || *end || v == 0)
		return -1;
	*out = v;
	return 0;
}

void oracle_names_free(struct event_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->cap; i++)
		free(n->name[i]);
	free(n->name);
	free(n);
}

static int set_name(struct event_names *n, unsigned long ev, const char *name)
{
	size_t had = n->cap;
	if (!array_reserve((void **)&n->name, (size_t)ev + 1, &n->cap, sizeof(*n->name)))
		return -1;
	memset(n->name + had, 0, (n->cap - had) * sizeof(*n->name));
	char clean[256];
	frame_sanitize(name, clean, sizeof(clean));
	free(n->name[ev]);
	n->name[ev] = strdup(clean);
	return n->name[ev] ? 0 : -1;
}

/* "123" at *p, advancing it; -1 if no digits or out of range. */
static long event_number(const char **p)
{
	if (!isdigit((unsigned char)**p))
		return -1;
	long v = 0;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v >= MAX_EVENT)
			return -1;
		(*p)++;
	}
	return v;
}

/* One line of either format; returns NULL or the reason it is malformed. */
static const char *parse_line(struct event_names *n, char *line)
{
	static const char sed_head[] = "s/\\<event#=";
	static const char sed_mid[] = "\\>/event=";
	const char *p = line;
	if (strncmp(p, sed_head, sizeof(sed_head) - 1) == 0) {
		p += sizeof(sed_head) - 1;
		long ev = event_number(&p);
		if (ev < 0)
			return "bad event number";
		if (strncmp(p, sed_mid, sizeof(sed_mid) - 1) != 0)
			return "expected \\>/event= after the event number";
		p += sizeof(sed_mid) - 1;
		/* NAME runs to the first unescaped '/'; "\/" is a '/'. */
		char name[256];
		size_t len = 0;
		for (; *p && *p != '/'; p++) {
			if (*p == '\\' && p[1])
				p++;
			if (len + 1 < sizeof(name))
				name[len++] = *p;
		}
		name[len] = '\0';
		if (*p != '/' || (strcmp(p, "/g") != 0 && strcmp(p, "/") != 0))
			return "expected /g at the end of the substitution";
		if (!len)
			return "empty event name";
		return set_name(n, (unsigned long)ev, name) ? "out of memory" : NULL;
	}
	long ev = event_number(&p);
	if (ev < 0 || *p != '\t')
		return "expected s/\\<event#=N\\>/event=NAME/g or N<TAB>NAME";
	if (!p[1])
		return "empty event name";
	return set_name(n, (unsigned long)ev, p + 1) ? "out of memory" : NULL;
}

struct event_names *oracle_names_read(FILE *f, const char *path, char *err, size_t errlen)
{
	struct event_names *n = calloc(1, sizeof(*n));
	if (!n) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
				   line[len - 1] == ' '))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		const char *why = parse_line(n, line);
		if (why) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
			free(line);
			oracle_names_free(n);
			return NULL;
		}
	}
	free(line);
	return n;
}

struct event_names *oracle_names_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "cannot read event names '%s': %s", path, strerror(errno));
		return NULL;
	}
	struct event_names *n = oracle_names_read(f, path, err, errlen);
	fclose(f);
	return n;
}

const char *oracle_event_name(const struct event_names *n, uint32_t ev)
{
	return n && ev < n->cap ? n->name[ev] : NULL;
}

size_t oracle_state_frame(uint32_t ksuseopc, int32_t ksusetim,
			  const struct event_names *names, char *out, size_t outsz)
{
	const char *name = oracle_event_name(names, ksuseopc);
	char text[320];
	if (ksusetim > 0)
		snprintf(text, sizeof(text), "On CPU (Oracle state)");
	else if (name)
		snprintf(text, sizeof(text), "event=%s (Oracle state)", name);
	else
		snprintf(text, sizeof(text), "event#=%u (Oracle state)", ksuseopc);
	return frame_sanitize(text, out, outsz);
}

const char *oracle_words_frame(bool read, uint32_t ksuseopc, int32_t ksusetim,
			       const struct event_names *names, char *out, size_t outsz)
{
	if (!read)
		snprintf(out, outsz, "[unreadable] (Oracle state)");
	else
		oracle_state_frame(ksuseopc, ksusetim, names, out, outsz);
	return out;
}
