/* debuginfo.c - separate debug files, each candidate opened as a regular
 * file and proven the module's (debuginfo.h). */
#define _GNU_SOURCE
#include "unwind/debuginfo.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/regular_file.h"

/* --- CRC-32 ------------------------------------------------------------- */

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

/* The reflected polynomial 0x04c11db7, a byte at a time. */
static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t debuginfo_crc32(uint32_t crc, const void *data, size_t len)
{
	pthread_once(&crc_once, crc_init);
	const uint8_t *p = data;
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* The CRC of the whole file open on fd, read with pread; false if it
 * cannot be read. */
static bool file_crc(int fd, uint32_t *out)
{
	enum { CHUNK = 1 << 16 };
	uint8_t *buf = malloc(CHUNK);
	if (!buf)
		return false;
	uint32_t crc = 0;
	off_t off = 0;
	bool ok = true;
	for (;;) {
		ssize_t got = pread(fd, buf, CHUNK, off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ok = false;
			break;
		}
		if (got == 0)
			break;
		crc = debuginfo_crc32(crc, buf, (size_t)got);
		off += got;
	}
	free(buf);
	*out = crc;
	return ok;
}

/* --- one candidate ------------------------------------------------------ */

/* Is the file open on fd what want asks for? */
static bool proven(int fd, const struct stat *st, const struct debuginfo_want *want)
{
	if ((want->main_dev || want->main_ino) && st->st_dev == want->main_dev &&
	    st->st_ino == want->main_ino)
		return false; /* the module's own file by another name */
	if (want->build_id_len) {
		Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
		const void *id = NULL;
		ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
		bool same = len > 0 && (size_t)len == want->build_id_len && id &&
			    memcmp(id, want->build_id, want->build_id_len) == 0;
		elf_end(elf);
		return same;
	}
	uint32_t crc;
	return want->has_crc && file_crc(fd, &crc) && crc == want->crc;
}

/* The search's state: the places tried, in order, until one is proven. */
struct search {
	const struct debuginfo_want *want;
	int fd;
	char *found;
};

/* Tries the path made of parts (NULL-terminated, joined with "/", empty
 * ones left out); true once the file is found (and then tries no more). */
static bool try_parts(struct search *s, const char *const *parts)
{
	if (s->fd >= 0)
		return true;
	size_t len = 1;
	for (const char *const *p = parts; *p; p++)
		len += strlen(*p) + 1;
	char *name = malloc(len), *end = name;
	if (!name)
		return false;
	for (const char *const *p = parts; *p; p++) {
		if (!**p)
			continue;
		if (end != name)
			*end++ = '/';
		end = stpcpy(end, *p);
	}
	*end = '\0';
	if (name[0] != '/') {
		/* never relative to our working directory */
		free(name);
		return false;
	}
	struct stat st;
	int fd = open_regular(name, DEBUGINFO_MAX_SIZE, &st);
	if (fd >= 0 && proven(fd, &st, s->want)) {
		s->fd = fd;
		s->found = name;
		return true;
	}
	if (fd >= 0)
		close(fd);
	free(name);
	return false;
}

#define TRY(s, ...) try_parts((s), (const char *const[]){ __VA_ARGS__, NULL })

/* --- the places ---------------------------------------------------------- */

/* An entry of the path without libdw's "+"/"-" (CRC checks on, off). */
static const char *entry_of(const char *e)
{
	return *e == '+' || *e == '-' ? e + 1 : e;
}

static void by_build_id(struct search *s, char *entries[], size_t n)
{
	const struct debuginfo_want *w = s->want;
	if (w->build_id_len < 2 || w->build_id_len > 64)
		return;
	char first[3], rest[2 * 64 + sizeof(".debug")];
	snprintf(first, sizeof(first), "%02x", w->build_id[0]);
	char *r = rest;
	for (size_t i = 1; i < w->build_id_len; i++)
		r += sprintf(r, "%02x", w->build_id[i]);
	strcpy(r, ".debug");
	for (size_t i = 0; i < n; i++)
		if (entries[i][0] == '/' && TRY(s, entries[i], ".build-id", first, rest))
			return;
}

/* LINK (and, when invented, basename) under an absolute entry, in DIR's
 * path with its leading folders dropped one by one. */
static void under_absolute(struct search *s, const char *entry, const char *dir, const char *link,
			   const char *base)
{
	const char *sub = dir;
	for (;;) {
		while (*sub == '/')
			sub++;
		if (TRY(s, entry, sub, link) || (base && TRY(s, entry, sub, base)))
			return;
		if (!*sub)
			return;
		const char *slash = strchr(sub, '/');
		sub = slash ? slash : sub + strlen(sub);
	}
}

static void by_debuglink(struct search *s, char *entries[], size_t n, const char *file,
			 const char *link)
{
	const char *slash = strrchr(file, '/');
	char *dir = slash == file ? strdup("/") : strndup(file, (size_t)(slash - file));
	char *invented = NULL;
	const char *base = slash + 1;
	if (!dir)
		return;
	if (!link) {
		/* Without a .gnu_debuglink: only a build-id proves anything. */
		if (!s->want->build_id_len || asprintf(&invented, "%s.debug", base) < 0) {
			free(dir);
			return;
		}
		link = invented;
	} else
		base = NULL;
	for (size_t i = 0; i < n && s->fd < 0; i++) {
		const char *e = entries[i];
		if (!*e)
			TRY(s, dir, link);
		else if (*e == '/')
			under_absolute(s, e, dir, link, base);
		else if (!TRY(s, dir, e, link) && base)
			TRY(s, dir, e, base);
	}
	free(invented);
	free(dir);
}

static void by_altlink(struct search *s, char *entries[], size_t n, const char *file,
		       const char *alt)
{
	const char *slash = strrchr(alt, '/');
	const char *alt_base = slash ? slash + 1 : alt;
	char *dir = NULL;
	if (file && file[0] == '/') {
		const char *end = strrchr(file, '/');
		dir = end == file ? strdup("/") : strndup(file, (size_t)(end - file));
	}
	if (alt[0] == '/')
		TRY(s, alt);
	else if (dir)
		TRY(s, dir, alt);
	for (size_t i = 0; i < n; i++)
		if (entries[i][0] == '/' && !TRY(s, entries[i], alt_base))
			TRY(s, entries[i], ".dwz", alt_base);
	if (dir) {
		TRY(s, dir, ".dwz", alt_base);
		for (size_t i = 0; i < n; i++)
			if (entries[i][0] && entries[i][0] != '/')
				TRY(s, dir, entries[i], alt);
	}
	free(dir);
}

int debuginfo_search(const char *path, const char *file, const char *link,
		     const struct debuginfo_want *want, char **found)
{
	struct search s = { want, -1, NULL };
	char *copy = strdup(path ? path : DEBUGINFO_DEFAULT_PATH);
	if (!copy)
		return -1;
	size_t n = 1;
	for (const char *p = copy; *p; p++)
		n += *p == ':';
	char **entries = calloc(n, sizeof(*entries));
	if (!entries) {
		free(copy);
		return -1;
	}
	char *rest = copy;
	for (size_t i = 0; i < n; i++)
		entries[i] = (char *)entry_of(strsep(&rest, ":"));
	by_build_id(&s, entries, n);
	bool absolute = file && file[0] == '/';
	if (want->alt && link)
		by_altlink(&s, entries, n, file, link);
	else if (!want->alt && absolute && s.fd < 0)
		by_debuglink(&s, entries, n, file, link);
	free(entries);
	free(copy);
	if (s.fd >= 0)
		*found = s.found;
	return s.fd;
}

/* --- libdw's callback ---------------------------------------------------- */

/* libdw's debuginfod client, asked by build-id only: libdw's own path
 * (Dwfl_Callbacks.debuginfo_path) is "", no file name, no link. */
static int from_debuginfod(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !*urls)
		return -1;
	/* libdw gives up before the client on a stale errno. */
	errno = 0;
	char *name = NULL;
	int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, NULL, NULL, 0, &name);
	if (fd < 0) {
		free(name);
		return -1;
	}
	*debuginfo_file_name = name;
	return fd;
}

int debuginfo_find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		   const char *path, const struct stat *main, const char *file_name,
		   const char *debuglink, GElf_Word crc, char **debuginfo_file_name)
{
	struct debuginfo_want want = { .crc = crc, .has_crc = debuglink != NULL };
	if (main) {
		want.main_dev = main->st_dev;
		want.main_ino = main->st_ino;
	}
	/* The dwz file is asked for once the module's debug info is read
	 * (libdw's own test: its bias is known then). */
	Dwarf_Addr dwbias = (Dwarf_Addr)-1;
	dwfl_module_info(mod, NULL, NULL, NULL, &dwbias, NULL, NULL, NULL);
	Dwarf *dw = NULL;
	if (dwbias != (Dwarf_Addr)-1) {
		Dwarf_Addr bias;
		const char *alt = NULL;
		const void *id = NULL;
		ssize_t len;
		if (!(dw = dwfl_module_getdwarf(mod, &bias)) ||
		    (len = dwelf_dwarf_gnu_debugaltlink(dw, &alt, &id)) <= 0)
			return -1;
		want.alt = true;
		want.has_crc = false;
		want.build_id = id;
		want.build_id_len = (size_t)len;
		debuglink = alt;
	} else {
		const unsigned char *id = NULL;
		GElf_Addr vaddr;
		int len = dwfl_module_build_id(mod, &id, &vaddr);
		if (len > 0) {
			want.build_id = id;
			want.build_id_len = (size_t)len;
		}
	}
	int fd = debuginfo_search(path, file_name, debuglink, &want, debuginfo_file_name);
	if (fd < 0)
		fd = from_debuginfod(mod, userdata, modname, base, debuginfo_file_name);
	if (fd < 0 && dw)
		/* No dwz file: libdw's "none", lest dwarf_getalt look for it
		 * itself, with a blocking open of ALT. */
		dwarf_setalt(dw, (Dwarf *)-1);
	if (fd < 0) {
		/* libdw opens a name left here (blocking) when given no fd */
		free(*debuginfo_file_name);
		*debuginfo_file_name = NULL;
	}
	return fd;
}
