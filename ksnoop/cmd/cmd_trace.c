// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ksnoop [trace] SPEC...`: parse every spec, expand them into targets
 * (targets.c), attach all of them or none (attach.c), then print events
 * until a count, a duration or a signal ends the run, and say how many
 * were printed and lost (report.h: a line on stderr, or with -j the
 * stream's last record).
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
#include <linux/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "ringbuf_ahead.h"
#include "counts.h"
#include "duration.h"
#include "cli.h"
#include "kfeatures.h"
#include "ksyms.h"
#include "ks_error.h"
#include "log.h"
#include "print.h"
#include "printing.h"
#include "cmd_record.h"
#include "report.h"
#include "resolve.h"
#include "kernel.h"
#include "targets.h"
#include "sharing.h"
#include "stop.h"
#include "usdt_front.h"
#include "ufunc.h"
#include "usym.h"
#include "tree.h"
#include "track.h"
#include "pcap_events.h"
#include "pcapng.h"
#include "pfilter.h"
#include "container.h"

/* How often the loop wakes to check the clock and the lost-event counter. */
#define POLL_INTERVAL_MS 100
#define LOST_REPORT_INTERVAL_NS 1000000000ULL
/*
 * A recording's events go out as a block when it fills (1 MiB of records,
 * recfile.h) or this long after the last block: a file cut short loses at
 * most that much.  A block per wake-up made blocks of a few hundred small
 * events, and zstd's per-block tables were over half of recording one.
 */
#define REC_BLOCK_INTERVAL_NS (POLL_INTERVAL_MS * 1000000ULL)
/* How long events already captured are still printed after a stop. */
#define DRAIN_MAX_NS 1000000000ULL

struct trace {
	const struct options *opts;
	enum attach_mode mode;	/* of kernel functions, from opts and the kernel's features */
	int sys_raw_min;	/* a sys: glob of more calls goes on raw_syscalls (sharing.h) */
	int nspecs;
	struct spec *specs;
	struct target_list targets;	/* func_id i is targets.v[i] */
	struct usdt_front *usdt;
	struct ufunc_front *ufunc;	/* u: specs (NULL: none) */
	struct printer printer;	/* events */
	struct cgroup_names *cgroups;	/* --by cgroup's rows, -v's events: paths of cgroup ids */
	struct report report;	/* the rest: counts, notices, the summary */
	__u64 printed;
	__u64 lost_seen;	/* the lost count the last notice gave */
	__u64 check_at;		/* when handle_event() should hand back control */
	__u64 pidns_dev;	/* ksnoop's pid namespace; 0: the initial one */
	__u64 pidns_ino;
	bool output_closed;
	bool discarding;	/* stopped: events left in the buffer are counted, not printed */
	__u64 unprinted;	/* events captured but not printed: the stop came first */
	__u64 counted;		/* --count: calls counted so far */
	__u32 intervals;	/* --interval: reports printed so far */
	struct tree_print tree;	/* --tree: inner calls waiting for their root */
	struct track_run track;	/* --track: the object's type, its free paths and clones */
	struct group_print groups;	/* --group: events per object until it is freed */
	/* record: events go to this file instead of the printer (cmd_record.c) */
	struct recfile_writer *rec;
	struct ks_error rec_err;	/* why writing stopped */
	struct pcap_events *pcap;	/* --pcap: the events' packets go there too */
	int pcap_err;		/* --pcap: the write that failed (the run's status) */
	struct pfilter *filter;	/* --filter: compiled once (NULL: none) */
	/* the events ring buffer, made while the kernel is read (NULL: at the load) */
	struct ringbuf_ahead *ringbuf_ahead;
};

static __u64 now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* -n: as many events printed as were asked for. */
static bool max_events_reached(const struct trace *t)
{
	return t->opts->max_events && t->printed >= t->opts->max_events;
}

static const struct capture_plan *plan_of(void *ctx, __u32 func_id)
{
	const struct trace *t = ctx;

	return func_id < (__u32)t->targets.n ? &t->targets.v[func_id].plan : NULL;
}

/* --tree: printing.c keeps a session's calls until its root prints them. */
static void tree_event(struct trace *t, const struct capture_plan *plan, const void *data,
		       size_t size)
{
	tree_print__event(&t->tree, 0, &t->printer, plan, data, size, plan_of, t);
	t->unprinted += t->tree.unprinted;
	t->tree.unprinted = 0;
}

/* --group: group_print.c keeps an object's events until its group ends. */
static void group_event(struct trace *t, const void *data, size_t size)
{
	group_print__event(&t->groups, &t->printer, data, size, plan_of, t);
	t->unprinted += t->groups.unprinted;
	t->groups.unprinted = 0;
}

/*
 * --group, events past the end (-n, a stop): an open group's free is not
 * printed, but its group says it was freed, as the summary's count does.
 */
static void group_freed_unprinted(struct trace *t, const struct ksnoop_event *ev)
{
	group_print__freed_unprinted(&t->groups, ev);
	t->unprinted++;
}

static const char *target_name(void *ctx, __u32 func_id);

/* --pcap: ERR from writing the file (E said what); a failed write ends the run (said). */
static int pcap_written(struct trace *t, int err, const struct ks_error *e)
{
	if (!err)
		return 0;
	log_ks_error(e);
	t->output_closed = true;
	t->pcap_err = err;
	return err;
}

/* --pcap: EV's packets to the file. */
static int write_packets(struct trace *t, const struct ksnoop_event *ev, const void *data,
			 size_t size)
{
	struct ks_error e;
	int err = pcap_events__event(t->pcap, &t->targets.v[ev->func_id].plan,
				     target_name(t, ev->func_id), data, size, &e);

	return pcap_written(t, err, &e);
}

/* --pcap: the batch's packets out to the file. */
static int flush_pcap(struct trace *t)
{
	struct ks_error e;
	int err = pcap_events__flush(t->pcap, &e);

	return pcap_written(t, err, &e);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct trace *t = ctx;
	const struct ksnoop_event *ev = data;

	if (size < sizeof(*ev) || ev->func_id >= (__u32)t->targets.n)
		return 0;
	if (t->discarding) {
		if (t->opts->group && (ev->flags & KSNOOP_EV_FREED))
			group_freed_unprinted(t, ev);
		else
			t->unprinted++;
		if ((t->unprinted & 4095) == 0 && now_ns(CLOCK_MONOTONIC) >= t->check_at)
			return -EAGAIN;
		return 0;
	}
	if (max_events_reached(t)) {
		/* This record is consumed: --group's free is noted first. */
		if (t->opts->group && (ev->flags & KSNOOP_EV_FREED))
			group_freed_unprinted(t, ev);
		return -ECANCELED;
	}
	/* A second signal: nothing more is printed, what is left is counted. */
	if (stop__forced()) {
		t->unprinted++;
		return -ECANCELED;
	}
	if (t->pcap && write_packets(t, ev, data, size))
		return -ECANCELED;
	if (t->rec) {
		/* A write that failed (a full disk) ends the run; the file keeps what it has. */
		if ((t->printer.opts.usym_ctx &&
		     record__name_ustacks(t->rec, &t->targets.v[ev->func_id].plan, data, size,
					  t->printer.opts.usymbolize, t->printer.opts.usym_ctx,
					  &t->rec_err)) ||
		    recfile_writer__event(t->rec, data, size, &t->rec_err)) {
			t->output_closed = true;
			return -ECANCELED;
		}
	} else if (t->opts->group && (ev->flags & KSNOOP_EV_OBJECT)) {
		group_event(t, data, size);
	} else if (t->opts->tree && t->targets.v[ev->func_id].plan.bpf.tree) {
		tree_event(t, &t->targets.v[ev->func_id].plan, data, size);
		if (t->targets.v[ev->func_id].plan.bpf.tree != KSNOOP_TREE_ROOT)
			return 0;
	} else {
		printer__event(&t->printer, &t->targets.v[ev->func_id].plan, data, size);
	}
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

static enum attach_kind func_kind(enum attach_mode mode, bool glob)
{
	return kfeatures__func_kind(kfeatures__get(), mode, glob);
}

/* What every target's plan takes from the options, attaching kernel functions in MODE. */
static struct targets_cfg targets_cfg(const struct trace *t, enum attach_mode mode)
{
	const struct options *o = t->opts;

	return (struct targets_cfg){
		.resolve = {
			.max_bytes = o->max_bytes,
			.str_bytes = o->str_bytes,
			.stack = o->stack,
			.ustack = o->ustack,
			.output = o->output,
			.min_duration_ns = o->min_duration_ns,
			.by = o->by,
			.tree = o->tree,
			.hist_min = o->hist_min,
			.hist_step = o->hist_step,
			.hist_nbuckets = o->hist_nbuckets,
			.pair_start = o->pair ? &t->specs[0] : NULL,
			.snaplen = o->pcap_path ? o->snaplen ?: KSNOOP_DEFAULT_SNAPLEN : 0,
			.filter = t->filter,
			.filter_snaplen = o->snaplen ?: KSNOOP_DEFAULT_SNAPLEN,
			.netns_ino = o->netns_ino,
		},
		.cgroup_id = o->cgroup_id,
		.cgroup_level = o->cgroup_level,
		/*
		 * Only JSON, recordings and --show-cgroup use an event's
		 * cgroup: text output without it saves the helper per event.
		 */
		.event_cgroup = o->json || o->recording || o->record_path || o->show_cgroup,
		.filter_pid = o->pid,
		.filter_tid = o->tid,
		.pidns_dev = t->pidns_dev,
		.pidns_ino = t->pidns_ino,
		.self_tgid = getpid(),
		.comm = o->has_comm ? o->comm : NULL,
		.func_kind = func_kind(mode, false),
		.glob_kind = func_kind(mode, true),
		.tp_cookies = kfeatures__get()->have[FEAT_TP_COOKIES],
		.raw_syscalls = kfeatures__get()->have[FEAT_RAW_SYSCALLS],
		.sys_raw_min = t->sys_raw_min,
		.usdt_pid = o->pid,
		.ufunc = t->ufunc,
		.tree_root = o->tree ? &t->specs[0] : NULL,
		.tree_max_calls = o->tree_max_calls,
	};
}

/*
 * --tree: the preempt count's bits of a hard interrupt, an NMI and a
 * softirq being served (linux/preempt.h's HARDIRQ_MASK, NMI_MASK and
 * SOFTIRQ_OFFSET).  Up to 6.x: HARDIRQ 16-19, NMI 20-23.  7.3 counts
 * local_interrupt_disable()'s nesting in bits 16-23 (the task's own, a
 * count of its per-CPU local_interrupt_disable_state) and moved HARDIRQ
 * to 24-27, NMI to 28 (28-31 where NEED_RESCHED has a word of its own;
 * an NMI adds HARDIRQ_OFFSET too).  Read with 6.x's bits there, a tick's
 * hrtimer_start in its interrupt (count 0x1000002) went in the task's
 * session it interrupted.  Bit 31 stays out: the inverted NEED_RESCHED
 * of a 32-bit count.
 */
#define PREEMPT_NOT_TASK_6	(0x00f00000 /* NMI */ | 0x000f0000 /* HARDIRQ */ | \
				 0x00000100 /* SOFTIRQ_OFFSET */)
#define PREEMPT_NOT_TASK_IRQ_RC	(0x10000000 /* NMI */ | 0x0f000000 /* HARDIRQ */ | \
				 0x00000100 /* SOFTIRQ_OFFSET */)

/*
 * The layout of the preempt count: does the kernel count interrupt
 * disabling in it (7.3's refcounted local_interrupt_disable(), whose
 * per-CPU state BTF or kallsyms name)?  Probed, not told by the version.
 * A BTF that names the preempt count's own per-CPU variable (WHERE) has
 * the kernel's per-CPU variables: its "no" is the answer, without a scan
 * of kallsyms (klookup finds only what exists; a miss there reads all of
 * /proc/kallsyms, 0.66 s in a TCG guest).
 */
static __u32 preempt_not_task_bits(struct kernel *k, const struct btf *btf, const char *where)
{
	const char *rc = "local_interrupt_disable_state";
	__u64 addr;

	if (btf && btf__find_by_name_kind(btf, rc, BTF_KIND_VAR) >= 0)
		return PREEMPT_NOT_TASK_IRQ_RC;
	if (btf && btf__find_by_name_kind(btf, where, BTF_KIND_VAR) >= 0)
		return PREEMPT_NOT_TASK_6;
	return kernel__symbol_addr(k, rc, &addr) ? PREEMPT_NOT_TASK_6 : PREEMPT_NOT_TASK_IRQ_RC;
}

/*
 * --tree: where the CPU's preempt count is, for the programs' in_task():
 * the per-CPU variable __preempt_count (6.1, and 6.15 on), or the member
 * preempt_count of pcpu_hot (6.2 to 6.14), with the kernel's
 * __per_cpu_offset[]; and which of its bits are not the task's.  Not
 * found (kallsyms without addresses): 0, and an interrupt's calls go in
 * the session they interrupt (-v says so).
 */
static void tree_preempt_count(struct kernel *k, struct targets_cfg *cfg)
{
	const struct btf *btf = kernel__running_vmlinux(k);
	const char *where = "__preempt_count", *var = where;
	__u32 bit_off;
	__u64 off, pc;
	__s32 id;

	if (kernel__symbol_addr(k, "__per_cpu_offset", &off))
		goto unknown;
	if (kernel__symbol_addr(k, "__preempt_count", &pc)) {
		/* 6.12's pcpu_hot is a union of the members, in a struct, and padding. */
		id = btf ? btf__find_by_name_kind(btf, "pcpu_hot", BTF_KIND_STRUCT) : -ENOENT;
		if (id < 0 || kernel__symbol_addr(k, "pcpu_hot", &pc) ||
		    resolver__member_offset(btf, id, "preempt_count", &bit_off))
			goto unknown;
		pc += bit_off / 8;
		where = "pcpu_hot.preempt_count";
		var = "pcpu_hot";
	}
	cfg->preempt_count_addr = pc;
	cfg->per_cpu_offset_addr = off;
	cfg->preempt_not_task = preempt_not_task_bits(k, btf, var);
	log_info("--tree: the CPU's preempt count: %s (%#llx), __per_cpu_offset %#llx, not the task's: %#x",
		 where, (unsigned long long)pc, (unsigned long long)off, cfg->preempt_not_task);
	return;
unknown:
	log_info("--tree: the CPU's preempt count was not found: calls in interrupts go in the session they interrupt");
}

/* Every spec's targets, kernel functions attached in MODE. */
static int build_targets(struct trace *t, struct kernel *k, enum attach_mode mode)
{
	struct targets_cfg cfg = targets_cfg(t, mode);
	int err;

	if (t->opts->tree)
		tree_preempt_count(k, &cfg);
	/* Built again after fentry was refused: the first plans go. */
	targets__clear(&t->targets);
	err = targets__add(&t->targets, k, t->usdt, t->specs, t->nspecs, &cfg);
	/*
	 * --track's free paths and clones: an object the filter let in is
	 * followed there whatever its packet has become; not judged again.
	 */
	cfg.resolve.filter = NULL;
	if (!err && t->opts->track)
		err = track_run__targets(&t->track, &t->targets, k, &cfg);
	return err;
}

/*
 * --hist of a spec whose items are all predicates ("sys:read(return > 0)"):
 * it names no value, so durations are counted; said once per spec, with
 * the spec that would count the predicate's value instead.
 */
static void note_hist_durations(const struct trace *t)
{
	const struct spec *s;
	const struct target *tg;
	int i, j;

	for (i = 0; i < t->targets.n; i++) {
		tg = &t->targets.v[i];
		s = tg->spec;
		if (tg->plan.bpf.output != KSNOOP_OUT_HIST_DURATION || !s || s->nitems < 1)
			continue;
		for (j = 0; j < i && t->targets.v[j].spec != s; j++)
			;
		if (j < i)
			continue;	/* said for this spec */
		for (j = 0; j < s->nitems && !s->items[j].has_pred; j++)
			;
		if (j == s->nitems)
			continue;
		log_note("--hist: '%s' names no value, only predicates: counting call durations (to count '%s', name it too: \"%.*s, %s)\")",
			 s->text, s->items[j].text, (int)(strrchr(s->text, ')') - s->text), s->text,
			 s->items[j].text);
	}
}

/*
 * -v: how the kernel functions were attached, as the targets were (a
 * glob's matches may take kprobes where single functions took fentry):
 * "attached with fentry/fexit (2 functions), kprobe/kretprobe (356 functions)".
 */
static void say_attach_modes(const struct trace *t)
{
	int i, nfentry = 0, nkprobe = 0;
	char text[128];

	for (i = 0; i < t->targets.n; i++) {
		if (!t->targets.v[i].attached)
			continue;
		nfentry += t->targets.v[i].kind == ATTACH_FENTRY;
		nkprobe += t->targets.v[i].kind == ATTACH_KPROBE;
	}
	if (!nfentry && !nkprobe)
		return;
	text[0] = 0;
	if (nfentry)
		snprintf(text, sizeof(text), "fentry/fexit (%d function%s)", nfentry,
			 nfentry == 1 ? "" : "s");
	if (nkprobe)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%skprobe/kretprobe (%d function%s)", nfentry ? ", " : "", nkprobe,
			 nkprobe == 1 ? "" : "s");
	log_info("attached with %s", text);
}

/* Attach every target; on failure nothing stays attached. */
static int attach_all(struct trace *t, struct kernel *k, struct attacher **out,
		      struct ks_error *e)
{
	struct attacher *a = attacher__new(t->opts->buffer_bytes,
					   ringbuf_ahead__take(t->ringbuf_ahead));
	int err;

	if (!a)
		return ks_fail(e, -ENOMEM, "out of memory");
	attacher__set_filter(a, t->filter);
	if (t->opts->track_max)
		attacher__set_track_entries(a, t->opts->track_max);
	attacher__lend_vmlinux(a, kernel__running_vmlinux(k));
	err = attacher__attach_targets(a, &t->targets, t->opts->pid, e);
	if (err == -EINTR)
		log_note("stopped while attaching (%d of %d)", attacher__attached_so_far(a),
			 t->targets.n);
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

	for (i = 0; i < t->targets.n; i++)
		n += t->targets.v[i].attached;
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

	const struct target *tg = func_id < (__u32)t->targets.n ? &t->targets.v[func_id] : NULL;

	return !tg ? "?" : tg->label[0] ? tg->label : tg->plan.sig.name;
}

static struct hist_value hist_value_of(void *ctx, __u32 func_id)
{
	const struct trace *t = ctx;
	const struct capture_plan *p;

	if (func_id >= (__u32)t->targets.n)
		return (struct hist_value){ "?", "?", false, false };
	p = &t->targets.v[func_id].plan;
	return (struct hist_value){ p->hist_text, p->hist_label,
				   p->bpf.output == KSNOOP_OUT_HIST_DURATION, p->bpf.hist.is_signed };
}

static struct by_kind by_kind_of(void *ctx, __u32 func_id)
{
	const struct trace *t = ctx;
	const struct capture_plan *p;
	struct by_kind k;

	if (func_id >= (__u32)t->targets.n)
		return (struct by_kind){ .by = KSNOOP_BY_NONE };
	p = &t->targets.v[func_id].plan;
	k = (struct by_kind){
		.by = p->bpf.by,
		.is_signed = p->bpf.by_value.is_signed,
		.btf = p->ext_btf ? p->ext_btf : p->sig.btf,
		.desc = p->by_desc.type_id ? &p->by_desc : NULL,
	};
	while (k.nparts < KSNOOP_BY_PARTS && p->bpf.by_part[k.nparts]) {
		k.part[k.nparts] = p->bpf.by_part[k.nparts];
		k.off[k.nparts] = p->bpf.by_off[k.nparts];
		k.nparts++;
	}
	return k;
}

/* Whether FUNC_ID is a user function: its -s stack is its user stack. */
static bool target_is_ufunc(void *ctx, __u32 func_id)
{
	const struct trace *t = ctx;

	return func_id < (__u32)t->targets.n && t->targets.v[func_id].kind == ATTACH_UPROBE;
}

static const char *cgroup_name(void *ctx, __u64 id)
{
	return cgroup_names__get(ctx, id);
}

/* --count, --hist: the counts so far (CLEAR: and start the next period afresh). */
static int print_counts(struct trace *t, struct attacher *a, bool clear)
{
	struct counts_fmt fmt = {
		.stacks = t->opts->stack,
		.func_name = target_name,
		.ctx = t,
		.symbolize = t->printer.opts.symbolize,
		.sym_ctx = t->printer.opts.sym_ctx,
		.by = t->opts->by,
		.by_kind = by_kind_of,
		.cgroup_name = cgroup_name,
		.cgroup_ctx = t->cgroups,
		.exact_max = true,
		.scale = {
			.linear = t->opts->hist_step != 0,
			.min = t->opts->hist_min,
			.step = t->opts->hist_step,
			.nbuckets = t->opts->hist_nbuckets,
		},
		.ustacks = t->opts->ustack,
		.user_func = target_is_ufunc,
		.usymbolize = t->printer.opts.usymbolize,
		.usym_ctx = t->printer.opts.usym_ctx,
	};
	const struct counts_src src = { hist_value_of, t };
	struct count_row *rows;
	struct spec_by by;
	struct ks_error e;
	size_t n, i;
	int err;

	/* Checked when the option was parsed: its parts name the columns. */
	if (t->opts->by && spec__parse_by(t->opts->by, &by, &e) == 0) {
		for (fmt.nby = 0; fmt.nby < by.n; fmt.nby++)
			fmt.by_names[fmt.nby] = by.part[fmt.nby];
	}
	if (t->opts->by)
		err = counts__collect_by(attacher__by_counts_fd(a), clear, &src, &rows, &n);
	else
		err = counts__collect(attacher__counts_fd(a), attacher__stacks_fd(a), clear, &src,
				      &rows, &n);
	if (err) {
		log_error("reading the counts failed: %s", strerror(-err));
		return err;
	}
	for (i = 0; i < n; i++)
		t->counted += rows[i].count;
	if (t->opts->interval_ms)
		report__interval(&t->report, ++t->intervals, now_ns(CLOCK_MONOTONIC));
	if (t->opts->output == OUTPUT_HIST)
		err = counts__print_hist(&t->report, rows, n, &fmt, hist_value_of);
	else if (t->opts->output == OUTPUT_STATS)
		counts__print_stats(&t->report, rows, n, &fmt, hist_value_of);
	else
		counts__print(&t->report, rows, n, &fmt);
	free(rows);
	if (err) {
		log_error("printing the counts failed: %s", strerror(-err));
		return err;
	}
	if (fflush(stdout) || ferror(stdout))
		t->output_closed = true;
	return 0;
}

/* The lost-events notice, when LOST is more than the last one gave. */
static void notice_lost(struct trace *t, __u64 lost)
{
	if (lost > t->lost_seen)
		report__lost(&t->report, lost);
	t->lost_seen = lost;
}

/*
 * How long to wait for events: POLL_INTERVAL_MS, or less when --duration
 * ends or an --interval table is due sooner (rounded up, so the wait does
 * not end a little early and spin).
 */
static int poll_ms(const struct trace *t, __u64 now, __u64 start, __u64 next_interval)
{
	__u64 wait = POLL_INTERVAL_MS * 1000000ULL, end = start + t->opts->duration_ns;

	/* Past a deadline (the loop checks it after the wait): no wait. */
	if (t->opts->duration_ns)
		wait = end <= now ? 0 : end - now < wait ? end - now : wait;
	if (t->opts->interval_ms)
		wait = next_interval <= now ? 0 : next_interval - now < wait ? next_interval - now : wait;
	return (int)((wait + 999999) / 1000000);
}

static int run_loop(struct trace *t, struct attacher *a, struct ring_buffer *rb)
{
	__u64 start = now_ns(CLOCK_MONOTONIC), last_lost_check = start;
	__u64 last_block = start;
	__u64 next_interval = start + t->opts->interval_ms * 1000000ULL;
	int err = 0;

	t->check_at = start + POLL_INTERVAL_MS * 1000000ULL;
	while (!stop__requested()) {
		__u64 now = now_ns(CLOCK_MONOTONIC);

		err = ring_buffer__poll(rb, poll_ms(t, now, start, next_interval));
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
		now = now_ns(CLOCK_MONOTONIC);
		if (t->rec && !t->output_closed && now - last_block >= REC_BLOCK_INTERVAL_NS) {
			if (recfile_writer__flush(t->rec, &t->rec_err))
				t->output_closed = true;
			last_block = now;
		}
		if (t->output_closed || fflush(stdout) || ferror(stdout)) {
			t->output_closed = true;
			break;
		}
		if (t->pcap && flush_pcap(t))
			break;
		t->check_at = now + POLL_INTERVAL_MS * 1000000ULL;
		if (now - last_lost_check >= LOST_REPORT_INTERVAL_NS) {
			notice_lost(t, attacher__counter(a, KSNOOP_CNT_LOST));
			last_lost_check = now;
		}
		if (max_events_reached(t))
			break;
		if (t->opts->interval_ms && now >= next_interval) {
			if (print_counts(t, a, true) || t->output_closed)
				break;
			/* On the schedule; from now when printing took longer. */
			next_interval += t->opts->interval_ms * 1000000ULL;
			if (next_interval <= now)
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
 * After the loop: the gate closes (nothing new is captured, counters
 * stay as they are), what the buffer already holds is printed (up to a
 * second: enough to empty it, bounded under a flood or a slow reader),
 * what the programs still running wrote is counted (each record once:
 * cheap) as captured but not printed, then --count's totals.  The links
 * detach after the summary: hundreds take seconds, and nothing waits
 * for them.
 */
static int finish_run(struct trace *t, struct attacher *a, struct ring_buffer *rb)
{
	int err = attacher__set_gate(a, false);

	if (err)
		log_error("closing the programs' gate failed: %s; detaching first", strerror(-err));
	if (err)
		attacher__detach(a);
	err = 0;
	if (!t->output_closed && !stop__forced())
		drain(t, rb);
	if (stop__forced())
		log_info("a second signal: not waiting for the reader; what it has no room for is dropped");
	/* After -n only --group's frees: the rest are past what was asked for. */
	if (!t->output_closed && (!max_events_reached(t) || t->opts->group)) {
		t->discarding = true;
		drain(t, rb);
	}
	/* --group: objects not freed while traced, in the order they came. */
	while (!t->output_closed && group_print__end_one(&t->groups, &t->printer, plan_of, t))
		;
	/* Inner calls reach userspace only with a tree that prints: so 0 here. */
	if (t->opts->tree)
		log_info("--tree: %llu call(s) outside a printed tree reached userspace",
			 (unsigned long long)(t->tree.pending.dropped + t->tree.pending.n));
	/* --count: what is left (since the last --interval, or all). */
	if (t->opts->output != OUTPUT_EVENTS && !t->output_closed)
		err = print_counts(t, a, !!t->opts->interval_ms);
	if (fflush(stdout) || ferror(stdout))
		t->output_closed = true;
	return ks_runtime_errno(err);
}

/*
 * Every program, map and kprobe is a file descriptor: a glob over a few
 * hundred functions needs more than the usual soft limit of 1024.  The
 * soft limit goes up to the hard one; a run that needs more than that
 * (attacher__fds_needed()) is refused before anything loads, naming the
 * number, rather than failing after minutes of attaching.
 */
/* A glob's kernel functions attached with kprobes. */
static bool kprobe_glob(const struct trace *t)
{
	int i;

	for (i = 0; i < t->targets.n; i++)
		if (t->targets.v[i].from_glob && t->targets.v[i].kind == ATTACH_KPROBE)
			return true;
	return false;
}

static int raise_fd_limit(const struct trace *t)
{
	long need = attacher__fds_needed(&t->targets);
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_max == RLIM_INFINITY || (rlim_t)need <= rl.rlim_max)
		return 0;
	log_error("%d target%s need about %ld file descriptors, more than the hard limit of %llu (ulimit -Hn): raise it%s",
		  t->targets.n, t->targets.n == 1 ? "" : "s", need, (unsigned long long)rl.rlim_max,
		  kprobe_glob(t) && !kfeatures__get()->have[FEAT_KPROBE_MULTI] ?
		  " (a kprobe is two; with kprobe.multi, not on this kernel, a glob is one link a side)" : "");
	return -EMFILE;
}

/*
 * Every record must fit the ring buffer with its header, or every event
 * of that target would be lost: a usage error, before anything loads.
 */
static int check_buffer(const struct trace *t)
{
	int i, side;

	for (i = 0; i < t->targets.n; i++) {
		const struct ksnoop_plan *bp = &t->targets.v[i].plan.bpf;

		for (side = 0; side < KSNOOP_NR_KINDS; side++) {
			if (!bp->side[side].enabled ||
			    bp->side[side].rec_size + (__u64)BPF_RINGBUF_HDR_SZ <= t->opts->buffer_bytes)
				continue;
			log_error("--buffer %u is smaller than one record of '%s' (%u bytes with its header)",
				  t->opts->buffer_bytes, t->targets.v[i].spec->text,
				  bp->side[side].rec_size + BPF_RINGBUF_HDR_SZ);
			return -EINVAL;
		}
	}
	return 0;
}

/* The run's totals: what was printed (or counted), then what was not, and why. */
static void print_summary(struct trace *t, struct attacher *a)
{
	struct report_summary s = {
		.counting = t->opts->output != OUTPUT_EVENTS,
		.printed = t->printed,
		.lost = attacher__counter(a, KSNOOP_CNT_LOST),
		.counted = t->counted,
		.unprinted = t->unprinted,
		.count_full = attacher__counter(a, KSNOOP_CNT_COUNT_FULL),
		.hist_unread = attacher__counter(a, KSNOOP_CNT_HIST_UNREAD),
		.stack_lost = attacher__counter(a, KSNOOP_CNT_STACK_LOST),
		.stash_full = attacher__counter(a, KSNOOP_CNT_STASH_DROP),
		.missed = attacher__missed(a),
		.own = attacher__counter(a, KSNOOP_CNT_SELF),
		.session_stashed = attacher__counter(a, KSNOOP_CNT_SESSION_STASHED),
		.tree = t->opts->tree,
		.tree_dropped = attacher__counter(a, KSNOOP_CNT_TREE_DROP),
		.tree_exited = attacher__counter(a, KSNOOP_CNT_TREE_EXIT),
		.tree_exec = attacher__counter(a, KSNOOP_CNT_TREE_EXEC),
		.tree_no_room = attacher__counter(a, KSNOOP_CNT_TREE_NO_ROOM),
		.pairing = t->opts->pair,
		.pair_full = attacher__counter(a, KSNOOP_CNT_PAIR_FULL),
		.pair_unread = attacher__counter(a, KSNOOP_CNT_PAIR_UNREAD),
	};

	if (t->opts->track) {
		long alive = attacher__tracked_count(a);

		s.tracking = true;
		s.track_added = attacher__counter(a, KSNOOP_CNT_TRACK_ADDED);
		s.track_freed = attacher__counter(a, KSNOOP_CNT_TRACK_FREED);
		s.track_failed = attacher__counter(a, KSNOOP_CNT_TRACK_FAILED);
		s.track_alive = alive > 0 ? alive : 0;
		if (s.track_added > s.track_freed + s.track_alive)
			s.track_evicted = s.track_added - s.track_freed - s.track_alive;
	}

	/*
	 * Losses since the last notice get theirs now: a run shorter than the
	 * notices' interval, or a loaded machine, must not lose it.
	 */
	notice_lost(t, s.lost);
	report__summary(&t->report, &s);
	if (fflush(stdout) || ferror(stdout))
		t->output_closed = true;
}

/* record: the file's END (or, after a write failed, why it has none). */
static int finish_recording(struct trace *t, struct attacher *a)
{
	struct recfile_totals tot = {
		.lost = attacher__counter(a, KSNOOP_CNT_LOST),
		.unwritten = t->unprinted,
		.stash_full = attacher__counter(a, KSNOOP_CNT_STASH_DROP),
		.stack_lost = attacher__counter(a, KSNOOP_CNT_STACK_LOST),
		.missed = attacher__missed(a),
		.end_ns = now_ns(CLOCK_REALTIME),
		.tree_dropped = attacher__counter(a, KSNOOP_CNT_TREE_DROP),
		.tree_exited = attacher__counter(a, KSNOOP_CNT_TREE_EXIT),
		.tree_exec = attacher__counter(a, KSNOOP_CNT_TREE_EXEC),
		.tree_no_room = attacher__counter(a, KSNOOP_CNT_TREE_NO_ROOM),
	};
	int err = t->rec_err.err;

	/* --track: the live summary's object counters, for report's (format 7). */
	if (t->opts->track) {
		long alive = attacher__tracked_count(a);

		tot.track_added = attacher__counter(a, KSNOOP_CNT_TRACK_ADDED);
		tot.track_freed = attacher__counter(a, KSNOOP_CNT_TRACK_FREED);
		tot.track_failed = attacher__counter(a, KSNOOP_CNT_TRACK_FAILED);
		tot.track_alive = alive > 0 ? alive : 0;
	}

	if (!err)
		err = record__finish(t->rec, t->opts->record_path, &tot, &t->rec_err);
	if (err)
		log_ks_error(&t->rec_err);
	return err;
}

/* After the targets are resolved: attach, run, summarise; 0 or a negative errno. */
/* What must hold before anything loads: the buffer, and what this kernel can attach. */
static int check_run(const struct trace *t)
{
	struct ks_error e;
	int ret = check_buffer(t);

	if (ret)
		return ret;
	ret = kfeatures__check_run(kfeatures__get(), has_kernel_funcs(t), t->mode, &e);
	if (ret)
		log_ks_error(&e);
	return ret;
}

/* Attaching failed in MODE with E (FENTRY_E: why fentry was refused before): said once. */
static int attach_failed(const struct trace *t, enum attach_mode mode, int err,
			 const struct ks_error *e, const struct ks_error *fentry_e)
{
	if (mode == MODE_KPROBE && has_kernel_funcs(t) && !kfeatures__get()->have[FEAT_KPROBES]) {
		log_error("cannot trace kernel functions on this kernel: kprobes are not available (CONFIG_KPROBES is off); tracepoints (tp:NAME) and USDT probes still work");
		return -EOPNOTSUPP;
	}
	if (fentry_e && fentry_e->err)
		log_error("%s (fentry was refused too: %s)", e->msg, fentry_e->msg);
	else
		log_ks_error(e);
	return err;
}

/*
 * fentry refused (FENTRY_E): the targets built again for kprobes, which
 * need plans without args at return, and attached.  0 with *A set, or a
 * negative errno, said.
 */
static int fall_back_to_kprobes(struct trace *t, struct kernel *k, const struct ks_error *fentry_e,
				struct attacher **a)
{
	struct ks_error e;
	int err;

	log_info("fentry/fexit failed (%s); trying kprobes", fentry_e->msg);
	err = build_targets(t, k, MODE_KPROBE);
	if (err)
		return err;
	if (!kfeatures__get()->have[FEAT_KPROBES]) {
		log_error("cannot trace kernel functions on this kernel: fentry was refused (%s) and kprobes are not available (CONFIG_KPROBES is off); tracepoints (tp:NAME) and USDT probes still work",
			  fentry_e->msg);
		return -EOPNOTSUPP;
	}
	err = attach_all(t, k, a, &e);
	return err ? attach_failed(t, MODE_KPROBE, err, &e, fentry_e) : 0;
}

/*
 * Every target attached, kernel functions in *MODE, or with kprobes
 * where fentry was refused in MODE_AUTO (*MODE then says so).  0 with *A
 * set; 1: asked to stop before everything attached (nothing to do); or
 * a negative errno, said.
 */
static int attach_or_fall_back(struct trace *t, struct kernel *k, enum attach_mode *mode,
			       struct attacher **a)
{
	struct ks_error e;
	int err = attach_all(t, k, a, &e);

	if (err == -EINTR)
		return 1;
	if ((err == -EPERM || err == -EACCES) && geteuid() != 0) {
		log_error("%s: ksnoop needs root, or CAP_BPF and CAP_PERFMON", e.msg);
		return err;
	}
	/* Out of descriptors or memory: the mode is not at fault, another would fail too. */
	if (err && *mode == MODE_AUTO && has_kernel_funcs(t) && !attacher__exhausted(err)) {
		*mode = MODE_KPROBE;
		return fall_back_to_kprobes(t, k, &e, a);
	}
	return err ? attach_failed(t, *mode, err, &e, NULL) : 0;
}

/* Whether a spec is a user function's (whose -s is its user stack). */
static bool has_ufunc(const struct trace *t)
{
	for (int i = 0; i < t->nspecs; i++)
		if (t->specs[i].kind == SPEC_UFUNC)
			return true;
	return false;
}

/* Attached in MODE: what -v says, and what must be done before the first event. */
static int attached(struct trace *t, struct kernel *k, struct attacher *a, enum attach_mode mode)
{
	struct ks_error e;
	int ret, n;

	attacher__log_cost(a);
	note_hist_durations(t);
	/*
	 * Attaching made the tracer's own symbols (bpf_trampoline_*, bpf_prog_*
	 * [bpf]): kernel stacks are named from a kallsyms read after it, or a
	 * trampoline's frame takes the name of whatever symbol precedes it.
	 */
	if (t->opts->stack)
		kernel__reread_ksyms(k);
	say_attach_modes(t);
	/* A process that exits at once still has its user stacks named by object and offset. */
	if ((t->opts->ustack || t->opts->stack) && t->opts->pid && t->printer.opts.usym_ctx)
		usym__remember(t->printer.opts.usym_ctx, t->opts->pid);
	if (t->rec) {
		ret = record__begin(t->rec, &t->targets, t->specs, t->nspecs, t->opts,
				    t->specs[0].kind == SPEC_USDT,
				    t->printer.opts.clock_offset_ns, &e);
		if (ret) {
			log_ks_error(&e);
			return ret;
		}
	}
	ret = attacher__set_gate(a, true);
	if (ret) {
		log_error("opening the programs' gate failed: %s", strerror(-ret));
		return ks_runtime_errno(ret);
	}
	/* Every link attached: what comes now is whole (a tree, an object's story). */
	n = count_attached(t);
	/* With -j, stdout is the one stream and stderr stays quiet but for -v. */
	if (log_json)
		log_info("tracing %d target%s; Ctrl-C to stop", n, n == 1 ? "" : "s");
	else
		log_note("tracing %d target%s; Ctrl-C to stop", n, n == 1 ? "" : "s");
	return 0;
}

/* Events read from A's ring buffer until the run ends, then the totals. */
static int consume(struct trace *t, struct attacher *a)
{
	struct ring_buffer *rb = ring_buffer__new(attacher__ringbuf_fd(a), handle_event, t, NULL);
	int ret;

	if (!rb) {
		ret = -errno;
		log_error("failed to set up the ring buffer: %s", strerror(-ret));
		return ks_runtime_errno(ret);
	}
	ret = run_loop(t, a, rb);
	ret = ks_worse(ret, finish_run(t, a, rb));
	ring_buffer__free(rb);
	/* After a failure, its message is the last word: no totals that look like a result. */
	if (t->rec)
		ret = ks_worse(ret, finish_recording(t, a));
	else if (!t->output_closed && !ret)
		print_summary(t, a);
	attacher__detach(a);
	return ret;
}

static int trace_run(struct trace *t, struct kernel *k)
{
	enum attach_mode mode = t->mode;
	struct attacher *a = NULL;
	int ret;

	ret = check_run(t);
	if (ret)
		return ret;
	ret = raise_fd_limit(t);
	if (ret)
		return ret;
	ret = attach_or_fall_back(t, k, &mode, &a);
	if (ret)
		return ret > 0 ? 0 : ret;
	ret = attached(t, k, a, mode) ?: consume(t, a);
	attacher__free(a);
	return ret;
}

static int usymbolize(void *ctx, __u32 pid, __u64 addr, char *buf, size_t sz)
{
	return usym__symbolize(ctx, pid, addr, buf, sz);
}

/*
 * KSNOOP_SYS_RAW_MIN=N: how many calls a sys: glob must exceed to attach
 * on raw_syscalls (groups__raw_syscalls()); unset: SYS_RAW_MIN_DEFAULT.
 */
static int sys_raw_min(struct trace *t, struct ks_error *e)
{
	const char *env = getenv(SYS_RAW_MIN_ENV);
	char *end;
	long v;

	t->sys_raw_min = SYS_RAW_MIN_DEFAULT;
	if (!env)
		return 0;
	errno = 0;
	v = strtol(env, &end, 10);
	if (errno || end == env || *end || v < 0 || v > INT_MAX)
		return ks_fail(e, -EINVAL, SYS_RAW_MIN_ENV ": '%.32s' is not a number of calls (0 or more)",
			       env);
	t->sys_raw_min = v;
	return 0;
}

/* What the kernel can do decides how targets attach: known before they resolve. */
static int probe_features(struct trace *t, const struct btf *vmlinux)
{
	struct ks_error e;
	int err = kfeatures__probe(vmlinux, has_kernel_funcs(t),
				   ringbuf_ahead__features(t->ringbuf_ahead), &e) ?:
		  sys_raw_min(t, &e);

	if (err) {
		log_ks_error(&e);
		return err;
	}
	t->mode = kfeatures__attach_mode(kfeatures__get(), t->opts->mode);
	return 0;
}

/*
 * --tree: a root and at least one inner function, all kernel functions
 * (sys: and tracepoints have no place in a tree yet; USDT probes are
 * user code).
 */
static int check_tree(const struct trace *t, enum spec_kind kind)
{
	int i;

	if (!t->opts->tree)
		return 0;
	if (kind == SPEC_USDT) {
		log_error("--tree: USDT probes cannot be in a call tree; trees are of kernel functions");
		return -EINVAL;
	}
	if (t->nspecs < 2) {
		log_error("--tree: expected a ROOT function and at least one INNER function");
		return -EINVAL;
	}
	for (i = 0; i < t->nspecs; i++) {
		const struct spec *s = &t->specs[i];

		/*
		 * Functions, kernel or user (a user function's uprobes run in
		 * its task, as the kernel functions it calls do); tracepoints
		 * are leaves; a sys: call's entry and exit, not yet.
		 */
		if (s->kind == SPEC_KFUNC || s->kind == SPEC_UFUNC ||
		    (i && s->kind == SPEC_TP && !spec__is_syscall(s)))
			continue;
		log_error("--tree: '%s' is not a kernel or user function%s; a tree's %s",
			  s->text, i ? " or tracepoint" : "",
			  i ? "INNER may be a function or a tracepoint" : "ROOT must be a function");
		return -EINVAL;
	}
	return 0;
}


/* The command line's own errors, before anything is set up. */
static int check_args(int argc, const struct options *opts, enum spec_kind kind)
{
	if (argc < 1) {
		log_error("expected at least one %s (see --help)",
			  kind == SPEC_USDT ? "BINARY:PROVIDER:NAME" : "SPEC");
		return -EINVAL;
	}
	if (kind == SPEC_USDT && opts->ustack) {
		log_error("--ustack: a USDT probe's stack (-s) is its program's user stack already");
		return -EINVAL;
	}
	return 0;
}

/*
 * The printer and the report (printing.h), and what the run keeps beside
 * them.  Kernel stacks and :sym are named from K's kallsyms, for kernel
 * targets only (a USDT program's code addresses are its own); USDT
 * stacks and --ustack from the traced processes' objects.  0 or -ENOMEM.
 */
static int setup_output(struct trace *t, struct kernel *k, enum spec_kind kind)
{
	const struct options *o = t->opts;
	struct print_opts popts = printing__opts(o, k, kind != SPEC_USDT,
						 (__s64)(now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC)));

	popts.usymbolize = usymbolize;
	t->cgroups = cgroup_names__new();
	if (!t->cgroups)
		return -ENOMEM;
	if (o->show_cgroup) {
		popts.cgroup_name = cgroup_name;
		popts.cgroup_ctx = t->cgroups;
	}
	if (((kind == SPEC_USDT && o->stack) || o->ustack) && !(popts.usym_ctx = usym__new(NULL)))
		return -ENOMEM;
	printing__init(&t->printer, &t->report, stdout, o, &popts);
	/* As many open groups as BPF's set holds objects: past that, one left it. */
	group_print__init(&t->groups, o->track_max ?: KSNOOP_TRACK_DEFAULT_ENTRIES);
	find_pid_namespace(t);
	return 0;
}

/* Spec errors first: they need no kernel at all.  0, or a negative errno, said. */
/*
 * --pair: two specs, START and END, each an event without a return (a
 * tracepoint, a USDT probe): a function's own entry and return are paired
 * already (-L, --hist).
 */
static int check_pair(const struct trace *t)
{
	int i;

	if (!t->opts->pair)
		return 0;
	if (t->nspecs != 2) {
		log_error("--pair: expected two specs, START and END; %d given", t->nspecs);
		return -EINVAL;
	}
	for (i = 0; i < t->nspecs; i++) {
		const struct spec *s = &t->specs[i];

		if (s->kind == SPEC_USDT || (s->kind == SPEC_TP && !spec__is_syscall(s)))
			continue;
		log_error("--pair: '%s' is not a tracepoint or USDT probe; a function's entry and return are paired already (-L, --hist)",
			  s->text);
		return -EINVAL;
	}
	return 0;
}

static int check_specs(struct trace *t, char **argv, enum spec_kind kind)
{
	const struct options *o = t->opts;
	struct ks_error e;
	int i, ret;

	for (i = 0; i < t->nspecs; i++) {
		ret = spec__parse(argv[i], kind, &t->specs[i], &e);
		if (ret) {
			e.err = ret;	/* -ENOMEM comes without a message */
			targets__log_error(argv[i], &e);
			return ret;
		}
	}
	/* --pair: -L is the latency between its two events. */
	ret = check_pair(t) ?:
	      targets__check_min_duration(t->specs, t->nspecs, o->pair ? 0 : o->min_duration_ns) ?:
	      check_tree(t, kind);
	/* A user function's -s is its user stack, named as --ustack's are. */
	if (!ret && o->stack && !t->printer.opts.usym_ctx && has_ufunc(t) &&
	    !(t->printer.opts.usym_ctx = usym__new(NULL))) {
		log_error("out of memory");
		ret = -ENOMEM;
	}
	if (ret || !o->track)
		return ret;
	t->track.name = o->track;
	ret = track__check_specs(o->track, t->specs, t->nspecs, t->track.type,
				 sizeof(t->track.type), &e);
	if (ret)
		log_ks_error(&e);
	return ret;
}

/* record: an existing file is refused before anything is loaded. */
static int open_recording(struct trace *t)
{
	struct ks_error e;

	if (!t->opts->recording)
		return 0;
	t->rec = recfile_writer__open(t->opts->record_path, t->opts->force, &e);
	if (t->rec)
		return 0;
	log_ks_error(&e);
	return e.err;
}

/*
 * Where the specs' names are looked up: USDT probes in their files, the
 * rest in the running kernel (K opened); the kernel's features probed
 * either way.  0, or a negative errno, said.
 */
static int open_sources(struct trace *t, struct kernel *k, enum spec_kind kind)
{
	const struct options *o = t->opts;
	struct ks_error e;
	int ret;

	t->ringbuf_ahead = ringbuf_ahead__start(o->buffer_bytes, has_kernel_funcs(t));
	/* u: specs, and USDT specs' variables, are typed by the user functions' front end. */
	for (int i = 0; i < t->nspecs && !t->ufunc; i++)
		if ((t->specs[i].kind == SPEC_UFUNC || spec__reads_vars(&t->specs[i])) &&
		    !(t->ufunc = ufunc_front__new())) {
			log_error("out of memory");
			return -ENOMEM;
		}
	if (kind == SPEC_USDT) {
		t->usdt = usdt_front__new(o->btf_file);
		if (!t->usdt) {
			log_error("out of memory");
			return -ENOMEM;
		}
		return probe_features(t, NULL);
	}
	targets__prefetch(k, t->specs, t->nspecs);
	ret = kernel__open(k, &e);
	if (ret) {
		log_ks_error(&e);
		return ret;
	}
	ret = probe_features(t, kernel__running_vmlinux(k));
	if (!ret && o->track)
		ret = track_run__extra_specs(&t->track, k, o->untrack, o->nuntrack,
					     has_kernel_funcs(t));
	return ret;
}

/*
 * --filter: compiled once, before anything of the kernel is read (a
 * filter libpcap refuses is the user's to fix first); what packets
 * without an Ethernet header meet said with -v.
 */
static int compile_filter(struct trace *t)
{
	__u32 snaplen = t->opts->snaplen ?: KSNOOP_DEFAULT_SNAPLEN;
	struct ks_error e = {};

	if (!t->opts->filter)
		return 0;
	t->filter = calloc(1, sizeof(*t->filter));
	if (!t->filter) {
		log_error("out of memory");
		return -ENOMEM;
	}
	if (pfilter__compile(t->opts->filter, snaplen, t->filter, &e)) {
		log_ks_error(&e);
		return e.err;
	}
	if (t->filter->ninsns[KSNOOP_CBPF_RAW])
		log_info("--filter: %u instructions for Ethernet frames, %u for raw IP, over %u bytes, %u in eBPF",
			 t->filter->ninsns[KSNOOP_CBPF_ETHERNET], t->filter->ninsns[KSNOOP_CBPF_RAW],
			 snaplen, t->filter->code_len);
	else
		log_info("--filter: %u instructions for Ethernet frames, %u in eBPF; packets without an Ethernet header never pass (raw IP: %s)",
			 t->filter->ninsns[KSNOOP_CBPF_ETHERNET], t->filter->code_len, t->filter->raw_why);
	return 0;
}

/*
 * --pcap: some target must have a packet to write (a struct sk_buff *
 * the resolver found); then the file, before anything is loaded.
 */
static int open_pcap(struct trace *t)
{
	struct ks_error e;
	int i;

	if (!t->opts->pcap_path)
		return 0;
	for (i = 0; i < t->targets.n; i++)
		if (t->targets.v[i].plan.bpf.flags & KSNOOP_PLAN_PACKET)
			break;
	if (i == t->targets.n) {
		log_error("--pcap: no spec binds a struct sk_buff * (a function or tracepoint taking one: \"tp:net_dev_queue(skb)\", \"*(struct sk_buff *s)\")");
		return -EINVAL;
	}
	t->pcap = pcap_events__open(t->opts->pcap_path, t->printer.opts.clock_offset_ns, &e);
	if (t->pcap)
		return 0;
	log_ks_error(&e);
	return e.err;
}

/* --pcap: the file closed (after the last event), and what went into it said with -v. */
static int close_pcap(struct trace *t)
{
	struct ks_error e;
	int err;

	if (!t->pcap)
		return 0;
	log_info("--pcap: %llu packets written to '%s'; %llu left out (no header set, or more than %d interfaces)",
		 (unsigned long long)pcap_events__written(t->pcap), t->opts->pcap_path,
		 (unsigned long long)pcap_events__skipped(t->pcap), PCAPNG_MAX_IFACES);
	err = pcap_events__close(t->pcap, &e);
	t->pcap = NULL;
	if (err)
		log_ks_error(&e);
	return ks_worse(t->pcap_err, err);
}

static void trace_free(struct trace *t, struct kernel *k)
{
	int i;

	for (i = 0; i < t->nspecs; i++)
		spec__free(&t->specs[i]);
	free(t->specs);
	track_run__free(&t->track);
	group_print__free(&t->groups);
	/* Plans may hold BTF on top of the targets' own: freed first. */
	targets__free(&t->targets);
	usdt_front__free(t->usdt);
	ufunc_front__free(t->ufunc);
	tree_print__free(&t->tree);
	usym__free(t->printer.opts.usym_ctx);
	printer__fini(&t->printer);
	cgroup_names__free(t->cgroups);
	kernel__free(k);
	ringbuf_ahead__free(t->ringbuf_ahead);
	recfile_writer__free(t->rec);
	free(t->filter);
}

static int trace_main(int argc, char **argv, const struct options *opts, enum spec_kind kind)
{
	struct trace t = { .opts = opts, .nspecs = argc };
	struct kernel *k;
	int ret;

	ret = check_args(argc, opts, kind);
	if (ret)
		return ret;
	t.specs = calloc(argc, sizeof(*t.specs));
	k = kernel__new(opts->btf_dir);
	if (!t.specs || !k || setup_output(&t, k, kind)) {
		free(t.specs);
		kernel__free(k);
		log_error("out of memory");
		return -ENOMEM;
	}
	ret = check_specs(&t, argv, kind) ?: compile_filter(&t) ?: open_recording(&t) ?:
	      open_sources(&t, k, kind) ?:
	      build_targets(&t, k, t.mode) ?: open_pcap(&t) ?: trace_run(&t, k);
	ret = ks_worse(ret, close_pcap(&t));
	/* Asked to stop before tracing began: nothing attached, nothing wrong. */
	if (ret == -EINTR && stop__requested()) {
		log_info("stopped before tracing began");
		ret = 0;
	}
	trace_free(&t, k);
	return ret;
}

/* `record -o FILE [usdt] SPEC...`: a trace whose sink is the file. */
int do_record(int argc, char **argv, const struct options *opts)
{
	struct options o = *opts;
	enum spec_kind kind = SPEC_KFUNC;

	if (argc && (!strcmp(argv[0], "usdt") || !strcmp(argv[0], "trace"))) {
		kind = !strcmp(argv[0], "usdt") ? SPEC_USDT : SPEC_KFUNC;
		argc--;
		argv++;
	}
	o.recording = true;
	if (record__check_options(&o))
		return -EINVAL;
	record__aggregate_later(&o);
	return trace_main(argc, argv, &o, kind);
}

int do_trace(int argc, char **argv, const struct options *opts)
{
	return trace_main(argc, argv, opts, SPEC_KFUNC);
}

int do_usdt(int argc, char **argv, const struct options *opts)
{
	return trace_main(argc, argv, opts, SPEC_USDT);
}
