/* pgwait.c - PostgreSQL versions and wait event frames (pgwait.h). */
#define _GNU_SOURCE
#include "db/pgwait.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/frame.h"

/* Digits at text[*i] (at most 6), advancing *i; -1 if none. */
static int number(const char *text, size_t len, size_t *i)
{
	int v = 0, digits = 0;
	while (*i < len && isdigit((unsigned char)text[*i])) {
		if (++digits > 6)
			return -1;
		v = v * 10 + (text[(*i)++] - '0');
	}
	return digits ? v : -1;
}

static bool starts(const char *text, size_t len, size_t i, const char *word)
{
	size_t n = strlen(word);
	return len - i >= n && memcmp(text + i, word, n) == 0;
}

/* What may follow a version: the end, a space ("15.18 (Debian ...)"), a
 * newline (PG_VERSION), a NUL (a string in a binary). */
static bool version_end(const char *text, size_t len, size_t i)
{
	return i == len || text[i] == '\0' || isspace((unsigned char)text[i]);
}

int pg_version_parse(const char *text, size_t len, struct pg_version *v)
{
	size_t i = 0;
	int major = number(text, len, &i);
	if (major <= 0)
		return -1;
	int minor = -1;
	if (i < len && text[i] == '.') {
		i++;
		if ((minor = number(text, len, &i)) < 0)
			return -1;
		if (major < 10 && i < len && text[i] == '.') {
			/* 9.6.24: the major version is 9.6 */
			i++;
			if (number(text, len, &i) < 0)
				return -1;
		}
	} else if (starts(text, len, i, "devel")) {
		i += 5;
	} else if (starts(text, len, i, "beta") || starts(text, len, i, "rc")) {
		i += text[i] == 'b' ? 4 : 2;
		if (number(text, len, &i) < 0)
			return -1;
	}
	if (!version_end(text, len, i))
		return -1;
	if (major < 10 && minor < 0)
		return -1; /* "9" alone names no release */
	*v = (struct pg_version){ major, minor };
	return 0;
}

#define BINARY_MARK "postgres (PostgreSQL) "

int pg_version_in_binary(const void *buf, size_t len, struct pg_version *v)
{
	const char *p = buf, *end = p + len;
	size_t mark = sizeof(BINARY_MARK) - 1;
	while ((size_t)(end - p) > mark) {
		const char *hit = memmem(p, (size_t)(end - p), BINARY_MARK, mark);
		if (!hit)
			return -1;
		const char *text = hit + mark;
		size_t n = (size_t)(end - text);
		if (n > 32)
			n = 32;
		if (pg_version_parse(text, n, v) == 0)
			return 0;
		p = hit + 1;
	}
	return -1;
}

const char *pg_version_name(const struct pg_version *v, char *buf, size_t len)
{
	if (v->major < 10)
		snprintf(buf, len, "%d.%d", v->major, v->minor);
	else
		snprintf(buf, len, "%d", v->major);
	return buf;
}

const struct pg_wait_table *pg_wait_table_for(int major)
{
	for (size_t i = 0; i < pg_wait_n_tables; i++)
		if (pg_wait_tables[i].major == major)
			return &pg_wait_tables[i];
	return NULL;
}

static const struct pg_wait_class *class_of(const struct pg_wait_table *t, uint32_t word)
{
	for (size_t i = 0; t && i < t->n_classes; i++)
		if (t->classes[i].id == word >> 24)
			return &t->classes[i];
	return NULL;
}

const char *pg_wait_type(const struct pg_wait_table *t, uint32_t word)
{
	const struct pg_wait_class *c = word ? class_of(t, word) : NULL;
	return c ? c->type : NULL;
}

const char *pg_wait_name(const struct pg_wait_table *t, uint32_t word)
{
	const struct pg_wait_class *c = word ? class_of(t, word) : NULL;
	if (!c)
		return NULL;
	/* Bits 16-23 are never set by the server: a word with them is not
	 * one it wrote, whatever its class says. */
	if (word & 0x00ff0000)
		return NULL;
	if (c->any)
		return c->any;
	uint32_t id = word & 0xffff;
	return id < c->n_events ? c->events[id] : NULL;
}

size_t pg_wait_frame(const struct pg_wait_table *t, uint32_t word, char *out, size_t outsz)
{
	char text[160];
	const char *type = pg_wait_type(t, word), *name = pg_wait_name(t, word);
	if (word == 0)
		snprintf(text, sizeof(text), "On CPU (PostgreSQL state)");
	else if (type && name)
		snprintf(text, sizeof(text), "event=%s:%s (PostgreSQL state)", type, name);
	else
		snprintf(text, sizeof(text), "event=0x%08x (PostgreSQL state)", word);
	return frame_sanitize(text, out, outsz);
}
