/* fuzz_proc.c - the /proc parsers (stat, stack and its filter, syscall,
 * schedstat, sched, status, maps lines) on arbitrary bytes, not
 * NUL-terminated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracee/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct task_stat st;
	if (parse_task_stat(buf, size, &st) == 0 && strlen(st.comm) >= COMM_MAX)
		abort();
	static struct kernel_stack ks;
	int depth = parse_kernel_stack(buf, size, &ks);
	if (depth < 0 || depth > KSTACK_MAX)
		abort();
	for (int i = 0; i < depth; i++)
		if (!ks.frame[i][0] || strlen(ks.frame[i]) >= KSYM_MAX)
			abort();
	if (kernel_stack_filter(&ks) > depth)
		abort();
	struct blocked_syscall w;
	parse_proc_syscall(buf, size, &w);
	struct sched_counts counts;
	parse_schedstat(buf, size, &counts);
	kernel_stack_on_cpu(&ks);
	uint64_t ns;
	parse_sched_exec_start(buf, size, &ns);
	uint64_t v;
	parse_status_kb(buf, size, "VmHWM", &v);
	parse_status_number(buf, size, "Uid", 2, &v);
	parse_status_number(buf, size, "NStgid", -1, &v);
	struct map_entry m;
	if (parse_maps_line(buf, size, &m) == 0 &&
	    (m.end < m.start || m.path < buf || m.path + m.path_len > buf + size))
		abort();
	free(buf);
	return 0;
}
