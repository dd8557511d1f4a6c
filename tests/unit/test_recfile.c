// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for record files (ksnoop/record/recfile.c): a plan resolved on the
 * resolver's test BTF is written with one event, read back, and printed
 * exactly as from the original plan and BTF (text and JSON), though the
 * file's BTF holds only the types the values reach; then files broken one
 * way each are refused with the message that names the fault, and a file
 * cut short gives the events of its complete blocks and where it ends.
 * Events are delta-coded (each record XORed with the one before) and every
 * block is a zstd frame; version 2's zlib blocks are still read.
 */
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "../include/resolve_fixture.h"
#include "print.h"
#include "recfile.h"

#define SPEC_TEXT	"ip_send_skb(skb->len, skb, skb->name:str, net)"

/* One block of a file, inflated. */
struct block {
	__u32 type;
	size_t len;
	unsigned char *raw;
};

struct file {
	unsigned char *bytes;
	size_t len;
};

/* The event record for PLAN's entry side: len 84, skb's bytes, a name. */
static void *make_event(const struct capture_plan *plan, size_t *size)
{
	const struct ksnoop_side_plan *side = &plan->bpf.side[KSNOOP_ENTRY];
	unsigned char *rec = calloc(1, side->rec_size);
	struct ksnoop_event *ev = (void *)rec;
	int i;

	assert_non_null(rec);
	ev->time_ns = 1000000123;
	ev->cpu = 1;
	ev->tgid = ev->tid = 42;
	memcpy(ev->comm, "app", 4);
	for (i = 0; i < side->nvalues; i++) {
		const struct value_desc *vd = &plan->values[KSNOOP_ENTRY][i];
		struct ksnoop_value *vh = (void *)(rec + side->values[i].rec_off);
		unsigned char *data = (unsigned char *)(vh + 1);
		__u32 k;

		vh->status = KSNOOP_OK;
		vh->len = vd->size;
		vh->addr = 0xffff888000001000ULL;
		for (k = 0; k < vd->size; k++)
			data[k] = (unsigned char)(k * 7 + i);
		if (vd->how == PRINT_STRING)
			memcpy(data, "eth0", 5);
	}
	*size = side->rec_size;
	return rec;
}

/* A writer of PATH (made from its XXXXXX), its header M and one target T written. */
static struct recfile_writer *begin_writer(char *path, const struct recfile_meta *m,
					   const struct recfile_target *t)
{
	struct recfile_writer *w;
	struct ks_error e;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	w = recfile_writer__open(path, true, &e);
	assert_non_null(w);
	assert_int_equal(recfile_writer__begin(w, m, t, 1, NULL, 0, false, &e), 0);
	return w;
}

/* What PATH holds (at most 1 MiB), and PATH gone. */
static struct file read_back(const char *path)
{
	struct file f = {};
	FILE *in = fopen(path, "r");

	assert_non_null(in);
	f.bytes = malloc(1 << 20);
	f.len = fread(f.bytes, 1, 1 << 20, in);
	fclose(in);
	unlink(path);
	return f;
}

/*
 * A recording of PLAN and NREC events, as the writer writes it: the event
 * of make_event(), each after the first a microsecond later, on CPU (I+1)%2,
 * and every other one 13 bytes longer (its tail 0xa5s); records 0-3 in
 * one EVENTS block, the rest in another.
 */
static struct file write_events(const struct capture_plan *plan, bool with_end, int nrec)
{
	char path[] = "/tmp/ksnoop-test-recfile-XXXXXX";
	struct recfile_target t = { .label = "", .plan = *plan };
	char *specs[] = { SPEC_TEXT };
	struct recfile_meta m = {
		.version = "test", .release = "6.1.0", .machine = "x86_64", .start_ns = 5,
		.clock = "monotonic", .clock_offset_ns = 7, .nspecs = 1, .specs = specs,
		.host = "hostA", .output = RECFILE_OUT_HIST, .by = "comm", .hist_min = -4,
		.hist_step = 2, .hist_nbuckets = 4,
	};
	struct recfile_totals tot = { .lost = 3 };
	struct recfile_writer *w;
	struct ks_error e;
	size_t size;
	void *rec = make_event(plan, &size);

	w = begin_writer(path, &m, &t);
	for (int i = 0; i < nrec; i++) {
		unsigned char *r = malloc(size + 13);

		memcpy(r, rec, size);
		memset(r + size, 0xa5, 13);
		((struct ksnoop_event *)r)->time_ns += 1000ULL * i;
		((struct ksnoop_event *)r)->cpu = (i + 1) % 2;
		assert_int_equal(recfile_writer__event(w, r, size + (i % 2 ? 13 : 0), &e), 0);
		free(r);
		/* A second EVENTS block from the fifth record: each block decodes on its own. */
		if (i == 3)
			assert_int_equal(recfile_writer__flush(w, &e), 0);
	}
	assert_int_equal(recfile_writer__flush(w, &e), 0);
	if (with_end)
		assert_int_equal(recfile_writer__finish(w, &tot, &e), 0);
	recfile_writer__free(w);
	free(rec);
	return read_back(path);
}

/* A recording of PLAN and its one event, as the writer writes it. */
static struct file write_file(const struct capture_plan *plan, bool with_end)
{
	return write_events(plan, with_end, 1);
}

/*
 * A delta-coded EVENTS block decoded as docs/RECORD-FORMAT.md says (this
 * test's own reading of it): per record its size, a mask bit per padded
 * 8-byte word, the marked words XORed with the record before's.
 */
static void undelta(struct block *b)
{
	unsigned char *out = calloc(1, 1 << 20), *in = b->raw, *end = b->raw + b->len;
	size_t len = 0, prev = 0, prev_words = 0;

	while (in < end) {
		__u64 size, nwords, k, v, pv;
		unsigned char *mask;

		memcpy(&size, in, 8);
		memcpy(out + len, in, 8);
		in += 8;
		len += 8;
		nwords = (size + 7) / 8;
		mask = in;
		in += (nwords + 7) / 8;
		for (k = 0; k < nwords; k++) {
			v = 0;
			if (mask[k / 8] >> (k % 8) & 1) {
				memcpy(&v, in, 8);
				in += 8;
			}
			if (k < prev_words) {
				memcpy(&pv, out + prev + 8 * k, 8);
				v ^= pv;
			}
			memcpy(out + len + 8 * k, &v, 8);
		}
		prev = len;
		prev_words = nwords;
		len += nwords * 8;
	}
	assert_true(in == end);
	free(b->raw);
	b->raw = out;
	b->len = len;
	b->type &= ~RECFILE_BLOCK_DELTA;
}

/* The blocks of F as stored, decompressed (at most MAX); types with their high bits. */
static int split_stored(const struct file *f, struct block *b, int max)
{
	size_t off = RECFILE_MAGIC_LEN;
	int n = 0;

	while (off + 16 <= f->len && n < max) {
		__u32 h[4];
		uLongf len;

		memcpy(h, f->bytes + off, 16);
		len = h[1];
		b[n].type = h[0];
		b[n].len = h[1];
		b[n].raw = malloc(h[1] + 1);
		if (h[0] & RECFILE_BLOCK_ZSTD)
			assert_int_equal(ZSTD_decompress(b[n].raw, h[1], f->bytes + off + 16, h[2]), h[1]);
		else
			assert_int_equal(uncompress(b[n].raw, &len, f->bytes + off + 16, h[2]), Z_OK);
		off += 16 + h[2];
		n++;
	}
	return n;
}

/* The blocks of F, decompressed, EVENTS decoded into records as version 2 stores them. */
static int split(const struct file *f, struct block *b, int max)
{
	int n = split_stored(f, b, max), i;

	for (i = 0; i < n; i++)
		if (b[i].type & RECFILE_BLOCK_DELTA)
			undelta(&b[i]);
	return n;
}

/* BLOCKS stored again into a well-formed file (free the blocks): zstd or zlib, as their types say. */
static struct file join(struct block *b, int n)
{
	struct file f = { .bytes = malloc(1 << 20) };
	int i;

	memcpy(f.bytes, RECFILE_MAGIC, RECFILE_MAGIC_LEN);
	f.len = RECFILE_MAGIC_LEN;
	for (i = 0; i < n; i++) {
		uLongf stored = (1 << 20) - f.len - 16;
		__u32 h[4] = { b[i].type, b[i].len };

		if (b[i].type & RECFILE_BLOCK_ZSTD)
			assert_false(ZSTD_isError(stored = ZSTD_compress(f.bytes + f.len + 16, stored,
									 b[i].raw, b[i].len, 1)));
		else
			assert_int_equal(compress2(f.bytes + f.len + 16, &stored, b[i].raw, b[i].len, 1), Z_OK);
		h[2] = stored;
		h[3] = crc32(0, f.bytes + f.len + 16, stored);
		memcpy(f.bytes + f.len, h, 16);
		f.len += 16 + stored;
		free(b[i].raw);
	}
	return f;
}

/* Open F; NULL with the message in E. */
static struct recfile *open_file(const struct file *f, FILE **in, struct ks_error *e)
{
	*in = fmemopen(f->bytes, f->len, "r");
	assert_non_null(*in);
	memset(e, 0, sizeof(*e));
	return recfile__open(*in, "t.ksr", e);
}

/* F refused with MSG (a substring), whether at open or at the first record. */
static void refused(struct file f, const char *msg)
{
	struct ks_error e;
	const void *rec;
	size_t size;
	FILE *in;
	struct recfile *r = open_file(&f, &in, &e);
	int ret = -1;

	if (r) {
		while ((ret = recfile__next(r, &rec, &size, &e)) > 0)
			;
	}
	if (!r || ret < 0) {
		if (!strstr(e.msg, msg))
			print_error("expected \"%s\" in \"%s\"\n", msg, e.msg);
		assert_non_null(strstr(e.msg, msg));
		assert_int_equal(e.err, -ENOEXEC);	/* exit status 2 */
	} else {
		print_error("not refused: expected \"%s\"\n", msg);
		fail();
	}
	recfile__free(r);
	fclose(in);
	free(f.bytes);
}

static char *print_to_string(const struct capture_plan *plan, const void *rec, size_t size,
			     bool json)
{
	struct print_opts o = { .format = json ? REPORT_JSON : REPORT_TEXT, .clock_offset_ns = 7 };
	struct printer p;
	char *buf = NULL;
	size_t sz;
	FILE *out = open_memstream(&buf, &sz);

	printer__init(&p, out, &o);
	printer__event(&p, plan, rec, size);
	printer__fini(&p);
	fclose(out);
	return buf;
}

static void test_round_trip_prints_the_same(void **state)
{
	struct resolved *r = resolve_ok(SPEC_TEXT);
	struct file f = write_file(&r->plan, true);
	const struct recfile_target *t;
	struct ks_error e;
	const void *rec;
	size_t size, want_size;
	void *want = make_event(&r->plan, &want_size);
	FILE *in;
	struct recfile *rf = open_file(&f, &in, &e);
	int json;

	assert_non_null(rf);
	assert_string_equal(recfile__meta(rf)->release, "6.1.0");
	assert_string_equal(recfile__meta(rf)->specs[0], SPEC_TEXT);
	assert_int_equal(recfile__meta(rf)->clock_offset_ns, 7);
	/* Format 5: the host and what a plain report prints. */
	assert_string_equal(recfile__meta(rf)->host, "hostA");
	assert_int_equal(recfile__meta(rf)->output, RECFILE_OUT_HIST);
	assert_string_equal(recfile__meta(rf)->by, "comm");
	assert_int_equal(recfile__meta(rf)->hist_min, -4);
	assert_int_equal(recfile__meta(rf)->hist_step, 2);
	assert_int_equal(recfile__meta(rf)->hist_nbuckets, 4);
	assert_int_equal(recfile__ntargets(rf), 1);
	t = recfile__target(rf, 0);
	assert_string_equal(t->plan.sig.name, "ip_send_skb");
	assert_string_equal(t->plan.values[KSNOOP_ENTRY][2].text, "skb->name:str");
	/* Only what the values reach: far fewer types than the test BTF. */
	assert_true(btf__type_cnt(recfile__btf(rf)) < btf__type_cnt(btf) / 2);
	assert_int_equal(recfile__next(rf, &rec, &size, &e), 1);
	assert_int_equal(size, want_size);
	assert_memory_equal(rec, want, size);
	for (json = 0; json < 2; json++) {
		char *a = print_to_string(&r->plan, want, want_size, json);
		char *b = print_to_string(&t->plan, rec, size, json);

		assert_string_equal(b, a);
		assert_non_null(strstr(a, json ? "\"len\":" : ".len ="));
		free(a);
		free(b);
	}
	assert_int_equal(recfile__next(rf, &rec, &size, &e), 0);
	assert_non_null(recfile__totals(rf));
	assert_int_equal(recfile__totals(rf)->lost, 3);
	assert_int_equal(recfile__totals(rf)->records, 1);
	assert_int_equal(recfile__cut(rf), 0);
	recfile__free(rf);
	fclose(in);
	free(f.bytes);
	free(want);
	resolved_free(r);
}

/* Cut anywhere: the event if its block is whole, and where the file ends. */
static void test_cut_short(void **state)
{
	struct resolved *r = resolve_ok(SPEC_TEXT);
	struct file f = write_file(&r->plan, false);
	struct block b[8];
	int n = split(&f, b, 8), i;
	size_t events_end = f.len, cut;

	assert_int_equal(n, 4);	/* HEADER BTF PLANS EVENTS */
	assert_int_equal(b[3].type, RECFILE_EVENTS | RECFILE_BLOCK_ZSTD);	/* decoded */
	for (i = 0; i < n; i++)
		free(b[i].raw);
	for (cut = events_end - 40; cut <= events_end; cut += 20) {
		struct file c = { f.bytes, cut };
		struct ks_error e;
		const void *rec;
		size_t size;
		FILE *in;
		struct recfile *rf = open_file(&c, &in, &e);
		int got = 0;

		assert_non_null(rf);
		while (recfile__next(rf, &rec, &size, &e) > 0)
			got++;
		assert_int_equal(got, cut == events_end);
		assert_null(recfile__totals(rf));
		assert_true(recfile__cut(rf) > 0 && recfile__cut(rf) <= cut);
		recfile__free(rf);
		fclose(in);
	}
	free(f.bytes);
	resolved_free(r);
}

/* The file of SPEC_TEXT with block I's raw bytes changed by EDIT. */
static struct file edited(int i, void (*edit)(struct block *))
{
	struct resolved *r = resolve_ok(SPEC_TEXT);
	struct file f = write_file(&r->plan, true);
	struct block b[8];
	int n = split(&f, b, 8);

	free(f.bytes);
	resolved_free(r);
	edit(&b[i]);
	return join(b, n);
}

static void bump_version(struct block *b) { b->raw[4] = 99; }
/* Version 1: records with the 56-byte event header, before --track's object. */
static void version_1(struct block *b) { b->raw[4] = 1; }
static void swap_order(struct block *b) { memcpy(b->raw, "\x01\x02\x03\x04", 4); }
static void garbage(struct block *b) { memset(b->raw, 0x5a, b->len); }
static void first_type_id_huge(struct block *b)
{
	/* The first value's type_id, after count, label, name, addr, syscall, bpf plan, nvalues and text. */
	size_t off = 4 + 4 + 4 + strlen("ip_send_skb") + 8 + 4 + 4 + sizeof(struct ksnoop_plan) + 4 +
		     4 + strlen("skb->len");
	__u32 v = 1u << 30;

	memcpy(b->raw + off, &v, 4);
}
static void value_off_past_record(struct block *b)
{
	size_t off = 4 + 4 + 4 + strlen("ip_send_skb") + 8 + 4 + 4;
	struct ksnoop_plan bp;

	/* Unaligned in the block, as a plan is there. */
	memcpy(&bp, b->raw + off, sizeof(bp));
	bp.side[KSNOOP_ENTRY].values[1].rec_off = bp.side[KSNOOP_ENTRY].rec_size;
	memcpy(b->raw + off, &bp, sizeof(bp));
}
/* Offset in the PLANS block of the bitfield word of the entry side's value I. */
static size_t value_bits_off(const struct block *b, int i)
{
	size_t off = 4 + 4 + 4 + strlen("ip_send_skb") + 8 + 4 + 4 + sizeof(struct ksnoop_plan) + 4;
	__u32 len;

	for (;; i--) {
		memcpy(&len, b->raw + off, 4);
		off += 4 + len + 5 * 4;		/* text; type_id obj_id how size obj_size */
		if (!i)
			return off;
		off += 2 * 4;			/* bits, fmt */
		memcpy(&len, b->raw + off, 4);
		off += 4 + len;			/* obj_name */
	}
}
static void set_bits(struct block *b, int i, __u32 bit_off, __u32 bit_size)
{
	__u32 v = bit_off | bit_size << 8;

	memcpy(b->raw + value_bits_off(b, i), &v, 4);
}
/* skb->len (4 bytes) said to be a ':strv': not the size of a struct ksnoop_strv. */
static void strv_of_wrong_size(struct block *b)
{
	__u32 how = PRINT_STRV;

	memcpy(b->raw + value_bits_off(b, 0) - 3 * 4, &how, 4);
}
/* skb (a struct of more than 9 bytes): 65 bits fit its size, not a word. */
static void bitfield_wider_than_64(struct block *b) { set_bits(b, 1, 0, 65); }
/* skb->len (4 bytes): bits 30..37 end past its 32. */
static void bitfield_past_value(struct block *b) { set_bits(b, 0, 30, 8); }
static void record_func_id_unknown(struct block *b) { ((struct ksnoop_event *)(b->raw + 8))->func_id = 5; }
static void record_value_len_past_end(struct block *b)
{
	struct ksnoop_value *vh = (void *)(b->raw + 8 + sizeof(struct ksnoop_event));

	vh->len = 1u << 20;
}
static void record_longer_than_block(struct block *b) { b->raw[0] = 0xff; b->raw[1] = 0xff; }
/* The header's last 3 bytes gone (its length says so): its last string is cut. */
static void header_cut_short(struct block *b) { b->len -= 3; }
/*
 * Format 5's fields after the specs: STR host ("hostA"), output u32,
 * STR by ("comm"), hist_min, hist_step u64, hist_nbuckets u32.
 */
#define V5_TAIL		(4 + 5 + 4 + 4 + 4 + 8 + 8 + 4)
static void output_unknown(struct block *b) { b->raw[b->len - 32] = 7; }
static void buckets_too_many(struct block *b) { memset(b->raw + b->len - 4, 0xff, 4); }
/* hist_step so large that the linear range's top passes INT64_MAX. */
static void range_past_64_bits(struct block *b) { memset(b->raw + b->len - 12, 0xff, 8); }
/* A version 4 header: without format 5's fields. */
static void version_4(struct block *b) { b->raw[4] = 4; b->len -= V5_TAIL; }

/* A version 4 file reads; its host is its file name, its output the events. */
static void test_version_4_host(void **state)
{
	struct file f = edited(0, version_4);
	struct ks_error e = {};
	FILE *in;
	struct recfile *rf = open_file(&f, &in, &e);

	assert_non_null(rf);
	assert_string_equal(recfile__meta(rf)->host, "t.ksr");
	assert_int_equal(recfile__meta(rf)->output, RECFILE_OUT_EVENTS);
	assert_string_equal(recfile__meta(rf)->by, "");
	recfile__free(rf);
	fclose(in);
	free(f.bytes);
}

static void test_bad_files(void **state)
{
	struct file f = { .bytes = malloc(64) };

	memcpy(f.bytes, "NOTKSNOOP-and-more", 18);
	f.len = 18;
	refused(f, "'t.ksr' is not a ksnoop recording");
	refused(edited(0, bump_version), "format version 99; this ksnoop reads versions 2 to 7");
	refused(edited(0, version_1), "report: 't.ksr': format version 1; this ksnoop reads versions 2 to 7");
	refused(edited(0, swap_order), "header in another byte order, or not a header at byte 8");
	refused(edited(0, header_cut_short), "header does not parse at byte 8");
	refused(edited(0, output_unknown), "header does not parse at byte 8");
	refused(edited(0, buckets_too_many), "header does not parse at byte 8");
	refused(edited(0, range_past_64_bits), "header does not parse at byte 8");
	refused(edited(1, garbage), "BTF does not parse");
	refused(edited(2, garbage), "plans do not parse");
	refused(edited(2, first_type_id_huge), "plan 0 does not parse or fit its BTF");
	refused(edited(2, value_off_past_record), "plan 0 does not parse or fit its BTF");
	refused(edited(2, bitfield_wider_than_64), "plan 0 does not parse or fit its BTF");
	refused(edited(2, bitfield_past_value), "plan 0 does not parse or fit its BTF");
	refused(edited(2, strv_of_wrong_size), "plan 0 does not parse or fit its BTF");
	refused(edited(3, record_func_id_unknown), "record does not fit its block or plan");
	refused(edited(3, record_value_len_past_end), "record does not fit its block or plan");
	refused(edited(3, record_longer_than_block), "record does not fit its block or plan");
}

/* Damage to the container: a checksum, a length, a bomb, an order. */
static void test_bad_blocks(void **state)
{
	struct resolved *r = resolve_ok(SPEC_TEXT);
	struct file f = write_file(&r->plan, true), g;
	struct block b[8];
	__u32 h[4];
	int n;

	resolved_free(r);
	/* A byte of the first block's stored data flipped. */
	g.len = f.len;
	g.bytes = malloc(f.len);
	memcpy(g.bytes, f.bytes, f.len);
	g.bytes[RECFILE_MAGIC_LEN + 20] ^= 1;
	refused(g, "block checksum does not match at byte 8");
	/* Lengths past the limit: refused before anything is allocated. */
	g.bytes = malloc(f.len);
	memcpy(g.bytes, f.bytes, f.len);
	memcpy(h, g.bytes + RECFILE_MAGIC_LEN, 16);
	h[1] = RECFILE_MAX_BLOCK + 1;
	memcpy(g.bytes + RECFILE_MAGIC_LEN, h, 16);
	refused(g, "block longer than a reader takes at byte 8");
	/* A bomb: the block inflates to more than it says (its CRC right). */
	g.bytes = malloc(f.len);
	memcpy(g.bytes, f.bytes, f.len);
	memcpy(h, g.bytes + RECFILE_MAGIC_LEN, 16);
	h[1] = 10;
	memcpy(g.bytes + RECFILE_MAGIC_LEN, h, 16);
	refused(g, "block does not decompress to its length at byte 8");
	/* An unknown type, and EVENTS where the plans should be. */
	g.bytes = malloc(f.len);
	memcpy(g.bytes, f.bytes, f.len);
	memcpy(h, g.bytes + RECFILE_MAGIC_LEN, 16);
	h[0] = 77;
	memcpy(g.bytes + RECFILE_MAGIC_LEN, h, 16);
	refused(g, "unknown block type at byte 8");
	/* A bit of the type word nobody defined, and delta coding on a block without records. */
	n = split(&f, b, 8);
	b[2].type |= 1u << 20;
	refused(join(b, n), "unknown block type at byte");
	n = split(&f, b, 8);
	b[0].type |= RECFILE_BLOCK_DELTA;
	refused(join(b, n), "unknown block type at byte 8");
	/* Delta-coded records that run past their block: a word cut, a size of 2^40. */
	n = split_stored(&f, b, 8);
	b[3].len -= 3;
	refused(join(b, n), "delta-coded records do not fit their block");
	n = split_stored(&f, b, 8);
	memcpy(b[3].raw, &(__u64){ 1ULL << 40 }, 8);
	refused(join(b, n), "delta-coded records do not fit their block");
	n = split(&f, b, 8);
	b[2].type = RECFILE_EVENTS;
	refused(join(b, n), "block out of order");
	/* KSYMS after the first EVENTS: the records before it were printed without it. */
	n = split(&f, b, 8);
	assert_int_equal(n, 5);	/* HEADER BTF PLANS EVENTS END */
	b[5] = b[4];
	b[4] = (struct block){ .type = RECFILE_KSYMS };
	b[4].raw = (unsigned char *)strdup("ffffffff81000000 T _text\n");
	b[4].len = strlen((char *)b[4].raw);
	refused(join(b, n + 1), "kernel symbols out of order");
	/* Data after the end. */
	g.bytes = malloc(f.len + 1);
	memcpy(g.bytes, f.bytes, f.len);
	g.bytes[f.len] = 0;
	g.len = f.len + 1;
	refused(g, "data after the end block");
	free(f.bytes);
}

/* The records of F, each copied, in *RECS (NULL-terminated, sizes in SIZES); their number. */
static int read_all(const struct file *f, void **recs, size_t *sizes, int max)
{
	struct ks_error e;
	const void *rec;
	size_t size;
	FILE *in;
	struct recfile *rf = open_file(f, &in, &e);
	int n = 0, ret;

	assert_non_null(rf);
	while ((ret = recfile__next(rf, &rec, &size, &e)) > 0 && n < max) {
		recs[n] = malloc(size);
		memcpy(recs[n], rec, size);
		sizes[n++] = size;
	}
	assert_int_equal(ret, 0);
	recfile__free(rf);
	fclose(in);
	return n;
}

/*
 * Many records of two sizes, delta-coded: read back byte for byte; stored
 * in far fewer bytes than the records (the words that repeat left out);
 * each block decodes alone; the same records stored by zlib without delta
 * coding (version 2's way) read the same.
 */
static void test_delta_round_trip(void **state)
{
	struct resolved *r = resolve_ok(SPEC_TEXT);
	struct file f = write_events(&r->plan, true, 7), z;
	size_t one, sizes[2][8];
	void *want = make_event(&r->plan, &one), *recs[2][8];
	const struct ksnoop_event *second;
	struct block b[8];
	size_t stored;
	int n, i, k;

	n = split_stored(&f, b, 8);
	assert_int_equal(n, 6);	/* HEADER BTF PLANS EVENTS EVENTS END */
	assert_int_equal(b[3].type & RECFILE_BLOCK_DELTA, RECFILE_BLOCK_DELTA);
	assert_int_equal(b[4].type & RECFILE_BLOCK_DELTA, RECFILE_BLOCK_DELTA);
	/*
	 * The first block: the first record's nonzero words, then of each
	 * after it only time, CPU and (every other one) the 0xa5 tail and
	 * the word before it differ: far under half the records' bytes.
	 */
	stored = b[3].len;
	undelta(&b[3]);
	assert_true(stored * 2 < b[3].len);
	/* The second block decodes on its own: its first record whole. */
	undelta(&b[4]);
	second = (const void *)(b[4].raw + 8);
	assert_string_equal(second->comm, "app");
	assert_int_equal(second->tgid, 42);
	/* Version 2's way: zlib, records as they are. */
	for (i = 0; i < n; i++)
		b[i].type &= ~RECFILE_BLOCK_ZSTD;
	z = join(b, n);
	assert_int_equal(read_all(&f, recs[0], sizes[0], 8), 7);
	assert_int_equal(read_all(&z, recs[1], sizes[1], 8), 7);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 7; i++) {
			const struct ksnoop_event *ev = recs[k][i];

			assert_int_equal(sizes[k][i], one + (i % 2 ? 13 : 0));
			assert_memory_equal((char *)recs[k][i] + sizeof(*ev), (char *)want + sizeof(*ev),
					    one - sizeof(*ev));
			assert_int_equal(ev->time_ns, 1000000123 + 1000ULL * i);
			assert_int_equal(ev->cpu, (i + 1) % 2);
			assert_int_equal(ev->tgid, 42);
			assert_string_equal(ev->comm, "app");
			if (i % 2)
				assert_int_equal(((unsigned char *)recs[k][i])[one + 12], 0xa5);
			free(recs[k][i]);
		}
	}
	free(f.bytes);
	free(z.bytes);
	free(want);
	resolved_free(r);
}

/*
 * Records whose sizes go up and down within a block (any multiple of a
 * byte, shorter and longer than the record before, past a 64-byte group
 * and short of one), their tails pseudo-random with runs of repeats, in
 * blocks of 40: read back byte for byte.  The encoder's words past a
 * shorter record must count as zero again for the next longer one.
 */
static void test_delta_sizes_vary(void **state)
{
	enum { NREC = 300, MAXTAIL = 150 };
	struct resolved *r = resolve_ok(SPEC_TEXT);
	char path[] = "/tmp/ksnoop-test-recfile-XXXXXX";
	struct recfile_target t = { .label = "", .plan = r->plan };
	char *specs[] = { SPEC_TEXT };
	struct recfile_meta m = { .version = "test", .release = "6.1.0", .machine = "x86_64",
				  .clock = "monotonic", .nspecs = 1, .specs = specs };
	struct recfile_totals tot = {};
	static void *want[NREC], *got[NREC + 1];
	static size_t want_size[NREC], got_size[NREC + 1];
	size_t one;
	void *base = make_event(&r->plan, &one);
	struct recfile_writer *w;
	struct file f = {};
	struct ks_error e;
	__u32 x = 12345;
	int fd = mkstemp(path), i, k;
	FILE *in;

	assert_true(fd >= 0);
	close(fd);
	w = recfile_writer__open(path, true, &e);
	assert_non_null(w);
	assert_int_equal(recfile_writer__begin(w, &m, &t, 1, NULL, 0, false, &e), 0);
	for (i = 0; i < NREC; i++) {
		size_t tail = (i * 37 + i / 7) % MAXTAIL;
		unsigned char *rec = malloc(one + MAXTAIL);

		memcpy(rec, base, one);
		for (k = 0; k < MAXTAIL; k++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			/* Every third record repeats the tail of the one before. */
			rec[one + k] = i % 3 && i ? ((unsigned char *)want[i - 1])[one + k] : x | 1;
		}
		((struct ksnoop_event *)rec)->time_ns += i;
		want[i] = rec;
		want_size[i] = one + tail;
		assert_int_equal(recfile_writer__event(w, rec, want_size[i], &e), 0);
		if (i % 40 == 39)
			assert_int_equal(recfile_writer__flush(w, &e), 0);
	}
	assert_int_equal(recfile_writer__finish(w, &tot, &e), 0);
	recfile_writer__free(w);
	in = fopen(path, "r");
	assert_non_null(in);
	f.bytes = malloc(1 << 20);
	f.len = fread(f.bytes, 1, 1 << 20, in);
	fclose(in);
	unlink(path);
	assert_int_equal(read_all(&f, got, got_size, NREC + 1), NREC);
	for (i = 0; i < NREC; i++) {
		assert_int_equal(got_size[i], want_size[i]);
		assert_memory_equal(got[i], want[i], want_size[i]);
		free(got[i]);
		free(want[i]);
	}
	free(f.bytes);
	free(base);
	resolved_free(r);
}

/* ---- USYMS: user stack frames' names, taken at record time (format 6) ---- */

/* A recording of PLAN's event twice, a block each, with names given before each. */
static struct file write_with_usyms(const struct capture_plan *plan)
{
	char path[] = "/tmp/ksnoop-test-recfile-XXXXXX";
	struct recfile_target t = { .label = "", .plan = *plan };
	struct recfile_meta m = { .version = "test", .release = "6.1.0", .machine = "x86_64",
				  .clock = "monotonic", .host = "h", .by = "" };
	struct recfile_totals tot = {};
	struct recfile_writer *w;
	struct ks_error e;
	size_t size;
	void *rec = make_event(plan, &size);

	w = begin_writer(path, &m, &t);
	assert_false(recfile_writer__has_usym(w, 42, 0x401000));
	assert_int_equal(recfile_writer__usym(w, 42, 0x401000, "main+0x10 (/app)", &e), 0);
	assert_int_equal(recfile_writer__usym(w, 43, 0x401000, "other+0x10 (/other)", &e), 0);
	assert_true(recfile_writer__has_usym(w, 42, 0x401000));
	assert_false(recfile_writer__has_usym(w, 42, 0x401001));
	assert_int_equal(recfile_writer__event(w, rec, size, &e), 0);
	assert_int_equal(recfile_writer__flush(w, &e), 0);
	assert_int_equal(recfile_writer__usym(w, 42, 0x402000, "f+0x8 (/app)", &e), 0);
	assert_int_equal(recfile_writer__event(w, rec, size, &e), 0);
	assert_int_equal(recfile_writer__finish(w, &tot, &e), 0);
	recfile_writer__free(w);
	free(rec);
	return read_back(path);
}

static void expect_usym(struct recfile *r, __u32 pid, __u64 addr, const char *want)
{
	char buf[RECFILE_MAX_USYM_NAME] = "";
	int ret = recfile__usymbolize(r, pid, addr, buf, sizeof(buf));

	if (!want) {
		assert_int_equal(ret, -ENOENT);
		return;
	}
	assert_int_equal(ret, 0);
	assert_string_equal(buf, want);
}

static void test_usyms_round_trip(void **state)
{
	struct resolved *res = resolve_ok(SPEC_TEXT);
	struct file f = write_with_usyms(&res->plan);
	struct block b[8];
	struct ks_error e;
	const void *rec;
	size_t size;
	FILE *in;
	struct recfile *r;
	int n = split(&f, b, 8), i;

	resolved_free(res);
	/* HEADER BTF PLANS USYMS EVENTS USYMS EVENTS END: names before their events. */
	assert_int_equal(n, 8);
	assert_int_equal(b[3].type & RECFILE_BLOCK_TYPE, RECFILE_USYMS);
	assert_int_equal(b[4].type & RECFILE_BLOCK_TYPE, RECFILE_EVENTS);
	assert_int_equal(b[5].type & RECFILE_BLOCK_TYPE, RECFILE_USYMS);
	assert_int_equal(b[0].raw[4], RECFILE_VERSION);
	for (i = 0; i < n; i++)
		free(b[i].raw);
	r = open_file(&f, &in, &e);
	assert_non_null(r);
	assert_int_equal(recfile__next(r, &rec, &size, &e), 1);
	expect_usym(r, 42, 0x401000, "main+0x10 (/app)");
	expect_usym(r, 43, 0x401000, "other+0x10 (/other)");
	expect_usym(r, 44, 0x401000, NULL);
	expect_usym(r, 42, 0x402000, NULL);	/* its block is not read yet */
	assert_int_equal(recfile__next(r, &rec, &size, &e), 1);
	expect_usym(r, 42, 0x402000, "f+0x8 (/app)");
	assert_int_equal(recfile__next(r, &rec, &size, &e), 0);
	/* A name cut to the caller's buffer, as usym.c's would be. */
	{
		char small[5];

		assert_int_equal(recfile__usymbolize(r, 42, 0x401000, small, sizeof(small)), 0);
		assert_string_equal(small, "main");
	}
	recfile__free(r);
	fclose(in);
	free(f.bytes);
}

/* A USYMS block of N names, each (pid 42, addr 0x1000 + i, NAME) unless EDIT changes it. */
static struct block usyms_of(__u32 count, int n, const char *name, size_t name_len)
{
	struct block u = { .type = RECFILE_USYMS | RECFILE_BLOCK_ZSTD };
	unsigned char *p = u.raw = malloc(4 + n * (16 + name_len) + 1);
	int i;

	memcpy(p, &count, 4);
	p += 4;
	for (i = 0; i < n; i++) {
		__u32 pid = 42, len = name_len;
		__u64 addr = 0x1000 + i;

		memcpy(p, &pid, 4);
		memcpy(p + 4, &addr, 8);
		memcpy(p + 12, &len, 4);
		memcpy(p + 16, name, name_len);
		p += 16 + name_len;
	}
	u.len = p - u.raw;
	return u;
}

/* F (HEADER BTF PLANS EVENTS END) with block U before its EVENTS; VERSION in its header. */
static struct file with_block(const struct file *f, struct block u, int version)
{
	struct block b[8];
	int n = split_stored(f, b, 7);

	assert_int_equal(n, 5);
	b[0].raw[4] = version;
	memmove(&b[4], &b[3], 2 * sizeof(b[0]));
	b[3] = u;
	return join(b, n + 1);
}

/* F with an END of LEN bytes (its totals T, zeros past them) and VERSION in its header. */
static struct file with_end(const struct file *f, const struct recfile_totals *t, size_t len,
			    int version)
{
	struct block b[8];
	int n = split_stored(f, b, 7);

	assert_int_equal(n, 5);
	b[0].raw[4] = version;
	free(b[4].raw);
	b[4].raw = calloc(1, sizeof(*t) + 8);
	memcpy(b[4].raw, t, len < sizeof(*t) ? len : sizeof(*t));
	b[4].len = len;
	return join(b, n);
}

/* Format 7: a --track recording's END keeps the live summary's object counters. */
static void test_track_end(void **state)
{
	struct resolved *res = resolve_ok(SPEC_TEXT);
	struct file f = write_file(&res->plan, true), g;
	struct recfile_totals t = { .records = 1, .track_added = 5, .track_freed = 3,
				    .track_failed = 1, .track_alive = 2 };
	const struct recfile_totals *got;
	struct ks_error e;
	const void *rec;
	size_t size;
	FILE *in;
	struct recfile *r;

	resolved_free(res);
	g = with_end(&f, &t, sizeof(t), RECFILE_VERSION);
	r = open_file(&g, &in, &e);
	assert_non_null(r);
	while (recfile__next(r, &rec, &size, &e) > 0)
		;
	got = recfile__totals(r);
	assert_non_null(got);
	assert_int_equal(got->track_added, 5);
	assert_int_equal(got->track_freed, 3);
	assert_int_equal(got->track_failed, 1);
	assert_int_equal(got->track_alive, 2);
	recfile__free(r);
	fclose(in);
	free(g.bytes);
	/* A --tree END (format 6's) is read still, its track counters 0. */
	g = with_end(&f, &t, RECFILE_END_TREE_SIZE, 6);
	r = open_file(&g, &in, &e);
	assert_non_null(r);
	while (recfile__next(r, &rec, &size, &e) > 0)
		;
	assert_non_null(recfile__totals(r));
	assert_int_equal(recfile__totals(r)->track_added, 0);
	recfile__free(r);
	fclose(in);
	free(g.bytes);
	/* The counters in a format 6 file, or an END of another size: refused. */
	refused(with_end(&f, &t, sizeof(t), 6), "end block of the wrong size");
	refused(with_end(&f, &t, sizeof(t) - 8, RECFILE_VERSION), "end block of the wrong size");
	refused(with_end(&f, &t, sizeof(t) + 8, RECFILE_VERSION), "end block of the wrong size");
	free(f.bytes);
}

static void test_usyms_refused(void **state)
{
	struct resolved *res = resolve_ok(SPEC_TEXT);
	struct file f = write_file(&res->plan, true), g;
	char big[RECFILE_MAX_USYM_NAME];
	struct block u;
	struct ks_error e;
	const void *rec;
	size_t size;
	FILE *in;
	struct recfile *r;

	resolved_free(res);
	memset(big, 'x', sizeof(big));
	/* The well-formed block is read, and its name is there. */
	g = with_block(&f, usyms_of(2, 2, "f (/a)", 6), RECFILE_VERSION);
	r = open_file(&g, &in, &e);
	assert_non_null(r);
	assert_int_equal(recfile__next(r, &rec, &size, &e), 1);
	expect_usym(r, 42, 0x1001, "f (/a)");
	recfile__free(r);
	fclose(in);
	free(g.bytes);
	/* The longest name a reader takes, and one byte more. */
	g = with_block(&f, usyms_of(1, 1, big, sizeof(big) - 1), RECFILE_VERSION);
	r = open_file(&g, &in, &e);
	assert_non_null(r);
	recfile__free(r);
	fclose(in);
	free(g.bytes);
	refused(with_block(&f, usyms_of(1, 1, big, sizeof(big)), RECFILE_VERSION),
		"user symbol that does not fit, or named twice");
	refused(with_block(&f, usyms_of(1, 1, "", 0), RECFILE_VERSION),
		"user symbol that does not fit, or named twice");
	refused(with_block(&f, usyms_of(1, 1, "a\0b", 3), RECFILE_VERSION),
		"user symbol that does not fit, or named twice");
	/* Named twice: two entries of one (pid, addr). */
	u = usyms_of(2, 2, "f", 1);
	memcpy(u.raw + 4 + 17 + 4, u.raw + 4 + 4, 8);
	refused(with_block(&f, u, RECFILE_VERSION), "user symbol that does not fit, or named twice");
	/* Counts: none, more than a reader takes, more than the block holds, fewer. */
	refused(with_block(&f, usyms_of(0, 0, "", 0), RECFILE_VERSION),
		"user symbols: no name, or more than a reader takes");
	refused(with_block(&f, usyms_of(RECFILE_MAX_USYMS + 1, 1, "f", 1), RECFILE_VERSION),
		"user symbols: no name, or more than a reader takes");
	refused(with_block(&f, usyms_of(3, 2, "f", 1), RECFILE_VERSION),
		"user symbol that does not fit, or named twice");
	refused(with_block(&f, usyms_of(1, 2, "f", 1), RECFILE_VERSION),
		"data after the user symbols");
	/* In a file of format 5, which has no such block. */
	refused(with_block(&f, usyms_of(1, 1, "f", 1), 5), "user symbols in a file of a format before 6");
	free(f.bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_round_trip_prints_the_same),
		TEST(test_cut_short),
		TEST(test_bad_files),
		TEST(test_version_4_host),
		TEST(test_bad_blocks),
		TEST(test_delta_round_trip),
		TEST(test_delta_sizes_vary),
		TEST(test_usyms_round_trip),
		TEST(test_usyms_refused),
		TEST(test_track_end),
	};

	return cmocka_run_group_tests(tests, build_btf, free_btf);
}
