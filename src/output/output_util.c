/* output_util.c - see output_util.h. */
#include "output/output_util.h"

#include <errno.h>
#include <inttypes.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* An OS state as procfs.h and the sampler write it: one letter (or '?'),
 * a space, words in parentheses - "S (sleeping)", "t (stopped by
 * ptrace_profiler)".  An application state ends in " state)" and is not
 * one, whatever its words. */
bool frame_is_os_state(const char *s)
{
	size_t n = strlen(s);
	return n >= 5 && (isalpha((unsigned char)s[0]) || s[0] == '?') && s[1] == ' ' &&
	       s[2] == '(' && s[n - 1] == ')' && !ends_with(s, " state)");
}

bool frame_is_app_state(const char *s)
{
	/* a query's text may end in anything: its frame starts so */
	return strncmp(s, "query=", 6) != 0 &&
	       (ends_with(s, " state)") || strcmp(s, "[no PostgreSQL state]") == 0);
}

/* Frames between the root and the OS state: a query and an application
 * state, at most. */
#define FRAMES_BEFORE_OS_STATE 2

size_t frame_code_start(const char *const *frames, size_t n)
{
	for (size_t i = 1; i < n && i <= 1 + FRAMES_BEFORE_OS_STATE; i++)
		if (frame_is_os_state(frames[i]))
			return i + 1;
	/* no OS state where ours put it (another tool's folded text): the
	 * frame after the root, and after an application state if any */
	size_t i = 1;
	if (i < n && ends_with(frames[i], " state)"))
		i++;
	if (i < n)
		i++;
	return i < n ? i : n;
}

enum frame_role frame_role_at(const char *const *frames, size_t code_start, size_t i)
{
	const char *s = frames[i];
	if (i == 0)
		return FRAME_THREAD;
	if (i + 1 == code_start)
		return FRAME_OS_STATE;
	if (i < code_start)
		return FRAME_APP_STATE;
	if (ends_with(s, "_[k]"))
		return FRAME_KERNEL;
	if (ends_with(s, "_[i]"))
		return FRAME_INLINE;
	if (s[0] == '[' && ends_with(s, "]"))
		return FRAME_UNNAMED;
	return FRAME_USER;
}

size_t utf8_chars(const char *s)
{
	size_t n = 0;
	while (*s) {
		uint32_t cp;
		size_t len = utf8_next(s, &cp);
		s += len ? len : 1;
		n++;
	}
	return n;
}

void xml_escape(FILE *f, const char *s, size_t max_chars)
{
	for (size_t chars = 0; *s && chars < max_chars; chars++) {
		uint32_t cp;
		size_t len = utf8_next(s, &cp);
		if (!len || (cp < 0x20 && cp != '\t') || cp == 0x7f || cp == 0xfffe ||
		    cp == 0xffff) {
			fputc('?', f);
			s += len ? len : 1;
			continue;
		}
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fwrite(s, 1, len, f);
		}
		s += len;
	}
}

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		uint32_t cp;
		size_t len = utf8_next(s, &cp);
		if (!len) {
			fputs("\\ufffd", f);
			s++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (int)cp);
		else if (cp < 0x20 || cp == 0x7f)
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(s, 1, len, f);
		s += len;
	}
	fputc('"', f);
}

void format_ns(char *out, size_t outsz, uint64_t ns)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t u = units[i].ns;
		if (ns < u)
			continue;
		uint64_t whole = ns / u, frac = ns % u * 1000 / u; /* 3 decimals */
		if (ns % u * 1000 % u == 0) {
			if (frac == 0)
				snprintf(out, outsz, "%" PRIu64 "%s", whole, units[i].name);
			else {
				char digits[24]; /* frac < 1000, but the compiler cannot know */
				snprintf(digits, sizeof(digits), "%03" PRIu64, frac);
				for (size_t k = strlen(digits); k > 0 && digits[k - 1] == '0'; k--)
					digits[k - 1] = '\0';
				snprintf(out, outsz, "%" PRIu64 ".%s%s", whole, digits, units[i].name);
			}
			return;
		}
		/* Finer than a thousandth of this unit: say it in the next. */
	}
	snprintf(out, outsz, "%" PRIu64 "ns", ns);
}

size_t u64_to_dec(uint64_t v, char *out)
{
	char tmp[21];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
	return n;
}

int sample_pass(const struct profile *p,
		int (*fn)(const struct profile_sample *s, void *arg), void *arg)
{
	const struct sample_source *src = p->samples;
	if (!src || !src->next) {
		errno = EINVAL;
		return -1;
	}
	if (src->rewind && src->rewind(src->arg) != 0)
		return -1;
	size_t stacks = stack_table_distinct(p->stacks);
	for (;;) {
		struct profile_sample s;
		int rc = src->next(src->arg, &s);
		if (rc == 0)
			return 0;
		if (rc < 0)
			return -1;
		if (s.stack >= stacks || s.thread >= p->n_threads) {
			errno = EINVAL;
			return -1;
		}
		if (fn(&s, arg) != 0)
			return -1;
	}
}

static bool ptr_eq(const void *table, uint32_t id, const void *key)
{
	const struct ptr_index *m = table;
	return m->keys[id] == key;
}

int ptr_index_get(struct ptr_index *m, const void *key, uint32_t *out, bool *added)
{
	if (!m->ix.slots && hash_index_init(&m->ix) != 0)
		return -1;
	uint64_t h = hash_word((uint64_t)(uintptr_t)key);
	uint32_t id = hash_index_find(&m->ix, h, ptr_eq, m, key);
	bool is_new = id == HASH_NONE;
	if (is_new) {
		if (!array_reserve((void **)&m->keys, m->n + 1, &m->cap, sizeof(*m->keys)))
			return -1;
		id = (uint32_t)m->n;
		if (hash_index_add(&m->ix, h, id) != 0)
			return -1;
		m->keys[m->n++] = key;
	}
	*out = id;
	if (added)
		*added = is_new;
	return 0;
}

void ptr_index_free(struct ptr_index *m)
{
	free(m->keys);
	hash_index_free(&m->ix);
	memset(m, 0, sizeof(*m));
}
