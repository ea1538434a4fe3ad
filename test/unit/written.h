/* written.h - the text a writer leaves in a stream, for the writers' tests.
 *
 *   struct written w;
 *   assert_int_equal(output_folded(written_open(&w), table), 0);
 *   char *text = written_text(&w);   ... the caller frees text
 *
 * written_open() gives a fresh in-memory stream (open_memstream); it
 * asserts the stream was made.  written_text() closes it and hands over
 * everything written to it, NUL-terminated; w is spent after it.
 * Include after <cmocka.h>.
 */
#ifndef WRITTEN_H
#define WRITTEN_H

#include <stdio.h>

struct written {
	FILE *f;    /* the stream the writer is given; NULL once closed */
	char *text; /* open_memstream's buffer, the caller's after written_text() */
	size_t len; /* bytes written so far (set at each flush and at close) */
};

static inline FILE *written_open(struct written *w)
{
	w->text = NULL;
	w->len = 0;
	w->f = open_memstream(&w->text, &w->len);
	assert_non_null(w->f);
	return w->f;
}

static inline char *written_text(struct written *w)
{
	assert_non_null(w->f);
	assert_int_equal(fclose(w->f), 0);
	w->f = NULL;
	return w->text;
}

#endif
