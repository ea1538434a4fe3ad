/* top_screen.h - --top's terminal, through ncurses: the one file that
 * draws and reads keys.
 *
 * ncurses is not thread-safe: everything but top_terminal_check is called
 * from one thread, the screen's (top.c).  The terminal is in raw mode, so
 * Ctrl-C and Ctrl-\ come as keys (and end the run as q does) rather than
 * as signals, and Ctrl-Z is no stop: a stopped profiler could hold a
 * target thread stopped.  A resize is found by asking the terminal's size
 * every time a key is waited for, not by SIGWINCH, which would interrupt
 * the sampler's waits.
 */
#ifndef PTRACE_PROFILER_TOP_SCREEN_H
#define PTRACE_PROFILER_TOP_SCREEN_H

#include <stddef.h>

#include "cli/top_layout.h"

/* Before the targets are touched: stdin and stdout must be a terminal
 * that TERM names and that can move its cursor.  0, or -1 with the
 * reason in err (one line). */
int top_terminal_check(char *err, size_t errlen);

struct top_screen;

/* The screen taken over (the terminal's alternate screen, where it has
 * one).  NULL with the reason in err. */
struct top_screen *top_screen_open(char *err, size_t errlen);

/* Its size now (a resize is taken in here). */
void top_screen_size(struct top_screen *s, int *cols, int *rows);

/* n lines of text, top down, in place of what was there. */
void top_screen_draw(struct top_screen *s, const struct top_line *text, size_t n);

/* A key pressed within timeout_ms (ncurses' codes: 'q', KEY_RESIZE...),
 * or -1. */
int top_screen_key(struct top_screen *s, int timeout_ms);

/* The terminal as it was.  NULL is nothing. */
void top_screen_close(struct top_screen *s);

/* Keys that are not letters. */
#define TOP_KEY_CTRL_C 3
#define TOP_KEY_CTRL_BACKSLASH 28

#endif
