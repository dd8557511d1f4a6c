// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ksnoop report FILE`: a recording (recfile.c) printed by the printer a
 * live trace uses (print.c), with the options that choose how a trace
 * prints (-j, -z, --oneline, --depth) and which events it shows (-p,
 * --tid, -c, -n), so that the output is the live run's, byte for byte.
 * Kernel addresses are named from the file's copy of kallsyms, through
 * the same tables and lookups (kernel.c's kernel__symbolize()) as live:
 * the copy is handed to them as a memfd.  A file without one prints its
 * addresses as addresses: the reporting machine's /proc/kallsyms belongs
 * to another kernel, or another boot of it (KASLR), and would name them
 * wrong.  The machine that reports needs no BTF and no privilege.
 *
 * `ksnoop report --stats FILE`: the count, sum, min and max per target of
 * the one value its spec names (else of its calls' durations), as a live
 * --stats run sums them in BPF.
 *
 * `ksnoop report --pair FILE`: a recording of two specs, START and END,
 * paired by key as a live --pair pairs them in BPF (pair.bpf.h): each END
 * event with its latency since its START (-L: the late ones), or with
 * --stats the latencies summed.
 *
 * `ksnoop report --info FILE`: what the file holds, without the events.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "btf_util.h"
#include "cli.h"
#include "counts.h"
#include "duration.h"
#include "hist.h"
#include "log.h"
#include "pcap_events.h"
#include "pcapng.h"
#include "print.h"
#include "printing.h"
#include "rec_merge.h"
#include "rec_query.h"
#include "recfile.h"
#include "report.h"
#include "report_perfetto.h"
#include "kernel.h"
#include "spec.h"

struct by_table;
struct stats_pick;
struct replay_file;

struct replay {
	const struct options *opts;
	struct recfile *r;
	struct kernel *k;	/* names kernel addresses from the file's kallsyms */
	int ksyms_fd;
	char ksyms_path[32];
	struct printer printer;
	struct report report;
	__u64 printed;
	__u64 counted;		/* --count: calls counted */
	__u64 pair_full, pair_unread;	/* --pair: STARTs not kept, keys not read */
	bool printing;		/* printer and report set up */
	struct rec_query *query;	/* SPEC...: the events asked for (NULL: all) */
	struct by_table *by;		/* --by: each target's key (NULL: none) */
	struct stats_pick *picks;	/* --hist: what each target counts by */
	__u64 since_ns, until_ns;	/* --since, --until: records' clock (0: none) */
	struct tree_print tree;	/* a recording of --tree: calls waiting for their root */
	struct group_print groups;	/* --group: a --track recording's events per object */
	struct options defaults;	/* the options with what the file asks (record --count) */
	bool hist_durations;		/* its --hist: a spec naming no value counts durations */
	/*
	 * Several recordings (report_merge()): each file's own reader, plans,
	 * query and symbols; targets numbered across them (file F's target I
	 * is files[F].base + I), and the records handed on with that number.
	 */
	struct replay_file *files;
	int nfiles;			/* 0: one recording, rp->r */
	int ntargets;
	__u32 *canon;			/* per target: the first of its name (one row) */
	struct rec_merge *merge;
	int file;			/* the file of the record handed on */
	void *copy;			/* the record handed on */
	size_t copy_cap;
	struct recfile_totals sum;	/* the files' END totals added up */
	struct pcap_events *pcap;	/* --pcap: the events' packets go there too */
};

struct replay_file {
	const char *where;
	FILE *f;
	struct recfile *r;
	struct rec_query *query;
	struct kernel *k;
	int ksyms_fd;
	char ksyms_path[32];
	bool named;			/* kernel addresses named from its kallsyms */
	__u64 since_ns, until_ns;
	__u32 base;
};

/* Target ID across the files: its file (-1: one recording), ID made its index there. */
static int file_of(const struct replay *rp, __u32 *id)
{
	int f = rp->nfiles - 1;

	if (!rp->nfiles)
		return -1;
	while (f > 0 && *id < rp->files[f].base)
		f--;
	*id -= rp->files[f].base;
	return f;
}

static const struct recfile_target *rp_target(const struct replay *rp, __u32 id)
{
	int f = file_of(rp, &id);

	return recfile__target(f < 0 ? rp->r : rp->files[f].r, id);
}

/* Target ID's name, in any file of RP ("?": none). */
static const char *rp_name(const struct replay *rp, __u32 id)
{
	return recfile_target__name(rp_target(rp, id));
}

static int rp_ntargets(const struct replay *rp)
{
	return rp->nfiles ? rp->ntargets : recfile__ntargets(rp->r);
}

/* The query that asks target ID's file (NULL: every event), ID made its index there. */
static const struct rec_query *rp_query(const struct replay *rp, __u32 *id)
{
	int f = file_of(rp, id);

	return f < 0 ? rp->query : rp->files[f].query;
}

static bool rp_names(const struct replay *rp, __u32 id)
{
	const struct rec_query *q = rp_query(rp, &id);

	return !q || rec_query__names(q, id);
}

static int rp_values(const struct replay *rp, __u32 id, const char **first)
{
	const struct rec_query *q = rp_query(rp, &id);

	return rec_query__values(q, id, first);
}

static int rp_side(const struct replay *rp, __u32 id)
{
	const struct rec_query *q = rp_query(rp, &id);

	return rec_query__side(q, id);
}

/* The row target ID counts in: of several recordings, one per name. */
static __u32 rp_canon(const struct replay *rp, __u32 id)
{
	return rp->canon ? rp->canon[id] : id;
}

static int merged_next(struct replay *rp, const void **rec, size_t *size, struct ks_error *e);
static const struct recfile_totals *merged_totals(struct replay *rp);

/* The next record to report: the file's, or the merge's (with its number across files). */
static int replay_next(struct replay *rp, const void **rec, size_t *size, struct ks_error *e)
{
	return rp->merge ? merged_next(rp, rec, size, e) : recfile__next(rp->r, rec, size, e);
}

/*
 * User stack frames are named from the names recorded with them (format
 * 6's USYMS), as the live run named them; an older file has none.
 */
static void report_usyms(struct print_opts *po, struct recfile *r)
{
	bool has = recfile__meta(r)->format >= 6;

	po->usymbolize = has ? recfile__usymbolize : NULL;
	po->usym_ctx = has ? r : NULL;
}

/* R's kallsyms lines where ksyms.c reads a path: a memfd.  1: set up; 0: none. */
static int ksyms_setup(const struct recfile *r, struct kernel **k, int *fd, char *path,
		       size_t path_sz)
{
	size_t len, off = 0;
	const char *ks = recfile__ksyms(r, &len);

	*fd = -1;
	*k = kernel__new(NULL);
	if (!*k)
		return -ENOMEM;
	if (!ks)
		return 0;
	*fd = memfd_create("ksnoop-kallsyms", MFD_CLOEXEC);
	if (*fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(*fd, ks + off, len - off);

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += n;
	}
	snprintf(path, path_sz, "/proc/self/fd/%d", *fd);
	kernel__set_kallsyms_path(*k, path);
	return 1;
}

static int setup_ksyms(struct replay *rp)
{
	return ksyms_setup(rp->r, &rp->k, &rp->ksyms_fd, rp->ksyms_path, sizeof(rp->ksyms_path));
}

/*
 * -p, --tid, -c: applied here, as BPF applies them live; then the time
 * window and the SPECs' questions (rec_query.c).
 */
static bool wanted(const struct replay *rp, const struct ksnoop_event *ev)
{
	const struct options *o = rp->opts;

	if (o->pid && ev->tgid != o->pid)
		return false;
	if (o->tid && ev->tid != o->tid)
		return false;
	if (o->has_comm && strncmp(ev->comm, o->comm, KSNOOP_COMM_LEN))
		return false;
	if (ev->time_ns < rp->since_ns || (rp->until_ns && ev->time_ns > rp->until_ns))
		return false;
	/* -L: the returns of calls at least that long (their entries were seen);
	 * with --pair, the latencies (pair_step()) */
	if (o->min_duration_ns && !o->pair && (ev->kind != KSNOOP_RETURN || !(ev->flags & KSNOOP_EV_DURATION) ||
				   ev->duration_ns < o->min_duration_ns))
		return false;
	return rec_query__keep(rp->query, ev);
}

/*
 * --since, --until TEXT into the records' clock (monotonic): a length of
 * time is an offset from the recording's start ("2s", "150ms"); else a
 * wall time as the events print it, "HH:MM:SS[.FRACTION]" on the day the
 * recording started, or "YYYY-MM-DDTHH:MM:SS[.FRACTION][Z]" (Z: UTC;
 * else local time, as the events print).
 */
static int parse_frac(const char *p, __u64 *ns)
{
	__u64 scale = 100000000ULL;

	*ns = 0;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			*ns += (*p - '0') * scale;
	}
	return *p;
}

static int parse_wall(const char *text, const struct recfile_meta *m, __u64 *wall_ns)
{
	time_t start = m->start_ns / 1000000000ULL, t;
	struct tm tm = {};
	const char *p;
	__u64 frac;
	int utc = 0, end;

	if ((p = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm))) {
		end = parse_frac(p, &frac);
		utc = end == 'Z';
		if (end && !(utc && !p[strcspn(p, "Z") + 1]))
			return -EINVAL;
	} else {
		if (!localtime_r(&start, &tm))
			return -EINVAL;
		p = strptime(text, "%H:%M:%S", &tm);
		if (!p || parse_frac(p, &frac))
			return -EINVAL;
	}
	tm.tm_isdst = -1;
	t = utc ? timegm(&tm) : mktime(&tm);
	/* Before 1970 or past 2262 (nanoseconds in 63 bits): no recording's. */
	if (t == (time_t)-1 || t < 0 || (__u64)t > (__u64)INT64_MAX / 1000000000ULL - 1)
		return -EINVAL;
	*wall_ns = (__u64)t * 1000000000ULL + frac;
	return 0;
}

/* TEXT (OPTION's) as a wall time into *WALL, an offset being from M's start. */
static int window_wall(const struct recfile_meta *m, const char *option, const char *text,
		       __u64 *wall, struct ks_error *e)
{
	struct ks_error ignored = {};
	__u64 off;

	if (!duration__parse(text, 0, &off, &ignored))
		*wall = m->start_ns + off;
	else if (parse_wall(text, m, wall))
		return ks_fail(e, -EINVAL, "report: %s '%s': expected an offset from the recording's start (2s, 150ms) or a wall time (HH:MM:SS[.FRACTION], YYYY-MM-DDTHH:MM:SS[Z])",
			       option, text);
	return 0;
}

/* WALL on the clock of M's records: wall = monotonic + clock_offset; before its zero, its first ns. */
static __u64 window_mono(const struct recfile_meta *m, __u64 wall)
{
	return (__s64)wall - m->clock_offset_ns > 0 ? (__u64)((__s64)wall - m->clock_offset_ns) : 1;
}

/* TEXT (OPTION's) as a time on the records' clock into *NS. */
static int window_bound(const struct replay *rp, const char *option, const char *text,
			__u64 *ns, struct ks_error *e)
{
	const struct recfile_meta *m = recfile__meta(rp->r);
	__u64 wall;
	int ret = window_wall(m, option, text, &wall, e);

	if (!ret)
		*ns = window_mono(m, wall);
	return ret;
}

static int setup_window(struct replay *rp, struct ks_error *e)
{
	const struct options *o = rp->opts;
	int ret = 0;

	if (o->since)
		ret = window_bound(rp, "--since", o->since, &rp->since_ns, e);
	if (!ret && o->until)
		ret = window_bound(rp, "--until", o->until, &rp->until_ns, e);
	if (!ret && rp->until_ns && rp->until_ns < rp->since_ns)
		ret = ks_fail(e, -EINVAL, "report: --until '%s' is before --since '%s'",
			      o->until, o->since);
	return ret;
}

static const struct capture_plan *replay_plan_of(void *ctx, __u32 func_id)
{
	const struct replay *rp = ctx;

	return func_id < (__u32)rp_ntargets(rp) ? &rp_target(rp, func_id)->plan : NULL;
}

/* Does a target of the recording keep its packets (record --pcap)? */
static bool has_packets(const struct replay *rp)
{
	const struct capture_plan *plan;
	int i, kind, v;

	for (i = 0; i < rp_ntargets(rp); i++) {
		plan = &rp_target(rp, i)->plan;
		for (kind = 0; kind < KSNOOP_NR_KINDS; kind++)
			for (v = 0; v < plan->nvalues[kind] && v < KSNOOP_MAX_VALUES; v++)
				if (plan->values[kind][v].how == PRINT_SKB_PACKET)
					return true;
	}
	return false;
}

/*
 * report --pcap FILE: the recording's packets (record --pcap kept them in
 * its events) written as the live run wrote them, for the events printed.
 */
static int open_pcap(struct replay *rp, const char *where, struct ks_error *e)
{
	const struct options *o = rp->opts;

	if (!o->pcap_path)
		return 0;
	if (o->output != OUTPUT_EVENTS || o->pair || o->perfetto)
		return ks_fail(e, -EINVAL, "report: --pcap writes the events' packets: not with %s",
			       o->output != OUTPUT_EVENTS ? "--count, --hist or --stats (given, or the recording's own)" :
			       o->pair ? "--pair" : "--format=perfetto");
	if (!has_packets(rp))
		return ks_fail(e, -EINVAL, "report: '%s' keeps no packets (record it with --pcap)", where);
	rp->pcap = pcap_events__open(o->pcap_path, rp->printer.opts.clock_offset_ns, e);
	return rp->pcap ? 0 : e->err;
}

/* --pcap: the file closed, and what went into it said with -v. */
static int close_pcap(struct replay *rp, struct ks_error *e)
{
	int err;

	if (!rp->pcap)
		return 0;
	log_info("--pcap: %llu packets written to '%s'; %llu left out (no header set, or more than %d interfaces)",
		 (unsigned long long)pcap_events__written(rp->pcap), rp->opts->pcap_path,
		 (unsigned long long)pcap_events__skipped(rp->pcap), PCAPNG_MAX_IFACES);
	err = pcap_events__close(rp->pcap, e);
	rp->pcap = NULL;
	return err;
}

/*
 * Events as the live run printed them; a recording of --tree prints its
 * trees as the live run did (tree_print.c): a tree when its root's record
 * is kept, its calls' records waiting until then.  --group: a recording
 * of --track prints each object's events together as a live --group run
 * does (group_print.c); past -n, the frees still read say a group was
 * freed, and the groups still open print at the end.
 */
static int print_events(struct replay *rp, struct ks_error *e)
{
	bool group = rp->opts->group, done = false;
	const void *rec;
	size_t size;
	int ret;

	if (group)
		group_print__init(&rp->groups, KSNOOP_TRACK_DEFAULT_ENTRIES);
	while ((ret = replay_next(rp, &rec, &size, e)) > 0) {
		const struct ksnoop_event *ev = rec;
		const struct capture_plan *plan;

		if (!wanted(rp, ev))
			continue;
		if (done) {
			if (ev->flags & KSNOOP_EV_FREED)
				group_print__freed_unprinted(&rp->groups, ev);
			continue;
		}
		plan = &rp_target(rp, ev->func_id)->plan;
		if (rp->pcap && pcap_events__event(rp->pcap, plan, rp_name(rp, ev->func_id),
						   rec, size, e))
			return e->err;
		if (plan->bpf.tree) {
			if (!tree_print__event(&rp->tree, rp->file, &rp->printer, plan, rec, size,
					       replay_plan_of, rp))
				continue;
		} else if (group && (ev->flags & KSNOOP_EV_OBJECT)) {
			group_print__event(&rp->groups, &rp->printer, rec, size, replay_plan_of, rp);
		} else {
			printer__event(&rp->printer, plan, rec, size);
		}
		if (ferror(stdout))
			return -EPIPE;
		if (++rp->printed == rp->opts->max_events) {
			ret = 0;
			if (!group)
				break;
			done = true;
		}
	}
	/* Past -n the rest was read for its frees only: a damaged end is not the report's. */
	if (done && ret < 0)
		ret = 0;
	while (group && !ferror(stdout) &&
	       group_print__end_one(&rp->groups, &rp->printer, replay_plan_of, rp))
		;
	return ferror(stdout) ? -EPIPE : ret;
}

/* Did some file record --track's counters (a --track recording of format 7)? */
static bool track_counted(const struct replay *rp)
{
	int i, n = rp->nfiles ? rp->nfiles : 1;
	bool track = false;

	for (i = 0; i < rp_ntargets(rp); i++)
		track |= rp_target(rp, i)->plan.bpf.track != KSNOOP_TRACK_NONE;
	for (i = 0; track && i < n; i++)
		if (recfile__meta(rp->nfiles ? rp->files[i].r : rp->r)->format >= 7)
			return true;
	return false;
}

/* --track's part of the summary, as the live run's print_summary() makes it. */
static void track_summary(struct report_summary *s, const struct recfile_totals *t)
{
	s->tracking = true;
	s->track_added = t->track_added;
	s->track_freed = t->track_freed;
	s->track_failed = t->track_failed;
	s->track_alive = t->track_alive;
	if (t->track_added > t->track_freed + t->track_alive)
		s->track_evicted = t->track_added - t->track_freed - t->track_alive;
}

/* The live run's totals, from the END block's. */
static struct report_summary summary_of(struct replay *rp)
{
	const struct recfile_totals *t = rp->nfiles ? merged_totals(rp) : recfile__totals(rp->r);
	int i;
	struct report_summary s = {
		.counting = rp->opts->output != OUTPUT_EVENTS,
		.pairing = rp->opts->pair,
		.pair_full = rp->pair_full,
		.pair_unread = rp->pair_unread,
		.printed = rp->printed,
		.counted = rp->counted,
	};

	for (i = 0; i < rp_ntargets(rp); i++)
		s.tree |= rp_target(rp, i)->plan.bpf.tree != KSNOOP_TREE_NONE;
	if (t) {
		s.lost = t->lost;
		s.unprinted = t->unwritten;
		s.stash_full = t->stash_full;
		s.stack_lost = t->stack_lost;
		s.missed = t->missed;
		s.tree_dropped = t->tree_dropped;
		s.tree_exited = t->tree_exited;
		s.tree_exec = t->tree_exec;
		s.tree_no_room = t->tree_no_room;
		if (track_counted(rp))
			track_summary(&s, t);
	}
	/* A tree's records that could not be kept for it: not printed, as live. */
	s.unprinted += rp->tree.unprinted + rp->groups.unprinted;
	return s;
}

/* The live run's closing summary. */
static void print_summary(struct replay *rp)
{
	struct report_summary s = summary_of(rp);

	report__summary(&rp->report, &s);
}

/* One wanted record drawn: 1, or 0 if it is a tree's call kept for its root. */
static int timeline_record(struct replay *rp, struct perfetto *pf, const void *rec, size_t size)
{
	const struct ksnoop_event *ev = rec;
	const struct capture_plan *plan = &rp_target(rp, ev->func_id)->plan;
	struct tree_session s;

	if (!plan->bpf.tree) {
		perfetto__event(pf, plan, rec, size);
		return 1;
	}
	/* A tree's calls wait for their root, as print_events() prints them. */
	if (!tree_print__take(&rp->tree, rp->file, plan, rec, size, replay_plan_of, rp, &s))
		return 0;
	perfetto__tree(pf, plan, rec, size, &s, replay_plan_of, rp);
	tree_print__done(&s);
	return 1;
}

_Static_assert(REC_MERGE_MAX_SOURCES <= PERFETTO_MAX_HOSTS, "every merged file a host's tracks");

/* Several recordings: each file's host and clock offset, its tracks its own. */
static int timeline_hosts(struct replay *rp, struct perfetto *pf, struct ks_error *e)
{
	const char *names[REC_MERGE_MAX_SOURCES];
	__s64 offsets[REC_MERGE_MAX_SOURCES];
	int i;

	for (i = 0; i < rp->nfiles; i++) {
		names[i] = recfile__meta(rp->files[i].r)->host;
		offsets[i] = recfile__meta(rp->files[i].r)->clock_offset_ns;
	}
	if (perfetto__hosts(pf, rp->nfiles, names, offsets))
		return ks_fail(e, -ENOMEM, "out of memory");
	return 0;
}

/* Whether every file read to its END (not cut short, not damaged). */
static bool replay_complete(const struct replay *rp)
{
	int i;

	for (i = 0; i < rp->nfiles; i++)
		if (!recfile__totals(rp->files[i].r))
			return false;
	return rp->nfiles || recfile__totals(rp->r);
}

/*
 * --format=perfetto: the events print_events() would print, as one
 * trace-event document (report_perfetto.c), closed whatever ends the
 * loop but a closed stdout: a file cut short or damaged midway still
 * opens in a viewer, its end marked "cut" (and reported as before).
 * Several recordings: one document, their events by wall time, each
 * file's tracks its own (report_perfetto.h).
 */
static int print_timeline(struct replay *rp, struct ks_error *e)
{
	struct perfetto *pf;
	struct report_summary s;
	const void *rec;
	size_t size;
	int ret;

	pf = perfetto__new(&rp->printer);
	if (!pf)
		return ks_fail(e, -ENOMEM, "out of memory");
	if (rp->nfiles && timeline_hosts(rp, pf, e)) {
		perfetto__free(pf);
		return e->err;
	}
	perfetto__begin(pf);
	while ((ret = replay_next(rp, &rec, &size, e)) > 0) {
		const struct ksnoop_event *ev = rec;

		if (!wanted(rp, ev))
			continue;
		perfetto__host(pf, rp->file);
		if (!timeline_record(rp, pf, rec, size))
			continue;
		if (ferror(stdout)) {
			ret = -EPIPE;
			break;
		}
		if (++rp->printed == rp->opts->max_events) {
			ret = 0;
			break;
		}
	}
	if (ret != -EPIPE) {
		s = summary_of(rp);
		perfetto__end(pf, &s, ret < 0 || (!replay_complete(rp) &&
						 !(rp->opts->max_events &&
						   rp->printed >= rp->opts->max_events)));
	}
	perfetto__free(pf);
	return ret;
}

static void say_cut(const struct replay *rp, const char *where)
{
	log_warn("report: '%s' is cut short: its last complete block ends at byte %llu (of %llu read); the events before it are printed",
		 where, (unsigned long long)recfile__cut(rp->r),
		 (unsigned long long)recfile__offset(rp->r));
}

/* ---- --count ---- */

/*
 * --count of a recording: the calls of each target (and stack, if it
 * was recorded with -s), counted where BPF would have counted them live:
 * at the entry, or at the return when the entry was stashed or is not
 * reported (resolve_strategy.c, count_once()).  Rows are merged in a hash
 * table, so memory grows with the distinct stacks, not with the events.
 */
struct count_table {
	struct count_row *rows;
	size_t n, cap;
	__u32 *slots;		/* row index + 1; 0: empty */
	size_t nslots;		/* a power of 2, at least twice n */
};

static int counted_kind(const struct capture_plan *plan)
{
	const struct ksnoop_side_plan *e = &plan->bpf.side[KSNOOP_ENTRY];

	return e->enabled && !(e->flags & KSNOOP_SIDE_STASH) ? KSNOOP_ENTRY : KSNOOP_RETURN;
}

static __u64 row_hash(const struct count_row *r)
{
	__u64 h = (r->func_id * 0x9e3779b97f4a7c15ULL ^ r->nframes) + (__u32)r->sub;
	__u32 i;

	for (i = 0; i < r->nframes; i++)
		h = (h ^ r->frames[i]) * 0x100000001b3ULL;
	h = (h ^ r->tgid ^ (__u64)r->nuframes << 32 ^ (__u64)r->source << 48) * 0x100000001b3ULL;
	for (i = 0; i < r->nuframes; i++)
		h = (h ^ r->uframes[i]) * 0x100000001b3ULL;
	for (i = 0; r->has_key && i < sizeof(r->key); i++)
		h = (h ^ r->key[i]) * 0x100000001b3ULL;
	return h;
}

static bool same_row(const struct count_row *a, const struct count_row *b)
{
	return a->func_id == b->func_id && a->sub == b->sub && a->nframes == b->nframes &&
	       !memcmp(a->frames, b->frames, a->nframes * sizeof(a->frames[0])) &&
	       a->tgid == b->tgid && a->source == b->source && a->nuframes == b->nuframes &&
	       !memcmp(a->uframes, b->uframes, a->nuframes * sizeof(a->uframes[0])) &&
	       a->has_key == b->has_key && !memcmp(a->key, b->key, sizeof(a->key));
}

static int table_grow(struct count_table *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024, i;
	__u32 *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		size_t j = row_hash(&t->rows[i]) & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

/* One more call of ROW's function, stack, key and bucket: its row, NULL without memory. */
static struct count_row *table_add(struct count_table *t, const struct count_row *row)
{
	size_t j;

	if (2 * (t->n + 1) > t->nslots && table_grow(t))
		return NULL;
	for (j = row_hash(row) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		if (same_row(&t->rows[t->slots[j] - 1], row)) {
			t->rows[t->slots[j] - 1].count++;
			return &t->rows[t->slots[j] - 1];
		}
	}
	if (t->n == t->cap) {
		struct count_row *r = realloc(t->rows, (t->cap = t->cap ? 2 * t->cap : 64) * sizeof(*r));

		if (!r)
			return NULL;
		t->rows = r;
	}
	t->rows[t->n] = *row;
	t->rows[t->n].count = 1;
	t->slots[j] = ++t->n;
	return &t->rows[t->n - 1];
}

/* Is PLAN's -s a user stack (a USDT probe's, a user function's)?  As print.c decides. */
static bool user_stack_plan(const struct capture_plan *plan)
{
	return (plan->bpf.flags & KSNOOP_PLAN_USER_MEM) && plan->sig.syscall == SIG_NOT_SYSCALL;
}

/* A user stack of process TGID as a row's, up to its first 0 (print.c): per process too. */
static void user_row(struct count_row *row, __u32 tgid, const __u64 *ips, __u32 n)
{
	row->tgid = tgid;
	row->usub = 0;
	while (row->nuframes < n && row->nuframes < KSNOOP_STACK_DEPTH && ips[row->nuframes])
		row->nuframes++;
	memcpy(row->uframes, ips, row->nuframes * 8);
}

/* --count's rows of a user stack are printed as such (counts.h). */
static bool target_is_user(void *ctx, __u32 func_id)
{
	const struct recfile_target *t = rp_target(ctx, func_id);

	return t && user_stack_plan(&t->plan);
}

/* Does PLAN take --ustack's user stack (on either side)? */
static bool plan_has_ustack(const struct capture_plan *plan)
{
	int kind, i;

	for (kind = 0; kind < KSNOOP_NR_KINDS; kind++)
		for (i = 0; i < plan->nvalues[kind]; i++)
			if (plan->values[kind][i].how == PRINT_USTACK)
				return true;
	return false;
}

/*
 * REC's row: its function, and its stacks if the plan took them: -s's
 * (a kernel stack, or a user function's or USDT probe's user stack) and
 * --ustack's.  A user stack's row is per process even when the stack
 * could not be read, as BPF keys it live (agg.bpf.h, count_call()).
 */
static void row_of(const struct capture_plan *plan, const void *rec, bool stacks,
		   struct count_row *row)
{
	const struct ksnoop_event *ev = rec;
	int i;

	memset(row, 0, sizeof(*row));
	row->func_id = ev->func_id;
	row->sub = -1;
	row->usub = -1;
	for (i = 0; i < plan->nvalues[ev->kind]; i++) {
		const struct ksnoop_value *vh = (const void *)((const char *)rec +
			plan->bpf.side[ev->kind].values[i].rec_off);
		enum print_how how = plan->values[ev->kind][i].how;
		bool user = how == PRINT_USTACK || (how == PRINT_STACK && user_stack_plan(plan));

		if (how != PRINT_USTACK && (how != PRINT_STACK || !stacks))
			continue;
		if (user)
			row->tgid = ev->tgid;
		if ((vh->status & KSNOOP_STATUS_MASK) != KSNOOP_OK)
			continue;
		if (how == PRINT_STACK)
			row->sub = 0;
		if (user) {
			user_row(row, ev->tgid, (const __u64 *)(vh + 1), vh->len / 8);
			continue;
		}
		row->nframes = vh->len / 8 < KSNOOP_STACK_DEPTH ? vh->len / 8 : KSNOOP_STACK_DEPTH;
		memcpy(row->frames, vh + 1, row->nframes * 8);
	}
}

/* ---- --by ---- */

/*
 * --count --by KEY,... of a recording: each event's key made from what
 * was recorded, laid out as counts__key() reads a live key (a number in
 * 8 bytes, a comm in KSNOOP_COMM_LEN, a string in KSNOOP_BY_SIZE), so
 * that the live run's printer prints it.  A VALUE part is a value the
 * recording captured, an integer or a string, or a member inside a
 * recorded struct's bytes (rec_query__locate(), as a predicate finds
 * it); it decides the side counted, as live (the event that carries it).
 */
struct by_target {
	struct by_kind kind;
	bool has_value;		/* a VALUE part, at LOC: */
	struct rec_loc loc;
	struct value_desc member;	/* a member's key printed as the member prints */
};

struct by_table {
	struct spec_by by;
	const struct replay *rp;
	struct by_target *t;	/* per target */
};

/* counts_fmt's by_kind, its ctx the replay. */
static struct by_kind by_kind_of(void *ctx, __u32 func_id)
{
	const struct replay *rp = ctx;

	return rp->by->t[func_id].kind;
}

/*
 * TEXT of target T, a recorded value or a member inside one, located for
 * OPT (--by, --hist) into LOC; -EINVAL with E naming both, -ENOENT (E
 * untouched) when nothing of TEXT was recorded.
 */
static int locate_value(const struct recfile_target *t, const char *text, const char *opt,
			struct rec_loc *loc, struct ks_error *e)
{
	return rec_query__locate(&t->plan, t->plan.sig.btf, text, recfile_target__name(t), opt,
				 loc, e);
}

/* A member's key printed as an event prints the member (printer__key()). */
static void member_desc(const struct rec_loc *loc, const char *text, struct value_desc *vd)
{
	*vd = (struct value_desc){ .text = text, .type_id = loc->type_id, .obj_id = loc->type_id,
				   .how = PRINT_VALUE, .size = loc->size, .obj_size = loc->size,
				   .bit_size = loc->bit_size };
}

/* The VALUE part NAME of target T: its kind, into BT's KIND; -EINVAL with E. */
static int by_value_part(const struct recfile_target *t,
			 const char *name, struct by_target *bt, enum ksnoop_by *part,
			 struct ks_error *e)
{
	const struct capture_plan *p = &t->plan;
	const struct btf *btf = p->sig.btf;	/* the file's */
	enum rec_loc_form form;
	int ret = locate_value(t, name, "--by", &bt->loc, e);

	if (ret == -ENOENT)
		return ks_fail(e, -EINVAL, "report: --by '%s': '%s' of '%s' was not recorded",
			       name, name, recfile_target__name(t));
	if (ret)
		return ret;
	bt->has_value = true;
	form = rec_query__loc_form(p, btf, &bt->loc);
	if (form == REC_LOC_STR) {
		*part = KSNOOP_BY_STR;
		return 0;
	}
	if (form != REC_LOC_INT)
		return ks_fail(e, -EINVAL, "report: --by '%s' of '%s' is not an integer or a string",
			       name, recfile_target__name(t));
	*part = KSNOOP_BY_INT;
	bt->kind.is_signed = btfu_is_signed(btf, bt->loc.type_id);
	bt->kind.btf = btf;
	bt->kind.desc = &p->values[bt->loc.kind][bt->loc.idx];
	if (bt->loc.member) {
		member_desc(&bt->loc, name, &bt->member);
		bt->kind.desc = &bt->member;
	}
	return 0;
}

static int by_target_setup(struct by_table *bt, int i, struct ks_error *e)
{
	const struct recfile_target *t = rp_target(bt->rp, i);
	struct by_target *b = &bt->t[i];
	int j, off = 0, ret;

	for (j = 0; j < bt->by.n; j++) {
		enum ksnoop_by part = bt->by.word[j];

		if (part == KSNOOP_BY_NONE) {
			ret = by_value_part(t, bt->by.part[j], b, &part, e);
			if (ret)
				return ret;
		}
		b->kind.part[j] = part;
		b->kind.off[j] = off;
		off += part == KSNOOP_BY_STR ? KSNOOP_BY_SIZE :
		       part == KSNOOP_BY_COMM ? KSNOOP_COMM_LEN : 8;
		if (bt->by.word[j] == KSNOOP_BY_NONE || !b->kind.by)
			b->kind.by = part;
	}
	b->kind.nparts = bt->by.n;
	return 0;
}

static int by_setup(struct replay *rp, struct ks_error *e)
{
	struct by_table *bt = calloc(1, sizeof(*bt));
	int i, n = rp_ntargets(rp), ret;

	if (!bt)
		return ks_fail(e, -ENOMEM, "out of memory");
	rp->by = bt;
	bt->rp = rp;
	ret = spec__parse_by(rp->opts->by, &bt->by, e);
	if (ret)
		return ret;
	bt->t = calloc(n ?: 1, sizeof(*bt->t));
	if (!bt->t)
		return ks_fail(e, -ENOMEM, "out of memory");
	/* The targets the SPECs name (all without SPECs): the others are not counted. */
	for (i = 0; i < n && !ret; i++)
		if (rp_names(rp, i))
			ret = by_target_setup(bt, i, e);
	return ret;
}

/* A string VALUE part: its first KSNOOP_BY_SIZE - 1 bytes, as BPF keeps them. */
static bool by_str(const struct capture_plan *plan, const struct by_target *b, const void *rec,
		   char *k)
{
	const char *data;
	size_t len;

	if (!rec_query__loc_str(plan, &b->loc, rec, &data, &len))
		return false;
	memcpy(k, data, len < KSNOOP_BY_SIZE - 1 ? len : KSNOOP_BY_SIZE - 1);
	return true;
}

/* REC's key into ROW; false: its VALUE part was not read. */
static bool by_key(const struct by_table *bt, const struct capture_plan *plan,
		   const void *rec, struct count_row *row)
{
	const struct ksnoop_event *ev = rec;
	const struct by_target *b = &bt->t[ev->func_id];
	int j;

	row->has_key = true;
	for (j = 0; j < b->kind.nparts; j++) {
		__u8 *k = row->key + b->kind.off[j];
		__u64 v = 0;

		switch (b->kind.part[j]) {
		case KSNOOP_BY_COMM:
			memcpy(k, ev->comm, KSNOOP_COMM_LEN);
			continue;
		case KSNOOP_BY_STR:
			if (!by_str(plan, b, rec, (char *)k))
				return false;
			continue;
		case KSNOOP_BY_PID: v = ev->tgid; break;
		case KSNOOP_BY_TID: v = ev->tid; break;
		case KSNOOP_BY_CPU: v = ev->cpu; break;
		case KSNOOP_BY_CGROUP:
			/* Recorded with the event (its id: paths are the recording machine's). */
			if (!(ev->flags & KSNOOP_EV_CGROUP))
				return false;
			v = ev->object;
			break;
		default:
			if (!rec_query__loc_int(plan, &b->loc, rec, b->kind.is_signed, &v))
				return false;
		}
		memcpy(k, &v, sizeof(v));
	}
	return true;
}

/*
 * The side a call of FUNC_ID is counted at: the one a --by VALUE or the
 * predicates read (the event that carries them), else as BPF counts live.
 */
static int count_side(const struct replay *rp, const struct capture_plan *plan, __u32 func_id)
{
	int side = rp_side(rp, func_id);

	if (rp->by && rp->by->t[func_id].has_value)
		return rp->by->t[func_id].loc.kind;
	return side >= 0 ? side : counted_kind(plan);
}

/* rp_name() as counts_fmt's func_name */
static const char *count_target_name(void *ctx, __u32 func_id)
{
	return rp_name(ctx, func_id);
}

/* --by: the names of its parts, a column each. */
static void by_fmt(const struct replay *rp, struct counts_fmt *fmt)
{
	if (!rp->by)
		return;
	fmt->by = rp->opts->by;
	fmt->by_kind = by_kind_of;
	for (fmt->nby = 0; fmt->nby < rp->by->by.n; fmt->nby++)
		fmt->by_names[fmt->nby] = rp->by->by.part[fmt->nby];
}

/* The recording SOURCE's user frame names (counts_fmt's usym_ctx_of), of several. */
static void *count_usyms_of(void *ctx, __u32 source)
{
	const struct replay *rp = ctx;

	return rp->files[source].r;
}

/*
 * A row's user frames are named from its own recording's USYMS: of
 * several, each row keeps its recording (two hosts' pids are not one
 * process either); an older file names none (recfile__usymbolize()).
 */
static void count_usyms(const struct replay *rp, struct counts_fmt *fmt)
{
	if (!rp->merge)
		return;
	fmt->usymbolize = recfile__usymbolize;
	fmt->usym_ctx_of = count_usyms_of;
}

static int print_counts(struct replay *rp, struct ks_error *e)
{
	bool stacks = recfile__meta(rp->r)->stack;
	struct counts_fmt fmt = {
		.stacks = stacks, .func_name = count_target_name, .ctx = rp,
		.symbolize = rp->printer.opts.symbolize, .sym_ctx = rp->printer.opts.sym_ctx,
		.user_func = target_is_user,
		.usymbolize = rp->printer.opts.usymbolize, .usym_ctx = rp->printer.opts.usym_ctx,
	};
	struct count_table t = {};
	struct count_row row;
	const void *rec;
	size_t size, i;
	int ret = rp->opts->by ? by_setup(rp, e) : 0;

	/* --ustack recorded: rows per user stack too, as a live --count --ustack. */
	for (i = 0; i < (size_t)rp_ntargets(rp); i++)
		fmt.ustacks |= plan_has_ustack(&rp_target(rp, i)->plan);
	count_usyms(rp, &fmt);
	by_fmt(rp, &fmt);
	while (ret >= 0 && (ret = replay_next(rp, &rec, &size, e)) > 0) {
		const struct ksnoop_event *ev = rec;
		const struct capture_plan *plan = &rp_target(rp, ev->func_id)->plan;

		if (!wanted(rp, ev) || ev->kind != count_side(rp, plan, ev->func_id))
			continue;
		row_of(plan, rec, stacks, &row);
		row.func_id = rp_canon(rp, ev->func_id);
		/* A user stack's row is per process, so per recording; the others add up. */
		if (row.tgid)
			row.source = rp->file;
		if (rp->by && !by_key(rp->by, plan, rec, &row))
			continue;
		if (!table_add(&t, &row)) {
			ret = ks_fail(e, -ENOMEM, "out of memory");
			break;
		}
	}
	if (ret >= 0) {
		for (i = 0; i < t.n; i++)
			rp->counted += t.rows[i].count;
		counts__sort(t.rows, t.n);
		counts__print(&rp->report, t.rows, t.n, &fmt);
	}
	free(t.rows);
	free(t.slots);
	return ret;
}

/* ---- --stats ---- */

/*
 * What --stats sums for a target: the one integer value its spec names,
 * on the side it is read (as a live run's plan.hist), or with none the
 * durations of its returns whose entry was seen (a live run's
 * KSNOOP_OUT_HIST_DURATION).
 */
struct stats_pick {
	bool duration;
	struct rec_loc loc;	/* the value, or a member inside one (--hist) */
	bool is_signed;
	struct hist_value value;
};

struct stats_table {
	struct recfile *r;
	struct stats_pick *picks;	/* per target */
	struct count_row *rows;		/* per target: count, sum, min, max */
};

/* What OPT does with its value: --pair pairs by it, --stats and --hist count by it. */
static const char *verb_of(const char *opt)
{
	return strcmp(opt, "--pair") ? "counts by" : "pairs by";
}

/*
 * The value at LOC of T (its text TEXT) as what OPT counts by, into SP;
 * -EINVAL with E: not a number.  A recorded value printed otherwise
 * (':hex', '>> N') is refused, as live; a member is its bytes' integer.
 */
static int pick_one(const struct recfile_target *t, const struct rec_loc *loc, const char *text,
		    const char *opt, struct stats_pick *sp, struct ks_error *e)
{
	const struct capture_plan *p = &t->plan;
	const struct value_desc *vd = &p->values[loc->kind][loc->idx];

	if (rec_query__loc_form(p, p->sig.btf, loc) != REC_LOC_INT ||
	    (!loc->member && (vd->fmt || vd->shift)))
		return ks_fail(e, -EINVAL, "report: %s %s a number; '%s' of '%s' is not one",
			       opt, verb_of(opt), text, recfile_target__name(t));
	*sp = (struct stats_pick){
		.loc = *loc,
		.is_signed = btfu_is_signed(p->sig.btf, loc->type_id),
	};
	sp->value = (struct hist_value){ text, text, false, sp->is_signed };
	return 0;
}

/* What OPT (--stats, --hist, --pair) counts by for T: its one recorded value, or durations. */
static int pick_value(const struct recfile_target *t, const char *opt, struct stats_pick *sp,
		      struct ks_error *e)
{
	const struct capture_plan *p = &t->plan;
	const char *name = recfile_target__name(t);
	int k, i, n = 0, ret;

	*sp = (struct stats_pick){ .duration = true,
				   .value = { "duration_ns", "duration", true, false } };
	for (k = 0; k < KSNOOP_NR_KINDS; k++)
		for (i = 0; i < p->nvalues[k]; i++) {
			const struct value_desc *vd = &p->values[k][i];
			struct rec_loc loc;

			if (vd->how == PRINT_STACK || vd->how == PRINT_USTACK)
				continue;
			if (n++)
				return ks_fail(e, -EINVAL, "report: %s %s one value; '%s' recorded '%s' and '%s'%s",
					       opt, verb_of(opt), name, sp->value.name, vd->text,
					       !strcmp(opt, "--hist") ? " (name one in a SPEC: report --hist FILE 'TARGET(VALUE)')" : "");
			rec_query__value_loc(p, k, i, &loc);
			ret = pick_one(t, &loc, vd->text, opt, sp, e);
			if (ret)
				return ret;
		}
	return 0;
}

/* REC's value as SP picks it; false: none (not read, no duration). */
static bool stats_value(const struct capture_plan *p, const struct stats_pick *sp,
			const void *rec, __u64 *v)
{
	const struct ksnoop_event *ev = rec;

	if (sp->duration) {
		*v = ev->duration_ns;
		return ev->kind == KSNOOP_RETURN && (ev->flags & KSNOOP_EV_DURATION);
	}
	return rec_query__loc_int(p, &sp->loc, rec, sp->is_signed, v);
}

/* V into ROW's sum, min and max, V already counted (ROW->count). */
static void keep_bounds(struct count_row *row, __u64 v, bool is_signed)
{
	if (row->count == 1) {
		row->min = row->max = row->sum = v;
		return;
	}
	row->sum += v;
	if (is_signed ? (__s64)v < (__s64)row->min : v < row->min)
		row->min = v;
	if (is_signed ? (__s64)v > (__s64)row->max : v > row->max)
		row->max = v;
}

static void stats_add(struct count_row *row, __u64 v, bool is_signed)
{
	row->count++;
	keep_bounds(row, v, is_signed);
}

static struct hist_value stats_value_of(void *ctx, __u32 func_id)
{
	struct stats_table *st = ctx;

	return st->picks[func_id].value;
}

static const char *stats_target_name(void *ctx, __u32 func_id)
{
	const struct stats_table *st = ctx;

	return recfile_target__name(recfile__target(st->r, func_id));
}

/*
 * --pair of a recording: START's times by key (its one value, or the
 * thread), bounded as the live map is (KSNOOP_PAIR_ENTRIES: a START that
 * finds it full is counted); the latest START of a key wins, an END takes
 * it back.  Open addressing at most 3/4 full: deleted slots are marked,
 * and the table is rebuilt when they are a quarter of it (a lookup's
 * walk stays short, whatever order a file's events come in).
 */
#define PAIR_SLOTS	(2 * KSNOOP_PAIR_ENTRIES)

struct pair_slot {
	__u64 key, time;
	__u8 state;	/* 0 empty, 1 used, 2 deleted */
};

struct pairing {
	struct pair_slot *slots;
	size_t used, dead;
};

static struct pair_slot *pair_find(struct pairing *pg, __u64 key, bool add);

/* The deleted slots dropped: the live ones put into an empty table again. */
static void pair_rebuild(struct pairing *pg)
{
	struct pair_slot *old = pg->slots;
	struct pair_slot *fresh = calloc(PAIR_SLOTS, sizeof(*fresh));

	if (!fresh)
		return;
	pg->slots = fresh;
	pg->used = pg->dead = 0;
	for (size_t i = 0; i < PAIR_SLOTS; i++)
		if (old[i].state == 1)
			pair_find(pg, old[i].key, true)->time = old[i].time;
	free(old);
}

static struct pair_slot *pair_find(struct pairing *pg, __u64 key, bool add)
{
	size_t j = (key * 0x9e3779b97f4a7c15ULL) >> 49, n;	/* 15 bits: PAIR_SLOTS */
	struct pair_slot *free_slot = NULL;

	for (n = 0; n < PAIR_SLOTS; n++, j = (j + 1) % PAIR_SLOTS) {
		struct pair_slot *sl = &pg->slots[j];

		if (sl->state == 1 && sl->key == key)
			return sl;
		if (sl->state != 1 && !free_slot)
			free_slot = sl;
		if (!sl->state)
			break;
	}
	if (!add || !free_slot || pg->used >= KSNOOP_PAIR_ENTRIES)
		return NULL;
	pg->used++;
	*free_slot = (struct pair_slot){ .key = key, .state = 1 };
	return free_slot;
}

/* The pairing key of REC (its spec's value SP, or the thread); false: not read. */
static bool pair_key_of(const struct capture_plan *p, const struct stats_pick *sp,
			const void *rec, __u64 *key)
{
	const struct ksnoop_event *ev = rec;

	if (sp->duration) {
		*key = ev->tid;
		return true;
	}
	return stats_value(p, sp, rec, key);
}

/* One START or END event: an END with its START gives a latency in *V. */
static bool pair_step(struct replay *rp, struct pairing *pg, const struct stats_table *st,
		      const void *rec, __u64 *v)
{
	const struct ksnoop_event *ev = rec;
	const struct recfile_target *t = recfile__target(rp->r, ev->func_id);
	struct pair_slot *sl;
	__u64 key;
	bool ok;

	if (!pair_key_of(&t->plan, &st->picks[ev->func_id], rec, &key)) {
		rp->pair_unread++;
		return false;
	}
	if (ev->func_id == 0) {
		sl = pair_find(pg, key, true);
		if (sl)
			sl->time = ev->time_ns;
		else
			rp->pair_full++;
		return false;
	}
	sl = pair_find(pg, key, false);
	if (!sl)
		return false;
	sl->state = 2;
	pg->used--;
	*v = ev->time_ns - sl->time;
	/* -L: as live, an END sooner than that takes its START and is no event. */
	ok = sl->time <= ev->time_ns && *v >= rp->opts->min_duration_ns;
	if (++pg->dead > PAIR_SLOTS / 4)
		pair_rebuild(pg);
	return ok;
}

/*
 * --pair: does the recording's spec I name no value?  Then, as live
 * (resolve.c's pick_pair_item()), the thread is its key, although the
 * recording printed every argument of it ("p:start" records arg0...).
 */
static int pair_by_thread(const struct recfile *r, int i, bool *by_thread, struct ks_error *e)
{
	const struct recfile_meta *m = recfile__meta(r);
	struct spec s;
	int ret = spec__parse(m->specs[i], m->kind == RECFILE_USDT ? SPEC_USDT : SPEC_KFUNC, &s, e);

	*by_thread = !ret && !s.has_list;
	spec__free(&s);
	return ret;
}

static int stats_setup(struct replay *rp, struct stats_table *st, struct ks_error *e)
{
	int n = recfile__ntargets(rp->r), i, ret = 0;

	st->r = rp->r;
	st->picks = calloc(n ?: 1, sizeof(*st->picks));
	st->rows = calloc(n ?: 1, sizeof(*st->rows));
	if (!st->picks || !st->rows)
		return ks_fail(e, -ENOMEM, "out of memory");
	if (rp->opts->pair && (n != 2 || recfile__meta(rp->r)->nspecs != 2))
		return ks_fail(e, -EINVAL, "report: --pair pairs a recording of two specs, START and END, one target each; this one has %d spec(s), %d target(s)",
			       recfile__meta(rp->r)->nspecs, n);
	for (i = 0; i < n && !ret; i++) {
		bool by_thread = false;

		st->rows[i] = (struct count_row){ .func_id = i, .sub = 0, .usub = -1 };
		if (rp->opts->pair)
			ret = pair_by_thread(rp->r, i, &by_thread, e);
		if (!ret && by_thread)	/* pair_key_of(): a duration pick's key is the thread */
			st->picks[i] = (struct stats_pick){ .duration = true };
		else if (!ret)
			ret = pick_value(recfile__target(rp->r, i),
					 rp->opts->pair ? "--pair" : "--stats", &st->picks[i], e);
	}
	return ret;
}

/* REC's value for --stats (with --pair: a latency, END's events only). */
static bool stats_next(struct replay *rp, struct pairing *pg, const struct stats_table *st,
		       const void *rec, __u64 *v)
{
	const struct ksnoop_event *ev = rec;

	if (!wanted(rp, ev))
		return false;
	if (pg->slots)
		return pair_step(rp, pg, st, rec, v);
	return stats_value(&recfile__target(rp->r, ev->func_id)->plan, &st->picks[ev->func_id],
			   rec, v);
}

/* --pair: the table of STARTs, and END's row named as a live --pair names it. */
static int pair_setup(struct replay *rp, struct stats_table *st, struct pairing *pg,
		      struct ks_error *e)
{
	int ret = stats_setup(rp, st, e);

	if (ret || !rp->opts->pair)
		return ret;
	pg->slots = calloc(PAIR_SLOTS, sizeof(*pg->slots));
	if (!pg->slots)
		return ks_fail(e, -ENOMEM, "out of memory");
	st->picks[1].value = (struct hist_value){ "latency_ns", "latency", true, false };
	return 0;
}

static int print_stats(struct replay *rp, struct ks_error *e)
{
	struct stats_table st = {};
	struct counts_fmt fmt = { .func_name = stats_target_name, .ctx = &st };
	struct pairing pg = {};
	const void *rec;
	size_t size, n = 0;
	int ret = pair_setup(rp, &st, &pg, e), i;
	__u64 v;

	while (ret >= 0 && (ret = recfile__next(rp->r, &rec, &size, e)) > 0) {
		const struct ksnoop_event *ev = rec;

		if (stats_next(rp, &pg, &st, rec, &v))
			stats_add(&st.rows[ev->func_id], v,
				  !pg.slots && st.picks[ev->func_id].is_signed);
	}
	free(pg.slots);
	if (ret >= 0) {
		/* Rows of the targets called, as BPF's map holds them. */
		for (i = 0; i < recfile__ntargets(rp->r); i++)
			if (st.rows[i].count) {
				rp->counted += st.rows[i].count;
				st.rows[n++] = st.rows[i];
			}
		counts__sort(st.rows, n);
		counts__print_stats(&rp->report, st.rows, n, &fmt, stats_value_of);
	}
	free(st.picks);
	free(st.rows);
	return ret;
}

/*
 * --pair of a recording, its events: each END that takes back a START,
 * printed as the live --pair prints it (pair.bpf.h: the END's record with
 * its START-to-END latency as its duration); STARTs print nothing.  The
 * record is copied to carry the latency: the file's stays as read.
 */
static int print_pair_event(struct replay *rp, const void *rec, size_t size, __u64 latency,
			    void **copy, size_t *cap)
{
	struct ksnoop_event *ev;

	if (size > *cap) {
		void *p = realloc(*copy, size);

		if (!p)
			return -ENOMEM;
		*copy = p;
		*cap = size;
	}
	memcpy(*copy, rec, size);
	ev = *copy;
	ev->duration_ns = latency;
	ev->flags |= KSNOOP_EV_DURATION;
	printer__event(&rp->printer, &recfile__target(rp->r, ev->func_id)->plan, ev, size);
	return ferror(stdout) ? -EPIPE : 0;
}

static int print_pairs(struct replay *rp, struct ks_error *e)
{
	struct stats_table st = {};
	struct pairing pg = {};
	void *copy = NULL;
	size_t size, cap = 0;
	const void *rec;
	int ret = pair_setup(rp, &st, &pg, e);
	__u64 v;

	while (ret >= 0 && (ret = recfile__next(rp->r, &rec, &size, e)) > 0) {
		if (!stats_next(rp, &pg, &st, rec, &v))
			continue;
		ret = print_pair_event(rp, rec, size, v, &copy, &cap);
		if (ret == -ENOMEM)
			ret = ks_fail(e, -ENOMEM, "out of memory");
		if (!ret && ++rp->printed == rp->opts->max_events)
			break;
	}
	free(copy);
	free(pg.slots);
	free(st.picks);
	free(st.rows);
	return ret;
}

/* ---- --hist ---- */

/*
 * --hist of a recording: per target (and --by key) a histogram of the
 * value its SPEC names without a predicate (report --hist FILE
 * 'sys:openat(return)'), else of the one value it recorded, else of its
 * calls' durations; buckets as BPF cuts them live (hist__bucket()), each
 * with the count, min, max and sum BPF keeps, through the live printer.
 */
static int pick_hist(struct replay *rp, int i, struct stats_pick *sp, struct ks_error *e)
{
	const struct recfile_target *t = rp_target(rp, i);
	const char *text = NULL;
	int n = rp_values(rp, i, &text), ret;
	struct rec_loc loc;

	if (n < 0 && !rp->hist_durations)
		return pick_value(t, "--hist", sp, e);
	if (n > 1)
		return ks_fail(e, -EINVAL, "report: --hist counts by one value; the spec of '%s' names %d",
			       recfile_target__name(t), n);
	if (n <= 0) {
		*sp = (struct stats_pick){ .duration = true,
					   .value = { "duration_ns", "duration", true, false } };
		return 0;
	}
	ret = locate_value(t, text, "--hist", &loc, e);
	if (ret == -ENOENT)
		return ks_fail(e, -EINVAL, "report: --hist: '%s' of '%s' was not recorded",
			       text, recfile_target__name(t));
	if (ret)
		return ret;
	return pick_one(t, &loc, text, "--hist", sp, e);
}

static struct hist_value hist_value_of(void *ctx, __u32 func_id)
{
	return ((struct replay *)ctx)->picks[func_id].value;
}

static int hist_setup(struct replay *rp, struct ks_error *e)
{
	int n = rp_ntargets(rp), i, ret = rp->opts->by ? by_setup(rp, e) : 0;

	rp->picks = calloc(n ?: 1, sizeof(*rp->picks));
	if (!rp->picks)
		return ks_fail(e, -ENOMEM, "out of memory");
	for (i = 0; i < n && !ret; i++)
		if (rp_names(rp, i))
			ret = pick_hist(rp, i, &rp->picks[i], e);
	return ret;
}

/* REC's histogram row (bucket and key) and value; false: not counted. */
static bool hist_row(struct replay *rp, const struct hist_scale *scale, const void *rec,
		     struct count_row *row, __u64 *v)
{
	const struct ksnoop_event *ev = rec;
	const struct capture_plan *plan = &rp_target(rp, ev->func_id)->plan;
	const struct stats_pick *sp = &rp->picks[ev->func_id];

	if (!wanted(rp, ev) || !stats_value(plan, sp, rec, v))
		return false;
	memset(row, 0, sizeof(*row));
	row->func_id = rp_canon(rp, ev->func_id);
	row->usub = -1;
	row->sub = hist__bucket(scale, *v, sp->is_signed);
	return !rp->by || by_key(rp->by, plan, rec, row);
}

static int print_hist(struct replay *rp, struct ks_error *e)
{
	const struct options *o = rp->opts;
	struct counts_fmt fmt = {
		.func_name = count_target_name, .ctx = rp, .exact_max = true,
		.symbolize = rp->printer.opts.symbolize, .sym_ctx = rp->printer.opts.sym_ctx,
		.scale = { .linear = o->hist_step != 0, .min = o->hist_min, .step = o->hist_step,
			   .nbuckets = o->hist_nbuckets },
	};
	struct count_table t = {};
	struct count_row row, *r;
	const void *rec;
	size_t size, i;
	int ret = hist_setup(rp, e);
	__u64 v;

	by_fmt(rp, &fmt);
	while (ret >= 0 && (ret = replay_next(rp, &rec, &size, e)) > 0) {
		if (!hist_row(rp, &fmt.scale, rec, &row, &v))
			continue;
		r = table_add(&t, &row);
		if (!r) {
			ret = ks_fail(e, -ENOMEM, "out of memory");
			break;
		}
		keep_bounds(r, v, rp->picks[row.func_id].is_signed);
	}
	if (ret >= 0) {
		for (i = 0; i < t.n; i++)
			rp->counted += t.rows[i].count;
		if (counts__print_hist(&rp->report, t.rows, t.n, &fmt, hist_value_of))
			ret = ks_fail(e, -ENOMEM, "out of memory");
	}
	free(t.rows);
	free(t.slots);
	return ret;
}

/* ---- --info ---- */

struct info_totals {
	__u64 events[KSNOOP_NR_KINDS];
	__u64 first_ns, last_ns;
};

static void info_line(struct writer *w, const char *key, const char *value)
{
	writer__key(w, key);
	writer__name(w, value ? value : "");
}

static void info_uint(struct writer *w, const char *key, __u64 v)
{
	writer__key(w, key);
	writer__uint(w, v);
}

static void format_time(char *buf, size_t sz, __u64 ns)
{
	time_t secs = ns / 1000000000ULL;
	struct tm tm;

	if (!gmtime_r(&secs, &tm) || !strftime(buf, sz, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, sz, "%llu", (unsigned long long)ns);
}

static void info_targets(struct writer *w, const struct recfile *r)
{
	int i, n = recfile__ntargets(r);

	writer__key(w, "targets");
	writer__begin_array(w, WRITER_ROWS, 1);
	for (i = 0; i < n; i++) {
		const struct recfile_target *t = recfile__target(r, i);

		writer__name(w, recfile_target__name(t));
	}
	writer__end_array(w);
}

static void info_specs(struct writer *w, const struct recfile_meta *m)
{
	int i;

	writer__key(w, "specs");
	writer__begin_array(w, WRITER_ROWS, 1);
	for (i = 0; i < m->nspecs; i++)
		writer__name(w, m->specs[i]);
	writer__end_array(w);
}

static int print_info(struct replay *rp, const char *where, struct ks_error *e)
{
	const struct recfile_meta *m = recfile__meta(rp->r);
	struct info_totals it = {};
	struct writer w;
	const void *rec;
	size_t size;
	char start[40];
	int ret;

	while ((ret = recfile__next(rp->r, &rec, &size, e)) > 0) {
		const struct ksnoop_event *ev = rec;

		if (!it.events[0] && !it.events[1])
			it.first_ns = ev->time_ns;
		it.last_ns = ev->time_ns;
		it.events[ev->kind]++;
	}
	if (ret < 0)
		return ret;
	format_time(start, sizeof(start), m->start_ns);
	writer__init(&w, stdout, rp->opts->json);
	writer__begin_object(&w, rp->opts->json ? WRITER_STRUCT : WRITER_LINES, 0);
	if (w.json) {
		info_line(&w, "type", "info");
		info_line(&w, "kind", "recording");
	}
	info_line(&w, "file", where);
	info_uint(&w, "size", recfile__offset(rp->r));
	info_line(&w, "ksnoop", m->version);
	info_line(&w, "kernel", m->release);
	info_line(&w, "machine", m->machine);
	if (m->format >= 5) {	/* older files name no host, and print their events */
		static const char *const output[] = { "events", "count", "hist" };

		info_line(&w, "host", m->host);
		info_line(&w, "output", output[m->output]);
		if (m->by[0])
			info_line(&w, "by", m->by);
	}
	info_line(&w, "start", start);
	info_line(&w, "clock", m->clock);
	info_specs(&w, m);
	info_targets(&w, rp->r);
	info_uint(&w, "entries", it.events[KSNOOP_ENTRY]);
	info_uint(&w, "returns", it.events[KSNOOP_RETURN]);
	info_uint(&w, "span_ns", it.last_ns - it.first_ns);
	if (recfile__totals(rp->r)) {
		info_uint(&w, "lost", recfile__totals(rp->r)->lost);
		info_uint(&w, "not_written", recfile__totals(rp->r)->unwritten);
	} else {
		info_uint(&w, "cut_at", recfile__cut(rp->r));
	}
	writer__end_object(&w);
	obuf__putc(writer__obuf(&w), '\n');
	writer__flush(&w);
	return 0;
}

/* ---- the command ---- */

/* What a recording fixed already, or what report does not do yet. */
static int check_report_options(const struct options *o, int argc)
{
	const char *refused = o->by && o->output == OUTPUT_STATS ?
				"--by of a recording is done with --count and --hist only yet" :
			      o->pair && o->output != OUTPUT_STATS && o->output != OUTPUT_EVENTS ?
				"--pair of a recording is done with its events and --stats only yet" :
			      o->interval_ms ? "--interval does not apply to a recording" :
			      o->stack || o->ustack ? "-s and --ustack are chosen by record" :
			      o->tree ? "--tree is chosen by record (a recording of --tree prints its trees)" :
			      o->group && (o->output != OUTPUT_EVENTS || o->pair || o->perfetto) ?
				"--group prints each object's events together: not with --count, --hist, --stats, --pair or --format=perfetto" :
			      NULL;

	if (argc < 1) {
		log_error("report: expected a FILE (- for stdin), then the SPECs asked of it");
		return -EINVAL;
	}
	if (o->rec_info && o->perfetto) {
		log_error("report: --info describes the file; --format=perfetto writes its events");
		return -EINVAL;
	}
	if (o->rec_info && (argc > 1 || o->since || o->until)) {
		log_error("report: --info describes the whole file, without SPECs, --since or --until");
		return -EINVAL;
	}
	if (refused) {
		log_error("report: %s", refused);
		return -EINVAL;
	}
	return 0;
}

/* ---- what the file asks: record --count, record --hist ---- */

/*
 * A recording made by `record --count` or `record --hist` holds the
 * events; without an output option, report prints of them the table the
 * live run would have printed: the file's output, --by and --hist scale
 * become the report's (an option given to report wins), and without
 * SPECs the recorded specs are the questions (so that, as live, --hist
 * of a spec that names no value counts durations).
 */
static void file_defaults(struct replay *rp, const struct recfile_meta *m, char ***specs,
			  int *nspecs)
{
	const struct options *o = rp->opts;

	if (m->output == RECFILE_OUT_EVENTS || o->output != OUTPUT_EVENTS || o->pair ||
	    o->rec_info)
		return;
	rp->defaults = *o;
	rp->defaults.output = m->output == RECFILE_OUT_COUNT ? OUTPUT_COUNT : OUTPUT_HIST;
	if (!o->by && m->by[0])
		rp->defaults.by = m->by;
	if (m->output == RECFILE_OUT_HIST) {
		rp->defaults.hist_min = m->hist_min;
		rp->defaults.hist_step = m->hist_step;
		rp->defaults.hist_nbuckets = m->hist_nbuckets;
	}
	rp->opts = &rp->defaults;
	if (!*nspecs) {
		*specs = m->specs;
		*nspecs = m->nspecs;
		rp->hist_durations = true;
	}
}

/* What the output asks of the recordings; then the closing summary, or where a file is cut. */
static int replay_print(struct replay *rp, const char *where, struct ks_error *e)
{
	const struct options *o = rp->opts;
	int ret, i;

	ret = o->output == OUTPUT_COUNT ? print_counts(rp, e) :
	      o->output == OUTPUT_HIST ? print_hist(rp, e) :
	      o->output == OUTPUT_STATS ? print_stats(rp, e) :
	      o->pair ? print_pairs(rp, e) :
	      o->perfetto ? print_timeline(rp, e) : print_events(rp, e);
	if (ret < 0)
		return ret == -EPIPE ? 0 : ret;
	if (rp->nfiles) {
		/* Several: the summary of all, and a line for each file cut short. */
		print_summary(rp);
		for (i = 0; i < rp->nfiles; i++)
			if (!recfile__totals(rp->files[i].r) && recfile__cut(rp->files[i].r))
				log_warn("report: '%s' is cut short: its last complete block ends at byte %llu; the events before it are printed",
					 rp->files[i].where,
					 (unsigned long long)recfile__cut(rp->files[i].r));
		return 0;
	}
	if (recfile__totals(rp->r) || (o->max_events && rp->printed >= o->max_events))
		print_summary(rp);
	else
		say_cut(rp, where);
	return 0;
}

/* ---- several recordings, merged by wall time ---- */

/*
 * `ksnoop report a.ksr b.ksr ... [SPEC...]`: each file keeps its own
 * reader, plans, BTF, kernel symbols, clock offset and query (a SPEC must
 * name a target of one file at least); rec_merge.c hands their events
 * on by wall time, and each is printed through its own file's plan with
 * its host (text: after the time; JSON: "host" and "wall_ns").  Targets
 * are numbered across the files (file F's target I is F's base + I), so
 * --count and --hist tables are one table: a row per target name (and
 * key), the calls of every host added up.
 */
static int merged_next(struct replay *rp, const void **rec, size_t *size, struct ks_error *e)
{
	const void *r;
	size_t sz;
	int f, ret;

	while ((ret = rec_merge__next(rp->merge, &r, &sz, &f, e)) > 0) {
		struct replay_file *rf = &rp->files[f];
		const struct ksnoop_event *ev = r;
		struct print_opts po;

		if (ev->time_ns < rf->since_ns || (rf->until_ns && ev->time_ns > rf->until_ns) ||
		    !rec_query__keep(rf->query, ev))
			continue;
		if (sz > rp->copy_cap) {
			void *p = realloc(rp->copy, sz);

			if (!p)
				return ks_fail(e, -ENOMEM, "out of memory");
			rp->copy = p;
			rp->copy_cap = sz;
		}
		memcpy(rp->copy, r, sz);
		((struct ksnoop_event *)rp->copy)->func_id += rf->base;
		/* Printed as its own file's: its host, wall clock and kernel symbols. */
		po = printing__opts(rp->opts, rf->k, rf->named, recfile__meta(rf->r)->clock_offset_ns);
		rp->printer.opts.host = recfile__meta(rf->r)->host;
		rp->printer.opts.clock_offset_ns = po.clock_offset_ns;
		rp->printer.opts.symbolize = po.symbolize;
		rp->printer.opts.symbolize_any = po.symbolize_any;
		rp->printer.opts.sym_ctx = po.sym_ctx;
		report_usyms(&rp->printer.opts, rf->r);
		/* Its tree's calls wait for their root by task in this file, not another host's. */
		rp->file = f;
		*rec = rp->copy;
		*size = sz;
		return 1;
	}
	return ret;
}

/* The END totals of every file that has one, added up; NULL: none has. */
static const struct recfile_totals *merged_totals(struct replay *rp)
{
	bool any = false;
	int i;

	memset(&rp->sum, 0, sizeof(rp->sum));
	for (i = 0; i < rp->nfiles; i++) {
		const struct recfile_totals *t = recfile__totals(rp->files[i].r);

		if (!t)
			continue;
		any = true;
		rp->sum.records += t->records;
		rp->sum.lost += t->lost;
		rp->sum.unwritten += t->unwritten;
		rp->sum.stash_full += t->stash_full;
		rp->sum.stack_lost += t->stack_lost;
		rp->sum.missed += t->missed;
		rp->sum.tree_dropped += t->tree_dropped;
		rp->sum.tree_exited += t->tree_exited;
		rp->sum.tree_exec += t->tree_exec;
		rp->sum.tree_no_room += t->tree_no_room;
		rp->sum.track_added += t->track_added;
		rp->sum.track_freed += t->track_freed;
		rp->sum.track_failed += t->track_failed;
		rp->sum.track_alive += t->track_alive;
	}
	return any ? &rp->sum : NULL;
}

static int cmp_by_name(const void *a, const void *b, void *ctx)
{
	const struct replay *rp = ctx;
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;
	int c = strcmp(rp_name(rp, x), rp_name(rp, y));

	return c ? c : x < y ? -1 : x > y;
}

/* Each target's row: the first target of its name, in any file. */
static int merge_canon(struct replay *rp, struct ks_error *e)
{
	__u32 *order = calloc(rp->ntargets ?: 1, sizeof(*order));
	int i;

	rp->canon = calloc(rp->ntargets ?: 1, sizeof(*rp->canon));
	if (!order || !rp->canon) {
		free(order);
		return ks_fail(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < rp->ntargets; i++)
		order[i] = i;
	qsort_r(order, rp->ntargets, sizeof(*order), cmp_by_name, rp);
	for (i = 0; i < rp->ntargets; i++)
		rp->canon[order[i]] = i && !strcmp(rp_name(rp, order[i]),
						   rp_name(rp, order[i - 1])) ?
				      rp->canon[order[i - 1]] : order[i];
	free(order);
	return 0;
}

/* Every file opened and read up to its events: a bad one is named before anything prints. */
static int merge_open(struct replay *rp, char **paths, int n, struct ks_error *e)
{
	int i, ret;

	rp->files = calloc(n, sizeof(*rp->files));
	if (!rp->files)
		return ks_fail(e, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		rp->files[i].ksyms_fd = -1;
	rp->nfiles = n;
	for (i = 0; i < n; i++) {
		struct replay_file *rf = &rp->files[i];

		rf->where = paths[i];
		if (!strcmp(rf->where, "-"))
			return ks_fail(e, -EINVAL, "report: - (stdin) is reported alone, not merged with other recordings");
		rf->f = fopen(rf->where, "re");
		if (!rf->f) {
			ret = -errno;
			return ks_fail(e, ret == -ENOENT ? -ENOENT : ks_runtime_errno(ret),
				       "report: cannot open '%s': %s", rf->where, strerror(-ret));
		}
		rf->r = recfile__open(rf->f, rf->where, e);
		if (!rf->r)
			return e->err;
		rf->base = rp->ntargets;
		rp->ntargets += recfile__ntargets(rf->r);
	}
	rp->r = rp->files[0].r;
	return 0;
}

/* What one report of several recordings does not do, or files that ask for different tables. */
static int merge_check(struct replay *rp, struct ks_error *e)
{
	const struct options *o = rp->opts;
	const struct recfile_meta *m0 = recfile__meta(rp->r);
	/* An output option given to report: the files' own do not matter. */
	bool chosen = rp->opts != &rp->defaults && o->output != OUTPUT_EVENTS;
	int i;

	if (o->rec_info || o->pair || o->output == OUTPUT_STATS)
		return ks_fail(e, -EINVAL, "report: %s describes one recording; give one FILE",
			       o->rec_info ? "--info" : o->pair ? "--pair" : "--stats");
	for (i = 1; i < rp->nfiles; i++) {
		const struct recfile_meta *m = recfile__meta(rp->files[i].r);

		if (!chosen && (m->output != m0->output || strcmp(m->by, m0->by)))
			return ks_fail(e, -EINVAL, "report: '%s' and '%s' were recorded for different tables (--count, --hist, --by): name one with report's options",
				       rp->files[0].where, rp->files[i].where);
	}
	for (i = 0; i < rp->nfiles; i++)
		if (o->output == OUTPUT_COUNT && recfile__meta(rp->files[i].r)->stack)
			return ks_fail(e, -EINVAL, "report: --count of several recordings with stacks (-s) is not done: '%s' has them, and each kernel names its own",
				       rp->files[i].where);
	return 0;
}

/* Each file's questions; a SPEC must name a target of one of them at least. */
static int merge_queries(struct replay *rp, char **specs, int nspecs, struct ks_error *e)
{
	bool *any = calloc(nspecs ?: 1, sizeof(*any)), *here = calloc(nspecs ?: 1, sizeof(*here));
	int i, j, ret = 0;

	if (!any || !here)
		ret = ks_fail(e, -ENOMEM, "out of memory");
	for (i = 0; !ret && nspecs && i < rp->nfiles; i++) {
		rp->files[i].query = rec_query__new_some(rp->files[i].r, specs, nspecs, here, e);
		if (!rp->files[i].query)
			ret = e->err;
		for (j = 0; !ret && j < nspecs; j++)
			any[j] |= here[j];
	}
	for (j = 0; !ret && j < nspecs; j++)
		if (!any[j])
			ret = ks_fail(e, -EINVAL, "report: spec '%s' names no target of any of the recordings (ksnoop report --info FILE lists them)",
				      specs[j]);
	free(any);
	free(here);
	return ret;
}

/*
 * --since, --until over several recordings: an offset is from the
 * earliest start, a wall time is one for all; each file's bounds on its
 * own clock.
 */
static int merge_window(struct replay *rp, struct ks_error *e)
{
	const struct options *o = rp->opts;
	const struct recfile_meta *first = recfile__meta(rp->r);
	__u64 since = 0, until = 0;
	int i, ret = 0;

	for (i = 1; i < rp->nfiles; i++)
		if (recfile__meta(rp->files[i].r)->start_ns < first->start_ns)
			first = recfile__meta(rp->files[i].r);
	if (o->since)
		ret = window_wall(first, "--since", o->since, &since, e);
	if (!ret && o->until)
		ret = window_wall(first, "--until", o->until, &until, e);
	if (!ret && o->since && o->until && until < since)
		return ks_fail(e, -EINVAL, "report: --until '%s' is before --since '%s'",
			       o->until, o->since);
	for (i = 0; !ret && i < rp->nfiles; i++) {
		const struct recfile_meta *m = recfile__meta(rp->files[i].r);

		rp->files[i].since_ns = o->since ? window_mono(m, since) : 0;
		rp->files[i].until_ns = o->until ? window_mono(m, until) : 0;
	}
	return ret;
}

static int merge_sources(struct replay *rp, struct ks_error *e)
{
	struct rec_merge_source *src = calloc(rp->nfiles, sizeof(*src));
	int i, ret;

	if (!src)
		return ks_fail(e, -ENOMEM, "out of memory");
	for (i = 0; i < rp->nfiles; i++) {
		struct replay_file *rf = &rp->files[i];

		ret = ksyms_setup(rf->r, &rf->k, &rf->ksyms_fd, rf->ksyms_path,
				  sizeof(rf->ksyms_path));
		if (ret < 0) {
			free(src);
			return ks_fail(e, ret, "report: cannot set up the kernel symbols of '%s': %s",
				       rf->where, strerror(-ret));
		}
		rf->named = ret && recfile__meta(rf->r)->kind == RECFILE_KERNEL;
		src[i] = (struct rec_merge_source){ rec_merge__recfile_next, rf->r,
						    recfile__meta(rf->r)->clock_offset_ns };
	}
	rp->merge = rec_merge__new(src, rp->nfiles, e);
	free(src);
	return rp->merge ? 0 : e->err;
}

static int report_merge(struct replay *rp, char **paths, int nfiles, char **specs, int nspecs,
			struct ks_error *e)
{
	struct print_opts popts;
	int ret;

	if (rp->opts->pcap_path)
		return ks_fail(e, -EINVAL, "report: --pcap writes one recording's packets, not %d merged",
			       nfiles);
	if (nfiles > REC_MERGE_MAX_SOURCES)
		return ks_fail(e, -EINVAL, "report: %d recordings; a report merges at most %d",
			       nfiles, REC_MERGE_MAX_SOURCES);
	ret = merge_open(rp, paths, nfiles, e);
	if (ret)
		return ret;
	file_defaults(rp, recfile__meta(rp->r), &specs, &nspecs);
	ret = merge_check(rp, e);
	if (!ret)
		ret = merge_queries(rp, specs, nspecs, e);
	if (!ret)
		ret = merge_window(rp, e);
	if (!ret)
		ret = merge_canon(rp, e);
	if (!ret)
		ret = merge_sources(rp, e);
	if (ret)
		return ret;
	popts = printing__opts(rp->opts, rp->files[0].k, rp->files[0].named,
			       recfile__meta(rp->r)->clock_offset_ns);
	printing__init(&rp->printer, &rp->report, stdout, rp->opts, &popts);
	rp->printing = true;
	return replay_print(rp, NULL, e);
}

static void merge_free(struct replay *rp)
{
	int i;

	rec_merge__free(rp->merge);
	for (i = 0; i < rp->nfiles; i++) {
		struct replay_file *rf = &rp->files[i];

		rec_query__free(rf->query);
		recfile__free(rf->r);
		kernel__free(rf->k);
		if (rf->ksyms_fd >= 0)
			close(rf->ksyms_fd);
		if (rf->f)
			fclose(rf->f);
	}
	free(rp->files);
	free(rp->canon);
	free(rp->copy);
}

static int replay_main(struct replay *rp, FILE *f, const char *where, char **specs,
		       int nspecs, struct ks_error *e)
{
	const struct options *o;
	struct print_opts popts;
	int ret;

	rp->r = recfile__open(f, where, e);
	if (!rp->r)
		return e->err;
	file_defaults(rp, recfile__meta(rp->r), &specs, &nspecs);
	o = rp->opts;
	if (o->rec_info)
		return print_info(rp, where, e);
	if (nspecs) {
		rp->query = rec_query__new(rp->r, specs, nspecs, e);
		if (!rp->query)
			return e->err;
	}
	ret = setup_window(rp, e);
	if (ret)
		return ret;
	ret = setup_ksyms(rp);
	if (ret < 0)
		return ks_fail(e, ret, "report: cannot set up the file's kernel symbols: %s",
			       strerror(-ret));
	popts = printing__opts(o, rp->k, ret && recfile__meta(rp->r)->kind == RECFILE_KERNEL,
			       recfile__meta(rp->r)->clock_offset_ns);
	report_usyms(&popts, rp->r);
	printing__init(&rp->printer, &rp->report, stdout, o, &popts);
	rp->printing = true;
	ret = open_pcap(rp, where, e);
	if (!ret)
		ret = replay_print(rp, where, e);
	if (!ret)
		ret = close_pcap(rp, e);
	return ret;
}

/*
 * FILE... [SPEC...]: the first argument is a FILE; each one after it
 * that ends in ".ksr" or names an existing file (not a directory) is one
 * more; the first that is neither begins the SPECs.
 */
static int count_files(int argc, char **argv)
{
	struct stat st;
	size_t len;
	int n = 1;

	for (; n < argc; n++) {
		len = strlen(argv[n]);
		if (!(len > 4 && !strcmp(argv[n] + len - 4, ".ksr")) &&
		    (stat(argv[n], &st) || S_ISDIR(st.st_mode)))
			break;
	}
	return n;
}

/*
 * The end of a report, one file or several: RET's error said, what was
 * printed flushed, and what the report held, but its file(s), freed.
 */
static void replay_end(struct replay *rp, int ret, struct ks_error *e)
{
	if (ret)
		log_ks_error(e);
	fflush(stdout);
	if (rp->pcap) {
		pcap_events__close(rp->pcap, NULL);
		rp->pcap = NULL;
	}
	if (rp->printing)
		printer__fini(&rp->printer);
	rec_query__free(rp->query);
	free(rp->picks);
	if (rp->by)
		free(rp->by->t);
	free(rp->by);
	tree_print__free(&rp->tree);
	group_print__free(&rp->groups);
	kernel__free(rp->k);
	if (rp->ksyms_fd >= 0)
		close(rp->ksyms_fd);
}

int do_report(int argc, char **argv, const struct options *opts)
{
	struct replay rp = { .opts = opts, .ksyms_fd = -1 };
	struct ks_error e = {};
	const char *where;
	int ret, nfiles;
	FILE *f;

	ret = check_report_options(opts, argc);
	if (ret)
		return ret;
	nfiles = count_files(argc, argv);
	if (nfiles > 1) {
		ret = report_merge(&rp, argv, nfiles, argv + nfiles, argc - nfiles, &e);
		replay_end(&rp, ret, &e);
		rp.r = NULL;	/* the first file's, freed with the others */
		merge_free(&rp);
		return ret;
	}
	where = argv[0];
	f = strcmp(where, "-") ? fopen(where, "re") : stdin;
	if (!f) {
		ret = -errno;
		log_error("report: cannot open '%s': %s", where, strerror(-ret));
		return ret == -ENOENT ? -ENOENT : ks_runtime_errno(ret);
	}
	ret = replay_main(&rp, f, where, argv + 1, argc - 1, &e);
	replay_end(&rp, ret, &e);
	recfile__free(rp.r);
	if (f != stdin)
		fclose(f);
	return ret;
}
