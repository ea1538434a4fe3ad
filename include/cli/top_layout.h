/* top_layout.h - --top's screen as lines of text (pure: the terminal only
 * draws them, top_screen.c).
 *
 * From the top, in rows lines of at most cols characters (printable
 * ASCII, whatever the frames hold):
 *
 *   ptrace_profiler --top: split (PID 4242)                        PAUSED
 *   window 12: the last 1.00 s
 *   rate 99/s of 100/s; target stopped 1.9 ms/s, 0.19% of each thread's time
 *      %Own  %Total  OwnTime TotalTime  Function (by own, last window)   <- a bar
 *     50.2%   50.2%    0.50s     0.50s  cpu_work
 *     ...
 *     Share     Time  Thread state (last window)                         <- a bar
 *     69.8%    0.70s  R (running)
 *     ...
 *   (the same for wait events and queries, where the stacks have them)
 *   q quit  s sort by total  w since the start  p pause  k kernel frames
 *
 * The tables take what rows there are: states, waits and queries a few
 * lines each, the functions the rest (at least a few); on a small screen
 * the tables shrink first.  A name too long for its column keeps its start
 * and its end around "..".
 */
#ifndef PTRACE_PROFILER_TOP_LAYOUT_H
#define PTRACE_PROFILER_TOP_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "cli/top_model.h"

/* What the user chose to see (the keys), and what the screen says
 * besides the model. */
struct top_view {
	enum top_span span;
	enum top_sort sort;
	enum top_frames frames;
	uint64_t interval_ns;  /* -d: the rate asked */
	const char *target;    /* the targets as attached: "split (PID 4242)" */
	const char *note;      /* NULL, or a line in place of the tables ("waiting...") */
};

enum top_attr { TOP_PLAIN, TOP_BOLD, TOP_BAR };

#define TOP_LINE_MAX 512 /* wider screens are drawn this wide */

struct top_line {
	enum top_attr attr;
	char text[TOP_LINE_MAX];
};

/* The screen into out (room for rows lines), each line at most cols
 * characters (and TOP_LINE_MAX - 1); a bar is padded to the full width.
 * Returns the number of lines (at most rows). */
size_t top_layout(const struct top_model *m, const struct top_view *v, int cols, int rows,
		  struct top_line *out);

/* name in at most width characters into out (outsz > width): as it is if
 * it fits, else its start and its end around "..", every byte that is not
 * printable ASCII as '?'.  Returns strlen(out). */
size_t top_fit_name(const char *name, size_t width, char *out, size_t outsz);

/* Seconds in at most 9 characters: "0.50s", "12.3s", "1234s". */
const char *top_seconds(double s, char *out, size_t outsz);

#endif
