// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The capture program run without a workload.  ksnoop's BPF object is
 * loaded through its skeleton with a plan written into .rodata the way
 * the attacher writes one (ksnoop/attach/attach.c: configure_instance()), and its
 * raw tracepoint program is run with BPF_PROG_TEST_RUN on argument words
 * chosen here; what it wrote into the ring buffer is read back and checked
 * against the public record format (include/ksnoop.h): the header (time,
 * cpu, ids, comm, function id, kind) and each value's status, length,
 * address and bytes.  Nothing of ksnoop.bpf.c's internals is used, only
 * the skeleton's programs and maps and the shared header.
 *
 * The kernel runs a raw_tp program in the calling task (without
 * BPF_F_TEST_RUN_ON_CPU), so the ids and comm are this process's, and
 * user memory is this process's memory: the values point into it.  A run
 * is synchronous, so the record is in the ring buffer when the run
 * returns: nothing waits for anything.
 *
 * Output, one result a line for tests/live/47-prog-test-run.sh:
 * "PASS NAME", "FAIL NAME: WHY", "SKIP NAME: WHY" (the kernel refused
 * what the test needs).  Exits 0 unless it could not run at all.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ksnoop.h"
#include "ksnoop.skel.h"

#define RINGBUF_BYTES	(64 * 1024)
#define FUNC_ID		0x1234
#define PRED_IMM	42
#define STR_ROOM	32
/* The kernel's "not supported" (include/linux/errno.h), which libc does not name. */
#ifndef ENOTSUPP
#define ENOTSUPP	524
#endif

static int failures;

/*
 * libbpf's messages, kept: shown when the object does not load (the
 * verifier's log), not when it does (it retries map creation without BTF
 * and says so, as for ksnoop, which shows them only with -d).
 */
static char lblog[16384];
static size_t lblog_len;

static int keep_libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int n;

	if (lblog_len >= sizeof(lblog) - 1)
		lblog_len = 0;	/* the end is what tells: start again */
	n = vsnprintf(lblog + lblog_len, sizeof(lblog) - lblog_len, fmt, ap);
	if (n > 0)
		lblog_len = lblog_len + n < sizeof(lblog) - 1 ? lblog_len + n : sizeof(lblog) - 1;
	return 0;
}

/* Before every result's name: the case whose header and values are checked again. */
static const char *case_prefix = "";

static void result(const char *kind, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s%s", kind, case_prefix, name);
	if (fmt) {
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	fflush(stdout);
	if (!strcmp(kind, "FAIL"))
		failures++;
}

/* check NAME COND: PASS, or FAIL with what came (the format's arguments). */
#define check(name, cond, ...) \
	((cond) ? result("PASS", name, NULL) : result("FAIL", name, __VA_ARGS__))

/* What this test reads through the pointers it passes: user memory. */
struct node {
	struct node *next;
	long val;
};

static const char test_str[] = "ksnoop test_run";
static struct node second = { NULL, 77 };
static struct node first = { &second, 1 };

/* The value slots of the plan, in record order. */
enum { V_ARG0, V_STR, V_CHAIN, V_NULL, V_ERRPTR, NVALUES };

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * ids as this process's pid namespace sees them, as ksnoop asks for its
 * own (cmd_trace.c: find_pid_namespace()); the initial one needs nothing.
 */
#define PROC_PID_INIT_INO 0xEFFFFFFCU
static void pid_namespace(struct ksnoop_plan *p)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) || st.st_ino == PROC_PID_INIT_INO)
		return;
	p->pidns_dev = st.st_dev;
	p->pidns_ino = st.st_ino;
}

/* An argument word as it is, or a chain through it (steps as ksnoop.h says). */
static void set_access(struct ksnoop_access *acc, int slot, __u32 size, __u8 flags,
		       int nsteps, const __s64 *steps)
{
	int i;

	memset(acc, 0, sizeof(*acc));
	acc->src = KSNOOP_SRC_ARG;
	acc->slot = slot;
	acc->flags = flags;
	acc->size = size;
	acc->nsteps = nsteps;
	for (i = 0; i < nsteps; i++)
		acc->steps[i] = steps[i];
}

/*
 * The plan the resolver would make of
 *   tp:x(arg0 == 42, arg0, arg1:str, arg2->next->val, *arg3, *arg4)
 * on a tracepoint of five u64 words: values laid out behind the header,
 * each 8-aligned (resolve_strategy.c's layout_values()).
 */
static void make_plan(struct ksnoop_plan *p, __u32 self_tgid, __u32 filter_pid)
{
	struct ksnoop_side_plan *e = &p->side[KSNOOP_ENTRY];
	const __s64 at0[] = { 0 }, chain[] = { offsetof(struct node, next), offsetof(struct node, val) };
	__u32 off = sizeof(struct ksnoop_event);
	int i;

	memset(p, 0, sizeof(*p));
	pid_namespace(p);
	p->func_id = FUNC_ID;
	p->nslots = 5;
	p->slot_mask = 0x1f;
	p->output = KSNOOP_OUT_EVENTS;
	p->self_tgid = self_tgid;
	p->filter_pid = filter_pid;
	e->enabled = 1;
	e->nvalues = NVALUES;
	set_access(&e->values[V_ARG0].acc, 0, 8, KSNOOP_VAL_REG, 0, NULL);
	set_access(&e->values[V_STR].acc, 1, STR_ROOM, KSNOOP_VAL_STR, 1, at0);
	set_access(&e->values[V_CHAIN].acc, 2, sizeof(long), 0, 2, chain);
	set_access(&e->values[V_NULL].acc, 3, 8, 0, 1, at0);
	set_access(&e->values[V_ERRPTR].acc, 4, 8, 0, 1, at0);
	for (i = 0; i < NVALUES; i++) {
		e->values[i].rec_off = off;
		off += sizeof(struct ksnoop_value) + ((e->values[i].acc.size + 7) & ~7u);
	}
	e->rec_size = off;
	e->npreds = 1;
	set_access(&e->preds[0].acc, 0, 8, KSNOOP_VAL_REG, 0, NULL);
	e->preds[0].op = KSNOOP_OP_EQ;
	e->preds[0].is_signed = 1;
	e->preds[0].width = 8;
	e->preds[0].imm = PRED_IMM;
}

/*
 * KSNOOP_PLAN_PREFILTER, as the attacher sets it for such a plan: a first
 * predicate on a chain from slot 2 (arg2->next->val == VAL), tested
 * before anything else; arg0's predicate second.
 */
static void prefilter_first(struct ksnoop_plan *p, long val)
{
	struct ksnoop_side_plan *e = &p->side[KSNOOP_ENTRY];
	const __s64 chain[] = { offsetof(struct node, next), offsetof(struct node, val) };

	e->preds[1] = e->preds[0];
	memset(&e->preds[0], 0, sizeof(e->preds[0]));
	set_access(&e->preds[0].acc, 2, sizeof(long), 0, 2, chain);
	e->preds[0].op = KSNOOP_OP_EQ;
	e->preds[0].is_signed = 1;
	e->preds[0].width = sizeof(long);
	e->preds[0].imm = val;
	e->npreds = 2;
	p->flags |= KSNOOP_PLAN_PREFILTER;
}

/* The ring buffer's records, copied as they come. */
struct records {
	int n;
	size_t size;
	unsigned char buf[4096];
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct records *r = ctx;

	if (r->n++ == 0) {
		r->size = size;
		memcpy(r->buf, data, size < sizeof(r->buf) ? size : sizeof(r->buf));
	}
	return 0;
}

/*
 * The skeleton opened, the plan in .rodata, only the raw_tp program
 * loaded and the maps an event plan uses created, as the attacher does
 * for one tracepoint: -errno on failure.
 */
static int load(struct ksnoop_bpf **out, const struct ksnoop_plan *plan)
{
	struct ksnoop_bpf *skel = ksnoop_bpf__open();
	struct bpf_program *prog;
	int err = 0;

	if (!skel)
		return -errno;
	memcpy((void *)&skel->rodata->plan, plan, sizeof(*plan));
	bpf_object__for_each_program(prog, skel->obj)
		err = err ?: bpf_program__set_autoload(prog, prog == skel->progs.ksnoop_tp);
	err = err ?: bpf_map__set_max_entries(skel->maps.events, RINGBUF_BYTES);
	err = err ?: bpf_map__set_max_entries(skel->maps.stash, 1);
	err = err ?: bpf_map__set_max_entries(skel->maps.counts, 1);
	err = err ?: bpf_map__set_max_entries(skel->maps.stacks, 1);
	err = err ?: bpf_map__set_autocreate(skel->maps.entry_times, false);
	err = err ?: bpf_map__set_autocreate(skel->maps.func_values, false);
	err = err ?: bpf_map__set_autocreate(skel->maps.by_counts, false);
	err = err ?: bpf_map__set_autocreate(skel->maps.sessions, false);
	err = err ?: bpf_map__set_autocreate(skel->maps.tree_buf, false);
	err = err ?: bpf_map__set_autocreate(skel->maps.tracked, false);
	err = err ?: bpf_map__set_autocreate(skel->maps.track_stories, false);
	err = err ?: bpf_map__set_autocreate(skel->maps.track_clones, false);
	err = err ?: ksnoop_bpf__load(skel);
	if (err) {
		ksnoop_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

/* The run's gate (bpf/plan.bpf.h) open, as ksnoop opens it after attaching. */
static int open_gate(struct ksnoop_bpf *skel)
{
	__u32 zero = 0, open = 1;

	return bpf_map_update_elem(bpf_map__fd(skel->maps.gate), &zero, &open, BPF_ANY) ? -errno : 0;
}

/* One run on WORDS; the records it left in R; -errno if the kernel refused. */
static int run(struct ksnoop_bpf *skel, struct ring_buffer *rb, __u64 *words, int nwords,
	       struct records *r, __u64 *t0, __u64 *t1)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = words, .ctx_size_in = nwords * sizeof(*words));
	int err;

	memset(r, 0, sizeof(*r));
	*t0 = now_ns();
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ksnoop_tp), &opts);
	*t1 = now_ns();
	if (err)
		return err < 0 ? err : -EIO;
	if (opts.retval != 0)
		return -EPROTO;
	err = ring_buffer__consume(rb);
	return err < 0 ? err : 0;
}

static const struct ksnoop_value *value_at(const struct records *r, const struct ksnoop_plan *p,
					   int i, const void **data)
{
	__u32 off = p->side[KSNOOP_ENTRY].values[i].rec_off;

	*data = r->buf + off + sizeof(struct ksnoop_value);
	return (const struct ksnoop_value *)(r->buf + off);
}

static void check_header(const struct records *r, const struct ksnoop_plan *p, __u64 t0, __u64 t1)
{
	const struct ksnoop_event *ev = (const void *)r->buf;
	char comm[KSNOOP_COMM_LEN] = "";
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);

	prctl(PR_GET_NAME, comm);
	check("record_size", r->size == p->side[KSNOOP_ENTRY].rec_size,
	      "%zu bytes, the plan's rec_size is %u", r->size, p->side[KSNOOP_ENTRY].rec_size);
	check("header_time", ev->time_ns >= t0 && ev->time_ns <= t1,
	      "time_ns %llu outside the run [%llu, %llu]", (unsigned long long)ev->time_ns,
	      (unsigned long long)t0, (unsigned long long)t1);
	check("header_cpu", ncpus > 0 && ev->cpu < (__u32)ncpus, "cpu %u of %ld", ev->cpu, ncpus);
	check("header_ids", ev->tgid == (__u32)getpid() && ev->tid == (__u32)gettid(),
	      "tgid/tid %u/%u, this process is %d/%d", ev->tgid, ev->tid, getpid(), gettid());
	check("header_comm", !strncmp(ev->comm, comm, KSNOOP_COMM_LEN),
	      "comm '%.16s', this task's is '%s'", ev->comm, comm);
	check("header_func_kind", ev->func_id == FUNC_ID && ev->kind == KSNOOP_ENTRY &&
	      ev->flags == 0 && ev->duration_ns == 0,
	      "func_id %#x kind %u flags %#x duration %llu", ev->func_id, ev->kind, ev->flags,
	      (unsigned long long)ev->duration_ns);
}

static void check_values(const struct records *r, const struct ksnoop_plan *p)
{
	const struct ksnoop_value *v;
	const void *d;

	v = value_at(r, p, V_ARG0, &d);
	check("value_word", v->status == KSNOOP_OK && v->len == 8 && v->addr == 0 &&
	      *(const __u64 *)d == PRED_IMM, "status %#x len %u addr %#llx value %llu",
	      v->status, v->len, (unsigned long long)v->addr, *(const unsigned long long *)d);
	v = value_at(r, p, V_STR, &d);
	check("value_user_string", v->status == (KSNOOP_OK | KSNOOP_ST_USER) &&
	      v->len == sizeof(test_str) && v->addr == (__u64)(unsigned long)test_str &&
	      !memcmp(d, test_str, sizeof(test_str)), "status %#x len %u addr %#llx '%.*s'",
	      v->status, v->len, (unsigned long long)v->addr, STR_ROOM, (const char *)d);
	v = value_at(r, p, V_CHAIN, &d);
	check("value_user_chain", v->status == (KSNOOP_OK | KSNOOP_ST_USER) &&
	      v->len == sizeof(long) && v->addr == (__u64)(unsigned long)&second.val &&
	      *(const long *)d == second.val, "status %#x len %u addr %#llx (want %p) value %ld",
	      v->status, v->len, (unsigned long long)v->addr, (void *)&second.val, *(const long *)d);
	v = value_at(r, p, V_NULL, &d);
	check("value_null", v->status == KSNOOP_NULL && v->len == 0,
	      "status %#x len %u", v->status, v->len);
	v = value_at(r, p, V_ERRPTR, &d);
	check("value_err_ptr", v->status == KSNOOP_ERR_PTR && v->len == 0 &&
	      v->addr == (__u64)-EFAULT, "status %#x len %u addr %#llx", v->status, v->len,
	      (unsigned long long)v->addr);
}

/* The counters map's COUNTER, summed over CPUs. */
static __u64 counter(struct ksnoop_bpf *skel, int which)
{
	int n = libbpf_num_possible_cpus(), i;
	__u32 key = which;
	__u64 *v, sum = 0;

	if (n <= 0 || !(v = calloc(n, sizeof(*v))))
		return ~0ull;
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &key, v))
		sum = ~0ull;
	else
		for (i = 0; i < n; i++)
			sum += v[i];
	free(v);
	return sum;
}

/*
 * A load with PLAN, one run on the words (arg0 = ARG0): the records left
 * in R.  Returns 1 when the kernel refused (said as SKIP), -1 on failure.
 */
static int load_and_run(const char *name, const struct ksnoop_plan *plan, __u64 arg0,
			struct ksnoop_bpf **skelp, struct records *r, __u64 *t0, __u64 *t1)
{
	__u64 words[5] = { arg0, (unsigned long)test_str, (unsigned long)&first, 0, (__u64)-EFAULT };
	struct ring_buffer *rb;
	int err;

	lblog_len = 0;
	err = load(skelp, plan);
	if (err) {
		fprintf(stderr, "%s", lblog);
		result(err == -EPERM || err == -EACCES ? "SKIP" : "FAIL", name,
		       "the capture object does not load: %s", strerror(-err));
		return err == -EPERM || err == -EACCES ? 1 : -1;
	}
	rb = ring_buffer__new(bpf_map__fd((*skelp)->maps.events), on_record, r, NULL);
	if (!rb) {
		result("FAIL", name, "ring_buffer__new: %s", strerror(errno));
		return -1;
	}
	/*
	 * The gate (ksnoop opens it once every link is attached, closes it
	 * when the run stops): closed, the program writes nothing.
	 */
	err = run(*skelp, rb, words, 5, r, t0, t1);
	if (!err && !strcmp(name, "capture"))
		check("gate_closed_no_record", r->n == 0, "%d records", r->n);
	err = err ?: open_gate(*skelp);
	err = err ?: run(*skelp, rb, words, 5, r, t0, t1);
	if (err == 0 && arg0 == PRED_IMM) {
		/* The same program, the predicate false: nothing written. */
		struct records none;
		__u64 u0, u1;

		words[0] = PRED_IMM - 1;
		err = run(*skelp, rb, words, 5, &none, &u0, &u1);
		if (!err && plan->self_tgid == 0 && plan->filter_pid == 0) {
			char what[64];

			snprintf(what, sizeof(what), "%s%spredicate_false_no_record",
				 strcmp(name, "capture") ? name : "", strcmp(name, "capture") ? "_" : "");
			check(what, none.n == 0, "%d records", none.n);
		}
	}
	ring_buffer__free(rb);
	if (err == -ENOTSUPP || err == -EOPNOTSUPP || err == -EINVAL) {
		result("SKIP", name, "the kernel refuses BPF_PROG_TEST_RUN for raw_tp programs: %s",
		       strerror(-err));
		return 1;
	}
	if (err) {
		result("FAIL", name, "the run failed: %s", strerror(-err));
		return -1;
	}
	return 0;
}

int main(void)
{
	struct ksnoop_plan plan;
	struct ksnoop_bpf *skel = NULL;
	struct records r;
	__u64 t0, t1;
	int ret;

	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	libbpf_set_print(keep_libbpf_log);
	/* A record: header and values as the format says; a false predicate writes none. */
	make_plan(&plan, 0, 0);
	ret = load_and_run("capture", &plan, PRED_IMM, &skel, &r, &t0, &t1);
	if (ret == 0) {
		check("one_record", r.n == 1, "%d records", r.n);
		if (r.n >= 1) {
			check_header(&r, &plan, t0, t1);
			check_values(&r, &plan);
		}
	}
	ksnoop_bpf__destroy(skel);
	skel = NULL;
	if (ret > 0)
		return 0;	/* refused: said once, the rest would say it again */

	/*
	 * The first predicate tested before anything else: both hold, the
	 * record is as without it; arg0's false (load_and_run()), none: the
	 * whole test still runs after the first; the first false, none.
	 */
	make_plan(&plan, 0, 0);
	prefilter_first(&plan, second.val);
	if (load_and_run("prefilter", &plan, PRED_IMM, &skel, &r, &t0, &t1) == 0) {
		check("prefilter_one_record", r.n == 1, "%d records", r.n);
		case_prefix = "prefilter_";
		if (r.n >= 1) {
			check_header(&r, &plan, t0, t1);
			check_values(&r, &plan);
		}
		case_prefix = "";
	}
	ksnoop_bpf__destroy(skel);
	skel = NULL;
	make_plan(&plan, 0, 0);
	prefilter_first(&plan, second.val + 1);
	if (load_and_run("prefilter_first_false", &plan, PRED_IMM, &skel, &r, &t0, &t1) == 0)
		check("prefilter_first_false_no_record", r.n == 0, "%d records", r.n);
	ksnoop_bpf__destroy(skel);
	skel = NULL;

	/* ksnoop's own calls are left out, and counted. */
	make_plan(&plan, getpid(), 0);
	if (load_and_run("self", &plan, PRED_IMM, &skel, &r, &t0, &t1) == 0) {
		check("self_no_record", r.n == 0, "%d records", r.n);
		check("self_counted", counter(skel, KSNOOP_CNT_SELF) == 1, "KSNOOP_CNT_SELF is %llu",
		      (unsigned long long)counter(skel, KSNOOP_CNT_SELF));
	}
	ksnoop_bpf__destroy(skel);
	skel = NULL;

	/* -p another process: this one's call is not selected. */
	make_plan(&plan, 0, getpid() + 1);
	if (load_and_run("other_pid", &plan, PRED_IMM, &skel, &r, &t0, &t1) == 0)
		check("other_pid_no_record", r.n == 0, "%d records", r.n);
	ksnoop_bpf__destroy(skel);
	return failures ? 1 : 0;
}
