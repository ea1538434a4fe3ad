/* Unit tests: a search table made of .eh_frame is the one the linker
 * writes into .eh_frame_hdr; records it cannot read are left out. */
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unwind/eh_frame.h"

/* A section of this very test program: its bytes and address. */
static Elf_Data *section(Elf *elf, const char *want, uint64_t *vaddr)
{
	size_t shstrndx;
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(name, want) == 0) {
			*vaddr = sh.sh_addr;
			return elf_getdata(scn, NULL);
		}
	}
	fail_msg("no %s", want);
	return NULL;
}

static int32_t le32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

static void same_as_the_linkers(void **state)
{
	(void)state;
	elf_version(EV_CURRENT);
	int fd = open("/proc/self/exe", O_RDONLY);
	assert_true(fd >= 0);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	uint64_t eh_vaddr, hdr_vaddr;
	Elf_Data *eh = section(elf, ".eh_frame", &eh_vaddr);
	Elf_Data *hdr = section(elf, ".eh_frame_hdr", &hdr_vaddr);
	const uint8_t *h = hdr->d_buf;
	/* version 1, table of datarel sdata4 pairs, as every linker writes */
	assert_int_equal(h[0], 1);
	assert_int_equal(h[3], 0x3b);
	size_t count = (size_t)le32(h + 8);
	assert_true(count > 10);

	size_t n;
	struct eh_frame_entry *t = eh_frame_index(eh->d_buf, eh->d_size, eh_vaddr, hdr_vaddr, &n);
	assert_non_null(t);
	assert_int_equal(n, count);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t[i].start, le32(h + 12 + 8 * i));
		assert_int_equal(t[i].fde, le32(h + 16 + 8 * i));
	}
	free(t);

	/* Cut anywhere, it reads what is whole and never past the end. */
	for (size_t len = 0; len < eh->d_size; len += 1 + len / 3) {
		t = eh_frame_index(eh->d_buf, len, eh_vaddr, hdr_vaddr, &n);
		assert_true(n <= count);
		free(t);
	}
	elf_end(elf);
	close(fd);
}

/* A CIE with augmentation "zR" and the given FDE address encoding, then
 * one FDE covering 0x40 bytes at start (written as enc says), then the
 * terminator: into out, its size returned.  The section lies at 0x1000. */
static size_t one_fde(uint8_t *out, uint8_t enc, uint32_t written)
{
	static const uint8_t cie[] = {
		0x10, 0, 0, 0,  /* length 16 */
		0, 0, 0, 0,     /* CIE id */
		1, 'z', 'R', 0, /* version, augmentation */
		1, 0x78, 16,    /* code align 1, data align -8, return address r16 */
		1, 0,           /* augmentation data length 1: R = (patched) */
		0, 0, 0,        /* padding */
	};
	memcpy(out, cie, sizeof(cie));
	out[16] = enc;
	size_t p = sizeof(cie); /* 20: the FDE */
	const uint8_t fde[] = {
		0x10, 0, 0, 0,                 /* length 16 */
		(uint8_t)(p + 4), 0, 0, 0,     /* back to the CIE */
		(uint8_t)written, (uint8_t)(written >> 8), (uint8_t)(written >> 16),
		(uint8_t)(written >> 24),      /* initial location */
		0x40, 0, 0, 0,                 /* range */
		0, 0, 0, 0,                    /* augmentation length, padding */
	};
	memcpy(out + p, fde, sizeof(fde));
	memset(out + p + sizeof(fde), 0, 4);
	return p + sizeof(fde) + 4;
}

static void encodings(void **state)
{
	(void)state;
	uint8_t buf[64];
	size_t n, len;
	struct eh_frame_entry *t;
	/* pc-relative: from the field's own address, 0x1000 + 20 + 8 */
	len = one_fde(buf, 0x1b, (uint32_t)(0x2000 - (0x1000 + 28)));
	t = eh_frame_index(buf, len, 0x1000, 0x1000, &n);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].start, 0x1000);
	assert_int_equal(t[0].fde, 20);
	free(t);
	/* absolute 4 bytes */
	len = one_fde(buf, 0x03, 0x3000);
	t = eh_frame_index(buf, len, 0x1000, 0x1000, &n);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].start, 0x2000);
	free(t);
	/* data-relative: a base this table does not know, left out */
	len = one_fde(buf, 0x3b, 0x3000);
	t = eh_frame_index(buf, len, 0x1000, 0x1000, &n);
	assert_null(t);
	assert_int_equal(n, 0);
	/* a discarded function (location 0) is no entry */
	len = one_fde(buf, 0x03, 0);
	t = eh_frame_index(buf, len, 0x1000, 0x1000, &n);
	assert_int_equal(n, 0);
	free(t);
}

/* A CIE whose augmentation string runs to the end of its record, without
 * its NUL: the record cannot be read, and what follows it (the next
 * record, or the end of the section) is never read as its own.  (Found
 * by fuzz_eh_frame: the cursor was left one byte past the record's end,
 * and every later read went on unbounded, past the section.) */
static void augmentation_without_its_nul(void **state)
{
	(void)state;
	static const uint8_t section[] = {
		8, 0, 0, 0,            /* CIE: length 8 */
		0, 0, 0, 0,            /* CIE id */
		1, 'z', 'R', 'R',      /* version, "zRR" and no NUL */
		12, 0, 0, 0,           /* FDE: length 12 */
		16, 0, 0, 0,           /* back to the CIE at 0 */
		0, 0x20, 0, 0, 0, 0, 0, 0, /* read as the CIE's 'R' made it */
		0xff, 0xff, 0xff, 0xff,   /* a record running past the end */
	};
	/* A heap copy of its exact size: a read past it is ASan's to see. */
	uint8_t *data = malloc(sizeof(section));
	assert_non_null(data);
	memcpy(data, section, sizeof(section));
	size_t n = 99;
	struct eh_frame_entry *t = eh_frame_index(data, sizeof(section), 0x1000, 0x1000, &n);
	assert_null(t);
	assert_int_equal(n, 0);
	/* The same CIE last in the section, the FDE's bytes cut off. */
	n = 99;
	t = eh_frame_index(data, 12, 0x1000, 0x1000, &n);
	assert_null(t);
	assert_int_equal(n, 0);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_as_the_linkers),
		cmocka_unit_test(encodings),
		cmocka_unit_test(augmentation_without_its_nul),
	};
	return cmocka_run_group_tests_name("eh_frame", tests, NULL, NULL);
}
