// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ksnoop [trace] SPEC...`: parse every spec, resolve every target, attach
 * all of them (or none), then print events until a count, a duration or a
 * signal ends the run, and say on stderr how many were printed and lost.
 *
 * Attach mode: fentry/fexit are cheaper and see arguments at return; a
 * kernel that refuses them (no BTF trampolines, restricted ftrace) gets
 * kprobes, decided from the probed features before anything is resolved.
 * A function the kernel will not trampoline still falls back: the run
 * goes kprobes for every function, so one run uses one mode.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "btf_util.h"
#include "counts.h"
#include "cli.h"
#include "kfeatures.h"
#include "ks_error.h"
#include "log.h"
#include "print.h"
#include "target.h"
#include "stop.h"
#include "usdt_front.h"
#include "usym.h"

/* How often the loop wakes to check the clock and the lost-event counter. */
#define POLL_INTERVAL_MS 100
#define LOST_REPORT_INTERVAL_NS 1000000000ULL
/* How long events already captured are still printed after a stop. */
#define DRAIN_MAX_NS 1000000000ULL

/* One attach point: a kernel function, a tracepoint, or one USDT probe. */
struct target {
	int spec;		/* index into specs[] and argv[] */
	enum attach_kind kind;
	bool from_glob;		/* a glob's match: left out, not fatal, if refused */
	bool attached;
	struct capture_plan plan;
	struct usdt_match usdt;	/* ATTACH_USDT */
};

struct trace {
	const struct options *opts;
	enum attach_mode mode;	/* of kernel functions, from opts and the kernel's features */
	int nspecs;
	struct spec *specs;
	int ntargets;
	struct target *targets;
	struct usdt_front *usdt;
	struct printer printer;
	__u64 printed;
	__u64 check_at;		/* when handle_event() should hand back control */
	__u64 pidns_dev;	/* ksnoop's pid namespace; 0: the initial one */
	__u64 pidns_ino;
	bool output_closed;
	bool discarding;	/* stopped: events left in the buffer are counted, not printed */
	__u64 unprinted;	/* events captured but not printed: the stop came first */
	int glob_skipped;	/* glob matches not traced, at resolve or attach */
	int glob_targets;	/* glob matches traced */
	bool tp_cookies;	/* a tracepoint glob's matches can share programs */
	__u64 counted;		/* --count: calls counted so far */
	__u32 intervals;	/* --interval: reports printed so far */
};

static __u64 now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* -n: as many events printed as were asked for. */
static bool count_reached(const struct trace *t)
{
	return t->opts->count && t->printed >= t->opts->count;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct trace *t = ctx;
	const struct ksnoop_event *ev = data;

	if (size < sizeof(*ev) || ev->func_id >= (__u32)t->ntargets)
		return 0;
	if (count_reached(t))
		return -ECANCELED;
	if (t->discarding) {
		t->unprinted++;
		if ((t->unprinted & 4095) == 0 && now_ns(CLOCK_MONOTONIC) >= t->check_at)
			return -EAGAIN;
		return 0;
	}
	printer__event(&t->printer, &t->targets[ev->func_id].plan, data, size);
	t->printed++;
	/*
	 * Under a flood ring_buffer__poll() may not return for a long time:
	 * look at the clock now and then, so a signal, --duration and the
	 * lost-event warnings are acted on within about POLL_INTERVAL_MS.
	 */
	if ((t->printed & 255) == 0 && now_ns(CLOCK_MONOTONIC) >= t->check_at)
		return -EAGAIN;
	return 0;
}

/*
 * pids as the pid namespace ksnoop runs in sees them, for filters and
 * output.  In the initial namespace (its inode number is fixed) nothing
 * needs translating.
 */
#define PROC_PID_INIT_INO 0xEFFFFFFCU

static void find_pid_namespace(struct trace *t)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) || st.st_ino == PROC_PID_INIT_INO)
		return;
	t->pidns_dev = st.st_dev;
	t->pidns_ino = st.st_ino;
	log_info("pid namespace %llu: pids are shown as it sees them",
		 (unsigned long long)st.st_ino);
}

static int add_target(struct trace *t, int spec, enum attach_kind kind)
{
	struct target *nt = realloc(t->targets, (t->ntargets + 1) * sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	t->targets = nt;
	memset(&nt[t->ntargets], 0, sizeof(*nt));
	nt[t->ntargets].spec = spec;
	nt[t->ntargets].kind = kind;
	t->ntargets++;
	return 0;
}

/* A spec as quoted in a message: long ones are cut, the reason matters more. */
#define SPEC_QUOTE_MAX 100

static const char *spec_quote(const char *arg, char *buf, size_t sz)
{
	if (strlen(arg) <= SPEC_QUOTE_MAX)
		return arg;
	snprintf(buf, sz, "%.*s...", SPEC_QUOTE_MAX - 3, arg);
	return buf;
}

/* An error about spec ARG: "spec 'ARG': column N: MESSAGE". */
static void log_spec_error(const char *arg, const struct ks_error *e)
{
	char q[SPEC_QUOTE_MAX + 1];

	if (e->pos)
		log_error("spec '%s': column %d: %s", spec_quote(arg, q, sizeof(q)), e->pos,
			  ks_message(e));
	else
		log_error("spec '%s': %s", spec_quote(arg, q, sizeof(q)), ks_message(e));
}

/*
 * Resolve target I against SIG: 0, or a negative errno with E filled (the
 * caller reports it: a glob's match that the values do not fit is only
 * left out).
 */
static int resolve_target(struct trace *t, int i, const struct signature *sig,
			  struct ks_error *e)
{
	struct target *tg = &t->targets[i];
	char types_where[PATH_MAX + 96];
	struct resolve_opts ropts = {
		.max_bytes = t->opts->max_bytes,
		.str_bytes = t->opts->str_bytes,
		.types_where = types_where,
		.user_space = tg->kind == ATTACH_USDT,
		.stack = t->opts->stack,
		.count = t->opts->count_calls || t->opts->hist,
		.hist = t->opts->hist,
		.min_duration_ns = t->opts->min_duration_ns,
	};
	struct ksnoop_plan *bp = &tg->plan.bpf;
	int err;

	if (tg->kind == ATTACH_USDT)
		snprintf(types_where, sizeof(types_where),
			 tg->usdt.has_btf ? "the BTF of '%s'" :
			 "'%s', which has no BTF (.BTF section); give one with --btf FILE",
			 tg->usdt.path);
	else
		snprintf(types_where, sizeof(types_where), "%s%s BTF",
			 sig->module ? sig->module : "vmlinux", sig->module ? " and vmlinux" : "");

	err = resolver__resolve(&t->specs[tg->spec], sig, &ropts, &tg->plan, e);
	if (err)
		return err;
	bp->func_id = i;
	if (t->opts->count_calls || t->opts->hist)
		bp->flags |= KSNOOP_PLAN_COUNT;
	if (t->opts->count_calls && t->opts->stack)
		bp->flags |= KSNOOP_PLAN_COUNT_STACKS;
	bp->filter_pid = t->opts->pid;
	bp->filter_tid = t->opts->tid;
	bp->pidns_dev = t->pidns_dev;
	bp->pidns_ino = t->pidns_ino;
	bp->self_tgid = getpid();
	/* A traced program chooses its USDT arguments: user memory only. */
	if (tg->kind == ATTACH_USDT)
		bp->flags |= KSNOOP_PLAN_USER_MEM;
	/* Sites of this probe with other argument types have their own target. */
	if (tg->kind == ATTACH_USDT && tg->usdt.typed_sites) {
		bp->flags |= KSNOOP_PLAN_USDT_SIG;
		memcpy(bp->usdt_sig, tg->usdt.site_types, sizeof(bp->usdt_sig));
	}
	if (t->opts->has_comm) {
		bp->filter_comm = 1;
		memcpy(bp->comm, t->opts->comm, sizeof(bp->comm));
	}
	return 0;
}

/* -v: what target I, a spec's one target (not a glob's match), traces. */
static void log_target(const struct trace *t, int i, const struct signature *sig, char **argv)
{
	const struct target *tg = &t->targets[i];

	for (int j = 0; j < tg->plan.naliases; j++)
		log_info("%s: %s", argv[tg->spec], tg->plan.aliases[j]);
	if (tg->kind == ATTACH_USDT)
		log_info("%s: USDT probe %s:%s in %s (device %u:%u, inode %llu), %d value(s)",
			 argv[tg->spec], tg->usdt.provider, tg->usdt.name, tg->usdt.path,
			 major(tg->usdt.dev), minor(tg->usdt.dev),
			 (unsigned long long)tg->usdt.ino, tg->plan.nvalues[KSNOOP_ENTRY]);
	else
		log_info("%s: %s%s, %d entry value(s), %d return value(s)", argv[tg->spec],
			 tg->kind == ATTACH_TP ? "tracepoint" : "function in ",
			 tg->kind == ATTACH_TP ? "" : sig->module ? sig->module : "vmlinux",
			 tg->plan.nvalues[KSNOOP_ENTRY], tg->plan.nvalues[KSNOOP_RETURN]);
}

/*
 * A spec's one target I (not a glob's match): resolved against SIG, its
 * error reported, and with -v what it traces.  0 or a negative errno.
 */
static int resolve_spec_target(struct trace *t, int i, const struct signature *sig, char **argv)
{
	struct ks_error e;
	int err = resolve_target(t, i, sig, &e);

	if (err) {
		log_spec_error(argv[t->targets[i].spec], &e);
		return err;
	}
	log_target(t, i, sig, argv);
	return 0;
}

/*
 * "struct sk_buff *s": S becomes the name of SIG's first parameter of that
 * type.  0, or -ENOENT with E filled when SIG has none (the function is
 * left out).
 */
static int bind_decls(const struct spec *s, struct signature *sig, struct ks_error *e)
{
	int d, i;

	for (d = 0; d < s->ndecls; d++) {
		const struct spec_decl *dc = &s->decls[d];
		__u32 want;
		int nptrs;

		if (btfu_find_type(sig->btf, dc->type, &want, &nptrs))
			return ks_fail(e, -ENOENT, "no type '%s' in its BTF", dc->type);
		for (i = 0; i < sig->nparams; i++)
			if (btfu_same_type(sig->btf, sig->params[i].type_id, want, nptrs))
				break;
		if (i == sig->nparams)
			return ks_fail(e, -ENOENT, "no argument of type %s", dc->type);
		sig->params[i].name = dc->name;
	}
	return 0;
}

static enum attach_kind func_kind(enum attach_mode mode, bool glob)
{
	return kfeatures__func_kind(kfeatures__get(), mode, glob);
}

/* What a glob's matches came to: the counts and the first reason one was left out. */
struct glob_tally {
	struct trace *t;
	int spec;
	char **argv;
	enum attach_kind kind;
	int n, traced, skipped;
	/*
	 * The first reason a match was left out; of one whose arguments the
	 * declarations bound, if any: that says what is wrong with the values
	 * ('*(struct sk_buff *s, s->len > "x")' fails on every skb tracepoint
	 * for the string, not on the first tracepoint for having no skb).
	 */
	char first[KS_ERROR_MSG_MAX + 160];
	bool first_bound;
};

/*
 * One match of a glob, NAME (in MODULE, or NULL): a target when SIG binds
 * the spec's declarations and its values resolve, else left out, counted
 * and logged; SIG NULL: left out for the reason E gives.
 */
static int glob_match(struct glob_tally *g, const char *module, const char *name,
		      const struct signature *sig, struct ks_error *e)
{
	struct trace *t = g->t;
	struct signature bound;
	bool was_bound = false;
	int err;

	/* Thousands of matches take a while: a Ctrl-C ends it here. */
	if (stop__requested())
		return -EINTR;
	g->n++;
	if (sig)
		bound = *sig;
	if (sig && !bind_decls(&t->specs[g->spec], &bound, e)) {
		err = add_target(t, g->spec, g->kind);
		if (err)
			return err;
		t->targets[t->ntargets - 1].from_glob = t->specs[g->spec].is_glob;
		if (!resolve_target(t, t->ntargets - 1, &bound, e)) {
			g->traced++;
			t->glob_targets++;
			return 0;
		}
		resolver__release(&t->targets[--t->ntargets].plan);
		was_bound = true;
	}
	g->skipped++;
	if (!g->first[0] || (was_bound && !g->first_bound)) {
		snprintf(g->first, sizeof(g->first), "%s: %s", name, ks_message(e));
		g->first_bound = was_bound;
	}
	log_info("%s: %s%s%s left out: %s", g->argv[g->spec], module ? module : "",
		 module ? ":" : "", name, ks_message(e));
	return 0;
}

/* A glob's outcome, PATTERN matching NOUNs: an error when none is traced. */
static int glob_outcome(struct glob_tally *g, const char *pattern, const char *noun)
{
	struct ks_error e;

	g->t->glob_skipped += g->skipped;
	if (!g->traced) {
		ks_fail(&e, -EINVAL, "'%s' matches %d %s(s), none of them traceable with these values (%s%s)",
			pattern, g->n, noun, g->first, g->n > 1 ? "; -v lists every one" : "");
		log_spec_error(g->argv[g->spec], &e);
		return e.err;
	}
	log_info("%s: %d %s(s) match, %d traced, %d left out", g->argv[g->spec], g->n, noun,
		 g->traced, g->skipped);
	return 0;
}

/* A glob over kernel functions: one target per match that can be traced. */
static int build_glob_targets(struct trace *t, struct kernel *k, int i, char **argv,
			      enum attach_mode mode)
{
	struct glob_tally g = { .t = t, .spec = i, .argv = argv, .kind = func_kind(mode, true) };
	struct spec *s = &t->specs[i];
	struct func_match *m;
	struct ks_error e;
	int n, j, err = 0;

	n = kernel__match_funcs(k, s->module, s->target, &m, &e);
	if (n < 0) {
		log_spec_error(argv[i], &e);
		return n;
	}
	for (j = 0; j < n && !err; j++) {
		struct signature sig;
		const char *refused = kernel__func_denied(m[j].name) ?
				      "tracing it would recurse into the tracer" :
				      kernel__func_refused(k, &m[j]);

		if (refused) {
			ks_fail(&e, -EOPNOTSUPP, "%s", refused);
			err = glob_match(&g, m[j].module, m[j].name, NULL, &e);
		} else {
			err = glob_match(&g, m[j].module, m[j].name,
					 kernel__func_sig(k, &m[j], &sig, &e) ? NULL : &sig, &e);
		}
	}
	free(m);
	if (err)
		return err;
	if (!n) {
		ks_fail(&e, -ENOENT, "no kernel function with BTF matches '%s'%s%s", s->target,
			s->module ? " in " : "", s->module ? s->module : "");
		log_spec_error(argv[i], &e);
		return e.err;
	}
	return glob_outcome(&g, s->target, "function");
}

static int add_tp_match(const struct signature *sig, void *ctx)
{
	struct ks_error e;

	return glob_match(ctx, NULL, sig->name, sig, &e);
}

/* A glob over tracepoints (or TYPE NAME declarations): one target per match. */
static int build_tp_glob_targets(struct trace *t, struct kernel *k, int i, char **argv)
{
	struct glob_tally g = { .t = t, .spec = i, .argv = argv, .kind = ATTACH_TP };
	const char *pattern = t->specs[i].target;
	char shown[KS_ERROR_MSG_MAX];
	struct signature sig;
	struct ks_error e;
	int err;

	/* One tracepoint named with declarations: its own errors ("did you mean"). */
	if (!t->specs[i].is_glob) {
		err = kernel__tp(k, pattern, &sig, &e);
		if (!err)
			err = add_tp_match(&sig, &g);
	} else {
		t->tp_cookies = kfeatures__get()->have[FEAT_TP_COOKIES];
		err = kernel__tp_glob(k, pattern, add_tp_match, &g, &e);
	}
	if (err == -EINTR)
		return err;
	if (err) {
		t->glob_skipped += g.skipped;
		log_spec_error(argv[i], &e);
		return err;
	}
	if (!g.traced && !t->specs[i].is_glob) {
		ks_fail(&e, -EINVAL, "%s", g.first);
		log_spec_error(argv[i], &e);
		return e.err;
	}
	snprintf(shown, sizeof(shown), "tp:%s", pattern);
	return glob_outcome(&g, shown, "tracepoint");
}

/* Kernel functions and tracepoints: one target per spec, or per glob match. */
static int build_kernel_targets(struct trace *t, struct kernel *k, char **argv,
				enum attach_mode mode)
{
	struct ks_error e;
	int i, err;

	/* Built again after fentry was refused: the first plans go. */
	for (i = 0; i < t->ntargets; i++)
		resolver__release(&t->targets[i].plan);
	t->ntargets = 0;
	t->glob_skipped = 0;
	t->glob_targets = 0;
	for (i = 0; i < t->nspecs; i++) {
		struct spec *s = &t->specs[i];
		struct signature sig;

		if (s->kind == SPEC_KFUNC && (s->is_glob || s->module || s->ndecls)) {
			err = build_glob_targets(t, k, i, argv, mode);
			if (err)
				return err;
			continue;
		}
		if (s->kind == SPEC_TP && (s->is_glob || s->ndecls)) {
			err = build_tp_glob_targets(t, k, i, argv);
			if (err)
				return err;
			continue;
		}
		if (s->kind == SPEC_TP)
			err = kernel__tp(k, s->target, &sig, &e);
		else
			err = kernel__func(k, s->target, &sig, &e);
		if (err) {
			log_spec_error(argv[i], &e);
			return err;
		}
		err = add_target(t, i, s->kind == SPEC_TP ? ATTACH_TP : func_kind(mode, false));
		if (err)
			return err;
		err = resolve_spec_target(t, t->ntargets - 1, &sig, argv);
		if (err)
			return err;
	}
	return 0;
}

/* What the matches of one USDT spec came to, and the first left out. */
struct usdt_tally {
	int traced, skipped;
	int sites_skipped;		/* call sites of the matches left out */
	const struct usdt_match *first;
	struct ks_error first_e;	/* why FIRST was left out */
	bool first_values;		/* for its values, not for libbpf */
};

/*
 * Match M of spec I: a target when libbpf can attach to it and the spec's
 * values fit its call sites' arguments (arg3 is not at a site that passes
 * one); else left out, counted, and -v says why.
 */
static int add_usdt_match(struct trace *t, int i, const struct usdt_match *m,
			  struct usdt_tally *u, char **argv)
{
	bool values = false;
	struct ks_error e;
	int err;

	if (m->unreadable[0]) {
		ks_fail(&e, -EOPNOTSUPP, "%s", m->unreadable);
	} else {
		err = add_target(t, i, ATTACH_USDT);
		if (err)
			return err;
		t->targets[t->ntargets - 1].usdt = *m;
		if (!resolve_target(t, t->ntargets - 1, &m->sig, &e)) {
			log_target(t, t->ntargets - 1, &m->sig, argv);
			u->traced++;
			return 0;
		}
		resolver__release(&t->targets[--t->ntargets].plan);
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
	if (m->typed_sites && values)
		log_info("%s: %s:%s left out at %d of its %d call sites (%d argument(s) there): %s",
			 argv[i], m->provider, m->name, m->ntyped, m->nsites, m->sig.nparams,
			 ks_message(&e));
	else
		log_info("%s: %s:%s left out: %s", argv[i], m->provider, m->name, ks_message(&e));
	return 0;
}

/*
 * Nothing of spec I traced: one error.  A probe named alone keeps its own
 * (with the column); a glob says how many it matched and the first reason,
 * one about the values rather than libbpf if there is one.
 */
static int usdt_none_traced(struct usdt_tally *u, int n, char **argv, int i)
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
	log_spec_error(argv[i], &e);
	return e.err;
}

/*
 * USDT: a spec may name several probes (globs), and a probe's call sites
 * may pass different arguments: one target per probe and set of argument
 * types.  One that cannot be traced (libbpf cannot attach to the probe, or
 * the values name an argument its sites do not pass) is left out and
 * counted; an error when nothing of the spec is left.  Sites of a probe
 * named alone that are left out are a warning: their calls go unseen.
 */
static int build_usdt_targets(struct trace *t, char **argv)
{
	struct usdt_match *ms;
	struct ks_error e;
	int i, j, n, err;

	for (i = 0; i < t->nspecs; i++) {
		char q[SPEC_QUOTE_MAX + 1];
		struct usdt_tally u = {};

		n = usdt_front__match(t->usdt, &t->specs[i], t->opts->pid, &ms, &e);
		if (n < 0) {
			log_spec_error(argv[i], &e);
			return n;
		}
		for (j = 0, err = 0; j < n && !err; j++)
			err = add_usdt_match(t, i, &ms[j], &u, argv);
		t->glob_skipped += u.skipped;
		if (!err && !u.traced)
			err = usdt_none_traced(&u, n, argv, i);
		if (!err && ms[0].glob)
			log_info("%s: %d probe(s) match, %d traced, %d left out", argv[i], n, u.traced,
				 u.skipped);
		else if (!err && u.skipped)
			log_warn("spec '%s': %d of the %d call sites of %s:%s left out: %s (-v lists them)",
				 spec_quote(argv[i], q, sizeof(q)), u.sites_skipped, ms[0].nsites, u.first->provider, u.first->name,
				 ks_message(&u.first_e));
		free(ms);
		if (err)
			return err;
	}
	return 0;
}

struct grouped {
	__u64 hash;
	int target;
};

static int cmp_grouped(const void *a, const void *b)
{
	const struct grouped *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->target - y->target;
}

/*
 * Is target TG attached with others of its plan (attach_groups())?  A
 * glob's tracepoints are where the kernel has raw_tp cookies (6.10 on).
 */
static bool grouped_kind(const struct trace *t, const struct target *tg)
{
	return (tg->from_glob && tg->kind == ATTACH_KPROBE) || tg->kind == ATTACH_USDT ||
	       (tg->from_glob && tg->kind == ATTACH_TP && t->tp_cookies);
}

/*
 * Can X and Y share a program?  USDT probes also need as many arguments:
 * a program checks the types of its sites' arguments (KSNOOP_PLAN_USDT_SIG)
 * up to nslots, and reads that many.  Tracepoints too: the kernel refuses
 * to attach a raw_tp program that reads a word past the tracepoint's
 * arguments, and a group reads every word one of its members does.
 */
static bool same_group(const struct target *x, const struct target *y)
{
	return x->kind == y->kind && resolver__same_program(&x->plan, &y->plan) &&
	       (x->kind != ATTACH_USDT || x->plan.bpf.nslots == y->plan.bpf.nslots) &&
	       (x->kind != ATTACH_TP || x->plan.sig.nslots == y->plan.sig.nslots);
}

/*
 * The USDT probes of a group (targets IDX[0..M) of equal programs): a
 * program per PER probes (attacher__usdt_per_program()).
 */
static int attach_usdt_group(struct trace *t, struct attacher *a, const int *idx, int m, int per,
			     struct ks_error *e)
{
	struct attach_usdt *probes = calloc(m, sizeof(*probes));
	int k, err = 0;

	if (!probes)
		return ks_fail(e, -ENOMEM, "out of memory");
	for (k = 0; k < m; k++) {
		const struct usdt_match *u = &t->targets[idx[k]].usdt;

		probes[k] = (struct attach_usdt){ .path = u->attach_path, .shown = u->path,
						  .provider = u->provider, .name = u->name,
						  .func_id = (__u32)idx[k], .nsites = u->nsites };
	}
	for (k = 0; k < m && !err; k += per)
		err = attacher__add_usdt(a, &t->targets[idx[k]].plan, probes + k,
					 m - k < per ? m - k : per, t->opts->pid, e);
	for (k = 0; k < m && !err; k++)
		t->targets[idx[k]].attached = true;
	free(probes);
	return err;
}

/*
 * Attach the functions of one group (targets IDX[0..M) of equal programs):
 * left out, and counted, are those the kernel refuses.
 */
static int attach_group(struct trace *t, struct attacher *a, const struct ksnoop_plan *group,
			const int *idx, int m, struct attach_func *funcs,
			struct ksnoop_func_values *fvs, bool *failed, struct ks_error *e)
{
	const struct capture_plan *lead = &t->targets[idx[0]].plan;
	bool per_func = group->flags & KSNOOP_PLAN_FUNC_VALUES;
	int k, err;

	for (k = 0; k < m; k++) {
		const struct capture_plan *p = &t->targets[idx[k]].plan;

		if (per_func)
			resolver__func_values(p, &fvs[k]);
		funcs[k] = (struct attach_func){ p->sig.attach, (__u32)idx[k],
						 per_func ? &fvs[k] : NULL };
	}
	for (k = 0; k < m; k++)
		failed[k] = false;
	if (per_func)
		log_info("%s and %d more: values per target, records of %u and %u bytes (entry, return)",
			 lead->sig.attach, m - 1, group->side[KSNOOP_ENTRY].rec_size,
			 group->side[KSNOOP_RETURN].rec_size);
	ks_clear(e);
	err = attacher__add_group(a, lead, group, t->targets[idx[0]].kind, funcs, m, failed, e);
	for (k = 0; k < m && !err; k++) {
		t->targets[idx[k]].attached = !failed[k];
		if (failed[k]) {
			t->glob_skipped++;
			log_info("%s: %s left out: the kernel refused its program or kprobe (%s)",
				 t->specs[t->targets[idx[k]].spec].text, funcs[k].name,
				 e->msg[0] ? e->msg : "-d shows why");
		}
	}
	return err;
}

/*
 * Targets grouped by plan, one program per group: a glob's kprobe targets
 * (a function the kernel refuses is left out and counted, not fatal; plans
 * that differ in their values alone share one too, resolver__group()) and
 * USDT probes (all or nothing).
 */
static int attach_groups(struct trace *t, struct attacher *a, struct ks_error *e)
{
	size_t cnt = t->ntargets ? t->ntargets : 1;
	struct grouped *g = calloc(cnt, sizeof(*g));
	struct attach_func *funcs = calloc(cnt, sizeof(*funcs));
	struct ksnoop_func_values *fvs = calloc(cnt, sizeof(*fvs));
	struct capture_plan **plans = calloc(cnt, sizeof(*plans));
	bool *failed = calloc(cnt, sizeof(*failed)), *done = calloc(cnt, sizeof(*done));
	int *idx = calloc(cnt, sizeof(*idx));
	int n = 0, nkprobe = 0, ngroups = 0, i, j, m, k, err = 0, nusdt = 0;
	struct ksnoop_plan group;

	if (!g || !funcs || !fvs || !plans || !failed || !done || !idx) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < t->ntargets; i++) {
		if (grouped_kind(t, &t->targets[i]))
			g[n++] = (struct grouped){ resolver__program_hash(&t->targets[i].plan), i };
		nusdt += t->targets[i].kind == ATTACH_USDT;
	}
	qsort(g, n, sizeof(*g), cmp_grouped);
	for (i = 0; i < n && !err; i++) {
		const struct target *lead = &t->targets[g[i].target];

		if (done[g[i].target])
			continue;
		/* Equal hashes, then equal plans: a collision makes a group of its own. */
		m = 0;
		for (j = i; j < n && g[j].hash == g[i].hash; j++) {
			if (done[g[j].target] || !same_group(lead, &t->targets[g[j].target]))
				continue;
			done[g[j].target] = true;
			idx[m] = g[j].target;
			plans[m++] = &t->targets[g[j].target].plan;
		}
		ks_clear(e);
		if (lead->kind == ATTACH_USDT) {
			err = attach_usdt_group(t, a, idx, m, attacher__usdt_per_program(nusdt), e);
			continue;
		}
		/* A group whose records would grow too large is split. */
		nkprobe += m;
		for (j = 0; j < m && !err; j += k) {
			k = resolver__group(plans + j, m - j, &group);
			err = attach_group(t, a, &group, idx + j, k, funcs, fvs, failed, e);
			ngroups++;
		}
	}
	if (nkprobe)
		log_info("%d glob matches in %d program(s)", nkprobe, ngroups);
out:
	free(g);
	free(funcs);
	free(fvs);
	free(plans);
	free(failed);
	free(done);
	free(idx);
	return err;
}

/*
 * Globs whose every match the kernel refused attached nothing: an error
 * (the last refusal says why), not a trace that waits for nothing.
 */
static int check_any_attached(const struct trace *t, struct ks_error *e)
{
	char why[sizeof(e->msg)];
	bool tps = true, probes = true;
	int i;

	for (i = 0; i < t->ntargets; i++) {
		if (t->targets[i].attached)
			return 0;
		tps &= t->targets[i].kind == ATTACH_TP;
		probes &= t->targets[i].kind == ATTACH_USDT;
	}
	snprintf(why, sizeof(why), "%s", e->msg[0] ? e->msg : "every one was refused");
	return ks_fail(e, ks_runtime_errno(e->err ? e->err : -EOPNOTSUPP),
		       "none of the %d %s matched could be attached: %s", t->ntargets,
		       tps ? "tracepoint(s)" : probes ? "USDT probe(s)" : "function(s)", why);
}

/* Attach every target; on failure nothing stays attached. */
static int attach_all(struct trace *t, struct attacher **out, struct ks_error *e)
{
	struct attacher *a = attacher__new(t->opts->buffer_bytes);
	int i, err;

	if (!a)
		return ks_fail(e, -ENOMEM, "out of memory");
	err = attach_groups(t, a, e);
	for (i = 0; i < t->ntargets && !err; i++) {
		struct target *tg = &t->targets[i];

		/* Ctrl-C while attaching: stop here, detach what is attached. */
		if (stop__requested()) {
			err = ks_fail(e, -EINTR, "interrupted while attaching");
			break;
		}

		if (tg->attached || grouped_kind(t, tg))
			continue;
		err = attacher__add(a, &tg->plan, tg->kind, e);
		if (err && tg->from_glob && !attacher__exhausted(err)) {
			/* fentry on a glob's match the kernel refuses: left out. */
			log_info("%s: %s left out: %s", t->specs[tg->spec].text, tg->plan.sig.attach, e->msg);
			t->glob_skipped++;
			err = 0;
			continue;
		}
		tg->attached = !err;
	}
	if (!err)
		err = check_any_attached(t, e);
	if (err) {
		attacher__free(a);
		return err;
	}
	*out = a;
	return 0;
}

/* Targets attached: a glob's refused matches are not among them. */
static int count_attached(const struct trace *t)
{
	int i, n = 0;

	for (i = 0; i < t->ntargets; i++)
		n += t->targets[i].attached;
	return n;
}

static bool has_kernel_funcs(const struct trace *t)
{
	int i;

	for (i = 0; i < t->nspecs; i++)
		if (t->specs[i].kind == SPEC_KFUNC)
			return true;
	return false;
}

static const char *target_name(void *ctx, __u32 func_id)
{
	const struct trace *t = ctx;

	return func_id < (__u32)t->ntargets ? t->targets[func_id].plan.sig.name : "?";
}

static struct hist_value hist_value_of(void *ctx, __u32 func_id)
{
	const struct trace *t = ctx;
	const struct capture_plan *p;

	if (func_id >= (__u32)t->ntargets)
		return (struct hist_value){ "?", "?" };
	p = &t->targets[func_id].plan;
	return (struct hist_value){ p->hist_text, p->hist_label };
}

/*
 * --interval, text: each report starts with the wall-clock time it closes
 * at, as bcc's tools print it ("12:00:03"); JSON rows carry it instead, and
 * folded stacks (read by flame-graph tools) have no room for it.
 */
static void print_interval_time(const struct counts_fmt *fmt)
{
	time_t now = time(NULL);
	struct tm tm;
	char buf[16];

	if (fmt->style != COUNTS_TEXT || !localtime_r(&now, &tm))
		return;
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	fprintf(stdout, "%s%s\n", fmt->interval > 1 ? "\n" : "", buf);
}

/* --count, --hist: the counts so far (CLEAR: and start the next period afresh). */
static int print_counts(struct trace *t, struct attacher *a, bool clear)
{
	struct counts_fmt fmt = {
		.style = t->opts->folded ? COUNTS_FOLDED : t->opts->json ? COUNTS_JSON : COUNTS_TEXT,
		.stacks = t->opts->stack,
		.func_name = target_name,
		.ctx = t,
		.symbolize = t->printer.opts.symbolize,
		.sym_ctx = t->printer.opts.sym_ctx,
	};
	struct count_row *rows;
	size_t n, i;
	int err;

	err = counts__collect(attacher__counts_fd(a), attacher__stacks_fd(a), clear, &rows, &n);
	if (err) {
		log_error("reading the counts failed: %s", strerror(-err));
		return err;
	}
	for (i = 0; i < n; i++)
		t->counted += rows[i].count;
	if (t->opts->interval_ms) {
		fmt.interval = ++t->intervals;
		fmt.time_ns = now_ns(CLOCK_MONOTONIC);
		print_interval_time(&fmt);
	}
	if (t->opts->hist)
		counts__print_hist(stdout, rows, n, &fmt, hist_value_of);
	else
		counts__print(stdout, rows, n, &fmt);
	free(rows);
	if (fflush(stdout) || ferror(stdout))
		t->output_closed = true;
	return 0;
}

static int run_loop(struct trace *t, struct attacher *a, struct ring_buffer *rb)
{
	__u64 start = now_ns(CLOCK_MONOTONIC), last_lost_check = start, lost_seen = 0;
	__u64 next_interval = start + t->opts->interval_ms * 1000000ULL;
	int err = 0;

	t->check_at = start + POLL_INTERVAL_MS * 1000000ULL;
	while (!stop__requested()) {
		__u64 now;

		err = ring_buffer__poll(rb, POLL_INTERVAL_MS);
		/*
		 * The ring buffer wakes us only when we had caught up; should a
		 * wakeup ever be missed, a quiet interval still reads what is
		 * there rather than leaving it until the next event.
		 */
		if (err == 0)
			err = ring_buffer__consume(rb);
		if (err < 0 && err != -EINTR && err != -EAGAIN && err != -ECANCELED) {
			log_error("reading events failed: %s", strerror(-err));
			break;
		}
		err = 0;
		/* Flush per batch: prompt on a pipe, cheap under a flood. */
		if (fflush(stdout) || ferror(stdout)) {
			t->output_closed = true;
			break;
		}
		now = now_ns(CLOCK_MONOTONIC);
		t->check_at = now + POLL_INTERVAL_MS * 1000000ULL;
		if (now - last_lost_check >= LOST_REPORT_INTERVAL_NS) {
			__u64 lost = attacher__counter(a, KSNOOP_CNT_LOST);

			if (lost > lost_seen)
				log_warn("%llu events lost so far (ring buffer full; try --buffer)",
					 (unsigned long long)lost);
			lost_seen = lost;
			last_lost_check = now;
		}
		if (count_reached(t))
			break;
		if (t->opts->interval_ms && now >= next_interval) {
			if (print_counts(t, a, true) || t->output_closed)
				break;
			next_interval = now + t->opts->interval_ms * 1000000ULL;
		}
		if (t->opts->duration_ns && now - start >= t->opts->duration_ns)
			break;
	}
	return ks_runtime_errno(err);
}

/* Consume RB until it is empty or DRAIN_MAX_NS have passed. */
static void drain(struct trace *t, struct ring_buffer *rb)
{
	t->check_at = now_ns(CLOCK_MONOTONIC) + DRAIN_MAX_NS;
	while (ring_buffer__consume(rb) == -EAGAIN && now_ns(CLOCK_MONOTONIC) < t->check_at)
		;
}

/*
 * After the loop: print what the buffer already holds (up to a second:
 * enough to empty it, bounded under a flood or a slow reader), then
 * detach, so that nothing new comes, and count what is still there (each
 * record once: cheap) as captured but not printed.  Then --count's totals,
 * read once no probe can add to them.
 */
static int finish_run(struct trace *t, struct attacher *a, struct ring_buffer *rb)
{
	int err = 0;

	if (!t->output_closed)
		drain(t, rb);
	attacher__detach(a);
	if (!t->output_closed && !count_reached(t)) {
		t->discarding = true;
		drain(t, rb);
	}
	/* --count: what is left (since the last --interval, or all). */
	if ((t->opts->count_calls || t->opts->hist) && !t->output_closed)
		err = print_counts(t, a, !!t->opts->interval_ms);
	if (fflush(stdout) || ferror(stdout))
		t->output_closed = true;
	return ks_runtime_errno(err);
}

/*
 * Every program, map and kprobe is a file descriptor: a glob over a few
 * hundred functions needs more than the usual soft limit of 1024.
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Every record must fit the ring buffer with its header, or every event
 * of that target would be lost: a usage error, before anything loads.
 */
static int check_buffer(const struct trace *t, char **argv)
{
	int i, side;

	for (i = 0; i < t->ntargets; i++) {
		const struct ksnoop_plan *bp = &t->targets[i].plan.bpf;

		for (side = 0; side < KSNOOP_NR_KINDS; side++) {
			if (!bp->side[side].enabled ||
			    bp->side[side].rec_size + (__u64)BPF_RINGBUF_HDR_SZ <= t->opts->buffer_bytes)
				continue;
			log_error("--buffer %u is smaller than one record of '%s' (%u bytes with its header)",
				  t->opts->buffer_bytes, argv[t->targets[i].spec],
				  bp->side[side].rec_size + BPF_RINGBUF_HDR_SZ);
			return -EINVAL;
		}
	}
	return 0;
}

/* After the targets are resolved: attach, run, summarise; 0 or a negative errno. */
static int trace_run(struct trace *t, struct kernel *k, char **argv)
{
	enum attach_mode mode = t->mode;
	bool kprobes = kfeatures__get()->have[FEAT_KPROBES];
	struct ks_error e, fentry_e = {};
	struct attacher *a = NULL;
	struct ring_buffer *rb;
	int ret, err;

	ret = check_buffer(t, argv);
	if (ret)
		return ret;
	ret = kfeatures__check_run(kfeatures__get(), has_kernel_funcs(t), mode, &e);
	if (ret) {
		log_ks_error(&e);
		return ret;
	}
	raise_fd_limit();

	err = attach_all(t, &a, &e);
	/* Asked to stop before everything attached: nothing more to do. */
	if (err == -EINTR)
		return 0;
	if ((err == -EPERM || err == -EACCES) && geteuid() != 0) {
		log_error("%s: ksnoop needs root, or CAP_BPF and CAP_PERFMON", e.msg);
		return err;
	}
	if (err && mode == MODE_AUTO && has_kernel_funcs(t)) {
		/* fentry refused: try kprobes, which need plans without args at return. */
		fentry_e = e;
		log_info("fentry/fexit failed (%s); trying kprobes", e.msg);
		mode = MODE_KPROBE;
		ret = build_kernel_targets(t, k, argv, mode);
		if (ret)
			return ret;
		if (!kprobes) {
			log_error("cannot trace kernel functions on this kernel: fentry was refused (%s) and kprobes are not available (CONFIG_KPROBES is off); tracepoints (tp:NAME) and USDT probes still work",
				  fentry_e.msg);
			return -EOPNOTSUPP;
		}
		err = attach_all(t, &a, &e);
	}
	if (err) {
		if (mode == MODE_KPROBE && has_kernel_funcs(t) && !kprobes) {
			log_error("cannot trace kernel functions on this kernel: kprobes are not available (CONFIG_KPROBES is off); tracepoints (tp:NAME) and USDT probes still work");
			return -EOPNOTSUPP;
		}
		if (fentry_e.err)
			log_error("%s (fentry was refused too: %s)", e.msg, fentry_e.msg);
		else
			log_ks_error(&e);
		return err;
	}
	attacher__log_cost(a);
	/*
	 * Attaching made the tracer's own symbols (bpf_trampoline_*, bpf_prog_*
	 * [bpf]): kernel stacks are named from a kallsyms read after it, or a
	 * trampoline's frame takes the name of whatever symbol precedes it.
	 */
	if (t->opts->stack)
		kernel__reread_ksyms(k);
	if (has_kernel_funcs(t))
		log_info("attached with %s%s", mode == MODE_KPROBE ? "kprobe/kretprobe" : "fentry/fexit",
			 mode == MODE_AUTO && t->glob_targets && kprobes ?
			 " (globs: kprobes, a program per plan)" : "");
	log_info("tracing %d target(s); Ctrl-C to stop", count_attached(t));

	rb = ring_buffer__new(attacher__ringbuf_fd(a), handle_event, t, NULL);
	if (!rb) {
		ret = -errno;
		log_error("failed to set up the ring buffer: %s", strerror(-ret));
		attacher__free(a);
		return ks_runtime_errno(ret);
	}
	ret = run_loop(t, a, rb);
	ret = ks_worse(ret, finish_run(t, a, rb));
	ring_buffer__free(rb);
	/* After a failure, its message is the last word: no totals that look like a result. */
	if (!t->output_closed && !ret) {
		__u64 drops = attacher__counter(a, KSNOOP_CNT_STASH_DROP);

		if (t->opts->count_calls || t->opts->hist)
			fprintf(stderr, "ksnoop: %llu calls counted",
				(unsigned long long)t->counted);
		else
			fprintf(stderr, "ksnoop: %llu events printed, %llu lost",
				(unsigned long long)t->printed,
				(unsigned long long)attacher__counter(a, KSNOOP_CNT_LOST));
		if (t->unprinted)
			fprintf(stderr, ", %llu captured but not printed (stopped first)",
				(unsigned long long)t->unprinted);
		if (attacher__counter(a, KSNOOP_CNT_COUNT_FULL))
			fprintf(stderr, ", %llu calls not counted (counts map full)",
				(unsigned long long)attacher__counter(a, KSNOOP_CNT_COUNT_FULL));
		if (attacher__counter(a, KSNOOP_CNT_HIST_UNREAD))
			fprintf(stderr, ", %llu calls whose value could not be read",
				(unsigned long long)attacher__counter(a, KSNOOP_CNT_HIST_UNREAD));
		if (attacher__counter(a, KSNOOP_CNT_STACK_LOST))
			fprintf(stderr, ", %llu stacks not taken (stacks map full)",
				(unsigned long long)attacher__counter(a, KSNOOP_CNT_STACK_LOST));
		__u64 missed = attacher__missed(a);

		if (drops)
			fprintf(stderr, ", %llu calls not followed (stash full)",
				(unsigned long long)drops);
		if (missed)
			fprintf(stderr, ", %llu calls missed (the probe fired inside a BPF program)",
				(unsigned long long)missed);
		fputc('\n', stderr);
	}
	attacher__free(a);
	return ret;
}

/* -L: a duration needs a return; tracepoints and USDT probes have none. */
static int check_min_duration(const struct trace *t, char **argv)
{
	int i;

	if (!t->opts->min_duration_ns)
		return 0;
	for (i = 0; i < t->nspecs; i++) {
		if (t->specs[i].kind == SPEC_KFUNC)
			continue;
		log_error("--min-duration: '%s' is %s, which has no return and so no duration; only kernel functions have one",
			  argv[i], t->specs[i].kind == SPEC_TP ? "a tracepoint" : "a USDT probe");
		return -EINVAL;
	}
	return 0;
}

static int symbolize(void *ctx, __u64 addr, char *buf, size_t sz)
{
	return kernel__symbolize(ctx, addr, buf, sz);
}

static int symbolize_any(void *ctx, __u64 addr, char *buf, size_t sz)
{
	return kernel__symbolize_any(ctx, addr, buf, sz);
}

static int usymbolize(void *ctx, __u32 pid, __u64 addr, char *buf, size_t sz)
{
	return usym__symbolize(ctx, pid, addr, buf, sz);
}

/* What the kernel can do decides how targets attach: known before they resolve. */
static int probe_features(struct trace *t, const struct btf *vmlinux)
{
	struct ks_error e;
	int err = kfeatures__probe(vmlinux, has_kernel_funcs(t), &e);

	if (err) {
		log_ks_error(&e);
		return err;
	}
	t->mode = kfeatures__attach_mode(kfeatures__get(), t->opts->mode);
	return 0;
}

static int trace_main(int argc, char **argv, const struct options *opts, enum spec_kind kind)
{
	struct trace t = { .opts = opts, .nspecs = argc };
	struct kernel k = { .btf_dir = opts->btf_dir };
	struct print_opts popts = {
		.format = opts->json ? FORMAT_JSON : FORMAT_TEXT,
		.zeros = opts->zeros,
		.clock_offset_ns = (__s64)(now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC)),
		/* Kernel code addresses only: a USDT program's are its own. */
		.symbolize = kind == SPEC_USDT ? NULL : symbolize,
		.symbolize_any = kind == SPEC_USDT ? NULL : symbolize_any,
		.sym_ctx = &k,
		.usymbolize = usymbolize,
	};
	struct ks_error e;
	int ret, i;

	if (argc < 1) {
		log_error("expected at least one %s (see --help)",
			  kind == SPEC_USDT ? "BINARY:PROVIDER:NAME" : "SPEC");
		return -EINVAL;
	}
	t.specs = calloc(argc, sizeof(*t.specs));
	/* USDT stacks are named from the traced processes' objects. */
	if (kind == SPEC_USDT && opts->stack)
		popts.usym_ctx = usym__new(NULL);
	if (!t.specs || (kind == SPEC_USDT && opts->stack && !popts.usym_ctx)) {
		free(t.specs);
		usym__free(popts.usym_ctx);
		log_error("out of memory");
		return -ENOMEM;
	}
	printer__init(&t.printer, stdout, &popts);
	find_pid_namespace(&t);

	/* Spec errors first: they need no kernel at all. */
	for (i = 0; i < argc; i++) {
		ret = spec__parse(argv[i], kind, &t.specs[i], &e);
		if (ret) {
			e.err = ret;	/* -ENOMEM comes without a message */
			log_spec_error(argv[i], &e);
			goto out;
		}
	}
	ret = check_min_duration(&t, argv);
	if (ret)
		goto out;
	if (kind == SPEC_USDT) {
		t.usdt = usdt_front__new(opts->btf_file);
		ret = t.usdt ? probe_features(&t, NULL) : -ENOMEM;
		ret = ret ?: build_usdt_targets(&t, argv);
	} else {
		for (i = 0; i < argc; i++)
			if (t.specs[i].kind == SPEC_KFUNC)
				kernel__prefetch_ksyms(&k, t.specs[i].is_glob || t.specs[i].module ||
							   t.specs[i].ndecls);
		if (k.klookup)
			log_info("kernel functions: looked up by name in the kernel (BPF), not in /proc/kallsyms");
		ret = kernel__open(&k, &e);
		if (ret)
			log_ks_error(&e);
		else
			ret = probe_features(&t, kernel__running_vmlinux(&k));
		ret = ret ?: build_kernel_targets(&t, &k, argv, t.mode);
	}
	if (!ret)
		ret = trace_run(&t, &k, argv);
	/* Asked to stop before tracing began: nothing attached, nothing wrong. */
	if (ret == -EINTR && stop__requested()) {
		log_info("stopped before tracing began");
		ret = 0;
	}
out:
	for (i = 0; i < argc; i++)
		spec__free(&t.specs[i]);
	free(t.specs);
	/* Plans may hold BTF on top of the targets' own: freed first. */
	for (i = 0; i < t.ntargets; i++)
		resolver__release(&t.targets[i].plan);
	free(t.targets);
	usdt_front__free(t.usdt);
	usym__free(popts.usym_ctx);
	printer__fini(&t.printer);
	kernel__close(&k);
	return ret;
}

int do_trace(int argc, char **argv, const struct options *opts)
{
	return trace_main(argc, argv, opts, SPEC_KFUNC);
}

int do_usdt(int argc, char **argv, const struct options *opts)
{
	return trace_main(argc, argv, opts, SPEC_USDT);
}
