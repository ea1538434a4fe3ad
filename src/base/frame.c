/* frame.c - make untrusted names safe for every format. */
#include "base/frame.h"

#include <stdint.h>
#include <string.h>

#include "base/utf8.h"

/* What takes the place of a byte that begins no valid UTF-8 sequence:
 * U+FFFD, the replacement character. */
static const char REPLACEMENT[] = "\xef\xbf\xbd";

size_t frame_sanitize(const char *in, char *out, size_t outsz)
{
	if (outsz == 0)
		return 0;
	if (!in || !in[0])
		in = "[unknown]";
	size_t n = 0;
	while (*in) {
		uint32_t cp;
		size_t len = utf8_next(in, &cp);
		const char *put = in;
		size_t put_len = len;
		if (len == 0) {
			put = REPLACEMENT, put_len = sizeof(REPLACEMENT) - 1;
			len = 1; /* each stray byte its own */
		} else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
			put = "?", put_len = 1; /* C0, DEL, C1 */
		} else if (cp == ';') {
			put = ":", put_len = 1;
		}
		if (put_len >= outsz - n)
			break; /* whole characters only, and room for the NUL */
		memcpy(out + n, put, put_len);
		n += put_len;
		in += len;
	}
	out[n] = '\0';
	return n;
}

size_t frame_module_name(const char *path, char *out, size_t outsz)
{
	if (outsz < 3) {
		if (outsz)
			out[0] = '\0';
		return 0;
	}
	const char *base = path ? strrchr(path, '/') : NULL;
	base = base ? base + 1 : path;
	if (!base || !base[0])
		return frame_sanitize("[unknown]", out, outsz);
	out[0] = '[';
	size_t n = frame_sanitize(base, out + 1, outsz - 2);
	out[1 + n] = ']';
	out[2 + n] = '\0';
	return n + 2;
}

int frames_pack(const char *const *frames, int n, char *out, size_t cap)
{
	size_t used = 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(frames[i]) + 1;
		if (used + len > cap)
			return 0; /* none rather than a stack cut short */
		memcpy(out + used, frames[i], len);
		used += len;
	}
	return n;
}

int frames_unpack(const char *packed, int n, const char **out, int max)
{
	int k = 0;
	for (; k < n && k < max; k++, packed += strlen(packed) + 1)
		out[k] = packed;
	return k;
}

size_t frames_packed_len(const char *packed, int n)
{
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += strlen(packed + len) + 1;
	return len;
}
