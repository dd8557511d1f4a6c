// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "printing.h"

static int symbolize(void *ctx, __u64 addr, char *buf, size_t sz)
{
	return kernel__symbolize(ctx, addr, buf, sz);
}

static int symbolize_any(void *ctx, __u64 addr, char *buf, size_t sz)
{
	return kernel__symbolize_any(ctx, addr, buf, sz);
}

struct print_opts printing__opts(const struct options *o, struct kernel *k, bool named,
				 __s64 clock_offset_ns)
{
	return (struct print_opts){
		.format = o->format,
		.zeros = o->zeros,
		.oneline = o->oneline,
		.limit_depth = o->has_depth,
		.max_depth = o->depth,
		.clock_offset_ns = clock_offset_ns,
		.symbolize = named ? symbolize : NULL,
		.symbolize_any = named ? symbolize_any : NULL,
		.sym_ctx = k,
	};
}

void printing__init(struct printer *p, struct report *r, FILE *out, const struct options *o,
		    const struct print_opts *popts)
{
	printer__init(p, out, popts);
	report__init(r, out, o->format);
}
