/* json_mini.h - a strict little JSON parser for the tests: the whole text
 * must be one value (RFC 8259: no trailing commas, no leading zeros, no
 * control characters in strings, valid UTF-8, valid escapes).  Values live
 * in one array; objects and arrays list their children. */
#ifndef JSON_MINI_H
#define JSON_MINI_H

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	double num;
	char *str;          /* J_STR: decoded; also an object member's key */
	char *key;
	size_t *kids, n_kids;
};

struct jdoc {
	struct jval *v;
	size_t n, cap;
	const char *p;
	const char *err;
};

static inline size_t j_new(struct jdoc *d, enum jtype t)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 1024;
		d->v = realloc(d->v, d->cap * sizeof(*d->v));
	}
	memset(&d->v[d->n], 0, sizeof(d->v[0]));
	d->v[d->n].type = t;
	return d->n++;
}

static inline void j_ws(struct jdoc *d)
{
	while (*d->p == ' ' || *d->p == '\t' || *d->p == '\n' || *d->p == '\r')
		d->p++;
}

static inline void j_put(char **out, size_t *len, uint32_t cp)
{
	char *o = *out + *len;
	if (cp < 0x80) {
		o[0] = (char)cp, *len += 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3f)), *len += 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12), o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f)), *len += 3;
	} else {
		o[0] = (char)(0xf0 | cp >> 18), o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		o[2] = (char)(0x80 | (cp >> 6 & 0x3f)), o[3] = (char)(0x80 | (cp & 0x3f)), *len += 4;
	}
}

static inline char *j_string(struct jdoc *d)
{
	if (*d->p != '"') {
		d->err = "string expected";
		return NULL;
	}
	d->p++;
	const char *start = d->p;
	char *out = malloc(strlen(start) + 1);
	size_t len = 0;
	while (*d->p != '"') {
		uint32_t cp;
		if (!*d->p || (unsigned char)*d->p < 0x20) {
			d->err = "control character or end in a string";
			free(out);
			return NULL;
		}
		if (*d->p == '\\') {
			char e = d->p[1];
			const char *map = strchr("\"\\/bfnrt", e);
			if (e && map) {
				out[len++] = "\"\\/\b\f\n\r\t"[map - "\"\\/bfnrt"];
				d->p += 2;
				continue;
			}
			if (e != 'u') {
				d->err = "bad escape";
				free(out);
				return NULL;
			}
			char hex[5] = { 0 };
			memcpy(hex, d->p + 2, 4);
			char *end;
			cp = (uint32_t)strtoul(hex, &end, 16);
			if (end != hex + 4) {
				d->err = "bad \\u escape";
				free(out);
				return NULL;
			}
			d->p += 6;
			j_put(&out, &len, cp);
			continue;
		}
		size_t n = utf8_next(d->p, &cp);
		if (!n) {
			d->err = "invalid UTF-8 in a string";
			free(out);
			return NULL;
		}
		memcpy(out + len, d->p, n);
		len += n;
		d->p += n;
	}
	d->p++;
	out[len] = '\0';
	return out;
}

static inline size_t j_value(struct jdoc *d, int depth);

static inline void j_add_kid(struct jdoc *d, size_t parent, size_t kid)
{
	struct jval *v = &d->v[parent];
	v->kids = realloc(v->kids, (v->n_kids + 1) * sizeof(*v->kids));
	v->kids[v->n_kids++] = kid;
}

static inline size_t j_value(struct jdoc *d, int depth)
{
	j_ws(d);
	if (d->err)
		return 0;
	if (depth > 64) {
		d->err = "too deep";
		return 0;
	}
	char c = *d->p;
	if (c == '{' || c == '[') {
		size_t id = j_new(d, c == '{' ? J_OBJ : J_ARR);
		char close = c == '{' ? '}' : ']';
		d->p++;
		j_ws(d);
		if (*d->p == close) {
			d->p++;
			return id;
		}
		for (;;) {
			char *key = NULL;
			if (close == '}') {
				j_ws(d);
				key = j_string(d);
				if (!key)
					return 0;
				j_ws(d);
				if (*d->p++ != ':') {
					d->err = "':' expected";
					free(key);
					return 0;
				}
			}
			size_t kid = j_value(d, depth + 1);
			if (d->err) {
				free(key);
				return 0;
			}
			d->v[kid].key = key;
			j_add_kid(d, id, kid);
			j_ws(d);
			if (*d->p == ',') {
				d->p++;
				continue;
			}
			if (*d->p == close) {
				d->p++;
				return id;
			}
			d->err = "',' or end expected";
			return 0;
		}
	}
	if (c == '"') {
		char *s = j_string(d);
		if (!s)
			return 0;
		size_t id = j_new(d, J_STR);
		d->v[id].str = s;
		return id;
	}
	if (strncmp(d->p, "true", 4) == 0 || strncmp(d->p, "false", 5) == 0) {
		size_t id = j_new(d, J_BOOL);
		d->v[id].num = c == 't';
		d->p += c == 't' ? 4 : 5;
		return id;
	}
	if (strncmp(d->p, "null", 4) == 0) {
		d->p += 4;
		return j_new(d, J_NULL);
	}
	const char *s = d->p;
	if (*s == '-')
		s++;
	if (!isdigit((unsigned char)*s) || (s[0] == '0' && isdigit((unsigned char)s[1]))) {
		d->err = "value expected";
		return 0;
	}
	char *end;
	double v = strtod(d->p, &end);
	if (end == d->p) {
		d->err = "number expected";
		return 0;
	}
	d->p = end;
	size_t id = j_new(d, J_NUM);
	d->v[id].num = v;
	return id;
}

/* Parses text; returns the root's index, or sets d->err. */
static inline size_t json_parse(struct jdoc *d, const char *text)
{
	memset(d, 0, sizeof(*d));
	d->p = text;
	size_t root = j_value(d, 0);
	j_ws(d);
	if (!d->err && *d->p)
		d->err = "text after the value";
	return root;
}

static inline void json_free(struct jdoc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].str);
		free(d->v[i].key);
		free(d->v[i].kids);
	}
	free(d->v);
}

/* The member of object o named key, or NULL. */
static inline const struct jval *jget(const struct jdoc *d, const struct jval *o, const char *key)
{
	if (!o || o->type != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n_kids; i++)
		if (strcmp(d->v[o->kids[i]].key, key) == 0)
			return &d->v[o->kids[i]];
	return NULL;
}

static inline const struct jval *jat(const struct jdoc *d, const struct jval *a, size_t i)
{
	return a && a->type == J_ARR && i < a->n_kids ? &d->v[a->kids[i]] : NULL;
}

#endif
