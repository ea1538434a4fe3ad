/* utf8.c - see utf8.h. */
#include "base/utf8.h"

size_t utf8_next(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	size_t len;
	uint32_t c, min;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}
