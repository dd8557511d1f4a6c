/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Record files (`ksnoop record -o FILE`, `ksnoop report FILE`): what the
 * ring buffer delivered, untouched, with everything needed to print it
 * later on another machine.  docs/RECORD-FORMAT.md is the byte layout.
 *
 *   file   := MAGIC BLOCK*
 *   MAGIC  := "KSNOOPR\n"
 *   BLOCK  := type u32, raw_len u32, stored_len u32, crc32 u32, stored bytes
 *
 * Every block is one zstd frame (version 3; a zlib stream in version 2,
 * which is still read) of stored_len bytes that decompresses to exactly
 * raw_len bytes; the CRC-32 is of the stored bytes, so a damaged block is
 * found before it is decompressed.  The type word's high bits say how:
 * RECFILE_BLOCK_ZSTD, and for EVENTS RECFILE_BLOCK_DELTA (each record's
 * 8-byte words that differ from the record before's, XORed with them, and
 * a mask of which: the header fields that repeat from event to event are
 * left out; docs/RECORD-FORMAT.md).  Blocks come in this order:
 * HEADER, BTF, PLANS, KSYMS (kernel targets that name addresses), EVENTS
 * (any number, each after the USYMS block that names its user stacks'
 * new frames, if any), END.  A file cut short (ksnoop killed, disk full) has no
 * END: every complete block before the cut still reports.
 *
 * A record file is untrusted input: the reader bounds every length
 * (RECFILE_MAX_* below), inflates into a buffer of the declared size and
 * no more (a decompression bomb stops there), validates the BTF (libbpf,
 * then every reference) and every plan against it and against its record
 * layout, and every record against its plan, before the printer sees it.
 * What it refuses it names in one line, with the byte offset of the block.
 */
#ifndef KSNOOP_RECFILE_H
#define KSNOOP_RECFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "ks_error.h"
#include "resolve.h"

#define RECFILE_MAGIC		"KSNOOPR\n"
#define RECFILE_MAGIC_LEN	8
/*
 * 6: a value may be a packet (PRINT_SKB_PACKET: record --pcap, report
 * --pcap), and USYMS blocks name user stacks' frames.  7: the END of a
 * --track recording holds the live summary's object counters.
 */
#define RECFILE_VERSION		7
/* The oldest version a reader takes: 2 has the same records, zlib blocks. */
#define RECFILE_OLDEST_VERSION	2
/* Events are written in blocks of about this much raw data. */
#define RECFILE_EVENTS_BLOCK	(1u << 20)
/*
 * The largest raw block a reader takes: the kernel's symbols (~6 MB of
 * /proc/kallsyms on a distribution kernel) fit with room to spare; a
 * block that says it is larger is refused before anything is allocated.
 */
#define RECFILE_MAX_BLOCK	(64u << 20)
/* Targets a file may describe (a glob over every kernel function fits). */
#define RECFILE_MAX_TARGETS	(1u << 17)
/* The shortest struct ksnoop_plan a reader takes: version 2's first, before uvar_ip. */
#define RECFILE_MIN_PLAN	offsetof(struct ksnoop_plan, uvar_ip)
/* A string in the header or a plan (spec texts, names). */
#define RECFILE_MAX_STR		4096
#define RECFILE_MAX_SPECS	256
/*
 * USYMS (format 6): the user stack frames' names, each (process, address)
 * named once.  A name is what usym.c gives the printer (its buffer:
 * under 512 bytes); a million names cover a long run over many processes.
 */
#define RECFILE_MAX_USYM_NAME	512
#define RECFILE_MAX_USYMS	(1u << 20)
/* Bytes of all names (each with its NUL), what a reader keeps: 64 bytes a name of the million. */
#define RECFILE_MAX_USYM_BYTES	(64u << 20)

enum recfile_block {
	RECFILE_HEADER = 1,
	RECFILE_BTF = 2,
	RECFILE_PLANS = 3,
	RECFILE_KSYMS = 4,
	RECFILE_EVENTS = 5,
	RECFILE_END = 6,
	RECFILE_USYMS = 7,	/* format 6: names of user stack frames, before their events */
};

/* A block type word's high bits: how its bytes are stored. */
#define RECFILE_BLOCK_TYPE	0xffffu
#define RECFILE_BLOCK_ZSTD	(1u << 16)	/* a zstd frame; else a zlib stream */
#define RECFILE_BLOCK_DELTA	(1u << 17)	/* EVENTS: records as changed words */

enum recfile_kind {
	RECFILE_KERNEL = 0,	/* functions, tracepoints, system calls */
	RECFILE_USDT = 1,
};

/*
 * What `report FILE` prints without an output option (format 5): the
 * events, or the table `record --count` / `record --hist` asked for,
 * made at report time from the recorded events.
 */
enum recfile_output {
	RECFILE_OUT_EVENTS = 0,
	RECFILE_OUT_COUNT = 1,
	RECFILE_OUT_HIST = 2,
};

/* What the HEADER block says. */
struct recfile_meta {
	__u32 format;		/* the file's format version (the reader's; the writer writes its own) */
	char *version;		/* ksnoop's */
	char *release;		/* uname -r of the traced machine */
	char *machine;		/* uname -m: the architecture */
	/*
	 * The recording machine's name (uname -n; format 5).  A file of an
	 * older format has none: the reader puts its file name here, which
	 * is what a merged report marks its events with.
	 */
	char *host;
	__u64 start_ns;		/* CLOCK_REALTIME when recording began */
	char *clock;		/* of the records' times: "monotonic" (bpf_ktime_get_ns) */
	__s64 clock_offset_ns;	/* realtime - monotonic, for wall-clock text */
	__u32 kind;		/* enum recfile_kind */
	bool stack;		/* -s */
	int nspecs;
	char **specs;
	/* Format 5: what a plain report prints (record --count, --hist). */
	__u32 output;		/* enum recfile_output */
	char *by;		/* --by KEY,... ("": none) */
	__s64 hist_min;		/* --hist=linear (hist_step 0: log2) */
	__u64 hist_step;
	__u32 hist_nbuckets;
};

/* What the END block says: the recording's own totals. */
struct recfile_totals {
	__u64 records;		/* written to the file */
	__u64 lost;		/* the ring buffer was full */
	__u64 unwritten;	/* captured but not written: the stop came first */
	__u64 stash_full;
	__u64 stack_lost;
	__u64 missed;
	__u64 end_ns;		/* CLOCK_REALTIME when recording ended */
	/* --tree's counters (the live summary's), in a recording of --tree only */
	__u64 tree_dropped;
	__u64 tree_exited;
	__u64 tree_exec;
	__u64 tree_no_room;
	/*
	 * --track's counters (the live summary's), in a recording of --track
	 * only (format 7): objects that joined the set, were freed, could
	 * not join, and were still tracked at the end.
	 */
	__u64 track_added;
	__u64 track_freed;
	__u64 track_failed;
	__u64 track_alive;
};

/* END without --tree's counters: every recording but one of --tree or --track. */
#define RECFILE_END_SIZE	offsetof(struct recfile_totals, tree_dropped)
/* END of a recording of --tree (not of --track): with the tree counters. */
#define RECFILE_END_TREE_SIZE	offsetof(struct recfile_totals, track_added)

/* One target of the recording, as PLANS gives it back (func_id is its index). */
struct recfile_target {
	char *label;		/* "" or as the live run names the target */
	struct capture_plan plan;	/* sig.btf is the file's BTF; value texts are owned */
};

/*
 * T's name in every message and column: its label, or its function's
 * name when it has none ("?" for a NULL T, a func_id of no target).
 */
const char *recfile_target__name(const struct recfile_target *t);

/* ---- writing ---- */

struct recfile_writer;

/*
 * Open PATH for a recording ("-": stdout).  An existing file is refused
 * (-EEXIST) unless FORCE.  NULL on failure, with E saying why.
 */
struct recfile_writer *recfile_writer__open(const char *path, bool force, struct ks_error *e);
/*
 * The blocks before the events: META, a minimal BTF of the types the
 * PLANS walk (copied from each plan's own BTF, ids remapped), the PLANS
 * and KSYMS (kallsyms lines, or NULL), if NAMES_ADDRESSES (stacks,
 * ':sym') or the types hold function pointers.  0 or a negative errno,
 * reported in E.
 */
int recfile_writer__begin(struct recfile_writer *w, const struct recfile_meta *meta,
			  const struct recfile_target *targets, int n,
			  const char *ksyms, size_t ksyms_len, bool names_addresses,
			  struct ks_error *e);
/* One record as it left the ring buffer; a full block goes out. */
int recfile_writer__event(struct recfile_writer *w, const void *rec, size_t size,
			  struct ks_error *e);
/*
 * User stacks are named when they are recorded (cmd_record.c): has
 * (PID, ADDR) a name in the file already?  And give it NAME, which goes
 * out before the events that use it.  0 or a negative errno (past
 * RECFILE_MAX_USYMS names or RECFILE_MAX_USYM_BYTES of them: -E2BIG,
 * and the address stays unnamed).
 */
bool recfile_writer__has_usym(const struct recfile_writer *w, __u32 pid, __u64 addr);
int recfile_writer__usym(struct recfile_writer *w, __u32 pid, __u64 addr, const char *name,
			 struct ks_error *e);
/* The events given so far, as a block (none: nothing written).  0 or a negative errno. */
int recfile_writer__flush(struct recfile_writer *w, struct ks_error *e);
/* The last events and END; the file is closed.  0 or a negative errno. */
int recfile_writer__finish(struct recfile_writer *w, const struct recfile_totals *t,
			   struct ks_error *e);
/*
 * recfile_writer__free() removes the file it created if the run ended
 * before recfile_writer__begin() (nothing attached): a retry is not
 * refused for an empty file.
 */
/* Bytes written so far (blocks complete on disk), and records given. */
__u64 recfile_writer__bytes(const struct recfile_writer *w);
__u64 recfile_writer__records(const struct recfile_writer *w);
void recfile_writer__free(struct recfile_writer *w);

/*
 * The minimal BTF: the types of every value of N plans (ids kept in the
 * plans' value_desc are rewritten to the new BTF's in PLANS_OUT, which
 * must hold N plans).  Pointers keep their size but point at void, or
 * at an empty function prototype for a function pointer: the printer
 * shows pointers as addresses and names functions only.  NULL and errno.
 */
struct btf *recfile__minimal_btf(const struct recfile_target *targets, int n,
				 struct capture_plan *plans_out);

/* ---- reading ---- */

struct recfile;

/* Read a recording from F (its name WHERE for messages).  NULL and E on failure. */
struct recfile *recfile__open(FILE *f, const char *where, struct ks_error *e);
void recfile__free(struct recfile *r);

const struct recfile_meta *recfile__meta(const struct recfile *r);
int recfile__ntargets(const struct recfile *r);
const struct recfile_target *recfile__target(const struct recfile *r, int i);
/* KSYMS: kallsyms lines (NULL: none in the file). */
const char *recfile__ksyms(const struct recfile *r, size_t *len);
const struct btf *recfile__btf(const struct recfile *r);
/*
 * A user stack frame's name as it was recorded (USYMS), into BUF: CTX is
 * the struct recfile (print.h's print_usymbolize_fn).  0, or -ENOENT when
 * the recording named no such frame (print its address).  Names come
 * with the blocks that use them: ask once their records are read.
 */
int recfile__usymbolize(void *ctx, __u32 pid, __u64 addr, char *buf, size_t sz);

/*
 * The next record, checked against its target's plan (REC stays valid
 * until the next call).  1: a record; 0: the end of the file (END seen,
 * *TOTALS filled, or cut short: recfile__cut() says where); negative:
 * a bad block, E says which and why.
 */
int recfile__next(struct recfile *r, const void **rec, size_t *size, struct ks_error *e);
/* After the last record: the END block's totals (NULL: the file was cut short). */
const struct recfile_totals *recfile__totals(const struct recfile *r);
/* A cut file: where its last complete block ends (0: not cut). */
__u64 recfile__cut(const struct recfile *r);
/* Bytes read so far. */
__u64 recfile__offset(const struct recfile *r);

#endif
