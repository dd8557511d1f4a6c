// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Specs to targets (targets.h).  A glob's match that cannot be traced is
 * left out and counted: the kernel refuses it (notrace, not in kallsyms),
 * tracing it would recurse into the tracer, its prototype does not fit,
 * or the spec's values do not fit its arguments.  What a spec came to is
 * said once: -v counts the matches left out by reason (a type glob over
 * every kernel function leaves out 50,000, nearly all for one reason),
 * -vv lists every one, and when none is left the error names the first
 * reason, preferring one about the values (that is what the user can
 * change).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "btf_util.h"
#include "log.h"
#include "stop.h"
#include "targets.h"

/* A spec as quoted in a message: long ones are cut, the reason matters more. */
#define SPEC_QUOTE_MAX 100

static const char *spec_quote(const char *arg, char *buf, size_t sz)
{
	if (strlen(arg) <= SPEC_QUOTE_MAX)
		return arg;
	snprintf(buf, sz, "%.*s...", SPEC_QUOTE_MAX - 3, arg);
	return buf;
}

void targets__log_error(const char *arg, const struct ks_error *e)
{
	char q[SPEC_QUOTE_MAX + 1];

	if (e->pos)
		log_error("spec '%s': column %d: %s", spec_quote(arg, q, sizeof(q)), e->pos,
			  ks_message(e));
	else
		log_error("spec '%s': %s", spec_quote(arg, q, sizeof(q)), ks_message(e));
}

int targets__check_min_duration(const struct spec *specs, int n, __u64 min_ns)
{
	int i;

	for (i = 0; i < n && min_ns; i++) {
		if (specs[i].kind == SPEC_KFUNC || specs[i].kind == SPEC_UFUNC ||
		    spec__is_syscall(&specs[i]))
			continue;
		log_error("--min-duration: '%s' is %s, which has no return and so no duration; only kernel functions and system calls (sys:NAME) have one",
			  specs[i].text, specs[i].kind == SPEC_TP ? "a tracepoint" : "a USDT probe");
		return -EINVAL;
	}
	return 0;
}

/* ---- matches left out, counted by reason ---- */

/* Reasons told apart, at most; matches left out for others are counted together. */
#define LEFT_OUT_REASONS	32
/* Of them, -v prints the most frequent. */
#define LEFT_OUT_SHOWN		6

struct left_out {
	int nreasons;
	int other;			/* left out for a reason past the table */
	struct {
		int n;
		char why[KS_ERROR_MSG_MAX];
		char first[128];	/* the first match left out for it */
	} r[LEFT_OUT_REASONS];
};

static struct left_out *left_out__new(void)
{
	return calloc(1, sizeof(struct left_out));
}

/* Match [MODULE:]NAME left out for WHY: counted (LO may be NULL: out of memory). */
static void left_out__add(struct left_out *lo, const char *module, const char *name,
			  const char *why)
{
	int i;

	if (!lo)
		return;
	for (i = 0; i < lo->nreasons; i++)
		if (!strcmp(lo->r[i].why, why)) {
			lo->r[i].n++;
			return;
		}
	if (lo->nreasons == LEFT_OUT_REASONS) {
		lo->other++;
		return;
	}
	lo->r[i].n = 1;
	snprintf(lo->r[i].why, sizeof(lo->r[i].why), "%s", why);
	snprintf(lo->r[i].first, sizeof(lo->r[i].first), "%s%s%s", module ? module : "",
		 module ? ":" : "", name);
	lo->nreasons++;
}

/*
 * -v: "SPEC: N left out: WHY (first: NAME)" for the most frequent
 * reasons, the rest in one line.  Stable: a tie keeps the order first met.
 */
static void left_out__log(const struct left_out *lo, const char *spec)
{
	bool done[LEFT_OUT_REASONS] = {};
	int shown, i, rest = 0, rest_reasons = 0;

	if (!lo)
		return;
	for (shown = 0; shown < LEFT_OUT_SHOWN && shown < lo->nreasons; shown++) {
		int best = -1;

		for (i = 0; i < lo->nreasons; i++)
			if (!done[i] && (best < 0 || lo->r[i].n > lo->r[best].n))
				best = i;
		done[best] = true;
		log_info("%s: %d left out: %s (first: %s)", spec, lo->r[best].n, lo->r[best].why,
			 lo->r[best].first);
	}
	for (i = 0; i < lo->nreasons; i++)
		if (!done[i]) {
			rest += lo->r[i].n;
			rest_reasons++;
		}
	if (rest || lo->other)
		log_info("%s: %d more left out for %s%d other reason(s); -vv lists every one",
			 spec, rest + lo->other, lo->other ? "more than " : "", rest_reasons +
			 (lo->other ? 1 : 0));
}

/* ---- what a kernel spec names ---- */

/* Is S one of many (a glob, MODULE:, declarations), or one name? */
static bool spec_is_glob(const struct spec *s)
{
	return s->is_glob || s->ndecls || (s->kind == SPEC_KFUNC && s->module && !s->addr);
}

void targets__prefetch(struct kernel *k, const struct spec *specs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (specs[i].kind == SPEC_KFUNC) {
			kernel__prefetch_ksyms(k, spec_is_glob(&specs[i]));
			if (!spec_is_glob(&specs[i]))
				kernel__want_instances(k, specs[i].target);
		}
	if (kernel__by_name(k))
		log_info("kernel functions: looked up by name in the kernel (BPF)");
}

/* The functions a glob (or MODULE:NAME, or NAME with declarations) matches. */
static int each_func_match(struct kernel *k, const struct spec *s,
			   int (*fn)(const struct target_match *m, void *ctx), void *ctx,
			   struct ks_error *e)
{
	struct func_match *m;
	int n, j, err = 0;

	n = kernel__match_funcs(k, s->module, s->target, &m, e);
	if (n < 0)
		return n;
	for (j = 0; j < n && !err; j++) {
		struct signature sig = {};
		struct ks_error se = {};
		struct target_match tm = {
			.module = m[j].module, .name = m[j].name, .sig = &sig, .e = &se,
			.denied = kernel__func_denied(m[j].name),
			.refused = kernel__func_refused(k, &m[j]), .glob = true,
		};

		tm.err = kernel__func_sig(k, &m[j], &sig, &se);
		tm.namesakes = kernel__func_namesakes(k, &m[j]);
		err = fn(&tm, ctx);
	}
	free(m);
	if (err)
		return ks_fail(e, err, "%s", err == -ENOMEM ? "out of memory" : strerror(-err));
	if (!n)
		return ks_fail(e, -ENOENT, "no kernel function with BTF matches '%s'%s%s", s->target,
			       s->module ? " in " : "", s->module ? s->module : "");
	return 0;
}

struct tp_each {
	int (*fn)(const struct target_match *m, void *ctx);
	void *ctx;
};

static int tp_match(const struct signature *sig, void *ctx)
{
	struct tp_each *te = ctx;
	struct target_match tm = { .name = sig->name, .sig = sig, .glob = true };

	return te->fn(&tm, te->ctx);
}

/*
 * The function fentry attaches to: it attaches by name, and the kernel
 * takes the first of the name in kallsyms' order (kallsyms_lookup_name(),
 * the lowest address; so on 6.1 and 6.12, vm/tests/48-statics.sh) within
 * the BTF's owner (vmlinux, or the module whose BTF has it).
 */
static int fentry_pick(const struct func_instance *in, int n, const char *btf_module)
{
	int i;

	for (i = 0; i < n; i++)
		if (!in[i].module == !btf_module &&
		    (!btf_module || strcmp(in[i].module, btf_module) == 0))
			return i;
	return -1;
}

/* "at 0x1 [mod], 0x2, ...": where the functions of a name are, for a message. */
static void list_instances(const struct func_instance *in, int n, char *buf, size_t sz)
{
	size_t len = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < n && len < sz; i++)
		len += snprintf(buf + len, sz - len, "%s0x%llx%s%s%s", i ? ", " : "",
				(unsigned long long)in[i].addr, in[i].module ? " [" : "",
				in[i].module ? in[i].module : "", in[i].module ? "]" : "");
}

/* NAME@ADDRESS names none of the functions IN[0..N) (N of the name in all): E. */
static int no_such_instance(const struct spec *s, const struct func_instance *in, int n,
			    int shown, struct ks_error *e)
{
	char where[512];

	list_instances(in, shown, where, sizeof(where));
	if (!n)
		ks_fail(e, -ENOENT, "no function '%s' in %s", s->target, s->module);
	else if (!in[0].addr)
		ks_fail(e, -ENOENT, "no function '%s' at 0x%llx that can be seen: kallsyms shows addresses to root only",
			s->target, (unsigned long long)s->addr);
	else
		ks_fail(e, -ENOENT, "no function '%s' at 0x%llx; kallsyms has %s%s", s->target,
			(unsigned long long)s->addr, n > 1 ? "these: " : "it at ", where);
	e->pos = s->addr_pos;
	return e->err;
}

/*
 * TM and ISIG (a copy of the name's signature) become the I-th of the N
 * functions IN of one name, PICK the one fentry attaches by name; IE says
 * why its signature could not be read.
 */
static void as_instance(struct kernel *k, const struct func_instance *in, int i, int n, int pick,
			struct target_match *tm, struct signature *isig, struct ks_error *ie)
{
	tm->e = ie;
	tm->sig = isig;
	tm->instance = i;
	tm->ninstances = n;
	tm->fentry_pick = i == pick;
	tm->module = in[i].module;
	tm->err = kernel__instance_sig(k, &in[i], isig, ie);
}

/*
 * A function named alone whose name kallsyms lists more than once (static
 * functions in several files, or in vmlinux and a module), or one named
 * NAME@ADDRESS: FN for each (or the one), its signature that instance's.
 * 1 when the name is one function's and no address was given (the caller
 * goes on with SIG); else 0, FN's error, or an errno with E.
 */
static int each_instance(struct kernel *k, const struct spec *s, const struct signature *sig,
			 int (*fn)(const struct target_match *m, void *ctx), void *ctx,
			 struct ks_error *e)
{
	struct func_instance in[KERNEL_MAX_INSTANCES];
	int n, shown, i, pick, err = 0;

	n = kernel__func_instances(k, s->target, s->module, in, KERNEL_MAX_INSTANCES, e);
	if (n < 0)
		return n;
	shown = n < KERNEL_MAX_INSTANCES ? n : KERNEL_MAX_INSTANCES;
	/* One function of the name: attached by name (fentry, where it can). */
	if (n < 2 && (!s->addr || (n == 1 && in[0].addr == s->addr && !s->module)))
		return 1;
	pick = fentry_pick(in, shown, sig->module);
	for (i = 0; i < shown && !err; i++) {
		struct signature isig = *sig;
		struct ks_error ie = {};
		struct target_match tm = {};

		if (s->addr && in[i].addr != s->addr)
			continue;
		as_instance(k, in, i, n, pick, &tm, &isig, &ie);
		tm.name = isig.name;
		err = fn(&tm, ctx);
		if (s->addr)
			return err;
	}
	return err || !s->addr ? err : no_such_instance(s, in, n, shown, e);
}

int targets__for_each_match(struct kernel *k, const struct spec *s,
			    int (*fn)(const struct target_match *m, void *ctx), void *ctx,
			    struct ks_error *e)
{
	struct tp_each te = { fn, ctx };
	struct target_match tm = {};
	struct signature sig = {};
	struct ks_error se = {};
	int err;

	if (s->kind == SPEC_TP && s->is_glob)
		return kernel__tp_glob(k, s->target, tp_match, &te, e);
	if (s->kind == SPEC_KFUNC && spec_is_glob(s))
		return each_func_match(k, s, fn, ctx, e);
	if (s->kind == SPEC_TP) {
		err = kernel__tp(k, s->target, &sig, e);
		if (err)
			return err;
	} else {
		/* Found but not traceable (-EINVAL, SIG filled): a match, and why. */
		err = kernel__func(k, s->target, &sig, &se);
		if (err == -ENOENT || (err && !sig.btf)) {
			*e = se;
			return err;
		}
		/* Not in kallsyms (-EINVAL) has no instances to list. */
		if (!err) {
			err = each_instance(k, s, &sig, fn, ctx, e);
			if (err <= 0)
				return err;
			err = 0;
		}
		tm = (struct target_match){ .module = sig.module, .err = err, .e = &se };
	}
	tm.name = sig.name;
	tm.sig = &sig;
	tm.glob = s->ndecls > 0;
	return fn(&tm, ctx);
}

/* ---- targets and their plans ---- */

/*
 * Room for one more target, doubling: a target is some 5 KB (its plan),
 * and growing by one copied the whole list per match, O(n^2) bytes: 1,601
 * tracepoints moved ~6 GB under AddressSanitizer, whose realloc always
 * copies (minutes; glibc's mremap hid it).
 */
static struct target *add_target(struct target_list *l, const struct spec *s,
				 enum attach_kind kind)
{
	struct target *nt;

	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;

		nt = realloc(l->v, (size_t)cap * sizeof(*nt));
		if (!nt)
			return NULL;
		l->v = nt;
		l->cap = cap;
	}
	nt = l->v + l->n++;
	memset(nt, 0, sizeof(*nt));
	nt->spec = s;
	nt->kind = kind;
	return nt;
}

/* The last target added goes again: its values did not fit. */
static void drop_last(struct target_list *l)
{
	resolver__release(&l->v[--l->n].plan);
}

void targets__clear(struct target_list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		resolver__release(&l->v[i].plan);
	l->n = 0;
	l->glob_traced = 0;
}

void targets__free(struct target_list *l)
{
	targets__clear(l);
	free(l->v);
	l->v = NULL;
	l->cap = 0;
}

/*
 * Resolve the last target against SIG: 0, or a negative errno with E
 * filled (the caller reports it: a glob's match that the values do not
 * fit is only left out).
 */
static int resolve_last(struct target_list *l, const struct signature *sig,
			const struct targets_cfg *cfg, struct ks_error *e)
{
	struct target *tg = &l->v[l->n - 1];
	char types_where[PATH_MAX + 96];
	struct resolve_opts ropts = cfg->resolve;
	struct ksnoop_plan *bp = &tg->plan.bpf;
	int err;

	ropts.types_where = types_where;
	ropts.user_space = tg->kind == ATTACH_USDT || tg->kind == ATTACH_UPROBE;
	/* --tree: a tracepoint is a leaf, its event recorded as it is. */
	if (tg->kind == ATTACH_TP || tg->kind == ATTACH_SYSCALL_TP)
		ropts.tree = false;
	/* --tree -s: the stack of an inner function's return (the first failing call's prints). */
	if (cfg->tree_root && (!ropts.tree || tg->spec == cfg->tree_root))
		ropts.stack = false;
	if (tg->kind == ATTACH_USDT)
		snprintf(types_where, sizeof(types_where),
			 tg->usdt.has_btf ? "the BTF of '%s'" :
			 "'%s', which has no BTF (.BTF section); give one with --btf FILE",
			 tg->usdt.path);
	else if (tg->kind == ATTACH_UPROBE)
		snprintf(types_where, sizeof(types_where), "'%s' (%s)", tg->ufunc.path,
			 ufunc_match__types_where(&tg->ufunc));
	else
		snprintf(types_where, sizeof(types_where), "%s%s BTF",
			 sig->module ? sig->module : "vmlinux", sig->module ? " and vmlinux" : "");

	err = resolver__resolve(tg->spec, sig, &ropts, &tg->plan, e);
	if (err)
		return err;
	bp->func_id = l->n - 1;
	bp->filter_pid = cfg->filter_pid;
	bp->filter_tid = cfg->filter_tid;
	bp->pidns_dev = cfg->pidns_dev;
	bp->pidns_ino = cfg->pidns_ino;
	bp->cgroup_id = cfg->cgroup_id;
	bp->cgroup_level = cfg->cgroup_level;
	/* USDT probes and user functions too (live/54-containers, sleepable). */
	bp->event_cgroup = cfg->event_cgroup;
	bp->self_tgid = cfg->self_tgid;
	if (cfg->tree_root) {
		bp->tree = tg->spec == cfg->tree_root ? KSNOOP_TREE_ROOT : KSNOOP_TREE_INNER;
		bp->tree_max_calls = cfg->tree_max_calls;
		bp->preempt_count_addr = cfg->preempt_count_addr;
		bp->per_cpu_offset_addr = cfg->per_cpu_offset_addr;
		bp->preempt_not_task = cfg->preempt_not_task;
	}
	/* A traced program chooses its USDT arguments: user memory only. */
	/* A syscall's pointer arguments are the calling program's addresses. */
	/* A user function's values are its program's memory, whatever they point at. */
	if (tg->kind == ATTACH_USDT || tg->kind == ATTACH_SYSCALL_TP || tg->kind == ATTACH_SYSCALL ||
	    tg->kind == ATTACH_UPROBE)
		bp->flags |= KSNOOP_PLAN_USER_MEM;
	if (tg->kind == ATTACH_USDT)
		bp->flags |= KSNOOP_PLAN_USDT;
	/* Sites of this probe with other argument types have their own target. */
	if (tg->kind == ATTACH_USDT && tg->usdt.typed_sites) {
		bp->flags |= KSNOOP_PLAN_USDT_SIG;
		memcpy(bp->usdt_sig, tg->usdt.site_types, sizeof(bp->usdt_sig));
	}
	if (cfg->comm) {
		bp->filter_comm = 1;
		memcpy(bp->comm, cfg->comm, sizeof(bp->comm));
	}
	return 0;
}

/* -v: what TG, a spec's one target (not a glob's match), traces. */
static void log_target(const struct target *tg, const struct signature *sig)
{
	const char *arg = tg->spec->text;

	for (int j = 0; j < tg->plan.naliases; j++)
		log_info("%s: %s", arg, tg->plan.aliases[j]);
	if (tg->kind == ATTACH_USDT)
		log_info("%s: USDT probe %s:%s in %s (device %u:%u, inode %llu), %d value(s)",
			 arg, tg->usdt.provider, tg->usdt.name, tg->usdt.path,
			 major(tg->usdt.dev), minor(tg->usdt.dev),
			 (unsigned long long)tg->usdt.ino, tg->plan.nvalues[KSNOOP_ENTRY]);
	else if (tg->kind == ATTACH_UPROBE)
		log_info("%s: user function %s at 0x%llx (file offset 0x%llx) in %s (device %u:%u, inode %llu), %d entry value(s), %d return value(s); %s",
			 arg, tg->ufunc.name, (unsigned long long)tg->ufunc.addr,
			 (unsigned long long)tg->ufunc.file_off, tg->ufunc.path,
			 major(tg->ufunc.dev), minor(tg->ufunc.dev),
			 (unsigned long long)tg->ufunc.ino, tg->plan.nvalues[KSNOOP_ENTRY],
			 tg->plan.nvalues[KSNOOP_RETURN], ufunc_match__types_where(&tg->ufunc));
	else
		log_info("%s: %s%s%s%.0llx%s, %d entry value(s), %d return value(s)", arg,
			 tg->kind == ATTACH_TP || tg->kind == ATTACH_SYSCALL_TP ? "tracepoint" :
			 tg->kind == ATTACH_SYSCALL ? "system call" : "function in ",
			 tg->kind != ATTACH_FENTRY && tg->kind != ATTACH_KPROBE ? "" :
			 sig->module ? sig->module : "vmlinux", sig->addr ? " at 0x" : "",
			 (unsigned long long)sig->addr,
			 !sig->addr ? "" : tg->kind == ATTACH_KPROBE ? " (a kprobe at that address)" :
			 " (fentry: the one the kernel picks by name)",
			 tg->plan.nvalues[KSNOOP_ENTRY], tg->plan.nvalues[KSNOOP_RETURN]);
}

/*
 * A declaration's type as one BTF has it: a glob's matches share a handful
 * of BTF objects (vmlinux, a module's), and finding a type by name is a
 * walk over all of vmlinux's (150,000 types and more): once per BTF, not
 * once per match (53,000 matches of '*' on 7.3 took 5.9 s that way, not
 * 0.2; 535 s under emulation).
 */
struct decl_type {
	const struct btf *btf;	/* NULL: not looked up yet */
	int err;
	__u32 id;
	int nptrs;
};

/*
 * "struct sk_buff *s": S becomes the name of SIG's first parameter of that
 * type.  0, or -ENOENT with E filled when SIG has none (the function is
 * left out).  SEEN (s->ndecls of them) keeps each type found per BTF.
 */
static int bind_decls(const struct spec *s, struct decl_type *seen, struct signature *sig,
		      struct ks_error *e)
{
	int d, i;

	for (d = 0; d < s->ndecls; d++) {
		const struct spec_decl *dc = &s->decls[d];
		struct decl_type *t = &seen[d];

		if (t->btf != sig->btf) {
			t->btf = sig->btf;
			t->err = btfu_find_type(sig->btf, dc->type, &t->id, &t->nptrs);
		}
		if (t->err)
			return ks_fail(e, -ENOENT, "no type '%s' in its BTF", dc->type);
		for (i = 0; i < sig->nparams; i++)
			if (btfu_same_type(sig->btf, sig->params[i].type_id, t->id, t->nptrs))
				break;
		if (i == sig->nparams)
			return ks_fail(e, -ENOENT, "no argument of type %s", dc->type);
		sig->params[i].name = dc->name;
	}
	return 0;
}

/* What a kernel spec's matches came to: the counts and the first reason one was left out. */
struct glob_tally {
	struct target_list *l;
	struct kernel *k;
	const struct spec *s;
	const struct targets_cfg *cfg;
	int n, traced, skipped;
	int instances;		/* functions of the one name a spec named (each_instance()) */
	/*
	 * The first reason a match was left out; of one whose arguments the
	 * declarations bound, if any: that says what is wrong with the values
	 * ('*(struct sk_buff *s, s->len > "x")' fails on every skb tracepoint
	 * for the string, not on the first tracepoint for having no skb).
	 */
	char first[KS_ERROR_MSG_MAX + 160];
	bool first_bound;
	struct ks_error named_e;	/* why a match ended it: a named one's error, memory */
	struct left_out *left_out;	/* by reason, for -v */
	struct decl_type decl_types[SPEC_MAX_DECLS];
};

/* How a spec's match attaches: SIG says a syscall's events (syscall.h). */
static enum attach_kind match_kind(const struct glob_tally *g, const struct signature *sig,
				   enum attach_kind func_kind)
{
	if (sig->syscall == SIG_SYSCALL_EVENT)
		return ATTACH_SYSCALL_TP;
	if (sig->syscall == SIG_SYSCALL_PAIR)
		return ATTACH_SYSCALL;
	return g->s->kind == SPEC_TP ? ATTACH_TP : func_kind;
}

/*
 * How one of several functions of a name attaches: kprobes attach by
 * address, fentry by name (the kernel picks one): so with kprobes where
 * they are used for many functions (glob_kind), else fentry and only the
 * one it picks.  0, or why not in E.
 */
static int instance_kind(const struct glob_tally *g, const struct target_match *m,
			 enum attach_kind *kind, struct ks_error *e)
{
	*kind = g->cfg->glob_kind == ATTACH_KPROBE ? ATTACH_KPROBE : ATTACH_FENTRY;
	if (*kind == ATTACH_KPROBE || m->fentry_pick)
		return 0;
	return ks_fail(e, -EOPNOTSUPP, "fentry attaches by name, and the kernel takes another function of this name for it; kprobes attach by address, but are not in use (--mode fentry, or none in this kernel)");
}

/*
 * One of several functions of one name: a target, or (when the spec names
 * them all) left out, as a glob's match is, -v saying why;
 * instances_outcome() warns, or fails when none is left.
 */
static int instance_match(struct glob_tally *g, const struct target_match *m)
{
	enum attach_kind kind;
	struct ks_error e;

	g->instances++;
	if (m->err)
		e = *m->e;
	if (!m->err && !instance_kind(g, m, &kind, &e)) {
		if (!add_target(g->l, g->s, kind))
			return ks_fail(&g->named_e, -ENOMEM, "out of memory");
		if (!resolve_last(g->l, m->sig, g->cfg, &e)) {
			struct target *tg = &g->l->v[g->l->n - 1];

			g->traced++;
			snprintf(tg->label, sizeof(tg->label), "%s@%llx", m->sig->name,
				 (unsigned long long)m->sig->addr);
			log_target(tg, m->sig);
			return 0;
		}
		drop_last(g->l);
	}
	if (g->s->addr) {
		g->named_e = e;
		return e.err;
	}
	g->skipped++;
	if (!g->first[0])
		snprintf(g->first, sizeof(g->first), "%s@%llx: %s", m->name,
			 (unsigned long long)m->sig->addr, ks_message(&e));
	log_info("%s: %s@%llx%s%s%s (%d of %d of this name) left out: %s", g->s->text, m->name,
		 (unsigned long long)m->sig->addr, m->module ? " [" : "",
		 m->module ? m->module : "", m->module ? "]" : "", m->instance + 1, m->ninstances,
		 ks_message(&e));
	return 0;
}

/* A function or tracepoint named alone: traced, or the spec's error. */
static int named_match(struct glob_tally *g, const struct target_match *m)
{
	enum attach_kind kind = match_kind(g, m->sig, g->cfg->func_kind);

	if (m->ninstances)
		return instance_match(g, m);
	if (m->err) {
		g->named_e = *m->e;
		return m->err;
	}
	if (!add_target(g->l, g->s, kind))
		return ks_fail(&g->named_e, -ENOMEM, "out of memory");
	if (resolve_last(g->l, m->sig, g->cfg, &g->named_e))
		return g->named_e.err;
	g->traced++;
	log_target(&g->l->v[g->l->n - 1], m->sig);
	return 0;
}

/* Why a glob leaves match M out before its values are looked at, or NULL. */
static const char *left_out_why(const struct target_match *m)
{
	if (m->denied)
		return "a probe there would recurse into the tracer";
	return m->refused;
}

static int glob_match(const struct target_match *m, void *ctx);

/*
 * A glob's match whose name is several static functions' (modalias_show):
 * the kernel refuses a kprobe on such a name (EADDRNOTAVAIL, Debian's 6.1
 * and 6.7 on) and fentry takes the one it picks by name, so each function
 * is a match of its own, as for the name given alone (each_instance()):
 * a kprobe at its address, or with fentry the one the kernel picks.  The
 * instances of a module with its own FUNC of the name are that module's
 * match.  0, or FN's error; -ENOENT when kallsyms does not list several.
 */
static int glob_namesakes(struct glob_tally *g, const struct target_match *m)
{
	struct func_instance in[KERNEL_MAX_INSTANCES];
	struct ks_error e;
	int n, shown, i, pick, err = 0;

	n = kernel__func_instances(g->k, m->name, m->module ? m->module : g->s->module, in,
				   KERNEL_MAX_INSTANCES, &e);
	if (n < 2)
		return -ENOENT;
	shown = n < KERNEL_MAX_INSTANCES ? n : KERNEL_MAX_INSTANCES;
	log_info("%s: %s is the name of %d functions; each is a match (kprobes attach by address, fentry by name to the one the kernel picks)",
		 g->s->text, m->name, n);
	pick = fentry_pick(in, shown, m->sig->module);
	for (i = 0; i < shown && !err; i++) {
		struct signature isig = *m->sig;
		struct ks_error ie = {};
		struct target_match tm = *m;

		as_instance(g->k, in, i, n, pick, &tm, &isig, &ie);
		if (!m->module && in[i].module && isig.btf != m->sig->btf)
			continue;
		err = glob_match(&tm, g);
	}
	return err;
}

/*
 * One match of a glob: a target when its signature binds the spec's
 * declarations and its values resolve, else left out, counted and logged.
 */
static int glob_match(const struct target_match *m, void *ctx)
{
	struct glob_tally *g = ctx;
	enum attach_kind kind = match_kind(g, m->sig, g->cfg->glob_kind);
	const char *why = left_out_why(m);
	struct signature bound;
	bool was_bound = false;
	struct ks_error e;
	int err;

	/* Thousands of matches take a while: a Ctrl-C ends it here. */
	if (stop__requested())
		return -EINTR;
	if (!m->glob)
		return named_match(g, m);
	if (!why && !m->err && m->namesakes > 1 && !m->ninstances) {
		err = glob_namesakes(g, m);
		if (err != -ENOENT)
			return err;
	}
	g->n++;
	if (why)
		ks_fail(&e, -EOPNOTSUPP, "%s", why);
	else if (m->err)
		e = *m->e;
	else if (m->ninstances && instance_kind(g, m, &kind, &e))
		why = ks_message(&e);
	if (!why && !m->err) {
		bound = *m->sig;
		if (!bind_decls(g->s, g->decl_types, &bound, &e)) {
			struct target *tg = add_target(g->l, g->s, kind);

			if (!tg)
				return ks_fail(&g->named_e, -ENOMEM, "out of memory");
			tg->from_glob = g->s->is_glob;
			if (!resolve_last(g->l, &bound, g->cfg, &e)) {
				g->traced++;
				g->l->glob_traced++;
				if (m->ninstances)
					snprintf(tg->label, sizeof(tg->label), "%s@%llx", m->name,
						 (unsigned long long)m->sig->addr);
				return 0;
			}
			drop_last(g->l);
			was_bound = true;
		}
	}
	g->skipped++;
	if (!g->first[0] || (was_bound && !g->first_bound)) {
		snprintf(g->first, sizeof(g->first), "%s: %s", m->name, ks_message(&e));
		g->first_bound = was_bound;
	}
	log_detail("%s: %s%s%s left out: %s", g->s->text, m->module ? m->module : "",
		   m->module ? ":" : "", m->name, ks_message(&e));
	left_out__add(g->left_out, m->module, m->name, ks_message(&e));
	return 0;
}

/* A glob's outcome, PATTERN matching NOUNs: an error when none is traced. */
static int glob_outcome(struct glob_tally *g, const char *pattern, const char *noun)
{
	struct ks_error e;

	if (!g->traced) {
		/* One match: the error says why, once. */
		if (g->n > 1)
			left_out__log(g->left_out, g->s->text);
		ks_fail(&e, -EINVAL, "'%s' matches %d %s(s), none of them traceable with these values (%s%s)",
			pattern, g->n, noun, g->first, g->n > 1 ? "; -v counts the reasons" : "");
		targets__log_error(g->s->text, &e);
		return e.err;
	}
	log_info("%s: %d %s(s) match, %d traced, %d left out", g->s->text, g->n, noun,
		 g->traced, g->skipped);
	left_out__log(g->left_out, g->s->text);
	return 0;
}

/*
 * A name of several functions: an error when none is traced, a warning
 * when some are left out (their calls go unseen); -v says how they attach.
 */
static int instances_outcome(struct glob_tally *g)
{
	char q[SPEC_QUOTE_MAX + 1];
	struct ks_error e;

	if (!g->traced) {
		ks_fail(&e, -EINVAL, "none of the %d functions named '%s' can be traced (%s)", g->instances,
			g->s->target, g->first);
		targets__log_error(g->s->text, &e);
		return e.err;
	}
	if (g->s->addr)
		return 0;
	if (g->skipped)
		log_warn("spec '%s': %d of the %d functions named '%s' left out (%s; -v lists them)",
			 spec_quote(g->s->text, q, sizeof(q)), g->skipped, g->instances,
			 g->s->target, g->first);
	log_info("%s: %d functions of this name (static functions in several files or modules), %d traced: %s",
		 g->s->text, g->instances, g->traced,
		 g->l->v[g->l->n - 1].kind == ATTACH_KPROBE ?
		 "kprobes, each at its address, as fentry attaches by name to one the kernel picks" :
		 "fentry, which attaches by name to the one the kernel picks");
	return 0;
}

/* Kernel spec G->S: its matches through glob_match(), and what they came to. */
static int add_kernel_matches(struct glob_tally *g, struct kernel *k)
{
	const struct spec *s = g->s;
	char shown[KS_ERROR_MSG_MAX];
	struct ks_error e;
	int err;

	err = targets__for_each_match(k, s, glob_match, g, &e);
	if (err == -EINTR)
		return err;
	if (err) {
		targets__log_error(s->text, g->named_e.err ? &g->named_e : &e);
		return err;
	}
	if (g->instances)
		return instances_outcome(g);
	if (!spec_is_glob(s))
		return 0;
	/* One tracepoint named with declarations: the reason it was left out. */
	if (!g->traced && s->kind == SPEC_TP && !s->is_glob) {
		ks_fail(&e, -EINVAL, "%s", g->first);
		targets__log_error(s->text, &e);
		return e.err;
	}
	if (s->kind == SPEC_KFUNC)
		return glob_outcome(g, s->target, "function");
	if (spec__is_syscall(s))
		return glob_outcome(g, s->target, "system call");
	snprintf(shown, sizeof(shown), "tp:%s", s->target);
	return glob_outcome(g, shown, "tracepoint");
}

/* Kernel spec S: its targets, and what it came to. */
static int add_kernel_spec(struct target_list *l, struct kernel *k, const struct spec *s,
			   const struct targets_cfg *cfg)
{
	struct glob_tally g = { .l = l, .k = k, .s = s, .cfg = cfg };
	int err;

	if (s->kind == SPEC_TP && s->is_glob)
		l->tp_cookies = cfg->tp_cookies;
	l->raw_syscalls = cfg->raw_syscalls;
	l->sys_raw_min = cfg->sys_raw_min;
	g.left_out = left_out__new();
	err = add_kernel_matches(&g, k);
	free(g.left_out);
	return err;
}

/* ---- USDT ---- */

/* What the matches of one USDT spec came to, and the first left out. */
struct usdt_tally {
	int traced, skipped;
	int sites_skipped;		/* call sites of the matches left out */
	const struct usdt_match *first;
	struct ks_error first_e;	/* why FIRST was left out */
	bool first_values;		/* for its values, not for libbpf */
	struct left_out *left_out;	/* a glob's, by reason, for -v */
};

/* Match M of spec S left out for E: said (a glob's with -vv, and counted for -v). */
static void usdt_left_out(const struct spec *s, const struct usdt_match *m,
			  struct usdt_tally *u, const struct ks_error *e)
{
	void (*say)(const char *fmt, ...) = m->glob ? log_detail : log_info;
	char name[256];

	if (m->typed_sites && !m->unreadable[0])
		say("%s: %s:%s left out at %d of its %d call sites (%d argument(s) there): %s",
		    s->text, m->provider, m->name, m->ntyped, m->nsites, m->sig.nparams,
		    ks_message(e));
	else
		say("%s: %s:%s left out: %s", s->text, m->provider, m->name, ks_message(e));
	if (m->glob) {
		snprintf(name, sizeof(name), "%s:%s", m->provider, m->name);
		left_out__add(u->left_out, NULL, name, ks_message(e));
	}
}

/*
 * Match M of spec S: a target when libbpf can attach to it and the spec's
 * values fit its call sites' arguments (arg3 is not at a site that passes
 * one); else left out, counted, and -v says why.
 */
static int add_usdt_match(struct target_list *l, const struct spec *s, const struct usdt_match *m,
			  struct usdt_tally *u, const struct targets_cfg *cfg)
{
	bool values = false;
	struct ks_error e;

	if (m->unreadable[0]) {
		ks_fail(&e, -EOPNOTSUPP, "%s", m->unreadable);
	} else {
		struct target *tg = add_target(l, s, ATTACH_USDT);

		if (!tg)
			return -ENOMEM;
		tg->usdt = *m;
		if (!resolve_last(l, &m->sig, cfg, &e)) {
			log_target(&l->v[l->n - 1], &m->sig);
			u->traced++;
			return 0;
		}
		drop_last(l);
		values = true;
	}
	u->skipped++;
	u->sites_skipped += m->ntyped;
	/* Of a probe's call sites, the one passing the most arguments lists them all. */
	if (!u->first || (values && !u->first_values) ||
	    (values && m->typed_sites && m->sig.nparams > u->first->sig.nparams)) {
		u->first = m;
		u->first_e = e;
		u->first_values = values;
	}
	usdt_left_out(s, m, u, &e);
	return 0;
}

/*
 * Nothing of spec S traced: one error.  A probe named alone keeps its own
 * (with the column); a glob says how many it matched and the first reason,
 * one about the values rather than libbpf if there is one.
 */
static int usdt_none_traced(struct usdt_tally *u, int n, const struct spec *s)
{
	const struct usdt_match *m = u->first;
	struct ks_error e = u->first_e;

	if (!m->glob && !u->first_values)
		ks_fail(&e, -EOPNOTSUPP, "USDT probe %s:%s: %s", m->provider, m->name,
			m->unreadable);
	else if (m->glob && u->first_values)
		ks_fail(&e, -EINVAL, "none of the %d USDT probe(s) it matches is traceable with these values (%s:%s: %s%s)",
			n, m->provider, m->name, ks_message(&u->first_e),
			n > 1 ? "; -v lists every one" : "");
	else if (m->glob)
		ks_fail(&e, -EOPNOTSUPP, "none of the %d USDT probe(s) it matches can be attached (%s:%s: %s%s)",
			n, m->provider, m->name, m->unreadable, n > 1 ? "; -v lists every one" : "");
	targets__log_error(s->text, &e);
	return e.err;
}

/*
 * USDT: the variables (@NAME, @tls:NAME) a spec's items read, typed from
 * its file's debug info as a user function's are (ufunc.h).
 */
static int usdt_vars(struct usdt_front *fe, const struct spec *s, struct usdt_match *ms, int n,
		     const struct targets_cfg *cfg, struct ks_error *e)
{
	struct sig_vars vars;
	int err;

	if (!spec__reads_vars(s))
		return 0;
	if (!cfg->ufunc)
		return ks_fail(e, -ENOMEM, "out of memory");
	err = ufunc_front__vars(cfg->ufunc, ms[0].path, s, &vars, e);
	return err ?: usdt_front__type_vars(fe, ms, n, &vars, e);
}

/*
 * USDT: a spec may name several probes (globs), and a probe's call sites
 * may pass different arguments: one target per probe and set of argument
 * types.  One that cannot be traced (libbpf cannot attach to the probe, or
 * the values name an argument its sites do not pass) is left out and
 * counted; an error when nothing of the spec is left.  Sites of a probe
 * named alone that are left out are a warning: their calls go unseen.
 */
static int add_usdt_spec(struct target_list *l, struct usdt_front *fe, const struct spec *s,
			 const struct targets_cfg *cfg)
{
	char q[SPEC_QUOTE_MAX + 1];
	struct usdt_tally u = {};
	struct usdt_match *ms;
	struct ks_error e;
	int j, n, err = 0;

	n = usdt_front__match(fe, s, cfg->usdt_pid, &ms, &e);
	if (n < 0) {
		targets__log_error(s->text, &e);
		return n;
	}
	err = usdt_vars(fe, s, ms, n, cfg, &e);
	if (err) {
		targets__log_error(s->text, &e);
		free(ms);
		return err;
	}
	u.left_out = ms[0].glob ? left_out__new() : NULL;
	for (j = 0; j < n && !err; j++)
		err = add_usdt_match(l, s, &ms[j], &u, cfg);
	if (!err && !u.traced && n > 1)
		left_out__log(u.left_out, s->text);
	if (!err && !u.traced)
		err = usdt_none_traced(&u, n, s);
	if (!err && ms[0].glob) {
		log_info("%s: %d probe(s) match, %d traced, %d left out", s->text, n, u.traced,
			 u.skipped);
		left_out__log(u.left_out, s->text);
	} else if (!err && u.skipped)
		log_warn("spec '%s': %d of the %d call sites of %s:%s left out: %s (-v lists them)",
			 spec_quote(s->text, q, sizeof(q)), u.sites_skipped, ms[0].nsites,
			 u.first->provider, u.first->name, ks_message(&u.first_e));
	free(u.left_out);
	free(ms);
	return err;
}

/* ---- user functions ---- */

/*
 * u:BINARY:FUNC: a target per function it names (a glob's matches, or the
 * functions of one name at several addresses).  A glob's match the values
 * do not fit is left out and counted; a function named alone is all or
 * nothing.
 */
static int add_ufunc_spec(struct target_list *l, const struct spec *s,
			  const struct targets_cfg *cfg)
{
	struct ufunc_match *ms;
	struct ks_error e, first = {};
	int j, n, traced = 0, err = 0;

	if (!cfg->ufunc)
		return -EINVAL;
	n = ufunc_front__match(cfg->ufunc, s, cfg->usdt_pid, &ms, &e);
	if (n < 0) {
		targets__log_error(s->text, &e);
		return n;
	}
	for (j = 0; j < n && !err; j++) {
		struct target *tg;

		/* A glob's match its debug info refuses (a struct by value ...). */
		if (ms[j].refused) {
			log_detail("%s: %s left out: %s", s->text, ms[j].name, ms[j].refused);
			if (!first.err)
				ks_fail(&first, -EINVAL, "%s", ms[j].refused);
			continue;
		}
		tg = add_target(l, s, ATTACH_UPROBE);

		if (!tg) {
			err = -ENOMEM;
			log_error("out of memory");
			break;
		}
		tg->ufunc = ms[j];
		tg->from_glob = s->is_glob;
		if (ms[j].namesakes > 1 || s->uoffset || s->uaddr)
			snprintf(tg->label, sizeof(tg->label), "%.*s@%llx", SPEC_MAX_NAME,
				 ms[j].shown, (unsigned long long)ms[j].addr);
		if (!resolve_last(l, &ms[j].sig, cfg, &e)) {
			traced++;
			l->glob_traced += s->is_glob;
			if (!s->is_glob)
				log_target(tg, &ms[j].sig);
			continue;
		}
		drop_last(l);
		if (!s->is_glob) {
			targets__log_error(s->text, &e);
			err = e.err;
		} else {
			log_detail("%s: %s left out: %s", s->text, ms[j].shown, ks_message(&e));
			if (!first.err)
				first = e;
		}
	}
	if (!err && !traced) {
		ks_fail(&e, -EINVAL, "'%s' matches %d function(s), none of them traceable with these values (%s)",
			s->target, n, ks_message(&first));
		targets__log_error(s->text, &e);
		err = e.err;
	} else if (!err && s->is_glob) {
		log_info("%s: %d function(s) match, %d traced, %d left out", s->text, n, traced,
			 n - traced);
	}
	free(ms);
	return err;
}

/* --tree: the one record size of the tree's plans, as the resolver decides it. */
static int size_tree(struct target_list *l)
{
	struct capture_plan **plans = calloc(l->n ? l->n : 1, sizeof(*plans));
	struct ks_error e = {};
	int i, bad = 0, err;

	if (!plans) {
		log_error("out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < l->n; i++)
		plans[i] = &l->v[i].plan;
	err = resolver__tree_sizes(plans, l->n, &bad, &e);
	if (err)
		log_error("--tree: '%s': %s", l->v[bad].spec->text, ks_message(&e));
	free(plans);
	return err;
}

int targets__add(struct target_list *l, struct kernel *k, struct usdt_front *fe,
		 const struct spec *specs, int n, const struct targets_cfg *cfg)
{
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		if (specs[i].kind == SPEC_USDT)
			err = add_usdt_spec(l, fe, &specs[i], cfg);
		else if (specs[i].kind == SPEC_UFUNC)
			err = add_ufunc_spec(l, &specs[i], cfg);
		else
			err = add_kernel_spec(l, k, &specs[i], cfg);
	}
	if (!err && cfg->tree_root)
		err = size_tree(l);
	return err;
}
