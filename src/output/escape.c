/* escape.c - XML and JSON text from untrusted bytes (escape.h). */
#include "output/escape.h"

#include <stdint.h>

#include "base/utf8.h"

size_t utf8_chars(const char *s)
{
	size_t n = 0;
	while (*s) {
		uint32_t cp;
		size_t len = utf8_next(s, &cp);
		s += len ? len : 1;
		n++;
	}
	return n;
}

void xml_escape(FILE *f, const char *s, size_t max_chars)
{
	for (size_t chars = 0; *s && chars < max_chars; chars++) {
		uint32_t cp;
		size_t len = utf8_next(s, &cp);
		if (!len || (cp < 0x20 && cp != '\t') || cp == 0x7f || cp == 0xfffe ||
		    cp == 0xffff) {
			fputc('?', f);
			s += len ? len : 1;
			continue;
		}
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fwrite(s, 1, len, f);
		}
		s += len;
	}
}

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		uint32_t cp;
		size_t len = utf8_next(s, &cp);
		if (!len) {
			fputs("\\ufffd", f);
			s++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (int)cp);
		else if (cp < 0x20 || cp == 0x7f)
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(s, 1, len, f);
		s += len;
	}
	fputc('"', f);
}
