/* files.c - the run's ELF files, each held once, by proven identity
 * (files.h). */
#define _GNU_SOURCE
#include "unwind/files.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/hash_index.h"
#include "base/sigbus.h"
#include "unwind/debuginfo.h"
#include "unwind/eh_frame.h"

#define COMPARE_CHUNK 65536

struct file {
	struct files *owner;
	uint32_t index;
	char *path;               /* as first mapped, or "[vdso]" */
	int fd;                   /* held for the run; -1 for an image in memory */
	bool fd_unheld;           /* not in the inode table: closed with the file */
	uint8_t *memory;          /* the image, when it came from memory */
	const uint8_t *image;     /* the memory, or the file mapped on first read */
	bool mapped;              /* image is our mapping of fd */
	size_t size;
	/* The file as it was read (fd's inode, its size and mtime), looked
	 * at again by file_intact; changed: it was found otherwise, and is
	 * not read from then on. */
	struct file_key key;
	bool changed;
	uint64_t zero_pages_seen; /* sigbus_zero_pages() when last looked at */
	int64_t looked_sec;       /* and the monotonic second */
	struct elf_layout layout;
	uint64_t eh_frame_hdr, eh_frame_hdr_size; /* vaddr, 0 if none */
	/* Without .eh_frame_hdr: .eh_frame, and a search table made of it
	 * on first use (eh_frame.h). */
	uint64_t eh_frame, eh_frame_size;
	bool index_tried;
	struct eh_frame_entry *fde_index;
	size_t index_n;
	uint8_t build_id[FILES_BUILD_ID_MAX];
	size_t build_id_len;
	/* libdw's view, made on first use. */
	bool dwfl_tried;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	uint8_t *dwfl_memory;     /* libdw's own copy of an image from memory */
};

/* An inode seen, held open for the run, and the file it is. */
struct inode {
	struct file_key key;
	int fd;
	uint32_t file;
};

struct files {
	char *debuginfo_path;     /* our finder's (debuginfo.h); NULL: its default */
	char *libdw_path;         /* libdw's own: "", it must reach no path */
	Dwfl_Callbacks callbacks;
	struct file **files;      /* by index; each allocated once, never moved */
	size_t n, cap;
	struct hash_index by_build_id; /* files with a build-id */
	struct inode *inodes;
	size_t n_inodes, cap_inodes;
	struct hash_index by_inode;
};

/* --- identity ----------------------------------------------------------- */

void file_key_of(const struct stat *st, struct file_key *out)
{
	*out = (struct file_key){ (uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
				  (int64_t)st->st_mtim.tv_sec, (int64_t)st->st_mtim.tv_nsec };
}

bool file_key_equal(const struct file_key *a, const struct file_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

size_t file_build_id(Elf *elf, uint8_t *out, size_t max)
{
	const void *id = NULL;
	ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (len <= 0 || (size_t)len > max || !id)
		return 0;
	memcpy(out, id, (size_t)len);
	return (size_t)len;
}

static uint64_t key_hash(const struct file_key *k)
{
	return hash_word(k->dev * 0x9e3779b97f4a7c15ULL ^ k->ino ^ hash_word(k->size) ^
			 hash_word((uint64_t)k->mtime_sec << 30 ^ (uint64_t)k->mtime_nsec));
}

static bool same_inode(const void *table, uint32_t id, const void *key)
{
	return file_key_equal(&((const struct files *)table)->inodes[id].key, key);
}

/* A file not yet known to be one of ours: its bytes, from a file or from
 * memory. */
struct candidate {
	const uint8_t *build_id;
	size_t build_id_len, size;
	int fd;                   /* or -1, and then: */
	const uint8_t *memory;
};

static uint64_t build_id_hash(const uint8_t *id, size_t len, size_t size)
{
	return hash_bytes(id, len) ^ hash_word(size);
}

/* len bytes at off of a held file or of a candidate. */
static bool read_bytes(int fd, const uint8_t *memory, size_t off, uint8_t *out, size_t len)
{
	if (fd < 0) {
		memcpy(out, memory + off, len);
		return true;
	}
	while (len) {
		ssize_t got = pread(fd, out, len, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		out += got;
		off += (size_t)got;
		len -= (size_t)got;
	}
	return true;
}

/* Byte for byte, read with pread rather than through the images, so that
 * the comparison leaves no file pages in our memory. */
static bool same_bytes(const struct file *f, const struct candidate *c)
{
	if (f->fd < 0 && c->fd < 0)
		return memcmp(f->memory, c->memory, c->size) == 0;
	uint8_t *a = malloc(2 * COMPARE_CHUNK);
	if (!a)
		return false;
	uint8_t *b = a + COMPARE_CHUNK;
	bool same = true;
	for (size_t off = 0; same && off < c->size; off += COMPARE_CHUNK) {
		size_t len = c->size - off < COMPARE_CHUNK ? c->size - off : COMPARE_CHUNK;
		same = read_bytes(f->fd, f->memory, off, a, len) &&
		       read_bytes(c->fd, c->memory, off, b, len) && memcmp(a, b, len) == 0;
	}
	free(a);
	return same;
}

static bool same_build_id_and_bytes(const void *table, uint32_t id, const void *key)
{
	const struct file *f = ((const struct files *)table)->files[id];
	const struct candidate *c = key;
	return f->build_id_len == c->build_id_len &&
	       memcmp(f->build_id, c->build_id, c->build_id_len) == 0 && f->size == c->size &&
	       same_bytes(f, c);
}

/* The file we hold with this build-id and these very bytes (read from fd,
 * or at memory), or NULL: one without a build-id is never shared. */
static struct file *held_copy(struct files *fs, const uint8_t *build_id, size_t len, size_t size,
			      int fd, const uint8_t *memory)
{
	if (!len)
		return NULL;
	struct candidate c = { build_id, len, size, fd, memory };
	uint32_t id = hash_index_find(&fs->by_build_id, build_id_hash(build_id, len, size),
				      same_build_id_and_bytes, fs, &c);
	return id == HASH_NONE ? NULL : fs->files[id];
}

/* --- the registry ----------------------------------------------------- */

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp);
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name);
static char no_path[] = "";

struct files *files_new(const char *debuginfo_path)
{
	struct files *fs = calloc(1, sizeof(*fs));
	if (!fs)
		return NULL;
	elf_version(EV_CURRENT);
	fs->callbacks = (Dwfl_Callbacks){
		.find_elf = find_elf,
		.find_debuginfo = find_debuginfo,
		.debuginfo_path = &fs->libdw_path,
	};
	fs->libdw_path = no_path;
	if ((debuginfo_path && !(fs->debuginfo_path = strdup(debuginfo_path))) ||
	    hash_index_init(&fs->by_build_id) != 0 || hash_index_init(&fs->by_inode) != 0) {
		files_free(fs);
		return NULL;
	}
	return fs;
}

static void free_file(struct file *f)
{
	if (!f)
		return;
	if (f->dwfl)
		dwfl_end(f->dwfl);
	if (f->fd_unheld)
		close(f->fd);
	free(f->dwfl_memory);
	free(f->fde_index);
	if (f->mapped && f->image)
		munmap((void *)f->image, f->size);
	free(f->memory);
	free(f->path);
	free(f);
}

void files_free(struct files *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->n; i++)
		free_file(fs->files[i]);
	for (size_t i = 0; i < fs->n_inodes; i++)
		close(fs->inodes[i].fd);
	free(fs->files);
	free(fs->inodes);
	hash_index_free(&fs->by_build_id);
	hash_index_free(&fs->by_inode);
	free(fs->debuginfo_path);
	free(fs);
}

size_t files_count(const struct files *fs)
{
	return fs->n;
}

static int hold_inode(struct files *fs, const struct file_key *key, int fd, uint32_t file)
{
	if (!array_reserve((void **)&fs->inodes, fs->n_inodes + 1, &fs->cap_inodes,
			   sizeof(*fs->inodes)))
		return -1;
	if (hash_index_add(&fs->by_inode, key_hash(key), (uint32_t)fs->n_inodes) != 0)
		return -1;
	fs->inodes[fs->n_inodes++] = (struct inode){ *key, fd, file };
	return 0;
}

/* Where .eh_frame is (vaddr and size), from the section headers: for a
 * file without .eh_frame_hdr (a static program linked by GCC). */
static void find_eh_frame(Elf *elf, uint64_t *vaddr, uint64_t *size)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_ALLOC) &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) && strcmp(name, ".eh_frame") == 0) {
			*vaddr = sh.sh_addr;
			*size = sh.sh_size;
			return;
		}
	}
}

/* A new file: its headers from elf (read here, not kept), its bytes in
 * fd (size of them) or in memory (taken). */
static struct file *new_file(struct files *fs, Elf *elf, int fd, uint8_t *memory, size_t size,
			     const char *path, const uint8_t *build_id, size_t build_id_len)
{
	struct file *f = NULL;
	if (!array_reserve((void **)&fs->files, fs->n + 1, &fs->cap, sizeof(*fs->files)))
		return NULL;
	if (!(f = calloc(1, sizeof(*f))) || !(f->path = strdup(path)))
		goto fail;
	f->owner = fs;
	f->fd = fd;
	f->size = size;
	if (layout_from_elf(elf, &f->layout) != 0)
		goto fail;
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum) == 0)
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME) {
				f->eh_frame_hdr = ph.p_vaddr;
				f->eh_frame_hdr_size = ph.p_memsz;
			}
		}
	if (!f->eh_frame_hdr)
		find_eh_frame(elf, &f->eh_frame, &f->eh_frame_size);
	memcpy(f->build_id, build_id, build_id_len);
	f->build_id_len = build_id_len;
	f->index = (uint32_t)fs->n;
	if (build_id_len &&
	    hash_index_add(&fs->by_build_id, build_id_hash(build_id, build_id_len, f->size),
			   f->index) != 0)
		goto fail;
	f->memory = memory;
	f->image = memory;
	fs->files[fs->n++] = f;
	return f;
fail:
	if (f) {
		free(f->path);
		free(f);
	}
	return NULL;
}

struct file *files_add_fd(struct files *fs, int fd, const char *path, bool *added)
{
	*added = false;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	struct file_key key;
	file_key_of(&st, &key);
	uint32_t id = hash_index_find(&fs->by_inode, key_hash(&key), same_inode, fs, &key);
	if (id != HASH_NONE) {
		close(fd);
		return fs->files[fs->inodes[id].file];
	}
	/* The headers read with pread, not through a mapping: a page
	 * touched in a mapping brings its neighbours into our resident set
	 * (fault-around), 100 KB a file for PostgreSQL's 43.  The image is
	 * mapped when the unwinder first reads it. */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	struct elf_layout l;
	if (!elf || layout_from_elf(elf, &l) != 0) {
		elf_end(elf);
		close(fd);
		return NULL;
	}
	uint8_t build_id[FILES_BUILD_ID_MAX];
	size_t len = file_build_id(elf, build_id, sizeof(build_id));
	/* another inode of a file we hold? */
	struct file *f = held_copy(fs, build_id, len, (size_t)st.st_size, fd, NULL);
	if (!f && (f = new_file(fs, elf, fd, NULL, (size_t)st.st_size, path, build_id, len))) {
		f->key = key;
		*added = true;
	}
	elf_end(elf);
	if (!f) {
		close(fd);
		return NULL;
	}
	if (hold_inode(fs, &key, fd, f->index) != 0) {
		/* Not held: looked at again next time. */
		if (*added)
			f->fd_unheld = true;
		else
			close(fd);
	}
	return f;
}

struct file *files_add_memory(struct files *fs, const void *image, size_t size, const char *name,
			      bool *added)
{
	*added = false;
	uint8_t *copy = malloc(size);
	if (!copy)
		return NULL;
	memcpy(copy, image, size);
	Elf *elf = elf_memory((char *)copy, size);
	struct elf_layout l;
	if (!elf || layout_from_elf(elf, &l) != 0) {
		elf_end(elf);
		free(copy);
		return NULL;
	}
	uint8_t build_id[FILES_BUILD_ID_MAX];
	size_t len = file_build_id(elf, build_id, sizeof(build_id));
	struct file *f = held_copy(fs, build_id, len, size, -1, copy);
	if (f)
		free(copy);
	else if ((f = new_file(fs, elf, -1, copy, size, name, build_id, len)))
		*added = true;
	else
		free(copy);
	elf_end(elf);
	return f;
}

/* --- one file --------------------------------------------------------- */

uint32_t file_index(const struct file *f)
{
	return f->index;
}

const char *file_path(const struct file *f)
{
	return f->path;
}

const struct elf_layout *file_layout(const struct file *f)
{
	return &f->layout;
}

uint64_t file_eh_frame_hdr(const struct file *f, uint64_t *size)
{
	*size = f->eh_frame_hdr_size;
	return f->eh_frame_hdr;
}

const struct eh_frame_entry *file_eh_frame_index(struct file *f, size_t *n, uint64_t *base)
{
	if (!f->index_tried && f->eh_frame_size && f->eh_frame_size <= f->size) {
		f->index_tried = true;
		uint8_t *data = malloc(f->eh_frame_size);
		if (data && file_read(f, f->eh_frame, data, f->eh_frame_size) == 0)
			f->fde_index = eh_frame_index(data, f->eh_frame_size, f->eh_frame, f->eh_frame,
						  &f->index_n);
		free(data);
	}
	*n = f->index_n;
	*base = f->eh_frame;
	return f->fde_index;
}

/* fd's inode as it was read, by fstat? */
static bool same_as_read(const struct file *f)
{
	struct stat st;
	struct file_key now;
	if (fstat(f->fd, &st) != 0)
		return false;
	file_key_of(&st, &now);
	return file_key_equal(&now, &f->key);
}

static int64_t monotonic_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec;
}

/* Looked at again (fstat) when asked (now), when a page of some file was
 * found cut short since (sigbus.h), or a second after the last look. */
static bool intact(struct file *f, bool now)
{
	if (f->fd < 0 || f->changed)
		return !f->changed;
	uint64_t pages = sigbus_zero_pages();
	int64_t sec = monotonic_sec();
	if (!now && pages == f->zero_pages_seen && sec == f->looked_sec)
		return true;
	f->zero_pages_seen = pages;
	f->looked_sec = sec;
	f->changed = !same_as_read(f);
	return !f->changed;
}

bool file_intact(struct file *f)
{
	return intact(f, false);
}

/* The file's bytes, mapped on first use; NULL if they cannot be. */
static const uint8_t *image_of(struct file *f)
{
	if (!f->image && f->fd >= 0 && !f->mapped) {
		void *p = f->size ? mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, f->fd, 0) : MAP_FAILED;
		f->mapped = true; /* tried: not again */
		if (p == MAP_FAILED)
			return NULL;
		f->image = p;
	}
	return f->image;
}

int file_read(struct file *f, uint64_t vaddr, void *out, size_t len)
{
	/* Read from memory, not looked at: the last look stands (a file
	 * cut short meanwhile reads as zeros and is found out below). */
	if (f->changed || !image_of(f))
		return -1;
	for (size_t i = 0; i < f->layout.n_loads; i++) {
		const struct elf_load *l = &f->layout.load[i];
		if (vaddr < l->vaddr || vaddr - l->vaddr >= l->filesz)
			continue;
		uint64_t off = l->offset + (vaddr - l->vaddr);
		if (off >= f->size)
			return -1;
		/* libunwind reads aligned words: the last one of a segment may
		 * run past the file; what lies beyond reads as zero. */
		size_t avail = f->size - off;
		size_t n = len < avail ? len : avail;
		uint64_t pages = sigbus_zero_pages();
		memcpy(out, f->image + off, n);
		memset((uint8_t *)out + n, 0, len - n);
		/* A page found past the file's end read as zeros: this
		 * file's, or another's (sigbus.h)? */
		if (sigbus_zero_pages() != pages && !intact(f, true))
			return -1;
		return 0;
	}
	return -1;
}

/* Dwfl_Callbacks.find_elf: the file we hold, never another found by
 * name.  libdw gets its own descriptor (it closes it) or its own copy of
 * an image from memory (it ends the Elf). */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	(void)mod, (void)name, (void)base;
	struct file *f = *userdata;
	if (!f)
		return -1;
	if (f->fd < 0) {
		if (!f->dwfl_memory && !(f->dwfl_memory = malloc(f->size)))
			return -1;
		memcpy(f->dwfl_memory, f->memory, f->size);
		*elfp = elf_memory((char *)f->dwfl_memory, f->size);
		return -1;
	}
	int fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* The path it was mapped at, for .gnu_debuglink's search next to it. */
	*file_name = strdup(f->path);
	return fd;
}

/* Dwfl_Callbacks.find_debuginfo: debuginfo.h's finder, which opens only
 * regular files, never the module's own. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	const struct file *f = *userdata;
	struct stat st;
	bool own = f && f->fd >= 0 && fstat(f->fd, &st) == 0;
	return debuginfo_find(mod, userdata, modname, base, f ? f->owner->debuginfo_path : NULL,
			      own ? &st : NULL, file_name, debuglink, crc, debuginfo_file_name);
}

Dwfl_Module *file_dwfl_module(struct file *f)
{
	if (f->dwfl_tried)
		return f->mod;
	f->dwfl_tried = true;
	/* Names from a file that is no longer what was mapped would be
	 * made up: it is named by module. */
	if (!intact(f, true))
		return NULL;
	if (!(f->dwfl = dwfl_begin(&f->owner->callbacks)))
		return NULL;
	/* Reported from the first PT_LOAD's aligned address, libdw's own
	 * reference: its bias is then 0. */
	dwfl_report_begin(f->dwfl);
	Dwfl_Module *mod = dwfl_report_module(f->dwfl, f->path, f->layout.base, f->layout.end);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!mod)
		return NULL;
	void **userdata;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f;
	Dwarf_Addr bias;
	if (!dwfl_module_getelf(mod, &bias) || bias != 0)
		return NULL; /* never names at an address libdw sees elsewhere */
	f->mod = mod;
	return mod;
}
