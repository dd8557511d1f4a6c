// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for report-time questions (ksnoop/record/rec_query.c): a
 * plan resolved on the resolver's test BTF is recorded with events of
 * known values (skb->len, skb->name, the return), read back through the
 * reader, and each SPEC asked of it must keep exactly the events whose
 * recorded values satisfy its predicates (signed, masked, strings,
 * globs); a predicate on a value the recording did not capture, or that
 * cannot be compared, is refused with the line that names it.
 */
#include <unistd.h>
#include "../include/resolve_fixture.h"
#include "rec_query.h"
#include "recfile.h"

/* A failure named at the test's line, with what came. */
#define fail_at(...) do { print_error(__VA_ARGS__); print_error("\n"); _fail(file, line); } while (0)

#define REC_SPEC	"ip_send_skb(skb->len, skb->name:str, return)"
#define NREC		6

/* The recorded calls: entries (len, name) and returns (ret), in file order. */
static const struct {
	int kind;
	__u32 len;
	const char *name;
	int ret;
	__u32 reason;	/* skb->reason, an unsigned enum (resolve_fixture.h) */
} calls[NREC] = {
	{ KSNOOP_ENTRY, 10, "eth0", 0, 2 },
	{ KSNOOP_RETURN, 0, NULL, 0, 0 },
	{ KSNOOP_ENTRY, 84, "lo", 0, 0x80000000u },
	{ KSNOOP_RETURN, 0, NULL, -2, 0 },
	{ KSNOOP_ENTRY, 84, "eth0", 0, 0 },
	{ KSNOOP_ENTRY, 200, "eth1", 0, 0x80000000u },
};

/*
 * A struct sk_buff dumped whole: skb->len inside its bytes; call 5's
 * bytes end before skb->len (a record shorter than its plan, as a
 * truncated or hostile file has it).
 */
static void skb_bytes(const struct capture_plan *plan, const struct value_desc *vd,
		      struct ksnoop_value *vh, int i)
{
	__u32 bit_off;

	assert_int_equal(resolver__member_offset(plan->sig.btf, vd->obj_id, "len", &bit_off), 0);
	assert_true(bit_off / 8 + 4 <= vd->size);
	memcpy((char *)(vh + 1) + bit_off / 8, &calls[i].len, 4);
	if (i == 5)
		vh->len = bit_off / 8 + 3;
}

/* Call I's record for PLAN, its values set as calls[] says. */
static void *make_record(const struct capture_plan *plan, int i, size_t *size)
{
	int kind = calls[i].kind, v;
	const struct ksnoop_side_plan *side = &plan->bpf.side[kind];
	unsigned char *rec = calloc(1, side->rec_size);
	struct ksnoop_event *ev = (void *)rec;

	assert_non_null(rec);
	ev->time_ns = 1000 + i;
	ev->tgid = ev->tid = 42;
	ev->kind = kind;
	memcpy(ev->comm, "app", 4);
	for (v = 0; v < side->nvalues; v++) {
		const struct value_desc *vd = &plan->values[kind][v];
		struct ksnoop_value *vh = (void *)(rec + side->values[v].rec_off);
		unsigned char *data = (unsigned char *)(vh + 1);

		vh->status = KSNOOP_OK;
		vh->len = vd->size;
		if (!strcmp(vd->text, "skb->len"))
			memcpy(data, &calls[i].len, 4);
		else if (!strcmp(vd->text, "return"))
			memcpy(data, &calls[i].ret, 4);
		else if (!strcmp(vd->text, "skb->reason"))
			memcpy(data, &calls[i].reason, 4);
		else if (vd->how == PRINT_DEREF)
			skb_bytes(plan, vd, vh, i);
		else if (vd->how == PRINT_STRING)
			vh->len = strlen(calls[i].name) + 1, memcpy(data, calls[i].name, vh->len);
	}
	*size = side->rec_size;
	return rec;
}

struct recording {
	FILE *in;
	char *bytes;
	size_t len;
	struct recfile *r;
};

/* PLAN's calls[] written as a recording and opened again. */
static void record_calls(const struct capture_plan *plan, struct recording *out)
{
	char path[] = "/tmp/ksnoop-test-rec-query-XXXXXX";
	struct recfile_target t = { .label = "", .plan = *plan };
	char *specs[] = { REC_SPEC };
	struct recfile_meta m = {
		.version = "test", .release = "6.1.0", .machine = "x86_64", .start_ns = 5,
		.clock = "monotonic", .nspecs = 1, .specs = specs,
	};
	struct recfile_totals tot = {};
	struct recfile_writer *w;
	struct ks_error e;
	int fd = mkstemp(path), i;
	FILE *f;

	assert_true(fd >= 0);
	close(fd);
	w = recfile_writer__open(path, true, &e);
	assert_non_null(w);
	assert_int_equal(recfile_writer__begin(w, &m, &t, 1, NULL, 0, false, &e), 0);
	for (i = 0; i < NREC; i++) {
		size_t size;
		void *rec = make_record(plan, i, &size);

		assert_int_equal(recfile_writer__event(w, rec, size, &e), 0);
		free(rec);
	}
	assert_int_equal(recfile_writer__finish(w, &tot, &e), 0);
	recfile_writer__free(w);
	f = fopen(path, "r");
	assert_non_null(f);
	out->bytes = malloc(1 << 20);
	out->len = fread(out->bytes, 1, 1 << 20, f);
	fclose(f);
	unlink(path);
	out->in = fmemopen(out->bytes, out->len, "r");
	out->r = recfile__open(out->in, "t.ksr", &e);
	assert_non_null(out->r);
}

static void recording_free(struct recording *rc)
{
	recfile__free(rc->r);
	fclose(rc->in);
	free(rc->bytes);
}

/*
 * Which of calls[] SPEC keeps ("0,2"), over a fresh recording (the
 * reader reads a file once).
 */
static void kept_at(AT, const struct capture_plan *plan, const char *spec, const char *want)
{
	struct recording rc;
	char *specs[] = { (char *)spec };
	struct rec_query *q;
	struct ks_error e = {};
	char got[64] = "";
	const void *rec;
	size_t size;
	int i = 0;

	record_calls(plan, &rc);
	q = rec_query__new(rc.r, specs, 1, &e);
	if (!q)
		fail_at("'%s' refused: %s", spec, e.msg);
	while (recfile__next(rc.r, &rec, &size, &e) > 0) {
		if (rec_query__keep(q, rec))
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%d",
				 got[0] ? "," : "", i);
		i++;
	}
	at_int_equal(i, NREC);
	if (strcmp(got, want))
		fail_at("'%s' kept \"%s\", expected \"%s\"", spec, got, want);
	rec_query__free(q);
	recording_free(&rc);
}
#define kept(plan, spec, want) kept_at(__FILE__, __LINE__, plan, spec, want)

/* SPEC refused with MSG (a substring), as a usage error (exit 2). */
static void refused_at(AT, const struct capture_plan *plan, const char *spec, const char *msg)
{
	struct recording rc;
	char *specs[] = { (char *)spec };
	struct rec_query *q;
	struct ks_error e = {};

	record_calls(plan, &rc);
	q = rec_query__new(rc.r, specs, 1, &e);
	if (q)
		fail_at("'%s' not refused: expected \"%s\"", spec, msg);
	if (!strstr(e.msg, msg))
		fail_at("'%s': expected \"%s\" in \"%s\"", spec, msg, e.msg);
	at_int_equal(e.err, -EINVAL);
	recording_free(&rc);
}
#define refused(plan, spec, msg) refused_at(__FILE__, __LINE__, plan, spec, msg)

static void test_predicates_over_recorded_values(void **state)
{
	struct resolved *r = resolve_ok(REC_SPEC);
	const struct capture_plan *p = &r->plan;

	kept(p, "ip_send_skb", "0,1,2,3,4,5");
	kept(p, "ip_*", "0,1,2,3,4,5");
	kept(p, "vmlinux:ip_send_*()", "0,1,2,3,4,5");
	/* Entry values: the entries whose values hold; returns do not carry them. */
	kept(p, "ip_send_skb(skb->len == 84)", "2,4");
	kept(p, "ip_send_skb(skb->len >= 84, skb->len != 200)", "2,4");
	kept(p, "ip_send_skb(skb->len > 50, skb->name:str == \"eth0\")", "4");
	kept(p, "ip_send_skb(skb->name:str != \"eth0\")", "2,5");
	/* The whole string: neither a prefix nor a longer one matches. */
	kept(p, "ip_send_skb(skb->name:str == \"eth\")", "");
	kept(p, "ip_send_skb(skb->name:str == \"eth00\")", "");
	/* 84 = 64 + 16 + 4: the mask's bit is set there alone. */
	kept(p, "ip_send_skb(skb->len & 4)", "2,4");
	kept(p, "ip_send_skb(skb->len & 0xff == 200)", "5");
	/* The return, compared as the int it is: -2 < 0, never above. */
	kept(p, "ip_send_skb(return == -2)", "3");
	kept(p, "ip_send_skb(return < 0)", "3");
	kept(p, "ip_send_skb(return >= 0)", "1");
	kept(p, "ip_send_skb(return > 4294967294)", "");
	resolved_free(r);
}

/*
 * Enumerators compare as their enum's values: SKB_DROP_REASON_HUGE is
 * 0x80000000 in an unsigned 4-byte enum, recorded as those 4 bytes, and
 * must not be taken as the negative int its 32 bits would be.
 */
static void test_enumerators(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->reason)");
	const struct capture_plan *p = &r->plan;

	kept(p, "ip_send_skb(skb->reason == SKB_DROP_REASON_HUGE)", "2,5");
	kept(p, "ip_send_skb(skb->reason == SKB_DROP_REASON_NOT_SPECIFIED)", "0");
	kept(p, "ip_send_skb(skb->reason != SKB_NOT_DROPPED_YET)", "0,2,5");
	kept(p, "ip_send_skb(skb->reason > SKB_DROP_REASON_NOT_SPECIFIED)", "2,5");
	resolved_free(r);
}

static void test_refused(void **state)
{
	struct resolved *r = resolve_ok(REC_SPEC);
	const struct capture_plan *p = &r->plan;

	refused(p, "ip_send_skb(skb->data_len == 1)",
		"report: 'skb->data_len' of 'ip_send_skb' was not recorded; the predicates of a report compare recorded values only");
	refused(p, "ip_send_skb(net == NULL)", "'net' of 'ip_send_skb' was not recorded");
	refused(p, "tcp_v4_connect(return < 0)",
		"report: spec 'tcp_v4_connect(return < 0)' names no target of the recording");
	refused(p, "ip_send_skb(skb->len == 84, return < 0)",
		"report: the predicates of 'ip_send_skb' read 'skb->len' of its entry and 'return' of its return, two events in this recording");
	refused(p, "ip_send_skb(skb->name:str < \"a\")",
		"report: 'skb->name:str' of 'ip_send_skb' is a string: == or != only");
	refused(p, "ip_send_skb(skb->len == \"x\")",
		"'skb->len' of 'ip_send_skb' compares with \"x\", which is not a number or an enumerator of its type");
	refused(p, "ip_send_skb(skb->len == NOPE)", "compares with 'NOPE'");
	refused(p, "ip_send_skb(skb->len ==)", "expected");
	refused(p, "ip_send_skb(struct sk_buff *s, s->len == 1)", "TYPE NAME was bound when recording");
	resolved_free(r);
}

static void test_side(void **state)
{
	struct resolved *r = resolve_ok(REC_SPEC);
	char *ret_spec[] = { "ip_send_skb(return < 0)" }, *entry_spec[] = { "ip_send_skb(skb->len)" };
	struct recording rc;
	struct rec_query *q;
	struct ks_error e = {};

	record_calls(&r->plan, &rc);
	q = rec_query__new(rc.r, ret_spec, 1, &e);
	assert_non_null(q);
	assert_int_equal(rec_query__side(q, 0), KSNOOP_RETURN);
	assert_true(rec_query__names(q, 0));
	rec_query__free(q);
	q = rec_query__new(rc.r, entry_spec, 1, &e);
	assert_non_null(q);
	assert_int_equal(rec_query__side(q, 0), -1);
	rec_query__free(q);
	/* No query: every event. */
	assert_int_equal(rec_query__side(NULL, 0), -1);
	recording_free(&rc);
	resolved_free(r);
}

/*
 * Members inside a struct recorded whole: compared where the record's
 * bytes hold them, refused where the bytes cannot (a pointer followed).
 */
static void test_members(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb, return)");
	const struct capture_plan *p = &r->plan;

	kept(p, "ip_send_skb(skb->len == 84)", "2,4");
	kept(p, "ip_send_skb(skb->len >= 10)", "0,2,4");
	kept(p, "ip_send_skb(skb->len == 200)", "");
	refused(p, "ip_send_skb(skb->nope == 1)", "no member 'nope' in struct sk_buff");
	resolved_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_predicates_over_recorded_values),
		TEST(test_enumerators),
		TEST(test_refused),
		TEST(test_side),
		TEST(test_members),
	};

	return cmocka_run_group_tests(tests, build_btf, free_btf);
}
