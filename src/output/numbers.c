/* numbers.c - durations and decimal digits for the writers (numbers.h). */
#include "output/numbers.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void format_ns(char *out, size_t outsz, uint64_t ns)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t u = units[i].ns;
		if (ns < u)
			continue;
		uint64_t whole = ns / u, frac = ns % u * 1000 / u; /* 3 decimals */
		if (ns % u * 1000 % u == 0) {
			if (frac == 0)
				snprintf(out, outsz, "%" PRIu64 "%s", whole, units[i].name);
			else {
				char digits[24]; /* frac < 1000, but the compiler cannot know */
				snprintf(digits, sizeof(digits), "%03" PRIu64, frac);
				for (size_t k = strlen(digits); k > 0 && digits[k - 1] == '0'; k--)
					digits[k - 1] = '\0';
				snprintf(out, outsz, "%" PRIu64 ".%s%s", whole, digits, units[i].name);
			}
			return;
		}
		/* Finer than a thousandth of this unit: say it in the next. */
	}
	snprintf(out, outsz, "%" PRIu64 "ns", ns);
}

size_t u64_to_dec(uint64_t v, char *out)
{
	char tmp[21];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
	return n;
}
