/* eh_frame.c - a search table over .eh_frame (eh_frame.h).
 *
 * .eh_frame is a sequence of records, each a length and an id: id 0 makes
 * a CIE (what its FDEs share, among it the encoding of their addresses,
 * augmentation 'R'), any other id an FDE, whose CIE lies id bytes before
 * the id.  A length of 0 ends the section; 0xffffffff is followed by a
 * 64-bit length. */
#include "unwind/eh_frame.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

#define DW_EH_PE_absptr 0x00
#define DW_EH_PE_uleb128 0x01
#define DW_EH_PE_udata2 0x02
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_udata8 0x04
#define DW_EH_PE_sleb128 0x09
#define DW_EH_PE_sdata2 0x0a
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_sdata8 0x0c
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_omit 0xff

/* A cursor over the section's bytes. */
struct reader {
	const uint8_t *data;
	size_t pos, end;
	bool bad;
};

static uint64_t read_n(struct reader *r, size_t n)
{
	uint64_t v = 0;
	if (r->bad || r->pos > r->end || r->end - r->pos < n) {
		r->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++) /* little-endian, as x86-64 is */
		v |= (uint64_t)r->data[r->pos + i] << (8 * i);
	r->pos += n;
	return v;
}

static uint64_t read_uleb(struct reader *r)
{
	uint64_t v = 0;
	for (unsigned shift = 0; !r->bad; shift += 7) {
		uint8_t b = (uint8_t)read_n(r, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* A pointer encoded as enc says, at the cursor (whose address in the
 * target is vaddr + pos); false for encodings a table cannot use. */
static bool read_pointer(struct reader *r, uint8_t enc, uint64_t vaddr, uint64_t *out)
{
	uint64_t at = vaddr + r->pos, v;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: v = read_n(r, 8); break;
	case DW_EH_PE_udata2: v = read_n(r, 2); break;
	case DW_EH_PE_udata4: v = read_n(r, 4); break;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: v = read_n(r, 8); break;
	case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)read_n(r, 2); break;
	case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)read_n(r, 4); break;
	default: return false;
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v += at;
	else if ((enc & 0x70) != 0)
		return false; /* relative to a base we do not know here */
	*out = v;
	return !r->bad;
}

/* How the FDEs of the CIE whose record starts at off encode their
 * addresses; false if it cannot be read. */
static bool cie_encoding(const uint8_t *data, size_t len, size_t off, uint8_t *enc)
{
	struct reader r = { data, off, len, false };
	uint64_t length = read_n(&r, 4);
	if (length == 0xffffffff)
		length = read_n(&r, 8);
	if (r.bad || length > len - r.pos)
		return false;
	r.end = r.pos + (size_t)length;
	uint64_t id = read_n(&r, 4);
	uint8_t version = (uint8_t)read_n(&r, 1);
	if (r.bad || id != 0)
		return false;
	const char *aug = (const char *)data + r.pos;
	size_t aug_len = strnlen(aug, r.end - r.pos);
	if (aug_len == r.end - r.pos)
		return false; /* no NUL inside the record: what follows is another's */
	r.pos += aug_len + 1;
	read_uleb(&r); /* code alignment */
	read_uleb(&r); /* data alignment (signed: only skipped) */
	if (version == 1)
		read_n(&r, 1);
	else
		read_uleb(&r); /* return address register */
	*enc = DW_EH_PE_absptr;
	if (aug_len == 0 || aug[0] != 'z')
		return !r.bad && aug_len == 0; /* another producer's: not read */
	read_uleb(&r); /* augmentation data length */
	for (size_t i = 1; i < aug_len && !r.bad; i++) {
		uint64_t ignored;
		if (aug[i] == 'R') {
			*enc = (uint8_t)read_n(&r, 1);
			return !r.bad;
		} else if (aug[i] == 'P') {
			/* the personality routine: skipped, however it is encoded */
			uint8_t penc = (uint8_t)read_n(&r, 1);
			if ((penc & 0x0f) == DW_EH_PE_uleb128 || (penc & 0x0f) == DW_EH_PE_sleb128)
				read_uleb(&r);
			else if (!read_pointer(&r, penc & 0x0f, 0, &ignored))
				return false;
		} else if (aug[i] == 'L') {
			read_n(&r, 1);
		} else if (aug[i] != 'S' && aug[i] != 'B' && aug[i] != 'G') {
			return false;
		}
	}
	return !r.bad;
}

/* The CIEs' encodings, the last one read kept: a linker writes one CIE
 * for many FDEs. */
struct cie_cache {
	size_t off;
	uint8_t enc;
	bool ok, valid;
};

/* The FDE whose record starts at off (its CIE pointer at id_pos, its end
 * at end): its entry, if it can be made. */
static bool fde_entry(const uint8_t *data, size_t len, size_t off, size_t id_pos, size_t end,
		      uint64_t vaddr, uint64_t base, struct cie_cache *cie,
		      struct eh_frame_entry *out)
{
	struct reader r = { data, id_pos, end, false };
	uint64_t id = read_n(&r, 4);
	if (r.bad || id > id_pos)
		return false;
	size_t cie_off = id_pos - (size_t)id;
	if (!cie->valid || cie->off != cie_off) {
		cie->off = cie_off;
		cie->valid = true;
		cie->ok = cie_encoding(data, len, cie_off, &cie->enc);
	}
	uint64_t start;
	if (!cie->ok || cie->enc == DW_EH_PE_omit || !read_pointer(&r, cie->enc, vaddr, &start) ||
	    start == 0)
		return false; /* start 0: a function the linker discarded */
	int64_t s = (int64_t)(start - base), f = (int64_t)(vaddr + off - base);
	if (s != (int32_t)s || f != (int32_t)f)
		return false;
	*out = (struct eh_frame_entry){ (int32_t)s, (int32_t)f };
	return true;
}

static int by_start(const void *a, const void *b)
{
	int32_t x = ((const struct eh_frame_entry *)a)->start;
	int32_t y = ((const struct eh_frame_entry *)b)->start;
	return x < y ? -1 : x > y;
}

struct eh_frame_entry *eh_frame_index(const uint8_t *data, size_t len, uint64_t vaddr,
				      uint64_t base, size_t *n)
{
	struct eh_frame_entry *t = NULL;
	size_t cap = 0;
	*n = 0;
	struct reader r = { data, 0, len, false };
	struct cie_cache cie = { 0 };
	while (r.pos < len) {
		size_t off = r.pos;
		uint64_t length = read_n(&r, 4);
		if (length == 0xffffffff)
			length = read_n(&r, 8);
		if (r.bad || length == 0 || length > len - r.pos)
			break;
		size_t id_pos = r.pos, end = r.pos + (size_t)length;
		struct eh_frame_entry e;
		bool is_cie = read_n(&r, 4) == 0 || r.bad;
		if (!is_cie && fde_entry(data, len, off, id_pos, end, vaddr, base, &cie, &e)) {
			if (!array_reserve((void **)&t, *n + 1, &cap, sizeof(*t))) {
				free(t);
				*n = 0;
				return NULL;
			}
			t[(*n)++] = e;
		}
		r = (struct reader){ data, end, len, false };
	}
	if (*n)
		qsort(t, *n, sizeof(*t), by_start);
	return t;
}
