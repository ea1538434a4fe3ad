/* fuzz_perfmap.c - the JIT map parser (/tmp/perf-PID.map lines) and the
 * /proc/PID/status ids it needs, on arbitrary bytes, not NUL-terminated:
 * fed whole and in two pieces, then looked up at addresses taken from the
 * input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "name/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(struct perfmap *pm, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
		uint64_t addr;
		memcpy(&addr, data + i, 8);
		for (int d = -1; d <= 1; d++) {
			const char *name = perfmap_lookup(pm, addr + (uint64_t)(int64_t)d);
			if (name && (!name[0] || strlen(name) > PERFMAP_NAME_MAX))
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct perfmap *pm = perfmap_new();
	if (pm) {
		if (perfmap_add(pm, buf, size) > size)
			abort();
		check(pm, data, size);
		/* The same bytes in two reads, as a growing file gives them. */
		perfmap_clear(pm);
		size_t cut = size / 3, used = perfmap_add(pm, buf, cut);
		if (used > cut || perfmap_add(pm, buf + used, size - used) > size - used)
			abort();
		check(pm, data, size);
		perfmap_free(pm);
	}
	pid_t pid;
	uid_t uid;
	if (perfmap_status_ids(buf, size, &pid, &uid) == 0 && pid <= 0)
		abort();
	free(buf);
	return 0;
}
