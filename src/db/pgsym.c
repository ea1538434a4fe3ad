/* pgsym.c - a postgres binary's exported globals in a process (pgsym.h). */
#define _GNU_SOURCE
#include "db/pgsym.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

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

int pg_binary_of(pid_t pid, struct modules *m, struct pg_binary *out)
{
	*out = (struct pg_binary){ NULL, 0 };
	/* The program's file, alone at bias 0 in its own libdw session
	 * (files.h): its ELF addresses, plus this process's bias. */
	const struct module_image *img = program_module(pid, m);
	Dwfl_Module *mod = img && img->file ? file_dwfl_module(img->file) : NULL;
	GElf_Addr file_bias = 0;
	Elf *elf = mod ? dwfl_module_getelf(mod, &file_bias) : NULL;
	if (!elf)
		return -1;
	out->elf = elf;
	out->bias = img->bias + file_bias;
	return 0;
}

size_t pg_binary_symbols(const struct pg_binary *b, const char *const *names, size_t n,
			 uint64_t *addr)
{
	size_t found = 0;
	memset(addr, 0, n * sizeof(*addr));
	Elf_Scn *scn = NULL;
	while (b->elf && (scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t count = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 1; i < count && found < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
				continue;
			const char *s = elf_strptr(b->elf, sh.sh_link, sym.st_name);
			for (size_t k = 0; s && k < n; k++)
				if (!addr[k] && strcmp(s, names[k]) == 0) {
					addr[k] = sym.st_value + b->bias;
					found++;
				}
		}
	}
	return found;
}

int pg_binary_version(const struct pg_binary *b, struct pg_version *v)
{
	/* from its .rodata (the whole file if it has none) */
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (!b->elf)
		return -1;
	if (elf_getshdrstrndx(b->elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(b->elf, scn))) {
			GElf_Shdr sh;
			const char *name;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
			    (name = elf_strptr(b->elf, shstrndx, sh.sh_name)) && strcmp(name, ".rodata") == 0)
				break;
		}
	}
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (d && d->d_buf && pg_version_in_binary(d->d_buf, d->d_size, v) == 0)
		return 0;
	size_t size;
	const char *raw = elf_rawfile(b->elf, &size);
	return raw && pg_version_in_binary(raw, size, v) == 0 ? 0 : -1;
}

int pg_read(pid_t pid, uint64_t addr, void *out, size_t len)
{
	struct iovec local = { out, len }, remote = { (void *)(uintptr_t)addr, len };
	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}
