/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * C++ names of user functions: a symbol's Itanium-ABI name (_Z...)
 * demangled by libiberty's demangler (Debian's libiberty-dev, a static
 * archive of plain C), and the rule by which a spec's name or glob picks
 * a symbol by its mangled name or either demangled form.
 *
 * Symbol names come from a file the user controls.  libiberty's
 * demangler has had crashes on deep nesting: its recursion limit stays on
 * (DMGL_NO_RECURSE_LIMIT is never passed), names longer than
 * DEMANGLE_MAX_IN are not demangled at all (its working arrays grow with
 * the name's length, on the stack), and a result longer than
 * DEMANGLE_MAX_OUT is dropped as it is printed (a short name can
 * demangle to a long one).  A name not demangled is shown as it is.
 * Built without libiberty (KSNOOP_HAVE_DEMANGLE undefined), nothing is
 * demangled and -v says so.
 */
#ifndef KSNOOP_DEMANGLE_H
#define KSNOOP_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Longest mangled name demangled: libstdc++'s longest is ~400 bytes. */
#define DEMANGLE_MAX_IN		1024
/* Longest demangled name kept (with its parameters). */
#define DEMANGLE_MAX_OUT	1024

/* Is there a demangler in this build? */
bool demangle__available(void);

/*
 * SYM demangled into OUT (SZ bytes, at most DEMANGLE_MAX_OUT used): with
 * PARAMS as "ns::Conn::read(char*, unsigned long)" (qualifiers, no return
 * type), else "ns::Conn::read".  False (OUT empty) where SYM is no C++
 * name, is too long, or does not demangle.
 */
bool demangle__cxx(const char *sym, bool params, char *out, size_t sz);

/*
 * Does PATTERN (an fnmatch() glob if GLOB, else a name) name the symbol
 * RAW, demangled as PLAIN and FULL (NULL: not a C++ name)?  Any of the
 * three may match: `ns::Conn::read`, `ns::f*`, `'ns::f(int)'` and the
 * mangled `_ZN2ns1fEi` each pick their functions.
 */
bool demangle__name_matches(const char *pattern, bool glob, const char *raw, const char *plain,
			    const char *full);

#endif
