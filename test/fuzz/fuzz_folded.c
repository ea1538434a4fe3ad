/* fuzz_folded.c - --diff's reader of folded text on anything: the input is
 * read as BEFORE and as AFTER.  Read or refused, never a crash; when read,
 * every stack has the same count on both sides, the totals are the sums,
 * and the two-count lines and the differential SVG are written. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "output/diff.h"
#include "output/output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	FILE *b = fmemopen((void *)data, size, "r"), *a = fmemopen((void *)data, size, "r");
	struct stack_diff d = { 0 };
	char err[512];
	int rc = b && a ? stack_diff_read_streams(&d, b, "b", a, "a", false, err, sizeof(err)) : -1;
	if (b)
		fclose(b);
	if (a)
		fclose(a);
	if (rc == 0) {
		uint64_t sb = 0, sa = 0;
		for (size_t i = 0; i < d.n; i++) {
			if (d.stacks[i].before != d.stacks[i].after)
				abort();
			sb += d.stacks[i].before;
			sa += d.stacks[i].after;
		}
		if (sb != d.total_before || sa != d.total_after)
			abort();
		FILE *out = fopen("/dev/null", "w");
		struct stack_table *none = stack_table_new();
		struct profile p = { .stacks = none };
		struct svg_options o = { .min_width = -1, .diff = &d };
		if (out && none && (output_diff_folded(out, &d) != 0 || output_svg(out, &p, &o) != 0))
			abort();
		stack_table_free(none);
		if (out)
			fclose(out);
	}
	stack_diff_free(&d);
	return 0;
}
