/* pgstate.c - a PostgreSQL process's wait event word (pgstate.h). */
#define _GNU_SOURCE
#include "db/pgstate.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define SYMBOL "my_wait_event_info"

/* The module of the program's own file: the one named as /proc/PID/exe. */
/* The module of the process's own program: the one holding its text,
 * whose start /proc/PID/stat gives (startcode, field 26). */
static const struct module_image *program_module(pid_t pid, struct modules *m)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* comm may hold anything */
	unsigned long long startcode = 0;
	int field = 2;
	for (; p && *p; p++)
		if (*p == ' ' && ++field == 26) {
			startcode = strtoull(p + 1, NULL, 10);
			break;
		}
	return startcode ? modules_find(m, startcode) : NULL;
}

/* The defined data symbol name in .dynsym: its ELF address.  0 or -1. */
static int dynsym(Elf *elf, const char *name, GElf_Addr *value)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
				continue;
			const char *s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && strcmp(s, name) == 0) {
				*value = sym.st_value;
				return 0;
			}
		}
	}
	return -1;
}

/* The version text the binary prints for --version, from its .rodata (the
 * whole file if it has none).  0 or -1. */
static int binary_version(Elf *elf, struct pg_version *v)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
			    (name = elf_strptr(elf, shstrndx, sh.sh_name)) && strcmp(name, ".rodata") == 0)
				break;
		}
	}
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (d && d->d_buf && pg_version_in_binary(d->d_buf, d->d_size, v) == 0)
		return 0;
	size_t size;
	const char *raw = elf_rawfile(elf, &size);
	return raw && pg_version_in_binary(raw, size, v) == 0 ? 0 : -1;
}

/* $PGDATA/PG_VERSION: a server process's working directory is its data
 * directory, and the server refuses to start on one of another version. */
static int data_directory_version(pid_t pid, struct pg_version *v)
{
	char path[64], text[32];
	snprintf(path, sizeof(path), "/proc/%d/cwd/PG_VERSION", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, text, sizeof(text));
	close(fd);
	return n > 0 && pg_version_parse(text, (size_t)n, v) == 0 ? 0 : -1;
}

static int read_target(pid_t pid, uint64_t addr, void *out, size_t len)
{
	struct iovec local = { out, len }, remote = { (void *)(uintptr_t)addr, len };
	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

enum pg_probe pg_probe(pid_t pid, struct modules *m, struct pg_process *out, char *msg,
		       size_t msglen)
{
	*out = (struct pg_process){ 0 };
	msg[0] = '\0';
	char link[64], exe[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(msg, msglen, "process %d: cannot read %s (%s): no PostgreSQL state", (int)pid,
			 link, strerror(errno));
		return PG_PROBE_NOT_POSTGRES;
	}
	exe[n] = '\0';
	/* The program's file, alone at bias 0 in its own libdw session
	 * (files.h): its ELF addresses, plus this process's bias. */
	const struct module_image *img = program_module(pid, m);
	Dwfl_Module *mod = img && img->file ? file_dwfl_module(img->file) : NULL;
	GElf_Addr file_bias = 0;
	Elf *elf = mod ? dwfl_module_getelf(mod, &file_bias) : NULL;
	GElf_Addr bias = img ? img->bias + file_bias : 0;
	GElf_Addr sym = 0;
	bool found = elf && dynsym(elf, SYMBOL, &sym) == 0;
	out->version_known = elf && binary_version(elf, &out->version) == 0;
	char name[16];
	if (!found) {
		if (out->version_known && out->version.major < PG_WAIT_FIRST_MAJOR) {
			/* 13.11, 9.6: as the server says it */
			if (out->version.major >= 10 && out->version.minor >= 0)
				snprintf(name, sizeof(name), "%d.%d", out->version.major,
					 out->version.minor);
			else
				pg_version_name(&out->version, name, sizeof(name));
			snprintf(msg, msglen, "process %d runs PostgreSQL %s (%s), which has no " SYMBOL
				 ": --pg-wait-events needs PostgreSQL %d or later", (int)pid, name, exe,
				 PG_WAIT_FIRST_MAJOR);
			return PG_PROBE_TOO_OLD;
		}
		snprintf(msg, msglen, "warning: process %d (%s) is not a PostgreSQL 14+ server process (no "
			 SYMBOL " in it): [no PostgreSQL state]", (int)pid, exe);
		return PG_PROBE_NOT_POSTGRES;
	}
	out->server = true;
	out->pointer_addr = sym + bias;
	if (!out->version_known)
		out->version_known = data_directory_version(pid, &out->version) == 0;
	out->table = out->version_known ? pg_wait_table_for(out->version.major) : NULL;
	if (!out->version_known)
		snprintf(msg, msglen, "warning: process %d (%s): cannot tell its PostgreSQL version (no "
			 "version text in the binary, no PG_VERSION in its directory): wait events as numbers",
			 (int)pid, exe);
	else if (!out->table)
		snprintf(msg, msglen, "warning: process %d runs PostgreSQL %s, whose wait event names we do "
			 "not have (14 to 17): wait events as numbers", (int)pid,
			 pg_version_name(&out->version, name, sizeof(name)));
	uint64_t ptr;
	if (read_target(pid, out->pointer_addr, &ptr, sizeof(ptr)) == 0)
		out->word_addr = ptr;
	return PG_PROBE_SERVER;
}

void pg_words(const struct pg_process *p, struct snapshot *s)
{
	s->n_words = p->word_addr ? 3 : 2;
	s->word_addr[0] = p->pointer_addr;
	s->word_addr[1] = p->pointer_addr + 4;
	s->word_addr[2] = p->word_addr;
}

int pg_word(struct pg_process *p, pid_t pid, struct snapshot *s, uint32_t *word)
{
	uint64_t ptr;
	if (s->words_ok && s->n_words >= 2) {
		ptr = (uint64_t)s->word[0] | (uint64_t)s->word[1] << 32;
	} else if (read_target(pid, p->pointer_addr, &ptr, sizeof(ptr)) != 0) {
		s->words_ok = 0;
		return -1;
	}
	if (!(s->words_ok && s->n_words == 3 && ptr == s->word_addr[2])) {
		/* moved since the last sample (or never read): where it points now */
		uint32_t w;
		if (!ptr || read_target(pid, ptr, &w, sizeof(w)) != 0) {
			s->words_ok = 0;
			return -1;
		}
		s->n_words = 3;
		s->word[0] = (uint32_t)ptr;
		s->word[1] = (uint32_t)(ptr >> 32);
		s->word_addr[2] = ptr;
		s->word[2] = w;
		s->words_ok = 1;
	}
	p->word_addr = ptr;
	*word = s->word[2];
	return 0;
}
