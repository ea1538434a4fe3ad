/* Unit tests: the SVG flame graph - well-formed XML whatever the names,
 * boxes as wide as their samples, narrow boxes left out and counted,
 * colours by kind and stable, the run described in the header. */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/utf8.h"
#include "output/diff.h"
#include "output/output.h"
#include "output/escape.h"
#include "output/frame_role.h"
#include "profile_fixture.h"
#include "written.h"

/* --- a small XML well-formedness checker ------------------------------ */

struct xml_check {
	const char *s, *p;
	char err[200];
	int elements;
};

static bool xfail(struct xml_check *x, const char *what)
{
	if (!x->err[0])
		snprintf(x->err, sizeof(x->err), "%s at offset %td: '%.30s'", what, x->p - x->s, x->p);
	return false;
}

static bool name_start(unsigned char c) { return isalpha(c) || c == '_' || c == ':' || c >= 0x80; }
static bool name_char(unsigned char c) { return name_start(c) || isdigit(c) || c == '-' || c == '.'; }

static bool xml_name(struct xml_check *x, const char **start, size_t *len)
{
	*start = x->p;
	if (!name_start((unsigned char)*x->p))
		return xfail(x, "name expected");
	while (name_char((unsigned char)*x->p))
		x->p++;
	*len = (size_t)(x->p - *start);
	return true;
}

/* A character reference or one of the five predefined entities. */
static bool xml_ref(struct xml_check *x)
{
	static const char *const ents[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
	for (size_t i = 0; i < 5; i++)
		if (strncmp(x->p, ents[i], strlen(ents[i])) == 0) {
			x->p += strlen(ents[i]);
			return true;
		}
	if (strncmp(x->p, "&#x", 3) == 0 || strncmp(x->p, "&#", 2) == 0) {
		bool hex = x->p[2] == 'x';
		const char *q = x->p + (hex ? 3 : 2);
		char *end;
		unsigned long v = strtoul(q, &end, hex ? 16 : 10);
		if (end == q || *end != ';' || v == 0 || (v < 0x20 && v != 9 && v != 10 && v != 13) ||
		    (v >= 0xd800 && v <= 0xdfff) || v == 0xfffe || v == 0xffff || v > 0x10ffff)
			return xfail(x, "bad character reference");
		x->p = end + 1;
		return true;
	}
	return xfail(x, "bare '&'");
}

/* Characters up to stop (not included); '<' and bad '&' are errors. */
static bool xml_chars(struct xml_check *x, char stop)
{
	while (*x->p && *x->p != stop) {
		uint32_t cp;
		if (*x->p == '<')
			return xfail(x, "'<' in text or attribute");
		if (*x->p == '&') {
			if (!xml_ref(x))
				return false;
			continue;
		}
		size_t len = utf8_next(x->p, &cp);
		if (!len || (cp < 0x20 && cp != 9 && cp != 10 && cp != 13) || cp == 0xfffe || cp == 0xffff)
			return xfail(x, "character not allowed in XML");
		x->p += len;
	}
	return true;
}

static bool xml_skip_to(struct xml_check *x, const char *end, const char *what)
{
	const char *e = strstr(x->p, end);
	if (!e)
		return xfail(x, what);
	for (const char *q = x->p; q < e;) {
		uint32_t cp;
		size_t len = utf8_next(q, &cp);
		if (!len || (cp < 0x20 && cp != 9 && cp != 10 && cp != 13))
			return xfail(x, "character not allowed in XML");
		q += len;
	}
	x->p = e + strlen(end);
	return true;
}

static bool xml_misc(struct xml_check *x)
{
	for (;;) {
		while (isspace((unsigned char)*x->p))
			x->p++;
		if (strncmp(x->p, "<!--", 4) == 0) {
			x->p += 4;
			const char *e = strstr(x->p, "--");
			if (!e || e[2] != '>')
				return xfail(x, "'--' inside a comment");
			x->p = e + 3;
		} else if (strncmp(x->p, "<?", 2) == 0) {
			if (!xml_skip_to(x, "?>", "unterminated processing instruction"))
				return false;
		} else {
			return true;
		}
	}
}

/* An element and everything in it. */
static bool xml_element(struct xml_check *x, int depth)
{
	const char *name;
	size_t len;
	if (depth > 200)
		return xfail(x, "too deep");
	x->p++; /* '<' */
	if (!xml_name(x, &name, &len))
		return false;
	x->elements++;
	/* attributes, each name once */
	const char *seen[64];
	size_t seen_len[64], n_seen = 0;
	for (;;) {
		bool space = isspace((unsigned char)*x->p);
		while (isspace((unsigned char)*x->p))
			x->p++;
		if (*x->p == '/' && x->p[1] == '>') {
			x->p += 2;
			return true;
		}
		if (*x->p == '>') {
			x->p++;
			break;
		}
		if (!space)
			return xfail(x, "attribute without space before it");
		const char *an;
		size_t al;
		if (!xml_name(x, &an, &al))
			return false;
		for (size_t i = 0; i < n_seen; i++)
			if (seen_len[i] == al && memcmp(seen[i], an, al) == 0)
				return xfail(x, "attribute given twice");
		if (n_seen < 64) {
			seen[n_seen] = an;
			seen_len[n_seen++] = al;
		}
		if (*x->p++ != '=')
			return xfail(x, "'=' expected");
		char q = *x->p++;
		if (q != '"' && q != '\'')
			return xfail(x, "quoted value expected");
		if (!xml_chars(x, q))
			return false;
		if (*x->p++ != q)
			return xfail(x, "unterminated attribute value");
	}
	/* content */
	for (;;) {
		if (!xml_chars(x, '<'))
			return false;
		if (!*x->p)
			return xfail(x, "unclosed element");
		if (strncmp(x->p, "</", 2) == 0) {
			x->p += 2;
			const char *cn;
			size_t cl;
			if (!xml_name(x, &cn, &cl))
				return false;
			if (cl != len || memcmp(cn, name, len) != 0)
				return xfail(x, "end tag does not match");
			while (isspace((unsigned char)*x->p))
				x->p++;
			if (*x->p++ != '>')
				return xfail(x, "'>' expected");
			return true;
		}
		if (strncmp(x->p, "<![CDATA[", 9) == 0) {
			x->p += 9;
			if (!xml_skip_to(x, "]]>", "unterminated CDATA"))
				return false;
		} else if (strncmp(x->p, "<!--", 4) == 0 || strncmp(x->p, "<?", 2) == 0) {
			if (!xml_misc(x))
				return false;
		} else if (!xml_element(x, depth + 1)) {
			return false;
		}
	}
}

/* NULL if well-formed, else what is wrong and where. */
static const char *xml_wellformed(const char *doc, struct xml_check *x)
{
	memset(x, 0, sizeof(*x));
	x->s = x->p = doc;
	if (strncmp(doc, "<?xml ", 6) == 0 && !xml_skip_to(x, "?>", "unterminated declaration"))
		return x->err;
	if (!xml_misc(x))
		return x->err;
	if (*x->p != '<' || !xml_element(x, 0))
		return x->err[0] ? x->err : (xfail(x, "no root element"), x->err);
	if (!xml_misc(x))
		return x->err;
	if (*x->p)
		return xfail(x, "content after the root element"), x->err;
	return NULL;
}

static void checker_catches_what_it_should(void **state)
{
	(void)state;
	struct xml_check x;
	const char *good[] = {
		"<a/>", "<?xml version=\"1.0\"?>\n<a b=\"1\" c='2'>t&amp;&#60;&#x3c;<b/><![CDATA[<&]]></a>\n",
		"<a><!-- c --><?pi x?></a>",
	};
	const char *bad[] = {
		"<a>", "<a></b>", "<a>x<y</a>", "<a>&bogus;</a>", "<a b=\"<\"/>", "<a b=\"1\" b=\"2\"/>",
		"<a/><b/>", "<a>\x01</a>", "<a>\xff</a>", "<a><![CDATA[x</a>", "<a><!-- -- --></a>",
		"<a b=1/>", "<a>&#0;</a>", "<a>&#xd800;</a>", "", "<a b=\"1\"c=\"2\"/>",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (xml_wellformed(good[i], &x))
			fail_msg("good document %zu refused: %s", i, x.err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!xml_wellformed(bad[i], &x))
			fail_msg("bad document %zu ('%s') accepted", i, bad[i]);
}

/* --- the SVG ---------------------------------------------------------- */

static char *svg_of(const struct profile *p, const struct svg_options *o)
{
	struct written w;
	assert_int_equal(output_svg(written_open(&w), p, o), 0);
	return written_text(&w);
}

static char *svg_write(const struct profile *p, enum output_format fmt)
{
	struct written w;
	assert_int_equal(output_write(written_open(&w), fmt, p), 0);
	return written_text(&w);
}

struct box {
	char name[512]; /* the title's first line, unescaped */
	uint64_t s, n;
	double x, y, w;
	int r, g, b;
	char label[512];
};

static void unescape(const char *in, size_t len, char *out, size_t outsz)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 1 < outsz;) {
		static const char *const from[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" };
		static const char to[] = "&<>\"'";
		size_t k = 0;
		for (; k < 5; k++)
			if (strncmp(in + i, from[k], strlen(from[k])) == 0)
				break;
		if (k < 5) {
			out[o++] = to[k];
			i += strlen(from[k]);
		} else {
			out[o++] = in[i++];
		}
	}
	out[o] = '\0';
}

/* Every box, in document order. */
static size_t boxes(const char *svg, struct box *out, size_t max)
{
	size_t n = 0;
	for (const char *p = strstr(svg, "<g class=\"f\""); p && n < max;
	     p = strstr(p + 1, "<g class=\"f\"")) {
		struct box *b = &out[n++];
		memset(b, 0, sizeof(*b));
		assert_int_equal(sscanf(p, "<g class=\"f\" data-s=\"%lu\" data-n=\"%lu\">", &b->s, &b->n), 2);
		const char *t = strstr(p, "<title>") + 7, *nl = strchr(t, '\n');
		unescape(t, (size_t)(nl - t), b->name, sizeof(b->name));
		const char *r = strstr(p, "<rect ");
		assert_int_equal(sscanf(r, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"15\" fill=\"rgb(%d,%d,%d)\"",
					&b->x, &b->y, &b->w, &b->r, &b->g, &b->b), 6);
		const char *l = strstr(r, "<text ");
		l = strchr(l, '>') + 1;
		unescape(l, (size_t)(strstr(l, "</text>") - l), b->label, sizeof(b->label));
	}
	return n;
}

static const struct box *find_box(const struct box *b, size_t n, const char *name, double y)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(b[i].name, name) == 0 && (y < 0 || b[i].y == y))
			return &b[i];
	return NULL;
}

__attribute__((noinline)) static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0, at = 0;
	for (const char *p; (p = strstr(hay + at, needle)) != NULL; at = (size_t)(p - hay) + 1)
		n++;
	return n;
}

#define HOSTILE "</script><script>alert(1)</script> & ]]> \"dq\" 'sq' <!-- \x01\xff\xc0\xaf\xed\xa0\x80 \xe2\x82\xac"
/* ...as the title shows it: markup as text, the control character and each
 * byte of invalid UTF-8 as '?' (\xc0\xaf is an overlong '/', \xed\xa0\x80
 * a surrogate), valid UTF-8 kept. */
#define HOSTILE_SHOWN "</script><script>alert(1)</script> & ]]> \"dq\" 'sq' <!-- ??????? \xe2\x82\xac"

static void demo(struct fixture *fx)
{
	fixture_init(fx, "ptrace_profiler -p 42 -d 1ms -o x.svg", "db (PID 42)", 1000000);
	size_t m = fixture_thread(fx, 42, 42, "db", "db_main");
	size_t w = fixture_thread(fx, 42, 43, "db", "db_writer");
	const char *work[] = { "db_main", "R (running)", "main", "cpu_work", NULL };
	const char *mix[] = { "db_main", "R (running)", "main", "cpu_work", "mix_[i]", NULL };
	const char *odd[] = { "db_main", "R (running)", "main", HOSTILE, "[libodd.so.1]", NULL };
	const char *rd[] = { "db_writer", "event=db file sequential read (Oracle state)", "S (sleeping)",
			     "writer", "read", "entry_SYSCALL_64_[k]", "pipe_read_[k]", NULL };
	for (uint64_t i = 0; i < 100; i++) {
		const char *const *s = i < 50 ? work : i < 80 ? mix : odd;
		fixture_sample(fx, m, i * 1000000, 1000000, s);
		fixture_sample(fx, w, i * 1000000 + 10, 1000000, rd);
	}
}

static void well_formed_whatever_the_names(void **state)
{
	(void)state;
	struct fixture fx;
	demo(&fx);
	char *svg = svg_write(fixture_profile(&fx), FORMAT_SVG);
	struct xml_check x;
	const char *why = xml_wellformed(svg, &x);
	if (why)
		fail_msg("not well-formed: %s", why);
	/* Our script and style are the only CDATA, so the one "]]>" of the
	 * name cannot end them; the name's "</script>" is text. */
	assert_int_equal(count_of(svg, "<script"), 1);
	assert_int_equal(count_of(svg, "</script>"), 1);
	assert_int_equal(count_of(svg, "]]>"), 2);
	assert_int_equal(count_of(svg, "<!--"), 1); /* our own comment */
	assert_int_equal(count_of(svg, "<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; ]]&gt; &quot;dq&quot; &#39;sq&#39; &lt;!-- ??????? \xe2\x82\xac\n"), 1);
	assert_int_equal(count_of(svg, "\">&lt;/script&gt;&lt;scr..</text>"), 1); /* its label, cut */

	struct box b[64];
	size_t n = boxes(svg, b, 64);
	const struct box *h = find_box(b, n, HOSTILE_SHOWN, -1);
	if (!h)
		fail_msg("no box titled with the escaped hostile name");
	assert_int_equal(h->n, 20);
	free(svg);
	fixture_free(&fx);
}

static void boxes_are_as_wide_as_their_samples(void **state)
{
	(void)state;
	struct fixture fx;
	demo(&fx);
	char *svg = svg_of(fixture_profile(&fx), NULL);
	struct box b[64];
	size_t n = boxes(svg, b, 64);
	/* all, 2 threads, db_main: R, main, cpu_work, mix, hostile, libodd;
	 * db_writer: app state, S, writer, read, 2 kernel */
	assert_int_equal(n, 15);
	const double scale = (1200 - 20) / 200.0;
	struct { const char *name; uint64_t n; int level; } want[] = {
		{ "all", 200, 0 }, { "db_main", 100, 1 }, { "db_writer", 100, 1 },
		{ "R (running)", 100, 2 }, { "main", 100, 3 }, { "cpu_work", 80, 4 },
		{ "mix_[i]", 30, 5 }, { HOSTILE_SHOWN, 20, 4 }, { "[libodd.so.1]", 20, 5 },
		{ "event=db file sequential read (Oracle state)", 100, 2 },
		{ "S (sleeping)", 100, 3 }, { "pipe_read_[k]", 100, 7 },
	};
	double all_y = find_box(b, n, "all", -1)->y;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct box *x = find_box(b, n, want[i].name, -1);
		if (!x)
			fail_msg("no box '%s'", want[i].name);
		assert_int_equal(x->n, want[i].n);
		assert_true(fabs(x->w - (double)want[i].n * scale) < 0.01);
		assert_true(fabs(x->x - (10 + (double)x->s * scale)) < 0.01);
		assert_true(x->y == all_y - 16 * want[i].level); /* root at the bottom */
	}
	/* children lie within their parent */
	const struct box *cw = find_box(b, n, "cpu_work", -1), *mx = find_box(b, n, "mix_[i]", -1);
	assert_true(mx->s >= cw->s && mx->s + mx->n <= cw->s + cw->n);
	/* labels: whole when they fit, cut with ".." when not, none below 3 chars */
	assert_string_equal(cw->label, "cpu_work");
	const struct box *h = find_box(b, n, HOSTILE_SHOWN, -1);
	size_t fit = (size_t)((h->w - 6) / 7.2);
	assert_int_equal(utf8_chars(h->label), fit);
	assert_true(ends_with(h->label, ".."));
	free(svg);
	fixture_free(&fx);
}

static void header_tells_the_run(void **state)
{
	(void)state;
	struct fixture fx;
	demo(&fx);
	fx.p.command = "ptrace_profiler -p 42 -d 1ms --format svg <&>";
	char *svg = svg_of(fixture_profile(&fx), NULL);
	assert_non_null(strstr(svg, "<text id=\"title\" x=\"10\" y=\"22\">ptrace_profiler -p 42 -d 1ms --format svg &lt;&amp;&gt;</text>"));
	assert_non_null(strstr(svg, ">db (PID 42), every 1ms, 200 samples in 99.0 ms</text>"));
	assert_non_null(strstr(svg, "data-total=\"200\""));
	free(svg);

	/* A command line longer than the room left of Search (1180 px less
	 * 58, 10.2 px a character: 110) is cut, whole in its tooltip; so is
	 * a subtitle longer than the room left of Reset search (149). */
	char cmd[301], target[241];
	memset(cmd, 'c', 300);
	cmd[300] = '\0';
	memset(target, 't', 240);
	target[240] = '\0';
	fx.p.command = cmd;
	fx.p.target = target;
	svg = svg_of(fixture_profile(&fx), NULL);
	char want[512];
	snprintf(want, sizeof(want), "<text id=\"title\" x=\"10\" y=\"22\"><title>%s</title>%.108s..</text>",
		 cmd, cmd);
	assert_non_null(strstr(svg, want));
	snprintf(want, sizeof(want), "<text id=\"subtitle\" x=\"10\" y=\"40\"><title>%s, every 1ms, 200 samples in 99.0 ms</title>%.147s..</text>",
		 target, target);
	assert_non_null(strstr(svg, want));
	struct xml_check x;
	if (xml_wellformed(svg, &x))
		fail_msg("not well-formed: %s", x.err);
	free(svg);
	fixture_free(&fx);
}

static void narrow_frames_left_out_and_counted(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "cmd", "t", 1000000);
	fixture_thread(&fx, 1, 1, "p", "t");
	fixture_stack(&fx, (const char *[]){ "t", "R (running)", "main", "hot", NULL }, 100000);
	/* 50 stacks of one sample: 0.0118 px each, with 2 frames of their own */
	char names[50][16];
	for (int i = 0; i < 50; i++) {
		snprintf(names[i], sizeof(names[i]), "cold%02d", i);
		fixture_stack(&fx, (const char *[]){ "t", "R (running)", "main", names[i], "leaf", NULL }, 1);
	}
	/* a stack without samples has no box, and is not "left out" */
	fixture_stack(&fx, (const char *[]){ "t", "R (running)", "main", "ghost", NULL }, 0);
	const struct profile *p = fixture_profile_as(&fx, 0);
	char *svg = svg_of(p, NULL);
	struct box b[256];
	size_t n = boxes(svg, b, 256);
	assert_int_equal(n, 5); /* all, t, R, main, hot */
	assert_null(strstr(svg, "ghost"));
	assert_non_null(strstr(svg, "; 100 frames narrower than 0.1 px not drawn</text>"));
	struct xml_check x;
	assert_null(xml_wellformed(svg, &x));
	free(svg);

	struct svg_options every = { .width = 1200, .min_width = 0 };
	svg = svg_of(p, &every);
	assert_int_equal(boxes(svg, b, 256), 105);
	assert_null(strstr(svg, "not drawn"));
	free(svg);

	/* the height follows the deepest box drawn: 5 levels, then 6 */
	svg = svg_of(p, NULL);
	assert_non_null(strstr(svg, "height=\"" "176" "\"")); /* 62 + 5 * 16 + 34 */
	free(svg);
	svg = svg_of(p, &every);
	assert_non_null(strstr(svg, "height=\"192\"")); /* 62 + 6 * 16 + 34 */
	free(svg);
	fixture_free(&fx);
}

/* The hue (degrees) of a colour. */
static double hue(const struct box *b)
{
	double r = b->r / 255.0, g = b->g / 255.0, bl = b->b / 255.0;
	double mx = fmax(r, fmax(g, bl)), mn = fmin(r, fmin(g, bl)), d = mx - mn, h;
	if (d == 0)
		return -1; /* grey */
	if (mx == r)
		h = fmod((g - bl) / d, 6);
	else if (mx == g)
		h = (bl - r) / d + 2;
	else
		h = (r - g) / d + 4;
	h *= 60;
	return h < 0 ? h + 360 : h;
}

static void colours_by_kind_and_stable(void **state)
{
	(void)state;
	struct fixture fx;
	demo(&fx);
	char *svg = svg_of(fixture_profile(&fx), NULL);
	struct box b[64];
	size_t n = boxes(svg, b, 64);
	struct { const char *name; double lo, hi; } bands[] = {
		{ "cpu_work", 0, 18.5 },              /* user code: red */
		{ "main", 0, 18.5 },
		{ "pipe_read_[k]", 27.5, 40.5 },      /* kernel: orange */
		{ "entry_SYSCALL_64_[k]", 27.5, 40.5 },
		{ "mix_[i]", 174.5, 190.5 },          /* inline: aqua */
		{ "R (running)", 204.5, 225.5 },      /* OS state: blue */
		{ "S (sleeping)", 204.5, 225.5 },
		{ "event=db file sequential read (Oracle state)", 94.5, 135.5 }, /* green */
		{ "db_main", 39.5, 55.5 },            /* thread: tan */
	};
	for (size_t i = 0; i < sizeof(bands) / sizeof(bands[0]); i++) {
		const struct box *x = find_box(b, n, bands[i].name, -1);
		double h = hue(x);
		if (h < bands[i].lo || h > bands[i].hi)
			fail_msg("%s: hue %.1f, not in %.0f-%.0f", bands[i].name, h, bands[i].lo, bands[i].hi);
	}
	/* unnamed frames and the root are grey-ish */
	const struct box *u = find_box(b, n, "[libodd.so.1]", -1);
	assert_true(abs(u->r - u->g) < 25 && abs(u->g - u->b) < 25);
	/* the same profile, the same file, byte for byte */
	char *again = svg_of(fixture_profile(&fx), NULL);
	assert_string_equal(svg, again);
	/* a name keeps its colour in another profile */
	struct fixture other;
	fixture_init(&other, "x", "y", 1);
	fixture_thread(&other, 1, 1, "p", "q");
	fixture_sample(&other, 0, 1, 1, (const char *[]){ "q", "S (sleeping)", "cpu_work", NULL });
	char *third = svg_of(fixture_profile(&other), NULL);
	struct box ob[8];
	size_t on = boxes(third, ob, 8);
	const struct box *a = find_box(b, n, "cpu_work", -1), *c = find_box(ob, on, "cpu_work", -1);
	assert_true(a->r == c->r && a->g == c->g && a->b == c->b);
	free(third);
	free(again);
	free(svg);
	fixture_free(&other);
	fixture_free(&fx);
}

static void script_is_self_contained(void **state)
{
	(void)state;
	struct fixture fx;
	demo(&fx);
	char *svg = svg_of(fixture_profile(&fx), NULL);
	/* nothing fetched from anywhere */
	assert_null(strstr(svg, "http://www.w3.org/1999/xlink"));
	assert_int_equal(count_of(svg, "http"), 1); /* the SVG namespace only */
	assert_null(strstr(svg, "innerHTML"));
	assert_null(strstr(svg, "eval("));
	/* the pieces the page works with */
	const char *must[] = { "id=\"search\"", "id=\"unzoom\"", "id=\"details\"", "id=\"matched\"",
			       "location.search", "location.hash", "new RegExp", "textContent" };
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		if (!strstr(svg, must[i]))
			fail_msg("no '%s'", must[i]);
	free(svg);
	fixture_free(&fx);
}

static void empty_profile_and_write_error(void **state)
{
	(void)state;
	struct fixture fx;
	fixture_init(&fx, "", NULL, 1000000);
	char *svg = svg_of(fixture_profile_as(&fx, 0), NULL);
	struct xml_check x;
	assert_null(xml_wellformed(svg, &x));
	assert_null(strstr(svg, "<g class=\"f\""));
	assert_non_null(strstr(svg, ">ptrace_profiler</text>")); /* no command: our name */
	free(svg);
	fixture_free(&fx);

	demo(&fx);
	FILE *f = fopen("/dev/full", "w");
	if (f) {
		assert_int_equal(output_write(f, FORMAT_SVG, fixture_profile(&fx)), -1);
		fclose(f);
	}
	fixture_free(&fx);
}

/* --diff: AFTER's boxes, the change since BEFORE in colour and title. */
static void differential_graph(void **state)
{
	(void)state;
	static const char before[] = "main;a;x 10\nmain;b 30\nmain;gone 20\nmain;a;y 40\n";
	static const char after[] = "main;a;x 50\nmain;b 30\nmain;new 5\nmain;a;y 15\n";
	FILE *b = fmemopen((void *)before, strlen(before), "r");
	FILE *a = fmemopen((void *)after, strlen(after), "r");
	struct stack_diff d;
	char err[256];
	assert_int_equal(stack_diff_read_streams(&d, b, "old <1>.folded", a, "new.folded", false, err,
						 sizeof(err)), 0);
	fclose(b);
	fclose(a);
	struct stack_table *none = stack_table_new();
	struct profile p = { .stacks = none, .command = "ptrace_profiler --diff x y" };
	struct svg_options o = { .width = 1200, .min_width = -1, .diff = &d };
	char *svg = svg_of(&p, &o);
	struct xml_check x;
	if (xml_wellformed(svg, &x))
		fail_msg("not well-formed: %s", x.err);
	struct box bx[16];
	size_t n = boxes(svg, bx, 16);
	assert_int_equal(n, 7); /* all, main, a, x, y, b, new: not "gone" */
	assert_null(find_box(bx, n, "gone", -1));
	const struct box *x_ = find_box(bx, n, "x", -1), *y_ = find_box(bx, n, "y", -1),
			 *main_ = find_box(bx, n, "main", -1), *new_ = find_box(bx, n, "new", -1),
			 *b_ = find_box(bx, n, "b", -1), *a_ = find_box(bx, n, "a", -1);
	assert_true(x_ && y_ && main_ && new_ && b_ && a_);
	/* widths: AFTER's samples */
	assert_int_equal(x_->n, 50);
	assert_int_equal(y_->n, 15);
	assert_true(fabs(x_->w - 50 * 11.8) < 0.01);
	/* the largest change (x, +40 points) deep red; y (-25) blue; b and main
	 * (their share unchanged: main lost "gone" as it gained "new" and a)
	 * grey; new (+5) a pale red */
	assert_true(x_->r == 255 && x_->g == 80 && x_->b == 80);
	assert_true(y_->b == 255 && y_->r == y_->g && y_->r == (int)lround(80 + 130 * (1 - 25.0 / 40)));
	assert_true(b_->r == 220 && b_->g == 220 && b_->b == 220);
	assert_true(main_->r == 220 && main_->g == 220);
	assert_true(new_->r == 255 && new_->g == (int)lround(80 + 130 * (1 - 5.0 / 40)));
	assert_true(a_->r == 255 && a_->g > x_->g); /* +15: redder than grey, paler than x */
	/* the change in the title; the files in the subtitle */
	assert_non_null(strstr(svg, "<title>x\n50 samples, 50.00% (before: 10 samples, 10.00%; +40.00 points)</title>"));
	assert_non_null(strstr(svg, "<title>y\n15 samples, 15.00% (before: 40 samples, 40.00%; -25.00 points)</title>"));
	assert_non_null(strstr(svg, "widths: new.folded (100 samples); red grew, blue shrank since old &lt;1&gt;.folded (100 samples), in shares of each total"));
	assert_non_null(strstr(svg, ">Change in shares of each total: ptrace_profiler --diff x y</text>"));
	assert_null(strstr(svg, "not drawn")); /* "gone" is no narrow frame */
	free(svg);

	/* raw counts: the change in samples */
	d.raw = true;
	svg = svg_of(&p, &o);
	assert_non_null(strstr(svg, "<title>x\n50 samples, 50.00% (before: 10 samples; +40 samples)</title>"));
	assert_non_null(strstr(svg, "in samples</text>"));
	assert_non_null(strstr(svg, ">Change in samples: ptrace_profiler --diff x y</text>"));
	free(svg);
	stack_table_free(none);
	stack_diff_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checker_catches_what_it_should),
		cmocka_unit_test(well_formed_whatever_the_names),
		cmocka_unit_test(boxes_are_as_wide_as_their_samples),
		cmocka_unit_test(header_tells_the_run),
		cmocka_unit_test(narrow_frames_left_out_and_counted),
		cmocka_unit_test(colours_by_kind_and_stable),
		cmocka_unit_test(script_is_self_contained),
		cmocka_unit_test(empty_profile_and_write_error),
		cmocka_unit_test(differential_graph),
	};
	return cmocka_run_group_tests_name("svg", tests, NULL, NULL);
}
