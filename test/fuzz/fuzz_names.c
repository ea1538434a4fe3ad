/* fuzz_names.c - the Oracle event-name file reader on arbitrary files. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "db/oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	char err[256];
	struct event_names *n = oracle_names_read(f, "fuzz", err, sizeof(err));
	fclose(f);
	if (n) {
		char frame[320];
		for (uint32_t ev = 0; ev < 64; ev++) {
			oracle_state_frame(ev, 0, n, frame, sizeof(frame));
			if (strchr(frame, ';') || strchr(frame, '\n'))
				__builtin_trap(); /* names must come out sanitized */
		}
		oracle_names_free(n);
	}
	return 0;
}
