/* pgquery.c - a statement's text with its constants taken out (pgquery.h).
 *
 * A small scanner that knows PostgreSQL's lexical rules as far as telling
 * constants, comments and white space from everything else needs (scan.l:
 * strings and their prefixes, dollar quotes, numbers, identifiers,
 * operators), and a writer that numbers the constants, collapses space,
 * hashes every byte it writes and keeps the first outsz - 1 of them.
 */
#include "db/pgquery.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

enum token_kind {
	T_END,
	T_SPACE,  /* white space or a comment: one space at most */
	T_NUMBER, /* a numeric constant */
	T_STRING, /* a string constant or a dollar-quoted body */
	T_PARAM,  /* $1 */
	T_WORD,   /* an identifier or a keyword */
	T_QUOTED, /* "a quoted identifier" */
	T_OP,     /* one operator character */
	T_OPEN,
	T_CLOSE,
	T_COMMA,
	T_SEMI,
	T_OTHER,  /* any other character, as it is */
};

struct token {
	enum token_kind kind;
	size_t start, end;
	unsigned param; /* T_PARAM: its number */
};

struct text {
	const char *s;
	size_t len;
};

static bool ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool ident_cont(unsigned char c)
{
	return ident_start(c) || digit(c) || c == '$';
}

static bool space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool op_char(unsigned char c)
{
	return c && strchr("~!@#^&|`?+-*/%<>=", c) != NULL;
}

static unsigned char at(const struct text *t, size_t i)
{
	return i < t->len ? (unsigned char)t->s[i] : 0;
}

/* A comment from i ('-' '-' or '/' '*'): its end.  C-style comments nest,
 * as PostgreSQL's do. */
static size_t comment_end(const struct text *t, size_t i)
{
	if (at(t, i) == '-') {
		while (i < t->len && t->s[i] != '\n' && t->s[i] != '\r')
			i++;
		return i;
	}
	int depth = 0;
	while (i < t->len) {
		if (at(t, i) == '/' && at(t, i + 1) == '*') {
			depth++;
			i += 2;
		} else if (at(t, i) == '*' && at(t, i + 1) == '/') {
			i += 2;
			if (--depth == 0)
				return i;
		} else {
			i++;
		}
	}
	return i;
}

/* A quoted run from i (at the opening quote q): its end.  A doubled quote
 * is one character of it; with backslashes (E'...'), a backslash escapes
 * the next byte. */
static size_t quoted_end(const struct text *t, size_t i, char q, bool backslashes)
{
	for (i++; i < t->len; i++) {
		if (backslashes && t->s[i] == '\\') {
			i++;
		} else if (t->s[i] == q) {
			if (at(t, i + 1) != (unsigned char)q)
				return i + 1;
			i++;
		}
	}
	return t->len;
}

/* A dollar quote's opening tag at i ("$$", "$fn$"): its length, or 0. */
static size_t dollar_tag(const struct text *t, size_t i)
{
	size_t j = i + 1;
	if (ident_start(at(t, j)))
		while (ident_start(at(t, j)) || digit(at(t, j)))
			j++;
	return at(t, j) == '$' ? j + 1 - i : 0;
}

/* The end of a dollar-quoted body whose tag (tag_len bytes) starts at i. */
static size_t dollar_end(const struct text *t, size_t i, size_t tag_len)
{
	for (size_t j = i + tag_len; j + tag_len <= t->len; j++)
		if (memcmp(t->s + j, t->s + i, tag_len) == 0)
			return j + tag_len;
	return t->len;
}

/* A number from i: digits, a fraction, an exponent; 0x/0o/0b and '_'
 * separators (16 and later); letters glued to it (PostgreSQL refuses
 * them, or reads 123abc as 123 then abc: either way no identifier). */
static size_t number_end(const struct text *t, size_t i)
{
	bool hex = at(t, i) == '0' && (at(t, i + 1) | 0x20) == 'x'; /* 0x1e-5: minus 5 */
	while (ident_cont(at(t, i)) || (at(t, i) == '.' && at(t, i + 1) != '.')) {
		if (!hex && (at(t, i) | 0x20) == 'e' && (at(t, i + 1) == '+' || at(t, i + 1) == '-') &&
		    digit(at(t, i + 2)))
			i++; /* 1e-5: the sign belongs to the exponent */
		i++;
	}
	return i;
}

/* The string constant starting at i with a prefix (E'', B'', X'', N'',
 * U&''): its end, or 0 if there is none here. */
static size_t prefixed_string_end(const struct text *t, size_t i)
{
	unsigned char c = at(t, i) | 0x20;
	if ((c == 'e' || c == 'b' || c == 'x' || c == 'n') && at(t, i + 1) == '\'')
		return quoted_end(t, i + 1, '\'', c == 'e');
	if (c == 'u' && at(t, i + 1) == '&' && at(t, i + 2) == '\'')
		return quoted_end(t, i + 2, '\'', false);
	return 0;
}

static enum token_kind punctuation(unsigned char c)
{
	switch (c) {
	case '(':
		return T_OPEN;
	case ')':
		return T_CLOSE;
	case ',':
		return T_COMMA;
	case ';':
		return T_SEMI;
	default:
		return op_char(c) ? T_OP : T_OTHER;
	}
}

/* The token at i. */
static struct token next_token(const struct text *t, size_t i)
{
	struct token k = { T_END, i, i, 0 };
	unsigned char c = at(t, i), n = at(t, i + 1);
	size_t e;
	if (i >= t->len || c == '\0')
		return k;
	if (space(c)) {
		for (e = i; space(at(t, e)) || (at(t, e) == '-' && at(t, e + 1) == '-') ||
			    (at(t, e) == '/' && at(t, e + 1) == '*');)
			e = space(at(t, e)) ? e + 1 : comment_end(t, e);
		k.kind = T_SPACE;
	} else if ((c == '-' && n == '-') || (c == '/' && n == '*')) {
		e = comment_end(t, i);
		k.kind = T_SPACE;
	} else if (c == '\'') {
		e = quoted_end(t, i, '\'', false);
		k.kind = T_STRING;
	} else if ((e = prefixed_string_end(t, i)) != 0) {
		k.kind = T_STRING;
	} else if (c == '"') {
		e = quoted_end(t, i, '"', false);
		k.kind = T_QUOTED;
	} else if (c == 'u' && n == '&' && at(t, i + 2) == '"') {
		e = quoted_end(t, i + 2, '"', false);
		k.kind = T_QUOTED;
	} else if (c == '$' && digit(n)) {
		for (e = i + 1; digit(at(t, e)); e++)
			if (k.param < 100000)
				k.param = k.param * 10 + (at(t, e) - '0');
		k.kind = T_PARAM;
	} else if (c == '$' && dollar_tag(t, i)) {
		e = dollar_end(t, i, dollar_tag(t, i));
		k.kind = T_STRING;
	} else if (digit(c) || (c == '.' && digit(n))) {
		e = number_end(t, i);
		k.kind = T_NUMBER;
	} else if (ident_start(c)) {
		/* bytes from 0x80 on are letters to PostgreSQL: an identifier
		 * with a non-ASCII letter, or a stray byte, written out character
		 * by character either way */
		for (e = i; ident_cont(at(t, e)); e++)
			;
		k.kind = T_WORD;
	} else {
		e = i + 1;
		k.kind = punctuation(c);
	}
	k.end = e > t->len ? t->len : e;
	return k;
}

/* The next token at or after i that is not space. */
static struct token next_solid(const struct text *t, size_t i)
{
	struct token k = next_token(t, i);
	return k.kind == T_SPACE ? next_token(t, k.end) : k;
}

/* Words after which a '-' cannot subtract: it negates the number that
 * follows.  (After any other word - a column, a function - it may.) */
static bool word_before_operand(const struct text *t, const struct token *w)
{
	static const char *const words[] = {
		"select", "where", "and", "or", "not", "when", "then", "else", "return",
		"returning", "values", "by", "limit", "offset", "in", "is", "set", "between",
		"like", "ilike", "as", "on", "having", "case", "default", "fetch", "exists",
		"any", "all", "some", "escape", "to", "from", "for", "distinct", "using",
	};
	size_t n = w->end - w->start;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && strncasecmp(t->s + w->start, words[i], n) == 0)
			return true;
	return false;
}

/* What came before a token, for a '-' to know whether it negates. */
enum previous {
	PREV_NOTHING,  /* start, operator, '(', ',', keyword: '-' negates */
	PREV_OPERAND,  /* a value, a column, ')': '-' subtracts */
};

/* A constant at i (a number with any minus sign that negates it, or a
 * string), given what precedes: its end, or 0 if none starts there. */
static size_t constant_at(const struct text *t, size_t i, enum previous prev)
{
	struct token k = next_token(t, i);
	if (k.kind == T_NUMBER || k.kind == T_STRING)
		return k.end;
	if (k.kind == T_OP && t->s[i] == '-' && prev == PREV_NOTHING) {
		struct token num = next_solid(t, k.end);
		if (num.kind == T_NUMBER)
			return num.end;
	}
	return 0;
}

/* At an IN's '(' (i): the end of the ')' when what is inside is one or
 * more constants (each perhaps cast: 'a'::text) separated by commas, else
 * 0. */
static size_t constant_list_end(const struct text *t, size_t i)
{
	size_t p = i + 1;
	for (;;) {
		struct token k = next_token(t, p);
		if (k.kind == T_SPACE)
			p = k.end;
		size_t e = constant_at(t, p, PREV_NOTHING);
		if (!e)
			return 0;
		k = next_solid(t, e);
		if (k.kind == T_OTHER && t->s[k.start] == ':' && at(t, k.start + 1) == ':') {
			k = next_solid(t, k.start + 2);
			if (k.kind != T_WORD)
				return 0;
			k = next_solid(t, k.end);
		}
		if (k.kind == T_CLOSE)
			return k.end;
		if (k.kind != T_COMMA)
			return 0;
		p = k.end;
	}
}

/* The writer: collapsed space, deferred ';', the hash, the kept prefix. */
struct writer {
	char *out;
	size_t cap;   /* bytes out may hold, the NUL excluded */
	size_t len;
	bool full;    /* a character did not fit: nothing more is kept */
	bool space;   /* a space is due before the next token */
	bool written; /* anything written yet (no space at the start) */
	char semis[32]; /* ';' and spaces held back: dropped at the end */
	size_t n_semis;
	uint64_t hash;
	unsigned next_param;
};

static void put(struct writer *w, const char *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		w->hash ^= (unsigned char)bytes[i];
		w->hash *= 0x100000001b3ULL;
	}
	if (!w->full && w->len + n <= w->cap) {
		memcpy(w->out + w->len, bytes, n);
		w->len += n;
	} else {
		w->full = true;
	}
	w->written = true;
}

static void flush_semis(struct writer *w)
{
	for (size_t i = 0; i < w->n_semis; i++)
		put(w, w->semis + i, 1); /* one by one: the cut keeps what fits */
	w->n_semis = 0;
}

/* Before a token: the ';' held back, then the space due. */
static void begin_token(struct writer *w)
{
	flush_semis(w);
	if (w->space && w->written)
		put(w, " ", 1);
	w->space = false;
}

static void semicolon(struct writer *w)
{
	if (w->n_semis + 2 > sizeof(w->semis))
		flush_semis(w);
	if (w->space && (w->written || w->n_semis))
		w->semis[w->n_semis++] = ' ';
	w->semis[w->n_semis++] = ';';
	w->space = false;
}

/* The length of the valid UTF-8 character at s (n bytes left), or 0. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
		: s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0; /* overlong, a surrogate, beyond U+10FFFF */
	return len;
}

/* Text of the input as it is, character by character: invalid UTF-8 as '?'. */
static void put_text(struct writer *w, const struct text *t, size_t start, size_t end)
{
	for (size_t i = start; i < end;) {
		size_t n = utf8_char((const unsigned char *)t->s + i, end - i);
		if (n) {
			put(w, t->s + i, n);
			i += n;
		} else {
			put(w, "?", 1);
			i++;
		}
	}
}

static void put_param(struct writer *w, unsigned number)
{
	char text[16];
	size_t n = sizeof(text);
	text[--n] = '\0';
	do
		text[--n] = (char)('0' + number % 10);
	while ((number /= 10) && n > 1);
	text[--n] = '$';
	put(w, text + n, sizeof(text) - 1 - n);
}

/* The highest $n the text has: constants are numbered after it. */
static unsigned highest_param(const struct text *t)
{
	unsigned high = 0;
	for (struct token k = next_token(t, 0); k.kind != T_END; k = next_token(t, k.end))
		if (k.kind == T_PARAM && k.param > high)
			high = k.param;
	return high;
}

static bool is_word(const struct text *t, const struct token *k, const char *word)
{
	return k->kind == T_WORD && k->end - k->start == strlen(word) &&
	       strncasecmp(t->s + k->start, word, k->end - k->start) == 0;
}

/* Writes the token at k (a constant, a list, anything else), returns where
 * the next one starts and what it leaves for a '-' after it. */
static size_t write_token(struct writer *w, const struct text *t, const struct token *k,
			  enum previous *prev, bool after_in)
{
	size_t e;
	if (k->kind == T_SPACE) {
		w->space = true;
		return k->end;
	}
	if (k->kind == T_SEMI) {
		semicolon(w);
		*prev = PREV_NOTHING;
		return k->end;
	}
	begin_token(w);
	if (after_in && k->kind == T_OPEN && (e = constant_list_end(t, k->start)) != 0) {
		put(w, "(", 1);
		put_param(w, w->next_param++);
		put(w, " /*, ... */)", 12);
		*prev = PREV_OPERAND;
		return e;
	}
	if ((e = constant_at(t, k->start, *prev)) != 0) {
		put_param(w, w->next_param++);
		*prev = PREV_OPERAND;
		return e;
	}
	put_text(w, t, k->start, k->end);
	if (k->kind == T_WORD)
		*prev = word_before_operand(t, k) ? PREV_NOTHING : PREV_OPERAND;
	else
		*prev = k->kind == T_CLOSE || k->kind == T_PARAM || k->kind == T_QUOTED ||
				(k->kind == T_OTHER && t->s[k->start] == ']')
			? PREV_OPERAND : PREV_NOTHING;
	return k->end;
}

size_t pg_query_normalize(const char *raw, size_t len, char *out, size_t outsz, uint64_t *hash)
{
	const char *nul = memchr(raw, '\0', len);
	struct text t = { raw, nul ? (size_t)(nul - raw) : len };
	struct writer w = { .out = out, .cap = outsz ? outsz - 1 : 0,
			    .hash = 0xcbf29ce484222325ULL, .next_param = highest_param(&t) + 1 };
	enum previous prev = PREV_NOTHING;
	bool after_in = false;
	for (size_t i = 0;;) {
		struct token k = next_token(&t, i);
		if (k.kind == T_END)
			break;
		i = write_token(&w, &t, &k, &prev, after_in);
		if (k.kind != T_SPACE)
			after_in = is_word(&t, &k, "in");
	}
	if (outsz)
		out[w.len] = '\0';
	*hash = w.hash;
	return w.len;
}
