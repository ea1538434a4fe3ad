/* pyroscope.c - names, labels and the /ingest URL (pyroscope.h). */
#define _GNU_SOURCE
#include "output/pyroscope.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool name_char(char c)
{
	return alnum(c) || c == '_' || c == '.' || c == '-' || c == '/';
}

bool pyroscope_app_name_ok(const char *text)
{
	size_t n = strlen(text);
	if (n == 0 || n > PYROSCOPE_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!name_char(text[i]))
			return false;
	return true;
}

char *pyroscope_app_name_from(const char *text, char *out)
{
	size_t n = 0;
	for (; text[n] && n < PYROSCOPE_NAME_MAX; n++)
		out[n] = name_char(text[n]) ? text[n] : '_';
	out[n] = '\0';
	if (n == 0)
		snprintf(out, PYROSCOPE_NAME_MAX + 1, "unknown");
	return out;
}

static bool value_char(char c)
{
	return c > ' ' && c < 0x7f && !strchr("\",={}\\", c);
}

char *pyroscope_label_value_from(const char *text, char *out)
{
	size_t n = 0;
	for (; text[n] && n < PYROSCOPE_VALUE_MAX; n++)
		out[n] = value_char(text[n]) ? text[n] : '_';
	out[n] = '\0';
	if (n == 0)
		snprintf(out, PYROSCOPE_VALUE_MAX + 1, "unknown");
	return out;
}

void pyroscope_parts_free(struct pyroscope_part *parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(parts[i].text);
	free(parts);
}

/* The part of root (a label value), made at its first line. */
static struct pyroscope_part *part_of(struct pyroscope_part **parts, size_t *n, size_t *cap,
				      const char *root)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*parts)[i].root, root) == 0)
			return &(*parts)[i];
	if (!array_reserve((void **)parts, *n + 1, cap, sizeof(**parts)))
		return NULL;
	struct pyroscope_part *p = &(*parts)[(*n)++];
	*p = (struct pyroscope_part){ .text = NULL };
	memcpy(p->root, root, sizeof(p->root));
	return p;
}

/* Appends line (len bytes, its newline included) to part. */
static int part_append(struct pyroscope_part *part, const char *line, size_t len)
{
	if (!array_reserve((void **)&part->text, part->len + len + 1, &part->cap, 1))
		return -1;
	memcpy(part->text + part->len, line, len);
	part->len += len;
	part->text[part->len] = '\0';
	const char *space = memrchr(line, ' ', len);
	if (space)
		part->samples += strtoull(space + 1, NULL, 10);
	return 0;
}

int pyroscope_split_roots(const char *text, size_t len, struct pyroscope_part **parts, size_t *n)
{
	struct pyroscope_part *list = NULL;
	size_t count = 0, cap = 0;
	for (size_t at = 0; at < len;) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		size_t line_len = nl ? (size_t)(nl - line) + 1 : len - at;
		at += line_len;
		if (line_len <= 1)
			continue;
		/* the root: up to the first ';', or the last space (a stack of
		 * one frame) */
		const char *end = memchr(line, ';', line_len);
		if (!end)
			end = memrchr(line, ' ', line_len);
		char raw[PYROSCOPE_VALUE_MAX + 1], root[PYROSCOPE_VALUE_MAX + 1];
		size_t root_len = end ? (size_t)(end - line) : 0;
		if (root_len > PYROSCOPE_VALUE_MAX)
			root_len = PYROSCOPE_VALUE_MAX;
		memcpy(raw, line, root_len);
		raw[root_len] = '\0';
		pyroscope_label_value_from(raw, root);
		struct pyroscope_part *part = part_of(&list, &count, &cap, root);
		if (!part || part_append(part, line, line_len) != 0) {
			pyroscope_parts_free(list, count);
			return -1;
		}
	}
	*parts = list;
	*n = count;
	return 0;
}

int pyroscope_parse_label(const char *text, struct pyroscope_label *out, char *err,
			  size_t errlen)
{
	const char *eq = strchr(text, '=');
	if (!eq) {
		snprintf(err, errlen, "invalid label '%s' for --label: expected KEY=VALUE", text);
		return -1;
	}
	size_t klen = (size_t)(eq - text), vlen = strlen(eq + 1);
	bool key_ok = klen > 0 && klen <= PYROSCOPE_KEY_MAX && !(text[0] >= '0' && text[0] <= '9') &&
		      !(klen >= 2 && text[0] == '_' && text[1] == '_');
	for (size_t i = 0; key_ok && i < klen; i++)
		key_ok = alnum(text[i]) || text[i] == '_';
	if (!key_ok) {
		snprintf(err, errlen, "invalid label key '%.*s' in '%s' for --label: expected 1 to %d of "
			 "A-Z a-z 0-9 _, not starting with a digit or \"__\"",
			 (int)klen, text, text, PYROSCOPE_KEY_MAX);
		return -1;
	}
	bool value_ok = vlen > 0 && vlen <= PYROSCOPE_VALUE_MAX;
	for (size_t i = 0; value_ok && i < vlen; i++)
		value_ok = value_char(eq[1 + i]);
	if (!value_ok) {
		snprintf(err, errlen, "invalid label value '%s' in '%s' for --label: expected 1 to %d "
			 "printable characters, none of space \" , = { } \\",
			 eq + 1, text, PYROSCOPE_VALUE_MAX);
		return -1;
	}
	memcpy(out->key, text, klen);
	out->key[klen] = '\0';
	memcpy(out->value, eq + 1, vlen + 1);
	return 0;
}

unsigned pyroscope_sample_rate(uint64_t interval_ns)
{
	if (interval_ns == 0)
		return 1;
	uint64_t hz = (1000000000ULL + interval_ns / 2) / interval_ns;
	if (hz > UINT32_MAX)
		hz = UINT32_MAX;
	return hz ? (unsigned)hz : 1;
}

int pyroscope_escape(const char *text, char *out, size_t outsz)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		bool keep = alnum((char)*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~';
		size_t need = keep ? 1 : 3;
		if (n + need >= outsz)
			return -1;
		if (keep) {
			out[n++] = (char)*p;
		} else {
			out[n++] = '%';
			out[n++] = hex[*p >> 4];
			out[n++] = hex[*p & 15];
		}
	}
	if (n >= outsz)
		return -1;
	out[n] = '\0';
	return (int)n;
}

int pyroscope_check_url(const char *base, char *err, size_t errlen)
{
	const char *host = NULL;
	if (strncmp(base, "http://", 7) == 0)
		host = base + 7;
	else if (strncmp(base, "https://", 8) == 0)
		host = base + 8;
	if (!host) {
		snprintf(err, errlen, "invalid URL '%s' for --push: expected http://HOST[:PORT][/PATH] or https://...",
			 base);
		return -1;
	}
	if (!host[0] || host[0] == '/' || host[0] == ':') {
		snprintf(err, errlen, "invalid URL '%s' for --push: no host", base);
		return -1;
	}
	for (const unsigned char *p = (const unsigned char *)base; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '?' || *p == '#') {
			snprintf(err, errlen, "invalid URL '%s' for --push: no query, fragment, space or control character: "
				 "the profiler adds /ingest?...", base);
			return -1;
		}
	if (strlen(base) > 512) {
		snprintf(err, errlen, "invalid URL '%.64s...' for --push: longer than 512 characters", base);
		return -1;
	}
	return 0;
}

int pyroscope_ingest_url(const char *base, const char *app,
			 const struct pyroscope_label *labels, size_t n_labels, uint64_t from,
			 uint64_t until, unsigned sample_rate, char *out, size_t outsz)
{
	/* the name as Pyroscope spells it, then escaped as a whole */
	char name[PYROSCOPE_NAME_MAX + 8 +
		  PYROSCOPE_LABELS_MAX * (PYROSCOPE_KEY_MAX + PYROSCOPE_VALUE_MAX + 2) + 2];
	size_t used = (size_t)snprintf(name, sizeof(name), "%s.wall{", app);
	for (size_t i = 0; i < n_labels && used < sizeof(name); i++)
		used += (size_t)snprintf(name + used, sizeof(name) - used, "%s%s=%s", i ? "," : "",
					 labels[i].key, labels[i].value);
	if (used + 2 > sizeof(name))
		return -1;
	name[used++] = '}';
	name[used] = '\0';
	char escaped[3 * sizeof(name)];
	if (pyroscope_escape(name, escaped, sizeof(escaped)) < 0)
		return -1;
	size_t blen = strlen(base);
	while (blen > 0 && base[blen - 1] == '/')
		blen--;
	int n = snprintf(out, outsz,
			 "%.*s/ingest?name=%s&from=%" PRIu64 "&until=%" PRIu64
			 "&sampleRate=%u&spyName=" PYROSCOPE_SPY_NAME "&format=folded",
			 (int)blen, base, escaped, from, until, sample_rate);
	return n < 0 || (size_t)n >= outsz ? -1 : n;
}

void pyroscope_window_seconds(uint64_t start_unix_ns, uint64_t end_unix_ns, uint64_t *from,
			      uint64_t *until)
{
	/* Rounded to the nearest second, both ends alike: windows that meet
	 * still meet, and a short last window that starts just before a
	 * second does not take its predecessor's seconds. */
	*from = (start_unix_ns + 500000000ULL) / 1000000000ULL;
	*until = (end_unix_ns + 500000000ULL) / 1000000000ULL;
	if (*until <= *from)
		*until = *from + 1;
}
