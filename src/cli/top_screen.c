/* top_screen.c - --top's terminal through ncurses (top_screen.h). */
#define _GNU_SOURCE
#include "cli/top_screen.h"

#include <curses.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <unistd.h>

struct top_screen {
	SCREEN *screen;
	int cols, rows;
};

int top_terminal_check(char *err, size_t errlen)
{
	const char *term = getenv("TERM");
	if (!isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "--top draws on a terminal, and stdout is not one (for a profile in a file, leave --top out)");
		return -1;
	}
	if (!isatty(STDIN_FILENO)) {
		snprintf(err, errlen, "--top reads its keys from a terminal, and stdin is not one");
		return -1;
	}
	if (!term || !term[0]) {
		snprintf(err, errlen, "--top needs TERM to name the terminal, and it is not set");
		return -1;
	}
	int setup_error = 0;
	if (setupterm(term, STDOUT_FILENO, &setup_error) != OK) {
		snprintf(err, errlen, "--top: no terminal description for TERM '%s'", term);
		return -1;
	}
	/* "dumb" and its like cannot move the cursor: nothing to redraw with. */
	const char *cup = tigetstr("cup");
	bool movable = cup && cup != (char *)-1;
	del_curterm(cur_term);
	if (!movable) {
		snprintf(err, errlen, "--top needs a terminal that can move its cursor, and TERM '%s' cannot", term);
		return -1;
	}
	return 0;
}

/* The terminal's size as the kernel knows it; the old one if it cannot say. */
static void ask_size(int *cols, int *rows)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

struct top_screen *top_screen_open(char *err, size_t errlen)
{
	struct top_screen *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* ncurses takes SIGTSTP and SIGWINCH where they are left as they
	 * were (its handlers would run in the sampler's thread, or interrupt
	 * it): ignored, no handler of its. */
	signal(SIGTSTP, SIG_IGN);
	signal(SIGWINCH, SIG_IGN);
	s->screen = newterm(NULL, stdout, stdin);
	if (!s->screen) {
		snprintf(err, errlen, "--top: cannot set up the terminal (TERM '%s')",
			 getenv("TERM") ? getenv("TERM") : "");
		free(s);
		return NULL;
	}
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	s->cols = COLS;
	s->rows = LINES;
	return s;
}

void top_screen_size(struct top_screen *s, int *cols, int *rows)
{
	int c = s->cols, r = s->rows;
	ask_size(&c, &r);
	if (c != s->cols || r != s->rows) {
		resizeterm(r, c);
		clearok(curscr, TRUE); /* whatever the terminal did to it, all of it again */
		s->cols = c;
		s->rows = r;
	}
	*cols = s->cols;
	*rows = s->rows;
}

static attr_t attribute(enum top_attr a)
{
	return a == TOP_BAR ? A_REVERSE : a == TOP_BOLD ? A_BOLD : A_NORMAL;
}

void top_screen_draw(struct top_screen *s, const struct top_line *text, size_t n)
{
	(void)s;
	erase();
	for (size_t i = 0; i < n && (int)i < LINES; i++) {
		attrset(attribute(text[i].attr));
		mvaddnstr((int)i, 0, text[i].text, COLS);
	}
	attrset(A_NORMAL);
	refresh(); /* only what changed goes to the terminal */
}

int top_screen_key(struct top_screen *s, int timeout_ms)
{
	(void)s;
	int key = getch();
	if (key != ERR)
		return key;
	struct pollfd in = { .fd = STDIN_FILENO, .events = POLLIN };
	if (poll(&in, 1, timeout_ms) <= 0)
		return -1;
	key = getch();
	return key == ERR ? -1 : key;
}

void top_screen_close(struct top_screen *s)
{
	if (!s)
		return;
	endwin();
	delscreen(s->screen);
	signal(SIGTSTP, SIG_DFL);
	free(s);
}
