/* frame.c - make untrusted names safe for the folded format. */
#include "base/frame.h"

#include <string.h>

size_t frame_sanitize(const char *in, char *out, size_t outsz)
{
	if (outsz == 0)
		return 0;
	if (!in || !in[0])
		in = "[unknown]";
	size_t n = 0;
	for (; in[n] && n + 1 < outsz; n++) {
		unsigned char c = (unsigned char)in[n];
		if (c == ';')
			out[n] = ':';
		else if (c < 0x20 || c == 0x7f)
			out[n] = '?';
		else
			out[n] = (char)c;
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
