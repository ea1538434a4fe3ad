/* out_svg.c - an interactive flame graph in one SVG file.
 *
 * Layout: the stacks in text order (stack_table_visit_sorted), so stacks
 * that share a prefix come one after the other and the frames they share
 * merge into one box.  A box is known once the next stack leaves it: the
 * frames are written as they close, children before parents, with no tree
 * in memory (only the open frames of one stack).  One pass first, writing
 * nothing, finds the height (the deepest box drawn) and how many boxes are
 * too narrow to draw, so the header can say it.
 *
 * Each box is <g class="f" data-s="FIRST" data-n="SAMPLES"> with a <title>
 * (the name, then the samples and share on a second line), a <rect> and a
 * <text> label cut to the box.  The script at the end reads those back to
 * zoom (click, or ?z=NAME in the address), search (the Search button,
 * Ctrl-F, or ?s=REGEX in the address; #s=, #z= too), and show a box's
 * details on the bottom line.  Names
 * only ever reach the document as escaped XML text; the script reads and
 * writes them with textContent and never builds markup from them.
 *
 * A differential flame graph (svg_options.diff, diff.h) is the same
 * document: the boxes are AFTER's, each also summing the BEFORE samples
 * of the stacks through it (those only BEFORE had too: they draw nothing,
 * but their ancestors lost them), coloured by the change (diff_colour,
 * scaled to the largest change drawn, which the measuring pass finds),
 * and the change is in the title.
 */
#include "output/output.h"
#include "output/diff.h"
#include "output/escape.h"
#include "output/frame_role.h"
#include "output/numbers.h"
#include "base/array.h"
#include "base/hash_index.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_H 16     /* box pitch, pixels */
#define BOX_H 15       /* box height */
#define FONT_PX 12
#define CHAR_W 7.2     /* monospace at 12 px: 0.6 em */
#define PAD 10         /* left and right */
#define TOP 62         /* title, subtitle, buttons */
#define TITLE_CHAR_W 10.2 /* the title's monospace at 17 px */
#define SEARCH_ROOM 58    /* "Search" at the title's right, and a gap */
#define RESET_ROOM 101    /* "Reset search" at the subtitle's right, and a gap */
#define BOTTOM 34      /* the details line */

struct open_frame {
	const char *name;
	uint64_t start;
	uint64_t before;         /* a diff's BEFORE samples through it */
	enum frame_role role;    /* from its stack */
};

struct svg_layout {
	FILE *f;                 /* NULL: the measuring pass */
	uint64_t total;
	double scale;            /* pixels per sample */
	double min_width;
	double height;
	struct open_frame *open; /* open[d]: the box at level d + 1 */
	size_t depth, cap;
	uint64_t offset;
	uint64_t omitted;
	size_t max_level;        /* deepest level drawn ("all" is 0) */
	int err;
	const struct stack_diff *diff; /* a differential flame graph; NULL: not */
	double max_change;       /* the largest |change| drawn, from the measuring pass */
};

/* A colour from the name, in the band of its role: the same name always
 * gets the same colour, in every run. */
static void frame_colour(const char *name, enum frame_role role, int level, char *out,
			 size_t outsz)
{
	uint64_t h = hash_bytes(name, strlen(name));
	double v1 = (h & 0xff) / 255.0, v2 = (h >> 8 & 0xff) / 255.0,
	       v3 = (h >> 16 & 0xff) / 255.0;
	double hue, sat, light;
	if (level == 0) {
		hue = 0, sat = 0, light = 0.80;
	} else {
		switch (role) {
		case FRAME_THREAD:    hue = 40 + 15 * v1;  sat = 0.35 + 0.15 * v2; light = 0.70 + 0.08 * v3; break;
		case FRAME_APP_STATE: hue = 95 + 40 * v1;  sat = 0.50 + 0.15 * v2; light = 0.52 + 0.10 * v3; break;
		case FRAME_OS_STATE:  hue = 205 + 20 * v1; sat = 0.55 + 0.15 * v2; light = 0.62 + 0.10 * v3; break;
		case FRAME_KERNEL:    hue = 28 + 12 * v1;  sat = 0.80 + 0.15 * v2; light = 0.50 + 0.10 * v3; break;
		case FRAME_INLINE:    hue = 175 + 15 * v1; sat = 0.55 + 0.15 * v2; light = 0.52 + 0.10 * v3; break;
		case FRAME_UNNAMED:   hue = 0;             sat = 0.08 * v2;        light = 0.62 + 0.12 * v3; break;
		case FRAME_USER:
		default:              hue = 0 + 18 * v1;   sat = 0.75 + 0.15 * v2; light = 0.52 + 0.12 * v3; break;
		}
	}
	/* HSL to RGB */
	double c = (1 - fabs(2 * light - 1)) * sat, hp = hue / 60;
	double x = c * (1 - fabs(fmod(hp, 2) - 1)), r = 0, g = 0, b = 0;
	if (hp < 1) r = c, g = x;
	else if (hp < 2) r = x, g = c;
	else if (hp < 3) g = c, b = x;
	else if (hp < 4) g = x, b = c;
	else if (hp < 5) r = x, b = c;
	else r = c, b = x;
	double m = light - c / 2;
	snprintf(out, outsz, "rgb(%d,%d,%d)", (int)lround((r + m) * 255), (int)lround((g + m) * 255),
		 (int)lround((b + m) * 255));
}

/* How many characters of a label fit in w pixels, as the script computes it. */
static size_t label_chars(double w)
{
	double fit = (w - 6) / CHAR_W;
	return fit < 3 ? 0 : (size_t)fit;
}

/* A diff box's change, after its samples and share: "(before: 405
 * samples; +380 samples)", or in shares with --diff-shares: "(before:
 * 405 samples, 20.25%; +20.35 points)". */
static void write_change(FILE *f, const struct stack_diff *d, uint64_t before, uint64_t after)
{
	double change = stack_diff_delta(d, before, after);
	if (d->raw) {
		fprintf(f, " (before: %" PRIu64 " sample%s; %+.0f sample%s)", before,
			before == 1 ? "" : "s", change, fabs(change) == 1 ? "" : "s");
		return;
	}
	double share = d->total_before ? 100.0 * (double)before / (double)d->total_before : 0;
	fprintf(f, " (before: %" PRIu64 " sample%s, %.2f%%; %+.2f points)", before,
		before == 1 ? "" : "s", share, 100 * change);
}

static void write_box(struct svg_layout *l, const char *name, enum frame_role role, size_t level,
		      uint64_t start, uint64_t n, uint64_t before)
{
	FILE *f = l->f;
	double x = PAD + (double)start * l->scale, w = (double)n * l->scale;
	double y = l->height - BOTTOM - (double)(level + 1) * FRAME_H;
	char colour[32];
	if (l->diff)
		diff_colour(stack_diff_delta(l->diff, before, n), l->max_change, colour, sizeof(colour));
	else
		frame_colour(name, role, (int)level, colour, sizeof(colour));
	fprintf(f, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64 "\"><title>", start, n);
	xml_escape(f, name, SIZE_MAX);
	fprintf(f, "\n%" PRIu64 " sample%s, %.2f%%", n, n == 1 ? "" : "s",
		100.0 * (double)n / (double)l->total);
	if (l->diff)
		write_change(f, l->diff, before, n);
	fprintf(f, "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" "
		"height=\"%d\" fill=\"%s\"/><text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, BOX_H, colour, x + 3, y + 11.5);
	size_t fit = label_chars(w), len = utf8_chars(name);
	if (fit >= len)
		xml_escape(f, name, SIZE_MAX);
	else if (fit >= 3) {
		xml_escape(f, name, fit - 2);
		fputs("..", f);
	}
	fputs("</text></g>\n", f);
}

/* The measuring pass: the largest change of a box that is drawn. */
static void measure_change(struct svg_layout *l, uint64_t before, uint64_t after)
{
	double change = fabs(stack_diff_delta(l->diff, before, after));
	if (change > l->max_change)
		l->max_change = change;
}

static void close_to(struct svg_layout *l, size_t keep)
{
	while (l->depth > keep) {
		size_t d = --l->depth;
		uint64_t start = l->open[d].start, n = l->offset - start;
		if (n == 0)
			continue; /* a diff's frame only BEFORE had: nothing to draw */
		if ((double)n * l->scale < l->min_width) {
			l->omitted++;
			continue;
		}
		if (d + 1 > l->max_level)
			l->max_level = d + 1;
		if (l->f)
			write_box(l, l->open[d].name, l->open[d].role, d + 1, start, n,
				  l->open[d].before);
		else if (l->diff)
			measure_change(l, l->open[d].before, n);
	}
}

/* One stack: count samples (AFTER's in a diff, where before are BEFORE's). */
static void layout_one(struct svg_layout *l, const char *const *frames, size_t n, uint64_t count,
		       uint64_t before)
{
	if (l->err || (count == 0 && before == 0))
		return; /* no samples, no box */
	size_t k = 0;
	while (k < n && k < l->depth && l->open[k].name == frames[k])
		k++;
	close_to(l, k);
	if (!array_reserve((void **)&l->open, n, &l->cap, sizeof(*l->open))) {
		l->err = ENOMEM;
		return;
	}
	size_t code = frame_code_start(frames, n);
	for (size_t d = k; d < n; d++)
		l->open[d] = (struct open_frame){ frames[d], l->offset, 0,
						   frame_role_at(frames, code, d) };
	for (size_t d = 0; d < n; d++)
		l->open[d].before += before;
	l->depth = n;
	l->offset += count;
}

static void layout_stack(const char *const *frames, size_t n, uint64_t count, void *arg)
{
	layout_one(arg, frames, n, count, 0);
}

/* One layout pass; with l->f NULL it only measures. */
static int layout(struct svg_layout *l, const struct stack_table *t)
{
	l->depth = 0;
	l->offset = 0;
	l->omitted = 0;
	l->max_level = 0;
	if (l->diff)
		for (size_t i = 0; i < l->diff->n; i++)
			layout_one(l, l->diff->stacks[i].frames, l->diff->stacks[i].n,
				   l->diff->stacks[i].after, l->diff->stacks[i].before);
	else
		stack_table_visit_sorted(t, layout_stack, l);
	close_to(l, 0);
	if (l->err) {
		errno = l->err;
		return -1;
	}
	return 0;
}

static const char svg_style[] =
	"<style type=\"text/css\"><![CDATA[\n"
	"svg { background: #f7f7f2; }\n"
	"text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; font-weight: bold; }\n"
	"#subtitle, #details, #matched { fill: #333; }\n"
	".btn { fill: #226; cursor: pointer; text-decoration: underline; }\n"
	"g.f { cursor: pointer; }\n"
	"g.f text { pointer-events: none; }\n"
	"g.f:hover rect { stroke: #000; stroke-width: 0.6; }\n"
	"g.f.anc rect { opacity: 0.55; }\n"
	"g.f.hid, .hid { display: none; }\n"
	"]]></style>\n";

/* The script: plain ES5, no network, no markup built from names. */
static const char svg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"(function () {\n"
	"'use strict';\n"
	"var svg = document.documentElement;\n"
	"var W = +svg.getAttribute('data-width'), PAD = +svg.getAttribute('data-pad');\n"
	"var CW = +svg.getAttribute('data-charw'), TOTAL = +svg.getAttribute('data-total');\n"
	"var SPAN = W - 2 * PAD, HIGHLIGHT = 'rgb(230,0,230)';\n"
	"var details = document.getElementById('details');\n"
	"var matched = document.getElementById('matched');\n"
	"var unzoomBtn = document.getElementById('unzoom');\n"
	"var clearBtn = document.getElementById('clearsearch');\n"
	"var boxes = [], byNode = new Map(), zoomed = null, term = null;\n"
	"var gs = document.querySelectorAll('g.f');\n"
	"for (var i = 0; i < gs.length; i++) {\n"
	"  var g = gs[i], title = g.querySelector('title').textContent;\n"
	"  var cut = title.lastIndexOf('\\n');\n"
	"  var rect = g.querySelector('rect');\n"
	"  var b = { g: g, rect: rect, text: g.querySelector('text'),\n"
	"    name: title.slice(0, cut), info: title.slice(cut + 1),\n"
	"    s: +g.getAttribute('data-s'), n: +g.getAttribute('data-n'),\n"
	"    y: +rect.getAttribute('y'), fill: rect.getAttribute('fill') };\n"
	"  boxes.push(b);\n"
	"  byNode.set(g, b);\n"
	"}\n"
	"function label(b, w) {\n"
	"  var fit = Math.floor((w - 6) / CW), chars = Array.from(b.name);\n"
	"  if (fit < 3) return '';\n"
	"  return chars.length <= fit ? b.name : chars.slice(0, fit - 2).join('') + '..';\n"
	"}\n"
	"function place(b, x, w) {\n"
	"  b.rect.setAttribute('x', x.toFixed(2));\n"
	"  b.rect.setAttribute('width', w.toFixed(2));\n"
	"  b.text.setAttribute('x', (x + 3).toFixed(2));\n"
	"  b.text.textContent = label(b, w);\n"
	"}\n"
	"function zoom(z) {\n"
	"  zoomed = z;\n"
	"  boxes.forEach(function (b) {\n"
	"    var anc = b.s <= z.s && b.s + b.n >= z.s + z.n && b.y > z.y;\n"
	"    var inside = b.s >= z.s && b.s + b.n <= z.s + z.n && b.y <= z.y;\n"
	"    b.g.classList.toggle('anc', anc);\n"
	"    b.g.classList.toggle('hid', !anc && !inside);\n"
	"    if (anc) place(b, PAD, SPAN);\n"
	"    else if (inside) place(b, PAD + (b.s - z.s) / z.n * SPAN, b.n / z.n * SPAN);\n"
	"  });\n"
	"  unzoomBtn.classList.remove('hid');\n"
	"}\n"
	"function unzoom() {\n"
	"  zoomed = null;\n"
	"  boxes.forEach(function (b) {\n"
	"    b.g.classList.remove('anc', 'hid');\n"
	"    place(b, PAD + b.s / TOTAL * SPAN, b.n / TOTAL * SPAN);\n"
	"  });\n"
	"  unzoomBtn.classList.add('hid');\n"
	"}\n"
	"function pattern(t) {\n"
	"  try { return new RegExp(t); }\n"
	"  catch (e) { return new RegExp(t.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&')); }\n"
	"}\n"
	"function search(t) {\n"
	"  if (!t) { clearSearch(); return; }\n"
	"  var re = pattern(t), hits = [];\n"
	"  term = t;\n"
	"  boxes.forEach(function (b) {\n"
	"    var hit = re.test(b.name);\n"
	"    b.rect.setAttribute('fill', hit ? HIGHLIGHT : b.fill);\n"
	"    if (hit) hits.push(b);\n"
	"  });\n"
	"  /* the samples under any match, each counted once */\n"
	"  hits.sort(function (a, b) { return a.s - b.s || b.n - a.n; });\n"
	"  var sum = 0, end = 0;\n"
	"  hits.forEach(function (b) {\n"
	"    var s = Math.max(b.s, end), e = b.s + b.n;\n"
	"    if (e > s) { sum += e - s; end = e; }\n"
	"  });\n"
	"  var pct = TOTAL ? 100 * sum / TOTAL : 0;\n"
	"  matched.textContent = 'Matched: ' + pct.toFixed(2) + '% (' + sum + ' of ' + TOTAL +\n"
	"    ' samples, ' + hits.length + (hits.length === 1 ? ' frame' : ' frames') + ') for ' + t;\n"
	"  svg.setAttribute('data-matched', pct.toFixed(2));\n"
	"  clearBtn.classList.remove('hid');\n"
	"}\n"
	"function clearSearch() {\n"
	"  term = null;\n"
	"  boxes.forEach(function (b) { b.rect.setAttribute('fill', b.fill); });\n"
	"  matched.textContent = '';\n"
	"  svg.removeAttribute('data-matched');\n"
	"  clearBtn.classList.add('hid');\n"
	"}\n"
	"function ask() {\n"
	"  var t = window.prompt('Search frames (regular expression):', term || '');\n"
	"  if (t !== null) search(t);\n"
	"}\n"
	"function boxOf(el) {\n"
	"  while (el && el !== svg) { if (byNode.has(el)) return byNode.get(el); el = el.parentNode; }\n"
	"  return null;\n"
	"}\n"
	"svg.addEventListener('click', function (e) {\n"
	"  var b = boxOf(e.target);\n"
	"  if (b) { if (b.y === boxes[boxes.length - 1].y) unzoom(); else zoom(b); }\n"
	"});\n"
	"svg.addEventListener('mouseover', function (e) {\n"
	"  var b = boxOf(e.target);\n"
	"  details.textContent = b ? b.name + ' (' + b.info + ')' : ' ';\n"
	"});\n"
	"document.getElementById('search').addEventListener('click', ask);\n"
	"unzoomBtn.addEventListener('click', function (e) { e.stopPropagation(); unzoom(); });\n"
	"clearBtn.addEventListener('click', function (e) { e.stopPropagation(); clearSearch(); });\n"
	"window.addEventListener('keydown', function (e) {\n"
	"  if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); ask(); }\n"
	"  else if (e.key === 'Escape') { unzoom(); clearSearch(); }\n"
	"});\n"
	"/* in the address, ?s=REGEX searches and ?z=NAME zooms on the widest\n"
	"   frame of that name (also after #), so a view can be shared */\n"
	"var q = location.search.slice(1) + '&' + location.hash.slice(1);\n"
	"q.split('&').forEach(function (kv) {\n"
	"  var eq = kv.indexOf('='), key = kv.slice(0, eq), value;\n"
	"  if (eq <= 0) return;\n"
	"  try { value = decodeURIComponent(kv.slice(eq + 1).replace(/\\+/g, ' ')); } catch (e) { return; }\n"
	"  if (key === 's') search(value);\n"
	"  if (key === 'z') {\n"
	"    var best = null;\n"
	"    boxes.forEach(function (b) { if (b.name === value && (!best || b.n > best.n)) best = b; });\n"
	"    if (best) zoom(best);\n"
	"  }\n"
	"});\n"
	"})();\n"
	"]]></script>\n";

/* "db (PID 1234), every 10 ms, 5913 samples in 3.0 s" (as is: escaped
 * when written) */
static void write_run_subtitle(FILE *f, const struct profile *p)
{
	char interval[32];
	format_ns(interval, sizeof(interval), p->interval_ns);
	if (p->target && p->target[0])
		fprintf(f, "%s, ", p->target);
	fprintf(f, "every %s, %" PRIu64 " samples", interval, p->total_samples);
	if (p->duration_ns >= 1000000000ULL)
		fprintf(f, " in %.1f s", (double)p->duration_ns / 1e9);
	else if (p->duration_ns)
		fprintf(f, " in %.1f ms", (double)p->duration_ns / 1e6);
}

/* What a differential graph shows: whose widths, whose change. */
static void write_diff_subtitle(FILE *f, const struct stack_diff *d)
{
	fprintf(f, "widths: %s (%" PRIu64 " samples); red grew, blue shrank since %s (%" PRIu64
		   " samples), %s",
		d->after_name, d->total_after, d->before_name, d->total_before,
		d->raw ? "in samples" : "in shares of each total");
}

/* How many characters of char_w pixels fit in room pixels (at least 10). */
static size_t chars_in(double room, double char_w)
{
	double fit = room / char_w;
	return fit < 10 ? 10 : (size_t)fit;
}

/* The text of a header line, escaped: whole when it has at most max
 * characters; else its first max - 2 and "..", the whole text its
 * tooltip (a long command line ran under the Search button, a whole
 * instance's subtitle under Reset search). */
static void write_fitted(FILE *f, const char *text, size_t max)
{
	if (utf8_chars(text) <= max) {
		xml_escape(f, text, SIZE_MAX);
		return;
	}
	fputs("<title>", f);
	xml_escape(f, text, SIZE_MAX);
	fputs("</title>", f);
	xml_escape(f, text, max - 2);
	fputs("..", f);
}

static void write_header(FILE *f, const struct profile *p, const struct svg_layout *l,
			 unsigned width)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%.0f\" "
		"viewBox=\"0 0 %u %.0f\" data-width=\"%u\" data-pad=\"%d\" data-charw=\"%.1f\" "
		"data-total=\"%" PRIu64 "\">\n",
		width, l->height, width, l->height, width, PAD, CHAR_W, l->total);
	fputs("<!-- Flame graph written by ptrace_profiler: the root is at the bottom, each box a\n"
	      "     frame, its width the share of the samples in which it was on the stack. -->\n", f);
	fputs(svg_style, f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" fill=\"#f7f7f2\"/>\n", width,
		l->height);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (m) {
		if (l->diff) /* what its colours measure, first */
			fputs(l->diff->raw ? "Change in samples: " : "Change in shares of each total: ", m);
		fputs(p->command && p->command[0] ? p->command : "ptrace_profiler", m);
		fputc('\0', m);
		if (l->diff)
			write_diff_subtitle(m, l->diff);
		else
			write_run_subtitle(m, p);
		if (l->omitted)
			fprintf(m, "; %" PRIu64 " frame%s narrower than %.2g px not drawn", l->omitted,
				l->omitted == 1 ? "" : "s", l->min_width);
		fputc('\0', m);
	}
	bool ok = m && fclose(m) == 0;
	const char *title = ok ? text : "ptrace_profiler";
	const char *subtitle = ok ? text + strlen(text) + 1 : "";
	double room = (double)width - 2 * PAD;
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"22\">", PAD);
	write_fitted(f, title, chars_in(room - SEARCH_ROOM, TITLE_CHAR_W));
	fprintf(f, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"40\">", PAD);
	write_fitted(f, subtitle, chars_in(room - RESET_ROOM, CHAR_W));
	fputs("</text>\n", f);
	free(text);
	fprintf(f, "<text id=\"search\" class=\"btn\" x=\"%u\" y=\"22\" text-anchor=\"end\">Search</text>\n",
		width - PAD);
	fprintf(f, "<text id=\"clearsearch\" class=\"btn hid\" x=\"%u\" y=\"40\" text-anchor=\"end\">Reset search</text>\n",
		width - PAD);
	fprintf(f, "<text id=\"unzoom\" class=\"btn hid\" x=\"%d\" y=\"56\">Reset zoom</text>\n", PAD);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n", PAD, l->height - 12);
	fprintf(f, "<text id=\"matched\" x=\"%u\" y=\"%.0f\" text-anchor=\"end\"></text>\n",
		width - PAD, l->height - 12);
}

int output_svg(FILE *f, const struct profile *p, const struct svg_options *o)
{
	unsigned width = o && o->width ? o->width : 1200;
	struct svg_layout l = { 0 };
	l.diff = o ? o->diff : NULL;
	l.total = l.diff ? l.diff->total_after : stack_table_total(p->stacks);
	l.min_width = o && o->min_width >= 0 ? o->min_width : 0.1;
	l.scale = l.total ? (double)(width - 2 * PAD) / (double)l.total : 0;
	int rc = layout(&l, p->stacks);
	if (rc == 0) {
		size_t levels = l.max_level + 1; /* with "all" */
		l.height = TOP + (double)levels * FRAME_H + BOTTOM;
		write_header(f, p, &l, width);
		l.f = f;
		rc = layout(&l, p->stacks);
	}
	if (rc == 0 && l.total) {
		l.f = f;
		uint64_t before = l.diff ? l.diff->total_before : 0;
		write_box(&l, "all", FRAME_THREAD, 0, 0, l.total, before); /* the root */
	}
	free(l.open);
	if (rc != 0)
		return -1;
	fputs(svg_script, f);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}
