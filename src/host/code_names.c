/* SPDX-License-Identifier: MIT */
/*
 * host/code_names.c: an image's globals as the host addresses them
 * (symbol), and what a refusal of an absent name lists instead (absent):
 * the functions, or the data objects, the object does define, so a user
 * sees a typo or a C++ name at once rather than guessing.
 *
 * C++ names are mangled (_Z...): a kernel `saxpy` declared without
 * extern "C" is `_Z5saxpyPfS_f` in the object. A name whose mangled form
 * starts _Z<len><name> is pointed out by name; any other _Z name earns the
 * general hint. No demangler is used: the hint needs only the prefix, and
 * libstdc++'s __cxa_demangle would pull C++ into the runtime for a message.
 */
#include <stdio.h>
#include <string.h>

#include "host/dev.h"
#include "host/elf.h"

int
host_symbol(void *t, void *image, const char *name, void **host,
	    uint64_t *bytes)
{
	const struct elf_func *g = elf_global(image, name);

	if (!g)
		return RIG_ABSENT;
	if (!g->object)
		return RIG_CODE_NAME;
	*host = g->addr;
	*bytes = g->size;
	return RIG_SYMBOL;
}

/* name's mangled form: _Z, the identifier's length, the identifier. */
static bool
mangles(const char *mangled, const char *name)
{
	char prefix[32];
	int n = snprintf(prefix, sizeof(prefix), "_Z%zu", strlen(name));

	return n > 0 && (size_t)n < sizeof(prefix) && !strncmp(mangled, prefix, n) &&
	       !strncmp(mangled + n, name, strlen(name));
}

/* Append to buf as snprintf would, never past len; the length it needs. */
static size_t
put(char *buf, size_t len, size_t at, const char *s)
{
	if (at < len)
		snprintf(buf + at, len - at, "%s", s);
	return at + strlen(s);
}

/* The list "a, b, c", cut with "..." where it does not fit in room. */
static size_t
list(const struct elf_image *img, bool data, char *buf, size_t len, size_t at,
     size_t room, const char **mangled_as, const char *name, bool *any_mangled)
{
	const struct elf_func *g;
	size_t i, n = 0, start = at;

	for (i = 0; (g = elf_global_at(img, i)); i++) {
		if (g->object != data)
			continue;
		if (!strncmp(g->name, "_Z", 2))
			*any_mangled = true;
		if (!*mangled_as && mangles(g->name, name))
			*mangled_as = g->name;
		if (at - start + strlen(g->name) + 2 > room) {
			at = put(buf, len, at, n ? ", ..." : "...");
			break;
		}
		at = put(buf, len, at, n++ ? ", " : "");
		at = put(buf, len, at, g->name);
	}
	return at;
}

void
host_absent(void *t, void *image, const char *name, bool data, char *buf,
	    size_t len)
{
	const char *kind = data ? "data objects" : "functions";
	const char *mangled_as = NULL;
	bool any_mangled = false;
	size_t at, hint_room = 220;
	const struct elf_func *g;
	size_t i, n = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; (g = elf_global_at(image, i)); i++)
		n += g->object == data;
	if (!n) {
		snprintf(buf, len, "the object defines no global %s", kind);
		return;
	}
	g = elf_global(image, name);
	at = put(buf, len, 0, g && !data ? name : "");
	at = put(buf, len, at, g && !data ? " is a data object (rig_image_symbol() reaches it); " : "");
	at = put(buf, len, at, "the object defines ");
	at = list(image, data, buf, len, at, len > hint_room + at ? len - hint_room - at : 0,
		  &mangled_as, name, &any_mangled);
	if (mangled_as) {
		at = put(buf, len, at, " (");
		at = put(buf, len, at, mangled_as);
		at = put(buf, len, at, " is C++'s mangled name for ");
		at = put(buf, len, at, name);
		at = put(buf, len, at, ": declare it extern \"C\", as RIG_HOST_KERNEL does)");
	} else if (any_mangled) {
		put(buf, len, at, " (the _Z names are C++ names, mangled: declare what you "
		    "name extern \"C\", as RIG_HOST_KERNEL does for a kernel, to reach it by its own name)");
	}
}
