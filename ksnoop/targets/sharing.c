// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Which targets share one program (sharing.h). */
#include <errno.h>
#include <stdlib.h>
#include "sharing.h"
#include "sysnr.h"

/*
 * A glob's tracepoints share programs where the kernel has raw_tp cookies
 * (6.10 on); a glob's functions when attached as kprobes (fentry loads a
 * program per function anyway), except one of several functions of a name:
 * a group attaches by name, and that one only by its address.  A glob's
 * user functions too, one group per file (a uprobe.multi link, or a
 * uprobe each with a cookie: attach.c), but not where their values read
 * the file's variables: each program knows its one function's address.
 * A glob's system calls (sys:) too: their syscalls:sys_{enter,exit}_*
 * events take a BPF cookie through their perf links (5.15 on); one
 * program per plan rather than per call ('sys:*': 360 loads).
 */
bool groups__shared(const struct target_list *l, const struct target *tg)
{
	return (tg->from_glob && tg->kind == ATTACH_KPROBE && !tg->plan.sig.addr) || tg->kind == ATTACH_USDT ||
	       (tg->from_glob && tg->kind == ATTACH_TP && l->tp_cookies) ||
	       (tg->from_glob && tg->kind == ATTACH_SYSCALL) ||
	       (tg->from_glob && tg->kind == ATTACH_UPROBE &&
		!(tg->plan.bpf.flags & KSNOOP_PLAN_UVARS));
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Whether spec S's calls with a number (N of them) are a raw_syscalls group's. */
static bool raw_spec(struct target_groups *g, const struct target_list *l, const struct spec *s, int n)
{
	__u64 *h;
	int i, m = 0, progs = 0;

	if (n <= l->sys_raw_min)
		return false;
	h = calloc(n, sizeof(*h));
	if (!h)
		return false;
	for (i = 0; i < l->n && m < n; i++)
		if (l->v[i].spec == s && l->v[i].kind == ATTACH_SYSCALL &&
		    sysnr__of(l->v[i].plan.sig.attach) >= 0)
			h[m++] = resolver__program_hash(&l->v[i].plan);
	qsort(h, m, sizeof(*h), cmp_u64);
	for (i = 0; i < m; i++)
		progs += !i || h[i] != h[i - 1];
	free(h);
	if (progs > SYS_RAW_MAX_PROGRAMS)
		g->nsys_plans += n;
	return progs <= SYS_RAW_MAX_PROGRAMS;
}

/*
 * Which of L's targets are a sys: glob's many calls, attached on the
 * raw_syscalls tracepoints (RAW[i]): more than L->sys_raw_min calls of
 * one spec whose numbers are known (sysnr.h), in at most
 * SYS_RAW_MAX_PROGRAMS programs; a call without a number keeps its own
 * events.  --tree has no raw path (its inner events are tracepoints'
 * sessions).  How many of each, in G.
 */
static void mark_raw_syscalls(struct target_groups *g, const struct target_list *l, bool *raw)
{
	int i, j, n;

	for (i = 0; i < l->n; i++) {
		const struct target *tg = &l->v[i];

		if (tg->kind != ATTACH_SYSCALL || !tg->from_glob || !l->raw_syscalls ||
		    tg->plan.bpf.tree)
			continue;
		g->nsys_own++;
		if (sysnr__of(tg->plan.sig.attach) < 0)
			continue;
		/* Counted once per spec, at its first call. */
		for (j = 0; j < i && l->v[j].spec != tg->spec; j++)
			;
		if (j < i) {
			raw[i] = raw[j];
			continue;
		}
		for (j = i, n = 0; j < l->n; j++)
			n += l->v[j].spec == tg->spec && l->v[j].kind == ATTACH_SYSCALL &&
			     sysnr__of(l->v[j].plan.sig.attach) >= 0;
		raw[i] = raw_spec(g, l, tg->spec, n);
	}
	for (i = 0; i < l->n; i++)
		if (raw[i]) {
			g->nraw++;
			g->nsys_own--;
		}
}

/* User functions share a program only within one file: a uprobe.multi link has one path. */
static bool same_file(const struct target *x, const struct target *y)
{
	return x->kind != ATTACH_UPROBE ||
	       (x->ufunc.dev == y->ufunc.dev && x->ufunc.ino == y->ufunc.ino);
}

/*
 * Can X and Y share a program?  USDT probes also need as many arguments:
 * a program checks the types of its sites' arguments (KSNOOP_PLAN_USDT_SIG)
 * up to nslots, and reads that many.  Tracepoints too: the kernel refuses
 * to attach a raw_tp program that reads a word past the tracepoint's
 * arguments, and a group reads every word one of its members does.
 * System calls likewise: a perf link refuses (EACCES) a program that
 * reads past the record of the syscall's event.
 */
static bool same_group(const struct target *x, const struct target *y, bool raw_x, bool raw_y)
{
	return x->kind == y->kind && raw_x == raw_y && resolver__same_program(&x->plan, &y->plan) &&
	       (x->kind != ATTACH_USDT || x->plan.bpf.nslots == y->plan.bpf.nslots) &&
	       ((x->kind != ATTACH_TP && x->kind != ATTACH_SYSCALL) || raw_x ||
		x->plan.sig.nslots == y->plan.sig.nslots) &&
	       same_file(x, y);
}

struct hashed {
	__u64 hash;
	int target;
};

static int cmp_hashed(const void *a, const void *b)
{
	const struct hashed *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->target - y->target;
}

static void add_group(struct target_groups *g, enum attach_kind kind, const int *idx, int n)
{
	g->v[g->n++] = (struct target_group){ .kind = kind, .idx = idx, .n = n };
}

/*
 * The targets IDX[0..M) of one plan: USDT probes PER to a program, functions
 * and tracepoints as many as resolver__group() lets one program serve.
 */
static void split_group(struct target_groups *g, struct target_list *l, const int *idx, int m,
			int per, struct capture_plan **plans, bool raw)
{
	enum attach_kind kind = raw ? ATTACH_SYSCALL_RAW : l->v[idx[0]].kind;
	int j, k;

	if (kind == ATTACH_USDT) {
		for (j = 0; j < m; j += per)
			add_group(g, kind, idx + j, m - j < per ? m - j : per);
		return;
	}
	for (j = 0; j < m; j++)
		plans[j] = &l->v[idx[j]].plan;
	g->nfuncs += m;
	for (j = 0; j < m; j += k) {
		struct ksnoop_plan group;

		k = resolver__group(plans + j, m - j, &group);
		add_group(g, kind, idx + j, k);
		g->v[g->n - 1].plan = group;
	}
}

/* Of N USDT probes in all, how many one program serves. */
static int usdt_per_program(int n, int spread)
{
	return spread > 0 && n > spread ? (n + spread - 1) / spread : 1;
}

int groups__build(struct target_groups *g, struct target_list *l, int usdt_spread)
{
	size_t cnt = l->n ? l->n : 1;
	struct hashed *h = calloc(cnt, sizeof(*h));
	struct capture_plan **plans = calloc(cnt, sizeof(*plans));
	bool *done = calloc(cnt, sizeof(*done));
	bool *raw = calloc(cnt, sizeof(*raw));
	int n = 0, nusdt = 0, i, j, m, per;

	*g = (struct target_groups){ .v = calloc(cnt, sizeof(*g->v)),
				     .idx = calloc(cnt, sizeof(*g->idx)) };
	if (!h || !plans || !done || !raw || !g->v || !g->idx) {
		free(h);
		free(plans);
		free(done);
		free(raw);
		groups__free(g);
		return -ENOMEM;
	}
	mark_raw_syscalls(g, l, raw);
	for (i = 0; i < l->n; i++) {
		if (groups__shared(l, &l->v[i]))
			h[n++] = (struct hashed){ resolver__program_hash(&l->v[i].plan), i };
		nusdt += l->v[i].kind == ATTACH_USDT;
	}
	per = usdt_per_program(nusdt, usdt_spread);
	qsort(h, n, sizeof(*h), cmp_hashed);
	for (i = 0, m = 0; i < n; i++) {
		const struct target *lead = &l->v[h[i].target];
		int *idx = g->idx + m, k = 0;

		if (done[h[i].target])
			continue;
		/* Equal hashes, then equal plans: a collision makes a group of its own. */
		for (j = i; j < n && h[j].hash == h[i].hash; j++) {
			if (done[h[j].target] ||
			    !same_group(lead, &l->v[h[j].target], raw[h[i].target], raw[h[j].target]))
				continue;
			done[h[j].target] = true;
			idx[k++] = h[j].target;
		}
		m += k;
		split_group(g, l, idx, k, per, plans, raw[h[i].target]);
	}
	free(h);
	free(plans);
	free(done);
	free(raw);
	return 0;
}

void groups__free(struct target_groups *g)
{
	free(g->v);
	free(g->idx);
	*g = (struct target_groups){};
}
