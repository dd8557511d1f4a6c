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

/*
 * Capture units: bpf/ksnoop.bpf.c is also built once per unit
 * (-DKSNOOP_UNIT=KSNOOP_UNIT_X, Makefile) with that unit's programs alone,
 * and an instance opens the unit its programs are in (attach.c): libbpf
 * then copies and relocates one program's code, not all twenty.  Without
 * KSNOOP_UNIT the object has every program: the skeleton's layout.
 */
#define KSNOOP_UNIT_FENTRY	1	/* fentry + fexit */
#define KSNOOP_UNIT_FSESSION	2	/* fsession */
#define KSNOOP_UNIT_KPROBE	3	/* kprobe + kretprobe */
#define KSNOOP_UNIT_KSESSION	4	/* kprobe.session */
#define KSNOOP_UNIT_TP		5	/* raw_tp */
#define KSNOOP_UNIT_USDT	6
#define KSNOOP_UNIT_UPROBE	7	/* uprobe + uretprobe, and their --count by user stack */
#define KSNOOP_UNIT_USESSION	8	/* uprobe.session */
#define KSNOOP_UNIT_SYSCALL	9	/* tp:syscalls:..., sys: (tracepoints, raw_syscalls) */
#define KSNOOP_UNITS		9

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
/* --tree-max-calls at most: a tree's calls are an array in userspace. */
#define KSNOOP_TREE_CALLS_LIMIT	(1u << 20)
/*
 * Largest record of a group whose functions share one layout
 * (KSNOOP_PLAN_FUNC_VALUES: each value's room is the most any of them
 * copies there): a retried entry is stashed (KSNOOP_MAX_STASH_RECORD),
 * and a group whose rooms add up to more is split.
 */
#define KSNOOP_MAX_GROUP_RECORD	(32 * 1024)
/* Default bytes copied for a string behind a char pointer. */
#define KSNOOP_DEFAULT_STR_SIZE	256
#define KSNOOP_COMM_LEN		16
/*
 * Largest entry record that can be stashed for the return.  It was built
 * in a per-CPU array first, which the kernel caps at 32 KiB
 * (PCPU_MIN_UNIT_SIZE); built in its stash element since (issue #43),
 * the limit stays, as tested.
 */
#define KSNOOP_MAX_STASH_RECORD	(32 * 1024)
/* A kernel symbol name the klookup program looks up, NUL included (KSYM_NAME_LEN). */
#define KSNOOP_KSYM_NAME_LEN	512
/*
 * klookup's kallsyms iterator (bpf/ksymscan.bpf.c): at most this many names
 * searched for at once, each shorter than KSNOOP_KSYM_SCAN_NAME bytes; a
 * symbol whose name's first KSNOOP_KSYM_PREFIX bytes (and length, if
 * shorter) are one of theirs is kept as a ksnoop_ksym_hit, its whole name
 * compared in userspace.
 */
#define KSNOOP_KSYM_SCAN_MAX	64
#define KSNOOP_KSYM_SCAN_NAME	128
#define KSNOOP_KSYM_SCAN_MODULE	64
/* Symbols one walk keeps (more: the caller reads kallsyms' text). */
#define KSNOOP_KSYM_SCAN_HITS	512
/* A name's first two bytes as a bit of a 1,024-bit set: the walk's first test. */
#define KSNOOP_KSYM_SCAN_PAIRS	1024
#define KSNOOP_KSYM_PAIR(c0, c1) \
	((((__u32)(unsigned char)(c0) * 31) + (unsigned char)(c1)) % KSNOOP_KSYM_SCAN_PAIRS)

/*
 * A name's key in the iterator's map of names: its first
 * KSNOOP_KSYM_PREFIX bytes, zero past its NUL, and its length, or
 * KSNOOP_KSYM_LONG for a name of KSNOOP_KSYM_PREFIX bytes or more.  32:
 * 16 let families of names share a key ("__bpf_trace_xfs_", 132 symbols),
 * and 64 names of `info` made more than KSNOOP_KSYM_SCAN_HITS hits.
 */
#define KSNOOP_KSYM_PREFIX	32
#define KSNOOP_KSYM_LONG	0xffffffffu

struct ksnoop_ksym_key {
	__u32 len;
	__u32 pad;
	__u64 prefix[KSNOOP_KSYM_PREFIX / 8];
};

struct ksnoop_ksym_hit {
	__u32 want;		/* which of the names */
	char type;		/* kallsyms' type letter, as the kernel keeps it */
	char pad[3];
	__u64 addr;
	char name[KSNOOP_KSYM_SCAN_NAME];
	char module[KSNOOP_KSYM_SCAN_MODULE];	/* "": vmlinux */
};
/*
 * The kernel's errno range (MAX_ERRNO): a function returning a negative
 * errno returns -1 to -4095, one returning a pointer ERR_PTR() of it, the
 * last 4095 addresses, which nothing maps.
 */
#define KSNOOP_MAX_ERRNO	4095
/* Pages a sleepable USDT program faults in before reading a value again. */
#define KSNOOP_FAULT_IN_PAGES	9

/* Where a value's chain starts. */
enum ksnoop_src {
	KSNOOP_SRC_ARG = 0,	/* argument slot (register / ctx word) */
	KSNOOP_SRC_RET = 1,	/* return value */
	KSNOOP_SRC_STACK = 2,	/* the kernel stack at the probe (-s): return addresses */
	KSNOOP_SRC_USTACK = 3,	/* the current task's user stack (--ustack): return addresses */
	/*
	 * A user function's entry: a global variable of its file (@NAME).  The
	 * word is the file's load bias (the probe's address less its link-time
	 * address, plan.uvar_ip; a USDT probe's: the call site's, from the
	 * usdt_site_pcs map); steps[0] adds the variable's link-time one.
	 */
	KSNOOP_SRC_UGLOBAL = 4,
	/*
	 * A thread-local variable of the executable (@tls:NAME): the word is
	 * where its TLS block starts (the thread pointer + plan.uvar_tls_delta);
	 * steps[0] adds the variable's offset in the block.
	 */
	KSNOOP_SRC_UTLS = 5,
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
	/*
	 * ':tuple' (the chain ends at a struct sk_buff or a struct sock):
	 * copy the fields a tuple is made of into a ksnoop_skb_tuple or
	 * ksnoop_sock_tuple, from the offsets in the access's last steps.
	 */
	KSNOOP_VAL_SKB_TUPLE = 1 << 6,
	KSNOOP_VAL_SOCK_TUPLE = 1 << 7,
	/*
	 * With KSNOOP_VAL_STR: at most as many characters as the argument
	 * in slot len_slot says (":str(LEN)"); the traced program's word,
	 * so below 0 is none and more than the buffer is cut there.
	 */
	KSNOOP_VAL_STR_LEN = 1 << 3,
	/*
	 * ':strv': the final pointer is a NULL-terminated array of string
	 * pointers (a char **, argv); copy a struct ksnoop_strv.
	 */
	KSNOOP_VAL_STRV = 1 << 4,
	/*
	 * --pcap: the chain ends at a struct sk_buff; copy a struct
	 * ksnoop_skb_packet (its fields from the offsets in the access's
	 * last steps, as ':tuple's) and the packet's first bytes after it.
	 */
	KSNOOP_VAL_SKB_PACKET = 1 << 5,
};

/* ksnoop_access.len_width: the length argument's bytes, | this if signed. */
#define KSNOOP_LEN_SIGNED	0x80

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
	/* A kernel pointer along the chain was an errno (ERR_PTR); addr holds it. */
	KSNOOP_ERR_PTR = 4,
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
	__u8 len_slot;		/* KSNOOP_VAL_STR_LEN: argument slot of the length */
	__u8 len_width;		/* KSNOOP_VAL_STR_LEN: its bytes | KSNOOP_LEN_SIGNED */
	__u8 pad;
	__u32 size;		/* bytes to copy (strings: buffer size) */
	__s64 steps[KSNOOP_MAX_DEREFS];
};

/*
 * ':tuple': where its fields are in the struct, 4 offsets of 16 bits to a
 * step, in the access's last KSNOOP_TUPLE_OFF_STEPS steps (a tuple's chain
 * has at most KSNOOP_MAX_DEREFS - KSNOOP_TUPLE_OFF_STEPS): field i's
 * offset is bits 16 * (i % 4) of steps[KSNOOP_TUPLE_OFF_FIRST + i / 4].
 * KSNOOP_TUPLE_NO_FIELD: the kernel has no such field (its bytes are 0).
 */
#define KSNOOP_TUPLE_OFF_STEPS	3
#define KSNOOP_TUPLE_OFF_FIRST	(KSNOOP_MAX_DEREFS - KSNOOP_TUPLE_OFF_STEPS)
#define KSNOOP_TUPLE_NO_FIELD	0xffff

/* The fields of a struct sk_buff's tuple, in offset order. */
enum ksnoop_skb_field {
	KSNOOP_SKB_HEAD,		/* unsigned char *head */
	KSNOOP_SKB_NETWORK_HEADER,	/* __u16, from head */
	KSNOOP_SKB_TRANSPORT_HEADER,	/* __u16, from head */
	KSNOOP_SKB_PROTOCOL,		/* __be16, ETH_P_* */
	KSNOOP_SKB_NR_FIELDS,
};

/* The fields of a struct sock's tuple. */
enum ksnoop_sock_field {
	KSNOOP_SOCK_FAMILY,		/* __sk_common.skc_family */
	KSNOOP_SOCK_NUM,		/* __sk_common.skc_num: local port, host order */
	KSNOOP_SOCK_DPORT,		/* __sk_common.skc_dport: network order */
	KSNOOP_SOCK_PROTOCOL,		/* sk_protocol */
	KSNOOP_SOCK_STATE,		/* __sk_common.skc_state */
	KSNOOP_SOCK_RCV_SADDR,		/* __sk_common.skc_rcv_saddr */
	KSNOOP_SOCK_DADDR,		/* __sk_common.skc_daddr */
	KSNOOP_SOCK_V6_RCV_SADDR,	/* __sk_common.skc_v6_rcv_saddr */
	KSNOOP_SOCK_V6_DADDR,		/* __sk_common.skc_v6_daddr */
	KSNOOP_SOCK_SPORT,		/* inet_sock's inet_sport: network order */
	KSNOOP_SOCK_NR_FIELDS,
};

/*
 * --pcap: the fields of a struct sk_buff (and of its struct net_device)
 * a packet's capture reads, packed as a tuple's (KSNOOP_TUPLE_OFF_*).
 */
enum ksnoop_packet_field {
	KSNOOP_PKT_HEAD,		/* unsigned char *head */
	KSNOOP_PKT_DATA,		/* unsigned char *data */
	KSNOOP_PKT_LEN,			/* __u32 len: bytes from data on */
	KSNOOP_PKT_DATA_LEN,		/* __u32 data_len: of those, in fragments */
	KSNOOP_PKT_MAC_HEADER,		/* __u16, from head (~0: not set) */
	KSNOOP_PKT_NETWORK_HEADER,	/* __u16, from head (~0: not set) */
	KSNOOP_PKT_DEV,			/* struct net_device *dev */
	KSNOOP_PKT_DEV_IFINDEX,		/* net_device's int ifindex */
	KSNOOP_PKT_DEV_TYPE,		/* net_device's unsigned short type: ARPHRD_* */
	KSNOOP_PKT_DEV_NAME,		/* net_device's char name[IFNAMSIZ] */
	KSNOOP_PKT_PROTOCOL,		/* __be16 protocol: ETH_P_*, as the frame's */
	KSNOOP_PKT_NR_FIELDS,
};

/*
 * --snaplen: bytes of a packet copied by default, as pwru's and
 * tcpdump's short captures; at most KSNOOP_MAX_SNAPLEN, so that a record
 * with its packet still fits the 32 KiB per-CPU buffer a stashed or
 * retried entry is built in, with room for the spec's other values.
 */
#define KSNOOP_DEFAULT_SNAPLEN	256
#define KSNOOP_MAX_SNAPLEN	16384
#define KSNOOP_IFNAMSIZ		16

/* ksnoop_skb_packet.from: where the bytes start. */
enum ksnoop_packet_from {
	KSNOOP_PKT_FROM_NONE = 0,	/* no header set: no bytes */
	KSNOOP_PKT_FROM_MAC = 1,	/* head + mac_header */
	KSNOOP_PKT_FROM_NETWORK = 2,	/* head + network_header */
};

/*
 * --pcap: a packet as captured, the fields as the skb holds them and
 * CAPLEN bytes after this header, from the MAC header where it is set,
 * else the network header; only the linear part (len - data_len bytes
 * from data) is read.  Userspace judges the rest (traced memory).
 */
struct ksnoop_skb_packet {
	__u64 head;
	__u64 data;
	__u32 len;
	__u32 data_len;
	__s32 ifindex;		/* 0: no device */
	__u32 caplen;		/* bytes that follow */
	__u16 dev_type;		/* ARPHRD_* (0xffff: no device) */
	__u16 mac_header;
	__u16 network_header;
	__u8 from;		/* enum ksnoop_packet_from */
	__u8 pad;
	char dev_name[KSNOOP_IFNAMSIZ];	/* unterminated if 16 long */
	/* __u8 bytes[caplen] */
};

/*
 * --filter: the struct sk_buff * a target's packet filter judges (an
 * argument word, its fields reached as --pcap's: KSNOOP_PKT_* offsets),
 * the bytes it may load from the packet's start (--snaplen) and each link
 * type's program length in the filter_insns map (enum ksnoop_cbpf_link;
 * 0: none compiled, a packet of that type is rejected) and the bytes of
 * the packet copied once before it runs (pfilter__need()).  A .rodata
 * global of its own, beside the plan: record files keep the plan, and a
 * filter is the capture's business alone.  enabled 0: no filter.
 */
struct ksnoop_filter_plan {
	struct ksnoop_access skb;
	__u32 snaplen;
	__u16 ninsns[2];
	__u16 need[2];
	__u8 enabled;
	__u8 pad[3];
};

/* Bytes of the network header a skb's tuple copies: IPv6's fixed header. */
#define KSNOOP_TUPLE_L3_BYTES	40
/* ... and of the transport header: the two ports of TCP, UDP, SCTP, DCCP. */
#define KSNOOP_TUPLE_L4_BYTES	4

/* ksnoop_skb_tuple.read: which headers the BPF side could read. */
enum ksnoop_tuple_read {
	KSNOOP_TUPLE_L3 = 1 << 0,
	KSNOOP_TUPLE_L4 = 1 << 1,
};

/*
 * A skb's tuple as captured: the header offsets as the skb holds them
 * (~0: not set) and the bytes they point at, unparsed (userspace parses
 * them; traced memory is untrusted).
 */
struct ksnoop_skb_tuple {
	__u16 network_header;
	__u16 transport_header;
	__u16 protocol;		/* skb->protocol as stored: big-endian ETH_P_* */
	__u8 read;		/* enum ksnoop_tuple_read */
	__u8 pad;
	__u8 l3[KSNOOP_TUPLE_L3_BYTES];	/* from head + network_header */
	__u8 l4[KSNOOP_TUPLE_L4_BYTES];	/* from head + transport_header */
};

/*
 * ':strv' (argv): at most KSNOOP_STRV_MAX strings, each at most
 * KSNOOP_STRV_STR bytes (its NUL included), packed in KSNOOP_STRV_BYTES;
 * a string is read only while KSNOOP_STRV_STR bytes are left, so the total
 * never exceeds the area.  execve's argv of a shell command fits; a long
 * argv is cut, and says so.  One read a pointer and one a string: 41 reads
 * at most, each a non-faulting helper.
 */
#define KSNOOP_STRV_MAX		20
#define KSNOOP_STRV_STR		256
#define KSNOOP_STRV_BYTES	2048

/* ksnoop_strv.flags */
enum ksnoop_strv_flags {
	KSNOOP_STRV_MORE = 1 << 0,	/* more strings than kept (a bound was hit) */
	KSNOOP_STRV_UNREAD = 1 << 1,	/* the pointer after the n kept could not be read */
};

/*
 * A string array as captured: N strings, the i-th LEN[i] bytes (its NUL
 * included when it fits) at the sum of the lengths before it, from
 * PTR[i], and its status ST[i] (OK, TRUNCATED: longer than
 * KSNOOP_STRV_STR; FAULT: its memory could not be read, len 0).
 */
struct ksnoop_strv {
	__u8 n;
	__u8 flags;		/* enum ksnoop_strv_flags */
	__u8 st[KSNOOP_STRV_MAX];	/* enum ksnoop_status */
	__u16 len[KSNOOP_STRV_MAX];
	__u16 used;		/* bytes of BYTES used: the lengths' sum */
	__u64 ptr[KSNOOP_STRV_MAX + 1];	/* the last: the pointer after them, if read */
	char bytes[KSNOOP_STRV_BYTES];
};

/*
 * A sock's tuple as captured: its __sk_common fields, as stored, but NUM:
 * a full inet sock's inet_sport (host order) where it is not 0, as the
 * kernel's tracepoints report it, else skc_num (resolve_tuple.c says why).
 */
struct ksnoop_sock_tuple {
	__u16 family;
	__u16 num;
	__u16 dport;
	__u16 protocol;		/* KSNOOP_TUPLE_NO_FIELD: none read */
	__u8 state;
	__u8 pad[3];
	__u8 rcv_saddr[4];
	__u8 daddr[4];
	__u8 v6_rcv_saddr[16];
	__u8 v6_daddr[16];
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
	/*
	 * Some value is a ':tuple' (KSNOOP_VAL_*_TUPLE): without it the
	 * verifier prunes the tuple copy even where a group's values come
	 * from a map (it was a fifth of each program's instructions).
	 */
	KSNOOP_PLAN_TUPLE = 1 << 7,
	/*
	 * USDT: no return value, so the return word holds the mask of the
	 * arguments that could not be read (a 9th word would cost the larger
	 * programs the 8 bytes of stack that keep them, with --tree's flush
	 * callback, inside the verifier's 512).
	 */
	KSNOOP_PLAN_USDT = 1 << 8,
	/*
	 * --stats: the --hist value (or duration) is summed, not bucketed:
	 * every call of a function (and --by key) lands in sub 0, whose
	 * count_val keeps the count, sum, min and max.
	 */
	KSNOOP_PLAN_STATS = 1 << 9,
	/* --pair: the key is the thread's id (the spec names no value). */
	KSNOOP_PLAN_PAIR_TID = 1 << 10,
	/* A user function's values read its file's variables (uvar_ip, uvar_tls_delta). */
	KSNOOP_PLAN_UVARS = 1 << 11,
	/* --pcap: some value is a packet (KSNOOP_VAL_SKB_PACKET): as PLAN_TUPLE. */
	KSNOOP_PLAN_PACKET = 1 << 12,
	/*
	 * --count, --hist, --stats: the counts and by_counts maps are per CPU
	 * (summed by userspace), added to with plain stores: no program of
	 * the run is a uprobe one (agg.bpf.h says why that matters).
	 */
	KSNOOP_PLAN_COUNTS_PERCPU = 1 << 13,
	/*
	 * The entry's first predicate tests a scalar reached from an
	 * argument word (the word itself, or memory it leads to; no string)
	 * and nothing before the predicates has an effect (no stash, entry
	 * time, --tree, --track or --pair): tracepoint, syscall-event and
	 * fentry programs test it from that word alone before anything else
	 * (prefilter_rejects()), so a filtered-out call costs little more
	 * than a bare probe.
	 */
	KSNOOP_PLAN_PREFILTER = 1 << 14,
};

/*
 * --pair: a plan's role (plan.pair).  START keeps its time under the key
 * plan.hist reads (or the tid), END takes it back as its start (pair.bpf.h).
 */
enum ksnoop_pair_role {
	KSNOOP_PAIR_NONE = 0,
	KSNOOP_PAIR_START,
	KSNOOP_PAIR_END,
};
/*
 * --pair: STARTs waiting for their END at once (a block queue's requests
 * in flight, the runnable tasks of a machine): a START that finds the map
 * full is counted and never paired.
 */
#define KSNOOP_PAIR_ENTRIES	16384

/* BPF cookie of a group's probe: its function's func_id | index << 32. */
#define KSNOOP_COOKIE_INDEX_SHIFT	32

/*
 * sys: through the raw_syscalls tracepoints: the program's map from a
 * system call's number (below KSNOOP_SYSNR_MAX: ksnoop/kernel/sysnr.h)
 * to the cookie its own events would have had, KSNOOP_SYSNR_TRACED set
 * (a cookie may be 0); 0: not this program's.
 */
#define KSNOOP_SYSNR_MAX	1024
#define KSNOOP_SYSNR_TRACED	(1ULL << 63)

/* One function's values in a KSNOOP_PLAN_FUNC_VALUES group. */
struct ksnoop_func_values {
	__u8 nvalues[KSNOOP_NR_KINDS];
	__u8 nstashed;		/* a stash's group (sys:): the return's stashed values */
	__u8 pad[5];
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
/*
 * A counts (and by_counts) map value: the calls counted at its key, and
 * for --hist and --stats the largest and smallest value among them (as
 * __s64 for a signed value), so that a histogram's max is exact, not a
 * bucket's bound, and their sum (wrapping modulo 2^64, as __s64 for a
 * signed value: 2^63 ns is 292 years of durations).
 */
struct ksnoop_count_val {
	__u64 count;
	__u64 max;
	__u64 min;
	__u64 sum;
};
/* Tries of the compare-and-swap that raises a max while other CPUs raise it too. */
#define KSNOOP_MAX_CAS_TRIES	8
#define KSNOOP_COUNT_ENTRIES	65536
#define KSNOOP_STACK_ENTRIES	16384

/*
 * --by: what a count (or a histogram) is kept per, beside its function
 * (plan.by).  Integers are kept as 8 bytes (sign-extended if signed);
 * strings as their first KSNOOP_BY_SIZE - 1 bytes; tuples whole.
 */
enum ksnoop_by {
	KSNOOP_BY_NONE = 0,
	KSNOOP_BY_COMM,		/* the task's comm */
	KSNOOP_BY_PID,		/* its process id (ksnoop's pid namespace) */
	KSNOOP_BY_TID,		/* its thread id */
	KSNOOP_BY_CPU,		/* the CPU the probe ran on */
	KSNOOP_BY_INT,		/* a value the spec names, an integer (plan.by_value) */
	KSNOOP_BY_STR,		/* a value the spec names, a string (plan.by_value) */
	/* a value the spec names with ':tuple': its flow (ksnoop_tuple_key.h) */
	KSNOOP_BY_SKB_TUPLE,
	KSNOOP_BY_SOCK_TUPLE,
	/* the task's cgroup v2 id (printed as its path); a number's 8 bytes, as pid's */
	KSNOOP_BY_CGROUP,
};
/* Bytes of a --by key: a string's first 63 and its NUL, as bpftrace's default of 64. */
#define KSNOOP_BY_SIZE		64
/*
 * --by comm,return: a key of up to this many parts, each where plan.by_off
 * says: a comm's KSNOOP_COMM_LEN bytes, a number's 8, a value's
 * KSNOOP_BY_SIZE (its kind varies by target; its room does not).  At most
 * one part is a value, and no word twice: a value, a comm and one number
 * fill 88 bytes of the key's 96.
 */
#define KSNOOP_BY_PARTS		3
#define KSNOOP_BY_KEY_SIZE	(KSNOOP_BY_SIZE + 2 * KSNOOP_COMM_LEN)
/*
 * Keys --by may hold at once, counted as (function, key, bucket): a
 * hash map of about 190 bytes per element (its key 104), allocated as
 * keys come.  A key that finds it full is counted (KSNOOP_CNT_COUNT_FULL).
 */
#define KSNOOP_BY_ENTRIES	16384

/* --by: a count_key's with the key's bytes. */
struct ksnoop_by_key {
	__u32 func_id;
	__s32 sub;		/* as ksnoop_count_key.sub */
	__u8 key[KSNOOP_BY_KEY_SIZE];
};

/* --hist=linear: at most this many buckets between MIN and MAX. */
#define KSNOOP_HIST_LINEAR_MAX	1000

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
	/* --by: the kind of its VALUE part (KSNOOP_BY_INT ...: read by_value); by_part: all */
	__u8 by;
	/*
	 * --hist=linear: buckets of hist_step from hist_min, hist_nbuckets
	 * of them; below: bucket -1, at or above the last: hist_nbuckets.
	 */
	__u8 hist_linear;
	__u8 tree;		/* --tree: enum ksnoop_tree_role */
	__u8 pair;		/* --pair: enum ksnoop_pair_role; its key read as plan.hist */
	__u32 hist_nbuckets;
	__s64 hist_min;
	__u64 hist_step;
	struct ksnoop_pred_plan by_value;
	/* --tree, the root: the most inner calls one session records (at most KSNOOP_TREE_CALLS_LIMIT) */
	__u32 tree_max_calls;
	/* --tree: the largest inner record (tree_buf's values: 8 bytes more) */
	__u32 tree_rec_size;
	/*
	 * --tree: where the CPU's preempt count is (a per-CPU address, and
	 * the kernel's __per_cpu_offset[]), so that an interrupt's calls stay
	 * out of the task's session; 0: not known, nothing left out.
	 */
	__u64 preempt_count_addr;
	__u64 per_cpu_offset_addr;
	/* --track: enum ksnoop_track_role, and the argument word of the object */
	__u8 track;
	__u8 track_slot;
	/*
	 * --by: each part of the key in the order given (enum ksnoop_by;
	 * NONE: no more parts), and where its bytes start in the key
	 * (ksnoop_by_key.key).  by names the kind of the one part that is a
	 * value the spec names (read through by_value), NONE if none is.
	 */
	__u8 by_part[KSNOOP_BY_PARTS];
	__u8 by_off[KSNOOP_BY_PARTS];
	/* KSNOOP_PLAN_UVARS: the probe's link-time address (its IP less the load bias) */
	__u64 uvar_ip;
	/* KSNOOP_PLAN_UVARS: the executable's TLS block from the thread pointer */
	__s64 uvar_tls_delta;
	/*
	 * KSNOOP_PLAN_UVARS, @tls:NAME: the link-time address of glibc's
	 * __rseq_offset in the executable, 0 if it has none: where the
	 * kernel's copy of the thread pointer may be stale (arm64), the
	 * task's rseq area less that is the thread pointer (words.bpf.h).
	 */
	__u64 uvar_rseq_off;
	/*
	 * --cgroup: only tasks in the cgroup v2 of this id or below it, the
	 * cgroup being at cgroup_level (the root's is 0): the task's
	 * ancestor at that level is it.  0: any task.
	 */
	__u64 cgroup_id;
	__u32 cgroup_level;
	/* Each event's header carries the task's cgroup id (KSNOOP_EV_CGROUP). */
	__u8 event_cgroup;
	__u8 pad_cgroup[3];
	/*
	 * --tree: the preempt count's bits that say "not the task's" (a hard
	 * interrupt, an NMI, a softirq being served), for this kernel's
	 * layout (cmd_trace.c, tree_preempt_count()).  Here, at the end: a
	 * record file's plan from before reads as 0 (not used by report).
	 */
	__u32 preempt_not_task;
	__u32 pad_preempt;
};

enum ksnoop_event_flags {
	KSNOOP_EV_DURATION = 1 << 0,	/* duration_ns holds the call's duration */
	/* --track: object holds the tracked object's address */
	KSNOOP_EV_OBJECT = 1 << 1,
	/* --track: reported because the object is tracked; the predicates did not hold */
	KSNOOP_EV_TRACKED = 1 << 2,
	/* --track: the object was freed here (its last event) */
	KSNOOP_EV_FREED = 1 << 3,
	/* --track: the object was made here from a tracked one (a clone, a copy) */
	KSNOOP_EV_CLONED = 1 << 4,
	/*
	 * Without --track: object holds the task's cgroup v2 id (the word is
	 * --track's object otherwise, and then no cgroup is carried).
	 */
	KSNOOP_EV_CGROUP = 1 << 5,
};

/*
 * --track NAME: what a program does with the object in argument word
 * plan.track_slot (plan.track: a role, | KSNOOP_TRACK_CLONE).  All
 * instances share one `tracked` set (an LRU hash keyed by the object's
 * address).  A follower whose predicates hold adds its object; one whose
 * predicates do not hold is reported anyway if its object is in the set
 * (the one lookup an untracked call pays).  A watcher is reported only
 * for a tracked object.  A free path is reported only for a tracked
 * object, which leaves the set there: a reused address never continues
 * an old story.  A clone (skb_clone() ...) adds the object it returns
 * when its source, the object at its entry, is tracked.
 */
enum ksnoop_track_role {
	KSNOOP_TRACK_NONE = 0,
	KSNOOP_TRACK_FOLLOW = 1,
	KSNOOP_TRACK_WATCH = 2,
	KSNOOP_TRACK_FREE = 3,
	KSNOOP_TRACK_ROLE_MASK = 0x7f,
	KSNOOP_TRACK_CLONE = 0x80,
};

/* --track-max: objects tracked at once by default (an LRU: the oldest go first). */
#define KSNOOP_TRACK_DEFAULT_ENTRIES	16384
#define KSNOOP_TRACK_MAX_ENTRIES	(1u << 22)

/*
 * A tracked set element: when the object joined it, and its story: a
 * number every joining takes from track_stories (shared, never 0), which
 * each of its events carries (ksnoop_event.session).  An LRU pushes an
 * object out without a word; the next object at its address joins with
 * another story, so userspace never takes it for the old one (--group).
 */
struct ksnoop_track_obj {
	__u64 since_ns;
	__u32 story;
	__u32 pad;
};

/*
 * --tree: what a program is in a call tree.  The root's entry opens a
 * session for its task (sessions map, keyed by tid); an inner function's
 * programs do nothing outside one, and inside one report every call at its
 * return with its depth and the session's id, kept in BPF (tree_buf);
 * the root's return closes the session and, if its predicates hold,
 * copies the session's records to the ring buffer and then emits the
 * root's record, which tells userspace to print the tree; if not, deletes
 * them: a discarded session puts nothing in the ring buffer.
 */
enum ksnoop_tree_role {
	KSNOOP_TREE_NONE = 0,
	KSNOOP_TREE_ROOT = 1,
	KSNOOP_TREE_INNER = 2,
};

/*
 * Tasks in a session at once; a root's call that finds no room opens none
 * (KSNOOP_CNT_TREE_NO_ROOM).  Sessions end at the root's return or the
 * task's exit or exec, so only tasks inside a root hold one.
 */
#define KSNOOP_TREE_SESSIONS	8192
/* Depth of calls a session records; deeper calls are counted (KSNOOP_CNT_TREE_DEEP). */
#define KSNOOP_TREE_MAX_DEPTH	16

/*
 * A session's calls wait in BPF (the tree_buf map, keyed by task and
 * index) until its root returns: copied to the ring buffer if the root's
 * return predicates hold, deleted if not.  Each waits in an element of
 * this many bytes (an INNER whose return record is larger is refused);
 * the map holds this many calls of all sessions together, allocated as
 * they come (a call that finds it full is counted as not recorded).
 */
#define KSNOOP_TREE_REC_MAX	4096
#define KSNOOP_TREE_BUF_ENTRIES	65536
/*
 * tree_buf is preallocated (allocating an element per call, and freeing
 * it, cost an error tree 7.9x its calls as events under TCG: bench table
 * 7), its elements the size of the largest inner record: this many bytes
 * at most, so large records mean fewer waiting calls (at least 1024).
 */
#define KSNOOP_TREE_BUF_BYTES	(64u << 20)
#define KSNOOP_TREE_BUF_MIN	1024

struct ksnoop_tree_buf_key {
	__u32 tid;
	__u32 index;		/* the call's place in its session, in return order */
};

/* A tree_buf element: the record's size, then the record. */
struct ksnoop_tree_rec {
	__u32 size;
	__u32 pad;
	__u8 rec[KSNOOP_TREE_REC_MAX];
};

/* One task's session (sessions map value). */
struct ksnoop_tree_session {
	__u32 id;		/* low 32 bits of the root's entry time */
	__u32 depth;		/* inner calls open now */
	__u32 nested;		/* root calls open inside the session's root */
	__u32 calls;		/* inner calls recorded */
	__u32 limit;		/* most calls a session records (the root's plan.tree_max_calls) */
	__u32 dropped;		/* calls past the limit or the depth, not recorded */
	/* calls waiting in tree_buf, indexes 0 to kept - 1 (64 bits: BPF's fetching add) */
	__u64 kept;
	/* the task's task_struct: a tid reused after an exit is not this session's */
	__u64 task;
	/*
	 * When the inner call open at each depth began (0: not recorded):
	 * written at its entry, taken at its return, by the task alone.
	 */
	__u64 start[KSNOOP_TREE_MAX_DEPTH + 1];
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
	union {
		/* --tree, an inner call: its depth below the root (1: called by it) */
		__u16 depth;
		/* --tree, the root: its session's calls not recorded (at most 65535) */
		__u16 dropped;
	};
	/*
	 * --tree: the session's id (its root's entry time, low bits);
	 * --track, KSNOOP_EV_OBJECT: the object's story (ksnoop_track_obj)
	 */
	__u32 session;
	char comm[KSNOOP_COMM_LEN];
	__u64 object;		/* --track, KSNOOP_EV_OBJECT: the tracked object's address */
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

/*
 * kprobe.session (kernels with it, KEEP_SESSION): a task's entry records
 * of calls in flight, in a ring of slots in task storage instead of the
 * stash.  The kernel keeps a 64-bit cookie per call from its entry to its
 * return: the entry writes the slot's sequence number there, the return
 * finds its record by it.  A slot reused before its call returned (more
 * than KSNOOP_SESSION_SLOTS calls of one program nested in one task, or
 * entries that never returned) no longer matches its cookie: counted as
 * KSNOOP_CNT_STASH_DROP.  8 slots of 512 bytes: 4 KiB per task that
 * calls a traced function, an entry record of one string at the default
 * --str-bytes and a few values fits; larger records use the stash.
 * Not more: 7.x allocates local storage with kmalloc_nolock() (its BTF
 * has bpf_map_kmalloc_nolock, and bpf_selem_alloc lost its gfp
 * argument), which serves nothing larger than its largest slab cache,
 * 8 KiB with the storage's own header: 16 slots (8,328 bytes) would be
 * refused at every entry.
 */
#define KSNOOP_SESSION_SLOTS	8
#define KSNOOP_SESSION_REC_MAX	512

struct ksnoop_session_slot {
	__u64 seq;		/* the cookie of the call whose record this is; 0: free */
	__u8 rec[KSNOOP_SESSION_REC_MAX];
};

struct ksnoop_session_slots {
	__u64 next;		/* the last sequence number given */
	struct ksnoop_session_slot slot[KSNOOP_SESSION_SLOTS];
};

/*
 * What the capture programs read of the kernel's own structures, and
 * where: byte offsets, each valid where its bit in `known` is set (not:
 * the field absent from this kernel, or no vmlinux BTF read; the
 * offsets are not stored plus one, whose "- 1" clang folds into the
 * load's own offset, a negative one that 6.1's JIT reads as 0 from a
 * BTF pointer), found by userspace in vmlinux BTF
 * (attach/klayout.c) and written into the frozen .rodata before load
 * (bpf/plan.bpf.h's kfields).  CO-RE relocations did this before, and
 * cost every load a walk of all of vmlinux BTF per relocated type (1.5 ms
 * here for task_struct alone) and a parse of that BTF in runs that need
 * none otherwise (USDT probes, user functions).
 */
enum ksnoop_kfield {
	KSNOOP_KF_TASK_COMM,		/* task_struct.comm */
	/* the thread pointer the kernel saved: thread.fsbase (x86-64), thread.uw.tp_value (arm64) */
	KSNOOP_KF_TASK_TP,
	KSNOOP_KF_TASK_TI_STATUS,	/* x86-64: task_struct.thread_info.status (TS_COMPAT) */
	KSNOOP_KF_TASK_RSEQ,		/* task_struct.rseq, a pointer (before 6.19) */
	KSNOOP_KF_TASK_RSEQ_USRPTR,	/* task_struct.rseq.usrptr (6.19's struct rseq_data) */
	KSNOOP_KF_REGS_NR,		/* pt_regs: orig_ax (x86-64), syscallno (arm64, 32 bits) */
	KSNOOP_KF_REGS_ARG0,		/* pt_regs: a system call's six arguments */
	KSNOOP_KF_REGS_ARG1,
	KSNOOP_KF_REGS_ARG2,
	KSNOOP_KF_REGS_ARG3,
	KSNOOP_KF_REGS_ARG4,
	KSNOOP_KF_REGS_ARG5,
	KSNOOP_KF_REGS_PSTATE,		/* arm64: pt_regs.pstate (PSR_MODE32) */
	KSNOOP_KF__COUNT,
};

struct ksnoop_kfields {
	__u32 known;		/* bit 1 << field: its offset is valid */
	__u32 off[KSNOOP_KF__COUNT];
};

/* Counters in a shared per-CPU array. */
enum ksnoop_counter {
	KSNOOP_CNT_LOST = 0,	/* ring buffer full */
	KSNOOP_CNT_STASH_DROP,	/* stash full: an entry (or its time) could not be kept */
	KSNOOP_CNT_COUNT_FULL,	/* --count: the counts map was full */
	KSNOOP_CNT_STACK_LOST,	/* --count -s: a stack not taken (stacks map full) */
	KSNOOP_CNT_HIST_UNREAD,	/* --hist (--by): the value (the key) could not be read */
	KSNOOP_CNT_TREE_DROP,	/* --tree: an inner call past the session's limit or depth */
	KSNOOP_CNT_TREE_EXIT,	/* --tree: a session whose task exited inside it (dropped) */
	KSNOOP_CNT_TRACK_ADDED,	/* --track: objects that joined the tracked set */
	KSNOOP_CNT_TRACK_FREED,	/* --track: objects that left it at a free path */
	KSNOOP_CNT_TRACK_FAILED,	/* --track: an object that could not join it */
	KSNOOP_CNT_TREE_EXEC,	/* --tree: a session whose thread called exec inside it (dropped) */
	KSNOOP_CNT_TREE_NO_ROOM,	/* --tree: a root's call that found no room for a session */
	KSNOOP_CNT_SELF,	/* a selected call made by ksnoop itself, left out */
	KSNOOP_CNT_SESSION_STASHED,	/* kprobe.session: an entry kept in the stash, task storage refused */
	KSNOOP_CNT_PAIR_FULL,	/* --pair: a START not kept (the pair map was full) */
	KSNOOP_CNT_PAIR_UNREAD,	/* --pair: an event whose key could not be read */
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

_Static_assert(sizeof(struct ksnoop_event) == 64, "event header layout");
_Static_assert((KSNOOP_SESSION_SLOTS & (KSNOOP_SESSION_SLOTS - 1)) == 0, "session slots: a power of 2");
_Static_assert(sizeof(struct ksnoop_session_slots) <= 8192 - 512,
	       "session slots: 7.x allocates task storage from slab caches of at most 8 KiB");
_Static_assert(sizeof(struct ksnoop_value) == 16, "value header layout");
_Static_assert(sizeof(struct ksnoop_access) == 80, "access layout");
_Static_assert(sizeof(struct ksnoop_skb_tuple) == 52, "skb tuple layout");
_Static_assert(sizeof(struct ksnoop_sock_tuple) == 52, "sock tuple layout");
_Static_assert(sizeof(struct ksnoop_skb_packet) == 56, "skb packet layout");
_Static_assert(KSNOOP_PKT_NR_FIELDS <= 4 * KSNOOP_TUPLE_OFF_STEPS, "packet offsets fit their steps");
_Static_assert(sizeof(struct ksnoop_strv) == 64 + 8 * (KSNOOP_STRV_MAX + 1) + KSNOOP_STRV_BYTES,
	       "strv layout");
_Static_assert(KSNOOP_STRV_STR <= KSNOOP_STRV_BYTES, "a strv string fits its area");
_Static_assert(KSNOOP_SOCK_NR_FIELDS <= 4 * KSNOOP_TUPLE_OFF_STEPS, "tuple offsets fit their steps");
_Static_assert(sizeof(struct ksnoop_pred_plan) == 168, "pred layout");
_Static_assert(sizeof(struct ksnoop_func_values) == 8 + 2 * 16 * 80, "func values layout");
_Static_assert(sizeof(struct ksnoop_side_plan) == 2768, "side plan layout");
_Static_assert(sizeof(struct ksnoop_plan) == 5784 + 24 + 168 + 8 + 16 + 8 + 16 + 8 + 16 + 8, "plan layout");
_Static_assert(sizeof(struct ksnoop_by_key) == 8 + KSNOOP_BY_KEY_SIZE, "by key layout");
_Static_assert(KSNOOP_BY_SIZE + KSNOOP_COMM_LEN + 8 <= KSNOOP_BY_KEY_SIZE, "a --by key fits its parts");
_Static_assert(sizeof(struct ksnoop_skb_tuple) <= KSNOOP_BY_SIZE &&
	       sizeof(struct ksnoop_sock_tuple) <= KSNOOP_BY_SIZE, "a tuple fits a --by key");

#endif /* KSNOOP_H */
