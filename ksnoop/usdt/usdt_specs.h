/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDT probes ksnoop attaches itself: libbpf (1.5) refuses a whole probe
 * when one argument of one site is at a location it does not parse
 * (PostgreSQL 15's "-4@NBuffers(%rip)", a scaled index
 * "-4@-1204(%rbp,%rax,4)").  For such a probe ksnoop reads the notes,
 * writes each site's argument spec (the layout of libbpf's, see
 * include/ksnoop_usdt.h) and attaches a uprobe per site whose BPF cookie
 * is the spec's id, as libbpf does for the probes it parses.
 */
#ifndef KSNOOP_USDT_OWN_H
#define KSNOOP_USDT_OWN_H

#include <stdbool.h>
#include <linux/types.h>
#include "ks_error.h"
#include "usdt_note.h"

/*
 * libbpf's struct __bpf_usdt_arg_spec and __bpf_usdt_spec (usdt.bpf.h,
 * 1.5), field for field: the value size of __bpf_usdt_specs is checked
 * against it before anything is written (attach.c).
 */
struct usdt_bpf_arg {
	__u64 val_off;
	__u32 arg_type;		/* enum __bpf_usdt_arg_type, or KSNOOP_USDT_ARG_* */
	__s16 reg_off;
	bool arg_signed;
	__s8 arg_bitshift;
};

struct usdt_bpf_spec {
	struct usdt_bpf_arg args[USDT_MAX_ARGS];
	__u64 usdt_cookie;
	__s16 arg_cnt;
};

/* One call site: where to attach, and how its arguments are read. */
struct usdt_own_site {
	__u64 file_off;		/* the call site's offset in the file (the uprobe's) */
	__u64 sema_off;		/* its semaphore's offset in the file, 0 if none */
	__u64 pc;		/* its link-time address (a variable's load bias from the IP) */
	struct usdt_bpf_spec spec;
};

/*
 * The BPF spec of one argument, ARG at the site linked at PC; SYM_ADDR is
 * the link-time address of the symbol its location names (if any).
 * 0, or -EINVAL with why not in *WHY.
 */
int usdt_own__arg_spec(const struct usdt_arg *arg, __u64 pc, __u64 sym_addr,
		       struct usdt_bpf_arg *out, const char **why);

/*
 * The call sites of PROVIDER:NAME in the ELF file open as FD (named PATH
 * in messages), each spec's usdt_cookie COOKIE.  Returns the count (at
 * least 1; *OUT to free()) or a negative errno with E: -ENOEXEC for a file
 * or a note ksnoop cannot use, -ESRCH for no such probe, -ENOMEM.
 */
int usdt_own__sites(int fd, const char *path, const char *provider, const char *name,
		    __u64 cookie, struct usdt_own_site **out, struct ks_error *e);

#endif
