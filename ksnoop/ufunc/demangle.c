// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* C++ names of user functions (demangle.h). */
#include <fnmatch.h>
#include <string.h>
#include "demangle.h"

#ifdef KSNOOP_HAVE_DEMANGLE
#include <libiberty/demangle.h>

/* Where the demangler's output goes: up to DEMANGLE_MAX_OUT bytes, else dropped. */
struct demangle_sink {
	char *out;
	size_t sz, len;
	bool overflow;
};

static void sink_write(const char *s, size_t n, void *opaque)
{
	struct demangle_sink *k = opaque;

	if (k->overflow || n >= k->sz - k->len) {
		k->overflow = true;
		return;
	}
	memcpy(k->out + k->len, s, n);
	k->len += n;
	k->out[k->len] = '\0';
}

bool demangle__available(void)
{
	return true;
}

bool demangle__cxx(const char *sym, bool params, char *out, size_t sz)
{
	/* The recursion limit stays: no DMGL_NO_RECURSE_LIMIT. */
	int opts = params ? DMGL_PARAMS | DMGL_ANSI | DMGL_RET_DROP : DMGL_NO_OPTS;
	struct demangle_sink k = { out, sz < DEMANGLE_MAX_OUT ? sz : DEMANGLE_MAX_OUT, 0, false };

	if (!sz)
		return false;
	out[0] = '\0';
	if (strncmp(sym, "_Z", 2) != 0 || strnlen(sym, DEMANGLE_MAX_IN + 1) > DEMANGLE_MAX_IN)
		return false;
	if (!cplus_demangle_v3_callback(sym, opts, sink_write, &k) || k.overflow || !k.len) {
		out[0] = '\0';
		return false;
	}
	return true;
}
#else
bool demangle__available(void)
{
	return false;
}

bool demangle__cxx(const char *sym, bool params, char *out, size_t sz)
{
	if (sz)
		out[0] = '\0';
	return false;
}
#endif

static bool name_matches(const char *pattern, bool glob, const char *name)
{
	return name && (glob ? fnmatch(pattern, name, 0) == 0 : strcmp(pattern, name) == 0);
}

bool demangle__name_matches(const char *pattern, bool glob, const char *raw, const char *plain,
			    const char *full)
{
	return name_matches(pattern, glob, raw) || name_matches(pattern, glob, plain) ||
	       name_matches(pattern, glob, full);
}
