/* outermost.c - functions a thread's stack begins with (outermost.h). */
#include "name/outermost.h"

#include <string.h>

bool outermost_name(const char *name)
{
	static const char *const names[] = {
		/* Go: a goroutine's first frame, the scheduler's stack */
		"runtime.goexit", "runtime.mstart", "runtime.mcall", "runtime.rt0_go",
	};
	static const char abi0[] = ".abi0"; /* Go's assembly functions */
	/* the name alone, without --lines' " (file.c:42)" */
	size_t len = name ? strcspn(name, " ") : 0;
	if (len > sizeof(abi0) - 1 && strncmp(name + len - (sizeof(abi0) - 1), abi0, sizeof(abi0) - 1) == 0)
		len -= sizeof(abi0) - 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && strncmp(name, names[i], len) == 0)
			return true;
	return false;
}
