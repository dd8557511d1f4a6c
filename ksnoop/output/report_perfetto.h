/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `ksnoop report --format=perfetto FILE...`: recordings' events as one
 * Chrome trace-event JSON document ({"traceEvents":[...],
 * "displayTimeUnit":"ns","otherData":{...}}), the format Perfetto's UI
 * and chrome://tracing open.  report_perfetto.c says what each record
 * becomes; the events' values are the printer's, written as -j writes
 * them (report_json.h), through the printer's writer.
 */
#ifndef KSNOOP_REPORT_PERFETTO_H
#define KSNOOP_REPORT_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "print.h"

struct capture_plan;
struct printer;
struct report_summary;
struct tree_session;

/*
 * Calls open at once on one thread, nested (a kernel's call chains are a
 * few dozen deep at most).  Past it an entry is an instant, and its
 * return a slice back from its duration ("X") or an instant.
 */
#define PERFETTO_MAX_OPEN	64
/*
 * Threads and processes named (an "M" event each) and followed (their
 * open calls), 16384 in all: more tracks than a viewer shows usefully.
 * Past it a thread's events are written without names or open calls (as
 * past PERFETTO_MAX_OPEN), and counted: "otherData" "threads_not_named".
 */
#define PERFETTO_MAX_THREADS	16384
/* --track objects whose story is open (a flow), at once; past it no flow. */
#define PERFETTO_MAX_FLOWS	65536
/* CPUs with a track; an event of a CPU past it is on its thread's track only. */
#define PERFETTO_MAX_CPUS	4096
/*
 * The "CPUs" process: a pid no task has (the kernel's PID_MAX_LIMIT,
 * 4194304, is above every pid); CPU N is its thread PERFETTO_CPU_PID + 1 + N.
 */
#define PERFETTO_CPU_PID	4194304U

/*
 * Several recordings in one document (report a.ksr b.ksr ...): at most
 * as many as a report merges (rec_merge.h).  Recording I's pids and tids
 * (and its "CPUs" process) are written plus I * PERFETTO_HOST_PIDS, a
 * space above every pid and PERFETTO_CPU_PID's CPUs, so the same pid on
 * two hosts is two processes; 64 such spaces stay below 2^31 (a viewer
 * reads pids as 32-bit integers).  A host's name is written to
 * PERFETTO_HOST_NAME_LEN bytes (an older file's host is its path).
 */
#define PERFETTO_MAX_HOSTS	64
#define PERFETTO_HOST_PIDS	(1U << 23)
#define PERFETTO_HOST_NAME_LEN	256
_Static_assert(PERFETTO_CPU_PID + 1 + PERFETTO_MAX_CPUS < PERFETTO_HOST_PIDS,
	       "a host's CPUs within its pid space");
_Static_assert((unsigned long long)PERFETTO_MAX_HOSTS * PERFETTO_HOST_PIDS <= 1ULL << 31,
	       "every host's pids below 2^31");

/* What could not be drawn as it was recorded (the document's "otherData"). */
struct perfetto_stats {
	__u64 events;		/* records written (each once on its thread's track) */
	__u64 unfinished;	/* calls closed without their return ("unfinished") */
	__u64 not_nested;	/* entries past PERFETTO_MAX_OPEN: instants */
	__u64 threads_not_named;	/* events of threads past PERFETTO_MAX_THREADS */
	__u64 objects_not_linked;	/* --track events past PERFETTO_MAX_FLOWS: no flow */
	__u64 cpus_left_out;	/* events of CPUs past PERFETTO_MAX_CPUS: no CPU track */
};

struct perfetto;

/*
 * The document's writer over printer P (its format REPORT_PERFETTO);
 * NULL without memory.  perfetto__begin() writes the document's head.
 */
struct perfetto *perfetto__new(struct printer *p);
void perfetto__begin(struct perfetto *pf);
/*
 * Several recordings (N, at most PERFETTO_MAX_HOSTS): recording I's host
 * NAMES[I] (kept, not copied) and clock offset OFFSETS[I] (realtime minus
 * monotonic).  The document's clock is the wall clock less the smallest
 * offset ("otherData" "clock_offset_ns"); each host's tracks its own.
 * 0, -EINVAL past the bound, -ENOMEM.  Without it: one recording, its
 * times and ids as recorded.
 */
int perfetto__hosts(struct perfetto *pf, int n, const char *const *names,
		    const __s64 *offsets);
/* The records given from now on are recording I's. */
void perfetto__host(struct perfetto *pf, int i);
/* One record REC (SIZE bytes) of PLAN: its trace events, in order. */
void perfetto__event(struct perfetto *pf, const struct capture_plan *plan, const void *rec,
		     size_t size);
/*
 * A --tree session, ended by its root's record REC (SIZE bytes) of ROOT
 * (S: its calls, tree_print.h; PLAN_OF(CTX, id) their plans): each call
 * a slice nested in its caller's, opened ("B", no record of its own:
 * args "ksnoop":{"tree":...}) at its entry, its start being its return's
 * time less its duration, and closed ("E") by its record, in the order
 * they were called; a call without duration (a tracepoint) an instant.
 */
void perfetto__tree(struct perfetto *pf, const struct capture_plan *root, const void *rec,
		    size_t size, const struct tree_session *s, print_plan_fn plan_of, void *ctx);
/*
 * The end: every call still open closed at the last recorded time, then
 * the document's tail with S's totals and whether the file was CUT.
 */
void perfetto__end(struct perfetto *pf, const struct report_summary *s, bool cut);
const struct perfetto_stats *perfetto__stats(const struct perfetto *pf);
void perfetto__free(struct perfetto *pf);

#endif
