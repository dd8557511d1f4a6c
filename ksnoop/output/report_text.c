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
#include "btf_util.h"
#include "duration.h"
#include "escape.h"
#include "log.h"
#include "print.h"
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

/* --by's names, a column each in the order given. */
static void key_columns(struct report *r, const char *const *by, int nby)
{
	char col[KEY_COLUMN + 1];
	int i;

	for (i = 0; i < nby; i++) {
		/* --by's name is the user's own text: escaped, then cut to the column. */
		snprintf(col, sizeof(col), "%s", by[i]);
		put_escaped(r, col);
		put(r, "%*s  ", (int)(KEY_COLUMN - strlen(col)), "");
	}
}

static void text_counts_begin(struct report *r, bool stacks, const char *const *by, int nby)
{
	if (!stacks && nby) {
		put(r, "%12s  ", "CALLS");
		key_columns(r, by, nby);
		put(r, "%s\n", "FUNCTION");
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
	else if (k->text)
		s = k->text;	/* the printer's text: escaped there */
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

/* A row's key, N parts, a column each (wider keys push the rest on). */
static void put_key_columns(struct report *r, const struct report_key *k, int n)
{
	size_t w;
	int i;

	for (i = 0; i < n; i++) {
		w = put_key(r, &k[i]);
		put(r, "%*s  ", w < KEY_COLUMN ? (int)(KEY_COLUMN - w) : 0, "");
	}
}

static void text_count(struct report *r, const struct report_count *c)
{
	int i;

	if (!c->stacks && !c->ustacks) {
		put(r, "%12llu  ", (unsigned long long)c->count);
		if (c->key)
			put_key_columns(r, c->key, c->nkeys);
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
		/* A user function's own stack starts at the function itself: it is the leaf. */
		if (i == 0 && !c->nframes && strcmp(sym, c->func) == 0)
			break;
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

/*
 * A bar as long as COUNT is to the largest bucket's MOST, rounded down as
 * bpftrace draws them: a bucket of 1 beside one of 10,000 shows no '@'
 * (rounding up gave every non-zero bucket one, whatever its share).
 */
static void hist_row(struct report *r, const struct hist_scale *scale, __s32 bucket,
		     __u64 count, __u64 most)
{
	int w = most ? (int)(count * HIST_BAR / most) : 0;
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
	int i;

	for (k = 0; k < h->nbuckets; k++)
		if (b[k].count > most)
			most = b[k].count;
	put_escaped(r, h->func);
	for (i = 0; h->key && i < h->nkeys; i++) {
		put(r, i ? ", " : " [");
		put_escaped(r, h->key[i].by);
		put(r, " ");
		put_key(r, &h->key[i]);
		put(r, i == h->nkeys - 1 ? "]" : "");
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

/* --stats: "CALLS SUM MIN MAX AVG [KEY] FUNCTION(VALUE)", a row each. */
static void text_stats_begin(struct report *r, const char *const *by, int nby)
{
	put(r, "%12s %14s %14s %14s %14s  ", "CALLS", "SUM", "MIN", "MAX", "AVG");
	key_columns(r, by, nby);
	put(r, "FUNCTION(VALUE)\n");
	writer__flush(&r->wr);
}

/* One number of a --stats row: signed or not, durations in units ("1.02ms"). */
static void stats_cell(struct report *r, const struct report_stats *s, __u64 v)
{
	struct hist_scale scale = { .duration = s->duration };
	char buf[48];

	hist__value_str(&scale, s->is_signed, v, buf, sizeof(buf));
	put(r, " %14s", buf);
}

static void text_stats(struct report *r, const struct report_stats *s)
{
	double avg = report_stats_avg(s);
	char buf[48];

	put(r, "%12llu", (unsigned long long)s->count);
	stats_cell(r, s, s->sum);
	stats_cell(r, s, s->min);
	stats_cell(r, s, s->max);
	if (s->duration)
		stats_cell(r, s, (__u64)(avg + 0.5));
	else
		put(r, " %14s", (snprintf(buf, sizeof(buf), "%.1f", avg), buf));
	put(r, "  ");
	if (s->key)
		put_key_columns(r, s->key, s->nkeys);
	put_escaped(r, s->func);
	put(r, "(");
	put_escaped(r, s->value_label);
	put(r, ")\n");
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

/* The braces of anonymous members left open at DEPTH and deeper, closed ("} headers;"). */
static void close_members(struct report *r, const char *const *names, int *open, int depth)
{
	while (*open > depth) {
		(*open)--;
		put(r, "%*s}", 8 * (*open + 1), "");
		if (names[*open] && *names[*open]) {
			put(r, " ");
			put_escaped(r, names[*open]);
		}
		put(r, ";\n");
	}
}

/*
 * As pahole lays it out: each member with "offset size" in a comment
 * ("offset:bit size" for a bitfield, the size its type's), anonymous ones
 * around theirs.
 */
static void text_type(struct report *r, const struct report_type *t)
{
	const char *names[BTFU_MAX_DEPTH + 1] = {};
	const struct report_member *m;
	char where[48];
	int i, open = 0, w;

	put_escaped(r, t->name);
	put(r, " {\t/* size %lld */\n", (long long)t->size);
	for (i = 0; i < t->nmembers; i++) {
		m = &t->members[i];
		if (m->depth > BTFU_MAX_DEPTH)
			continue;	/* the walker stops there; never written past */
		close_members(r, names, &open, m->depth);
		/* A bitfield: the offset of its type's storage unit and its bit there, as pahole. */
		if (m->bit_size && m->size > 0 && m->size <= 16)
			snprintf(where, sizeof(where), "/* %5llu:%2llu %2lld */",
				 (unsigned long long)(m->bit_off / (8 * m->size) * m->size),
				 (unsigned long long)(m->bit_off % (8 * m->size)), (long long)m->size);
		else if (m->bit_size)
			snprintf(where, sizeof(where), "/* %5u:%2u %2lld */", m->bit_off / 8,
				 m->bit_off % 8, (long long)m->size);
		else
			snprintf(where, sizeof(where), "/* %5u %5lld */", m->bit_off / 8,
				 (long long)m->size);
		put(r, "%*s", 8 * (m->depth + 1), "");
		w = 8 * (m->depth + 1) + (int)strlen(m->decl) + (m->anonymous ? 2 : 1);
		put_escaped(r, m->decl);
		put(r, "%s%*s%s\n", m->anonymous ? " {" : ";", w < 56 ? 56 - w : 1, "", where);
		if (m->anonymous && m->depth < BTFU_MAX_DEPTH) {
			names[m->depth] = m->name;
			open = m->depth + 1;
		}
	}
	close_members(r, names, &open, 0);
	if (t->cut)
		put(r, "\t/* ... more members than shown */\n");
	put(r, "};\n");
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
		      "calls missed (the kernel skipped the program: it fired inside a BPF "
		      "program, or on a CPU where a preempted run of it had not ended)");
	n = add_total(buf, sizeof(buf), n, s->own, "of ksnoop's own calls left out");
	n = add_total(buf, sizeof(buf), n, s->session_stashed,
		      "entries kept in the stash (the kernel refused kprobe.session's task storage)");
	n = add_total(buf, sizeof(buf), n, s->pair_full, "STARTs not paired (pair map full)");
	n = add_total(buf, sizeof(buf), n, s->pair_unread, "events whose pairing key could not be read");
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

/* ---- events: print.c's walk, as text ---- */

/* Append the LEN bytes at S to the line at *Q (the caller sized the line). */
static char *append(char *q, const char *s, size_t len)
{
	memcpy(q, s, len);
	return q + len;
}

static char *append_u64(char *q, __u64 v)
{
	char num[24], *end = num + sizeof(num), *d = writer__fmt_u64(end, v);

	return append(q, d, end - d);
}

/*
 * --track: " object 0xADDR", why it was reported when not for its
 * predicates ("(tracked)", "(freed)", "(clone)"), and with --group the
 * time since the object's first event ("+1.5ms").
 */
static void event_object(struct printer *p, const struct ksnoop_event *ev)
{
	struct obuf *ob = writer__obuf(&p->wr);
	char buf[96];
	int n;

	n = snprintf(buf, sizeof(buf), " object 0x%llx%s%s%s", (unsigned long long)ev->object,
		     ev->flags & KSNOOP_EV_TRACKED ? " (tracked)" : "",
		     ev->flags & KSNOOP_EV_FREED ? " (freed)" : "",
		     ev->flags & KSNOOP_EV_CLONED ? " (clone)" : "");
	obuf__write(ob, buf, n);
	if (p->group_start_ns && ev->time_ns >= p->group_start_ns) {
		char dur[48];

		duration__format(ev->time_ns - p->group_start_ns, dur, sizeof(dur));
		obuf__write(ob, " +", 2);
		obuf__write(ob, dur, strlen(dur));
	}
}

/*
 * comm, escaped; one with a space (or a '"') also in quotes: "x 1/1 -> ok"
 * bare would read as a comm "x" followed by the pid and arrow fields.
 */
static void comm_escape(struct obuf *ob, const char *comm, size_t n)	/* COMM ends in a NUL */
{
	if (strpbrk(comm, " \""))
		text_quote(ob, comm, n);
	else
		text_escape(ob, comm, n);
}

/* S (N bytes) as ESCAPE writes it, from the printer's labels when it fits one. */
static void put_label(struct printer *p, const char *s, size_t n,
		      void (*escape)(struct obuf *b, const char *s, size_t n))
{
	struct obuf *ob = writer__obuf(&p->wr);
	const struct print_label *l = printer__label(p, s, n, escape);

	if (l)
		obuf__write(ob, l->text, l->len);
	else
		escape(ob, s, n);
}

/* " (DURATION)" */
static void event_duration(struct obuf *ob, __u64 ns)
{
	char dur[48];

	duration__format(ns, dur, sizeof(dur));
	obuf__write(ob, " (", 2);
	obuf__write(ob, dur, strlen(dur));
	obuf__putc(ob, ')');
}

/* " cgroup=PATH" (--show-cgroup): the task's cgroup, its path escaped (a directory's names are anyone's). */
static void event_cgroup(struct printer *p, __u64 id)
{
	struct obuf *ob = writer__obuf(&p->wr);
	const char *path = p->opts.cgroup_name(p->opts.cgroup_ctx, id);

	obuf__write(ob, " cgroup=", 8);
	text_escape(ob, path, strlen(path));
}

/*
 * "12:34:56.789012 cpu0 COMM PID/TID -> FUNC (DURATION)" (--oneline: no
 * cpu, and the values follow on the same line): built in a buffer
 * and the clock time computed once a second (localtime is costly; events
 * come hundreds of thousands a second).  comm and the function name go
 * through the escaper: comm is the traced program's to choose
 * ("\e[31m\nFORGED" is one, "x 1/1 -> ok" another).
 */
static void text_event_begin(struct printer *p, const struct capture_plan *plan,
			     const struct ksnoop_event *ev, const char *comm)
{
	__s64 ns = (__s64)ev->time_ns + p->opts.clock_offset_ns;
	time_t secs = ns / 1000000000LL;
	unsigned int usecs = (ns % 1000000000LL) / 1000;
	struct obuf *ob = writer__obuf(&p->wr);
	char *q;
	int i;

	if (!p->hms[0] || secs != p->hms_secs) {
		struct tm tm;

		localtime_r(&secs, &tm);
		snprintf(p->hms, sizeof(p->hms), "%02d:%02d:%02d",
			 tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100);
		p->hms_secs = secs;
	}
	q = obuf__room(ob, 96);
	q = append(q, p->hms, strlen(p->hms));
	*q++ = '.';
	for (i = 5; i >= 0; i--, usecs /= 10)
		q[i] = '0' + usecs % 10;
	q += 6;
	if (p->opts.host) {
		*q++ = ' ';
		obuf__commit(ob, q);
		put_label(p, p->opts.host, strlen(p->opts.host), comm_escape);
		q = obuf__room(ob, 96);
	}
	if (!p->opts.oneline) {
		q = append(q, " cpu", 4);
		q = append_u64(q, ev->cpu);
	}
	*q++ = ' ';
	obuf__commit(ob, q);
	put_label(p, comm, strlen(comm), comm_escape);
	q = obuf__room(ob, 96);
	*q++ = ' ';
	q = append_u64(q, ev->tgid);
	*q++ = '/';
	q = append_u64(q, ev->tid);
	q = append(q, ev->kind == KSNOOP_ENTRY ? " -> " : " <- ", 4);
	obuf__commit(ob, q);
	put_label(p, plan->sig.name, strlen(plan->sig.name), text_escape);
	/* One of several functions of this name: which, as NAME@ADDRESS would pick it. */
	if (plan->sig.addr) {
		char at[24];

		obuf__write(ob, at, snprintf(at, sizeof(at), "@%llx", (unsigned long long)plan->sig.addr));
	}
	if (ev->flags & KSNOOP_EV_OBJECT)
		event_object(p, ev);
	if ((ev->flags & KSNOOP_EV_CGROUP) && p->opts.cgroup_name)
		event_cgroup(p, ev->object);
	if (ev->flags & KSNOOP_EV_DURATION)
		event_duration(ob, ev->duration_ns);
	if (!p->opts.oneline)
		obuf__putc(ob, '\n');
}

/* The stacks are the last of the values' lines. */
static void text_values_end(struct printer *p, const struct ksnoop_value *stack,
			    const struct ksnoop_value *ustack, bool user, __u32 pid)
{
	if (stack)
		printer__stack(p, "stack", stack, user, pid);
	if (ustack)
		printer__stack(p, "ustack", ustack, true, pid);
	writer__end_object(&p->wr);
}

/* The values' lines ended the event (an entry value read at return says so beside it). */
static void text_event_end(struct printer *p, const struct capture_plan *plan, const void *rec,
			   int kind)
{
	(void)p;
	(void)plan;
	(void)rec;
	(void)kind;
}

/* "object 0xADDR: N event(s) in TIME, END" */
static void text_object_end(struct printer *p, __u64 addr, int n, __u64 span_ns,
			    const char *end, const char *end_word)
{
	char line[160], dur[48];
	int len;

	(void)end_word;
	duration__format(span_ns, dur, sizeof(dur));
	len = snprintf(line, sizeof(line), "object 0x%llx: %d event(s) in %s, %s\n",
		       (unsigned long long)addr, n, dur, end);
	obuf__write(writer__obuf(&p->wr), line, len < (int)sizeof(line) ? len : (int)sizeof(line) - 1);
}

/* 'a', or '\xNN' for what is not printable (and quotes and backslashes). */
static void text_character(struct writer *w, unsigned char c)
{
	char text[8];

	if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
		snprintf(text, sizeof(text), "'%c'", c);
	else
		snprintf(text, sizeof(text), "'\\x%02x'", c);
	writer__raw(w, text, NULL);
}

/* __int128: hex, most significant half first. */
static void text_int128(struct writer *w, __u64 hi, __u64 lo)
{
	char text[40];

	snprintf(text, sizeof(text), "0x%016llx%016llx", (unsigned long long)hi,
		 (unsigned long long)lo);
	writer__raw(w, text, NULL);
}

/* "0xffffffff81a2b3c0 <sock_wfree>" */
static void text_func_ptr(struct writer *w, __u64 addr, const char *sym)
{
	char *esc = text_escaped_dup(sym), text[200];

	snprintf(text, sizeof(text), "0x%llx <%s>", (unsigned long long)addr, esc ? esc : "?");
	free(esc);
	writer__raw(w, text, NULL);
}

/* ':sym': the name it asks for. */
static void text_addr_sym(struct writer *w, __u64 addr, const char *sym)
{
	(void)addr;
	writer__name(w, sym);
}

/* "-2 (ENOENT)", "ERR_PTR(-ENOENT)" */
static void text_error_code(struct writer *w, int err, const char *name, bool ptr)
{
	char text[48];

	if (ptr && name)
		snprintf(text, sizeof(text), "ERR_PTR(-%s)", name);
	else if (ptr)
		snprintf(text, sizeof(text), "ERR_PTR(-%d)", err);
	else
		snprintf(text, sizeof(text), name ? "-%d (%s)" : "-%d", err, name);
	writer__raw(w, text, NULL);
}

/* "0xADDR" and WHY in a C comment after it, or the comment alone. */
static void text_failure(struct writer *w, const char *why, __u64 addr, bool err_ptr)
{
	char text[160];

	if (addr && !err_ptr)
		snprintf(text, sizeof(text), "0x%llx /* %s */", (unsigned long long)addr, why);
	else
		snprintf(text, sizeof(text), "/* %s */", why);
	writer__raw(w, text, NULL);
}

/*
 * "ADDR -> " before a pointer's target ("ADDR->" on one line), and its
 * type in parentheses; one line leaves the type out (the spec or `info`
 * says it).
 */
static void text_pointer_to(struct printer *p, __u64 addr, const struct btf *btf,
			    const struct value_desc *vd)
{
	char buf[32], *end = buf + sizeof(buf) - sizeof(" -> "), tbuf[160];
	const char *arrow = p->wr.oneline ? "->" : " -> ";

	memcpy(end, arrow, strlen(arrow) + 1);
	writer__text(&p->wr, writer__fmt_hex(end, addr));
	if (!vd || p->opts.oneline)
		return;
	writer__text(&p->wr, "(");
	writer__name(&p->wr, vd->obj_name[0] ? vd->obj_name :
		     btfu_type_str(btf, vd->obj_id, NULL, tbuf, sizeof(tbuf)));
	writer__text(&p->wr, ")");
}

/* Text says it in the value (an errno) or in a comment after it (a cut). */
static void text_beside(struct writer *w, const char *name, const char *what, const char *value)
{
	(void)w;
	(void)name;
	(void)what;
	(void)value;
}

static void text_tree_begin(struct printer *p, __u32 dropped)
{
	(void)p;
	(void)dropped;
}

static void text_tree_end(struct printer *p, __u32 dropped)
{
	char line[96];

	if (!dropped)
		return;
	obuf__write(writer__obuf(&p->wr), line,
		    snprintf(line, sizeof(line), "  (%u calls not recorded: past --tree-max-calls or depth %d)\n",
			     dropped, KSNOOP_TREE_MAX_DEPTH));
}

/* A call's children follow its lines, one level deeper: nothing around them. */
static void text_calls_none(struct printer *p)
{
	(void)p;
}

/* " = RETURN" on a call line: a pointer to a struct its address, else the value alone. */
static void call_return(struct printer *p, const struct capture_plan *plan,
			const struct tree_call *c, int i, int level)
{
	const struct ksnoop_value *vh = (const void *)((const char *)c->rec +
				plan->bpf.side[KSNOOP_RETURN].values[i].rec_off);
	const struct value_desc *vd = &plan->values[KSNOOP_RETURN][i];
	struct obuf *ob = writer__obuf(&p->wr);

	obuf__write(ob, " = ", 3);
	if (vd->how == PRINT_DEREF && (vh->status & KSNOOP_STATUS_MASK) == KSNOOP_OK) {
		char hex[24], *s = writer__fmt_hex(hex + sizeof(hex), vh->addr);

		obuf__write(ob, s, hex + sizeof(hex) - s);
		return;
	}
	/* The value alone, as its event would print it after "return = ". */
	writer__begin_object(&p->wr, WRITER_LINES, level);
	printer__value(p, plan->sig.btf, vd, vh, vh + 1, level + 1);
	writer__end_object(&p->wr);
}

/* "  → NAME (DURATION) = RETURN  [error]", at its depth; the values then leave the return out. */
static unsigned int text_call_begin(struct printer *p, const struct capture_plan *plan,
				    const struct tree_call *c, int level)
{
	const struct ksnoop_event *ev = c->rec;
	struct obuf *ob = writer__obuf(&p->wr);
	int i = ev->kind == KSNOOP_RETURN ? printer__return_index(plan) : -1;

	for (int l = 0; l < level; l++)
		obuf__write(ob, "  ", 2);
	obuf__write(ob, "\u2192 ", 4);
	text_escape(ob, plan->sig.name, strlen(plan->sig.name));
	if (ev->flags & KSNOOP_EV_DURATION)
		event_duration(ob, ev->duration_ns);
	if (i >= 0)
		call_return(p, plan, c, i, level);
	if (c->first_error)
		obuf__write(ob, "  [first error]", 15);
	/* Not NULL: walk_component() and step_into() return it when all went well. */
	else if (c->ret == TREE_RET_ERRNO)
		obuf__write(ob, "  [error]", 9);
	obuf__putc(ob, '\n');
	return PRINT_VALUES_NO_RETURN;
}

static void text_call_values_end(struct printer *p, const struct tree_call *c)
{
	(void)p;
	(void)c;
}

#define TEXT_EVENT_METHODS \
	.event_begin = text_event_begin, \
	.values_end = text_values_end, \
	.event_end = text_event_end, \
	.object_end = text_object_end, \
	.character = text_character, \
	.int128 = text_int128, \
	.func_ptr = text_func_ptr, \
	.addr_sym = text_addr_sym, \
	.error_code = text_error_code, \
	.failure = text_failure, \
	.pointer_to = text_pointer_to, \
	.beside = text_beside, \
	.tree_begin = text_tree_begin, \
	.tree_end = text_tree_end, \
	.calls_begin = text_calls_none, \
	.calls_end = text_calls_none, \
	.call_begin = text_call_begin, \
	.call_values_end = text_call_values_end, \
	.call_end = text_calls_none

const struct report_ops report_text_ops = {
	.interval = text_interval,
	.counts_begin = text_counts_begin,
	.count = text_count,
	.hist = text_hist,
	.stats_begin = text_stats_begin,
	.stats = text_stats,
	.info = text_info,
	.type = text_type,
	.usdt = text_usdt,
	.lost = text_lost,
	.summary = text_summary,
	TEXT_EVENT_METHODS,
};

static void folded_none(struct report *r)
{
	(void)r;
}

static void folded_counts_begin(struct report *r, bool stacks, const char *const *by, int nby)
{
	(void)r;
	(void)stacks;
	(void)by;
	(void)nby;
}

/* Flame-graph tools read nothing but the rows: no header, no times. */
const struct report_ops report_folded_ops = {
	.interval = folded_none,
	.counts_begin = folded_counts_begin,
	.count = folded_count,
	.hist = text_hist,
	.stats_begin = text_stats_begin,
	.stats = text_stats,
	.info = text_info,
	.type = text_type,
	.usdt = text_usdt,
	.lost = text_lost,
	.summary = text_summary,
	TEXT_EVENT_METHODS,
};
