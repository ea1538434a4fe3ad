/* jit_map.h - writes /tmp/perf-PID.map anew for this process (another
 * file, renamed into place, as jcmd writes it): one entry, name at addr.
 * Include after cmocka.h, stdio.h, inttypes.h and unistd.h. */
#ifndef JIT_MAP_H
#define JIT_MAP_H

static inline void write_jit_map(uint64_t addr, const char *name)
{
	char path[64], next[80];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	snprintf(next, sizeof(next), "%s.next", path);
	FILE *f = fopen(next, "w");
	assert_non_null(f);
	fprintf(f, "%" PRIx64 " 40 %s\n", addr, name);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(next, path), 0);
}

#endif
