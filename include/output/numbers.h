/* numbers.h - numbers spelled for the output files.
 *
 * Two spellings the writers need and printf does not give: a duration in
 * the unit that says it exactly and shortly (the flame graph's "every
 * 10ms"), and a number's decimal digits without printf's cost, for the
 * formats that write millions of them (speedscope).  The summary's prose
 * durations, "10 ms" rounded to three digits, are format_duration's
 * (cli/summary.h).
 */
#ifndef PTRACE_PROFILER_NUMBERS_H
#define PTRACE_PROFILER_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

/* "10ms", "1.5ms", "100us", "2s": ns in the largest unit that keeps it
 * exact within 3 decimals (else in a smaller one; "ns" at the least), no
 * space before the unit.  Never rounded, unlike summary.h's
 * format_duration ("1.5 ms", three significant digits, up to days),
 * which is for people reading the summary. */
void format_ns(char *out, size_t outsz, uint64_t ns);

/* Decimal digits of v into out (room for 21); returns the length. */
size_t u64_to_dec(uint64_t v, char *out);

#endif
