// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: a record file, as `ksnoop report FILE` reads it,
 * through the reader (recfile.c) and the printer (text and JSON), and
 * its packets (format 6) through report --pcap's writer (pcap_events.c).
 *
 * Input: a first byte, then
 *   even  the file's bytes, as they are (magic, block headers, checksums,
 *         zlib streams: the container);
 *   odd   blocks before they are stored: [type u8][length u32][bytes]...,
 *         which the target compresses (zlib, version 2's codec: the
 *         cheaper to fuzz; zstd frames come in the even form) and
 *         checksums into a well-formed file; the type's bit 7 is
 *         RECFILE_BLOCK_DELTA (records as changed words).  A mutation of a zlib stream almost never survives its
 *         checksum, so this is how the fuzzer reaches what the blocks
 *         hold: the header, the BTF, the plans and the records.
 * Seeds (corpus/recfile/) are real recordings (tests/fixture/record/)
 * in the odd form (tests/fuzz/gen-corpus), usdt-ustack's with a USYMS
 * block (format 6: user frames' names, which the printers look up);
 * pcap-v6 is one of record --pcap (two packets, its KSYMS block left
 * out), kept as committed.  What must hold: no crash, no read outside a
 * record (ASan), a bounded walk (-timeout), and every refusal a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pcap_events.h"
#include "print.h"
#include "rec_merge.h"
#include "rec_query.h"
#include "tree_print.h"
#include "recfile.h"
#include "kernel.h"

#define check(cond) do { if (!(cond)) __builtin_trap(); } while (0)
/* Records printed per input: enough for the fuzzer, bounded per run. */
#define MAX_RECORDS	64

static FILE *devnull;

/* The odd form made a file: magic, then each block compressed, with its CRC. */
static size_t build_file(const uint8_t *in, size_t n, uint8_t **out)
{
	size_t cap = RECFILE_MAGIC_LEN + n * 2 + 1024, len = RECFILE_MAGIC_LEN;
	uint8_t *f = malloc(cap);

	if (!f)
		return 0;
	memcpy(f, RECFILE_MAGIC, RECFILE_MAGIC_LEN);
	while (n >= 5) {
		__u32 hdr[4], blen;
		uLongf stored;

		memcpy(&blen, in + 1, 4);
		if (blen > n - 5)
			blen = n - 5;
		stored = compressBound(blen);
		if (len + 16 + stored > cap) {
			uint8_t *p = realloc(f, cap = len + 16 + stored + 1024);

			if (!p)
				break;
			f = p;
		}
		if (compress2(f + len + 16, &stored, in + 5, blen, 1) != Z_OK)
			break;
		hdr[0] = (in[0] & 0x7f) | (in[0] & 0x80 ? RECFILE_BLOCK_DELTA : 0);
		hdr[1] = blen;
		hdr[2] = stored;
		hdr[3] = crc32(0, f + len + 16, stored);
		memcpy(f + len, hdr, 16);
		len += 16 + stored;
		in += 5 + blen;
		n -= 5 + blen;
	}
	*out = f;
	return len;
}

static int symbolize(void *ctx, __u64 addr, char *buf, size_t sz)
{
	return kernel__symbolize(ctx, addr, buf, sz);
}

static int symbolize_any(void *ctx, __u64 addr, char *buf, size_t sz)
{
	return kernel__symbolize_any(ctx, addr, buf, sz);
}

/* The file's KSYMS, as report hands them to the symbol tables: a memfd. */
static struct kernel *file_ksyms(struct recfile *r, int *fd, char *path, size_t sz)
{
	size_t len;
	const char *ks = recfile__ksyms(r, &len);
	struct kernel *k;

	*fd = -1;
	if (!ks || (*fd = memfd_create("fuzz-kallsyms", MFD_CLOEXEC)) < 0)
		return NULL;
	if (write(*fd, ks, len) != (ssize_t)len || !(k = kernel__new(NULL)))
		return NULL;
	snprintf(path, sz, "/proc/self/fd/%d", *fd);
	kernel__set_kallsyms_path(k, path);
	return k;
}

static const struct capture_plan *plan_of(void *ctx, __u32 func_id)
{
	struct recfile *r = ctx;

	return func_id < (__u32)recfile__ntargets(r) ? &recfile__target(r, func_id)->plan : NULL;
}

static void print_records(struct recfile *r)
{
	char path[32];
	int fd;
	struct kernel *k = file_ksyms(r, &fd, path, sizeof(path));
	/* User stacks named from the file's USYMS, as report names them (format 6). */
	struct print_opts text = { .format = REPORT_TEXT, .zeros = true, .symbolize = k ? symbolize : NULL,
				   .symbolize_any = k ? symbolize_any : NULL, .sym_ctx = k,
				   .usymbolize = recfile__usymbolize, .usym_ctx = r };
	struct print_opts json = { .format = REPORT_JSON, .symbolize = k ? symbolize : NULL,
				   .symbolize_any = k ? symbolize_any : NULL, .sym_ctx = k,
				   .usymbolize = recfile__usymbolize, .usym_ctx = r };
	struct printer pt, pj;
	struct tree_print tt = {}, tj = {};	/* a recording of --tree: as report prints it */
	struct ks_error e = {};
	const void *rec;
	size_t size;
	int n = 0, ret;

	/*
	 * Report-time questions over the same records: every target, a
	 * predicate on returns, and one on a member inside a struct recorded
	 * whole (the usdt seed's chain dumps a struct node: rec_query__locate()
	 * over the file's BTF and plan, the member read from the record's bytes
	 * as report --hist and --by read it).
	 */
	char *every[] = { "*" }, *failing[] = { "*(return < 0)" };
	char *member[] = { "ksnoop_test:chain(arg0:struct node *->id >= 1)" };
	struct ks_error qe = {};
	struct rec_query *qa = rec_query__new(r, every, 1, &qe);
	struct rec_query *qf = rec_query__new(r, failing, 1, &qe);
	struct rec_query *qm = rec_query__new(r, member, 1, &qe);

	/* report --pcap: a recording's packets (format 6) written as pcapng, to nowhere. */
	struct pcap_events *pcap = pcap_events__open("/dev/null", 0, &e);

	check(pcap);
	printer__init(&pt, devnull, &text);
	printer__init(&pj, devnull, &json);
	while (n++ < MAX_RECORDS && (ret = recfile__next(r, &rec, &size, &e)) > 0) {
		const struct ksnoop_event *ev = rec;
		/* A copy of exactly the record: ASan sees a read past it. */
		void *copy = malloc(size);

		check(copy);
		memcpy(copy, rec, size);
		const struct capture_plan *plan = &recfile__target(r, ev->func_id)->plan;

		if (plan->bpf.tree) {
			tree_print__event(&tt, 0, &pt, plan, copy, size, plan_of, r);
			tree_print__event(&tj, 0, &pj, plan, copy, size, plan_of, r);
		} else {
			printer__event(&pt, plan, copy, size);
			printer__event(&pj, plan, copy, size);
		}
		pcap_events__event(pcap, plan, "fuzz", copy, size, &qe);
		if (qa)
			check(rec_query__keep(qa, copy));
		if (qf)
			rec_query__keep(qf, copy);
		if (qm)
			rec_query__keep(qm, copy);
		free(copy);
	}
	if (n <= MAX_RECORDS && ret < 0)
		check(e.msg[0] && memchr(e.msg, 0, sizeof(e.msg)));
	pcap_events__close(pcap, NULL);
	rec_query__free(qa);
	rec_query__free(qf);
	rec_query__free(qm);
	tree_print__free(&tt);
	tree_print__free(&tj);
	printer__fini(&pt);
	printer__fini(&pj);
	kernel__free(k);
	if (fd >= 0)
		close(fd);
}

/*
 * The file merged with itself (report f.ksr f.ksr): every record of both
 * readers, each once, printed with its host (format 5's, or the name).
 */
static void merge_records(uint8_t *file, size_t len)
{
	FILE *f[2] = { fmemopen(file, len, "r"), fmemopen(file, len, "r") };
	struct recfile *r[2] = {};
	struct rec_merge_source src[2];
	struct print_opts text = { .format = REPORT_TEXT };
	struct rec_merge *m = NULL;
	struct printer pt;
	struct ks_error e = {};
	const void *rec;
	size_t size;
	int i, which, n = 0, ret = 0, seen[2] = {};

	for (i = 0; i < 2 && f[i]; i++) {
		r[i] = recfile__open(f[i], "fuzz", &e);
		if (!r[i])
			break;
		src[i] = (struct rec_merge_source){ rec_merge__recfile_next, r[i],
						    recfile__meta(r[i])->clock_offset_ns };
	}
	if (i == 2)
		m = rec_merge__new(src, 2, &e);
	printer__init(&pt, devnull, &text);
	while (m && n++ < 2 * MAX_RECORDS && (ret = rec_merge__next(m, &rec, &size, &which, &e)) > 0) {
		const struct ksnoop_event *ev = rec;

		check(which == 0 || which == 1);
		seen[which]++;
		pt.opts.host = recfile__meta(r[which])->host;
		pt.opts.clock_offset_ns = recfile__meta(r[which])->clock_offset_ns;
		pt.opts.usymbolize = recfile__usymbolize;
		pt.opts.usym_ctx = r[which];
		printer__event(&pt, &recfile__target(r[which], ev->func_id)->plan, rec, size);
	}
	/* Both readers read the same bytes: neither ends before the other has its records. */
	if (m && n <= 2 * MAX_RECORDS && ret == 0)
		check(seen[0] == seen[1]);
	printer__fini(&pt);
	rec_merge__free(m);
	for (i = 0; i < 2; i++) {
		recfile__free(r[i]);
		if (f[i])
			fclose(f[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ks_error e = {};
	struct recfile *r;
	uint8_t *file = NULL;
	size_t len;
	FILE *f;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (size < 1)
		return 0;
	if (data[0] & 1) {
		len = build_file(data + 1, size - 1, &file);
		if (!file)
			return 0;
	} else {
		len = size - 1;
		file = malloc(len ? len : 1);
		if (!file)
			return 0;
		memcpy(file, data + 1, len);
	}
	f = len ? fmemopen(file, len, "r") : NULL;
	if (f) {
		r = recfile__open(f, "fuzz", &e);
		if (r)
			print_records(r);
		else
			check(e.err < 0 && e.msg[0] && memchr(e.msg, 0, sizeof(e.msg)));
		if (r)
			merge_records(file, len);
		recfile__free(r);
		fclose(f);
	}
	free(file);
	return 0;
}
