// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report as JSON (-j): one object a line on stdout, "type" its first
 * key (report.h lists the types), notices included, so that stdout is
 * one NDJSON stream a script reads whole.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "btf_util.h"
#include "print.h"
#include "report.h"
#include "report_json.h"
#include "signature.h"
#include "usdt_note.h"

/* {"type":TYPE, ...: the record's other keys follow. */
static struct writer *begin(struct report *r, const char *type)
{
	struct writer *w = &r->wr;

	writer__begin_object(w, WRITER_STRUCT, 0);
	writer__key(w, "type");
	writer__name(w, type);
	return w;
}

/* ...} and the line's end, to the FILE in one write. */
static void end(struct writer *w)
{
	writer__end_object(w);
	obuf__putc(writer__obuf(w), '\n');
	writer__flush(w);
}

static void key_uint(struct writer *w, const char *key, __u64 v)
{
	writer__key(w, key);
	writer__uint(w, v);
}

static void key_name(struct writer *w, const char *key, const char *s)
{
	writer__key(w, key);
	if (s)
		writer__name(w, s);
	else
		writer__null(w, NULL);
}

/* The period a report closes: JSON rows carry it (text prints the time first). */
static void json_interval(struct report *r)
{
	(void)r;
}

static void json_counts_begin(struct report *r, bool stacks, const char *const *by, int nby)
{
	(void)r;
	(void)stacks;
	(void)by;
	(void)nby;
}

static void period(struct report *r, struct writer *w)
{
	if (!r->interval)
		return;
	key_uint(w, "interval", r->interval);
	key_uint(w, "time_ns", r->interval_ns);
}

/* A key's value: STRING|NUMBER|TUPLE (the object ':tuple' prints). */
static void key_value(struct writer *w, const struct report_key *k)
{
	if (k->is_tuple)
		tuple__write(w, &k->tuple, 0);
	else if (k->is_str)
		writer__name(w, k->str);
	else if (k->is_signed)
		writer__int(w, (__s64)k->num);
	else
		writer__uint(w, k->num);
}

/*
 * --by: "by":NAME,"key":VALUE[,"key_name":NAME] for one part (the name an
 * event prints beside a number: an enumerator, an errno's); for several,
 * "by":"NAME,NAME","key":{NAME:VALUE[,NAME_name:NAME],...}, in their order.
 */
static void by_key(struct writer *w, const struct report_key *k, int n)
{
	char by[KSNOOP_BY_PARTS * 256 + 8], name[256 + 8];
	size_t len = 0;
	int i;

	if (!k || n <= 0)
		return;
	if (n == 1) {
		key_name(w, "by", k->by);
		writer__key(w, "key");
		key_value(w, k);
		if (k->name && !k->is_tuple && !k->is_str)
			key_name(w, "key_name", k->name);
		return;
	}
	for (i = 0; i < n && len < sizeof(by); i++)
		len += snprintf(by + len, sizeof(by) - len, "%s%s", i ? "," : "", k[i].by);
	key_name(w, "by", by);
	writer__key(w, "key");
	writer__begin_object(w, WRITER_STRUCT, 0);
	for (i = 0; i < n; i++) {
		writer__key(w, k[i].by);
		key_value(w, &k[i]);
		if (k[i].name && !k[i].is_tuple && !k[i].is_str) {
			snprintf(name, sizeof(name), "%s_name", k[i].by);
			key_name(w, name, k[i].name);
		}
	}
	writer__end_object(w);
}

/* {"type":"count",["interval","time_ns",]"func",["by","key",]["stack":[...]|null,]"count"} */
static void json_count(struct report *r, const struct report_count *c)
{
	struct writer *w = begin(r, "count");
	int i;

	period(r, w);
	key_name(w, "func", c->func);
	by_key(w, c->key, c->nkeys);
	if (c->stacks) {
		writer__key(w, "stack");
		if (c->no_stack) {
			writer__null(w, NULL);
		} else {
			writer__begin_array(w, WRITER_STRUCT, 0);
			for (i = 0; i < c->nframes; i++)
				writer__name(w, c->frames[i]);
			writer__end_array(w);
		}
	}
	/* --ustack: "pid":N,"ustack":[...], the process's frames, innermost first. */
	if (c->ustacks) {
		key_uint(w, "pid", c->pid);
		writer__key(w, "ustack");
		writer__begin_array(w, WRITER_STRUCT, 0);
		for (i = 0; i < c->nuframes; i++)
			writer__name(w, c->uframes[i]);
		writer__end_array(w);
	}
	key_uint(w, "count", c->count);
	end(w);
}

/* A bucket's bound: a number, or null where there is none (unbounded). */
static void bound(struct writer *w, const char *key, bool inf, bool is_signed, __u64 v)
{
	writer__key(w, key);
	if (inf)
		writer__null(w, NULL);
	else if (is_signed)
		writer__int(w, (__s64)v);
	else
		writer__uint(w, v);
}

/*
 * "p50", "p90", "p99": the largest value each one's bucket holds (null:
 * no bound); "max": the largest value counted, or the top bucket's bound.
 */
static void percentiles(struct writer *w, const struct report_hist *h)
{
	static const unsigned int ps[] = { 50, 90, 99 };
	struct hist_range rg;
	char key[8];
	size_t i, k;

	for (i = 0; i <= sizeof(ps) / sizeof(ps[0]); i++) {
		if (i < sizeof(ps) / sizeof(ps[0])) {
			snprintf(key, sizeof(key), "p%u", ps[i]);
			k = hist__percentile(h->buckets, h->nbuckets, h->total, ps[i]);
		} else {
			snprintf(key, sizeof(key), "max");
			k = h->nbuckets - 1;
		}
		hist__range(&h->scale, h->buckets[k].bucket, &rg);
		if (i == sizeof(ps) / sizeof(ps[0]) && h->has_max)
			bound(w, key, false, rg.is_signed, h->max);
		else
			bound(w, key, rg.hi_inf, rg.is_signed, rg.hi);
	}
}

/*
 * {"type":"hist",...,"func",["by","key",]"value","count",
 * "buckets":[{"min","max","count"}],"p50","p90","p99","max"}
 */
static void json_hist(struct report *r, const struct report_hist *h)
{
	struct writer *w = begin(r, "hist");
	struct hist_range rg;
	size_t k;

	period(r, w);
	key_name(w, "func", h->func);
	by_key(w, h->key, h->nkeys);
	key_name(w, "value", h->value_name);
	key_uint(w, "count", h->total);
	writer__key(w, "buckets");
	writer__begin_array(w, WRITER_STRUCT, 0);
	for (k = 0; k < h->nbuckets; k++) {
		hist__range(&h->scale, h->buckets[k].bucket, &rg);
		writer__begin_object(w, WRITER_STRUCT, 0);
		bound(w, "min", rg.lo_inf, rg.is_signed, rg.lo);
		bound(w, "max", rg.hi_inf, rg.is_signed, rg.hi);
		key_uint(w, "count", h->buckets[k].count);
		writer__end_object(w);
	}
	writer__end_array(w);
	if (h->nbuckets)
		percentiles(w, h);
	end(w);
}

static void json_stats_begin(struct report *r, const char *const *by, int nby)
{
	(void)r;
	(void)by;
	(void)nby;
}

/* A number as the values are: signed or not. */
static void key_num(struct writer *w, const char *key, bool is_signed, __u64 v)
{
	bound(w, key, false, is_signed, v);
}

/* {"type":"stats",...,"func",["by","key",]"value","count","sum","min","max","avg"} */
static void json_stats(struct report *r, const struct report_stats *s)
{
	struct writer *w = begin(r, "stats");
	char avg[64];
	int n;

	period(r, w);
	key_name(w, "func", s->func);
	by_key(w, s->key, s->nkeys);
	key_name(w, "value", s->value_name);
	key_uint(w, "count", s->count);
	key_num(w, "sum", s->is_signed, s->sum);
	key_num(w, "min", s->is_signed, s->min);
	key_num(w, "max", s->is_signed, s->max);
	/*
	 * A sum is below 2^64: a plain decimal, at most three places, no
	 * trailing zeros (the values are integers: 4096, 50.5, -0.5).
	 */
	n = snprintf(avg, sizeof(avg), "%.3f", report_stats_avg(s));
	while (n > 0 && avg[n - 1] == '0')
		avg[--n] = 0;
	if (n > 0 && avg[n - 1] == '.')
		avg[--n] = 0;
	writer__key(w, "avg");
	writer__raw(w, avg, avg);
	end(w);
}

/* Type ID as C spells it ("struct sk_buff *"). */
static void key_type(struct writer *w, const char *key, const struct signature *sig, __u32 id)
{
	char buf[512];

	key_name(w, key, btfu_type_str(sig->btf, id, NULL, buf, sizeof(buf)));
}

/*
 * {"type":"info","kind":"func"|"tracepoint","name","module","decl",
 * "return","params":[{"name","type"}],"traceable","why"}
 */
/* {"type":"info","kind":"type","name","size","members":[{"decl","depth","offset","size"[,"bit_offset","bit_size"]}...]} */
static void json_type(struct report *r, const struct report_type *t)
{
	struct writer *w = begin(r, "info");
	int i;

	key_name(w, "kind", "type");
	key_name(w, "name", t->name);
	writer__key(w, "size");
	writer__int(w, t->size);
	writer__key(w, "members");
	writer__begin_array(w, WRITER_STRUCT, 0);
	for (i = 0; i < t->nmembers; i++) {
		const struct report_member *m = &t->members[i];

		writer__begin_object(w, WRITER_STRUCT, 0);
		key_name(w, "decl", m->decl);
		key_uint(w, "depth", m->depth);
		key_uint(w, "offset", m->bit_off / 8);
		writer__key(w, "size");
		writer__int(w, m->size);
		if (m->bit_size) {
			key_uint(w, "bit_offset", m->bit_off);
			key_uint(w, "bit_size", m->bit_size);
		}
		writer__end_object(w);
	}
	writer__end_array(w);
	writer__key(w, "cut");
	writer__bool(w, t->cut);
	end(w);
}

static void json_info(struct report *r, const struct report_info *info)
{
	const struct signature *sig = info->sig;
	struct writer *w = begin(r, "info");
	int i;

	key_name(w, "kind", info->kind == REPORT_INFO_TP ? "tracepoint" : "func");
	key_name(w, "name", sig->name);
	if (info->kind == REPORT_INFO_FUNC)
		key_name(w, "module", info->module);
	if (info->ninstances) {
		char at[24];

		/* A string: JSON numbers past 2^53 lose digits in most readers (jq). */
		snprintf(at, sizeof(at), "0x%llx", (unsigned long long)sig->addr);
		/* null: kallsyms hides addresses but from root. */
		key_name(w, "addr", sig->addr ? at : NULL);
		writer__key(w, "instances");
		writer__uint(w, info->ninstances);
	}
	key_name(w, "decl", info->decl);
	if (info->kind == REPORT_INFO_FUNC) {
		if (sig->btf && sig->ret_type)
			key_type(w, "return", sig, sig->ret_type);
		else
			key_name(w, "return", "void");
	}
	writer__key(w, "params");
	writer__begin_array(w, WRITER_STRUCT, 0);
	for (i = 0; sig->btf && i < sig->nparams; i++) {
		writer__begin_object(w, WRITER_STRUCT, 0);
		key_name(w, "name", sig->params[i].name && *sig->params[i].name ?
				    sig->params[i].name : signature__arg_name(i));
		key_type(w, "type", sig, sig->params[i].type_id);
		writer__end_object(w);
	}
	writer__end_array(w);
	if (info->kind == REPORT_INFO_FUNC) {
		writer__key(w, "variadic");
		writer__bool(w, sig->variadic);
	}
	writer__key(w, "traceable");
	writer__bool(w, !info->why);
	key_name(w, "why", info->why);
	end(w);
}

/* One probe's argument: how it is passed, and why libbpf cannot read it (or null). */
static void usdt_arg(struct writer *w, const struct usdt_arg *a)
{
	char buf[USDT_WHY_MAX];

	writer__begin_object(w, WRITER_STRUCT, 0);
	writer__key(w, "size");
	writer__int(w, a->size);
	writer__key(w, "signed");
	writer__bool(w, a->is_signed);
	writer__key(w, "float");
	writer__bool(w, a->is_float);
	key_name(w, "location", a->loc);
	key_name(w, "unreadable", usdt__arg_unreadable(a, buf));
	writer__end_object(w);
}

/* {"type":"info","kind":"usdt","binary","provider","name","address","semaphore","args":[...]} */
static void json_usdt(struct report *r, const struct usdt_file *f, bool titled)
{
	int i, j;

	(void)titled;
	for (i = 0; i < f->nprobes; i++) {
		const struct usdt_probe *pr = &f->probes[i];
		struct writer *w = begin(r, "info");

		key_name(w, "kind", "usdt");
		key_name(w, "binary", f->path);
		key_name(w, "provider", pr->provider);
		key_name(w, "name", pr->name);
		writer__key(w, "address");
		writer__hex(w, pr->pc);
		writer__key(w, "semaphore");
		if (pr->sema)
			writer__hex(w, pr->sema);
		else
			writer__null(w, NULL);
		writer__key(w, "args");
		writer__begin_array(w, WRITER_STRUCT, 0);
		for (j = 0; j < pr->nargs; j++)
			usdt_arg(w, &pr->args[j]);
		writer__end_array(w);
		end(w);
	}
}

/* {"type":"lost","lost":N}: events lost so far, the ring buffer full. */
static void json_lost(struct report *r, __u64 lost)
{
	struct writer *w = begin(r, "lost");

	key_uint(w, "lost", lost);
	end(w);
}

/*
 * Every total, 0 included, so a script can rely on the keys (--tree's with
 * --tree); ksnoop's own calls left out, and kprobe.session's entries kept
 * in the stash, only when there were some (a recording's report cannot
 * know them).
 */
static void json_summary(struct report *r, const struct report_summary *s)
{
	struct writer *w = begin(r, "summary");

	if (s->counting) {
		key_uint(w, "counted", s->counted);
	} else {
		key_uint(w, "printed", s->printed);
		key_uint(w, "lost", s->lost);
	}
	key_uint(w, "not_printed", s->unprinted);
	key_uint(w, "not_counted", s->count_full);
	key_uint(w, "unreadable", s->hist_unread);
	key_uint(w, "stacks_not_taken", s->stack_lost);
	key_uint(w, "not_followed", s->stash_full);
	key_uint(w, "missed", s->missed);
	if (s->own)
		key_uint(w, "own_left_out", s->own);
	if (s->session_stashed)
		key_uint(w, "session_in_stash", s->session_stashed);
	if (s->pairing) {
		key_uint(w, "starts_not_paired", s->pair_full);
		key_uint(w, "key_unreadable", s->pair_unread);
	}
	if (s->tree) {
		key_uint(w, "tree_calls_not_recorded", s->tree_dropped);
		key_uint(w, "trees_task_exited", s->tree_exited);
		key_uint(w, "trees_thread_exec", s->tree_exec);
		key_uint(w, "trees_not_started", s->tree_no_room);
	}
	if (s->tracking) {
		key_uint(w, "objects_tracked", s->track_added);
		key_uint(w, "objects_freed", s->track_freed);
		key_uint(w, "objects_alive", s->track_alive);
		key_uint(w, "objects_evicted", s->track_evicted);
		key_uint(w, "objects_not_tracked", s->track_failed);
	}
	end(w);
}

/* ---- events: print.c's walk, as JSON ---- */

static void key_hex_name(struct writer *w, const char *key, __u64 v)
{
	char at[24];

	/* A string: JSON numbers past 2^53 lose digits in most readers (jq). */
	snprintf(at, sizeof(at), "0x%llx", (unsigned long long)v);
	key_name(w, key, at);
}

static void key_true(struct writer *w, const char *key)
{
	writer__key(w, key);
	writer__bool(w, true);
}

/* --track: the object, why it was reported, and with --group the time since its first event. */
static void event_object(struct printer *p, const struct ksnoop_event *ev)
{
	struct writer *w = &p->wr;

	key_hex_name(w, "object", ev->object);
	if (ev->flags & KSNOOP_EV_TRACKED)
		key_true(w, "tracked");
	if (ev->flags & KSNOOP_EV_FREED)
		key_true(w, "freed");
	if (ev->flags & KSNOOP_EV_CLONED)
		key_true(w, "clone");
	if (p->group_start_ns && ev->time_ns >= p->group_start_ns)
		key_uint(w, "since_first_ns", ev->time_ns - p->group_start_ns);
}

/* {"type":"event","time_ns":...,"values": (the values' object follows) */
static void json_event_begin(struct printer *p, const struct capture_plan *plan,
			     const struct ksnoop_event *ev, const char *comm)
{
	struct writer *w = &p->wr;

	writer__begin_object(w, WRITER_STRUCT, 0);
	writer__key(w, "type");
	writer__name(w, "event");
	key_uint(w, "time_ns", ev->time_ns);
	if (p->opts.host) {	/* several recordings: whose, and when on the wall clock */
		key_name(w, "host", p->opts.host);
		key_num(w, "wall_ns", true, ev->time_ns + p->opts.clock_offset_ns);
	}
	key_uint(w, "cpu", ev->cpu);
	key_uint(w, "pid", ev->tgid);
	key_uint(w, "tid", ev->tid);
	if (ev->flags & KSNOOP_EV_CGROUP)
		key_uint(w, "cgroup", ev->object);
	key_name(w, "comm", comm);
	key_name(w, "func", plan->sig.name);
	if (plan->sig.addr)
		key_hex_name(w, "addr", plan->sig.addr);
	key_name(w, "kind", ev->kind == KSNOOP_ENTRY ? "entry" : "return");
	if (ev->flags & KSNOOP_EV_DURATION)
		key_uint(w, "duration_ns", ev->duration_ns);
	if (ev->flags & KSNOOP_EV_OBJECT)
		event_object(p, ev);
	writer__key(w, "values");
}

/* "stack":[...] and "ustack":[...] beside "values". */
static void json_values_end(struct printer *p, const struct ksnoop_value *stack,
			    const struct ksnoop_value *ustack, bool user, __u32 pid)
{
	writer__end_object(&p->wr);
	if (stack)
		printer__stack(p, "stack", stack, user, pid);
	if (ustack)
		printer__stack(p, "ustack", ustack, true, pid);
}

/* "read_at_return": the entry values read again at the return; then the line's end. */
static void json_event_end(struct printer *p, const struct capture_plan *plan, const void *rec,
			   int kind)
{
	const struct ksnoop_side_plan *side = &plan->bpf.side[kind];
	struct writer *w = &p->wr;
	int i, n = 0;

	for (i = 0; i < plan->nvalues[kind]; i++) {
		const struct ksnoop_value *vh =
			(const void *)((const char *)rec + side->values[i].rec_off);

		if (!(vh->status & KSNOOP_ST_AT_RETURN))
			continue;
		if (!n++) {
			writer__key(w, "read_at_return");
			writer__begin_array(w, WRITER_STRUCT, 0);
		}
		writer__name(w, plan->values[kind][i].text);
	}
	if (n)
		writer__end_array(w);
	writer__end_object(w);
	obuf__putc(writer__obuf(w), '\n');
}

/* {"type":"object","object":"0x...","events":N,"span_ns":N,"end":END_WORD} */
static void json_object_end(struct printer *p, __u64 addr, int n, __u64 span_ns,
			    const char *end, const char *end_word)
{
	struct writer *w = &p->wr;

	(void)end;
	writer__begin_object(w, WRITER_STRUCT, 0);
	writer__key(w, "type");
	writer__name(w, "object");
	key_hex_name(w, "object", addr);
	key_uint(w, "events", n);
	key_uint(w, "span_ns", span_ns);
	key_name(w, "end", end_word);
	writer__end_object(w);
	obuf__putc(writer__obuf(w), '\n');
}

/* A char is a number. */
void report_json__character(struct writer *w, unsigned char c)
{
	writer__int(w, (signed char)c);
}

/* __int128: "0x..." hex, most significant half first. */
void report_json__int128(struct writer *w, __u64 hi, __u64 lo)
{
	char quoted[44];

	snprintf(quoted, sizeof(quoted), "\"0x%016llx%016llx\"", (unsigned long long)hi,
		 (unsigned long long)lo);
	writer__raw(w, NULL, quoted);
}

/* {"addr":"0x...","sym":"..."} */
void report_json__addr_sym(struct writer *w, __u64 addr, const char *sym)
{
	writer__begin_object(w, WRITER_STRUCT, 0);
	writer__key(w, "addr");
	writer__hex(w, addr);
	key_name(w, "sym", sym);
	writer__end_object(w);
}

/* -2, or an ERR_PTR's address as a pointer prints; the name goes beside ("NAME_errno"). */
void report_json__error_code(struct writer *w, int err, const char *name, bool ptr)
{
	(void)name;
	if (ptr)
		writer__hex(w, (__u64)-(__s64)err);
	else
		writer__int(w, -err);
}

/* {"error":WHY,"addr":"0x..."} */
void report_json__failure(struct writer *w, const char *why, __u64 addr, bool err_ptr)
{
	(void)err_ptr;
	writer__begin_object(w, WRITER_STRUCT, 0);
	key_name(w, "error", why);
	if (addr) {
		writer__key(w, "addr");
		writer__hex(w, addr);
	}
	writer__end_object(w);
}

/* The bytes alone, as a struct pointer's object. */
void report_json__pointer_to(struct printer *p, __u64 addr, const struct btf *btf,
			    const struct value_desc *vd)
{
	(void)p;
	(void)addr;
	(void)btf;
	(void)vd;
}

/* "NAME_WHAT":VALUE ("ret_errno":"ENOENT", "skb_cut":"work limit") */
void report_json__beside(struct writer *w, const char *name, const char *what, const char *value)
{
	char key[SPEC_MAX_NAME * 2 + 8];

	snprintf(key, sizeof(key), "%s_%s", name, what);
	key_name(w, key, value);
}

static void json_tree_begin(struct printer *p, __u32 dropped)
{
	if (dropped)
		key_uint(&p->wr, "calls_not_recorded", dropped);
}

static void json_tree_end(struct printer *p, __u32 dropped)
{
	(void)dropped;
	writer__end_object(&p->wr);
	obuf__putc(writer__obuf(&p->wr), '\n');
}

static void json_calls_begin(struct printer *p)
{
	writer__key(&p->wr, "calls");
	writer__begin_array(&p->wr, WRITER_STRUCT, 0);
}

static void json_calls_end(struct printer *p)
{
	writer__end_array(&p->wr);
}

/* {"func":...,"duration_ns":...,"values":{...},"first_error":true,"calls":[...]} */
static unsigned int json_call_begin(struct printer *p, const struct capture_plan *plan,
				    const struct tree_call *c, int level)
{
	const struct ksnoop_event *ev = c->rec;
	struct writer *w = &p->wr;

	(void)level;
	writer__begin_object(w, WRITER_STRUCT, 0);
	key_name(w, "func", plan->sig.name);
	if (ev->flags & KSNOOP_EV_DURATION)
		key_uint(w, "duration_ns", ev->duration_ns);
	writer__key(w, "values");
	return 0;
}

static void json_call_values_end(struct printer *p, const struct tree_call *c)
{
	if (c->first_error)
		key_true(&p->wr, "first_error");
}

static void json_call_end(struct printer *p)
{
	writer__end_object(&p->wr);
}

const struct report_ops report_json_ops = {
	.interval = json_interval,
	.counts_begin = json_counts_begin,
	.count = json_count,
	.hist = json_hist,
	.stats_begin = json_stats_begin,
	.stats = json_stats,
	.info = json_info,
	.type = json_type,
	.usdt = json_usdt,
	.lost = json_lost,
	.summary = json_summary,
	.writer_json = true,
	.every_member = true,
	.event_begin = json_event_begin,
	.values_end = json_values_end,
	.event_end = json_event_end,
	.object_end = json_object_end,
	.character = report_json__character,
	.int128 = report_json__int128,
	.func_ptr = report_json__addr_sym,
	.addr_sym = report_json__addr_sym,
	.error_code = report_json__error_code,
	.failure = report_json__failure,
	.pointer_to = report_json__pointer_to,
	.beside = report_json__beside,
	.tree_begin = json_tree_begin,
	.tree_end = json_tree_end,
	.calls_begin = json_calls_begin,
	.calls_end = json_calls_end,
	.call_begin = json_call_begin,
	.call_values_end = json_call_values_end,
	.call_end = json_call_end,
};
