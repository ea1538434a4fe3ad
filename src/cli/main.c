/* main.c - parse the command line and run the mode it asks for (modes.h);
 * bad input is one line on stderr and exit status 2. */
#include <stdio.h>

#include "cli/modes.h"
#include "options.h"

int main(int argc, char **argv)
{
	struct options o;
	char err[512];
	switch (options_parse(argc, argv, &o, err, sizeof(err))) {
	case PARSE_EXIT_OK:
		return 0;
	case PARSE_ERROR:
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		return 2;
	case PARSE_OK:
		break;
	}
	return mode_record(&o, argc, argv);
}
