/* demangle.c - C++ names through libstdc++, loaded when first needed. */
#define _GNU_SOURCE
#include "name/demangle.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn load(void)
{
	static bool tried;
	static cxa_demangle_fn fn;
	if (!tried) {
		tried = true;
		void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (lib)
			fn = (cxa_demangle_fn)dlsym(lib, "__cxa_demangle");
	}
	return fn;
}

int demangle(const char *name, char *out, size_t outsz)
{
	/* "_Z" starts every Itanium-mangled function or variable name; other
	 * text (C names, "main") is never handed to the demangler, which would
	 * read a bare "f" as a type. */
	if (!name || strncmp(name, "_Z", 2) != 0 || outsz == 0)
		return 0;
	cxa_demangle_fn fn = load();
	if (!fn)
		return 0;
	int status = -1;
	char *plain = fn(name, NULL, NULL, &status);
	if (status != 0 || !plain) {
		free(plain);
		return 0;
	}
	size_t n = strlen(plain);
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, plain, n);
	out[n] = '\0';
	free(plain);
	return 1;
}
