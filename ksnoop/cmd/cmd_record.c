// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ksnoop record -o FILE SPEC...`: a trace (cmd_trace.c: the same specs,
 * targets, attach and loop) whose events go to a record file (recfile.c)
 * instead of the printer.  Here: what the trace's targets and kernel give
 * the file, and the options that belong to `report` instead.
 *
 * Kernel symbols: when the records name kernel addresses (-s stacks,
 * ':sym', function pointers in the values' types) the file takes the
 * lines of /proc/kallsyms that ksnoop's symbol tables read, as they are
 * after attaching (so the tracer's own frames have their names), and
 * `report` names addresses from them exactly as the live run would have.
 * User stacks (--ustack, a USDT probe's or a user function's -s) are
 * named here, as they come, by the same lookup (usym.c) the live run
 * prints them with: the file carries each (process, address)'s name, not
 * the processes' objects, so `report` on another machine, long after the
 * processes exited, prints the live run's frames (docs/RECORD-FORMAT.md,
 * USYMS).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "log.h"
#include "cmd_record.h"
#include "targets.h"

#ifndef KSNOOP_VERSION
#define KSNOOP_VERSION "unknown"
#endif

/* kallsyms is ~6 MB on a distribution kernel: read no more than a block holds. */
#define KALLSYMS_MAX	RECFILE_MAX_BLOCK

int record__check_options(const struct options *o)
{
	const char *refused = o->json ? "-j" : o->oneline ? "--oneline" :
			      o->has_depth ? "--depth" : o->zeros ? "-z" : NULL;

	if (!o->record_path) {
		log_error("record: expected -o FILE (-o - for stdout)");
		return -EINVAL;
	}
	if (refused) {
		log_error("record: %s chooses how a recording prints: give %s to `ksnoop report`",
			  refused, refused);
		return -EINVAL;
	}
	if (o->interval_ms || o->folded || o->group) {
		log_error("record: %s chooses how a recording prints: give it to `ksnoop report`",
			  o->interval_ms ? "--interval" : o->folded ? "--folded" : "--group");
		return -EINVAL;
	}
	if (o->pair) {
		log_error("record: --pair is not recorded yet");
		return -EINVAL;
	}
	if (o->output == OUTPUT_STATS) {
		log_error("record: --stats is not recorded yet");
		return -EINVAL;
	}
	if (!strcmp(o->record_path, "-") && isatty(STDOUT_FILENO)) {
		log_error("record: -o - writes a binary file to stdout, which is a terminal; pipe it or name a file");
		return -EINVAL;
	}
	return 0;
}

/* The lines of kallsyms the symbol tables take (ksyms.c: text and data), in its order. */
static char *read_kallsyms(size_t *len)
{
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	size_t cap = 8 << 20, have = 0;
	char *buf = fd >= 0 ? malloc(cap) : NULL;
	ssize_t n;

	while (buf && have < KALLSYMS_MAX) {
		if (have == cap) {
			char *p = realloc(buf, cap *= 2);

			if (!p)
				break;
			buf = p;
		}
		n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += n;
	}
	if (fd >= 0)
		close(fd);
	/* A last line cut by the limit is left out. */
	while (have && buf[have - 1] != '\n')
		have--;
	*len = have;
	return buf;
}

static bool names_addresses(const struct target_list *tl, bool stack)
{
	int i, kind, v;

	if (stack)
		return true;
	for (i = 0; i < tl->n; i++)
		for (kind = 0; kind < KSNOOP_NR_KINDS; kind++)
			for (v = 0; v < tl->v[i].plan.nvalues[kind]; v++)
				if (tl->v[i].plan.values[kind][v].fmt == FMT_SYM)
					return true;
	return false;
}

/*
 * record --count, record --hist: BPF captures the events as a plain
 * record would (O's output becomes OUTPUT_EVENTS, its --by goes), and
 * the HEADER says what `report FILE` makes of them: the table the live
 * run would have printed, counted at report time (cmd_report.c).
 */
void record__aggregate_later(struct options *o)
{
	if (o->output != OUTPUT_COUNT && o->output != OUTPUT_HIST)
		return;
	o->record_output = o->output;
	o->record_by = o->by;
	o->output = OUTPUT_EVENTS;
	o->by = NULL;
}

int record__begin(struct recfile_writer *w, const struct target_list *tl,
		  const struct spec *specs, int nspecs, const struct options *o, bool usdt,
		  __s64 clock_offset_ns, struct ks_error *e)
{
	bool stack = o->stack;
	struct recfile_target *rt = calloc(tl->n ? tl->n : 1, sizeof(*rt));
	char **texts = calloc(nspecs ? nspecs : 1, sizeof(*texts));
	struct recfile_meta m = {
		.version = KSNOOP_VERSION, .clock = "monotonic",
		.clock_offset_ns = clock_offset_ns, .kind = usdt ? RECFILE_USDT : RECFILE_KERNEL,
		.stack = stack, .nspecs = nspecs, .specs = texts,
		.output = o->record_output == OUTPUT_COUNT ? RECFILE_OUT_COUNT :
			  o->record_output == OUTPUT_HIST ? RECFILE_OUT_HIST : RECFILE_OUT_EVENTS,
		.by = (char *)o->record_by,
	};
	struct utsname u = {};
	struct timespec ts;
	char *ksyms = NULL;
	size_t ksyms_len = 0;
	int i, err;

	if (!rt || !texts) {
		free(rt);
		free(texts);
		return ks_fail(e, -ENOMEM, "out of memory");
	}
	uname(&u);
	m.release = u.release;
	m.machine = u.machine;
	m.host = u.nodename;
	if (m.output == RECFILE_OUT_HIST) {
		m.hist_min = o->hist_min;
		m.hist_step = o->hist_step;
		m.hist_nbuckets = o->hist_nbuckets;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	m.start_ns = (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	for (i = 0; i < nspecs; i++)
		texts[i] = (char *)specs[i].text;
	for (i = 0; i < tl->n; i++) {
		rt[i].label = (char *)tl->v[i].label;
		rt[i].plan = tl->v[i].plan;
	}
	/* Function pointers in the values' types are named too: the writer decides. */
	if (!usdt)
		ksyms = read_kallsyms(&ksyms_len);
	err = recfile_writer__begin(w, &m, rt, tl->n, ksyms, ksyms_len,
				    names_addresses(tl, stack), e);
	free(ksyms);
	free(rt);
	free(texts);
	return err;
}

int record__finish(struct recfile_writer *w, const char *path, const struct recfile_totals *t,
		   struct ks_error *e)
{
	int err = recfile_writer__finish(w, t, e);

	if (err)
		return err;
	log_note("%llu events recorded to %s (%llu bytes), %llu lost%s",
		 (unsigned long long)recfile_writer__records(w),
		 strcmp(path, "-") ? path : "stdout",
		 (unsigned long long)recfile_writer__bytes(w), (unsigned long long)t->lost,
		 t->unwritten ? ", some captured but not written (stopped first)" : "");
	return 0;
}

/* Is value VD of PLAN a user stack?  As print.c's print_values() decides. */
static bool user_stack(const struct capture_plan *plan, const struct value_desc *vd)
{
	return vd->how == PRINT_USTACK ||
	       (vd->how == PRINT_STACK && (plan->bpf.flags & KSNOOP_PLAN_USER_MEM) &&
		plan->sig.syscall == SIG_NOT_SYSCALL);
}

/* The frames of one user stack VH, up to its first 0 (print.c), named if new. */
static int name_frames(struct recfile_writer *w, const struct ksnoop_value *vh, __u32 pid,
		       print_usymbolize_fn usymbolize, void *ctx, struct ks_error *e)
{
	const __u64 *ips = (const __u64 *)(vh + 1);
	__u32 n = vh->len / 8, i;
	char sym[RECFILE_MAX_USYM_NAME];
	int err;

	if ((vh->status & KSNOOP_STATUS_MASK) != KSNOOP_OK)
		return 0;
	for (i = 0; i < n && i < KSNOOP_STACK_DEPTH && ips[i]; i++) {
		if (recfile_writer__has_usym(w, pid, ips[i]) ||
		    usymbolize(ctx, pid, ips[i], sym, sizeof(sym)))
			continue;
		err = recfile_writer__usym(w, pid, ips[i], sym, e);
		if (err)
			return err == -E2BIG ? 0 : err;
	}
	return 0;
}

int record__name_ustacks(struct recfile_writer *w, const struct capture_plan *plan,
			 const void *rec, size_t size, print_usymbolize_fn usymbolize, void *ctx,
			 struct ks_error *e)
{
	const struct ksnoop_event *ev = rec;
	const struct ksnoop_side_plan *side;
	int i, err;

	if (!usymbolize || size < sizeof(*ev) || ev->kind >= KSNOOP_NR_KINDS)
		return 0;
	side = &plan->bpf.side[ev->kind];
	for (i = 0; i < plan->nvalues[ev->kind]; i++) {
		const struct ksnoop_value *vh;
		size_t off = side->values[i].rec_off;

		if (!user_stack(plan, &plan->values[ev->kind][i]) ||
		    off + sizeof(*vh) > size)
			continue;
		vh = (const void *)((const char *)rec + off);
		if (vh->len > size - off - sizeof(*vh))
			continue;
		err = name_frames(w, vh, ev->tgid, usymbolize, ctx, e);
		if (err)
			return err;
	}
	return 0;
}
