/* main.c - parse the command line and run the mode it asks for (modes.h);
 * bad input is one line on stderr and exit status 2. */
#include <stdio.h>

#include "base/descriptors.h"
#include "cli/modes.h"
#include "options.h"

/* The command line as typed (for the SVG's title, pprof's comments). */
static const char *command_line(int argc, char **argv, char *out, size_t outsz)
{
	size_t used = 0;
	out[0] = '\0';
	for (int i = 0; i < argc && used + 1 < outsz; i++) {
		int w = snprintf(out + used, outsz - used, "%s%s", i ? " " : "", argv[i]);
		if (w < 0)
			break;
		used += (size_t)w < outsz - used ? (size_t)w : outsz - used - 1;
	}
	return out;
}

int main(int argc, char **argv)
{
	struct options o;
	char err[512], command[512];
	switch (options_parse(argc, argv, &o, err, sizeof(err))) {
	case PARSE_EXIT_OK:
		return 0;
	case PARSE_ERROR:
		fprintf(stderr, "ptrace_profiler: %s\n", err);
		return 2;
	case PARSE_OK:
		break;
	}
	command_line(argc, argv, command, sizeof(command));
	/* a server's threads and processes, a file each: as many as allowed */
	descriptors_raise();
	switch (o.mode) {
	case MODE_DIFF:
		return mode_diff(&o, command);
	case MODE_DUMP:
		return mode_dump(&o, command);
	case MODE_TOP:
		return mode_top(&o, command);
	case MODE_RECORD:
		break;
	}
	return mode_record(&o, command);
}
