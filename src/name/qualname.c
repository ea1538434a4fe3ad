/* qualname.c - C++ names from their scopes, as c++filt prints them. */
#include "name/qualname.h"

#include <stdio.h>
#include <string.h>

/* Appends text to out[*len..]; false once it no longer fits. */
static bool put(char *out, size_t outsz, size_t *len, const char *text)
{
	size_t n = strlen(text);
	if (*len + n >= outsz) {
		size_t room = outsz - 1 - *len;
		memcpy(out + *len, text, room);
		*len += room;
		out[*len] = '\0';
		return false;
	}
	memcpy(out + *len, text, n + 1);
	*len += n;
	return true;
}

bool qualname_join(const struct qual_part *parts, size_t n, const char *leaf,
		   char *out, size_t outsz)
{
	if (outsz == 0)
		return false;
	size_t len = 0;
	bool fits = true;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct qual_part *p = &parts[i];
		if (p->kind == QUAL_FUNCTION && p->full) {
			/* Already qualified: what came before is part of it. */
			len = 0;
			out[0] = '\0';
			fits = put(out, outsz, &len, p->name ? p->name : "");
		} else {
			if (len)
				fits &= put(out, outsz, &len, "::");
			switch (p->kind) {
			case QUAL_NAMESPACE:
				fits &= put(out, outsz, &len, p->name ? p->name : "(anonymous namespace)");
				break;
			case QUAL_CLASS:
				fits &= put(out, outsz, &len, p->name ? p->name : "(anonymous class)");
				break;
			case QUAL_LAMBDA: {
				char number[16] = "";
				if (p->number)
					snprintf(number, sizeof(number), "#%u", p->number);
				fits &= put(out, outsz, &len, "{lambda");
				fits &= put(out, outsz, &len, p->params ? p->params : "");
				fits &= put(out, outsz, &len, number);
				fits &= put(out, outsz, &len, "}");
				break;
			}
			case QUAL_FUNCTION:
				fits &= put(out, outsz, &len, p->name ? p->name : "(anonymous function)");
				fits &= put(out, outsz, &len, p->params ? p->params : "");
				break;
			}
		}
	}
	if (len)
		fits &= put(out, outsz, &len, "::");
	fits &= put(out, outsz, &len, leaf ? leaf : "");
	return fits;
}

bool qualname_type(const struct type_step *steps, size_t n, char *out, size_t outsz)
{
	if (outsz == 0)
		return false;
	out[0] = '\0';
	if (n == 0 || steps[n - 1].kind != TYPE_NAMED || !steps[n - 1].name)
		return false;
	char text[1024], next[1024];
	if ((size_t)snprintf(text, sizeof(text), "%s", steps[n - 1].name) >= sizeof(text))
		return false;
	for (size_t i = n - 1; i-- > 0;) {
		int w;
		switch (steps[i].kind) {
		case TYPE_NAMED:
			return false;
		case TYPE_CONST:
		case TYPE_VOLATILE:
			w = snprintf(next, sizeof(next), "%s %s", text,
				     steps[i].kind == TYPE_CONST ? "const" : "volatile");
			break;
		case TYPE_POINTER:
			w = snprintf(next, sizeof(next), "%s*", text);
			break;
		case TYPE_REFERENCE:
			w = snprintf(next, sizeof(next), "%s&", text);
			break;
		case TYPE_RVALUE_REFERENCE:
			w = snprintf(next, sizeof(next), "%s&&", text);
			break;
		default:
			return false;
		}
		if (w < 0 || (size_t)w >= sizeof(next))
			return false;
		memcpy(text, next, (size_t)w + 1);
	}
	if (strlen(text) >= outsz)
		return false;
	strcpy(out, text);
	return true;
}

const char *qualname_base_type(const char *dwarf_name)
{
	/* GCC's DW_AT_name of a base type, and c++filt's word for it */
	static const char *const names[][2] = {
		{ "long int", "long" },
		{ "long unsigned int", "unsigned long" },
		{ "short int", "short" },
		{ "short unsigned int", "unsigned short" },
		{ "long long int", "long long" },
		{ "long long unsigned int", "unsigned long long" },
		{ "__int128 unsigned", "unsigned __int128" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(dwarf_name, names[i][0]) == 0)
			return names[i][1];
	return dwarf_name;
}

void qualname_strip_clone(char *name)
{
	char *demangled = strstr(name, " [clone .");
	if (demangled) {
		*demangled = '\0';
		return;
	}
	/* The kinds of copy GCC (4.x to 14) makes and names NAME.KIND[.N]. */
	static const char *const kinds[] = { "part", "cold", "constprop", "isra", "lto_priv",
					     "localalias", "clone", "specialized" };
	for (char *dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			size_t k = strlen(kinds[i]);
			if (dot != name && strncmp(dot + 1, kinds[i], k) == 0 &&
			    (dot[1 + k] == '\0' || dot[1 + k] == '.')) {
				*dot = '\0';
				return;
			}
		}
	}
}
