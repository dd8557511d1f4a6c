// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Signatures: what a kernel function or a tracepoint takes and returns,
 * read from BTF.  A function's from its FUNC_PROTO; a tracepoint's types
 * from its btf_trace_<name> typedef and its names from the
 * __bpf_trace_<class> stub of its event class.  The argument slots say
 * which ctx word (or register) holds each argument.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "signature.h"

/* A struct passed by value is split over at most two argument words. */
#define MAX_STRUCT_ARG_SIZE 16


/* BTF may lack parameter names (some tracepoints): call them argN. */
const char *signature__arg_name(int i)
{
	static const char *const names[SIG_MAX_PARAMS] = {
		"arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7",
		"arg8", "arg9", "arg10", "arg11", "arg12", "arg13", "arg14", "arg15",
		"arg16", "arg17", "arg18", "arg19", "arg20", "arg21", "arg22", "arg23",
		"arg24", "arg25", "arg26", "arg27", "arg28", "arg29", "arg30", "arg31",
	};

	return i >= 0 && i < SIG_MAX_PARAMS ? names[i] : "arg";
}

/* Fill params and slots from a FUNC_PROTO, skipping the first SKIP params. */
static int sig_fill_params(const struct btf *btf, const struct btf_type *proto,
			   const struct btf_type *names, int skip,
			   struct signature *sig, struct ks_error *e)
{
	const struct btf_param *p = btf_params(proto);
	const struct btf_param *n = names ? btf_params(names) : NULL;
	int vlen = btf_vlen(proto), i, err = 0;
	char tbuf[128];

	sig->ret_type = proto->type;
	for (i = skip; i < vlen; i++) {
		struct sig_param *sp;
		__s64 size;

		if (i == vlen - 1 && p[i].type == 0) {
			sig->variadic = true;
			break;
		}
		if (sig->nparams >= SIG_MAX_PARAMS)
			return ks_fail(e, -EINVAL, "has more than %d arguments",
				       SIG_MAX_PARAMS);
		sp = &sig->params[sig->nparams++];
		sp->name = btf__name_by_offset(btf, (n ? n[i] : p[i]).name_off);
		if (!sp->name || !*sp->name)
			sp->name = signature__arg_name(sig->nparams - 1);
		sp->type_id = p[i].type;
		sp->slot = sig->nslots;
		size = btf__resolve_size(btf, p[i].type);
		if (size < 0)
			size = 8;
		if (size > MAX_STRUCT_ARG_SIZE && !err)
			err = ks_fail(e, -EINVAL,
				      "argument '%s' (%s) is a struct of %lld bytes passed by value, which cannot be captured",
				      sp->name, btfu_type_str(btf, p[i].type, NULL, tbuf, sizeof(tbuf)),
				      (long long)size);
		sig->nslots += size > 8 ? 2 : 1;
	}
	if (!err && sig->nslots > KSNOOP_MAX_ARGS)
		err = ks_fail(e, -EINVAL,
			      "takes %d argument words; at most %d can be captured",
			      sig->nslots, KSNOOP_MAX_ARGS);
	if (!err && sig->variadic)
		err = ks_fail(e, -EINVAL, "is variadic; its variable arguments cannot be captured");
	return err;
}

int signature__from_func(const struct btf *btf, __u32 func_id, struct signature *sig,
			 struct ks_error *e)
{
	const struct btf_type *func = btf__type_by_id(btf, func_id);
	const struct btf_type *proto;

	memset(sig, 0, sizeof(*sig));
	if (!func || !btf_is_func(func))
		return ks_fail(e, -EIO, "is not a function in BTF");
	proto = btf__type_by_id(btf, func->type);
	if (!proto || !btf_is_func_proto(proto))
		return ks_fail(e, -EIO, "has no prototype in BTF");
	sig->btf = btf;
	sig->func_id = func_id;
	sig->proto_id = func->type;
	sig->has_return = true;
	snprintf(sig->name, sizeof(sig->name), "%s", btfu_name(btf, func->name_off));
	snprintf(sig->attach, sizeof(sig->attach), "%s", btfu_name(btf, func->name_off));
	return sig_fill_params(btf, proto, NULL, 0, sig, e);
}

/* FUNC FID's prototype, if its parameter types are exactly PROTO's. */
static const struct btf_type *same_params(const struct btf *btf, __s32 fid,
					  const struct btf_type *proto)
{
	const struct btf_type *f = btf__type_by_id(btf, fid);
	const struct btf_type *fp;
	const struct btf_param *a, *b;
	int i, n = btf_vlen(proto);

	if (!f || !btf_is_func(f))
		return NULL;
	fp = btf__type_by_id(btf, f->type);
	if (!fp || !btf_is_func_proto(fp) || btf_vlen(fp) != n)
		return NULL;
	a = btf_params(fp);
	b = btf_params(proto);
	for (i = 0; i < n; i++)
		if (a[i].type != b[i].type)
			return NULL;
	return fp;
}

/* One __bpf_trace_<class> stub: its class name and FUNC id. */
struct tp_stub {
	const char *cls;	/* after "__bpf_trace_", in BTF */
	__s32 fid;
};

/*
 * The __bpf_trace_ stubs of one BTF, sorted by class name: found in one
 * pass, so that a glob's signatures do not each scan all of BTF (1,600
 * tracepoints times 150,000 types was 1.3 s of `info 'tp:*'`).
 */
struct tp_stubs {
	const struct btf *btf;
	struct tp_stub *v;
	size_t n;
};

static int stub_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tp_stub *)a)->cls, ((const struct tp_stub *)b)->cls);
}

struct tp_stubs *tp_stubs__new(const struct btf *btf)
{
	struct tp_stubs *s = calloc(1, sizeof(*s));
	__u32 id, n = btf__type_cnt(btf);
	size_t cap = 0;

	if (!s)
		return NULL;
	s->btf = btf;
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *fn;

		if (!btf_is_func(t))
			continue;
		fn = btfu_name(btf, t->name_off);
		if (strncmp(fn, "__bpf_trace_", 12))
			continue;
		if (s->n == cap) {
			struct tp_stub *v = realloc(s->v, (cap = cap ? 2 * cap : 1024) * sizeof(*v));

			if (!v) {
				tp_stubs__free(s);
				return NULL;
			}
			s->v = v;
		}
		s->v[s->n++] = (struct tp_stub){ fn + 12, (__s32)id };
	}
	/* A BTF without stubs leaves v NULL, which qsort() must not see. */
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), stub_cmp);
	return s;
}

void tp_stubs__free(struct tp_stubs *s)
{
	if (!s)
		return;
	free(s->v);
	free(s);
}

/* The stub of class NAME: from STUBS if given, else a scan of BTF. */
static __s32 find_stub(const struct btf *btf, const struct tp_stubs *stubs, const char *name)
{
	char tname[SPEC_MAX_NAME + 32];
	struct tp_stub key = { name, 0 }, *hit;

	if (!stubs) {
		snprintf(tname, sizeof(tname), "__bpf_trace_%s", name);
		return btf__find_by_name_kind(btf, tname, BTF_KIND_FUNC);
	}
	if (!stubs->n)
		return -ENOENT;
	hit = bsearch(&key, stubs->v, stubs->n, sizeof(*stubs->v), stub_cmp);
	return hit ? hit->fid : -ENOENT;
}

/* Whether FUNC ID is a __bpf_trace_ stub; its class name in *CLS. */
static bool is_stub(const struct btf *btf, __u32 id, const char **cls)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	if (!btf_is_func(t))
		return false;
	*cls = btfu_name(btf, t->name_off);
	if (strncmp(*cls, "__bpf_trace_", 12))
		return false;
	*cls += 12;
	return true;
}

/*
 * Find the __bpf_trace_TEMPLATE stub with PROTO's parameter types.  Several
 * templates may share the types; prefer the one whose name shares the
 * longest prefix with the event's name (sched_swap_numa and
 * sched_numa_pair_template share "sched_"), and of those the first in BTF.
 * Over STUBS if given, else over all of BTF.  Returns the FUNC id or 0.
 */
static __s32 find_template_stub(const struct btf *btf, const struct tp_stubs *stubs,
				const char *name, const struct btf_type *proto,
				const struct btf_type **names)
{
	__u32 id, n = stubs ? stubs->n : btf__type_cnt(btf), i;
	size_t best_len = 0;
	__s32 best = 0;

	*names = NULL;
	for (i = stubs ? 0 : 1; i < n; i++) {
		const struct btf_type *fp;
		const char *fn;
		size_t k;

		if (stubs) {
			id = stubs->v[i].fid;
			fn = stubs->v[i].cls;
		} else if (is_stub(btf, i, &fn)) {
			id = i;
		} else {
			continue;
		}
		fp = same_params(btf, id, proto);
		if (!fp)
			continue;
		for (k = 0; fn[k] && fn[k] == name[k]; k++)
			;
		if (!best || k > best_len || (k == best_len && (__s32)id < best)) {
			best = id;
			best_len = k;
			*names = fp;
		}
	}
	return best;
}

/*
 * Tracepoint NAME, whose btf_trace_NAME typedef is ID (0: look it up),
 * its parameter names from STUBS (NULL: look them up in BTF).
 */
static int sig_from_tp(const struct btf *btf, const char *name, __s32 id,
		       const struct tp_stubs *stubs, struct signature *sig)
{
	char tname[SPEC_MAX_NAME + 32];
	const struct btf_type *t, *proto, *names = NULL;
	__s32 fid;

	memset(sig, 0, sizeof(*sig));
	if (strlen(name) > SPEC_MAX_NAME)
		return -ENOENT;
	if (!id) {
		snprintf(tname, sizeof(tname), "btf_trace_%s", name);
		id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
		if (id < 0)
			return -ENOENT;
	}
	/* typedef void (*btf_trace_NAME)(void *__data, ARGS...) */
	t = btf__type_by_id(btf, btfu_strip(btf, id));
	if (!t || !btf_is_ptr(t))
		return -ENOENT;
	proto = btf__type_by_id(btf, t->type);
	if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) < 1)
		return -ENOENT;
	/*
	 * The typedef has no parameter names; the trace stub does.  The stub
	 * is named after the event's class, which is the event itself unless
	 * the event was defined from a shared template (DEFINE_EVENT).
	 */
	fid = find_stub(btf, stubs, name);
	if (fid > 0)
		names = same_params(btf, fid, proto);
	if (!names)
		fid = find_template_stub(btf, stubs, name, proto, &names);
	sig->btf = btf;
	sig->proto_id = t->type;
	sig->func_id = fid > 0 ? (__u32)fid : 0;
	sig->has_return = false;
	snprintf(sig->name, sizeof(sig->name), "tp:%s", name);
	snprintf(sig->attach, sizeof(sig->attach), "%s", name);
	sig_fill_params(btf, proto, names, 1, sig, NULL);
	sig->ret_type = 0;
	return 0;
}

int signature__from_tp(const struct btf *btf, const char *name, struct signature *sig)
{
	return sig_from_tp(btf, name, 0, NULL, sig);
}

int signature__from_tp_typedef(const struct tp_stubs *stubs, const char *name, __u32 typedef_id,
			       struct signature *sig)
{
	return sig_from_tp(stubs->btf, name, (__s32)typedef_id, stubs, sig);
}
