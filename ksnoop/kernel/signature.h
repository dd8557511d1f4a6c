/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Signatures: what a target takes and returns, from BTF (signature.c), or
 * from a USDT probe's note (usdt_front.c).  The resolver turns a spec and
 * a signature into a capture plan.
 */
#ifndef KSNOOP_SIGNATURE_H
#define KSNOOP_SIGNATURE_H

#include <stdbool.h>
#include <linux/types.h>
#include "spec.h"

struct btf;

#define SIG_MAX_PARAMS	32	/* a BTF prototype we can describe */

struct sig_param {
	const char *name;	/* points into BTF */
	__u32 type_id;
	int slot;		/* first ctx word / register holding it */
};

/* Where a syscall signature (syscall.h) attaches, if it is one. */
enum sig_syscall {
	SIG_NOT_SYSCALL,
	SIG_SYSCALL_EVENT,	/* one of syscalls:sys_enter_NAME or sys_exit_NAME */
	SIG_SYSCALL_PAIR,	/* sys:NAME: sys_enter_NAME and sys_exit_NAME */
};

/*
 * A variable of a user function's file an item names (@NAME, @tls:NAME),
 * typed in the signature's BTF (ufunc.h).
 */
struct sig_var {
	const char *name;	/* as the item names it: "@NAME" or "@tls:NAME" */
	__u32 type_id;
	__u64 addr;		/* link-time address; TLS: offset in the TLS block */
	bool tls;
};

/*
 * The variables one spec names, typed from a file's debug info: their
 * types are in BTF, a copy the front end that typed them owns.
 */
struct sig_vars {
	const struct btf *btf;
	const struct sig_var *v;
	int n;
	__s64 tls_delta;		/* the executable's TLS block from the thread pointer */
	__u64 rseq_off;			/* glibc's __rseq_offset in the executable, 0: none */
};

/* What a target takes and returns, from BTF. */
struct signature {
	const struct btf *btf;
	char name[SPEC_MAX_NAME + 8];	/* as shown: "ip_send_skb", "tp:sched_switch" */
	char attach[SPEC_MAX_NAME + 1];	/* what to attach to */
	const char *module;		/* owning module, NULL for vmlinux */
	/*
	 * One of several functions of this name (static ones in different
	 * files or modules): its address in kallsyms, which it is attached
	 * by and events are named with.  0: the name is the function's own.
	 */
	__u64 addr;
	__u32 func_id;			/* BTF FUNC (0 if none) */
	__u32 proto_id;			/* BTF FUNC_PROTO */
	int nparams;
	struct sig_param params[SIG_MAX_PARAMS];
	__u32 ret_type;			/* 0: void */
	bool has_return;		/* a return side exists (not tracepoints) */
	bool variadic;
	bool user_tags;			/* BTF marks user pointers (__user tags) */
	int nslots;			/* ctx words the arguments use */
	enum sig_syscall syscall;	/* a syscall's tracefs events (perf tracepoints) */
	/* A user function: the variables its spec names (owned by the front end) */
	const struct sig_var *vars;
	int nvars;
	__u64 uvar_ip;			/* the probe's link-time address */
	__s64 uvar_tls_delta;		/* the executable's TLS block from the thread pointer */
	__u64 uvar_rseq_off;		/* glibc's __rseq_offset in the executable, 0: none */
};

/*
 * Fill SIG from BTF FUNC FUNC_ID of BTF.  Returns 0, or -EINVAL with a
 * reason in E ("takes ...", to follow the function's name) when the
 * function cannot be traced (too many arguments, a struct argument too
 * large to pass in registers); SIG is filled as far as possible then, so
 * `info` can still print it.  -EIO when FUNC_ID is not a function with a
 * prototype (the BTF is broken, SIG stays empty).
 */
int signature__from_func(const struct btf *btf, __u32 func_id, struct signature *sig,
			 struct ks_error *e);

/*
 * Fill SIG for tracepoint NAME (without "tp:" or category) from vmlinux
 * BTF: types from the btf_trace_NAME typedef, names from __bpf_trace_NAME.
 * Returns -ENOENT if there is no such tracepoint.
 */
int signature__from_tp(const struct btf *btf, const char *name, struct signature *sig);

/*
 * A glob over tracepoints: the __bpf_trace_ stubs of BTF, indexed once
 * (NULL and errno on failure), and each tracepoint's signature from its
 * btf_trace_NAME typedef TYPEDEF_ID without a scan of BTF.
 */
struct tp_stubs;
struct tp_stubs *tp_stubs__new(const struct btf *btf);
void tp_stubs__free(struct tp_stubs *stubs);
int signature__from_tp_typedef(const struct tp_stubs *stubs, const char *name, __u32 typedef_id,
			       struct signature *sig);

/* "arg0", "arg1", ...: names for arguments BTF or a USDT note leave unnamed. */
const char *signature__arg_name(int i);

#endif
