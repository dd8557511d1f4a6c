/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The USDT front end: turns `BINARY:PROVIDER:NAME(...)` into signatures the
 * shared resolver understands.  A probe's arguments become arg0..argN typed
 * by the size and signedness in its note, in a BTF of ours on top of the
 * binary's own .BTF (or --btf), where casts (`argN:TYPE`) find their types.
 * Globs in PROVIDER and NAME match several probes: one target each.
 * Variables (@NAME) are typed from the file's DWARF by the user functions'
 * front end; usdt_front__type_vars() retypes the signatures on top of them.
 */
#ifndef KSNOOP_USDT_FRONT_H
#define KSNOOP_USDT_FRONT_H

#include <stdbool.h>
#include <sys/types.h>
#include "ksnoop.h"
#include "signature.h"
#include "spec.h"

struct usdt_front;

struct usdt_match {
	const char *path;	/* the file as the user named it (owned by the front end) */
	const char *attach_path;	/* the same file, opened once: /proc/self/fd/N */
	dev_t dev;		/* and its identity, for -v */
	ino_t ino;
	const char *provider;
	const char *name;
	struct signature sig;
	bool has_btf;		/* the binary has .BTF (or --btf gave one) for casts */
	/*
	 * The argument types of the call sites this match stands for
	 * (KSNOOP_USDT_SIGNED | size, per argument).  When the sites of one
	 * probe pass different types, each set of types is a match of its
	 * own, and `typed_sites` says the program must keep to its sites.
	 */
	__u8 site_types[KSNOOP_MAX_ARGS];
	bool typed_sites;
	int nsites;		/* call sites of the probe (of all types) */
	int ntyped;		/* call sites of these types */
	bool glob;		/* the spec names probes by a glob */
	/*
	 * A site passes an argument libbpf does not parse: ksnoop attaches
	 * every site of the probe itself (usdt_specs.h), not libbpf.
	 */
	bool own_attach;
	/* Why ksnoop cannot read the probe's arguments ("" when it can). */
	char unreadable[192];
};

/* BTF_FILE: --btf, used for casts instead of the binary's own .BTF. */
struct usdt_front *usdt_front__new(const char *btf_file);
void usdt_front__free(struct usdt_front *fe);

/*
 * The probes SPEC names.  PID > 0 lets BINARY be a library's name as it
 * appears in that process's maps.  Returns the number of matches (at least
 * 1), stored in *OUT (free with free()), or a negative errno with E:
 * -EINVAL, -ENOENT, -ENOEXEC, -EISDIR, -E2BIG and -ESRCH (no such probe)
 * are the user's to fix; -ENOMEM and the like are not.
 */
int usdt_front__match(struct usdt_front *fe, const struct spec *spec, int pid,
		      struct usdt_match **out, struct ks_error *e);

/*
 * The matches of one spec read VARS (typed from the file's debug info,
 * ufunc_front__vars()): each signature is retyped in a BTF of ours on top
 * of VARS->btf, where casts find the debug info's types (not .BTF's or
 * --btf's), and reads them at the probe.  0, or -ENOMEM with E.
 */
int usdt_front__type_vars(struct usdt_front *fe, struct usdt_match *ms, int n,
			  const struct sig_vars *vars, struct ks_error *e);

#endif
