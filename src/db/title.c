/* title.c - a process's own title and its stacks' root (title.h). */
#define _GNU_SOURCE
#include "db/title.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/frame.h"

#define DELETED " (deleted)"

static const char *file_name(const char *path, size_t len, size_t *name_len)
{
	const char *slash = memrchr(path, '/', len);
	const char *name = slash ? slash + 1 : path;
	*name_len = len - (size_t)(name - path);
	return name;
}

/* Is argv[0] (n bytes) the program's own path or name? */
static bool names_program(const char *argv0, size_t n, const char *exe)
{
	size_t exe_len = strlen(exe), a_len, e_len;
	size_t deleted = sizeof(DELETED) - 1;
	if (exe_len > deleted && strcmp(exe + exe_len - deleted, DELETED) == 0)
		exe_len -= deleted;
	if (n == exe_len && memcmp(argv0, exe, n) == 0)
		return true;
	const char *a = file_name(argv0, n, &a_len), *e = file_name(exe, exe_len, &e_len);
	return a_len == e_len && memcmp(a, e, a_len) == 0;
}

size_t process_title(const char *cmdline, size_t len, const char *exe, char *out, size_t outsz)
{
	if (outsz)
		out[0] = '\0';
	const char *nul = memchr(cmdline, '\0', len);
	size_t n = nul ? (size_t)(nul - cmdline) : len;
	if (!outsz || !memchr(cmdline, ' ', n) || names_program(cmdline, n, exe))
		return 0;
	while (n && cmdline[n - 1] == ' ')
		n--;
	while (n && cmdline[0] == ' ') {
		cmdline++;
		n--;
	}
	if (n > TITLE_MAX) {
		n = TITLE_MAX;
		while (n && ((unsigned char)cmdline[n] & 0xc0) == 0x80)
			n--; /* back to the first byte of the character cut */
	}
	char title[TITLE_MAX + 1];
	memcpy(title, cmdline, n);
	title[n] = '\0';
	return n ? frame_sanitize(title, out, outsz) : 0;
}

size_t process_title_read(pid_t pid, char *out, size_t outsz)
{
	char path[64], exe[PATH_MAX], cmdline[1024];
	if (outsz)
		out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t e = readlink(path, exe, sizeof(exe) - 1);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, cmdline, sizeof(cmdline)) : -1;
	if (fd >= 0)
		close(fd);
	if (e <= 0 || n <= 0)
		return 0; /* a kernel thread, a process gone */
	exe[e] = '\0';
	return process_title(cmdline, (size_t)n, exe, out, outsz);
}

size_t process_root_frame(const char *comm, pid_t pid, const char *words, char *out, size_t outsz)
{
	char text[256]; /* comm (15 bytes), a bgw_type (95) or a title (64) */
	snprintf(text, sizeof(text), "%s[%d]%s%s", comm, (int)pid, words && words[0] ? " " : "",
		 words ? words : "");
	return frame_sanitize(text, out, outsz);
}
