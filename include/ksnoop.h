/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one header shared by the BPF programs and userspace.
 *
 * It holds only fixed-layout data: the limits, the capture plan that
 * userspace writes into each program's read-only data before load, and the
 * ring-buffer record the programs emit.  No pointers, no BTF ids: the kernel
 * copies bytes, userspace knows what they mean because it wrote the plan.
 *
 * Because the plan lives in a frozen .rodata map, the verifier sees every
 * field as a constant: loops over values and steps collapse into straight-line
 * code specialised for one traced function, and branches for unused features
 * are pruned before the program ever runs.
 */
#ifndef KSNOOP_H
#define KSNOOP_H

#include <linux/types.h>

/* Values one spec may capture per side (entry or return). */
#define KSNOOP_MAX_VALUES	16
/* Dereferences in one chain: a->b->c counts 3 (including the argument). */
#define KSNOOP_MAX_DEREFS	8
/* Argument slots: the kernel's limit for fentry (MAX_BPF_FUNC_ARGS). */
#define KSNOOP_MAX_ARGS		12
/* Predicates one spec may carry. */
#define KSNOOP_MAX_PREDS	8
/*
 * Bytes of a string constant in a predicate, NUL included: constants of up
 * to 63 characters compare exactly (BPF reads one byte more than that, so a
 * longer traced string never matches); longer constants are refused.
 */
#define KSNOOP_MAX_PRED_STR	64
/* Largest single value copied; the default is lower (--max-bytes). */
#define KSNOOP_MAX_VALUE_SIZE	(32 * 1024)
#define KSNOOP_DEFAULT_VALUE_SIZE 4096
/*
 * Largest ring-buffer record: the values of one event together.  A record
 * must fit the ring buffer many times over (its default is 8 MiB).
 */
#define KSNOOP_MAX_RECORD	(256 * 1024)
/*
 * Largest record of a group whose functions share one layout
 * (KSNOOP_PLAN_FUNC_VALUES: each value's room is the most any of them
 * copies there): a retried entry is built in the 32 KiB per-CPU scratch
 * buffer, and a group whose rooms add up to more is split.
 */
#define KSNOOP_MAX_GROUP_RECORD	(32 * 1024)
/* Default bytes copied for a string behind a char pointer. */
#define KSNOOP_DEFAULT_STR_SIZE	256
#define KSNOOP_COMM_LEN		16
/*
 * Largest entry record that can be stashed for the return: it is built in a
 * per-CPU array first, and the kernel caps per-CPU values at 32 KiB
 * (PCPU_MIN_UNIT_SIZE).
 */
#define KSNOOP_MAX_STASH_RECORD	(32 * 1024)
/* A kernel symbol name the klookup program looks up, NUL included (KSYM_NAME_LEN). */
#define KSNOOP_KSYM_NAME_LEN	512
/* Pages a sleepable USDT program faults in before reading a value again. */
#define KSNOOP_FAULT_IN_PAGES	9

/* Where a value's chain starts. */
enum ksnoop_src {
	KSNOOP_SRC_ARG = 0,	/* argument slot (register / ctx word) */
	KSNOOP_SRC_RET = 1,	/* return value */
	KSNOOP_SRC_STACK = 2,	/* the kernel stack at the probe (-s): return addresses */
	KSNOOP_SRC_USTACK = 3,	/* the current task's user stack (--ustack): return addresses */
};

enum ksnoop_value_flags {
	/* Copy the NUL-terminated string the final pointer points to. */
	KSNOOP_VAL_STR = 1 << 0,
	/* Value is the register itself (no memory read). */
	KSNOOP_VAL_REG = 1 << 1,
	/*
	 * The BTF marks user pointers (__user type tags): each read is of
	 * user memory exactly when its bit in user_mask is set.  Without
	 * tags the address decides (see read_user() in the BPF program).
	 */
	KSNOOP_VAL_TAGGED = 1 << 2,
};

enum ksnoop_kind {
	KSNOOP_ENTRY = 0,
	KSNOOP_RETURN = 1,
	KSNOOP_NR_KINDS = 2,
};

enum ksnoop_status {
	KSNOOP_OK = 0,
	KSNOOP_FAULT = 1,	/* a read along the chain failed */
	KSNOOP_TRUNCATED = 2,	/* copied, but the value was cut at the size limit */
	KSNOOP_NULL = 3,	/* a pointer along the chain was NULL */
	KSNOOP_STATUS_MASK = 0xff,
	/* Flags on top of the status: */
	KSNOOP_ST_USER = 1 << 8,	/* the value's last read was of user memory */
	KSNOOP_ST_AT_RETURN = 1 << 9,	/* faulted at entry, read again at return */
};

/* Comparison operators, as parsed. */
enum ksnoop_op {
	KSNOOP_OP_EQ = 0,
	KSNOOP_OP_NE,
	KSNOOP_OP_LT,
	KSNOOP_OP_LE,
	KSNOOP_OP_GT,
	KSNOOP_OP_GE,
};

/*
 * How to reach one value: start with the source word; then for each step,
 * add steps[i] to the current address and, for all but the last, load the
 * pointer stored there.  nsteps == 0 means the value is the word itself.
 */
struct ksnoop_access {
	__u8 src;		/* enum ksnoop_src */
	__u8 slot;		/* argument slot for KSNOOP_SRC_ARG */
	__u8 nsteps;
	__u8 flags;		/* enum ksnoop_value_flags */
	__u8 user_mask;		/* KSNOOP_VAL_TAGGED: bit i, read after step i is user */
	__u8 pad[3];
	__u32 size;		/* bytes to copy (strings: buffer size) */
	__s64 steps[KSNOOP_MAX_DEREFS];
};

struct ksnoop_value_plan {
	struct ksnoop_access acc;
	__u32 rec_off;		/* offset of this value's ksnoop_value in the record */
	__u32 pad;
};

struct ksnoop_pred_plan {
	struct ksnoop_access acc;
	__u8 op;		/* enum ksnoop_op */
	__u8 is_signed;
	__u8 is_str;		/* compare a string against str[] */
	__u8 width;		/* bytes read: 1 to 8 */
	__u8 bit_off;		/* a bitfield: its first bit in those bytes */
	__u8 bit_size;		/* a bitfield: its width in bits (0: not one) */
	__u8 pad[2];
	__u64 imm;		/* constant, already sign-extended for signed */
	__u64 mask;		/* "VALUE & MASK": compare VALUE & MASK (0: no mask) */
	char str[KSNOOP_MAX_PRED_STR];
};

/*
 * Stash on entry, report on return, for kretprobes (which cannot see the
 * arguments): the entry side builds its record into the stash map instead
 * of the ring buffer, keyed by task and stack frame; the return side looks
 * it up, and only if its predicates hold copies the entry values into its
 * own record, behind the same header offsets, then adds the return values.
 */
enum ksnoop_side_flags {
	KSNOOP_SIDE_STASH = 1 << 0,	/* entry: record goes to the stash */
	KSNOOP_SIDE_UNSTASH = 1 << 1,	/* return: starts from the stashed record */
	/*
	 * Kernel functions: user memory not paged in yet at entry.  The entry
	 * side stashes a record whose user read faulted (instead of emitting
	 * it); the return side reads those values again and emits the entry
	 * event then, marked KSNOOP_ST_AT_RETURN.
	 */
	KSNOOP_SIDE_RETRY = 1 << 2,
	/*
	 * Durations, without a stash (a stashed record carries its entry
	 * time): the entry side keeps the time a selected call began in
	 * `entry_times`, keyed like the stash; the return side takes it
	 * and reports the call's duration.  Set only when a return side
	 * prints, so calls traced on entry alone pay nothing for it.
	 */
	KSNOOP_SIDE_TIMED = 1 << 3,
};

struct ksnoop_side_plan {
	__u8 enabled;		/* emit events on this side */
	__u8 nvalues;
	__u8 npreds;
	__u8 flags;		/* enum ksnoop_side_flags */
	__u32 rec_size;		/* total bytes reserved per record */
	__u8 nstashed;		/* return: leading values that come from the stash */
	__u8 pad2[3];
	__u32 stash_size;	/* return: bytes of the stashed record to copy */
	struct ksnoop_value_plan values[KSNOOP_MAX_VALUES];
	struct ksnoop_pred_plan preds[KSNOOP_MAX_PREDS];
};

/*
 * What a program does with a call that passes its filters (plan.output):
 * userspace's output mode (cli.h), as specific as the program must be.
 */
enum ksnoop_output {
	KSNOOP_OUT_EVENTS = 0,		/* a ring-buffer record per side that prints */
	KSNOOP_OUT_COUNT = 1,		/* --count: counted per function, no record */
	KSNOOP_OUT_COUNT_STACKS = 2,	/* --count -s: per function and kernel stack (stacks map) */
	KSNOOP_OUT_HIST = 3,		/* --hist: per log2 bucket of the value plan.hist reads */
	/*
	 * --hist without a value: counted at the return per log2 bucket of
	 * the call's duration in ns.  The entry side keeps the time only once
	 * its predicates held (entry_times).
	 */
	KSNOOP_OUT_HIST_DURATION = 4,
};

enum ksnoop_plan_flags {
	/* Every read is a user read (USDT: the traced program picks addresses). */
	KSNOOP_PLAN_USER_MEM = 1 << 0,
	/* Sleepable program: a user read that faults pages the memory in. */
	KSNOOP_PLAN_SLEEPABLE = 1 << 1,
	/* USDT: only call sites whose argument types are usdt_sig[]. */
	KSNOOP_PLAN_USDT_SIG = 1 << 2,
	/*
	 * kprobes and USDT: one program serves every target of a group (a
	 * glob's matches with the same plan); the BPF cookie of the probe that
	 * fired (for USDT, libbpf's bpf_usdt_cookie()) is the target's func_id.
	 */
	KSNOOP_PLAN_COOKIE = 1 << 3,
	/*
	 * With KSNOOP_PLAN_COOKIE: the group's functions differ in their
	 * values (which words, what they point to, how much to copy), not in
	 * anything else.  Each function's accesses are a ksnoop_func_values in
	 * the func_values map, at the index in the cookie's upper half;
	 * side[].values[] give the record layout the functions share (rec_off,
	 * and in acc.size the most any of them copies there).
	 */
	KSNOOP_PLAN_FUNC_VALUES = 1 << 4,
	/* --count --ustack: counted per user stack (and process) too. */
	KSNOOP_PLAN_COUNT_USTACK = 1 << 5,
};

/* BPF cookie of a group's probe: its function's func_id | index << 32. */
#define KSNOOP_COOKIE_INDEX_SHIFT	32

/* One function's values in a KSNOOP_PLAN_FUNC_VALUES group. */
struct ksnoop_func_values {
	__u8 nvalues[KSNOOP_NR_KINDS];
	__u8 pad[6];
	struct ksnoop_access acc[KSNOOP_NR_KINDS][KSNOOP_MAX_VALUES];
};

/* --count: calls per function (and stack), summed in BPF. */
struct ksnoop_count_key {
	__u32 func_id;
	/*
	 * --count -s: the stack's id in the stacks map (-1: none taken);
	 * --hist: the log2 bucket (0: the value 0, k: [2^(k-1), 2^k),
	 * -1: negative; of the duration in ns for KSNOOP_OUT_HIST_DURATION);
	 * else -1.
	 */
	__s32 sub;
	/*
	 * --count --ustack: the user stack's id in the stacks map (-1: none,
	 * a kernel thread's, or not taken) and whose it is (a user stack's
	 * addresses are its process's); else -1 and 0.
	 */
	__s32 usub;
	__u32 tgid;
};
#define KSNOOP_COUNT_ENTRIES	65536
#define KSNOOP_STACK_ENTRIES	16384

/* usdt_sig[i]: argument i's size in bytes, | KSNOOP_USDT_SIGNED. */
#define KSNOOP_USDT_SIGNED	0x80

/*
 * The read-only configuration of one program instance: one traced target,
 * or (KSNOOP_PLAN_COOKIE) a group of functions whose plans are the same.
 */
struct ksnoop_plan {
	__u32 func_id;		/* index of the target in userspace */
	__u32 filter_pid;	/* 0: any (a pid in ksnoop's pid namespace) */
	__u32 filter_tid;	/* 0: any */
	__u8 filter_comm;	/* compare comm[] */
	__u8 ret_slot;		/* ctx word holding the return value (fexit) */
	__u8 nslots;		/* argument words the target has */
	__u8 output;		/* enum ksnoop_output */
	__u32 slot_mask;	/* argument words some value or predicate reads */
	__u32 flags;		/* enum ksnoop_plan_flags */
	/* ksnoop's pid namespace (nsfs dev and inode); 0: the initial one */
	__u64 pidns_dev;
	__u64 pidns_ino;
	/*
	 * Return side: report only calls that took at least this long (0: all).
	 * A call whose entry was not seen has no duration and is left out.
	 */
	__u64 min_duration_ns;
	__u8 usdt_sig[KSNOOP_MAX_ARGS];
	/*
	 * ksnoop's own pid, as task_ids() sees it: its calls are left out.
	 * What it does to print an event (write(), vfs_write, the tty or pipe
	 * behind stdout) would otherwise be an event to print in turn.
	 */
	__u32 self_tgid;
	char comm[KSNOOP_COMM_LEN];
	struct ksnoop_side_plan side[KSNOOP_NR_KINDS];
	/* --hist: the value whose log2 is counted, read as a predicate's is */
	struct ksnoop_pred_plan hist;
};

enum ksnoop_event_flags {
	KSNOOP_EV_DURATION = 1 << 0,	/* duration_ns holds the call's duration */
};

/* Record header; values follow at the offsets the plan gives. */
struct ksnoop_event {
	__u64 time_ns;
	__u64 duration_ns;	/* return, KSNOOP_EV_DURATION: since the entry */
	__u32 cpu;
	__u32 tgid;
	__u32 tid;
	__u32 func_id;
	__u8 kind;		/* enum ksnoop_kind */
	__u8 flags;		/* enum ksnoop_event_flags */
	__u8 pad[6];
	char comm[KSNOOP_COMM_LEN];
};

/* Per value: status and the bytes actually copied, then the bytes. */
struct ksnoop_value {
	__u32 status;		/* enum ksnoop_status */
	__u32 len;
	__u64 addr;		/* where the bytes were read from (0: a register) */
	/* __u8 data[]: plan size, rounded up to 8 */
};

/* Frames of a kernel stack captured with -s (bpf_get_stack, innermost first). */
#define KSNOOP_STACK_DEPTH	32

/* Calls in flight with a stashed entry (or an entry time), per traced function. */
#define KSNOOP_STASH_ENTRIES	8192

/* Counters in a shared per-CPU array. */
enum ksnoop_counter {
	KSNOOP_CNT_LOST = 0,	/* ring buffer full */
	KSNOOP_CNT_STASH_DROP,	/* stash full: an entry (or its time) could not be kept */
	KSNOOP_CNT_COUNT_FULL,	/* --count: the counts map was full */
	KSNOOP_CNT_STACK_LOST,	/* --count -s: a stack not taken (stacks map full) */
	KSNOOP_CNT_HIST_UNREAD,	/* --hist: the value could not be read */
	KSNOOP_NR_COUNTERS,
};

/* Stash key: the task and its stack frame, so recursion, nesting and
 * migration cannot mix calls. */
struct ksnoop_stash_key {
	__u32 tid;
	__u32 func_id;		/* one program may serve several functions */
	/* kprobes: the stack pointer at entry; fentry/fexit: the trampoline
	 * frame both programs of one call get as ctx */
	__u64 frame;
};

_Static_assert(sizeof(struct ksnoop_event) == 56, "event header layout");
_Static_assert(sizeof(struct ksnoop_value) == 16, "value header layout");
_Static_assert(sizeof(struct ksnoop_access) == 80, "access layout");
_Static_assert(sizeof(struct ksnoop_pred_plan) == 168, "pred layout");
_Static_assert(sizeof(struct ksnoop_func_values) == 8 + 2 * 16 * 80, "func values layout");
_Static_assert(sizeof(struct ksnoop_side_plan) == 2768, "side plan layout");
_Static_assert(sizeof(struct ksnoop_plan) == 5784, "plan layout");

#endif /* KSNOOP_H */
