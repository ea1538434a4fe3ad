/* fuzz_text.c - every parser of text from the command line: intervals,
 * counts, pid lists, Oracle addresses.  The input is one NUL-terminated
 * string (a copy of exactly the right size, so overreads are caught). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "db/oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	uint64_t v;
	pid_t pids[MAX_TIDS];
	const char *bad;
	if (parse_interval(text, &v) == 0 && v == 0)
		abort(); /* zero is never a valid interval */
	if (parse_count(text, &v) == 0 && v == 0)
		abort();
	int n = parse_pid_list(text, pids, MAX_TIDS, &bad);
	for (int i = 0; i < n; i++)
		if (pids[i] <= 0)
			abort();
	if (parse_address(text, &v) == 0 && v == 0)
		abort();
	free(text);
	return 0;
}
