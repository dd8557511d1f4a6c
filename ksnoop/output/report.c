// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report's methods (report.h): each hands its record to the format's
 * own (report_text.c, report_json.c).  A new output format is a new
 * report_ops; a new kind of record, one method in each.
 */
#include "report.h"

enum report_format report__format(bool json, bool folded, bool perfetto)
{
	return perfetto ? REPORT_PERFETTO : folded ? REPORT_FOLDED : json ? REPORT_JSON : REPORT_TEXT;
}

const struct report_ops *report__ops(enum report_format format)
{
	return format == REPORT_JSON ? &report_json_ops :
	       format == REPORT_PERFETTO ? &report_perfetto_ops :
	       format == REPORT_FOLDED ? &report_folded_ops : &report_text_ops;
}

void report__writer_init(struct writer *w, FILE *out, const struct report_ops *ops)
{
	writer__init(w, out, ops->writer_json);
}

void report__init(struct report *r, FILE *out, enum report_format format)
{
	r->ops = report__ops(format);
	report__writer_init(&r->wr, out, r->ops);
	r->interval = 0;
	r->interval_ns = 0;
	r->usdt_header = false;
}

bool report__json(const struct report *r)
{
	return r->ops == &report_json_ops;
}

void report__flush(struct report *r)
{
	writer__flush(&r->wr);
}

void report__interval(struct report *r, __u32 n, __u64 time_ns)
{
	r->interval = n;
	r->interval_ns = time_ns;
	r->ops->interval(r);
}

void report__counts_begin(struct report *r, bool stacks, const char *const *by, int nby)
{
	r->ops->counts_begin(r, stacks, by, nby);
}

double report_stats_avg(const struct report_stats *s)
{
	if (!s->count)
		return 0;
	if (s->is_signed)
		return (double)(__s64)s->sum / (double)s->count;
	return (double)s->sum / (double)s->count;
}

void report__stats_begin(struct report *r, const char *const *by, int nby)
{
	r->ops->stats_begin(r, by, nby);
}

void report__stats(struct report *r, const struct report_stats *s)
{
	r->ops->stats(r, s);
}

void report__count(struct report *r, const struct report_count *c)
{
	r->ops->count(r, c);
}

void report__hist(struct report *r, const struct report_hist *h)
{
	r->ops->hist(r, h);
}

void report__info(struct report *r, const struct report_info *info)
{
	r->ops->info(r, info);
}

void report__type(struct report *r, const struct report_type *t)
{
	r->ops->type(r, t);
}

void report__usdt(struct report *r, const struct usdt_file *f, bool titled)
{
	r->ops->usdt(r, f, titled);
}

void report__lost(struct report *r, __u64 lost)
{
	r->ops->lost(r, lost);
}

void report__summary(struct report *r, const struct report_summary *s)
{
	r->ops->summary(r, s);
}
