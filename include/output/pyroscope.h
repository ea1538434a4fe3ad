/* pyroscope.h - what a push to Grafana Pyroscope's /ingest looks like.
 *
 * The HTTP API (POST /ingest, the profile in the body as folded lines,
 * everything else in the query): name=APP.wall{k=v,k2=v2} (".wall" makes
 * it a wall-clock profile), from and until in whole UNIX seconds,
 * sampleRate in Hz (an integer), spyName, format=folded.  Everything here
 * is pure: the rules for names and labels, percent-encoding, the URL.
 *
 * Names and labels are checked before the run, so a bad one is refused
 * with exit 2 and not by the server hours later:
 *   application  1 to PYROSCOPE_NAME_MAX of A-Z a-z 0-9 _ . - /
 *   label key    1 to PYROSCOPE_KEY_MAX of A-Z a-z 0-9 _, not starting
 *                with a digit nor with "__" (reserved, as __name__ is)
 *   label value  1 to PYROSCOPE_VALUE_MAX printable ASCII characters other
 *                than space and  " , = { } \  (the name's own syntax)
 */
#ifndef PTRACE_PROFILER_PYROSCOPE_H
#define PTRACE_PROFILER_PYROSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/pyroscope_label.h"

#define PYROSCOPE_NAME_MAX 100
#define PYROSCOPE_SPY_NAME "ptrace_profiler"

/* Is text a valid application name? */
bool pyroscope_app_name_ok(const char *text);

/* A valid application name made of any text (a process's comm: "postgres:
 * walwriter"): each character that is not allowed becomes '_', at most
 * PYROSCOPE_NAME_MAX kept; empty text gives "unknown".  out has room for
 * PYROSCOPE_NAME_MAX + 1.  Returns out. */
char *pyroscope_app_name_from(const char *text, char *out);

/* A valid label value made of any text (a root frame: "client backend",
 * "nginx: worker process"): each character that is not allowed becomes
 * '_', at most PYROSCOPE_VALUE_MAX kept; empty text gives "unknown".  out
 * has room for PYROSCOPE_VALUE_MAX + 1.  Returns out. */
char *pyroscope_label_value_from(const char *text, char *out);

/* One root's lines of a folded text: --group-by type pushes each type's
 * part of a window on its own, with its type as a label. */
struct pyroscope_part {
	char root[PYROSCOPE_VALUE_MAX + 1]; /* the lines' first frame, as a label value */
	char *text;                         /* malloc'd: its lines, in order */
	size_t len;
	uint64_t samples;                   /* the sum of their counts */
	size_t cap;                         /* bytes allocated at text, while splitting */
};

/* Splits folded text (len bytes: "frame;frame... COUNT" lines) by first
 * frame, parts in the order their first line comes; roots that read alike
 * as label values share a part.  0 with *parts (malloc'd, *n of them), or
 * -1 when out of memory (nothing left allocated). */
int pyroscope_split_roots(const char *text, size_t len, struct pyroscope_part **parts, size_t *n);
void pyroscope_parts_free(struct pyroscope_part *parts, size_t n);

/* "key=value" into *out.  0, or -1 with a one-line reason in err naming
 * the part that is wrong. */
int pyroscope_parse_label(const char *text, struct pyroscope_label *out, char *err,
			  size_t errlen);

/* The integer sampleRate for a mean interval: 1 s / interval rounded to
 * the nearest integer, at least 1 (an interval over 2 s rounds to 0, which
 * Pyroscope reads as "no rate"). */
unsigned pyroscope_sample_rate(uint64_t interval_ns);

/* Percent-encodes text into out (RFC 3986: A-Z a-z 0-9 - . _ ~ stay, every
 * other byte %XX).  Returns the length, or -1 if it does not fit. */
int pyroscope_escape(const char *text, char *out, size_t outsz);

/* base (http[s]://host[:port][/prefix], a trailing '/' allowed) checked:
 * 0, or -1 with the reason in err. */
int pyroscope_check_url(const char *base, char *err, size_t errlen);

/* The whole URL of one window:
 *   BASE/ingest?name=APP.wall%7Bk%3Dv%2C...%7D&from=F&until=U
 *   &sampleRate=HZ&spyName=ptrace_profiler&format=folded
 * Labels in the order given.  Returns the length, or -1 if it does not fit
 * in outsz. */
int pyroscope_ingest_url(const char *base, const char *app,
			 const struct pyroscope_label *labels, size_t n_labels, uint64_t from,
			 uint64_t until, unsigned sample_rate, char *out, size_t outsz);

/* The window [start, end] (UNIX ns) as whole seconds: both rounded to the
 * nearest second, and until at least from + 1. */
void pyroscope_window_seconds(uint64_t start_unix_ns, uint64_t end_unix_ns, uint64_t *from,
			      uint64_t *until);

#endif
