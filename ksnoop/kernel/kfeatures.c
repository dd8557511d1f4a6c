// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel features, probed once.  Each probe is what the feature takes and
 * nothing more: a sysfs file for kprobes, a map probe for the ring buffer,
 * a program load where the verifier is the judge (sleepable uprobes), a
 * load and an attach where only the attach can tell (fentry needs BTF
 * trampolines and ftrace direct calls), or an attach to nothing where the
 * kernel's answer tells (kprobe.multi looks the symbol up, a raw_tp cookie
 * is an attribute 6.10 added, kprobe.session an attach type it added,
 * uprobe.multi refuses a path that is no regular file, uprobe.session an
 * attach type 6.13 added).  Programs are "return 0"; the fentry
 * and fsession ones are attached for the moment it takes to close them,
 * to bpf_fentry_test1 (present wherever BPF is, called only by
 * BPF_PROG_TEST_RUN).  fentry, fsession, kprobe.multi and kprobe.session
 * are probed only for runs that trace kernel functions.
 *
 * Before this, fentry was learned by failing a whole attach and resolving
 * every target again for kprobes, kprobe.multi by a refused attach and
 * sleepable uprobes by a failed load: each cost a run its first attempt.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kfeatures.h"
#include "ksnoop.h"
#include "log.h"

/* Harmless to attach to for a moment: no caller but BPF_PROG_TEST_RUN. */
#define PROBE_FUNC "bpf_fentry_test1"
/* No tracepoint, no kernel function is named so. */
#define PROBE_NO_TP "ksnoop_no_such_tracepoint"
#define PROBE_NO_FUNC "ksnoop_no_such_function"
#define PROBE_NO_FILE "/ksnoop-no-such-file"

#define FEATURES_ENV "KSNOOP_FEATURES"

static const char *const feature_names[FEAT__COUNT] = {
	[FEAT_FENTRY] = "fentry",
	[FEAT_KPROBES] = "kprobes",
	[FEAT_KPROBE_MULTI] = "kprobe_multi",
	[FEAT_UPROBE_SLEEPABLE] = "uprobe_sleepable",
	[FEAT_TP_COOKIES] = "tp_cookies",
	[FEAT_RINGBUF] = "ringbuf",
	[FEAT_KPROBE_SESSION] = "kprobe_session",
	[FEAT_UPROBE_MULTI] = "uprobe_multi",
	[FEAT_FSESSION] = "fsession",
	[FEAT_UPROBE_SESSION] = "uprobe_session",
	[FEAT_RAW_SYSCALLS] = "raw_syscalls",
};

const char *kfeatures__name(enum kernel_feature feat)
{
	return feat < FEAT__COUNT ? feature_names[feat] : "?";
}

static int find_feature(const char *name, size_t len)
{
	int i;

	for (i = 0; i < FEAT__COUNT; i++)
		if (strlen(feature_names[i]) == len && !strncmp(feature_names[i], name, len))
			return i;
	return -1;
}

int kfeatures__parse(const char *spec, struct kernel_features *f, struct ks_error *e)
{
	const char *p = spec;

	while (*p) {
		size_t len = strcspn(p, ",");
		bool on = *p != '-';
		const char *name = p + (*p == '-' || *p == '+');
		int feat = find_feature(name, len - (name - p));

		if (feat < 0)
			return ks_fail(e, -EINVAL,
				       FEATURES_ENV ": '%.*s' is not [+|-]NAME, NAME one of fentry, kprobes, kprobe_multi, uprobe_sleepable, tp_cookies, ringbuf, kprobe_session, uprobe_multi, fsession, uprobe_session, raw_syscalls",
				       (int)len, p);
		f->have[feat] = on;
		f->injected[feat] = true;
		p += len;
		if (*p == ',' && *++p == '\0')
			return ks_fail(e, -EINVAL, FEATURES_ENV ": nothing after the last ','");
	}
	return 0;
}

/* The kernel's own ENOTSUPP, which no C library names. */
#define KERNEL_ENOTSUPP 524

/* Why fentry is off, for a message. */
static const char *fentry_why(const struct kernel_features *f)
{
	if (f->injected[FEAT_FENTRY])
		return "turned off by " FEATURES_ENV;
	/* arm64 before 6.4 (no direct calls from ftrace): no BPF trampoline. */
	if (f->fentry_err == -KERNEL_ENOTSUPP)
		return "no BPF trampolines in this kernel's build for its architecture, ENOTSUPP";
	return strerror(-f->fentry_err);
}

void kfeatures__describe(const struct kernel_features *f, const char *release, char *buf, size_t sz)
{
	size_t n = snprintf(buf, sz, "kernel %s:", release);
	int i;

	if (n >= sz)
		return;
	if (f->unprivileged) {
		snprintf(buf + n, sz - n, " not probed (no BPF program may be loaded: not root?)");
		return;
	}

	for (i = 0; i < FEAT__COUNT && n < sz; i++) {
		n += snprintf(buf + n, sz - n, "%s %s %s", i ? "," : "", feature_names[i],
			      !f->probed[i] && !f->injected[i] ? "not probed" : f->have[i] ? "yes" : "no");
		if (n >= sz)
			break;
		if (f->injected[i])
			n += snprintf(buf + n, sz - n, " (" FEATURES_ENV ")");
		else if (i == FEAT_FENTRY && f->probed[i] && !f->have[i])
			n += snprintf(buf + n, sz - n, " (%s)", fentry_why(f));
	}
}

/* "return 0", the whole program of every probe. */
static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static int load_ret0(enum bpf_prog_type type, struct bpf_prog_load_opts *opts)
{
	int fd = bpf_prog_load(type, "ksnoop_feature", "GPL", ret0,
			       sizeof(ret0) / sizeof(ret0[0]), opts);

	return fd < 0 ? -errno : fd;
}

/* 0 if a program of TYPE loads with OPTS and LINK_TYPE attaches it; else why not. */
static int load_and_link(enum bpf_prog_type type, struct bpf_prog_load_opts *opts,
			 enum bpf_attach_type link_type, struct bpf_link_create_opts *lopts)
{
	int prog = load_ret0(type, opts), link;

	if (prog < 0)
		return prog;
	link = bpf_link_create(prog, 0, link_type, lopts);
	link = link < 0 ? -errno : link;
	if (link >= 0)
		close(link);
	close(prog);
	return link < 0 ? link : 0;
}

/*
 * VMLINUX: the running kernel's BTF where the caller has it loaded, else
 * loaded here (some 9 ms: why it is shared).
 */
static int probe_fentry(const struct btf *vmlinux)
{
	struct btf *own = vmlinux ? NULL : btf__load_vmlinux_btf();
	__s32 id;

	if (!vmlinux && !own)
		return -errno;
	id = btf__find_by_name_kind(vmlinux ?: own, PROBE_FUNC, BTF_KIND_FUNC);
	btf__free(own);
	/* Nothing to probe with: taken as there, a refusal still falls back per run. */
	if (id < 0)
		return 0;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id);
	return load_and_link(BPF_PROG_TYPE_TRACING, &opts, BPF_TRACE_FENTRY, NULL);
}

static bool probe_kprobes(void)
{
	return access("/sys/bus/event_source/devices/kprobe", F_OK) == 0 ||
	       access("/sys/kernel/tracing/kprobe_events", F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/kprobe_events", F_OK) == 0;
}

/*
 * The kprobe.multi link's attach with nothing to attach: ATTACH (the
 * multi link's, or kprobe.session's) answers whether the kernel has it.
 * First a count above the kernel's limit (MAX_KPROBE_MULTI_CNT, 1 << 20)
 * with an address array at an address nothing is mapped at: a kernel with
 * the link refuses the count (E2BIG) before it reads the array, one from
 * before the limit (a fix of 6.7, in the stable kernels since) fails to
 * read it (EFAULT); one without the link refuses the attach type first
 * (EINVAL: 6.1's multi link takes only its own) or has no fprobe
 * (EOPNOTSUPP).  Anything else: a symbol that no function has, which the
 * kernel looks up in all of kallsyms and finds nowhere (ESRCH from
 * ftrace_lookup_symbols(), ENOENT elsewhere): sure, but the walk took
 * 200-330 ms under emulation (7.3), each of the two probes.  Nothing is
 * attached either way: an fprobe registered and taken down again took
 * 150 ms under emulation.  Where the kernel has the link but refuses a
 * group's anyway, that group goes a kprobe per function.
 */
#define PROBE_MULTI_CNT ((1U << 20) + 1)
#define PROBE_UNMAPPED ((const unsigned long *)8)

static bool probe_multi_link(enum bpf_prog_type type, enum bpf_attach_type attach)
{
	const char *syms[] = { PROBE_NO_FUNC };
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach);
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .kprobe_multi.addrs = PROBE_UNMAPPED,
		    .kprobe_multi.cnt = PROBE_MULTI_CNT);
	int err = load_and_link(type, &opts, attach, &lopts);

	if (err == -E2BIG || err == -EFAULT)
		return true;
	if (err == -EINVAL || err == -EOPNOTSUPP || err == -KERNEL_ENOTSUPP)
		return false;
	LIBBPF_OPTS_RESET(lopts, .kprobe_multi.syms = syms, .kprobe_multi.cnt = 1);
	err = load_and_link(type, &opts, attach, &lopts);
	return err == 0 || err == -ESRCH || err == -ENOENT;
}

static bool probe_kprobe_multi(void)
{
	return probe_multi_link(BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI);
}

/*
 * kprobe.session the same way (6.10).  The attach type is libbpf's, for
 * its "kprobe.session" section: the system's uapi header (6.1) has no
 * name for it.
 */
static bool probe_kprobe_session(void)
{
	enum bpf_prog_type type;
	enum bpf_attach_type session;

	if (libbpf_prog_type_by_name("kprobe.session", &type, &session))
		return false;
	return probe_multi_link(type, session);
}

/*
 * uprobe.multi: a kernel with it loads the program, then refuses to
 * attach it to a path that is not a regular file ("/": EBADF) before
 * placing any uprobe; one without refuses the program's attach type
 * (EINVAL).  The attach type is libbpf's for its "uprobe.multi" section:
 * the system's uapi header (6.1) has no name for it.
 */
static bool probe_uprobe_multi(void)
{
	unsigned long offset = 0;
	enum bpf_prog_type type;
	enum bpf_attach_type multi;

	if (libbpf_prog_type_by_name("uprobe.multi", &type, &multi))
		return false;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = multi);
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .uprobe_multi.path = "/",
		    .uprobe_multi.offsets = &offset, .uprobe_multi.cnt = 1);
	return load_and_link(type, &opts, multi, &lopts) == -EBADF;
}

/*
 * fsession as fentry is: a load and an attach to PROBE_FUNC.  A kernel
 * before 7.0 may load the program (its verifier takes an unknown tracing
 * attach type as fentry's kind) but refuses the link (EINVAL); one whose
 * architecture has no fsession trampoline refuses it too (EOPNOTSUPP).
 */
static bool probe_fsession(const struct btf *vmlinux)
{
	struct btf *own = vmlinux ? NULL : btf__load_vmlinux_btf();
	__s32 id;

	if (!vmlinux && !own)
		return false;
	id = btf__find_by_name_kind(vmlinux ?: own, PROBE_FUNC, BTF_KIND_FUNC);
	btf__free(own);
	if (id < 0)
		return false;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = KSNOOP_BPF_TRACE_FSESSION,
		    .attach_btf_id = id);
	return load_and_link(BPF_PROG_TYPE_TRACING, &opts, KSNOOP_BPF_TRACE_FSESSION, NULL) == 0;
}

/*
 * BPF_LINK_CREATE's attributes for uprobe.multi and uprobe.session, as the
 * kernel lays them out (union bpf_attr's link_create; 6.6 on).
 */
struct uprobe_link_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 link_flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 flags;
	__u32 pid;
};

int kfeatures__uprobe_session_link(int prog, const char *path, const unsigned long *offsets,
				   const __u64 *cookies, __u32 cnt, int pid)
{
	struct uprobe_link_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = prog;
	attr.attach_type = KSNOOP_BPF_TRACE_UPROBE_SESSION;
	attr.path = (__u64)(unsigned long)path;
	attr.offsets = (__u64)(unsigned long)offsets;
	attr.cookies = (__u64)(unsigned long)cookies;
	attr.cnt = cnt;
	attr.pid = pid;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}

/*
 * uprobe.session: an attach to a file that does not exist.  A kernel with
 * it looks the path up and finds none (ENOENT); one without refuses the
 * attach type first (EINVAL).  libbpf 1.5's bpf_link_create() passes
 * uprobe.multi's attributes only for BPF_TRACE_UPROBE_MULTI, so the
 * attributes are written here (uprobe_link_attr, kfeatures.h).
 */
static bool probe_uprobe_session(void)
{
	const char *path = PROBE_NO_FILE;
	unsigned long offset = 0x1000;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = KSNOOP_BPF_TRACE_UPROBE_SESSION);
	int prog = load_ret0(BPF_PROG_TYPE_KPROBE, &opts), link;

	if (prog < 0)
		return false;
	link = kfeatures__uprobe_session_link(prog, path, &offset, NULL, 1, 0);
	if (link >= 0)
		close(link);
	close(prog);
	return link == -ENOENT || link >= 0;
}

/* The verifier refuses BPF_F_SLEEPABLE on a kprobe program where uprobes cannot sleep. */
static bool probe_uprobe_sleepable(void)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .prog_flags = BPF_F_SLEEPABLE);
	int fd = load_ret0(BPF_PROG_TYPE_KPROBE, &opts);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * A kernel without raw_tp cookies refuses the attribute before anything
 * else (EINVAL); one with them goes on to look the tracepoint up, and
 * finds none by that name (ENOENT): nothing is attached, not even for a
 * moment (a tracepoint's first probe patches kernel text, up to ms).
 * The plainest program there is: if it does not load, ksnoop may not
 * load any (not root), and the other probes' failures say nothing.
 */
static bool probe_tp_cookies(struct kernel_features *f)
{
	LIBBPF_OPTS(bpf_raw_tp_opts, opts, .tp_name = PROBE_NO_TP, .cookie = 1);
	int prog = load_ret0(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL), link;

	f->unprivileged = prog == -EPERM || prog == -EACCES;
	if (prog < 0)
		return false;
	link = bpf_raw_tracepoint_open_opts(prog, &opts);
	link = link < 0 ? -errno : link;
	if (link >= 0)
		close(link);
	close(prog);
	return link >= 0 || link == -ENOENT;
}

/*
 * A raw tracepoint's BTF type (btf_trace_NAME) is there for each one the
 * kernel has: a raw_tp program attaches to it by name.
 */
static bool probe_raw_syscalls(const struct btf *vmlinux)
{
	return vmlinux && btf__find_by_name_kind(vmlinux, "btf_trace_sys_enter", BTF_KIND_TYPEDEF) > 0 &&
	       btf__find_by_name_kind(vmlinux, "btf_trace_sys_exit", BTF_KIND_TYPEDEF) > 0;
}

/*
 * Private stacks (kernel/bpf/verifier.c, 6.13 on where the JIT has them:
 * x86-64): a subprogram whose own frame is BPF_PRIV_STACK_MIN_SIZE (64)
 * bytes or more runs on a per-CPU stack of its own, and its frame no
 * longer counts towards the 512 bytes of the calls' combined stack.  So a
 * kprobe program of two frames of PRIV_PROBE_FRAME bytes each, one
 * calling the other, loads only where private stacks are given: without
 * them the verifier refuses it ("combined stack size of 2 calls is 1024.
 * Too large"), on every kernel.  A runtime probe, not a version and an
 * architecture: arm64's JIT may gain them, and a kernel that stops giving
 * them to uprobe programs answers no.
 */
#define PRIV_PROBE_FRAME 504

static const struct bpf_insn priv_stack_prog[] = {
	/* *(u64 *)(r10 - 504) = 0; call 4f; r0 = 0; exit */
	{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -PRIV_PROBE_FRAME },
	{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = 2 },
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
	/* 4: *(u64 *)(r10 - 504) = 0; r0 = 0; exit */
	{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -PRIV_PROBE_FRAME },
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static bool probe_priv_stack(void)
{
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ksnoop_feature", "GPL", priv_stack_prog,
			       sizeof(priv_stack_prog) / sizeof(priv_stack_prog[0]), NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

const char *kfeatures__uprobe_stack(const struct kernel_features *f)
{
	if (!f->priv_stack)
		return NULL;
	return "uprobe programs run on the task's stack: this kernel gives kprobe-type programs "
	       "a per-CPU private stack, which threads preempted on one CPU would share "
	       "(calls lost), and a tail call the verifier removes as never taken turns it off";
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

void kfeatures__probe_early(struct kernel_features *f, bool funcs)
{
	struct timespec t0;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(f, 0, sizeof(*f));
	for (i = 0; i < FEAT__COUNT; i++)
		f->probed[i] = funcs || (i != FEAT_FENTRY && i != FEAT_KPROBE_MULTI &&
					 i != FEAT_KPROBE_SESSION && i != FEAT_FSESSION);
	f->have[FEAT_TP_COOKIES] = probe_tp_cookies(f);
	if (funcs) {
		f->have[FEAT_KPROBE_MULTI] = probe_kprobe_multi();
		f->have[FEAT_KPROBE_SESSION] = f->have[FEAT_KPROBE_MULTI] && probe_kprobe_session();
	}
	f->have[FEAT_UPROBE_SESSION] = probe_uprobe_session();
	f->have[FEAT_KPROBES] = probe_kprobes();
	f->have[FEAT_UPROBE_SLEEPABLE] = probe_uprobe_sleepable();
	f->have[FEAT_UPROBE_MULTI] = probe_uprobe_multi();
	f->have[FEAT_RINGBUF] = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
	f->priv_stack = probe_priv_stack();
	f->early_funcs = funcs;
	f->early_ms = ms_since(&t0);
}

/* The probes that need the running kernel's BTF (VMLINUX, or loaded for them). */
static void probe_late(struct kernel_features *f, const struct btf *vmlinux, bool funcs)
{
	if (funcs) {
		/*
		 * An fsession link is a trampoline as fentry's is: where it
		 * attaches, fentry does too, and the one attach is the
		 * probe's cost (some 130 ms each under emulation, 7.3).
		 */
		f->have[FEAT_FSESSION] = probe_fsession(vmlinux);
		f->fentry_err = f->have[FEAT_FSESSION] ? 0 : probe_fentry(vmlinux);
		f->have[FEAT_FENTRY] = f->fentry_err == 0;
	}
	f->have[FEAT_RAW_SYSCALLS] = probe_raw_syscalls(vmlinux);
}

static struct kernel_features probed;
static bool probe_done;

int kfeatures__probe(const struct btf *vmlinux, bool funcs, const struct kernel_features *early,
		     struct ks_error *e)
{
	const char *env = getenv(FEATURES_ENV);
	char line[KS_ERROR_MSG_MAX];
	struct timespec t0;
	struct utsname u;
	bool ahead;
	double ms;
	int err;

	if (probe_done)
		return 0;
	probe_done = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Probed ahead for as much as this run asks, or now. */
	ahead = early && (early->early_funcs || !funcs);
	if (ahead)
		probed = *early;
	else
		kfeatures__probe_early(&probed, funcs);
	probe_late(&probed, vmlinux, funcs);
	/* The time of every probe this run's set came from, once. */
	ms = ms_since(&t0) + (ahead ? early->early_ms : 0);
	err = env ? kfeatures__parse(env, &probed, e) : 0;
	if (err)
		return err;
	if (log_verbose) {
		kfeatures__describe(&probed, uname(&u) == 0 ? u.release : "?", line, sizeof(line));
		log_info("%s; probed in %.1f ms", line, ms);
	}
	return 0;
}

const struct kernel_features *kfeatures__get(void)
{
	kfeatures__probe(NULL, true, NULL, NULL);
	return &probed;
}

enum attach_mode kfeatures__attach_mode(const struct kernel_features *f, enum attach_mode asked)
{
	if (asked == MODE_AUTO && !f->have[FEAT_FENTRY] && f->have[FEAT_KPROBES] && !f->unprivileged)
		return MODE_KPROBE;
	return asked;
}

enum attach_kind kfeatures__func_kind(const struct kernel_features *f, enum attach_mode mode,
				     bool glob)
{
	if (mode == MODE_KPROBE)
		return ATTACH_KPROBE;
	if (mode == MODE_FENTRY)
		return ATTACH_FENTRY;
	return glob && f->have[FEAT_KPROBES] ? ATTACH_KPROBE : ATTACH_FENTRY;
}

#define STILL_WORKS "tracepoints (tp:NAME) and USDT probes still work"
#define NO_KPROBES "kprobes are not available (CONFIG_KPROBES is off)"

int kfeatures__check_run(const struct kernel_features *f, bool funcs, enum attach_mode mode,
			struct ks_error *e)
{
	bool fentry = f->have[FEAT_FENTRY], kprobes = f->have[FEAT_KPROBES];

	if (f->unprivileged)
		return 0;
	if (!f->have[FEAT_RINGBUF])
		return ks_fail(e, -EOPNOTSUPP, "this kernel has no BPF ring buffer (5.8 on), where ksnoop's events go");
	if (!funcs)
		return 0;
	if (mode == MODE_FENTRY && !fentry)
		return ks_fail(e, -EOPNOTSUPP, "--mode fentry: this kernel refuses fentry/fexit (%s); %s",
			       fentry_why(f), kprobes ? "--mode kprobe works" : STILL_WORKS);
	if (mode == MODE_KPROBE && !kprobes)
		return ks_fail(e, -EOPNOTSUPP, "cannot trace kernel functions on this kernel: "
			       NO_KPROBES "; " STILL_WORKS);
	if (mode == MODE_AUTO && !fentry && !kprobes)
		return ks_fail(e, -EOPNOTSUPP, "cannot trace kernel functions on this kernel: "
			       "fentry/fexit are refused (%s) and " NO_KPROBES "; " STILL_WORKS,
			       fentry_why(f));
	return 0;
}

bool kfeatures__ufunc_multi(const struct kernel_features *f)
{
	return f->have[FEAT_UPROBE_MULTI] && !f->unprivileged;
}

/*
 * libbpf 1.5's own test, which KSNOOP_FEATURES cannot turn: the link
 * exists ("/" refused, EBADF) and filters by process (pid -1 refused,
 * EINVAL; 6.6 to 6.8 filtered by thread and answer ESRCH).
 */
static bool probe_libbpf_usdt_multi(void)
{
	unsigned long offset = 0;
	enum bpf_prog_type type;
	enum bpf_attach_type multi;
	int prog, link, err;

	if (libbpf_prog_type_by_name("uprobe.multi", &type, &multi))
		return false;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = multi);
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .uprobe_multi.path = "/",
		    .uprobe_multi.offsets = &offset, .uprobe_multi.cnt = 1);
	if (load_and_link(type, &opts, multi, &lopts) != -EBADF)
		return false;
	prog = load_ret0(type, &opts);
	if (prog < 0)
		return false;
	lopts.uprobe_multi.pid = -1;
	link = bpf_link_create(prog, -1, multi, &lopts);
	err = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(prog);
	return err == -EINVAL;
}

bool kfeatures__libbpf_usdt_multi(void)
{
	static int known = -1;

	if (known < 0)
		known = probe_libbpf_usdt_multi();
	return known;
}

/* The session feature of attach kind KIND; FEAT__COUNT: the kind has none. */
static enum kernel_feature session_feature(enum attach_kind kind)
{
	switch (kind) {
	case ATTACH_KPROBE:
		return FEAT_KPROBE_SESSION;
	case ATTACH_FENTRY:
		return FEAT_FSESSION;
	case ATTACH_UPROBE:
		return FEAT_UPROBE_SESSION;
	default:
		return FEAT__COUNT;
	}
}

/* Why KIND's session is not there, for -v (FEAT: its feature). */
static const char *session_missing(const struct kernel_features *f, enum kernel_feature feat)
{
	static const char *const since[FEAT__COUNT] = {
		[FEAT_KPROBE_SESSION] = "no kprobe.session in this kernel (6.10 on)",
		[FEAT_FSESSION] = "no fsession in this kernel (7.0 on)",
		[FEAT_UPROBE_SESSION] = "no uprobe.session in this kernel (6.13 on)",
	};
	static const char *const off[FEAT__COUNT] = {
		[FEAT_KPROBE_SESSION] = "kprobe_session turned off by " FEATURES_ENV,
		[FEAT_FSESSION] = "fsession turned off by " FEATURES_ENV,
		[FEAT_UPROBE_SESSION] = "uprobe_session turned off by " FEATURES_ENV,
	};

	return f->injected[feat] ? off[feat] : since[feat];
}

enum entry_keep kfeatures__entry_keep(const struct kernel_features *f, enum attach_kind kind,
				      const struct ksnoop_plan *bp, const char **why)
{
	const struct ksnoop_side_plan *entry = &bp->side[KSNOOP_ENTRY];
	enum kernel_feature feat = session_feature(kind);

	*why = NULL;
	if (!(entry->flags & KSNOOP_SIDE_STASH))
		return (entry->flags & KSNOOP_SIDE_RETRY) ? KEEP_STASH : KEEP_NONE;
	if (feat == FEAT__COUNT)
		*why = "tracepoints have no session cookie";
	else if (!f->have[feat])
		*why = session_missing(f, feat);
	else if (feat == FEAT_UPROBE_SESSION && !kfeatures__ufunc_multi(f))
		*why = "no uprobe.multi links (a uprobe.session link is one)";
	else if (bp->flags & KSNOOP_PLAN_COUNT_USTACK)
		*why = "counted by user stack (its programs are not the session's)";
	else if (entry->flags & (KSNOOP_SIDE_RETRY | KSNOOP_SIDE_TIMED))
		*why = "its entry is read again at the return";
	else if (bp->tree)
		*why = "--tree";
	else if (bp->track)
		*why = "--track";
	else if (entry->rec_size > KSNOOP_SESSION_REC_MAX)
		*why = "its entry record is larger than a session slot";
	return *why ? KEEP_STASH : KEEP_SESSION;
}
