/* fuzz_query.c - the statement normalizer on any bytes: what it keeps is
 * valid UTF-8 within its buffer, a prefix of what a larger buffer keeps,
 * cut short by one piece at most, with no space first, and the hash does
 * not depend on the buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db/pgquery.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Is s[0..n) valid UTF-8?  (The normalizer's own check, written again.) */
static int valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
			: (c & 0xf8) == 0xf0 ? 4 : 0;
		if (!len || i + len > n)
			return 0;
		uint32_t cp = len == 1 ? c : c & (0x7f >> len);
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
		if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *raw = malloc(size ? size : 1); /* exactly the input: overreads are caught */
	if (!raw)
		return 0;
	memcpy(raw, data, size);
	size_t big_size = 8 * size + 64; /* a constant of 1 byte may become "$123456" */
	char *big = malloc(big_size), small[PG_QUERY_TEXT_MAX + 1];
	uint64_t h_big, h_small;
	size_t n_big = pg_query_normalize(raw, size, big, big_size, &h_big);
	size_t n_small = pg_query_normalize(raw, size, small, sizeof(small), &h_small);
	if (n_big != strlen(big) || n_small != strlen(small) || n_small > PG_QUERY_TEXT_MAX)
		abort();
	if (h_big != h_small || memcmp(big, small, n_small) != 0)
		abort();
	/* cut short by at most one piece written whole: a character, a
	 * "$1234567", the 12 bytes that close an IN list */
	if (n_small < n_big && n_small + 12 <= PG_QUERY_TEXT_MAX)
		abort();
	if (!valid_utf8((const unsigned char *)big, n_big) ||
	    !valid_utf8((const unsigned char *)small, n_small))
		abort();
	/* (a "quoted identifier" keeps its spaces: runs inside are its own) */
	if (n_big && big[0] == ' ')
		abort();
	free(big);
	free(raw);
	return 0;
}
