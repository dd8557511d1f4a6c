// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "btf_lend.h"
#include "klayout.h"
#include "prune_hook.h"
#include "kfeatures.h"
#include "log.h"
#include "stop.h"
#include "sharing.h"
#include "sysnr.h"
#include "usdt_specs.h"
#include "pfilter.h"
#include "units.h"
#include "ksnoop.skel.h"

/* One USDT probe of a group: PROVIDER:NAME in the file at PATH. */
struct attach_usdt {
	const char *path;	/* to open (/proc/self/fd/N) */
	const char *shown;	/* the file as messages name it */
	const char *provider;
	const char *name;
	__u32 func_id;		/* its target: the USDT cookie of its sites */
	int nsites;		/* its call sites */
	bool own;		/* libbpf refuses it: ksnoop attaches its sites */
};

/*
 * One function of a group and its func_id; with per-function values
 * (KSNOOP_PLAN_FUNC_VALUES), what its values are.
 */
struct attach_func {
	const char *name;
	__u32 func_id;
	const struct ksnoop_func_values *values;
};

struct attacher {
	__u32 ringbuf_bytes;
	int ringbuf_fd;		/* from the first instance, -1 before */
	int ahead_fd;		/* the ring buffer made ahead (ringbuf_ahead.h), or -1 */
	int counters_fd;
	int gate_fd;		/* open: every link attached, the run not stopped (plan.bpf.h) */
	int counts_fd;		/* --count: calls per function (and stack) */
	int stacks_fd;
	int by_counts_fd;	/* --by: counts per (function, key, bucket) */
	bool counts_percpu;	/* those two per CPU: no uprobe program in the run (agg.bpf.h) */
	int pair_starts_fd;	/* --pair: the STARTs' times, by key (pair.bpf.h) */
	int sessions_fd;	/* --tree: the session of each task in one */
	int tree_buf_fd;	/* --tree: their calls, until their roots return */
	bool tree_exit;		/* --tree: the programs that end an exiting (exec'ing) task's session are attached */
	bool uprobe_stack_said;	/* -v told where uprobe programs' stack is (kfeatures__uprobe_stack()) */
	int tracked_fd;		/* --track: the objects followed */
	int track_stories_fd;	/* --track: the next story's number */
	__u32 track_entries;	/* --track-max: the set's size */
	const struct pfilter *filter;	/* --filter: its code (NULL: none) */
	/* --filter: each capture unit's bytes with its code in (NULL before its first instance) */
	void *filter_elf[KSNOOP_UNITS + 1];
	size_t filter_elf_size[KSNOOP_UNITS + 1];
	struct ksnoop_bpf **skels;
	int nskels;
	/* Links of groups: one program, a link per function (or one multi link). */
	struct bpf_link **links;
	/* follows[i]: links[i] is destroyed after links[i - 1], on its thread. */
	bool *follows;
	int nlinks;
	/*
	 * uprobe.session links, as the kernel's fds: libbpf 1.5 makes none
	 * (kfeatures__uprobe_session_link()); closing one detaches it.
	 */
	int *session_fds;
	int nsession_fds;
	/*
	 * Programs of released instances (release_instance()): their fds,
	 * kept for the missed-calls count; their links are in links.
	 */
	int *prog_fds;
	int nprog_fds;
	/* What attaching cost, for -v: programs loaded, and the time in it. */
	int nloaded;
	double load_s;
	int nattached;		/* targets attached so far (a Ctrl-C's "150 of 1451") */
	bool keep_said;		/* -v said where entry values wait (once a run) */
	double start_s;		/* when the attacher was made */
	const struct btf *vmlinux;	/* lent to libbpf's loads (btf_lend.h), or NULL */
	/* The kernel's fields the programs read (klayout.h): looked up once, else zeros. */
	struct ksnoop_kfields kfields;
	int nkfields;		/* how many were found; -1: not looked up */
	int nprefilter;		/* instances testing their first predicate first, for -v */
};

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct attacher *attacher__new(__u32 ringbuf_bytes, int ringbuf_fd)
{
	struct attacher *a = calloc(1, sizeof(*a));

	if (!a) {
		if (ringbuf_fd >= 0)
			close(ringbuf_fd);
		return NULL;
	}
	a->ringbuf_bytes = ringbuf_bytes;
	a->ahead_fd = ringbuf_fd;
	a->start_s = now_mono();
	a->ringbuf_fd = -1;
	a->counters_fd = -1;
	a->gate_fd = -1;
	a->counts_fd = -1;
	a->stacks_fd = -1;
	a->by_counts_fd = -1;
	a->pair_starts_fd = -1;
	a->sessions_fd = a->tree_buf_fd = -1;
	a->tracked_fd = -1;
	a->track_stories_fd = -1;
	a->track_entries = KSNOOP_TRACK_DEFAULT_ENTRIES;
	a->nkfields = -1;
	/* Without it every program is loaded whole: slower, the same. */
	if (prune_hook__register())
		log_detail("BPF code not pruned: libbpf took no section handler");
	return a;
}

/*
 * Detaching waits: each uprobe (and kprobe) link waits for the kernel's
 * readers of the probe to be done (an SRCU or RCU grace period, tens of
 * milliseconds), one after another on one thread: 42 USDT probes took a
 * second and a half to let go.  Links are independent, and waits that
 * overlap share grace periods, so they are destroyed from a few threads
 * at once.  Not so the USDT links of one program: libbpf hands their
 * spec ids back to the program's USDT manager without a lock, so they go
 * one after another on one thread (a unit).  The threads take no
 * signals: SIGINT stays the main thread's.  Links of perf events (a
 * syscall tracepoint, or a kprobe or uprobe each where the kernel has no
 * .multi) gain little: the kernel closes those one at a time under its
 * event_mutex, each waiting for tracepoint_synchronize_unregister() (360
 * syscall links: 16-19 s from 17 threads, 24 s from 2; 200 uprobes no
 * faster: bench/syscalls.md).  Only fewer links help there.
 */
#define DETACH_THREADS	16

struct detach_work {
	struct bpf_link **links;
	int *units;		/* unit u is links[units[u]] up to links[units[u + 1]] */
	int nunits;
	int next;		/* the next unit, taken with __atomic_fetch_add */
};

static void *detach_worker(void *arg)
{
	struct detach_work *w = arg;
	int u, i;

	while ((u = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->nunits)
		for (i = w->units[u]; i < w->units[u + 1]; i++)
			bpf_link__destroy(w->links[i]);
	return NULL;
}

static void destroy_units(struct detach_work *w)
{
	pthread_t th[DETACH_THREADS];
	int i, nth = 0;

	for (i = 0; i < DETACH_THREADS && i < w->nunits - 1; i++)
		if (stop__thread_create(&th[nth], detach_worker, w) == 0)
			nth++;
	detach_worker(w);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
}

/* Every link of every instance, taken out of the skeletons, in units. */
static int take_links(struct attacher *a, struct detach_work *w)
{
	int per = sizeof(a->skels[0]->links) / sizeof(struct bpf_link *);
	size_t max = a->nlinks + (size_t)a->nskels * per + 1;
	struct bpf_link **v = calloc(max, sizeof(*v));
	int *units = calloc(max + 1, sizeof(*units));
	int i, j, n = 0, nu = 0;

	if (!v || !units) {
		free(v);
		free(units);
		return -ENOMEM;
	}
	for (i = 0; i < a->nlinks; i++) {
		if (!a->follows[i])
			units[nu++] = n;
		v[n++] = a->links[i];
	}
	a->nlinks = 0;
	for (i = 0; i < a->nskels; i++) {
		struct bpf_link **sl = (struct bpf_link **)&a->skels[i]->links;

		for (j = 0; j < per; j++) {
			if (sl[j]) {
				units[nu++] = n;
				v[n++] = sl[j];
			}
			sl[j] = NULL;
		}
	}
	units[nu] = n;
	*w = (struct detach_work){ .links = v, .units = units, .nunits = nu };
	return 0;
}

/* The uprobe.session links: closed one after another (each waits for its uprobes' readers). */
static int close_session_links(struct attacher *a)
{
	int i, n = a->nsession_fds;

	for (i = n - 1; i >= 0; i--)
		close(a->session_fds[i]);
	a->nsession_fds = 0;
	return n;
}

void attacher__detach(struct attacher *a)
{
	double t0 = now_mono();
	struct detach_work w;
	int i, n;

	if (!a)
		return;
	n = close_session_links(a);
	if (take_links(a, &w) == 0) {
		destroy_units(&w);
		n += w.units[w.nunits];
		free(w.links);
		free(w.units);
	}
	if (n > 1)
		log_info("%d links detached in %.2f s", n, now_mono() - t0);
	/* Out of memory: the skeletons destroy their own links, one by one. */
	for (i = a->nlinks - 1; i >= 0; i--)
		bpf_link__destroy(a->links[i]);
	a->nlinks = 0;
}

void attacher__free(struct attacher *a)
{
	int i;

	if (!a)
		return;
	attacher__detach(a);
	free(a->links);
	free(a->follows);
	free(a->session_fds);
	for (i = a->nskels - 1; i >= 0; i--)
		ksnoop_bpf__destroy(a->skels[i]);
	free(a->skels);
	for (i = 0; i <= KSNOOP_UNITS; i++)
		free(a->filter_elf[i]);
	for (i = 0; i < a->nprog_fds; i++)
		close(a->prog_fds[i]);
	free(a->prog_fds);
	if (a->ahead_fd >= 0)
		close(a->ahead_fd);
	free(a);
}

bool attacher__exhausted(int err)
{
	return err == -ENOMEM || err == -EMFILE || err == -ENFILE;
}

/*
 * What ERR says, for a message (BUF: SZ bytes, if needed): out of file
 * descriptors names the limit that ran out, rather than "Too many open
 * files".
 */
static const char *err_text(int err, char *buf, size_t sz)
{
	struct rlimit rl;

	if (err != -EMFILE)
		return strerror(-err);
	snprintf(buf, sz, "out of file descriptors (the limit is %ld open files: ulimit -n)",
		 getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (long)rl.rlim_cur : -1L);
	return buf;
}

#define ERR_TEXT_MAX	96

/* The kernel or libbpf refused: a runtime failure, whatever the errno. */
static int attach_fail(struct ks_error *e, int err, const char *what, const char *target)
{
	char buf[ERR_TEXT_MAX];

	return ks_fail(e, ks_runtime_errno(err), "failed to %s '%s': %s", what, target,
		       err_text(err, buf, sizeof(buf)));
}

static int attach_stopped(struct ks_error *e)
{
	return ks_fail(e, -EINTR, "interrupted while attaching");
}

/* The entry record goes to the stash: whenever the return side needs it. */
static bool uses_stash(const struct ksnoop_plan *bp)
{
	return bp->side[KSNOOP_ENTRY].flags & (KSNOOP_SIDE_STASH | KSNOOP_SIDE_RETRY);
}

/*
 * The bytes of `blank` (scratch.bpf.h), the zeroes new elements start
 * from: the stash's entry records, a tree's calls waiting in tree_buf
 * (its inner instances), its sessions (its root's).
 */
static __u32 blank_size(const struct ksnoop_plan *bp)
{
	__u32 size = uses_stash(bp) || bp->tree == KSNOOP_TREE_INNER ?
		     bp->side[KSNOOP_ENTRY].rec_size : 8;

	if (bp->tree == KSNOOP_TREE_INNER && 8 + bp->tree_rec_size > size)
		size = 8 + bp->tree_rec_size;
	if (bp->tree == KSNOOP_TREE_ROOT && sizeof(struct ksnoop_tree_session) > size)
		size = sizeof(struct ksnoop_tree_session);
	return size;
}

/*
 * Entry values wait for the return in session slots: a kprobe plan with
 * a stash, attached through a kprobe.multi link (MULTI), where the kernel
 * has kprobe.session, an fentry plan where it has fsession, or a user
 * function's through a uprobe.multi link (MULTI) where it has
 * uprobe.session, and the plan fits (kfeatures.h).
 */
static bool uses_session(const struct capture_plan *plan, enum attach_kind kind, bool multi)
{
	const char *why;

	return (((kind == ATTACH_KPROBE || kind == ATTACH_UPROBE) && multi) || kind == ATTACH_FENTRY) &&
	       kfeatures__entry_keep(kfeatures__get(), kind, &plan->bpf, &why) == KEEP_SESSION;
}

/* The name of KIND's session, for -v. */
static const char *session_name(enum attach_kind kind)
{
	return kind == ATTACH_FENTRY ? "fsession" :
	       kind == ATTACH_UPROBE ? "uprobe.session" : "kprobe.session";
}

/* -v, once a run: where entry values reported with the return wait, and why there. */
static void say_entry_keep(struct attacher *a, const struct capture_plan *plan,
			   enum attach_kind kind)
{
	const char *why;
	enum entry_keep keep = kfeatures__entry_keep(kfeatures__get(), kind, &plan->bpf, &why);

	if (a->keep_said || keep == KEEP_NONE || (keep == KEEP_STASH && !why))
		return;
	a->keep_said = true;
	if (keep == KEEP_SESSION)
		log_info("entry values wait for the return in %s cookies (task storage slots)",
			 session_name(kind));
	else
		log_info("entry values wait for the return in the stash (a hash map): %s", why);
}

/* Entry times are kept for the return's duration (no stash to carry them). */
static bool uses_entry_times(const struct ksnoop_plan *bp)
{
	return bp->side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_TIMED;
}

/* Does this plan need a program on KIND's side (events, a retry, a time)? */
static bool side_attached(const struct ksnoop_plan *bp, int kind)
{
	return bp->side[kind].enabled ||
	       (bp->side[kind].flags & (KSNOOP_SIDE_RETRY | KSNOOP_SIDE_TIMED));
}

/*
 * --track's set: one map for every instance, of --track-max objects, and
 * one story counter (ksnoop.h: two instances counting apart would give
 * two objects at one address the same story); clones keep their source
 * between entry and return in a map of their own.  None is created
 * without --track.
 */
static int configure_track(struct attacher *a, struct ksnoop_bpf *skel,
			   const struct capture_plan *plan)
{
	int err = 0;

	if (!(plan->bpf.track & KSNOOP_TRACK_CLONE))
		err = bpf_map__set_autocreate(skel->maps.track_clones, false);
	if (!plan->bpf.track) {
		err = err ?: bpf_map__set_autocreate(skel->maps.track_stories, false);
		return err ?: bpf_map__set_autocreate(skel->maps.tracked, false);
	}
	if (a->tracked_fd >= 0) {
		err = err ?: bpf_map__reuse_fd(skel->maps.track_stories, a->track_stories_fd);
		return err ?: bpf_map__reuse_fd(skel->maps.tracked, a->tracked_fd);
	}
	return err ?: bpf_map__set_max_entries(skel->maps.tracked, a->track_entries);
}

void attacher__set_track_entries(struct attacher *a, __u32 n)
{
	a->track_entries = n;
}

/*
 * --track at exit: the objects still in the set (not freed while traced);
 * -1 if it cannot be read.
 */
long attacher__tracked_count(const struct attacher *a)
{
	__u64 key, next;
	long n = 0;
	void *prev = NULL;

	if (a->tracked_fd < 0)
		return 0;
	while (!bpf_map_get_next_key(a->tracked_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (++n > (long)KSNOOP_TRACK_MAX_ENTRIES)
			return -1;
	}
	return n;
}

/*
 * Before load: autoload only KIND's programs, set attach targets, size the
 * maps, share the first instance's ring buffer and counters.  Every libbpf
 * call is checked: an instance that kept its own ring buffer would write
 * where nobody reads.
 */
/*
 * --count by user stack (a user function's -s, or --ustack): its uprobes
 * take the stack map, which a sleepable program may not use; the pair of
 * programs that are never sleepable (ksnoop.bpf.c's *_count).
 */
static bool ufunc_counts_stacks(const struct capture_plan *plan)
{
	return plan->bpf.flags & KSNOOP_PLAN_COUNT_USTACK;
}

/* A user function's program for SIDE, as its plan wants it. */
static struct bpf_program *uprobe_prog(struct ksnoop_bpf *skel, const struct capture_plan *plan,
				       int side)
{
	bool count = ufunc_counts_stacks(plan);

	if (side == KSNOOP_ENTRY)
		return count ? skel->progs.ksnoop_uprobe_count : skel->progs.ksnoop_uprobe;
	return count ? skel->progs.ksnoop_uretprobe_count : skel->progs.ksnoop_uretprobe;
}

/* Uprobes may sleep (to page user memory in) where the kernel has it and PLAN allows. */
static bool ufunc_sleepable(const struct capture_plan *plan)
{
	return kfeatures__get()->have[FEAT_UPROBE_SLEEPABLE] && !ufunc_counts_stacks(plan);
}

/* Why a user function's program is not sleepable: for -v. */
static const char *ufunc_not_sleepable(const struct capture_plan *plan)
{
	return ufunc_counts_stacks(plan) ? "counted by user stack (the stack map: not sleepable)" :
	       "this kernel has no sleepable uprobes";
}

/* BPF_TRACE_UPROBE_MULTI (6.6): newer than the build's linux/bpf.h may be. */
#define ATTACH_UPROBE_MULTI	((enum bpf_attach_type)48)

/* PROG's autoload as WANT: a program its unit left out (NULL) can only stay unloaded. */
static int set_autoload(struct bpf_program *prog, bool want)
{
	if (!prog)
		return want ? -ENOENT : 0;
	return bpf_program__set_autoload(prog, want);
}

/* Whether PROG is in the instance and loads. */
static bool loads(const struct bpf_program *prog)
{
	return prog && bpf_program__autoload(prog);
}

/*
 * Whether the entry's first predicate may be tested before anything else
 * (KSNOOP_PLAN_PREFILTER): a scalar from an argument, and nothing the
 * entry does before its predicates (a stash key cleared, an entry time
 * kept, a tree, a tracked set, a pair) matters to a call they reject.
 */
static bool prefilter_fits(const struct ksnoop_plan *p)
{
	const struct ksnoop_side_plan *e = &p->side[KSNOOP_ENTRY];
	const struct ksnoop_pred_plan *first = &e->preds[0];

	return e->enabled && e->npreds && !first->is_str && first->acc.src == KSNOOP_SRC_ARG &&
	       !(first->acc.flags & KSNOOP_VAL_STR_LEN) &&
	       !(e->flags & (KSNOOP_SIDE_STASH | KSNOOP_SIDE_RETRY | KSNOOP_SIDE_TIMED)) &&
	       p->tree == KSNOOP_TREE_NONE && p->track == KSNOOP_TRACK_NONE &&
	       p->pair == KSNOOP_PAIR_NONE;
}

/*
 * The kernel's fields for PLAN's programs (klayout.h), looked up once in
 * the vmlinux BTF lent to libbpf.  A run without it (USDT probes, user
 * functions) parses it only for a plan that reads the thread pointer
 * (@tls:NAME); the others do without (the task's name by helper).
 */
static const struct ksnoop_kfields *kfields_for(struct attacher *a, const struct capture_plan *plan)
{
	const struct btf *btf = a->vmlinux;

	if (a->nkfields >= 0 || (!btf && !(plan->bpf.flags & KSNOOP_PLAN_UVARS)))
		return &a->kfields;
	a->nkfields = klayout__find(btf ?: btf_lend__vmlinux(), &a->kfields);
	return &a->kfields;
}

static int configure_instance(struct attacher *a, struct ksnoop_bpf *skel,
			      const struct capture_plan *plan, enum attach_kind kind,
			      bool sleepable, bool multi, int usdt_sites, int nfuncs)
{
	const struct ksnoop_side_plan *entry = &plan->bpf.side[KSNOOP_ENTRY];
	const char *target = plan->sig.attach;
	bool session = uses_session(plan, kind, multi);
	int err = 0;

	memcpy((void *)&skel->rodata->plan, &plan->bpf, sizeof(plan->bpf));
	memcpy((void *)&skel->rodata->kfields, kfields_for(a, plan), sizeof(skel->rodata->kfields));
	memcpy((void *)&skel->rodata->filter_plan, &plan->filter, sizeof(plan->filter));
	/*
	 * The reader wakes for a sixteenth of the ring buffer, or at its
	 * poll's timeout; for user stacks at once, while the process whose
	 * maps name the frames is most likely still there.
	 */
	skel->rodata->wakeup_bytes = resolver__takes_user_stack(&plan->bpf) ? 0 : a->ringbuf_bytes / 16;
	if (sleepable)
		skel->rodata->plan.flags |= KSNOOP_PLAN_SLEEPABLE;
	/* The programs whose words are the context's (bpf/ksnoop.bpf.c's prefilter_rejects()). */
	if (prefilter_fits(&plan->bpf) &&
	    (kind == ATTACH_TP || kind == ATTACH_SYSCALL_TP || kind == ATTACH_SYSCALL ||
	     (kind == ATTACH_FENTRY && !session))) {
		skel->rodata->plan.flags |= KSNOOP_PLAN_PREFILTER;
		a->nprefilter++;
	}
	/* The run's choice, the same for every instance: they share the maps. */
	if (a->counts_percpu && plan->bpf.output != KSNOOP_OUT_EVENTS) {
		skel->rodata->plan.flags |= KSNOOP_PLAN_COUNTS_PERCPU;
		err = err ?: bpf_map__set_type(skel->maps.counts, BPF_MAP_TYPE_PERCPU_HASH);
		err = err ?: bpf_map__set_map_flags(skel->maps.counts, BPF_F_NO_PREALLOC);
		err = err ?: bpf_map__set_type(skel->maps.by_counts, BPF_MAP_TYPE_PERCPU_HASH);
	}

	err = err ?: set_autoload(skel->progs.ksnoop_fentry, kind == ATTACH_FENTRY && !session);
	err = err ?: set_autoload(skel->progs.ksnoop_fexit, kind == ATTACH_FENTRY && !session);
	err = err ?: set_autoload(skel->progs.ksnoop_fsession, kind == ATTACH_FENTRY && session);
	err = err ?: set_autoload(skel->progs.ksnoop_kprobe, kind == ATTACH_KPROBE && !session);
	err = err ?: set_autoload(skel->progs.ksnoop_kretprobe,
				  kind == ATTACH_KPROBE && !session);
	err = err ?: set_autoload(skel->progs.ksnoop_ksession, kind == ATTACH_KPROBE && session);
	err = err ?: set_autoload(skel->progs.ksnoop_tp, kind == ATTACH_TP);
	err = err ?: set_autoload(skel->progs.ksnoop_usdt, kind == ATTACH_USDT);
	err = err ?: set_autoload(skel->progs.ksnoop_uprobe,
				  kind == ATTACH_UPROBE && !ufunc_counts_stacks(plan) && !session);
	err = err ?: set_autoload(skel->progs.ksnoop_uretprobe,
				  kind == ATTACH_UPROBE && !ufunc_counts_stacks(plan) && !session);
	err = err ?: set_autoload(skel->progs.ksnoop_usession, kind == ATTACH_UPROBE && session);
	err = err ?: set_autoload(skel->progs.ksnoop_uprobe_count,
				  kind == ATTACH_UPROBE && ufunc_counts_stacks(plan));
	err = err ?: set_autoload(skel->progs.ksnoop_uretprobe_count,
				  kind == ATTACH_UPROBE && ufunc_counts_stacks(plan));
	err = err ?: set_autoload(skel->progs.ksnoop_syscall_tp,
				  kind == ATTACH_SYSCALL_TP || kind == ATTACH_SYSCALL);
	err = err ?: set_autoload(skel->progs.ksnoop_syscall_exit,
				  kind == ATTACH_SYSCALL);
	err = err ?: set_autoload(skel->progs.ksnoop_rawsys_enter,
				  kind == ATTACH_SYSCALL_RAW);
	/* Not its return's program where only entries count: one load less. */
	err = err ?: set_autoload(skel->progs.ksnoop_rawsys_exit,
				  kind == ATTACH_SYSCALL_RAW &&
				  side_attached(&plan->bpf, KSNOOP_RETURN));
	err = err ?: set_autoload(skel->progs.ksnoop_tree_exit,
				  plan->bpf.tree == KSNOOP_TREE_ROOT && !a->tree_exit);
	err = err ?: set_autoload(skel->progs.ksnoop_tree_exec,
				  plan->bpf.tree == KSNOOP_TREE_ROOT && !a->tree_exit);
	if (kind == ATTACH_USDT && sleepable)
		err = err ?: bpf_program__set_flags(skel->progs.ksnoop_usdt,
						    bpf_program__flags(skel->progs.ksnoop_usdt) |
						    BPF_F_SLEEPABLE);
	if (kind == ATTACH_UPROBE && sleepable && session)
		err = err ?: bpf_program__set_flags(skel->progs.ksnoop_usession,
						    bpf_program__flags(skel->progs.ksnoop_usession) |
						    BPF_F_SLEEPABLE);
	if (kind == ATTACH_UPROBE && sleepable && !session) {
		err = err ?: bpf_program__set_flags(uprobe_prog(skel, plan, KSNOOP_ENTRY),
						    bpf_program__flags(uprobe_prog(skel, plan, KSNOOP_ENTRY)) |
						    BPF_F_SLEEPABLE);
		err = err ?: bpf_program__set_flags(uprobe_prog(skel, plan, KSNOOP_RETURN),
						    bpf_program__flags(uprobe_prog(skel, plan, KSNOOP_RETURN)) |
						    BPF_F_SLEEPABLE);
	}

	/*
	 * libbpf gives each call site of each USDT attached to this program a
	 * spec id of its own (at most one per site and attach); its maps hold
	 * 256 by default, too few for a group of many probes.
	 */
	if (kind == ATTACH_USDT && usdt_sites > 256) {
		err = err ?: bpf_map__set_max_entries(skel->maps.__bpf_usdt_specs, usdt_sites);
		err = err ?: bpf_map__set_max_entries(skel->maps.__bpf_usdt_ip_to_spec_id,
						      usdt_sites);
	}
	/* Variables: each site's address, at its spec's id (attach_own_sites()). */
	if (kind == ATTACH_USDT && (plan->bpf.flags & KSNOOP_PLAN_UVARS))
		err = err ?: bpf_map__set_max_entries(skel->maps.usdt_site_pcs,
						      usdt_sites > 256 ? usdt_sites : 256);
	if (kind == ATTACH_KPROBE && multi && !session) {
		err = err ?: bpf_program__set_expected_attach_type(skel->progs.ksnoop_kprobe,
								   BPF_TRACE_KPROBE_MULTI);
		err = err ?: bpf_program__set_expected_attach_type(skel->progs.ksnoop_kretprobe,
								   BPF_TRACE_KPROBE_MULTI);
	}
	/* uprobe.session: a "uprobe.multi" program of uprobe.session's type (libbpf 1.5 has no such section). */
	if (kind == ATTACH_UPROBE && session)
		err = err ?: bpf_program__set_expected_attach_type(skel->progs.ksnoop_usession,
								   KSNOOP_BPF_TRACE_UPROBE_SESSION);
	if (kind == ATTACH_UPROBE && multi && !session) {
		err = err ?: bpf_program__set_expected_attach_type(uprobe_prog(skel, plan, KSNOOP_ENTRY),
								   ATTACH_UPROBE_MULTI);
		err = err ?: bpf_program__set_expected_attach_type(uprobe_prog(skel, plan, KSNOOP_RETURN),
								   ATTACH_UPROBE_MULTI);
	}
	/* Only the unit's programs are there (units.h): fsession's, or the pair. */
	if (kind == ATTACH_FENTRY && !session) {
		err = err ?: bpf_program__set_attach_target(skel->progs.ksnoop_fentry, 0, target);
		err = err ?: bpf_program__set_attach_target(skel->progs.ksnoop_fexit, 0, target);
	}
	/* fsession: an "fentry" program of fsession's type; libbpf's attach links it by that type. */
	if (kind == ATTACH_FENTRY && session) {
		err = err ?: bpf_program__set_attach_target(skel->progs.ksnoop_fsession, 0, target);
		err = err ?: bpf_program__set_expected_attach_type(skel->progs.ksnoop_fsession,
								   KSNOOP_BPF_TRACE_FSESSION);
	}

	/* The stash holds whole entry records; unused, it stays tiny. */
	if (uses_stash(&plan->bpf))
		err = err ?: bpf_map__set_value_size(skel->maps.stash, entry->rec_size);
	else
		err = err ?: bpf_map__set_max_entries(skel->maps.stash, 1);
	if (plan->bpf.tree) {
		__u32 value = 8 + plan->bpf.tree_rec_size;
		__u32 n = KSNOOP_TREE_BUF_BYTES / (value + 64);	/* 64: key and the map's own */

		n = n < KSNOOP_TREE_BUF_MIN ? KSNOOP_TREE_BUF_MIN :
		    n > KSNOOP_TREE_BUF_ENTRIES ? KSNOOP_TREE_BUF_ENTRIES : n;
		err = err ?: bpf_map__set_value_size(skel->maps.tree_buf, value);
		err = err ?: bpf_map__set_max_entries(skel->maps.tree_buf, n);
		err = err ?: bpf_map__set_map_flags(skel->maps.tree_buf, 0);
	}
	/* New elements of tree_buf, sessions and the stash start as a copy of blank's zeroes. */
	if (plan->bpf.tree || uses_stash(&plan->bpf))
		err = err ?: bpf_map__set_value_size(skel->maps.blank, blank_size(&plan->bpf));
	/*
	 * Not created at all when unused: a glob in fentry mode loads an
	 * instance per function, and every map is a file descriptor.  The
	 * verifier prunes the code that would use it (the plan says so).
	 */
	if (!uses_entry_times(&plan->bpf))
		err = err ?: bpf_map__set_autocreate(skel->maps.entry_times, false);
	if (!session)
		err = err ?: bpf_map__set_autocreate(skel->maps.session_slots, false);
	/* sys: on raw_syscalls: the numbers of its calls (filled after load). */
	if (kind != ATTACH_SYSCALL_RAW)
		err = err ?: bpf_map__set_autocreate(skel->maps.sys_cookies, false);
	/* A group's functions' values, one element each (filled after load). */
	if (plan->bpf.flags & KSNOOP_PLAN_FUNC_VALUES)
		err = err ?: bpf_map__set_max_entries(skel->maps.func_values, nfuncs);
	else
		err = err ?: bpf_map__set_autocreate(skel->maps.func_values, false);

	/* --count maps: full size only when counting, then shared like the rest. */
	if (plan->bpf.output == KSNOOP_OUT_EVENTS)
		err = err ?: bpf_map__set_max_entries(skel->maps.counts, 1);
	if (plan->bpf.output != KSNOOP_OUT_COUNT_STACKS &&
	    !(plan->bpf.flags & KSNOOP_PLAN_COUNT_USTACK))
		err = err ?: bpf_map__set_max_entries(skel->maps.stacks, 1);
	/* --by's map: created only with --by (every plan has it or none). */
	if (!plan->bpf.by_part[0])
		err = err ?: bpf_map__set_autocreate(skel->maps.by_counts, false);
	else if (a->by_counts_fd >= 0)
		err = err ?: bpf_map__reuse_fd(skel->maps.by_counts, a->by_counts_fd);
	/* --pair's times: one map for the START's instances and the END's. */
	if (!plan->bpf.pair)
		err = err ?: bpf_map__set_autocreate(skel->maps.pair_starts, false);
	else if (a->pair_starts_fd >= 0)
		err = err ?: bpf_map__reuse_fd(skel->maps.pair_starts, a->pair_starts_fd);
	/* --tree's sessions: one map for the root's and every inner instance. */
	if (!plan->bpf.tree) {
		err = err ?: bpf_map__set_autocreate(skel->maps.sessions, false);
		err = err ?: bpf_map__set_autocreate(skel->maps.tree_buf, false);
	} else if (a->sessions_fd >= 0) {
		err = err ?: bpf_map__reuse_fd(skel->maps.sessions, a->sessions_fd);
		err = err ?: bpf_map__reuse_fd(skel->maps.tree_buf, a->tree_buf_fd);
	}
	err = err ?: configure_track(a, skel, plan);
	if (a->ringbuf_fd >= 0) {
		err = err ?: bpf_map__reuse_fd(skel->maps.events, a->ringbuf_fd);
		err = err ?: bpf_map__reuse_fd(skel->maps.counters, a->counters_fd);
		err = err ?: bpf_map__reuse_fd(skel->maps.gate, a->gate_fd);
		err = err ?: bpf_map__reuse_fd(skel->maps.counts, a->counts_fd);
		err = err ?: bpf_map__reuse_fd(skel->maps.stacks, a->stacks_fd);
	} else if (a->ahead_fd >= 0) {
		err = err ?: bpf_map__reuse_fd(skel->maps.events, a->ahead_fd);
	} else {
		err = err ?: bpf_map__set_max_entries(skel->maps.events, a->ringbuf_bytes);
	}
	return err;
}

/* Forget the instance loaded last (a kprobe.multi attempt the kernel refused). */
static void drop_last_instance(struct attacher *a)
{
	if (a->skels[a->nskels - 1]->links.ksnoop_tree_exit)
		a->tree_exit = false;
	ksnoop_bpf__destroy(a->skels[--a->nskels]);
	if (a->nskels == 0) {
		a->ringbuf_fd = a->counters_fd = a->counts_fd = a->stacks_fd = -1;
		a->gate_fd = -1;
		a->by_counts_fd = -1;
		a->pair_starts_fd = -1;
		a->sessions_fd = a->tree_buf_fd = -1;
		a->tracked_fd = a->track_stories_fd = -1;
	}
}

/*
 * --filter: UNIT's object's bytes with the filter's code written over
 * every region bpf/filter.bpf.h keeps for it (include/ksnoop_cbpf.h: the
 * marker's ld_imm64, then "goto +0"s), once; every instance of UNIT opens
 * them.
 */
static int filter_object(struct attacher *a, int unit)
{
	const struct bpf_insn marker[2] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .imm = (__s32)(__u32)KSNOOP_CBPF_MAGIC },
		{ .imm = (__s32)(__u32)(KSNOOP_CBPF_MAGIC >> 32) },
	};
	const struct bpf_insn pad = { .code = BPF_JMP | BPF_JA };
	const size_t region = KSNOOP_CBPF_REGION * sizeof(struct bpf_insn);
	size_t size, at, i, found = 0;
	const void *elf = units__elf(unit, &size);
	__u8 *copy, *p;

	if (!elf)
		return -errno;
	copy = malloc(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, elf, size);
	for (at = 0; size - at >= region; at = p - copy + 1) {
		p = memmem(copy + at, size - at, marker, sizeof(marker));
		if (!p || (size_t)(copy + size - p) < region)
			break;
		for (i = 2; i < KSNOOP_CBPF_REGION; i++)
			if (memcmp(p + i * sizeof(pad), &pad, sizeof(pad)))
				break;
		if (i < KSNOOP_CBPF_REGION)
			continue;
		memcpy(p, a->filter->code, region);
		found++;
	}
	if (!found) {
		free(copy);
		return -ENOEXEC;
	}
	a->filter_elf[unit] = copy;
	a->filter_elf_size[unit] = size;
	return 0;
}

/*
 * A new instance of UNIT's object (units.h): with --filter, its bytes
 * with the filter's code in.
 */
static struct ksnoop_bpf *instance_open(struct attacher *a, int unit)
{
	struct ksnoop_bpf *skel;
	const void *elf;
	size_t size;
	int err;

	if (!a->filter) {
		elf = units__elf(unit, &size);
		if (!elf)
			return NULL;
	} else {
		err = a->filter_elf[unit] ? 0 : filter_object(a, unit);
		if (err) {
			errno = -err;
			return NULL;
		}
		elf = a->filter_elf[unit];
		size = a->filter_elf_size[unit];
	}
	skel = units__skeleton(unit, elf, size);
	if (!skel)
		return NULL;
	err = bpf_object__open_skeleton(skel->skeleton, NULL);
	if (err) {
		ksnoop_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

void attacher__set_filter(struct attacher *a, const struct pfilter *f)
{
	a->filter = f;
}

/* KSNOOP_PLAN_FUNC_VALUES: element i is FUNCS[i]'s values (its cookie says i). */
static int fill_func_values(struct ksnoop_bpf *skel, const struct capture_plan *plan,
			    const struct attach_func *funcs, int n)
{
	int fd = bpf_map__fd(skel->maps.func_values);
	__u32 i;

	if (!(plan->bpf.flags & KSNOOP_PLAN_FUNC_VALUES))
		return 0;
	for (i = 0; i < (__u32)n; i++)
		if (bpf_map_update_elem(fd, &i, funcs[i].values, BPF_ANY))
			return -errno;
	return 0;
}

/*
 * Open an instance for PLAN, autoload only KIND's programs, load it; a
 * group with per-function values gets FUNCS' (N of them) before it is
 * attached.
 */
static struct ksnoop_bpf *load_group_instance(struct attacher *a, const struct capture_plan *plan,
					      enum attach_kind kind, bool sleepable, bool multi,
					      int usdt_sites, const struct attach_func *funcs, int n,
					      struct ks_error *e)
{
	const char *target = plan->sig.attach;
	struct ksnoop_bpf *skel, **skels;
	double t0;
	int err;

	skels = realloc(a->skels, (a->nskels + 1) * sizeof(*skels));
	if (!skels) {
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	a->skels = skels;

	skel = instance_open(a, units__of(kind, uses_session(plan, kind, multi)));
	if (!skel) {
		attach_fail(e, -errno, "open the BPF object for", target);
		return NULL;
	}
	/* libbpf holds vmlinux BTF from set_attach_target() until the load ends. */
	btf_lend__begin(a->vmlinux);
	err = configure_instance(a, skel, plan, kind, sleepable, multi, usdt_sites, n);
	if (err) {
		ksnoop_bpf__destroy(skel);
		btf_lend__end();
		attach_fail(e, err, "set up the BPF object for", target);
		return NULL;
	}

	t0 = now_mono();
	prune_hook__begin(skel->maps.rodata);
	err = ksnoop_bpf__load(skel);
	prune_hook__end();
	a->load_s += now_mono() - t0;
	a->nloaded++;
	if (err)
		ksnoop_bpf__destroy(skel);
	btf_lend__end();
	if (err) {
		attach_fail(e, err,
			    kind == ATTACH_FENTRY ? "load fentry/fexit programs for" :
			    kind == ATTACH_KPROBE ? "load kprobe programs for" :
			    kind == ATTACH_USDT ? "load the USDT program for" :
			    kind == ATTACH_UPROBE ? "load uprobe programs for" :
			    "load the tracepoint program for", target);
		return NULL;
	}
	a->skels[a->nskels++] = skel;
	if ((kind == ATTACH_USDT || kind == ATTACH_UPROBE) && !a->uprobe_stack_said) {
		const char *said = kfeatures__uprobe_stack(kfeatures__get());

		a->uprobe_stack_said = true;
		if (said)
			log_info("%s", said);
	}
	err = fill_func_values(skel, plan, funcs, n);
	if (err) {
		drop_last_instance(a);
		attach_fail(e, err, "fill the values map for", target);
		return NULL;
	}
	if (a->ringbuf_fd < 0) {
		a->ringbuf_fd = bpf_map__fd(skel->maps.events);
		a->counters_fd = bpf_map__fd(skel->maps.counters);
		a->gate_fd = bpf_map__fd(skel->maps.gate);
		a->counts_fd = bpf_map__fd(skel->maps.counts);
		a->stacks_fd = bpf_map__fd(skel->maps.stacks);
	}
	if (plan->bpf.by_part[0] && a->by_counts_fd < 0)
		a->by_counts_fd = bpf_map__fd(skel->maps.by_counts);
	if (plan->bpf.pair && a->pair_starts_fd < 0)
		a->pair_starts_fd = bpf_map__fd(skel->maps.pair_starts);
	if (plan->bpf.tree && a->sessions_fd < 0) {
		a->sessions_fd = bpf_map__fd(skel->maps.sessions);
		a->tree_buf_fd = bpf_map__fd(skel->maps.tree_buf);
	}
	if (loads(skel->progs.ksnoop_tree_exit)) {
		skel->links.ksnoop_tree_exit = bpf_program__attach(skel->progs.ksnoop_tree_exit);
		if (!skel->links.ksnoop_tree_exit) {
			err = -errno;
			drop_last_instance(a);
			attach_fail(e, err, "attach --tree's sched_process_exit program for", target);
			return NULL;
		}
		skel->links.ksnoop_tree_exec = bpf_program__attach(skel->progs.ksnoop_tree_exec);
		if (!skel->links.ksnoop_tree_exec) {
			err = -errno;
			drop_last_instance(a);
			attach_fail(e, err, "attach --tree's sched_process_exec program for", target);
			return NULL;
		}
		a->tree_exit = true;
	}
	if (plan->bpf.track && a->tracked_fd < 0) {
		a->tracked_fd = bpf_map__fd(skel->maps.tracked);
		a->track_stories_fd = bpf_map__fd(skel->maps.track_stories);
	}
	return skel;
}

/* Open an instance for PLAN, autoload only KIND's programs, load it. */
static struct ksnoop_bpf *load_instance(struct attacher *a, const struct capture_plan *plan,
					enum attach_kind kind, bool sleepable, bool multi,
					int usdt_sites, struct ks_error *e)
{
	return load_group_instance(a, plan, kind, sleepable, multi, usdt_sites, NULL, 0, e);
}

static int keep_link(struct attacher *a, struct bpf_link *link, bool follows);

/*
 * The instance loaded last, attached (not the first: its maps are the
 * shared ones; not USDT: libbpf's USDT links need their object): its
 * links and a copy of its program's fd are kept, the rest of the object
 * (some 14 fds: maps, BTF, memfds) goes.  A glob of a program per match
 * (fentry, tracepoints) would otherwise run out of fds: 'tp:*' stopped
 * at 1249 of 1601 under a limit of 20000.  The kernel keeps the program
 * and its maps while a link holds them.  On failure the instance stays.
 */
static int release_instance(struct attacher *a)
{
	struct ksnoop_bpf *skel = a->skels[a->nskels - 1];
	int per = sizeof(skel->links) / sizeof(struct bpf_link *);
	struct bpf_link **sl = (struct bpf_link **)&skel->links;
	struct bpf_program *prog;
	int nprogs = 0, *fds, fd, j;

	if (a->nskels < 2)
		return 0;
	bpf_object__for_each_program(prog, skel->obj)
		nprogs += bpf_program__fd(prog) >= 0;
	fds = realloc(a->prog_fds, (a->nprog_fds + nprogs) * sizeof(*fds));
	if (!fds && nprogs)
		return -ENOMEM;
	a->prog_fds = fds;
	for (j = 0; j < per; j++) {
		if (!sl[j])
			continue;
		if (keep_link(a, sl[j], false)) {
			/* keep_link() destroyed it; the object keeps the rest. */
			sl[j] = NULL;
			return -ENOMEM;
		}
		sl[j] = NULL;
	}
	/* A program whose fd cannot be copied only goes uncounted in "missed". */
	bpf_object__for_each_program(prog, skel->obj)
		if (bpf_program__fd(prog) >= 0 &&
		    (fd = fcntl(bpf_program__fd(prog), F_DUPFD_CLOEXEC, 3)) >= 0)
			a->prog_fds[a->nprog_fds++] = fd;
	ksnoop_bpf__destroy(skel);
	a->nskels--;
	return 0;
}

/*
 * A kprobe on SIG's function: by name, or by address where the name is
 * several functions' (the kernel would take the first, or from 6.7 refuse
 * the name: EADDRNOTAVAIL).  The kprobe PMU takes an address where the
 * name would be (libbpf: no name, the address as the offset).
 */
static struct bpf_link *attach_kprobe(struct bpf_program *prog, bool retprobe,
				      const struct signature *sig)
{
	/* Never libbpf's legacy tracefs kprobes, which would name the probe by a NULL. */
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .retprobe = retprobe, .offset = sig->addr,
		    .attach_mode = sig->addr ? PROBE_ATTACH_MODE_LINK : PROBE_ATTACH_MODE_DEFAULT);

	return bpf_program__attach_kprobe_opts(prog, sig->addr ? NULL : sig->attach, &opts);
}

/*
 * kprobe.session for one function: a kprobe.multi link of one, by name
 * or by address (as attach_kprobe()).  Where the kernel will not take it
 * (fprobe wants a function ftrace can patch; a plain kprobe does not),
 * the instance goes and the caller attaches kprobes with the stash:
 * -ENOENT, said with -v.  Else 0, or what loading the instance failed
 * with.
 */
static int attach_single_session(struct attacher *a, const struct capture_plan *plan,
				 struct ks_error *e)
{
	const char *syms[] = { plan->sig.attach };
	unsigned long addrs[] = { plan->sig.addr };
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .cnt = 1, .session = true);
	struct ksnoop_bpf *skel = load_instance(a, plan, ATTACH_KPROBE, false, true, 0, e);
	struct bpf_link *link;

	if (!skel)
		return e->err;
	if (plan->sig.addr)
		opts.addrs = addrs;
	else
		opts.syms = syms;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.ksnoop_ksession, NULL, &opts);
	if (!link) {
		log_info("%s: kprobe.session refused (%s): kprobes, entry values in the stash",
			 plan->sig.attach, strerror(errno));
		drop_last_instance(a);
		return -ENOENT;
	}
	skel->links.ksnoop_ksession = link;
	return 0;
}

/*
 * Load an instance for PLAN and attach it as KIND.  Returns 0 or a
 * negative errno, a runtime one (what the kernel said is in E's message).
 */
static int attach_single(struct attacher *a, const struct capture_plan *plan,
			 enum attach_kind kind, struct ks_error *e)
{
	const char *target = plan->sig.attach;
	char event[sizeof(plan->sig.attach) + 24];
	struct ksnoop_bpf *skel;
	struct bpf_link *link;
	int err;

	say_entry_keep(a, plan, kind);
	if (kind == ATTACH_KPROBE && uses_session(plan, kind, true)) {
		err = attach_single_session(a, plan, e);
		if (err != -ENOENT)
			return err;
	}
	skel = load_instance(a, plan, kind, false, false, 0, e);
	if (!skel)
		return e->err;

	switch (kind) {
	case ATTACH_FENTRY:
		if (uses_session(plan, kind, false)) {
			link = bpf_program__attach(skel->progs.ksnoop_fsession);
			if (!link)
				return attach_fail(e, -errno, "attach fsession to", target);
			skel->links.ksnoop_fsession = link;
			break;
		}
		if (side_attached(&plan->bpf, KSNOOP_ENTRY)) {
			link = bpf_program__attach(skel->progs.ksnoop_fentry);
			if (!link)
				return attach_fail(e, -errno, "attach fentry to", target);
			skel->links.ksnoop_fentry = link;
		}
		if (side_attached(&plan->bpf, KSNOOP_RETURN)) {
			link = bpf_program__attach(skel->progs.ksnoop_fexit);
			if (!link)
				return attach_fail(e, -errno, "attach fexit to", target);
			skel->links.ksnoop_fexit = link;
		}
		break;
	case ATTACH_KPROBE:
		if (plan->sig.addr)
			snprintf(event, sizeof(event), "%s@%llx", target,
				 (unsigned long long)plan->sig.addr);
		if (side_attached(&plan->bpf, KSNOOP_ENTRY)) {
			link = attach_kprobe(skel->progs.ksnoop_kprobe, false, &plan->sig);
			if (!link)
				return attach_fail(e, -errno, "attach a kprobe to",
						   plan->sig.addr ? event : target);
			skel->links.ksnoop_kprobe = link;
		}
		if (side_attached(&plan->bpf, KSNOOP_RETURN)) {
			link = attach_kprobe(skel->progs.ksnoop_kretprobe, true, &plan->sig);
			if (!link)
				return attach_fail(e, -errno, "attach a kretprobe to",
						   plan->sig.addr ? event : target);
			skel->links.ksnoop_kretprobe = link;
		}
		break;
	case ATTACH_TP:
		link = bpf_program__attach_raw_tracepoint(skel->progs.ksnoop_tp, target);
		if (!link)
			return attach_fail(e, -errno, "attach to tracepoint", target);
		skel->links.ksnoop_tp = link;
		break;
	case ATTACH_SYSCALL_TP:
		link = bpf_program__attach_tracepoint(skel->progs.ksnoop_syscall_tp, "syscalls",
						      target);
		if (!link)
			return attach_fail(e, -errno, "attach to tracepoint", target);
		skel->links.ksnoop_syscall_tp = link;
		break;
	case ATTACH_SYSCALL:
		if (side_attached(&plan->bpf, KSNOOP_ENTRY)) {
			snprintf(event, sizeof(event), "sys_enter_%s", target);
			link = bpf_program__attach_tracepoint(skel->progs.ksnoop_syscall_tp,
							      "syscalls", event);
			if (!link)
				return attach_fail(e, -errno, "attach to tracepoint", event);
			skel->links.ksnoop_syscall_tp = link;
		}
		if (side_attached(&plan->bpf, KSNOOP_RETURN)) {
			snprintf(event, sizeof(event), "sys_exit_%s", target);
			link = bpf_program__attach_tracepoint(skel->progs.ksnoop_syscall_exit,
							      "syscalls", event);
			if (!link)
				return attach_fail(e, -errno, "attach to tracepoint", event);
			skel->links.ksnoop_syscall_exit = link;
		}
		break;
	case ATTACH_USDT:
		return ks_fail(e, -EOPNOTSUPP, "USDT probes attach with attach_usdt_probes()");
	case ATTACH_UPROBE:
		return ks_fail(e, -EOPNOTSUPP, "user functions attach with attach_ufunc()");
	case ATTACH_SYSCALL_RAW:
		return ks_fail(e, -EOPNOTSUPP, "raw_syscalls attach a group (attach_rawsys_group())");
	}
	if (release_instance(a))
		return ks_fail(e, -ENOMEM, "out of memory");
	return 0;
}

/* FOLLOWS: destroyed after the link kept before it, on the same thread. */
static int keep_link(struct attacher *a, struct bpf_link *link, bool follows)
{
	struct bpf_link **l = realloc(a->links, (a->nlinks + 1) * sizeof(*l));
	bool *f = l ? realloc(a->follows, (a->nlinks + 1) * sizeof(*f)) : NULL;

	if (l)
		a->links = l;
	if (f)
		a->follows = f;
	if (!l || !f) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	a->follows[a->nlinks] = follows;
	a->links[a->nlinks++] = link;
	return 0;
}

/*
 * Probe P's call sites, attached by ksnoop rather than libbpf (usdt_specs.h):
 * each site's spec written into libbpf's spec map at an id counted down
 * from its end (*NEXT_ID; libbpf counts up from 0, and the map has a slot
 * for every site of the program), then uprobes at the sites with those
 * ids as cookies and the kernel counting the semaphores, as libbpf does:
 * one uprobe.multi link where libbpf loaded the program for one (kernels
 * from 6.6), else a uprobe per site.  FOLLOWS: the first link follows the
 * one kept before it.
 */
static int attach_own_sites(struct attacher *a, struct ksnoop_bpf *skel,
			    const struct attach_usdt *p, int pid, int *next_id, bool follows,
			    bool uvars, struct ks_error *e)
{
	struct bpf_program *prog = skel->progs.ksnoop_usdt;
	struct bpf_map *specs = skel->maps.__bpf_usdt_specs;
	bool multi = bpf_program__expected_attach_type(prog) == ATTACH_UPROBE_MULTI;
	unsigned long *offs = NULL, *semas = NULL;
	struct usdt_own_site *sites = NULL;
	__u64 *cookies = NULL;
	int fd, n, i, err = 0;

	if (bpf_map__value_size(specs) != sizeof(sites->spec))
		return ks_fail(e, -EOPNOTSUPP,
			       "USDT probe %s:%s: libbpf's spec map holds %u-byte specs, ksnoop writes %zu",
			       p->provider, p->name, bpf_map__value_size(specs), sizeof(sites->spec));
	fd = usdt__open(p->path, e);
	if (fd < 0)
		return fd;
	n = usdt_own__sites(fd, p->shown, p->provider, p->name, p->func_id, &sites, e);
	close(fd);
	if (n < 0)
		return n;
	log_info("%s:%s: %d call site(s) attached by ksnoop (%s)", p->provider, p->name, n,
		 uvars ? "its variables' load bias is the site's" :
			 "libbpf does not parse an argument's location");
	offs = calloc(n, sizeof(*offs));
	semas = calloc(n, sizeof(*semas));
	cookies = calloc(n, sizeof(*cookies));
	if (!offs || !semas || !cookies) {
		err = ks_fail(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		int id = (*next_id)--;

		if (id < 0) {
			err = ks_fail(e, -ENOSPC, "USDT probe %s:%s: no room for its call sites' specs",
				      p->provider, p->name);
			goto out;
		}
		err = bpf_map__update_elem(specs, &id, sizeof(id), &sites[i].spec,
					   sizeof(sites[i].spec), BPF_ANY);
		if (err) {
			err = ks_fail(e, ks_runtime_errno(err),
				      "USDT probe %s:%s: cannot store a site's spec: %s",
				      p->provider, p->name, strerror(-err));
			goto out;
		}
		err = uvars ? bpf_map__update_elem(skel->maps.usdt_site_pcs, &id, sizeof(id),
						   &sites[i].pc, sizeof(sites[i].pc), BPF_ANY) : 0;
		if (err) {
			err = ks_fail(e, ks_runtime_errno(err),
				      "USDT probe %s:%s: cannot store a site's address: %s",
				      p->provider, p->name, strerror(-err));
			goto out;
		}
		offs[i] = sites[i].file_off;
		semas[i] = sites[i].sema_off;
		cookies[i] = id;
	}
	for (i = 0; i < (multi ? 1 : n) && !err; i++) {
		LIBBPF_OPTS(bpf_uprobe_multi_opts, mopts, .offsets = offs, .ref_ctr_offsets = semas,
			    .cookies = cookies, .cnt = n);
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .ref_ctr_offset = semas[i],
			    .bpf_cookie = cookies[i]);
		struct bpf_link *link;

		if (multi)
			link = bpf_program__attach_uprobe_multi(prog, pid > 0 ? pid : -1, p->path,
								NULL, &mopts);
		else
			link = bpf_program__attach_uprobe_opts(prog, pid > 0 ? pid : -1, p->path,
							       offs[i], &opts);
		if (!link) {
			char buf[ERR_TEXT_MAX];

			err = -errno;
			err = ks_fail(e, ks_runtime_errno(err),
				      "failed to attach to USDT probe %s:%s in '%s': %s",
				      p->provider, p->name, p->shown, err_text(err, buf, sizeof(buf)));
			break;
		}
		err = keep_link(a, link, follows || i > 0);
		if (err)
			err = ks_fail(e, err, "out of memory");
	}
out:
	free(offs);
	free(semas);
	free(cookies);
	free(sites);
	return err;
}

/*
 * The probes' own plans differ only in func_id: one program for them all,
 * its USDT cookie naming the probe (one probe: the plan's func_id, as
 * attach_single() has it): every call site (PID -1: in every process).
 */
static int attach_usdt_probes(struct attacher *a, const struct capture_plan *plan,
			      const struct attach_usdt *probes, int n, int pid,
			      struct ks_error *e)
{
	struct capture_plan *group = malloc(sizeof(*group));
	bool sleepable = kfeatures__get()->have[FEAT_UPROBE_SLEEPABLE];
	bool uvars = plan->bpf.flags & KSNOOP_PLAN_UVARS;
	struct ksnoop_bpf *skel;
	int i, err = 0, sites = 0, next_id;

	if (!group)
		return ks_fail(e, -ENOMEM, "out of memory");
	memcpy(group, plan, sizeof(*group));
	if (n > 1)
		group->bpf.flags |= KSNOOP_PLAN_COOKIE;
	for (i = 0; i < n; i++)
		sites += probes[i].nsites;
	/*
	 * Sleepable, so that user memory the program has not touched yet can
	 * be paged in and read; kernels without sleepable uprobes, and a
	 * sleepable program the verifier refuses, get the plain program.
	 */
	skel = sleepable ? load_instance(a, group, ATTACH_USDT, true, false, sites, e) : NULL;
	if (skel) {
		log_info("%s:%s%s: sleepable program (user memory is paged in to be read)",
			 probes[0].provider, probes[0].name, n > 1 ? " and the others of its plan" : "");
	} else {
		log_info("%s:%s: %s%s; user memory not paged in yet reads as a fault",
			 probes[0].provider, probes[0].name,
			 sleepable ? "sleepable program refused: " : "this kernel has no sleepable uprobes",
			 sleepable ? e->msg : "");
		skel = load_instance(a, group, ATTACH_USDT, false, false, sites, e);
	}
	free(group);
	if (!skel)
		return e->err;
	if (n > 1)
		log_info("%s:%s and %d more probe(s): one program", probes[0].provider,
			 probes[0].name, n - 1);
	next_id = (int)bpf_map__max_entries(skel->maps.__bpf_usdt_specs) - 1;
	for (i = 0; i < n && !err; i++) {
		const struct attach_usdt *p = &probes[i];
		LIBBPF_OPTS(bpf_usdt_opts, opts, .usdt_cookie = p->func_id);
		struct bpf_link *link;

		if (stop__requested())
			return attach_stopped(e);
		/* Variables need each site's address: ksnoop's own attach knows it. */
		if (p->own || uvars) {
			err = attach_own_sites(a, skel, p, pid, &next_id, i > 0, uvars, e);
			if (err)
				return err;
			continue;
		}
		/* Every call site; the kernel counts the semaphore, if any. */
		link = bpf_program__attach_usdt(skel->progs.ksnoop_usdt, pid > 0 ? pid : -1,
						p->path, p->provider, p->name, &opts);
		if (!link) {
			char buf[ERR_TEXT_MAX];

			err = -errno;
			return ks_fail(e, ks_runtime_errno(err),
				       "failed to attach to USDT probe %s:%s in '%s': %s",
				       p->provider, p->name, p->shown, err_text(err, buf, sizeof(buf)));
		}
		err = keep_link(a, link, i > 0);
		if (err)
			return ks_fail(e, err, "out of memory");
	}
	return 0;
}

/*
 * uprobe.session at the N offsets OFFS of PATH, each with its cookie
 * (COOKIES; NULL: none), in PID (-1: every process), SKEL's session
 * program: the link kept, 0; or a negative errno.
 */
static int attach_usession(struct attacher *a, struct ksnoop_bpf *skel, const char *path,
			   const unsigned long *offs, const __u64 *cookies, int n, int pid)
{
	int fd = kfeatures__uprobe_session_link(bpf_program__fd(skel->progs.ksnoop_usession), path,
						offs, cookies, n, pid > 0 ? pid : 0);
	int *fds;

	if (fd < 0)
		return fd;
	fds = realloc(a->session_fds, (a->nsession_fds + 1) * sizeof(*fds));
	if (!fds) {
		close(fd);
		return -ENOMEM;
	}
	a->session_fds = fds;
	a->session_fds[a->nsession_fds++] = fd;
	return 0;
}

/*
 * A user function's instance, MULTI: for a uprobe.session link (which is
 * a uprobe.multi one).  Sleepable first, so that user memory not paged in
 * yet can be read; the plain programs where the kernel or the verifier
 * refuses that.
 */
static struct ksnoop_bpf *load_ufunc(struct attacher *a, const struct target *tg, bool multi,
				     struct ks_error *e)
{
	const struct ufunc_match *m = &tg->ufunc;
	bool sleepable = ufunc_sleepable(&tg->plan);
	struct ksnoop_bpf *skel;

	skel = sleepable ? load_instance(a, &tg->plan, ATTACH_UPROBE, true, multi, 0, e) : NULL;
	if (skel) {
		log_info("%s: sleepable programs (user memory is paged in to be read)", m->name);
		return skel;
	}
	log_info("%s: %s%s; user memory not paged in yet reads as a fault", m->name,
		 sleepable ? "sleepable programs refused: " : ufunc_not_sleepable(&tg->plan),
		 sleepable ? e->msg : "");
	ks_clear(e);
	return load_instance(a, &tg->plan, ATTACH_UPROBE, false, multi, 0, e);
}

/*
 * A user function through uprobe.session: one program, one link, the
 * entry record in the task's session slots.  Where the kernel will not
 * take the link, the instance goes and the caller attaches the
 * uprobe/uretprobe pair with the stash: -ENOENT, said with -v.  Else 0,
 * or what loading the instance failed with.
 */
static int attach_ufunc_session(struct attacher *a, const struct target *tg, int pid,
				struct ks_error *e)
{
	const struct ufunc_match *m = &tg->ufunc;
	unsigned long off = m->file_off;
	struct ksnoop_bpf *skel = load_ufunc(a, tg, true, e);
	int err;

	if (!skel)
		return e->err;
	err = attach_usession(a, skel, m->attach_path, &off, NULL, 1, pid);
	if (err == -ENOMEM)
		return ks_fail(e, err, "out of memory");
	if (err) {
		log_info("%s: uprobe.session refused (%s): a uprobe and a uretprobe, entry values in the stash",
			 m->name, strerror(-err));
		drop_last_instance(a);
		return -ENOENT;
	}
	return release_instance(a) ? ks_fail(e, -ENOMEM, "out of memory") : 0;
}

/*
 * A user function: through uprobe.session where the kernel has it and
 * the plan fits; else a uprobe at its entry and a uretprobe for its
 * return, in PID (-1: every process), through the file the front end
 * opened.
 */
static int attach_ufunc(struct attacher *a, const struct target *tg, int pid, struct ks_error *e)
{
	const struct ufunc_match *m = &tg->ufunc;
	struct ksnoop_bpf *skel;
	int side, err;

	say_entry_keep(a, &tg->plan, ATTACH_UPROBE);
	if (uses_session(&tg->plan, ATTACH_UPROBE, true)) {
		err = attach_ufunc_session(a, tg, pid, e);
		if (err != -ENOENT)
			return err;
	}
	skel = load_ufunc(a, tg, false, e);
	if (!skel)
		return e->err;
	for (side = KSNOOP_ENTRY; side <= KSNOOP_RETURN; side++) {
		struct bpf_program *prog = uprobe_prog(skel, &tg->plan, side);
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = side == KSNOOP_RETURN);
		struct bpf_link *link;
		char buf[ERR_TEXT_MAX];

		if (!side_attached(&tg->plan.bpf, side))
			continue;
		link = bpf_program__attach_uprobe_opts(prog, pid > 0 ? pid : -1, m->attach_path,
						       m->file_off, &opts);
		if (!link) {
			err = -errno;
			return ks_fail(e, ks_runtime_errno(err), "failed to attach a %s to %s in '%s': %s",
				       side == KSNOOP_ENTRY ? "uprobe" : "uretprobe", m->name, m->path,
				       err_text(err, buf, sizeof(buf)));
		}
		if (prog == skel->progs.ksnoop_uprobe)
			skel->links.ksnoop_uprobe = link;
		else if (prog == skel->progs.ksnoop_uretprobe)
			skel->links.ksnoop_uretprobe = link;
		else if (prog == skel->progs.ksnoop_uprobe_count)
			skel->links.ksnoop_uprobe_count = link;
		else
			skel->links.ksnoop_uretprobe_count = link;
	}
	return release_instance(a) ? ks_fail(e, -ENOMEM, "out of memory") : 0;
}

static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

#define GROUP_LABEL_MAX	(SPEC_MAX_NAME + 32)
/* "sys_enter_" or "sys_exit_" and a system call's name. */
#define SYSCALL_EVENT_MAX	(SPEC_MAX_NAME + 16)

/* "NAME" or "NAME and N more": a group of N targets in -v lines. */
static const char *group_label(char *buf, size_t sz, const struct attach_func *funcs, int n)
{
	if (n > 1)
		snprintf(buf, sz, "%s and %d more", funcs[0].name, n - 1);
	else
		snprintf(buf, sz, "%s", funcs[0].name);
	return buf;
}

/* The cookie of FUNCS[I]'s probes: its func_id, and where its values are. */
static __u64 group_cookie(const struct attach_func *funcs, int i)
{
	return funcs[i].func_id | (__u64)i << KSNOOP_COOKIE_INDEX_SHIFT;
}

/*
 * kprobe.multi: one link per side for the whole group; 0, or why not.
 * *LOADED says whether the program itself loaded (if not, the plan is at
 * fault, not kprobe.multi).
 */
static int attach_multi(struct attacher *a, const struct capture_plan *plan,
			const struct attach_func *funcs, int n, bool *loaded, struct ks_error *e)
{
	struct ksnoop_bpf *skel;
	const char **syms = calloc(n, sizeof(*syms));
	__u64 *cookies = calloc(n, sizeof(*cookies));
	int i, err = 0, side, nlinks = a->nlinks;

	*loaded = false;
	if (!syms || !cookies) {
		free(syms);
		free(cookies);
		return ks_fail(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		syms[i] = funcs[i].name;
		cookies[i] = group_cookie(funcs, i);
	}
	skel = load_group_instance(a, plan, ATTACH_KPROBE, false, true, 0, funcs, n, e);
	if (!skel)
		err = e->err;
	*loaded = skel != NULL;
	if (skel && !err && uses_session(plan, ATTACH_KPROBE, true)) {
		/* One link for both sides. */
		LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = syms, .cookies = cookies,
			    .cnt = n, .session = true);
		struct bpf_link *link = bpf_program__attach_kprobe_multi_opts(skel->progs.ksnoop_ksession,
									  NULL, &opts);

		err = link ? keep_link(a, link, false) :
		      ks_fail(e, -errno, "kprobe.session: %s", strerror(errno));
	}
	for (side = 0; skel && !err && side < KSNOOP_NR_KINDS; side++) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = syms, .cookies = cookies,
			    .cnt = n, .retprobe = side == KSNOOP_RETURN);
		struct bpf_link *link;

		if (loads(skel->progs.ksnoop_ksession))
			break;
		if (!side_attached(&plan->bpf, side))
			continue;
		link = bpf_program__attach_kprobe_multi_opts(side == KSNOOP_ENTRY ?
							     skel->progs.ksnoop_kprobe :
							     skel->progs.ksnoop_kretprobe, NULL, &opts);
		err = link ? keep_link(a, link, false) : ks_fail(e, -errno, "kprobe.multi: %s", strerror(errno));
	}
	free(syms);
	free(cookies);
	if (skel && err) {
		/* Links first: they hold the programs. */
		while (a->nlinks > nlinks)
			bpf_link__destroy(a->links[--a->nlinks]);
		drop_last_instance(a);
	}
	return err;
}

/* One raw_tp link per tracepoint of the group loaded as SKEL. */
static int attach_tp_group(struct attacher *a, struct ksnoop_bpf *skel,
			   const struct attach_func *funcs, int n, bool *failed, struct ks_error *e)
{
	char label[GROUP_LABEL_MAX];
	int i, err, attached = 0;

	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_raw_tracepoint_opts, opts, .cookie = group_cookie(funcs, i));
		struct bpf_link *link;

		if (stop__requested())
			return attach_stopped(e);
		link = bpf_program__attach_raw_tracepoint_opts(skel->progs.ksnoop_tp, funcs[i].name,
							       &opts);
		err = link ? keep_link(a, link, false) : -errno;
		if (err && failed && !attacher__exhausted(err)) {
			/* A glob's tracepoint the kernel refuses: left out, said by the caller. */
			failed[i] = true;
			continue;
		}
		if (err)
			return attach_fail(e, err, "attach to tracepoint", funcs[i].name);
		attached++;
		a->nattached++;
	}
	log_info("%s: one program, %d tracepoint%s", group_label(label, sizeof(label), funcs, n),
		 attached, attached == 1 ? "" : "s");
	return 0;
}

/*
 * One tracepoint link per side and system call of the group loaded as
 * SKEL (sys:): syscalls:sys_enter_NAME and sys_exit_NAME, each through a
 * perf link with the call's cookie.
 */
static int attach_syscall_group(struct attacher *a, struct ksnoop_bpf *skel,
				const struct ksnoop_plan *bp, const struct attach_func *funcs,
				int n, bool *failed, struct ks_error *e)
{
	char label[GROUP_LABEL_MAX], event[SYSCALL_EVENT_MAX];
	int i, side, err = 0, attached = 0, nlinks;

	for (i = 0; i < n; i++) {
		if (stop__requested())
			return attach_stopped(e);
		nlinks = a->nlinks;
		for (side = 0; side < KSNOOP_NR_KINDS && !err; side++) {
			LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = group_cookie(funcs, i));
			struct bpf_link *link;

			if (!side_attached(bp, side))
				continue;
			snprintf(event, sizeof(event), "sys_%s_%s",
				 side == KSNOOP_ENTRY ? "enter" : "exit", funcs[i].name);
			link = bpf_program__attach_tracepoint_opts(side == KSNOOP_ENTRY ?
								   skel->progs.ksnoop_syscall_tp :
								   skel->progs.ksnoop_syscall_exit,
								   "syscalls", event, &opts);
			err = link ? keep_link(a, link, false) : -errno;
		}
		if (err && failed && !attacher__exhausted(err)) {
			/* Left out, said by the caller: its entry without its exit goes too. */
			while (a->nlinks > nlinks)
				bpf_link__destroy(a->links[--a->nlinks]);
			failed[i] = true;
			err = 0;
			continue;
		}
		if (err)
			return attach_fail(e, err, "attach to tracepoint", event);
		attached++;
		a->nattached++;
	}
	log_info("%s: one program, %d system call%s", group_label(label, sizeof(label), funcs, n),
		 attached, attached == 1 ? "" : "s");
	return 0;
}

/*
 * The group loaded as SKEL (sys: on raw_syscalls): each call's number
 * names its cookie in the program's sys_cookies, then one raw tracepoint
 * link per side for them all.  A call without a number (sharing.c left
 * none in the group) would be marked in FAILED.
 */
static int attach_rawsys_group(struct attacher *a, struct ksnoop_bpf *skel,
			       const struct ksnoop_plan *bp, const struct attach_func *funcs,
			       int n, bool *failed, struct ks_error *e)
{
	int fd = bpf_map__fd(skel->maps.sys_cookies);
	char label[GROUP_LABEL_MAX];
	int i, side, err = 0, attached = 0;

	for (i = 0; i < n; i++) {
		__u64 cookie = group_cookie(funcs, i) | KSNOOP_SYSNR_TRACED;
		int nr = sysnr__of(funcs[i].name);
		__u32 key = nr;

		if (nr < 0) {
			failed[i] = true;
			continue;
		}
		if (bpf_map_update_elem(fd, &key, &cookie, BPF_ANY))
			return attach_fail(e, -errno, "fill the system call numbers for", funcs[i].name);
		attached++;
	}
	for (side = 0; side < KSNOOP_NR_KINDS; side++) {
		const char *tp = side == KSNOOP_ENTRY ? "sys_enter" : "sys_exit";
		struct bpf_link *link;

		if (!side_attached(bp, side))
			continue;
		link = bpf_program__attach_raw_tracepoint(side == KSNOOP_ENTRY ?
							  skel->progs.ksnoop_rawsys_enter :
							  skel->progs.ksnoop_rawsys_exit, tp);
		err = link ? keep_link(a, link, false) : -errno;
		if (err)
			return attach_fail(e, err, "attach to raw_syscalls tracepoint", tp);
	}
	a->nattached += attached;
	log_info("%s: one program on raw_syscalls, %d system call%s",
		 group_label(label, sizeof(label), funcs, n), attached, attached == 1 ? "" : "s");
	return 0;
}

/*
 * A group of KIND: functions (ATTACH_KPROBE) or tracepoints (ATTACH_TP,
 * where the kernel has raw_tp cookies) that share the program GROUP_BPF
 * (PLAN is any member's, for its name), each probe's cookie naming its
 * target (and its values' index).  kprobes attach through kprobe.multi
 * where the kernel has it, else one kprobe per function; tracepoints with
 * a raw_tp link each.  FAILED: a target the kernel refuses is marked there
 * and left out instead of failing all.
 */
static int attach_shared(struct attacher *a, const struct capture_plan *plan,
			 const struct ksnoop_plan *group_bpf, enum attach_kind kind,
			 const struct attach_func *funcs, int n, bool *failed, struct ks_error *e)
{
	struct capture_plan *group = malloc(sizeof(*group));
	char label[GROUP_LABEL_MAX];
	struct ksnoop_bpf *skel;
	int i, side, err = 0, attached = 0;
	time_t next_note;

	if (!group)
		return ks_fail(e, -ENOMEM, "out of memory");
	memcpy(group, plan, sizeof(*group));
	group->bpf = *group_bpf;
	say_entry_keep(a, group, kind);
	if (kind == ATTACH_KPROBE && kfeatures__get()->have[FEAT_KPROBE_MULTI]) {
		bool loaded;

		err = attach_multi(a, group, funcs, n, &loaded, e);
		if (!err) {
			a->nattached += n;
			log_info("%s: one program, %s", group_label(label, sizeof(label), funcs, n),
				 uses_session(group, kind, true) ? "kprobe.session" : "kprobe.multi");
			free(group);
			return 0;
		}
		if (loaded) {
			/* This group's: a function kprobe.multi will not take, say. */
			log_info("kprobe.multi refused (%s): one kprobe per function", strerror(-err));
		} else {
			log_info("%s: %s", group_label(label, sizeof(label), funcs, n), e->msg);
		}
	}
	skel = load_group_instance(a, group, kind, false, false, 0, funcs, n, e);
	if (!skel)
		err = e->err;
	free(group);
	if (!skel && failed && !attacher__exhausted(err)) {
		/* The plan of a glob's group does not load: its functions are left out. */
		for (i = 0; i < n; i++)
			failed[i] = true;
		return 0;
	}
	if (!skel)
		return err;
	if (kind == ATTACH_TP)
		return attach_tp_group(a, skel, funcs, n, failed, e);
	if (kind == ATTACH_SYSCALL)
		return attach_syscall_group(a, skel, group_bpf, funcs, n, failed, e);
	if (kind == ATTACH_SYSCALL_RAW)
		return attach_rawsys_group(a, skel, group_bpf, funcs, n, failed, e);
	next_note = now_s() + 1;
	for (i = 0; i < n; i++) {
		if (stop__requested())
			return attach_stopped(e);
		/* Hundreds of kprobes take a while: say how far it got, each second. */
		if (now_s() >= next_note) {
			log_info("attaching kprobes: %d of %d functions", i, n);
			next_note = now_s() + 1;
		}
		for (side = 0; side < KSNOOP_NR_KINDS; side++) {
			LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = group_cookie(funcs, i),
				    .retprobe = side == KSNOOP_RETURN);
			struct bpf_link *link;

			if (!side_attached(&plan->bpf, side))
				continue;
			link = bpf_program__attach_kprobe_opts(side == KSNOOP_ENTRY ?
							       skel->progs.ksnoop_kprobe :
							       skel->progs.ksnoop_kretprobe,
							       funcs[i].name, &opts);
			err = link ? keep_link(a, link, false) : -errno;
			if (err)
				break;
		}
		if (err && failed && !attacher__exhausted(err)) {
			/* A glob's function the kernel refuses: left out, said by the caller. */
			failed[i] = true;
			err = 0;
			continue;
		}
		if (err)
			return attach_fail(e, err, "attach a kprobe to", funcs[i].name);
		attached++;
		a->nattached++;
	}
	log_info("%s: one program, %d function%s with a kprobe each",
		 group_label(label, sizeof(label), funcs, n), attached, attached == 1 ? "" : "s");
	return 0;
}

/*
 * A group of user functions of one file (sharing.h): one program, sleepable
 * where the kernel and the verifier allow it (as attach_ufunc()); MULTI:
 * its programs load for uprobe.multi links.
 */
static struct ksnoop_bpf *load_ufunc_group(struct attacher *a, const struct capture_plan *plan,
					   bool multi, const struct attach_func *funcs, int n,
					   struct ks_error *e)
{
	bool sleepable = ufunc_sleepable(plan);
	struct ksnoop_bpf *skel;

	skel = sleepable ? load_group_instance(a, plan, ATTACH_UPROBE, true, multi, 0, funcs, n, e) :
	       NULL;
	if (skel)
		return skel;
	log_info("%s and the others of its group: %s%s; user memory not paged in yet reads as a fault",
		 funcs[0].name, sleepable ? "sleepable programs refused: " :
		 ufunc_not_sleepable(plan), sleepable ? e->msg : "");
	ks_clear(e);
	return load_group_instance(a, plan, ATTACH_UPROBE, false, multi, 0, funcs, n, e);
}

/*
 * One uprobe.multi link per side for every function of the group, or one
 * uprobe.session link where SKEL was loaded for it: 0, or why not.
 */
static int attach_ufunc_multi(struct attacher *a, struct ksnoop_bpf *skel,
			      const struct capture_plan *plan, const char *path,
			      const unsigned long *offs, const __u64 *cookies, int n, int pid,
			      struct ks_error *e)
{
	int side, err = 0;

	if (loads(skel->progs.ksnoop_usession)) {
		err = attach_usession(a, skel, path, offs, cookies, n, pid);
		return err ? ks_fail(e, err, "uprobe.session: %s", strerror(-err)) : 0;
	}
	for (side = 0; side < KSNOOP_NR_KINDS && !err; side++) {
		LIBBPF_OPTS(bpf_uprobe_multi_opts, opts, .offsets = offs, .cookies = cookies,
			    .cnt = n, .retprobe = side == KSNOOP_RETURN);
		struct bpf_link *link;

		if (!side_attached(&plan->bpf, side))
			continue;
		link = bpf_program__attach_uprobe_multi(uprobe_prog(skel, plan, side),
							pid > 0 ? pid : -1, path, NULL, &opts);
		err = link ? keep_link(a, link, false) :
		      ks_fail(e, -errno, "uprobe.multi: %s", strerror(errno));
	}
	return err;
}

/*
 * A uprobe (and a uretprobe) per function, each with its function's
 * cookie; FAILED marks one the kernel refuses, left out.
 */
static int attach_ufunc_each(struct attacher *a, struct ksnoop_bpf *skel,
			     const struct capture_plan *plan, const char *path,
			     const struct attach_func *funcs, const unsigned long *offs,
			     const __u64 *cookies, int n, int pid, bool *failed, struct ks_error *e)
{
	time_t next_note = now_s() + 1;
	int i, side, err = 0;

	for (i = 0; i < n; i++) {
		if (stop__requested())
			return attach_stopped(e);
		if (now_s() >= next_note) {
			log_info("attaching uprobes: %d of %d functions", i, n);
			next_note = now_s() + 1;
		}
		for (side = 0; side < KSNOOP_NR_KINDS && !err; side++) {
			LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = cookies[i],
				    .retprobe = side == KSNOOP_RETURN);
			struct bpf_link *link;

			if (!side_attached(&plan->bpf, side))
				continue;
			link = bpf_program__attach_uprobe_opts(uprobe_prog(skel, plan, side),
							       pid > 0 ? pid : -1, path, offs[i], &opts);
			err = link ? keep_link(a, link, false) : -errno;
		}
		if (err && !attacher__exhausted(err)) {
			failed[i] = true;
			err = 0;
			continue;
		}
		if (err)
			return attach_fail(e, err, "attach a uprobe to", funcs[i].name);
	}
	return 0;
}

/*
 * The user functions FUNCS of the file PATH (through its /proc/self/fd
 * link; OFFS their file offsets), one program for all of them, the
 * cookie naming each: one uprobe.multi link per side where the kernel has
 * it (and KSNOOP_FEATURES leaves it on), else, or where the kernel
 * refuses the link, a uprobe per function and side.  uprobe.multi costs
 * one link and one pass over the file's pages where the uprobes cost 2N
 * links and perf events (the commit that added this measured both).
 */
static int attach_ufunc_group(struct attacher *a, const struct capture_plan *plan,
			      const struct attach_func *funcs, const unsigned long *offs,
			      const char *path, int n, int pid, bool *failed, struct ks_error *e)
{
	bool multi = kfeatures__ufunc_multi(kfeatures__get());
	__u64 *cookies = calloc(n, sizeof(*cookies));
	char label[GROUP_LABEL_MAX];
	struct ksnoop_bpf *skel;
	int i, err, nlinks = a->nlinks, attached = 0;

	if (!cookies)
		return ks_fail(e, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		cookies[i] = group_cookie(funcs, i);
	group_label(label, sizeof(label), funcs, n);
	say_entry_keep(a, plan, ATTACH_UPROBE);
	skel = multi ? load_ufunc_group(a, plan, true, funcs, n, e) : NULL;
	err = skel ? attach_ufunc_multi(a, skel, plan, path, offs, cookies, n, pid, e) : -1;
	if (!err) {
		log_info("%s: one program, %s", label,
			 loads(skel->progs.ksnoop_usession) ? "uprobe.session" : "uprobe.multi");
		free(cookies);
		return 0;
	}
	if (multi) {
		log_info("%s: uprobe.multi refused (%s): a uprobe per function", label, e->msg);
		while (a->nlinks > nlinks)
			bpf_link__destroy(a->links[--a->nlinks]);
		if (skel)
			drop_last_instance(a);
	}
	ks_clear(e);
	skel = load_ufunc_group(a, plan, false, funcs, n, e);
	err = skel ? attach_ufunc_each(a, skel, plan, path, funcs, offs, cookies, n, pid, failed, e) :
	      e->err;
	free(cookies);
	if (!skel && !attacher__exhausted(err)) {
		/* The group's plan does not load: its functions are left out, said by the caller. */
		for (i = 0; i < n; i++)
			failed[i] = true;
		return 0;
	}
	for (i = 0; i < n && !err; i++)
		attached += !failed[i];
	if (!err)
		log_info("%s: one program, %d function%s with a uprobe each", label, attached,
			 attached == 1 ? "" : "s");
	return err;
}

/*
 * Descriptors a run holds once attached, estimated from above (measured
 * against -v's "N links" on 6.1: a kprobe is a perf event and its link,
 * two descriptors a side): a kprobe or uprobe per side, each two; a
 * program of its own keeps a copy of each program (release_instance());
 * a tracepoint or kprobe.multi group's member one link or none; the
 * instance being loaded and the first one's maps, and stdio, the rest.
 */
#define FDS_BASE	64
#define FDS_PER_PROBE	2

static long target_fds(const struct target_list *l, const struct target *tg)
{
	int sides = side_attached(&tg->plan.bpf, KSNOOP_ENTRY) +
		    side_attached(&tg->plan.bpf, KSNOOP_RETURN);
	bool shared = groups__shared(l, tg);

	switch (tg->kind) {
	case ATTACH_USDT:
		return (long)FDS_PER_PROBE * (tg->usdt.nsites > 0 ? tg->usdt.nsites : 1);
	case ATTACH_TP:
		return shared ? 1 : 2;
	case ATTACH_KPROBE:
		if (shared && kfeatures__get()->have[FEAT_KPROBE_MULTI])
			return 0;
		return (long)FDS_PER_PROBE * sides + (shared ? 0 : 2);
	case ATTACH_SYSCALL:
		return (long)FDS_PER_PROBE * sides + (shared ? 0 : 2);
	case ATTACH_UPROBE:
		/* A glob's user functions through one uprobe.multi link per side. */
		if (shared && kfeatures__ufunc_multi(kfeatures__get()))
			return 0;
		return (long)FDS_PER_PROBE * sides + (shared ? 0 : 2);
	default:
		return (long)FDS_PER_PROBE * (sides ? sides : 1) + 2;
	}
}

long attacher__fds_needed(const struct target_list *l)
{
	long n = FDS_BASE;
	int i;

	for (i = 0; i < l->n; i++)
		n += target_fds(l, &l->v[i]);
	return n;
}

int attacher__attached_so_far(const struct attacher *a)
{
	return a->nattached;
}

int attacher__set_gate(struct attacher *a, bool open)
{
	__u32 zero = 0, value = open;

	if (a->gate_fd < 0)
		return -EBADF;
	return bpf_map_update_elem(a->gate_fd, &zero, &value, BPF_ANY) ? -errno : 0;
}

void attacher__log_cost(const struct attacher *a)
{
	int i, j, per = sizeof(a->skels[0]->links) / sizeof(struct bpf_link *);
	int nlinks = a->nlinks + a->nsession_fds, skipped;
	size_t before, after;

	for (i = 0; i < a->nskels; i++)
		for (j = 0; j < per; j++)
			nlinks += ((struct bpf_link **)&a->skels[i]->links)[j] != NULL;
	log_info("%d program instance(s) loaded in %.2f s; %d links; attached in %.2f s",
		 a->nloaded, a->load_s, nlinks, now_mono() - a->start_s);
	log_info("vmlinux BTF: ksnoop's lent to libbpf %d time(s), parsed for libbpf %d time(s)",
		 btf_lend__lent(), btf_lend__parsed());
	if (a->nkfields >= 0) {
		char missing[256];

		klayout__missing(&a->kfields, missing, sizeof(missing));
		log_info("kernel fields: %d of %d found in vmlinux BTF%s%s%s", a->nkfields,
			 klayout__wanted(), *missing ? " (not there: " : "", missing,
			 *missing ? ")" : "");
	} else
		log_info("kernel fields: none looked up (no vmlinux BTF read; the task's name by helper)");
	if (a->nprefilter)
		log_info("%d program instance(s) test their first predicate before anything else: a call it rejects costs least",
			 a->nprefilter);
	prune_hook__counts(&before, &after, &skipped);
	if (before)
		log_info("BPF code: %zu of %zu instructions handed to the kernel, the rest dead for these plans (%d program(s) whole)",
			 after, before, skipped);
}

void attacher__lend_vmlinux(struct attacher *a, const struct btf *vmlinux)
{
	a->vmlinux = vmlinux;
}

int attacher__ringbuf_fd(const struct attacher *a)
{
	return a->ringbuf_fd;
}

int attacher__counts_fd(const struct attacher *a)
{
	return a->counts_fd;
}

int attacher__stacks_fd(const struct attacher *a)
{
	return a->stacks_fd;
}

int attacher__by_counts_fd(const struct attacher *a)
{
	return a->by_counts_fd;
}

__u64 attacher__counter(const struct attacher *a, enum ksnoop_counter counter)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 total = 0, *vals;
	__u32 key = counter;
	int i;

	if (a->counters_fd < 0 || ncpu <= 0)
		return 0;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return 0;
	if (bpf_map_lookup_elem(a->counters_fd, &key, vals) == 0)
		for (i = 0; i < ncpu; i++)
			total += vals[i];
	free(vals);
	return total;
}

/*
 * Calls the kernel skipped program FD for (recursion_misses): it fired inside
 * a BPF program, or, an fentry/fexit one, on a CPU where a preempted run of
 * it had not ended (the trampoline's guard is per CPU); 0 if unknown.
 */
static __u64 recursion_misses(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return fd >= 0 && bpf_prog_get_info_by_fd(fd, &info, &len) == 0 ? info.recursion_misses : 0;
}

__u64 attacher__missed(const struct attacher *a)
{
	struct bpf_program *prog;
	__u64 total = 0;
	int i;

	for (i = 0; i < a->nskels; i++)
		bpf_object__for_each_program(prog, a->skels[i]->obj)
			total += recursion_misses(bpf_program__fd(prog));
	for (i = 0; i < a->nprog_fds; i++)
		total += recursion_misses(a->prog_fds[i]);
	return total;
}

/* ---- every target of a list: groups first, then one by one ---- */

/*
 * The USDT probes of group G: one program, the USDT cookie naming each
 * probe's target.
 */
static int attach_usdt_group(struct attacher *a, struct target_list *l,
			     const struct target_group *g, int pid, struct ks_error *e)
{
	struct attach_usdt *probes = calloc(g->n, sizeof(*probes));
	int k, err;

	if (!probes)
		return ks_fail(e, -ENOMEM, "out of memory");
	for (k = 0; k < g->n; k++) {
		const struct usdt_match *u = &l->v[g->idx[k]].usdt;

		probes[k] = (struct attach_usdt){ .path = u->attach_path, .shown = u->path,
						  .provider = u->provider, .name = u->name,
						  .func_id = (__u32)g->idx[k], .nsites = u->nsites,
						  .own = u->own_attach };
	}
	err = attach_usdt_probes(a, &l->v[g->idx[0]].plan, probes, g->n, pid, e);
	for (k = 0; k < g->n && !err; k++)
		l->v[g->idx[k]].attached = true;
	if (!err)
		a->nattached += g->n;
	free(probes);
	return err;
}

/*
 * The functions or tracepoints of group G: left out, and said with -v,
 * are those the kernel refuses.
 */
static int attach_func_group(struct attacher *a, struct target_list *l,
			     const struct target_group *g, int pid, struct ks_error *e)
{
	const struct capture_plan *lead = &l->v[g->idx[0]].plan;
	bool per_func = g->plan.flags & KSNOOP_PLAN_FUNC_VALUES;
	struct attach_func *funcs = calloc(g->n, sizeof(*funcs));
	struct ksnoop_func_values *fvs = per_func ? calloc(g->n, sizeof(*fvs)) : NULL;
	bool *failed = calloc(g->n, sizeof(*failed));
	bool ufunc = g->kind == ATTACH_UPROBE;
	unsigned long *offs = ufunc ? calloc(g->n, sizeof(*offs)) : NULL;
	int k, err;

	if (!funcs || !failed || (per_func && !fvs) || (ufunc && !offs)) {
		err = ks_fail(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < g->n; k++) {
		const struct capture_plan *p = &l->v[g->idx[k]].plan;

		if (per_func)
			resolver__func_values(p, &fvs[k]);
		/* A user function by the name it is shown by (C++: demangled). */
		funcs[k] = (struct attach_func){ ufunc ? l->v[g->idx[k]].ufunc.shown : p->sig.attach,
						 (__u32)g->idx[k],
						 per_func ? &fvs[k] : NULL };
		if (ufunc)
			offs[k] = l->v[g->idx[k]].ufunc.file_off;
	}
	if (per_func)
		log_info("%s and %d more: values per target, records of %u and %u bytes (entry, return)",
			 lead->sig.attach, g->n - 1, g->plan.side[KSNOOP_ENTRY].rec_size,
			 g->plan.side[KSNOOP_RETURN].rec_size);
	ks_clear(e);
	if (ufunc) {
		struct capture_plan *group = malloc(sizeof(*group));

		if (group) {
			memcpy(group, lead, sizeof(*group));
			group->bpf = g->plan;
		}
		err = group ? attach_ufunc_group(a, group, funcs, offs,
						 l->v[g->idx[0]].ufunc.attach_path, g->n, pid, failed, e) :
		      ks_fail(e, -ENOMEM, "out of memory");
		free(group);
	} else {
		err = attach_shared(a, lead, &g->plan, g->kind, funcs, g->n, failed, e);
	}
	for (k = 0; k < g->n && !err; k++) {
		l->v[g->idx[k]].attached = !failed[k];
		if (failed[k])
			log_info("%s: %s left out: the kernel refused its program or probe (%s)",
				 l->v[g->idx[k]].spec->text, funcs[k].name,
				 e->msg[0] ? e->msg : "-d shows why");
	}
out:
	free(funcs);
	free(fvs);
	free(offs);
	free(failed);
	return err;
}

/*
 * Targets grouped by plan (sharing.h), one program per group: a glob's
 * kprobe targets and tracepoints (a target the kernel refuses is left out,
 * not fatal) and USDT probes (all or nothing).  The USDT links of one
 * program are detached one after another (see DETACH_THREADS): at most
 * 1/DETACH_THREADS of the probes share a program, so that detaching them
 * all takes no longer than with a program each.
 */
static int attach_groups(struct attacher *a, struct target_list *l, int pid, struct ks_error *e)
{
	struct target_groups g;
	int i, nprogs = 0, err = groups__build(&g, l, DETACH_THREADS);

	if (err)
		return ks_fail(e, err, "out of memory");
	for (i = 0; i < g.n && !err; i++) {
		ks_clear(e);
		if (g.v[i].kind == ATTACH_USDT) {
			err = attach_usdt_group(a, l, &g.v[i], pid, e);
			continue;
		}
		err = attach_func_group(a, l, &g.v[i], pid, e);
		nprogs++;
	}
	if (g.nfuncs)
		log_info("%d glob matches in %d program(s)", g.nfuncs, nprogs);
	if (g.nraw || g.nsys_own)
		log_info("sys: %d system call(s) on raw_syscalls (a glob of more than %d calls in at "
			 "most %d programs), %d on their own events (%d of a glob of more programs; "
			 "the rest of a smaller glob, or with no number known here)",
			 g.nraw, l->sys_raw_min, SYS_RAW_MAX_PROGRAMS, g.nsys_own, g.nsys_plans);
	groups__free(&g);
	return err;
}

/*
 * Globs whose every match the kernel refused attached nothing: an error
 * (the last refusal says why), not a trace that waits for nothing.
 */
static int check_any_attached(const struct target_list *l, struct ks_error *e)
{
	char why[sizeof(e->msg)];
	bool tps = true, probes = true;
	int i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].attached)
			return 0;
		tps &= l->v[i].kind == ATTACH_TP;
		probes &= l->v[i].kind == ATTACH_USDT;
	}
	snprintf(why, sizeof(why), "%s", e->msg[0] ? e->msg : "every one was refused");
	return ks_fail(e, ks_runtime_errno(e->err ? e->err : -EOPNOTSUPP),
		       "none of the %d %s matched could be attached: %s", l->n,
		       tps ? "tracepoint(s)" : probes ? "USDT probe(s)" : "function(s)", why);
}

/*
 * Whether the run's count maps can be per CPU: not where a uprobe program
 * adds to them (agg.bpf.h), and decided before the first instance makes
 * them.
 */
static bool counts_percpu(const struct target_list *l)
{
	int i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].kind == ATTACH_USDT || l->v[i].kind == ATTACH_UPROBE)
			return false;
	}
	return true;
}

int attacher__attach_targets(struct attacher *a, struct target_list *l, int pid,
			     struct ks_error *e)
{
	int i, err;

	if (a->counts_fd < 0)
		a->counts_percpu = counts_percpu(l);
	err = attach_groups(a, l, pid, e);
	for (i = 0; i < l->n && !err; i++) {
		struct target *tg = &l->v[i];

		/* Ctrl-C while attaching: stop here, detach what is attached. */
		if (stop__requested()) {
			err = ks_fail(e, -EINTR, "interrupted while attaching");
			break;
		}

		if (tg->attached || groups__shared(l, tg))
			continue;
		if (tg->kind == ATTACH_UPROBE)
			err = attach_ufunc(a, tg, pid, e);
		else
			err = attach_single(a, &tg->plan, tg->kind, e);
		if (err && tg->from_glob && !attacher__exhausted(err)) {
			/* fentry on a glob's match the kernel refuses: left out. */
			log_info("%s: %s left out: %s", tg->spec->text, tg->plan.sig.attach, e->msg);
			err = 0;
			continue;
		}
		tg->attached = !err;
		a->nattached += !err;
	}
	/* The loads are over: a parse of vmlinux BTF kept for them goes. */
	btf_lend__release();
	if (!err)
		err = check_any_attached(l, e);
	return err;
}
