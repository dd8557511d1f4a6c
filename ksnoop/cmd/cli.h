/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Options shared by the commands, as parsed from the command line. */
#ifndef KSNOOP_CLI_H
#define KSNOOP_CLI_H

#include <stdbool.h>
#include <linux/types.h>
#include "report.h"
#include "attach_kind.h"

/*
 * What a trace prints: one value, so that a new kind of output is one
 * more value here (and rows in main.c's check_output_options() for the
 * options it takes), not one more flag that every other flag must be
 * checked against.
 */
enum output_mode {
	OUTPUT_EVENTS,	/* a record per call: the values, as text or JSON */
	OUTPUT_COUNT,	/* --count: calls per function (with -s, per stack), summed in BPF */
	OUTPUT_HIST,	/* --hist: a log2 histogram per function of one value, or durations */
	OUTPUT_STATS,	/* --stats: count, sum, min, max and average of that value */
};

/* --hist and --stats: the calls are counted by one value the spec names, or durations. */
static inline bool output_by_value(enum output_mode m)
{
	return m == OUTPUT_HIST || m == OUTPUT_STATS;
}

struct options {
	bool json;
	/* What -j and --folded make of every record printed: report__format(), once. */
	enum report_format format;
	bool zeros;
	bool oneline;		/* --oneline: an event a line (print.h) */
	bool has_depth;		/* --depth N given: nested values deeper than N cut */
	int depth;
	bool stack;		/* -s */
	bool ustack;		/* --ustack: the current task's user stack too */
	enum output_mode output;
	/*
	 * --folded: count output written as folded stacks.  A form of
	 * OUTPUT_COUNT, as -j is a form of every mode, and not a mode of its
	 * own: what BPF counts is the same as for --count -s; only the
	 * printing differs.
	 */
	bool folded;
	bool perfetto;		/* report --format=perfetto: a timeline (report_perfetto.h) */
	__u64 interval_ms;	/* --interval: print (and reset) counts this often */
	__u32 pid, tid;
	char comm[16];
	bool has_comm;
	__u64 max_events;	/* -n: exit after this many events (0: unlimited) */
	__u64 duration_ns;	/* 0: unlimited */
	__u64 min_duration_ns;	/* -L: only calls at least this long (0: all) */
	enum attach_mode mode;
	__u32 max_bytes;
	__u32 str_bytes;
	__u32 buffer_bytes;	/* ring buffer size */
	const char *btf_dir;	/* for tests: another /sys/kernel/btf */
	const char *btf_file;	/* --btf: types for USDT argN:TYPE */
	/* --by KEY: comm, pid, tid, cpu or a value the spec names (NULL: none) */
	const char *by;
	/* --hist=linear:MIN:MAX:STEP (hist_step 0: log2 buckets) */
	__s64 hist_min;
	__u64 hist_step;
	__u32 hist_nbuckets;
	/* --pair: the first SPEC starts what the second ends, paired by a key */
	bool pair;
	/* --tree: the first SPEC is the root of call trees, the others inner functions */
	bool tree;
	__u32 tree_max_calls;	/* --tree-max-calls: inner calls one tree records */
	/* --track NAME: the object every spec binds as NAME is followed (NULL: none) */
	const char *track;
	const char *untrack[8];	/* --untrack FUNC: where an object ends (TRACK_MAX_UNTRACK) */
	int nuntrack;
	__u32 track_max;	/* --track-max: objects followed at once (0: the default) */
	bool group;		/* --group: each object's events together, when it is freed */
	/* record: -o FILE ("-": stdout), --force to overwrite; report: --info */
	const char *record_path;
	bool force;
	bool rec_info;
	/* report: --since, --until TIME (an offset from the start, or a wall time) */
	const char *since, *until;
	bool recording;		/* `record`: events go to record_path, not the printer */
	/*
	 * record --count/--hist: the events are recorded, and these say what
	 * a plain `report FILE` prints of them (the HEADER's output and by).
	 */
	enum output_mode record_output;
	const char *record_by;
	/* --pcap FILE: the packets of specs binding a struct sk_buff *, as pcapng (NULL: none) */
	const char *pcap_path;
	__u32 snaplen;		/* --snaplen: bytes of each packet (0: the default) */
	/* --filter EXPR: a pcap-filter expression each skb's packet must pass (NULL: none) */
	const char *filter;
	/* --cgroup PATH: only tasks in that cgroup v2 or below (id 0: any) */
	const char *cgroup_path;
	bool show_cgroup;	/* --show-cgroup: text events name their task's cgroup */
	__u64 cgroup_id;
	__u32 cgroup_level;
	/* --netns INODE|PATH: only skbs and socks of that network namespace (0: any) */
	const char *netns_arg;
	__u32 netns_ino;
};

/*
 * The commands.  Each reports its errors where they happen and returns 0
 * or the negative errno of the one that decides the exit status (main()).
 */
int do_info(int argc, char **argv, const struct options *opts);
int do_trace(int argc, char **argv, const struct options *opts);
int do_usdt(int argc, char **argv, const struct options *opts);
int do_record(int argc, char **argv, const struct options *opts);
int do_report(int argc, char **argv, const struct options *opts);

#endif
