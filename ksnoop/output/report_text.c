// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report as text: ksnoop's tables and C declarations on stdout, the
 * notices one line on stderr (log.c); and --folded, text but for its
 * --count rows.  Everything goes through the writer's buffer and the text
 * escaper; a record goes to the FILE in one write when it is complete.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "escape.h"
#include "log.h"
#include "report.h"
#include "signature.h"
#include "usdt_note.h"

static struct obuf *ob(struct report *r)
{
	return writer__obuf(&r->wr);
}

/* Our own words and numbers (nothing from outside: that is escaped). */
static void __attribute__((format(printf, 2, 3))) put(struct report *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		obuf__write(ob(r), buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* A name from BTF, ELF or a path. */
static void put_escaped(struct report *r, const char *s)
{
	text_escape(ob(r), s, strlen(s));
}

/* --interval: each report starts with the wall-clock time it closes at ("12:00:03"). */
static void text_interval(struct report *r)
{
	time_t now = time(NULL);
	struct tm tm;
	char buf[16];

	if (!localtime_r(&now, &tm))
		return;
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	put(r, "%s%s\n", r->interval > 1 ? "\n" : "", buf);
	writer__flush(&r->wr);
}

/* --by's key column is this wide (a comm's 15 characters and a space). */
#define KEY_COLUMN	16

static void text_counts_begin(struct report *r, bool stacks, const char *by)
{
	char col[KEY_COLUMN + 1];

	if (!stacks && by) {
		/* --by's name is the user's own text: escaped, then cut to the column. */
		snprintf(col, sizeof(col), "%s", by);
		put(r, "%12s  ", "CALLS");
		put_escaped(r, col);
		put(r, "%*s  %s\n", (int)(KEY_COLUMN - strlen(col)), "", "FUNCTION");
	} else if (!stacks) {
		put(r, "%12s  %s\n", "CALLS", "FUNCTION");
	}
	writer__flush(&r->wr);
}

/* A --by flow: the tuple as ':tuple' prints it, and why if something is unknown. */
static void key_tuple(const struct tuple *t, char *buf, size_t size)
{
	size_t n;

	tuple__format(t, buf, size);
	n = strlen(buf);
	if (t->why && t->ethertype)
		snprintf(buf + n, size - n, " (%s: ethertype 0x%04x)", t->why, t->ethertype);
	else if (t->why && t->sock_family)
		snprintf(buf + n, size - n, " (%s: family %d)", t->why, t->sock_family);
	else if (t->why)
		snprintf(buf + n, size - n, " (%s)", t->why);
}

/* A --by key: a string escaped, a number or a flow; returns its width. */
static size_t put_key(struct report *r, const struct report_key *k)
{
	char num[TUPLE_TEXT_MAX + 64], *esc = NULL;
	const char *s = num;
	size_t n;

	if (k->is_tuple)
		key_tuple(&k->tuple, num, sizeof(num));
	else if (k->is_str)
		s = (esc = text_escaped_dup(k->str)) ? esc : "?";
	else if (k->is_signed)
		snprintf(num, sizeof(num), "%lld", (long long)k->num);
	else
		snprintf(num, sizeof(num), "%llu", (unsigned long long)k->num);
	n = strlen(s);
	obuf__write(ob(r), s, n);
	free(esc);
	return n;
}

static void text_count(struct report *r, const struct report_count *c)
{
	size_t w;
	int i;

	if (!c->stacks && !c->ustacks) {
		put(r, "%12llu  ", (unsigned long long)c->count);
		if (c->key) {
			w = put_key(r, c->key);
			put(r, "%*s  ", w < KEY_COLUMN ? (int)(KEY_COLUMN - w) : 0, "");
		}
		put_escaped(r, c->func);
		put(r, "\n");
	} else {
		put_escaped(r, c->func);
		put(r, ": %llu call%s\n", (unsigned long long)c->count, c->count == 1 ? "" : "s");
		if (c->stacks && c->no_stack)
			put(r, "    /* stack not taken (stacks map full) */\n");
		for (i = 0; i < c->nframes; i++) {
			put(r, "    ");
			put_escaped(r, c->frames[i]);
			put(r, "\n");
		}
		/* --ustack: the user stack below the kernel's, as perf prints them. */
		if (c->ustacks)
			put(r, "    -- pid %u, user stack:%s\n", c->pid, c->nuframes ? "" : " none");
		for (i = 0; c->ustacks && i < c->nuframes; i++) {
			put(r, "    ");
			put_escaped(r, c->uframes[i]);
			put(r, "\n");
		}
	}
	writer__flush(&r->wr);
}

/*
 * A user frame as folded stacks name it: "main+0x6d (/usr/bin/app)" ->
 * "main"; one without a symbol, "0x7f6d0a60d24a (/usr/lib/libc.so.6+0x2724a)",
 * by its object's name and offset, the same in every process:
 * "libc.so.6+0x2724a".
 */
static void folded_user_frame(const char *frame, char *sym, size_t sz)
{
	const char *obj = strstr(frame, " (");
	const char *base;

	if (strncmp(frame, "0x", 2) || !obj) {
		snprintf(sym, sz, "%s", frame);
		sym[strcspn(sym, "+ ")] = 0;
		return;
	}
	base = strrchr(obj + 2, '/');
	snprintf(sym, sz, "%s", base ? base + 1 : obj + 2);
	sym[strcspn(sym, ")")] = 0;
}

/*
 * One frame of a folded stack, escaped, a ';' in it (a user symbol, a
 * path, a recording's kallsyms name: anyone's to choose) as ',', as
 * --oneline prints it: ';' only ever separates frames.
 */
static void put_folded_frame(struct report *r, const char *sym)
{
	size_t n;

	for (;;) {
		n = strcspn(sym, ";");
		text_escape(ob(r), sym, n);
		if (!sym[n])
			return;
		obuf__putc(ob(r), ',');
		sym += n + 1;
	}
}

/*
 * "outermost;...;innermost;FUNC COUNT": the function itself is the leaf;
 * --ustack: the user frames first, below the kernel's (as perf folds them).
 */
static void folded_count(struct report *r, const struct report_count *c)
{
	char sym[192];
	int i;

	for (i = c->ustacks ? c->nuframes : 0; i-- > 0;) {
		folded_user_frame(c->uframes[i], sym, sizeof(sym));
		put_folded_frame(r, sym);
		put(r, ";");
	}
	for (i = c->stacks ? c->nframes : 0; i-- > 0;) {
		/* Folded stacks name functions only: "tcp_connect+0x1c [mod]" -> "tcp_connect". */
		snprintf(sym, sizeof(sym), "%s", c->frames[i]);
		sym[strcspn(sym, "+ ")] = 0;
		/* kprobes start at the function itself; fentry and tracepoints one frame out. */
		if (i == 0 && strcmp(sym, c->func) == 0)
			break;
		put_folded_frame(r, sym);
		put(r, ";");
	}
	put_folded_frame(r, c->func);
	put(r, " %llu\n", (unsigned long long)c->count);
	writer__flush(&r->wr);
}

#define HIST_BAR	52

static void hist_row(struct report *r, const struct hist_scale *scale, __s32 bucket,
		     __u64 count, __u64 most)
{
	int w = most ? (int)((count * HIST_BAR + most - 1) / most) : 0;
	char label[64], bar[HIST_BAR + 1];

	hist__label(scale, bucket, label, sizeof(label));
	memset(bar, ' ', HIST_BAR);
	memset(bar, '@', w);
	bar[HIST_BAR] = 0;
	put(r, "%-24s %10llu |%s|\n", label, (unsigned long long)count, bar);
}

/*
 * Under the bars: "p50 < 64  p90 < 128  p99 < 128  max = 100": bucket
 * bounds, and the largest value (exact where BPF kept it).
 */
static void hist_percentiles(struct report *r, const struct report_hist *h)
{
	static const unsigned int ps[] = { 50, 90, 99 };
	char v[48];
	size_t i;

	if (!h->nbuckets)
		return;
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		size_t k = hist__percentile(h->buckets, h->nbuckets, h->total, ps[i]);

		hist__bound_str(&h->scale, h->buckets[k].bucket, v, sizeof(v));
		put(r, "p%u %s  ", ps[i], v);
	}
	if (h->has_max) {
		struct hist_range rg;

		hist__range(&h->scale, h->buckets[h->nbuckets - 1].bucket, &rg);
		hist__value_str(&h->scale, rg.is_signed, h->max, v, sizeof(v));
		put(r, "max = %s\n", v);
		return;
	}
	hist__bound_str(&h->scale, h->buckets[h->nbuckets - 1].bucket, v, sizeof(v));
	put(r, "max %s\n", v);
}

/* As bpftrace and bcc draw them: range, count, bar; then the percentiles. */
static void text_hist(struct report *r, const struct report_hist *h)
{
	const struct report_bucket *b = h->buckets;
	__u64 most = 0;
	size_t k;

	for (k = 0; k < h->nbuckets; k++)
		if (b[k].count > most)
			most = b[k].count;
	put_escaped(r, h->func);
	if (h->key) {
		put(r, " [");
		put_escaped(r, h->key->by);
		put(r, " ");
		put_key(r, h->key);
		put(r, "]");
	}
	put(r, ": ");
	put_escaped(r, h->value_label);
	put(r, " (%llu call%s)\n", (unsigned long long)h->total, h->total == 1 ? "" : "s");
	for (k = 0; k < h->nbuckets; k++) {
		/* Empty buckets between two full ones show, as in bpftrace. */
		if (k > 0 && b[k - 1].bucket >= 0)
			for (__s32 e = b[k - 1].bucket + 1; e < b[k].bucket; e++)
				hist_row(r, &h->scale, e, 0, most);
		hist_row(r, &h->scale, b[k].bucket, b[k].count, most);
	}
	hist_percentiles(r, h);
	put(r, "\n");
	writer__flush(&r->wr);
}

static void text_info(struct report *r, const struct report_info *info)
{
	if (info->show_module && info->module) {
		put_escaped(r, info->module);
		put(r, ": ");
	}
	put_escaped(r, info->decl);
	/* Which of several: "NAME@ADDRESS [MODULE], 2 of 3", as a spec picks it. */
	if (info->ninstances) {
		put(r, "; /* ");
		put_escaped(r, info->sig->name);
		/* kallsyms shows addresses to root (kptr_restrict) only. */
		if (info->sig->addr)
			put(r, "@%llx", (unsigned long long)info->sig->addr);
		else
			put(r, "@? (address hidden)");
		if (info->module) {
			put(r, " [");
			put_escaped(r, info->module);
			put(r, "]");
		}
		put(r, ", %d of %d", info->instance + 1, info->ninstances);
		put(r, info->why ? "; cannot be traced: " : " */\n");
		if (info->why) {
			put_escaped(r, info->why);
			put(r, " */\n");
		}
	} else if (info->why) {
		put(r, "; /* cannot be traced: ");
		put_escaped(r, info->why);
		put(r, " */\n");
	} else {
		put(r, ";\n");
	}
	writer__flush(&r->wr);
}

/*
 * After the arguments, those libbpf cannot read, and why: "  # not
 * readable by libbpf: arg1, a 16-byte value (...)".  Appends to ARGS at N.
 */
static size_t unreadable_args(const struct usdt_probe *pr, char *args, size_t sz, size_t n)
{
	const char *sep = "  # not readable by libbpf: ";
	char buf[USDT_WHY_MAX];
	const char *why;
	int j;

	for (j = 0; j < pr->nargs && n < sz; j++) {
		if (!(why = usdt__arg_unreadable(&pr->args[j], buf)))
			continue;
		n += snprintf(args + n, sz - n, "%sarg%d, %s", sep, j, why);
		sep = "; ";
	}
	return n;
}

/* One row; every name comes from the file's notes, so escaped. */
static void usdt_row(struct report *r, const struct usdt_probe *pr)
{
	char args[USDT_MAX_ARGS * (64 + USDT_WHY_MAX)], sema[24] = "-";
	char *prov = text_escaped_dup(pr->provider), *name = text_escaped_dup(pr->name);
	char *eargs;
	size_t n = 0;
	int j;

	args[0] = 0;
	/* s32, u8; u128 for a 16-byte struct, f64 for a double. */
	for (j = 0; j < pr->nargs && n < sizeof(args); j++)
		n += snprintf(args + n, sizeof(args) - n, "%sarg%d:%c%d@%s", j ? " " : "", j,
			      pr->args[j].is_float ? 'f' : pr->args[j].is_signed ? 's' : 'u',
			      8 * pr->args[j].size, pr->args[j].loc);
	unreadable_args(pr, args, sizeof(args), n);
	eargs = text_escaped_dup(args);
	if (pr->sema)
		snprintf(sema, sizeof(sema), "0x%016llx", (unsigned long long)pr->sema);
	if (prov && name && eargs) {
		put(r, "%-16s %-24s 0x%016llx %-18s ", prov, name, (unsigned long long)pr->pc, sema);
		obuf__write(ob(r), eargs, strlen(eargs));
		put(r, "\n");
	}
	free(prov);
	free(name);
	free(eargs);
}

static void text_usdt(struct report *r, const struct usdt_file *f, bool titled)
{
	int i;

	if (!f->nprobes)
		return;
	/* The header comes with the first probe, never with an error. */
	if (!r->usdt_header) {
		put(r, "%-16s %-24s %-18s %-18s %s\n", "PROVIDER", "NAME", "ADDRESS", "SEMAPHORE",
		    "ARGS");
		r->usdt_header = true;
	}
	if (titled) {
		put(r, "# ");
		put_escaped(r, f->path);
		put(r, "\n");
	}
	for (i = 0; i < f->nprobes; i++)
		usdt_row(r, &f->probes[i]);
	writer__flush(&r->wr);
}

static void text_lost(struct report *r, __u64 lost)
{
	(void)r;
	log_warn("%llu events lost so far (ring buffer full; try --buffer)",
		 (unsigned long long)lost);
}

/* Appends ", N WHAT" to BUF when N is not 0. */
static size_t add_total(char *buf, size_t sz, size_t n, __u64 v, const char *what)
{
	if (v && n < sz)
		n += snprintf(buf + n, sz - n, ", %llu %s", (unsigned long long)v, what);
	return n;
}

/* One line on stderr: what was printed (or counted), then what was not, and why. */
static void text_summary(struct report *r, const struct report_summary *s)
{
	char buf[512];
	size_t n;

	(void)r;
	if (s->counting)
		n = snprintf(buf, sizeof(buf), "%llu calls counted", (unsigned long long)s->counted);
	else
		n = snprintf(buf, sizeof(buf), "%llu events printed, %llu lost",
			     (unsigned long long)s->printed, (unsigned long long)s->lost);
	n = add_total(buf, sizeof(buf), n, s->unprinted, "captured but not printed (stopped first)");
	n = add_total(buf, sizeof(buf), n, s->count_full, "calls not counted (counts map full)");
	n = add_total(buf, sizeof(buf), n, s->hist_unread, "calls whose value could not be read");
	n = add_total(buf, sizeof(buf), n, s->stack_lost, "stacks not taken (stacks map full)");
	n = add_total(buf, sizeof(buf), n, s->stash_full, "calls not followed (stash full)");
	n = add_total(buf, sizeof(buf), n, s->tree_dropped, "inner calls not recorded in trees");
	n = add_total(buf, sizeof(buf), n, s->tree_exited, "trees dropped (their task exited inside)");
	n = add_total(buf, sizeof(buf), n, s->tree_exec,
		      "trees dropped (their thread called exec inside)");
	n = add_total(buf, sizeof(buf), n, s->tree_no_room,
		      "trees not started (too many tasks in trees at once)");
	n = add_total(buf, sizeof(buf), n, s->missed,
		  "calls missed (the probe fired inside a BPF program)");
	n = add_total(buf, sizeof(buf), n, s->own, "of ksnoop's own calls left out");
	if (s->tracking && n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - n,
			      "; %llu objects tracked, %llu freed, %llu still tracked",
			      (unsigned long long)s->track_added, (unsigned long long)s->track_freed,
			      (unsigned long long)s->track_alive);
	n = add_total(buf, sizeof(buf), n, s->track_evicted,
		      "evicted unfreed (--track-max full)");
	add_total(buf, sizeof(buf), n, s->track_failed, "not tracked (set full)");
	log_note("%s", buf);
}

const struct report_ops report_text_ops = {
	.interval = text_interval,
	.counts_begin = text_counts_begin,
	.count = text_count,
	.hist = text_hist,
	.info = text_info,
	.usdt = text_usdt,
	.lost = text_lost,
	.summary = text_summary,
};

static void folded_none(struct report *r)
{
	(void)r;
}

static void folded_counts_begin(struct report *r, bool stacks, const char *by)
{
	(void)r;
	(void)stacks;
	(void)by;
}

/* Flame-graph tools read nothing but the rows: no header, no times. */
const struct report_ops report_folded_ops = {
	.interval = folded_none,
	.counts_begin = folded_counts_begin,
	.count = folded_count,
	.hist = text_hist,
	.info = text_info,
	.usdt = text_usdt,
	.lost = text_lost,
	.summary = text_summary,
};
