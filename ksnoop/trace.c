// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ksnoop [trace] SPEC...`: parse every spec, resolve every target, attach
 * all of them (or none), then print events until a count, a duration or a
 * signal ends the run, and say on stderr how many were printed and lost.
 *
 * Attach mode: fentry/fexit are cheaper and see arguments at return; when
 * the kernel refuses them (no BTF trampolines, restricted ftrace) ksnoop
 * falls back to kprobes for every function, so one run uses one mode.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "btf_util.h"
#include "cli.h"
#include "log.h"
#include "print.h"
#include "target.h"
#include "usdt_front.h"

/* How often the loop wakes to check the clock and the lost-event counter. */
#define POLL_INTERVAL_MS 100
#define LOST_REPORT_INTERVAL_NS 1000000000ULL
/* How long events already captured are still printed after a stop. */
#define DRAIN_MAX_NS 1000000000ULL

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

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
	int glob_skipped;	/* glob matches not traced, at resolve or attach */
	int glob_targets;	/* glob matches traced */
};

static __u64 now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct trace *t = ctx;
	const struct ksnoop_event *ev = data;

	if (size < sizeof(*ev) || ev->func_id >= (__u32)t->ntargets)
		return 0;
	if (t->opts->count && t->printed >= t->opts->count)
		return -ECANCELED;
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

static void log_spec_error(const char *arg, const struct spec_error *serr)
{
	char q[SPEC_QUOTE_MAX + 1];

	if (serr->pos)
		log_error("spec '%s': column %d: %s", spec_quote(arg, q, sizeof(q)), serr->pos,
			  serr->msg);
	else
		log_error("spec '%s': %s", spec_quote(arg, q, sizeof(q)), serr->msg);
}

static void log_spec_msg(const char *arg, const char *msg)
{
	char q[SPEC_QUOTE_MAX + 1];

	log_error("spec '%s': %s", spec_quote(arg, q, sizeof(q)), msg);
}

/* Resolve target I against SIG; 0 or an exit status. */
static int resolve_target(struct trace *t, int i, const struct signature *sig,
			  enum attach_mode mode, char **argv, char *why, size_t why_sz)
{
	struct target *tg = &t->targets[i];
	char types_where[PATH_MAX + 96];
	struct resolve_opts ropts = {
		.max_bytes = t->opts->max_bytes,
		.str_bytes = t->opts->str_bytes,
		.types_where = types_where,
		.user_space = tg->kind == ATTACH_USDT,
		.min_duration_ns = t->opts->min_duration_ns,
	};
	struct ksnoop_plan *bp = &tg->plan.bpf;
	struct spec_error serr;

	if (tg->kind == ATTACH_USDT)
		snprintf(types_where, sizeof(types_where),
			 tg->usdt.has_btf ? "the BTF of '%s'" :
			 "'%s', which has no BTF (.BTF section); give one with --btf FILE",
			 tg->usdt.path);
	else
		snprintf(types_where, sizeof(types_where), "%s%s BTF",
			 sig->module ? sig->module : "vmlinux", sig->module ? " and vmlinux" : "");

	if (resolver__resolve(&t->specs[tg->spec], sig, &ropts, &tg->plan, &serr)) {
		/* A glob's match that the values do not fit: said by the caller. */
		if (why) {
			snprintf(why, why_sz, "%s", serr.msg);
			return KSNOOP_EXIT_USAGE;
		}
		log_spec_error(argv[tg->spec], &serr);
		return KSNOOP_EXIT_USAGE;
	}
	bp->func_id = i;
	bp->filter_pid = t->opts->pid;
	bp->filter_tid = t->opts->tid;
	bp->pidns_dev = t->pidns_dev;
	bp->pidns_ino = t->pidns_ino;
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
	if (why)
		return 0;	/* a glob's match: the glob says what it did */
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
	return 0;
}

/*
 * "struct sk_buff *s": S becomes the name of SIG's first parameter of that
 * type.  0, or -ENOENT when SIG has none (the function is left out).
 */
static int bind_decls(const struct spec *s, struct signature *sig, char *why, size_t sz)
{
	int d, i;

	for (d = 0; d < s->ndecls; d++) {
		const struct spec_decl *dc = &s->decls[d];
		__u32 want;
		int nptrs;

		if (btfu_find_type(sig->btf, dc->type, &want, &nptrs)) {
			snprintf(why, sz, "no type '%s' in its BTF", dc->type);
			return -ENOENT;
		}
		for (i = 0; i < sig->nparams; i++)
			if (btfu_same_type(sig->btf, sig->params[i].type_id, want, nptrs))
				break;
		if (i == sig->nparams) {
			snprintf(why, sz, "no argument of type %s", dc->type);
			return -ENOENT;
		}
		sig->params[i].name = dc->name;
	}
	return 0;
}

static enum attach_kind func_kind(enum attach_mode mode, bool glob)
{
	if (mode == MODE_KPROBE)
		return ATTACH_KPROBE;
	if (mode == MODE_FENTRY)
		return ATTACH_FENTRY;
	/*
	 * A glob: kprobes, one program per plan for all its functions (fentry
	 * needs a program loaded per function); fentry where there are none.
	 */
	return glob && attacher__have_kprobes() ? ATTACH_KPROBE : ATTACH_FENTRY;
}

/* A glob over kernel functions: one target per match that can be traced. */
static int build_glob_targets(struct trace *t, struct kernel *k, int i, char **argv,
			      enum attach_mode mode)
{
	struct spec *s = &t->specs[i];
	char msg[512], why[512], first[600] = "";
	struct func_match *m;
	int n, j, traced = 0, skipped = 0, ret;

	n = kernel__match_funcs(k, s->module, s->target, &m, msg, sizeof(msg));
	if (n < 0) {
		log_spec_msg(argv[i], msg);
		return n == -ENOMEM || n == -EIO ? KSNOOP_EXIT_RUNTIME : KSNOOP_EXIT_USAGE;
	}
	for (j = 0; j < n; j++) {
		struct signature sig;
		const char *refused = kernel__func_denied(m[j].name) ?
				      "tracing it would recurse into the tracer" :
				      kernel__func_refused(k, &m[j]);

		why[0] = 0;
		if (refused)
			snprintf(why, sizeof(why), "%s", refused);
		else if (kernel__func_sig(k, &m[j], &sig, msg, sizeof(msg)))
			snprintf(why, sizeof(why), "%s", msg);
		else if (bind_decls(s, &sig, why, sizeof(why)) == 0) {
			if (add_target(t, i, func_kind(mode, true))) {
				free(m);
				return KSNOOP_EXIT_RUNTIME;
			}
			t->targets[t->ntargets - 1].from_glob = s->is_glob;
			ret = resolve_target(t, t->ntargets - 1, &sig, mode, argv, why, sizeof(why));
			if (ret) {
				resolver__release(&t->targets[--t->ntargets].plan);
			} else {
				traced++;
				t->glob_targets++;
				continue;
			}
		}
		skipped++;
		if (!first[0])
			snprintf(first, sizeof(first), "%s: %s", m[j].name, why);
		log_info("%s: %s%s%s left out: %s", argv[i], m[j].module ? m[j].module : "",
			 m[j].module ? ":" : "", m[j].name, why);
	}
	free(m);
	t->glob_skipped += skipped;
	if (!n) {
		snprintf(msg, sizeof(msg), "no kernel function with BTF matches '%s'%s%s", s->target,
			 s->module ? " in " : "", s->module ? s->module : "");
		log_spec_msg(argv[i], msg);
		return KSNOOP_EXIT_USAGE;
	}
	if (!traced) {
		/* Room for all of FIRST: gcc -O1 (the sanitizer build) checks. */
		char none[sizeof(first) + 128];

		snprintf(none, sizeof(none), "'%s' matches %d function(s), none of them traceable with these values (%s%s)",
			 s->target, n, first, n > 1 ? "; -v lists every one" : "");
		log_spec_msg(argv[i], none);
		return KSNOOP_EXIT_USAGE;
	}
	log_info("%s: %d function(s) match, %d traced, %d left out", argv[i], n, traced, skipped);
	return 0;
}

/* Kernel functions and tracepoints: one target per spec, or per glob match. */
static int build_kernel_targets(struct trace *t, struct kernel *k, char **argv,
				enum attach_mode mode)
{
	char msg[512];
	int i, err, ret;

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
			ret = build_glob_targets(t, k, i, argv, mode);
			if (ret)
				return ret;
			continue;
		}
		if (s->kind == SPEC_TP)
			err = kernel__tp(k, s->target, &sig, msg, sizeof(msg));
		else
			err = kernel__func(k, s->target, &sig, msg, sizeof(msg));
		if (err) {
			log_spec_msg(argv[i], msg);
			return err == -ENOENT || err == -EINVAL ? KSNOOP_EXIT_USAGE : KSNOOP_EXIT_RUNTIME;
		}
		if (add_target(t, i, s->kind == SPEC_TP ? ATTACH_TP : func_kind(mode, false)))
			return KSNOOP_EXIT_RUNTIME;
		ret = resolve_target(t, t->ntargets - 1, &sig, mode, argv, NULL, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/* USDT: a spec may name several probes (globs): one target each. */
static int build_usdt_targets(struct trace *t, char **argv)
{
	struct usdt_match *ms;
	char msg[512];
	int i, j, n, ret;

	for (i = 0; i < t->nspecs; i++) {
		n = usdt_front__match(t->usdt, &t->specs[i], t->opts->pid, &ms, msg, sizeof(msg));
		if (n < 0) {
			log_spec_msg(argv[i], msg);
			return n == -ENOMEM ? KSNOOP_EXIT_RUNTIME : KSNOOP_EXIT_USAGE;
		}
		for (j = 0; j < n; j++) {
			if (add_target(t, i, ATTACH_USDT)) {
				free(ms);
				return KSNOOP_EXIT_RUNTIME;
			}
			t->targets[t->ntargets - 1].usdt = ms[j];
			ret = resolve_target(t, t->ntargets - 1, &ms[j].sig, MODE_AUTO, argv, NULL, 0);
			if (ret) {
				free(ms);
				return ret;
			}
		}
		free(ms);
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
 * A glob's kprobe targets, grouped by plan: one program per group.  A
 * function the kernel refuses is left out (and counted), not fatal.
 */
static int attach_groups(struct trace *t, struct attacher *a, char *msg, size_t sz)
{
	size_t cnt = t->ntargets ? t->ntargets : 1;
	struct grouped *g = calloc(cnt, sizeof(*g));
	struct attach_func *funcs = calloc(cnt, sizeof(*funcs));
	bool *failed = calloc(cnt, sizeof(*failed)), *done = calloc(cnt, sizeof(*done));
	int n = 0, i, j, k, err = 0;

	if (!g || !funcs || !failed || !done) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < t->ntargets; i++)
		if (t->targets[i].from_glob && t->targets[i].kind == ATTACH_KPROBE)
			g[n++] = (struct grouped){ resolver__program_hash(&t->targets[i].plan), i };
	qsort(g, n, sizeof(*g), cmp_grouped);
	for (i = 0; i < n && !err; i++) {
		const struct target *lead = &t->targets[g[i].target];
		int m = 0;

		if (done[g[i].target])
			continue;
		/* Equal hashes, then equal plans: a collision makes a group of its own. */
		for (j = i; j < n && g[j].hash == g[i].hash; j++) {
			if (done[g[j].target] || !resolver__same_program(&t->targets[g[j].target].plan,
									   &lead->plan))
				continue;
			done[g[j].target] = true;
			funcs[m++] = (struct attach_func){ t->targets[g[j].target].plan.sig.attach,
							   (__u32)g[j].target };
		}
		memset(failed, 0, m * sizeof(*failed));
		err = attacher__add_group(a, &lead->plan, funcs, m, failed, msg, sz);
		for (k = 0; k < m && !err; k++) {
			t->targets[funcs[k].func_id].attached = !failed[k];
			if (failed[k]) {
				t->glob_skipped++;
				log_info("%s: %s left out: the kernel refused a kprobe on it",
					 t->specs[t->targets[funcs[k].func_id].spec].text, funcs[k].name);
			}
		}
	}
out:
	free(g);
	free(funcs);
	free(failed);
	free(done);
	return err;
}

/* Attach every target; on failure nothing stays attached. */
static int attach_all(struct trace *t, struct attacher **out, char *msg, size_t sz)
{
	struct attacher *a = attacher__new(t->opts->buffer_bytes);
	int i, err;

	if (!a)
		return -ENOMEM;
	err = attach_groups(t, a, msg, sz);
	for (i = 0; i < t->ntargets && !err; i++) {
		struct target *tg = &t->targets[i];

		if (tg->attached || (tg->from_glob && tg->kind == ATTACH_KPROBE))
			continue;
		if (tg->kind == ATTACH_USDT)
			err = attacher__add_usdt(a, &tg->plan, tg->usdt.attach_path, tg->usdt.path,
						 tg->usdt.provider,
						 tg->usdt.name, t->opts->pid, msg, sz);
		else
			err = attacher__add(a, &tg->plan, tg->kind, msg, sz);
		if (err && tg->from_glob && err != -ENOMEM) {
			/* fentry on a glob's match the kernel refuses: left out. */
			log_info("%s: %s left out: %s", t->specs[tg->spec].text, tg->plan.sig.attach, msg);
			t->glob_skipped++;
			err = 0;
			continue;
		}
		tg->attached = !err;
	}
	if (err) {
		attacher__free(a);
		return err;
	}
	*out = a;
	return 0;
}

static bool has_kernel_funcs(const struct trace *t)
{
	int i;

	for (i = 0; i < t->nspecs; i++)
		if (t->specs[i].kind == SPEC_KFUNC)
			return true;
	return false;
}

static int run_loop(struct trace *t, struct attacher *a)
{
	struct ring_buffer *rb;
	__u64 start = now_ns(CLOCK_MONOTONIC), last_lost_check = start, lost_seen = 0;
	int err = 0;

	rb = ring_buffer__new(attacher__ringbuf_fd(a), handle_event, t, NULL);
	if (!rb) {
		log_error("failed to set up the ring buffer: %s", strerror(errno));
		return KSNOOP_EXIT_RUNTIME;
	}
	t->check_at = start + POLL_INTERVAL_MS * 1000000ULL;
	while (!stop_requested) {
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
		if (t->opts->count && t->printed >= t->opts->count)
			break;
		if (t->opts->duration_ns && now - start >= t->opts->duration_ns)
			break;
	}
	/* Drain what is already in the buffer, within the count. */
	if (!t->output_closed) {
		/* Up to a second: enough to empty the buffer, bounded under a flood. */
		t->check_at = now_ns(CLOCK_MONOTONIC) + DRAIN_MAX_NS;
		while (ring_buffer__consume(rb) == -EAGAIN &&
		       now_ns(CLOCK_MONOTONIC) < t->check_at)
			;
	}
	ring_buffer__free(rb);
	if (fflush(stdout) || ferror(stdout))
		t->output_closed = true;
	return err ? KSNOOP_EXIT_RUNTIME : 0;
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

/* After the targets are resolved: attach, run, summarise. */
static int trace_run(struct trace *t, struct kernel *k, char **argv)
{
	enum attach_mode mode = t->opts->mode;
	char msg[512], fentry_msg[512] = "";
	struct sigaction sa = { .sa_handler = on_signal };
	struct attacher *a = NULL;
	int ret, err;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (t->glob_targets)
		raise_fd_limit();

	err = attach_all(t, &a, msg, sizeof(msg));
	if ((err == -EPERM || err == -EACCES) && geteuid() != 0) {
		log_error("%s: ksnoop needs root, or CAP_BPF and CAP_PERFMON", msg);
		return KSNOOP_EXIT_RUNTIME;
	}
	if (err && mode == MODE_AUTO && has_kernel_funcs(t)) {
		/* fentry refused: try kprobes, which need plans without args at return. */
		snprintf(fentry_msg, sizeof(fentry_msg), "%s", msg);
		log_info("fentry/fexit failed (%s); trying kprobes", msg);
		mode = MODE_KPROBE;
		ret = build_kernel_targets(t, k, argv, mode);
		if (ret)
			return ret;
		if (!attacher__have_kprobes()) {
			log_error("cannot trace kernel functions on this kernel: fentry was refused (%s) and kprobes are not available (CONFIG_KPROBES is off); tracepoints (tp:NAME) and USDT probes still work",
				  fentry_msg);
			return KSNOOP_EXIT_RUNTIME;
		}
		err = attach_all(t, &a, msg, sizeof(msg));
	}
	if (err) {
		if (mode == MODE_KPROBE && has_kernel_funcs(t) && !attacher__have_kprobes())
			log_error("cannot trace kernel functions on this kernel: kprobes are not available (CONFIG_KPROBES is off); tracepoints (tp:NAME) and USDT probes still work");
		else if (fentry_msg[0])
			log_error("%s (fentry was refused too: %s)", msg, fentry_msg);
		else
			log_error("%s", msg);
		return KSNOOP_EXIT_RUNTIME;
	}
	if (has_kernel_funcs(t))
		log_info("attached with %s%s", mode == MODE_KPROBE ? "kprobe/kretprobe" : "fentry/fexit",
			 mode == MODE_AUTO && t->glob_targets ? " (globs: kprobes, a program per plan)" : "");
	log_info("tracing %d target(s); Ctrl-C to stop", t->ntargets);

	ret = run_loop(t, a);
	if (!t->output_closed) {
		__u64 drops = attacher__counter(a, KSNOOP_CNT_STASH_DROP);

		fprintf(stderr, "ksnoop: %llu events printed, %llu lost",
			(unsigned long long)t->printed,
			(unsigned long long)attacher__counter(a, KSNOOP_CNT_LOST));
		if (drops)
			fprintf(stderr, ", %llu calls not followed (stash full)",
				(unsigned long long)drops);
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
		return KSNOOP_EXIT_USAGE;
	}
	return 0;
}

static int symbolize(void *ctx, __u64 addr, char *buf, size_t sz)
{
	return kernel__symbolize(ctx, addr, buf, sz);
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
		.sym_ctx = &k,
	};
	char msg[512];
	int ret, i;

	if (argc < 1) {
		log_error("expected at least one %s (see --help)",
			  kind == SPEC_USDT ? "BINARY:PROVIDER:NAME" : "SPEC");
		return KSNOOP_EXIT_USAGE;
	}
	t.specs = calloc(argc, sizeof(*t.specs));
	if (!t.specs) {
		log_error("out of memory");
		return KSNOOP_EXIT_RUNTIME;
	}
	printer__init(&t.printer, stdout, &popts);
	find_pid_namespace(&t);

	/* Spec errors first: they need no kernel at all. */
	for (i = 0; i < argc; i++) {
		struct spec_error serr;

		if (spec__parse(argv[i], kind, &t.specs[i], &serr)) {
			log_spec_error(argv[i], &serr);
			ret = KSNOOP_EXIT_USAGE;
			goto out;
		}
	}
	ret = check_min_duration(&t, argv);
	if (ret)
		goto out;
	if (kind == SPEC_USDT) {
		t.usdt = usdt_front__new(opts->btf_file);
		ret = t.usdt ? build_usdt_targets(&t, argv) : KSNOOP_EXIT_RUNTIME;
	} else if (kernel__open(&k, msg, sizeof(msg))) {
		log_error("%s", msg);
		ret = KSNOOP_EXIT_RUNTIME;
	} else {
		ret = build_kernel_targets(&t, &k, argv, opts->mode);
	}
	if (!ret)
		ret = trace_run(&t, &k, argv);
out:
	for (i = 0; i < argc; i++)
		spec__free(&t.specs[i]);
	free(t.specs);
	/* Plans may hold BTF on top of the targets' own: freed first. */
	for (i = 0; i < t.ntargets; i++)
		resolver__release(&t.targets[i].plan);
	free(t.targets);
	usdt_front__free(t.usdt);
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
