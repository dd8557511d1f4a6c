// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksnoop's capture programs.
 *
 * Every traced target (kernel function, tracepoint, USDT probe) gets its own
 * instance of this object, with its own read-only `plan` written by
 * userspace before load.  The verifier treats a frozen .rodata as constants,
 * so each loop over values, steps and predicates is explored only as
 * far as the plan reaches, and the branches a plan does not use are pruned:
 * the program that runs is, in effect, straight-line code for one target.
 *
 * The programs never format anything.  They evaluate the predicates that
 * can be evaluated on their side, and only then reserve one ring-buffer
 * record and copy raw bytes into it at the offsets the plan gives.
 *
 * This file is the capture path: which target a call is (identify()), the
 * record's reservation, capture_entry() and capture_return(), and the
 * programs.  What they use is in header libraries (libbpf's usdt.bpf.h is
 * the model), each with its own maps, included here only: one object, one
 * skeleton, and every helper still inlined into each program, so the
 * verifier's pruning by the plan's constants is unchanged.
 *
 *   plan.bpf.h      the plan, the counters
 *   ringbuf.bpf.h   the ring buffer and its reader's wake-ups
 *   scratch.bpf.h   per-CPU frames for what does not fit the stack, zeroes
 *   words.bpf.h     a call's argument words, by attach type
 *   read.bpf.h      reads of traced memory, access chains, string bounds
 *   call.bpf.h      struct call and its key
 *   task.bpf.h      task ids and selection (-p, -t, -c, ksnoop itself)
 *   value.bpf.h     a record's header and values
 *   pred.bpf.h      predicates
 *   filter.bpf.h    --filter: a pcap filter's classic BPF over the skb's packet
 *   session.bpf.h   kprobe.session, fsession, uprobe.session: entry records in the task's slots
 *   stash.bpf.h     entry records and times kept until the return
 *   agg.bpf.h       --count, --hist, --by
 *   tree.bpf.h      --tree's sessions
 *   track.bpf.h     --track's objects
 *   taskstack.bpf.h uprobe programs kept off a per-CPU private stack
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ksnoop.h"
#include "arch.bpf.h"
#include "usdt_arg.bpf.h"
#include "plan.bpf.h"
#include "ringbuf.bpf.h"
#include "scratch.bpf.h"
#include "words.bpf.h"
#include "read.bpf.h"
#include "call.bpf.h"
#include "task.bpf.h"
#include "value.bpf.h"
#include "pred.bpf.h"
#include "filter.bpf.h"
#include "stash.bpf.h"
#include "agg.bpf.h"
#include "tree.bpf.h"
#include "track.bpf.h"
#include "taskstack.bpf.h"
#include "pair.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * KSNOOP_PLAN_FUNC_VALUES: each function of the group's values, at the
 * index its cookie gives (sized and filled by userspace before attach; one
 * element, or not created at all, otherwise).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ksnoop_func_values);
} func_values SEC(".maps");

/* sys: through raw_syscalls: number -> cookie (KSNOOP_SYSNR_TRACED). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KSNOOP_SYSNR_MAX);
	__type(key, __u32);
	__type(value, __u64);
} sys_cookies SEC(".maps");

/*
 * The cookie of a call seen on raw_syscalls: its number (as the per-call
 * events read it, from the registers) in sys_cookies; false for a call
 * not traced by this program, or a 32-bit task's.
 */
static __always_inline bool rawsys_cookie(__u64 *ctx, __u64 *cookie)
{
	const void *regs = (const void *)ctx[0];
	long nr = arch_syscall_nr(regs);
	__u32 key = nr;
	__u64 *v;

	if (nr < 0 || nr >= KSNOOP_SYSNR_MAX)
		return false;
	v = bpf_map_lookup_elem(&sys_cookies, &key);
	if (!v || !(*v & KSNOOP_SYSNR_TRACED) || arch_compat_syscall(regs))
		return false;
	*cookie = *v & ~KSNOOP_SYSNR_TRACED;
	return true;
}

/*
 * USDT: does this call site pass the arguments this instance was planned
 * for?  libbpf's spec for the site says how many there are, how wide each
 * is and whether it is signed; sites of one probe may differ in all three.
 * usdt_sig[] ends where the planned arguments do (0): a site with fewer or
 * more is another instance's, whatever its first arguments are.
 */
static __always_inline bool usdt_site_matches(struct pt_regs *ctx)
{
	struct __bpf_usdt_spec *spec;
	int id = __bpf_usdt_spec_id(ctx), i;

	if (id < 0)
		return false;
	spec = bpf_map_lookup_elem(&__bpf_usdt_specs, &id);
	if (!spec)
		return false;
	for (i = 0; i < KSNOOP_MAX_ARGS; i++) {
		__u8 want = plan.usdt_sig[i], got;

		if (!want)
			return spec->arg_cnt == i;
		if (i >= spec->arg_cnt)
			return false;
		got = (64 - (__u8)spec->args[i].arg_bitshift) >> 3;
		if (spec->args[i].arg_signed)
			got |= KSNOOP_USDT_SIGNED;
		if (got != want)
			return false;
	}
	return spec->arg_cnt == KSNOOP_MAX_ARGS;
}

/*
 * Which target this call is: the plan's, or in a group's program the one
 * the probe's cookie names (kprobes; tracepoints where raw_tp has cookies,
 * 6.10 on; USDT through libbpf's cookie), and in a group whose values
 * vary, that target's own accesses (c->fv).  False: nothing to do (a USDT
 * call site planned for by another instance, a cookie without values).
 */
static __always_inline bool identify(void *ctx, enum word_source ws, struct call *c)
{
	__u64 cookie;
	__u32 index;

	c->func_id = plan.func_id;
	c->fv = NULL;
	if (ws == WORDS_USDT) {
		if ((plan.flags & KSNOOP_PLAN_USDT_SIG) && !usdt_site_matches(ctx))
			return false;
		if (plan.flags & KSNOOP_PLAN_COOKIE)
			c->func_id = (__u32)bpf_usdt_cookie(ctx);
		return true;
	}
	if (ws == WORDS_RAWSYS) {
		if (!rawsys_cookie(ctx, &cookie))
			return false;
	} else if (ws == WORDS_FENTRY || !(plan.flags & KSNOOP_PLAN_COOKIE)) {
		return true;
	} else {
		cookie = bpf_get_attach_cookie(ctx);
	}
	index = cookie >> KSNOOP_COOKIE_INDEX_SHIFT;
	c->func_id = (__u32)cookie;
	if (!(plan.flags & KSNOOP_PLAN_FUNC_VALUES))
		return true;
	c->fv = bpf_map_lookup_elem(&func_values, &index);
	return c->fv != NULL;
}

/*
 * The start of either side: false if it has nothing to do for this call;
 * else which target it is, and its key where the side keeps state per
 * call (KEYED, or a time).
 */
static __always_inline bool begin_call(void *ctx, enum word_source ws, int kind,
				       struct call *c, bool keyed)
{
	const volatile struct ksnoop_side_plan *side = &plan.side[kind];
	__u32 timed = side->flags & KSNOOP_SIDE_TIMED;

	if (!side->enabled && !(side->flags & KSNOOP_SIDE_RETRY) && !timed)
		return false;
	if (!identify(ctx, ws, c))
		return false;
	/* A tree's inner function keeps its time in its session: no key for that. */
	if (keyed || (timed && !c->tree_start))
		call_key(ctx, ws, kind, c->func_id, &c->key);
	return true;
}

/*
 * A record for SIDE, the clock read now if it was not (only for calls
 * that are kept, or timed); NULL: the ring buffer is full, counted.
 */
static __always_inline void *reserve(const volatile struct ksnoop_side_plan *side,
				     struct call *c, bool keyed)
{
	void *rec;

	if (!c->now)
		c->now = bpf_ktime_get_ns();
	rec = bpf_ringbuf_reserve(&events, side->rec_size, 0);
	if (!rec) {
		count(KSNOOP_CNT_LOST);
		if (keyed)
			stash_clear(&c->key);
	}
	return rec;
}

/*
 * The predicates of SIDE, then --filter's packet (the entry's), then
 * --track's set: does this call report?
 */
static __always_inline bool call_selected(const volatile struct ksnoop_side_plan *side,
					  const __u64 *words, struct call *c)
{
	bool held = preds_hold(side, words) && filter_pass(words);

	if (!plan.track)
		return held;
	return track_call(words, held, c);
}

/* A clone's return: the object made from a tracked source joins, reported here. */
static __always_inline int track_clone_return(void *ctx, enum word_source ws)
{
	const volatile struct ksnoop_side_plan *side = &plan.side[KSNOOP_RETURN];
	__u64 words[NWORDS] = {};
	struct call c = {};
	__u64 *src, obj;
	void *rec;

	if (!identify(ctx, ws, &c))
		return 0;
	call_key(ctx, ws, KSNOOP_RETURN, c.func_id, &c.key);
	if (side->flags & KSNOOP_SIDE_TIMED)
		c.start = entry_time_take(&c.key);
	src = bpf_map_lookup_elem(&track_clones, &c.key);
	if (!src)
		return 0;
	bpf_map_delete_elem(&track_clones, &c.key);
	read_words(ctx, ws, KSNOOP_RETURN, words);
	obj = words[KSNOOP_MAX_ARGS];
	if (!obj || is_err_ptr(obj))
		return 0;
	c.session = track_add(obj);
	if (!side->enabled)
		return 0;
	c.object = obj;
	c.track_flags = KSNOOP_EV_OBJECT | KSNOOP_EV_CLONED;
	rec = reserve(side, &c, false);
	if (!rec)
		return 0;
	fill_header(rec, KSNOOP_RETURN, &c);
	fill_values(ctx, ws, KSNOOP_RETURN, rec, side, c.fv, words, 0);
	submit(rec, side->rec_size, c.now);
	return 0;
}

/*
 * Entry, an event: one ring-buffer record.  KSNOOP_SIDE_RETRY: an entry
 * whose user memory was not paged in yet waits in the stash instead, for
 * the return to read again and emit.  (Ring-buffer memory cannot be a map
 * value on older kernels: the record is copied into its stash element,
 * on this path only.)
 */
static __always_inline int emit_entry(void *ctx, enum word_source ws,
				      const volatile struct ksnoop_side_plan *side,
				      const __u64 *words, struct call *c, bool keyed)
{
	bool inner = plan.tree == KSNOOP_TREE_INNER;	/* a tracepoint in a tree */
	void *rec = inner ? tree_rec_begin(side, c) : reserve(side, c, keyed);

	if (!rec)
		return 0;
	fill_header(rec, KSNOOP_ENTRY, c);
	fill_values(ctx, ws, KSNOOP_ENTRY, rec, side, c->fv, words, 0);
	if (inner) {
		tree_rec_keep(side, c);
		return 0;
	}
	if (side->flags & KSNOOP_SIDE_RETRY) {
		if (has_user_fault(rec, side, KSNOOP_ENTRY, c->fv) &&
		    stash_record(&c->key, rec, side->rec_size)) {
			bpf_ringbuf_discard(rec, BPF_RB_NO_WAKEUP);
			return 0;
		}
		stash_clear(&c->key);
	}
	submit(rec, side->rec_size, c->now);
	return 0;
}

/*
 * The entry of a call (fentry, kprobe), or a tracepoint or USDT probe
 * (which have no return): select the call, then keep its time, stash its
 * record for the return, count it, or emit it.  Every entry replaces or
 * clears its key.
 */
static __always_inline int capture_entry_call(void *ctx, enum word_source ws, __u64 *cookie)
{
	const volatile struct ksnoop_side_plan *side = &plan.side[KSNOOP_ENTRY];
	/* Under kprobe.session (COOKIE) the stash is not used: no key. */
	bool keyed = !cookie && (side->flags & (KSNOOP_SIDE_STASH | KSNOOP_SIDE_RETRY));
	bool timed = side->flags & KSNOOP_SIDE_TIMED;
	bool durations = plan.output == KSNOOP_OUT_HIST_DURATION;
	__u64 words[NWORDS];
	struct call c = { .cookie = cookie };

	if (plan.tree == KSNOOP_TREE_INNER) {
		if (ws == WORDS_TP || ws == WORDS_SYSCALL || ws == WORDS_RAWSYS) {
			if (!tree_inner_event(&c))
				return 0;
		} else if (!tree_inner_enter(&c)) {
			return 0;
		}
	}
	/* A root called in an interrupt opens no session for the task it interrupted. */
	if (plan.tree == KSNOOP_TREE_ROOT && (tree_root_nested() || !in_task()))
		return 0;
	if (!begin_call(ctx, ws, KSNOOP_ENTRY, &c, keyed))
		return 0;
	if (!task_selected(&c)) {
		if (keyed)
			stash_clear(&c.key);
		if (timed)
			call_time_clear(&c);
		return 0;
	}
	/*
	 * The return side prints whatever the entry's predicates say; a
	 * duration histogram counts only calls they select (kept below).
	 */
	if (timed && !durations) {
		c.now = bpf_ktime_get_ns();
		call_time_keep(&c, c.now);
	}
	if (!side->enabled) {
		if (plan.tree == KSNOOP_TREE_ROOT)
			tree_open(&c);
		return 0;
	}
	/* Zeroed only now: a call of another task never pays for it. */
	__builtin_memset(words, 0, sizeof(words));
	read_words(ctx, ws, KSNOOP_ENTRY, words);
	if (plan.track & KSNOOP_TRACK_CLONE)
		track_clone_entry(ctx, ws, words, &c);
	/*
	 * Predicates first: a discarded call reserves and copies nothing.
	 * Then ksnoop's own calls go.
	 */
	if (!call_selected(side, words, &c) || task_is_self(&c)) {
		if (keyed)
			stash_clear(&c.key);
		if (timed && durations)
			call_time_clear(&c);
		return 0;
	}
	if (plan.tree == KSNOOP_TREE_ROOT)
		tree_open(&c);
	/* --pair: a START keeps its time; an END reports with its START's. */
	if (plan.pair) {
		if (!pair_event(&c, words))
			return 0;
		if (plan.min_duration_ns && c.now - c.start < plan.min_duration_ns)
			return 0;
		if (plan.output != KSNOOP_OUT_EVENTS) {
			count_call(ctx, ws, &c, words);
			return 0;
		}
		return emit_entry(ctx, ws, side, words, &c, keyed);
	}
	/* --hist of durations: the entry only says when a selected call began. */
	if (durations) {
		if (timed)
			call_time_keep(&c, bpf_ktime_get_ns());
		return 0;
	}
	if (side->flags & KSNOOP_SIDE_STASH) {
		c.now = bpf_ktime_get_ns();
		stash_entry(ctx, ws, side, words, &c);
		return 0;
	}
	/* --count, --hist: counted, nothing recorded. */
	if (plan.output != KSNOOP_OUT_EVENTS) {
		count_call(ctx, ws, &c, words);
		return 0;
	}
	return emit_entry(ctx, ws, side, words, &c, keyed);
}

/*
 * A filtered-out call's short way out (KSNOOP_PLAN_PREFILTER): the first
 * predicate tested on its argument word alone, read straight from the
 * context, before the gate, the task filters, the zeroing of the words
 * and the rest of the predicates.  A call it lets through is tested
 * again, whole, by call_selected().  For the sources whose words are the
 * context's (tracepoints, syscall events, fentry).
 */
static __always_inline bool prefilter_rejects(void *ctx, enum word_source ws)
{
	const volatile struct ksnoop_pred_plan *p = &plan.side[KSNOOP_ENTRY].preds[0];
	__u64 words[NWORDS];
	__u32 mask;

	if (!(plan.flags & KSNOOP_PLAN_PREFILTER) ||
	    (ws != WORDS_TP && ws != WORDS_SYSCALL && ws != WORDS_FENTRY))
		return false;
	mask = 1u << p->acc.slot;
	if (ws == WORDS_FENTRY)
		fentry_masked_words(ctx, words, mask);
	else
		tp_masked_words(ctx, words, mask);
	return !pred_holds(words, p);
}

/* The gate is asked after the prefilter: a rejected call needs no answer. */
static __always_inline int capture_entry(void *ctx, enum word_source ws)
{
	if (prefilter_rejects(ctx, ws) || !gate_open())
		return 0;
	return capture_entry_call(ctx, ws, NULL);
}

/*
 * Return, an event: one ring-buffer record, behind the stashed entry's
 * values (KSNOOP_SIDE_UNSTASH) read again where they faulted.
 */
static __always_inline int emit_return(void *ctx, enum word_source ws,
				       const volatile struct ksnoop_side_plan *side,
				       const __u64 *words, struct call *c, void *stashed,
				       bool keyed)
{
	bool inner = plan.tree == KSNOOP_TREE_INNER;
	/* A stash's group (sys:): how many values each call stashed is its own. */
	int nstashed = c->fv ? c->fv->nstashed : side->nstashed;
	void *rec;

	if (plan.tree == KSNOOP_TREE_ROOT) {
		tree_flush((__u32)bpf_get_current_pid_tgid(), c->tree_kept, true);
		c->tree_flushed = 1;
	}
	rec = inner ? tree_rec_begin(side, c) : reserve(side, c, keyed);
	if (!rec) {
		/* reserve() cleared a keyed call's; a session's falls to us */
		if (stashed && (inner || !keyed))
			stash_forget(c);
		return 0;
	}
	if (stashed) {
		/* The entry values, at the offsets they had in the entry record. */
		bpf_probe_read_kernel(rec + sizeof(struct ksnoop_event),
				      side->stash_size - sizeof(struct ksnoop_event),
				      stashed + sizeof(struct ksnoop_event));
		stash_forget(c);
		reread_user_faults(rec, side, c->fv, nstashed);
	}
	fill_header(rec, KSNOOP_RETURN, c);
	fill_values(ctx, ws, KSNOOP_RETURN, rec, side, c->fv, words, nstashed);
	if (inner)
		tree_rec_keep(side, c);
	else
		submit(rec, side->rec_size, c->now);
	return 0;
}

/*
 * --min-duration, on the return: a call shorter than that, or whose entry
 * was not seen, is left out before anything is read or reserved.
 */
static __always_inline bool long_enough(const struct call *c)
{
	return c->start && c->now >= c->start && c->now - c->start >= plan.min_duration_ns;
}

/*
 * The return of a call (fexit, kretprobe): emit the entry a user fault
 * held back, take the call's start, select the call (a stashed entry was
 * selected when it was taken), then count it or emit it.  Every return
 * clears its key, whatever it reports.
 */
static __always_inline int capture_return_call(void *ctx, enum word_source ws, struct call *c)
{
	const volatile struct ksnoop_side_plan *side = &plan.side[KSNOOP_RETURN];
	bool keyed = !c->cookie && (side->flags & (KSNOOP_SIDE_UNSTASH | KSNOOP_SIDE_RETRY));
	__u64 words[NWORDS] = {};
	void *stashed = NULL;

	if (!begin_call(ctx, ws, KSNOOP_RETURN, c, keyed))
		return 0;
	if (side->flags & KSNOOP_SIDE_RETRY)
		emit_retried_entry(&c->key, c->fv);
	if (side->flags & KSNOOP_SIDE_TIMED) {
		c->start = call_time_take(c);
		/* --tree: an inner call whose entry was not recorded is left out. */
		if (plan.tree == KSNOOP_TREE_INNER && !c->start)
			return 0;
	}
	if (!side->enabled)
		return 0;
	if (side->flags & KSNOOP_SIDE_UNSTASH) {
		stashed = stash_take(c);
		if (!stashed)
			return 0;	/* entry filtered out, dropped, or before attach */
		c->start = ((struct ksnoop_event *)stashed)->time_ns;
	} else if (!task_selected(c)) {
		if (keyed)
			stash_clear(&c->key);
		return 0;
	}
	if (plan.min_duration_ns) {
		c->now = bpf_ktime_get_ns();
		if (!long_enough(c)) {
			if (stashed)
				stash_forget(c);
			return 0;
		}
	}
	read_words(ctx, ws, KSNOOP_RETURN, words);
	if (!preds_hold(side, words) || (!stashed && task_is_self(c))) {
		if (keyed)
			stash_clear(&c->key);
		else if (stashed)
			stash_forget(c);
		return 0;
	}
	/* --count, --hist: counted, nothing recorded. */
	if (plan.output != KSNOOP_OUT_EVENTS) {
		if (plan.output == KSNOOP_OUT_HIST_DURATION && !c->now)
			c->now = bpf_ktime_get_ns();
		count_call(ctx, ws, c, words);
		if (stashed)
			stash_forget(c);
		return 0;
	}
	return emit_return(ctx, ws, side, words, c, stashed, keyed);
}

/*
 * The return of a call: --tree's session first (an inner call outside one
 * is done; the root's return closes it, and the calls it kept go to the
 * ring buffer before the root's record, or are dropped with the root).
 */
static __always_inline int capture_return_cookie(void *ctx, enum word_source ws, __u64 *cookie)
{
	struct call c = { .cookie = cookie };
	int ret;

	if (plan.track & KSNOOP_TRACK_CLONE)
		return track_clone_return(ctx, ws);
	if (plan.tree == KSNOOP_TREE_INNER && !tree_inner_leave(&c))
		return 0;
	if (plan.tree == KSNOOP_TREE_ROOT && !tree_close(&c))
		return 0;
	ret = capture_return_call(ctx, ws, &c);
	if (plan.tree == KSNOOP_TREE_ROOT && !c.tree_flushed)
		tree_flush((__u32)bpf_get_current_pid_tgid(), c.tree_kept, false);
	return ret;
}

static __always_inline int capture_return(void *ctx, enum word_source ws)
{
	if (!gate_open())
		return 0;
	return capture_return_cookie(ctx, ws, NULL);
}

/* A uprobe's words (USDT, user functions): its program may be preempted. */
static __always_inline bool words_of_uprobe(enum word_source ws)
{
	return ws == WORDS_UREGS || ws == WORDS_UREGS_COUNT || ws == WORDS_USDT;
}

/*
 * The programs, one per attach type: each is the capture of its side
 * (capture_entry() or capture_return(), which ask the gate) with where its
 * argument words are; a uprobe's on the task's stack (taskstack.bpf.h).
 */
#define CAPTURE_PROG(sec, name, ctx_type, words, capture)	\
	SEC(sec)						\
	int name(ctx_type *ctx)					\
	{							\
		if (words_of_uprobe(words))			\
			task_stack_only(ctx);			\
		return capture(ctx, words);			\
	}

/*
 * UNIT(X): whether this build has capture unit X's programs (KSNOOP_UNIT,
 * include/ksnoop.h); every unit when none is named.
 * KSNOOP_KPROBES_ONLY: the kprobe pair alone, for bench/lskel.c's light
 * skeleton (a light skeleton loads every program of its object, and an
 * fentry program cannot load without its target): the kprobe unit without
 * --tree's two programs.
 */
#ifdef KSNOOP_KPROBES_ONLY
#define KSNOOP_UNIT KSNOOP_UNIT_KPROBE
#endif
#ifdef KSNOOP_UNIT
#define UNIT(x) (KSNOOP_UNIT == KSNOOP_UNIT_##x)
#else
#define UNIT(x) 1
#endif

#if UNIT(FENTRY)
CAPTURE_PROG("fentry", ksnoop_fentry, __u64, WORDS_FENTRY, capture_entry)
CAPTURE_PROG("fexit", ksnoop_fexit, __u64, WORDS_FENTRY, capture_return)
#endif
#if UNIT(KPROBE)
CAPTURE_PROG("kprobe", ksnoop_kprobe, struct pt_regs, WORDS_REGS, capture_entry)
CAPTURE_PROG("kretprobe", ksnoop_kretprobe, struct pt_regs, WORDS_REGS, capture_return)
#endif
/*
 * kprobe.session (KEEP_SESSION: plans with a stash, no tree, no track):
 * the entry and the return of a call in one program, the entry record in
 * the task's session slots.  An entry that kept nothing returns 1: the
 * kernel then runs nothing at its return.  Each side is a function of
 * its own (a BPF subprogram): inlined together, the two sides' stacks
 * would not fit the 512 bytes of one.  SESSION_PROG makes such a
 * program, NAME over SEC with its argument words WORDS, each side a
 * subprogram NAME_entry / NAME_return: kprobe.session's here,
 * uprobe.session's below.
 */
#define SESSION_PROG(sec, name, words)					\
	static __noinline int name##_entry(struct pt_regs *ctx, __u64 *cookie)	\
	{								\
		*cookie = 0;						\
		capture_entry_call(ctx, words, cookie);			\
		return *cookie ? 0 : 1;					\
	}								\
	static __noinline int name##_return(struct pt_regs *ctx, __u64 *cookie) \
	{								\
		return capture_return_cookie(ctx, words, cookie);	\
	}								\
	SEC(sec)							\
	int name(struct pt_regs *ctx)					\
	{								\
		__u64 *cookie;						\
									\
		if (words_of_uprobe(words))				\
			task_stack_only(ctx);				\
		if (!gate_open())					\
			return 1;					\
		cookie = session_cookie(ctx);				\
		if (!cookie)						\
			return 1;					\
		if (session_is_return(ctx))				\
			return name##_return(ctx, cookie);		\
		return name##_entry(ctx, cookie);			\
	}

#if UNIT(KSESSION)
SESSION_PROG("kprobe.session", ksnoop_ksession, WORDS_REGS)
#endif
/*
 * fsession (KEEP_SESSION on fentry, 7.0 on): fentry and fexit of a call as
 * one program, whose cookie the trampoline keeps on its own stack; the
 * entry record waits in the task's session slots as kprobe.session's
 * does (a cookie is 8 bytes).  libbpf 1.5 has no "fsession" section: the
 * program is an fentry one, loaded with fsession's attach type (attach.c).
 * Unlike kprobe.session, the verifier wants 0 from both runs (7.3: "R0
 * ... should have been in [0, 0]"), so every call has its return run; a
 * cookie left 0 (nothing kept) makes it return at once.
 */
#if UNIT(FSESSION)
static __noinline int fsession_entry(__u64 *ctx, __u64 *cookie)
{
	*cookie = 0;
	capture_entry_call(ctx, WORDS_FENTRY, cookie);
	return 0;
}

static __noinline int fsession_return(__u64 *ctx, __u64 *cookie)
{
	capture_return_cookie(ctx, WORDS_FENTRY, cookie);
	return 0;
}

SEC("fentry")
int ksnoop_fsession(__u64 *ctx)
{
	__u64 *cookie = session_cookie(ctx);

	if (!cookie)
		return 0;
	/*
	 * The gate, as every program's: a call entered while it is shut
	 * keeps nothing (its return finds the cookie 0), and a return run
	 * after it shut prints nothing.
	 */
	if (!gate_open()) {
		if (!session_is_return(ctx))
			*cookie = 0;
		return 0;
	}
	if (session_is_return(ctx))
		return fsession_return(ctx, cookie);
	return fsession_entry(ctx, cookie);
}
#endif
#if UNIT(TP)
CAPTURE_PROG("raw_tp", ksnoop_tp, __u64, WORDS_TP, capture_entry)
#endif
#if UNIT(USDT)
CAPTURE_PROG("usdt", ksnoop_usdt, struct pt_regs, WORDS_USDT, capture_entry)
#endif
/*
 * User functions: the kprobe pair's capture on a uprobe's registers (one
 * engine: the frame key, the stash, predicates), user memory only
 * (KSNOOP_PLAN_USER_MEM), sleepable where the kernel allows it.
 */
#if UNIT(UPROBE)
CAPTURE_PROG("uprobe", ksnoop_uprobe, struct pt_regs, WORDS_UREGS, capture_entry)
CAPTURE_PROG("uretprobe", ksnoop_uretprobe, struct pt_regs, WORDS_UREGS, capture_return)
#endif
/*
 * uprobe.session (KEEP_SESSION on a user function, 6.13 on): the entry and
 * the return of a call in one program over a uprobe.multi link, the entry
 * record in the task's session slots as kprobe.session's (the kernel keeps
 * the cookie in the call's return instance).  An entry that kept nothing
 * returns 1: no return run.  libbpf 1.5 has no "uprobe.session" section:
 * the program is a uprobe.multi one loaded with uprobe.session's attach
 * type and linked by attach.c (kfeatures__uprobe_session_link()).
 */
#if UNIT(USESSION)
SESSION_PROG("uprobe.multi", ksnoop_usession, WORDS_UREGS)
#endif
/* --count by user stack: the same, never sleepable, with the stack map. */
#if UNIT(UPROBE)
CAPTURE_PROG("uprobe", ksnoop_uprobe_count, struct pt_regs, WORDS_UREGS_COUNT, capture_entry)
CAPTURE_PROG("uretprobe", ksnoop_uretprobe_count, struct pt_regs, WORDS_UREGS_COUNT, capture_return)
#endif
/* Syscall events: one of them (tp:syscalls:...), or a call's entry and exit (sys:). */
#if UNIT(SYSCALL)
CAPTURE_PROG("tp", ksnoop_syscall_tp, __u64, WORDS_SYSCALL, capture_entry)
CAPTURE_PROG("tp", ksnoop_syscall_exit, __u64, WORDS_SYSCALL, capture_return)
/*
 * A glob's many system calls (sys:) on the raw_syscalls tracepoints: one
 * link per side whatever their number, the call told by sys_cookies.
 */
CAPTURE_PROG("raw_tp/sys_enter", ksnoop_rawsys_enter, __u64, WORDS_RAWSYS, capture_entry)
CAPTURE_PROG("raw_tp/sys_exit", ksnoop_rawsys_exit, __u64, WORDS_RAWSYS, capture_return)
#endif

#ifndef KSNOOP_KPROBES_ONLY
/*
 * --tree: a task that exits inside a session (its root never returns: a
 * get_signal() that ends in do_group_exit(), say) takes the session and
 * the calls waiting for it along.  One instance of a run, a root's, has it.
 */
SEC("tp_btf/sched_process_exit")
int ksnoop_tree_exit(__u64 *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ksnoop_tree_session *s = bpf_map_lookup_elem(&sessions, &tid);

	if (s && s->task == bpf_get_current_task())
		tree_drop(tid, s, KSNOOP_CNT_TREE_EXIT);
	return 0;
}

/*
 * --tree: a thread other than the leader that calls execve takes the
 * leader's pid as its tid (de_thread()); its root's return would look the
 * session up under the new tid and find nothing.  The tree is dropped
 * here, counted, with its calls: the root's stashed entry and entry time
 * are keyed by the old tid too, so a moved session could not print
 * whole.  sched_process_exec's old_pid is the tid before (kernel pid
 * namespace, as bpf_get_current_pid_tgid()).  Loaded with ksnoop_tree_exit.
 */
SEC("tp_btf/sched_process_exec")
int ksnoop_tree_exec(__u64 *ctx)
{
	__u32 old_tid = (__u32)ctx[1];
	struct ksnoop_tree_session *s;

	if (old_tid == (__u32)bpf_get_current_pid_tgid())
		return 0;
	s = bpf_map_lookup_elem(&sessions, &old_tid);
	if (s && s->task == bpf_get_current_task())
		tree_drop(old_tid, s, KSNOOP_CNT_TREE_EXEC);
	return 0;
}
#endif /* KSNOOP_KPROBES_ONLY */
