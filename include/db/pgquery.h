/* pgquery.h - a statement's shape: its text with the constants taken out.
 *
 * Pure functions (no I/O).  A backend's st_activity_raw holds the text its
 * client sent, constants and all: "... WHERE aid = 4711".  A profile wants
 * one frame per kind of statement, so the text is normalized the way
 * pg_stat_statements shows it - every constant becomes $1, $2... - and a
 * little further, so that texts that differ only in layout or constants
 * read the same:
 *
 *   - numbers (42, -7, 1.5e3, .5, 0x1F, 1_000), strings ('it''s',
 *     E'\'', U&'..', B'..', X'..', N'..') and dollar-quoted bodies
 *     ($$..$$, $fn$..$fn$) become $n, numbered after the highest $n the
 *     text already has (as pg_stat_statements numbers them); a minus sign
 *     in front of a number where it cannot subtract (after an operator,
 *     '(', ',', a keyword such as SELECT or WHERE) goes with the number,
 *     so -7 and 7 read the same;
 *   - a list of constants after IN - IN (1, 2, 3) - becomes one $n
 *     followed by a comment holding ", ...", as PostgreSQL 18's
 *     pg_stat_statements writes such a list (15's gives each
 *     element its own $n, and each list length its own query id: a
 *     profile would get one frame per length);
 *   - comments (-- to the end of the line, and C-style ones, nested as
 *     PostgreSQL nests them) are dropped, every run of white space becomes
 *     one space, a trailing ';' and the spaces at both ends go;
 *   - identifiers, keywords, "quoted identifiers", $n parameters,
 *     operators and TRUE/FALSE/NULL stay as written.
 *
 * The text may be cut anywhere (PostgreSQL keeps the first
 * track_activity_query_size - 1 bytes, even in the middle of a
 * character): an unterminated string or comment runs to the end.  Bytes
 * that do not form valid UTF-8 (a cut character, a server in another
 * encoding) come out as '?', so the result is always valid UTF-8.
 */
#ifndef PTRACE_PROFILER_PGQUERY_H
#define PTRACE_PROFILER_PGQUERY_H

#include <stddef.h>
#include <stdint.h>

/* The longest text a query frame carries, in bytes. */
#define PG_QUERY_TEXT_MAX 80

/* Normalizes raw[0..len) (stopping early at a NUL) into out: at most
 * outsz - 1 bytes, cut between two characters, always NUL-terminated
 * (outsz > 0).  *hash gets the FNV-1a 64-bit hash (offset basis
 * 0xcbf29ce484222325, prime 0x100000001b3) of the whole normalized text,
 * however much of it out could hold: the same shape, the same hash, on
 * every machine.  Returns strlen(out). */
size_t pg_query_normalize(const char *raw, size_t len, char *out, size_t outsz, uint64_t *hash);

#endif
