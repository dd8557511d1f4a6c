// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report --format=perfetto: a recording as Chrome trace events.
 *
 * Tracks.  Each thread is a track (pid: its process, tid: the thread),
 * named by "M" events from the recorded comm: thread_name when a thread
 * is first seen or shows another comm (exec, prctl), process_name from
 * the first event of a process and again when its main thread shows
 * another comm.  Each CPU is a track too, a thread of a process of its
 * own, "CPUs" (PERFETTO_CPU_PID), carrying every event again as an
 * instant at the CPU that recorded it (comm, pid, tid as args).  Not
 * slices: a call's entry and return may be on two CPUs (the task
 * migrated), and a call that sleeps overlaps on its CPU whatever ran
 * there meanwhile, so slices would not nest there.
 *
 * Events.  A call whose entry and return are both recorded is a slice:
 * "B" at the entry (its entry values as args), "E" at the return (the
 * return's values added), written as the records come.  A return whose
 * entry is not in the recording (the entry values were stashed for a
 * predicate on the return or -L, or sys:NAME's one event a call) is an
 * "X" slice back from its recorded duration.  Everything else (a
 * tracepoint, a USDT probe, the entry of a call whose return is not
 * traced, a return of unknown start) is a thread instant ("i") with its
 * values as args.  Calls nest by time on their thread's track, so what a
 * recording of several functions holds shows as call trees.  Every event
 * keeps ksnoop's own facts in args "ksnoop" (kind, duration_ns, the
 * --track object).  A --track object's events are joined by a flow ("s"
 * at its first, "t", "f" at its free; one id per object's story, in the
 * order stories begin).
 *
 * Order.  One trace event a line, in the records' order; on each track
 * the timestamps never go back (a record older than its track's last,
 * which only a damaged file has, is drawn at the track's last time), and
 * B and E pair in LIFO order: a return whose call is open under others
 * closes those first, and what is open at the end closes at the last
 * recorded time, each such "E" marked "ksnoop":{"unfinished":...} (its
 * return was not recorded: lost, cut short, or left out by report's
 * filters).  An "X" is written at its return, so its start lies before
 * what its thread's track shows last: calls still open that began after
 * it were unfinished, and are closed first.  Times are the recorded
 * monotonic ones in microseconds to the nanosecond: a -j event's
 * time_ns is its trace event's ts times 1000.
 *
 * Hosts.  A report of several recordings (perfetto__hosts()) draws them
 * on one clock and keeps their tracks apart.  The clock is the wall
 * clock less the smallest of the files' clock offsets (realtime minus
 * monotonic): the monotonic clock of the host booted first, the others'
 * events shifted onto it by the difference of their offsets, so times
 * stay small enough for a viewer's doubles (a wall time in microseconds
 * has 16 digits) and a -j event's wall_ns is ts times 1000 plus that
 * smallest offset ("otherData" "clock_offset_ns").  Recording I's pids
 * and tids are written plus I * PERFETTO_HOST_PIDS, its CPUs' process
 * too, so the same pid on two hosts is two processes; the process's
 * name says the host and the pid as recorded ("HOST: comm (pid)",
 * "HOST: CPUs"), and each event's "ksnoop" args its host.  The records
 * come by wall time (rec_merge.c), each file's in its own order.
 *
 * Trees.  A --tree session's records come when its root returned, its
 * calls first, in the order they returned (tree_print.c keeps them): the
 * whole tree is drawn then, in the order the calls were made, each a
 * B/E slice nested in its caller's (the B at its return's time less its
 * duration, marked "ksnoop":{"tree":"root"|"call"}; the E its record),
 * so the root's slice opens before its calls' (a viewer reads the file
 * in order).  A call without duration (a tracepoint in the tree) is an
 * instant; the first failing call is marked "first_error".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksnoop.h"
#include "print.h"
#include "report.h"
#include "report_json.h"
#include "report_perfetto.h"
#include "tree_print.h"
#include "writer.h"

/* A call open on a thread: its B was written. */
struct pf_open {
	__u64 ts;
	__u32 func_id;
	const char *name;	/* the plan's (the recording's, alive as long as we are) */
};

/* A thread (or, PROCESS, a process) named so far; its calls open. */
struct pf_thread {
	bool used;
	bool process;
	__u32 pid, tid;
	char comm[KSNOOP_COMM_LEN];
	__u64 last_ts;		/* the latest time its track shows */
	__u32 nopen, cap;
	struct pf_open *open;
};

/* A --track object's story with a flow open (STORY: its host's index << 32 | session). */
struct pf_flow {
	bool used;
	__u64 story;
	__u64 object;
	__u64 id;
};

/* A recording's place in the document: its ids, its clock, its CPUs' tracks. */
struct pf_host {
	const char *name;	/* NULL: one recording, written as recorded */
	__u32 index;
	__u32 pid_base;		/* its pids and tids are written plus this */
	__u64 shift_ns;		/* and its times plus this */
	bool cpus_named;
	unsigned char cpu_seen[PERFETTO_MAX_CPUS / 8];
	__u64 cpu_last[PERFETTO_MAX_CPUS];
};

/* The trace event being written through the printer (its methods read it). */
struct pf_event {
	char ph;
	const char *cat;
	__u64 ts, dur;
	const struct ksnoop_event *ev;
	const char *tree;	/* a --tree session's "root" or "call" (NULL: none) */
	bool first_error;	/* the session's first failing call */
};

struct perfetto {
	struct printer *p;
	struct perfetto_stats st;
	__u64 written;		/* trace events so far (a ',' before the next) */
	__u64 last_ns;		/* the latest record's time */
	struct pf_thread *threads;	/* open addressing, a power of 2 slots */
	size_t nthreads, tslots;
	struct pf_flow *flows;
	size_t nflows, fslots;
	__u64 next_flow;
	struct pf_host one;	/* a report of one recording */
	struct pf_host *hosts;	/* of several (perfetto__hosts()) */
	int nhosts;
	struct pf_host *host;	/* the records' now */
	__s64 clock_offset_ns;	/* several: the smallest of the files' offsets */
	struct pf_event cur;
};

struct perfetto *perfetto__new(struct printer *p)
{
	struct perfetto *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return NULL;
	pf->p = p;
	pf->host = &pf->one;
	p->perfetto = pf;
	return pf;
}

int perfetto__hosts(struct perfetto *pf, int n, const char *const *names,
		    const __s64 *offsets)
{
	__s64 min;
	int i;

	if (n < 1 || n > PERFETTO_MAX_HOSTS)
		return -EINVAL;
	pf->hosts = calloc(n, sizeof(*pf->hosts));
	if (!pf->hosts)
		return -ENOMEM;
	for (min = offsets[0], i = 1; i < n; i++)
		if (offsets[i] < min)
			min = offsets[i];
	for (i = 0; i < n; i++)
		pf->hosts[i] = (struct pf_host){ .name = names[i], .index = i,
						 .pid_base = i * PERFETTO_HOST_PIDS,
						 .shift_ns = (__u64)offsets[i] - (__u64)min };
	pf->nhosts = n;
	pf->clock_offset_ns = min;
	pf->host = &pf->hosts[0];
	return 0;
}

void perfetto__host(struct perfetto *pf, int i)
{
	if (i >= 0 && i < pf->nhosts)
		pf->host = &pf->hosts[i];
}

void perfetto__free(struct perfetto *pf)
{
	size_t i;

	if (!pf)
		return;
	for (i = 0; i < pf->tslots; i++)
		free(pf->threads[i].open);
	free(pf->threads);
	free(pf->flows);
	free(pf->hosts);
	pf->p->perfetto = NULL;
	free(pf);
}

const struct perfetto_stats *perfetto__stats(const struct perfetto *pf)
{
	return &pf->st;
}

/* ---- writing ---- */

static struct writer *wr(struct perfetto *pf)
{
	return &pf->p->wr;
}

/* A pid or tid of the records' host as the document has it. */
static __u32 doc_id(const struct perfetto *pf, __u32 id)
{
	return id + pf->host->pid_base;
}

/* A recorded time NS on the document's clock (a hostile offset stops at the end). */
static __u64 doc_time(const struct perfetto *pf, __u64 ns)
{
	__u64 t = ns + pf->host->shift_ns;

	return t < ns ? ~0ULL : t;
}

/* TS ns as microseconds: "631546.373357" (no float printed: exact). */
static void key_ts(struct writer *w, const char *key, __u64 ns)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	writer__key(w, key);
	writer__raw(w, buf, buf);
}

static void key_uint(struct writer *w, const char *key, __u64 v)
{
	writer__key(w, key);
	writer__uint(w, v);
}

static void key_name(struct writer *w, const char *key, const char *s)
{
	writer__key(w, key);
	writer__name(w, s);
}

/* "host":NAME, a recording's (untrusted: escaped, at most PERFETTO_HOST_NAME_LEN bytes). */
static void key_host(struct writer *w, const char *name)
{
	writer__key(w, "host");
	writer__string(w, name, strnlen(name, PERFETTO_HOST_NAME_LEN));
}

static void key_true(struct writer *w, const char *key)
{
	writer__key(w, key);
	writer__bool(w, true);
}

/* Text of the document's own, outside any trace event. */
static void put_text(struct writer *w, const char *s)
{
	obuf__write(writer__obuf(w), s, strlen(s));
}

/* The next trace event: its separator, "{", "name" (escaped), "cat" (NULL: none), "ph". */
static struct writer *event_open(struct perfetto *pf, const char *name, const char *cat, char ph)
{
	struct writer *w = wr(pf);
	char phase[2] = { ph, 0 };

	if (pf->written++)
		put_text(w, ",\n");
	writer__begin_object(w, WRITER_STRUCT, 0);
	key_name(w, "name", name);
	if (cat)
		key_name(w, "cat", cat);
	key_name(w, "ph", phase);
	return w;
}

/* ...,"pid":PID,"tid":TID */
static void event_ids(struct writer *w, __u32 pid, __u64 tid)
{
	key_uint(w, "pid", pid);
	key_uint(w, "tid", tid);
}

/* {"name":KIND,"ph":"M","pid","tid","args":{"name":NAME}} (NAME: N bytes, not NUL-ended) */
static void metadata(struct perfetto *pf, const char *kind, __u32 pid, __u64 tid,
		     const char *name, size_t n)
{
	struct writer *w = event_open(pf, kind, NULL, 'M');

	event_ids(w, pid, tid);
	writer__key(w, "args");
	writer__begin_object(w, WRITER_STRUCT, 0);
	writer__key(w, "name");
	writer__string(w, name, strnlen(name, n));
	writer__end_object(w);
	writer__end_object(w);
}

/*
 * A "call" event PH of NAME on TH's track at TS with no record behind it:
 * its only argument "ksnoop":{KEY: VALUE}.
 */
static void mark_event(struct perfetto *pf, const struct pf_thread *th, const char *name,
		       char ph, __u64 ts, const char *key, const char *value)
{
	struct writer *w = event_open(pf, name, "call", ph);

	key_ts(w, "ts", ts);
	event_ids(w, th->pid, th->tid);
	writer__key(w, "args");
	writer__begin_object(w, WRITER_STRUCT, 0);
	writer__key(w, "ksnoop");
	writer__begin_object(w, WRITER_STRUCT, 0);
	key_name(w, key, value);
	if (pf->host->name)
		key_host(w, pf->host->name);
	writer__end_object(w);
	writer__end_object(w);
	writer__end_object(w);
}

/* An open call closed at TS without its return: "E" marked unfinished. */
static void unfinished(struct perfetto *pf, const struct pf_thread *th, const struct pf_open *o,
		       __u64 ts)
{
	mark_event(pf, th, o->name, 'E', ts, "unfinished", "its return was not recorded");
	pf->st.unfinished++;
}

/* ---- threads ---- */

static size_t thread_hash(__u32 pid, __u32 tid, bool process)
{
	__u64 k = ((__u64)pid << 32 | tid) ^ (process ? 0x5bd1e995ULL : 0);

	return (k * 0x9e3779b97f4a7c15ULL) >> 17;
}

static struct pf_thread *thread_slot(struct pf_thread *t, size_t nslots, __u32 pid, __u32 tid,
				     bool process)
{
	size_t j = thread_hash(pid, tid, process) & (nslots - 1);

	while (t[j].used && (t[j].pid != pid || t[j].tid != tid || t[j].process != process))
		j = (j + 1) & (nslots - 1);
	return &t[j];
}

static int threads_grow(struct perfetto *pf)
{
	size_t n = pf->tslots ? pf->tslots * 2 : 256, i;
	struct pf_thread *t = calloc(n, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < pf->tslots; i++)
		if (pf->threads[i].used)
			*thread_slot(t, n, pf->threads[i].pid, pf->threads[i].tid,
				     pf->threads[i].process) = pf->threads[i];
	free(pf->threads);
	pf->threads = t;
	pf->tslots = n;
	return 0;
}

/* The entry of PID/TID (PROCESS: of process PID), made if there is room; NULL: none. */
static struct pf_thread *thread_get(struct perfetto *pf, __u32 pid, __u32 tid, bool process,
				    bool *is_new)
{
	struct pf_thread *th;

	*is_new = false;
	if (pf->tslots) {
		th = thread_slot(pf->threads, pf->tslots, pid, tid, process);
		if (th->used)
			return th;
	}
	if (pf->nthreads >= PERFETTO_MAX_THREADS)
		return NULL;
	if (2 * (pf->nthreads + 1) > pf->tslots && threads_grow(pf))
		return NULL;
	th = thread_slot(pf->threads, pf->tslots, pid, tid, process);
	*th = (struct pf_thread){ .used = true, .process = process, .pid = pid, .tid = tid };
	pf->nthreads++;
	*is_new = true;
	return th;
}

/* EV's process named: its comm; of several hosts "HOST: comm (pid)". */
static void process_named(struct perfetto *pf, const struct ksnoop_event *ev)
{
	char name[PERFETTO_HOST_NAME_LEN + KSNOOP_COMM_LEN + 16];
	int n;

	if (!pf->host->name) {
		metadata(pf, "process_name", ev->tgid, ev->tid, ev->comm, KSNOOP_COMM_LEN);
		return;
	}
	n = snprintf(name, sizeof(name), "%.*s: %.*s (%u)", PERFETTO_HOST_NAME_LEN,
		     pf->host->name, (int)strnlen(ev->comm, KSNOOP_COMM_LEN), ev->comm, ev->tgid);
	metadata(pf, "process_name", doc_id(pf, ev->tgid), doc_id(pf, ev->tid), name,
		 n < 0 ? 0 : (size_t)n);
}

/* EV's thread, named ("M" events) when new or renamed; NULL: past the bound. */
static struct pf_thread *thread_named(struct perfetto *pf, const struct ksnoop_event *ev)
{
	__u32 pid = doc_id(pf, ev->tgid), tid = doc_id(pf, ev->tid);
	struct pf_thread *proc, *th;
	bool is_new;

	proc = thread_get(pf, pid, 0, true, &is_new);
	if (proc && (is_new || (ev->tid == ev->tgid &&
				memcmp(proc->comm, ev->comm, KSNOOP_COMM_LEN)))) {
		memcpy(proc->comm, ev->comm, KSNOOP_COMM_LEN);
		process_named(pf, ev);
	}
	th = thread_get(pf, pid, tid, false, &is_new);
	if (!th || !proc) {
		pf->st.threads_not_named++;
		return NULL;
	}
	if (is_new || memcmp(th->comm, ev->comm, KSNOOP_COMM_LEN)) {
		memcpy(th->comm, ev->comm, KSNOOP_COMM_LEN);
		metadata(pf, "thread_name", pid, tid, ev->comm, KSNOOP_COMM_LEN);
	}
	return th;
}

static bool push_open(struct pf_thread *th, __u64 ts, __u32 func_id, const char *name)
{
	if (th->nopen == th->cap) {
		__u32 cap = th->cap ? th->cap * 2 : 8;
		struct pf_open *o;

		if (cap > PERFETTO_MAX_OPEN)
			return false;
		o = realloc(th->open, cap * sizeof(*o));
		if (!o)
			return false;
		th->open = o;
		th->cap = cap;
	}
	th->open[th->nopen++] = (struct pf_open){ .ts = ts, .func_id = func_id, .name = name };
	return true;
}

/* Close TH's open calls above depth N (the innermost first) at TS. */
static void close_above(struct perfetto *pf, struct pf_thread *th, __u32 n, __u64 ts)
{
	while (th->nopen > n) {
		th->nopen--;
		unfinished(pf, th, &th->open[th->nopen], ts);
	}
}

/* ---- what a record becomes ---- */

/* An entry: B if its call's return is traced and it nests, else an instant. */
static void decide_entry(struct perfetto *pf, struct pf_thread *th,
			 const struct capture_plan *plan, const struct ksnoop_event *ev, __u64 ts)
{
	struct pf_event *c = &pf->cur;

	c->ph = 'i';
	c->cat = "event";
	if (!plan->bpf.side[KSNOOP_RETURN].enabled)
		return;
	c->cat = "call";
	if (th && push_open(th, ts, ev->func_id, plan->sig.name))
		c->ph = 'B';
	else
		pf->st.not_nested++;
}

/* A return: E of its open call, else X from its duration, else an instant. */
static void decide_return(struct perfetto *pf, struct pf_thread *th,
			  const struct ksnoop_event *ev, __u64 ts)
{
	struct pf_event *c = &pf->cur;
	__u32 i;

	c->ph = 'i';
	c->cat = "event";
	for (i = th ? th->nopen : 0; i > 0; i--) {
		if (th->open[i - 1].func_id != ev->func_id)
			continue;
		close_above(pf, th, i, ts);
		th->nopen--;
		c->ph = 'E';
		c->cat = "call";
		return;
	}
	if (!(ev->flags & KSNOOP_EV_DURATION))
		return;
	c->ph = 'X';
	c->cat = "call";
	c->dur = ev->duration_ns < ts ? ev->duration_ns : ts;
	c->ts = ts - c->dur;
	/* Open calls that began inside it ended inside it: their returns are not recorded. */
	while (th && th->nopen && th->open[th->nopen - 1].ts >= c->ts)
		close_above(pf, th, th->nopen - 1, ts);
}

/* ---- --track: flows ---- */

static size_t flow_hash(__u64 object, __u64 story)
{
	return (object ^ (story << 40) ^ (story >> 24)) * 0x9e3779b97f4a7c15ULL >> 17;
}

static struct pf_flow *flow_slot(struct pf_flow *f, size_t nslots, __u64 object, __u64 story)
{
	size_t j = flow_hash(object, story) & (nslots - 1);

	while (f[j].used && (f[j].object != object || f[j].story != story))
		j = (j + 1) & (nslots - 1);
	return &f[j];
}

/* Slots: twice the bound, so that a probe always ends; made on the first object. */
static int flows_alloc(struct perfetto *pf)
{
	if (pf->flows)
		return 0;
	pf->fslots = 2 * PERFETTO_MAX_FLOWS;
	pf->flows = calloc(pf->fslots, sizeof(*pf->flows));
	return pf->flows ? 0 : -ENOMEM;
}

/* Remove slot F (linear probing: the entries after it move back where they belong). */
static void flow_remove(struct perfetto *pf, struct pf_flow *f)
{
	size_t n = pf->fslots, i = f - pf->flows, j = i;

	pf->flows[i].used = false;
	pf->nflows--;
	for (;;) {
		size_t k;

		j = (j + 1) & (n - 1);
		if (!pf->flows[j].used)
			return;
		k = flow_hash(pf->flows[j].object, pf->flows[j].story) & (n - 1);
		/* Stays if its home K lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		pf->flows[i] = pf->flows[j];
		pf->flows[j].used = false;
		i = j;
	}
}

/*
 * EV's step in its object's flow: 's' for a story's first event, 't',
 * 'f' at its free (the flow removed); 0: none (no object, a story of one
 * event, or no room).  Its id into *ID.
 */
static char flow_phase(struct perfetto *pf, const struct ksnoop_event *ev, __u64 *id)
{
	__u64 story = (__u64)pf->host->index << 32 | ev->session;
	struct pf_flow *f;

	if (!(ev->flags & KSNOOP_EV_OBJECT))
		return 0;
	if (flows_alloc(pf)) {
		pf->st.objects_not_linked++;
		return 0;
	}
	f = flow_slot(pf->flows, pf->fslots, ev->object, story);
	if (f->used) {
		*id = f->id;
		if (!(ev->flags & KSNOOP_EV_FREED))
			return 't';
		flow_remove(pf, f);
		return 'f';
	}
	if (ev->flags & KSNOOP_EV_FREED)
		return 0;
	if (pf->nflows >= PERFETTO_MAX_FLOWS) {
		pf->st.objects_not_linked++;
		return 0;
	}
	*f = (struct pf_flow){ .used = true, .object = ev->object, .story = story,
			       .id = ++pf->next_flow };
	pf->nflows++;
	*id = f->id;
	return 's';
}

/* {"name":"object 0x...","cat":"object","ph":PH,"id":ID,"ts","pid","tid"[,"bp":"e"]} */
static void flow_event(struct perfetto *pf, const struct ksnoop_event *ev, char ph, __u64 id,
		       __u64 ts)
{
	char name[32];
	struct writer *w;

	snprintf(name, sizeof(name), "object 0x%llx", (unsigned long long)ev->object);
	w = event_open(pf, name, "object", ph);
	key_uint(w, "id", id);
	key_ts(w, "ts", ts);
	event_ids(w, doc_id(pf, ev->tgid), doc_id(pf, ev->tid));
	if (ph == 'f')
		key_name(w, "bp", "e");
	writer__end_object(w);
}

/* ---- CPU tracks ---- */

/* EV again as an instant on its CPU's track, at TS (or the track's last time). */
static void cpu_event(struct perfetto *pf, const struct capture_plan *plan,
		      const struct ksnoop_event *ev, __u64 ts)
{
	struct pf_host *h = pf->host;
	__u32 cpu = ev->cpu, pid = doc_id(pf, PERFETTO_CPU_PID);
	__u64 tid = (__u64)pid + 1 + cpu;
	char name[PERFETTO_HOST_NAME_LEN + 16];
	struct writer *w;

	if (cpu >= PERFETTO_MAX_CPUS) {
		pf->st.cpus_left_out++;
		return;
	}
	if (!h->cpus_named) {
		h->cpus_named = true;
		if (h->name)
			snprintf(name, sizeof(name), "%.*s: CPUs", PERFETTO_HOST_NAME_LEN, h->name);
		else
			snprintf(name, sizeof(name), "CPUs");
		metadata(pf, "process_name", pid, tid, name, sizeof(name));
	}
	if (!(h->cpu_seen[cpu / 8] & (1u << (cpu % 8)))) {
		h->cpu_seen[cpu / 8] |= 1u << (cpu % 8);
		snprintf(name, sizeof(name), "CPU %u", cpu);
		metadata(pf, "thread_name", pid, tid, name, sizeof(name));
	}
	if (ts < h->cpu_last[cpu])
		ts = h->cpu_last[cpu];
	h->cpu_last[cpu] = ts;
	w = event_open(pf, plan->sig.name, "cpu", 'i');
	key_name(w, "s", "t");
	key_ts(w, "ts", ts);
	event_ids(w, pid, tid);
	writer__key(w, "args");
	writer__begin_object(w, WRITER_STRUCT, 0);
	writer__key(w, "comm");
	writer__string(w, ev->comm, strnlen(ev->comm, KSNOOP_COMM_LEN));
	key_uint(w, "pid", ev->tgid);
	key_uint(w, "tid", ev->tid);
	key_name(w, "kind", ev->kind == KSNOOP_ENTRY ? "entry" : "return");
	if (h->name)
		key_host(w, h->name);
	writer__end_object(w);
	writer__end_object(w);
}

/* ---- the document ---- */

void perfetto__begin(struct perfetto *pf)
{
	put_text(wr(pf), "{\"traceEvents\":[\n");
}

/* Whether REC (SIZE bytes) holds what PLAN says a record of its kind holds. */
static bool record_fits(const struct capture_plan *plan, const void *rec, size_t size)
{
	const struct ksnoop_event *ev = rec;

	return size >= sizeof(*ev) && ev->kind < KSNOOP_NR_KINDS &&
	       size >= plan->bpf.side[ev->kind].rec_size;
}

/*
 * The record as pf->cur decided (its flow step FLOW, ID around it), then
 * again on its CPU's track.
 */
static void record_written(struct perfetto *pf, const struct capture_plan *plan, const void *rec,
			   size_t size, char flow, __u64 id)
{
	const struct ksnoop_event *ev = rec;

	/* A flow binds to the slice around its time: before E, while its call is open. */
	if (flow && pf->cur.ph == 'E')
		flow_event(pf, ev, flow, id, pf->cur.ts);
	if (pf->written++)
		put_text(wr(pf), ",\n");
	printer__event(pf->p, plan, rec, size);
	if (flow && pf->cur.ph != 'E')
		flow_event(pf, ev, flow, id, pf->cur.ts);
	cpu_event(pf, plan, ev, doc_time(pf, ev->time_ns));
	pf->st.events++;
}

void perfetto__event(struct perfetto *pf, const struct capture_plan *plan, const void *rec,
		     size_t size)
{
	const struct ksnoop_event *ev = rec;
	struct pf_thread *th;
	char flow;
	__u64 ts, t, id = 0;

	if (!record_fits(plan, rec, size))
		return;
	t = doc_time(pf, ev->time_ns);
	if (t > pf->last_ns)
		pf->last_ns = t;
	th = thread_named(pf, ev);
	ts = th && th->last_ts > t ? th->last_ts : t;
	pf->cur = (struct pf_event){ .ts = ts, .ev = ev };
	if (ev->kind == KSNOOP_ENTRY)
		decide_entry(pf, th, plan, ev, ts);
	else
		decide_return(pf, th, ev, ts);
	if (th)
		th->last_ts = ts;
	flow = flow_phase(pf, ev, &id);
	record_written(pf, plan, rec, size, flow, id);
}

/* ---- --tree: a session drawn when its root's record came ---- */

/* NS, or TH's last time if later: its track never goes back. */
static __u64 track_time(struct pf_thread *th, __u64 ns)
{
	if (th && th->last_ts > ns)
		ns = th->last_ts;
	if (th)
		th->last_ts = ns;
	return ns;
}

/* The "B" of a tree's call CALL (ROLE), at TS: no record, no values. */
static void tree_open(struct perfetto *pf, const struct pf_thread *th, const char *name,
		      const char *role, __u64 ts)
{
	mark_event(pf, th, name, 'B', ts, "tree", role);
}

struct pf_tree {
	const struct tree_call *calls;
	print_plan_fn plan_of;
	void *ctx;
};

/*
 * One call of a tree (REC of PLAN, ROLE; FIRST_ERROR) and below it its
 * callees from FIRST on: its B at its entry, theirs, its record as E.
 * Past PERFETTO_MAX_OPEN (or without duration) the record is an instant.
 */
static void tree_call(struct perfetto *pf, struct pf_thread *th, const struct pf_tree *t,
		      const struct capture_plan *plan, const void *rec, size_t size,
		      const char *role, bool first_error, int first)
{
	const struct ksnoop_event *ev = rec;
	__u64 dur, now = doc_time(pf, ev->time_ns);
	bool open = false;
	int i;

	if (now > pf->last_ns)
		pf->last_ns = now;
	if (ev->kind == KSNOOP_RETURN && (ev->flags & KSNOOP_EV_DURATION)) {
		dur = ev->duration_ns < now ? ev->duration_ns : now;
		open = th && push_open(th, now - dur, ev->func_id, plan->sig.name);
		if (open)
			tree_open(pf, th, plan->sig.name, role, track_time(th, now - dur));
		else
			pf->st.not_nested++;
	}
	for (i = first; i >= 0; i = t->calls[i].next_sibling) {
		const struct tree_call *c = &t->calls[i];
		const struct capture_plan *cp = t->plan_of(t->ctx, ((const struct ksnoop_event *)c->rec)->func_id);

		if (cp && record_fits(cp, c->rec, c->size))
			tree_call(pf, th, t, cp, c->rec, c->size, "call", c->first_error,
				  c->first_child);
	}
	if (open)
		th->nopen--;
	pf->cur = (struct pf_event){ .ph = open ? 'E' : 'i', .cat = open ? "call" : "event",
				     .ts = track_time(th, now), .ev = ev, .tree = role,
				     .first_error = first_error };
	record_written(pf, plan, rec, size, 0, 0);
}

void perfetto__tree(struct perfetto *pf, const struct capture_plan *root, const void *rec,
		    size_t size, const struct tree_session *s, print_plan_fn plan_of, void *ctx)
{
	struct pf_tree t = { .calls = s->calls, .plan_of = plan_of, .ctx = ctx };

	if (!record_fits(root, rec, size))
		return;
	tree_call(pf, thread_named(pf, rec), &t, root, rec, size, "root", false, s->first);
}

/*
 * Several recordings: "clock_offset_ns" (a ts in ns plus it is the wall
 * time) and "hosts", each file's host and the base of its pids and tids.
 */
static void other_hosts(struct perfetto *pf)
{
	struct writer *w = wr(pf);
	int i;

	writer__key(w, "clock_offset_ns");
	writer__int(w, pf->clock_offset_ns);
	writer__key(w, "hosts");
	writer__begin_array(w, WRITER_STRUCT, 0);
	for (i = 0; i < pf->nhosts; i++) {
		writer__begin_object(w, WRITER_STRUCT, 0);
		key_host(w, pf->hosts[i].name);
		key_uint(w, "pid_base", pf->hosts[i].pid_base);
		writer__end_object(w);
	}
	writer__end_array(w);
}

/* "otherData": the run's totals and what could not be drawn as recorded. */
static void other_data(struct perfetto *pf, const struct report_summary *s, bool cut)
{
	struct writer *w = wr(pf);

	put_text(w, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":");
	writer__begin_object(w, WRITER_STRUCT, 0);
	key_name(w, "source", "ksnoop report --format=perfetto");
	key_uint(w, "events", pf->st.events);
	key_uint(w, "lost", s->lost);
	key_uint(w, "not_written", s->unprinted);
	key_uint(w, "missed", s->missed);
	writer__key(w, "cut");
	writer__bool(w, cut);
	key_uint(w, "unfinished", pf->st.unfinished);
	key_uint(w, "not_nested", pf->st.not_nested);
	key_uint(w, "threads_not_named", pf->st.threads_not_named);
	key_uint(w, "objects_not_linked", pf->st.objects_not_linked);
	key_uint(w, "cpus_left_out", pf->st.cpus_left_out);
	if (pf->nhosts)
		other_hosts(pf);
	writer__end_object(w);
	put_text(w, "}\n");
	writer__flush(w);
}

void perfetto__end(struct perfetto *pf, const struct report_summary *s, bool cut)
{
	size_t i;

	for (i = 0; i < pf->tslots; i++) {
		struct pf_thread *th = &pf->threads[i];

		if (th->used && th->nopen)
			close_above(pf, th, 0, th->last_ts > pf->last_ns ? th->last_ts : pf->last_ns);
	}
	other_data(pf, s, cut);
}

/* ---- the format's methods (report.h) ---- */

/*
 * {"name":FUNC,"cat":...,"ph":...,"ts":...[,"dur"][,"s":"t"],"pid","tid","args":
 * the values' object follows (print.c), then values_end's.
 */
static void pf_event_begin(struct printer *p, const struct capture_plan *plan,
			   const struct ksnoop_event *ev, const char *comm)
{
	struct perfetto *pf = p->perfetto;
	struct writer *w = &p->wr;
	char phase[2] = { pf->cur.ph, 0 };

	(void)comm;
	writer__begin_object(w, WRITER_STRUCT, 0);
	key_name(w, "name", plan->sig.name);
	key_name(w, "cat", pf->cur.cat);
	key_name(w, "ph", phase);
	key_ts(w, "ts", pf->cur.ts);
	if (pf->cur.ph == 'X')
		key_ts(w, "dur", pf->cur.dur);
	if (pf->cur.ph == 'i')
		key_name(w, "s", "t");
	event_ids(w, doc_id(pf, ev->tgid), doc_id(pf, ev->tid));
	writer__key(w, "args");
}

/* Inside "args": the stacks, then "ksnoop":{"kind",["duration_ns"],[--track's]}. */
static void pf_values_end(struct printer *p, const struct ksnoop_value *stack,
			  const struct ksnoop_value *ustack, bool user, __u32 pid)
{
	const struct ksnoop_event *ev = p->perfetto->cur.ev;
	struct writer *w = &p->wr;
	char at[24];

	if (stack)
		printer__stack(p, "stack", stack, user, pid);
	if (ustack)
		printer__stack(p, "ustack", ustack, true, pid);
	writer__key(w, "ksnoop");
	writer__begin_object(w, WRITER_STRUCT, 0);
	key_name(w, "kind", ev->kind == KSNOOP_ENTRY ? "entry" : "return");
	if (ev->flags & KSNOOP_EV_DURATION)
		key_uint(w, "duration_ns", ev->duration_ns);
	if (ev->flags & KSNOOP_EV_OBJECT) {
		snprintf(at, sizeof(at), "0x%llx", (unsigned long long)ev->object);
		key_name(w, "object", at);
		if (ev->flags & KSNOOP_EV_TRACKED)
			key_true(w, "tracked");
		if (ev->flags & KSNOOP_EV_FREED)
			key_true(w, "freed");
		if (ev->flags & KSNOOP_EV_CLONED)
			key_true(w, "clone");
	}
	if (p->perfetto->host->name)
		key_host(w, p->perfetto->host->name);
	if (p->perfetto->cur.tree)
		key_name(w, "tree", p->perfetto->cur.tree);
	if (p->perfetto->cur.first_error)
		key_true(w, "first_error");
	writer__end_object(w);
	writer__end_object(w);
}

static void pf_event_end(struct printer *p, const struct capture_plan *plan, const void *rec,
			 int kind)
{
	(void)plan;
	(void)rec;
	(void)kind;
	writer__end_object(&p->wr);
}

/*
 * What a timeline does not hold: report refuses --count, --hist,
 * --stats, --info with it, a tree is drawn by perfetto__tree() and not
 * printed as one, and a recording has no groups yet; the totals go in
 * "otherData" (perfetto__end()).
 */
static void pf_none(struct report *r)
{
	(void)r;
}

static void pf_counts_begin(struct report *r, bool stacks, const char *const *by, int nby)
{
	(void)r, (void)stacks, (void)by, (void)nby;
}

static void pf_count(struct report *r, const struct report_count *c)
{
	(void)r, (void)c;
}

static void pf_hist(struct report *r, const struct report_hist *h)
{
	(void)r, (void)h;
}

static void pf_stats_begin(struct report *r, const char *const *by, int nby)
{
	(void)r, (void)by, (void)nby;
}

static void pf_stats(struct report *r, const struct report_stats *s)
{
	(void)r, (void)s;
}

static void pf_info(struct report *r, const struct report_info *info)
{
	(void)r, (void)info;
}

static void pf_type(struct report *r, const struct report_type *t)
{
	(void)r, (void)t;
}

static void pf_usdt(struct report *r, const struct usdt_file *f, bool titled)
{
	(void)r, (void)f, (void)titled;
}

static void pf_lost(struct report *r, __u64 lost)
{
	(void)r, (void)lost;
}

static void pf_summary(struct report *r, const struct report_summary *s)
{
	(void)r, (void)s;
}

static void pf_object_end(struct printer *p, __u64 addr, int n, __u64 span_ns, const char *end,
			  const char *end_word)
{
	(void)p, (void)addr, (void)n, (void)span_ns, (void)end, (void)end_word;
}

static void pf_tree(struct printer *p, __u32 dropped)
{
	(void)p, (void)dropped;
}

static void pf_calls(struct printer *p)
{
	(void)p;
}

static unsigned int pf_call_begin(struct printer *p, const struct capture_plan *plan,
				  const struct tree_call *c, int level)
{
	(void)p, (void)plan, (void)c, (void)level;
	return 0;
}

static void pf_call_values_end(struct printer *p, const struct tree_call *c)
{
	(void)p, (void)c;
}

const struct report_ops report_perfetto_ops = {
	.writer_json = true,
	.every_member = true,
	.interval = pf_none,
	.counts_begin = pf_counts_begin,
	.count = pf_count,
	.hist = pf_hist,
	.stats_begin = pf_stats_begin,
	.stats = pf_stats,
	.info = pf_info,
	.type = pf_type,
	.usdt = pf_usdt,
	.lost = pf_lost,
	.summary = pf_summary,
	.event_begin = pf_event_begin,
	.values_end = pf_values_end,
	.event_end = pf_event_end,
	.object_end = pf_object_end,
	/* Values as -j writes them. */
	.character = report_json__character,
	.int128 = report_json__int128,
	.func_ptr = report_json__addr_sym,
	.addr_sym = report_json__addr_sym,
	.error_code = report_json__error_code,
	.failure = report_json__failure,
	.pointer_to = report_json__pointer_to,
	.beside = report_json__beside,
	.tree_begin = pf_tree,
	.tree_end = pf_tree,
	.calls_begin = pf_calls,
	.calls_end = pf_calls,
	.call_begin = pf_call_begin,
	.call_values_end = pf_call_values_end,
	.call_end = pf_calls,
};
