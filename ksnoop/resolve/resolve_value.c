// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A walked chain as a value: how many bytes to copy from where it ends
 * (a pointer to a struct: its object; a char pointer or ":str": the
 * string; a bitfield: the bytes that hold it) and how userspace prints
 * them (struct value_desc), with the ":FORMAT" the item asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "resolve_int.h"

/* An array of 1-byte integers (char, u8, __u8 ...): bytes as a string or in hex. */
bool value__is_byte_array(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));
	const struct btf_type *et;

	if (!t || !btf_is_array(t))
		return false;
	et = btf__type_by_id(btf, btfu_strip(btf, btf_array(t)->type));
	return et && btf_is_int(et) && et->size == 1;
}

/* The value's type, for the format tests: pointer, 64-bit integer, size. */
struct fmt_subject {
	const struct btf *btf;
	__u32 id;
	const struct btf_type *t;	/* typedefs and qualifiers stripped */
	bool ptr, word_int;
	__s64 size;
};

static bool fits_hex(const struct fmt_subject *v)
{
	return btfu_is_scalar(v->btf, v->id) || value__is_byte_array(v->btf, v->id);
}

static bool fits_be(const struct fmt_subject *v)
{
	const struct btf_type *t = v->t;
	bool number = t && (btf_is_any_enum(t) ||
			    (btf_is_int(t) && !(btf_int_encoding(t) & BTF_INT_BOOL)));

	return number && (v->size == 1 || v->size == 2 || v->size == 4 || v->size == 8);
}

/* An integer or enum that is not a bool, as a signal or TCP state is. */
static bool fits_number(const struct fmt_subject *v)
{
	const struct btf_type *t = v->t;

	return t && (btf_is_any_enum(t) || (btf_is_int(t) && !(btf_int_encoding(t) & BTF_INT_BOOL)));
}

static bool fits_sym(const struct fmt_subject *v)
{
	return v->ptr || v->word_int;
}

static bool fits_str(const struct fmt_subject *v)
{
	return v->ptr || v->word_int || value__is_byte_array(v->btf, v->id);
}

/* A char ** (const or not, as execve's argv): a pointer to a char pointer. */
static bool fits_strv(const struct fmt_subject *v)
{
	return v->ptr && btfu_is_char_ptr(v->btf, v->t->type);
}

/* The formats a type decides (":ip" has errors of its own: check_ip()). */
static const struct {
	bool (*fits)(const struct fmt_subject *v);
	const char *takes;	/* for the message when it does not */
} formats[] = {
	[FMT_HEX] = { fits_hex, "an integer, enum, pointer or byte array" },
	[FMT_BE] = { fits_be, "an integer or enum of 1, 2, 4 or 8 bytes" },
	[FMT_SYM] = { fits_sym, "a pointer or 64-bit integer" },
	[FMT_STR] = { fits_str, "a pointer, a 64-bit integer or a byte array" },
	[FMT_SIGNAL] = { fits_number, "an integer or enum" },
	[FMT_TCPSTATE] = { fits_number, "an integer or enum" },
	[FMT_STRV] = { fits_strv, "a char ** (a NULL-terminated array of strings, as argv)" },
};

/* ":ip": a 4- or 16-byte address, or a pointer to one, within --max-bytes. */
static int check_ip(struct rctx *r, const struct spec_item *it, const struct fmt_subject *v)
{
	__s64 psize = v->ptr ? btf__resolve_size(v->btf, v->t->type) : 0;
	__s64 addr = v->size == 4 || v->size == 16 ? v->size :
		     psize == 4 || psize == 16 ? psize : 0;

	/* The whole address or none: --max-bytes bounds every value. */
	if (addr > r->opts->max_bytes)
		return rctx__fail(r, it->fmt_pos, "':ip' on '%s' reads a %lld-byte address, more than --max-bytes (%u)",
				  it->text, (long long)addr, r->opts->max_bytes);
	if (addr)
		return 0;
	return rctx__fail(r, it->fmt_pos, "':ip' on '%s' (%s): an address is 4 bytes (IPv4) or 16 (IPv6), or a pointer to one",
			  it->text, rctx__type_str(r, v->id));
}

/* Whether IT's ":FORMAT" fits the value the chain reached. */
int value__check_format(struct rctx *r, const struct spec_item *it, const struct chain *c)
{
	const struct btf *btf = r->btf;
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, c->type_id));
	const struct fmt_subject v = {
		.btf = btf, .id = c->type_id, .t = t,
		.ptr = t && btf_is_ptr(t), .word_int = t && btf_is_int(t) && t->size == 8,
		.size = btf__resolve_size(btf, c->type_id),
	};
	const char *f = spec_format__str(it->fmt);

	if (!it->fmt)
		return 0;
	if (c->bit_size && it->fmt != FMT_HEX)
		return rctx__fail(r, it->fmt_pos, "':%s' on '%s', a bitfield", f, it->text);
	if (it->fmt == FMT_IP)
		return check_ip(r, it, &v);
	if (it->fmt == FMT_TUPLE)
		return value__check_tuple(r, it, c);
	if (it->fmt == FMT_SYM && r->opts->user_space)
		return rctx__fail(r, it->fmt_pos, "':sym' names kernel code; '%s' is a user-space value",
				  it->text);
	if (formats[it->fmt].fits(&v))
		return 0;
	return rctx__fail(r, it->fmt_pos, "':%s' does not apply to '%s' (%s); it takes %s", f, it->text,
			  rctx__type_str(r, c->type_id), formats[it->fmt].takes);
}

/*
 * ":str(LEN)": the argument LEN, an integer, bounds the string (its
 * value is checked in BPF, where it is known).  0 or the error.
 */
int value__str_len(struct rctx *r, const struct spec_item *it, struct ksnoop_access *acc)
{
	const struct signature *sig = r->sig;
	const struct btf_type *t;
	char list[200] = "";
	size_t n = 0;
	__s64 size;
	int i;

	if (!it->str_len)
		return 0;
	for (i = 0; i < sig->nparams; i++)
		if (strcmp(sig->params[i].name, it->str_len) == 0)
			break;
	if (i == sig->nparams) {
		for (i = 0; i < sig->nparams && n < sizeof(list); i++)
			n += snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				      sig->params[i].name);
		return rctx__fail(r, it->str_len_pos, "':str(%s)': '%s' is not an argument of %s (%s%s)",
				  it->str_len, it->str_len, sig->name,
				  sig->nparams ? "arguments: " : "no arguments", list);
	}
	t = btf__type_by_id(r->btf, btfu_strip(r->btf, sig->params[i].type_id));
	size = btf__resolve_size(r->btf, sig->params[i].type_id);
	if (!t || !(btf_is_int(t) || btf_is_any_enum(t)) || size < 1 || size > 8)
		return rctx__fail(r, it->str_len_pos, "':str(%s)': the length must be an integer argument; '%s' is %s",
				  it->str_len, it->str_len, rctx__type_str(r, sig->params[i].type_id));
	if (sig->params[i].slot >= KSNOOP_MAX_ARGS)
		return rctx__fail(r, it->str_len_pos, "':str(%s)': '%s' is beyond the %d words that can be captured",
				  it->str_len, it->str_len, KSNOOP_MAX_ARGS);
	acc->flags |= KSNOOP_VAL_STR_LEN;
	acc->len_slot = sig->params[i].slot;
	acc->len_width = size;
	if ((btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED)) ||
	    (btf_is_any_enum(t) && btf_kflag(t)))
		acc->len_width |= KSNOOP_LEN_SIGNED;
	return 0;
}

/* A char pointer (or ":str"): the string it points to, at most --str-bytes. */
static int value_string(struct rctx *r, struct chain *c, const struct spec_item *it, int pos,
			struct value_desc *vd)
{
	int err = chain__push_deref(r, c, pos);

	if (!err)
		err = value__str_len(r, it, &c->acc);
	if (err)
		return err;
	c->acc.flags |= KSNOOP_VAL_STR;
	c->acc.size = r->opts->str_bytes;
	vd->how = PRINT_STRING;
	vd->size = vd->obj_size = c->acc.size;
	return 0;
}

/*
 * ':strv': the array a char ** points to, then each string, as ksnoop.h's
 * struct ksnoop_strv bounds them (KSNOOP_STRV_*), within --max-bytes.
 */
static int value_strv(struct rctx *r, struct chain *c, const struct spec_item *it, int pos,
		      struct value_desc *vd)
{
	int err;

	if (sizeof(struct ksnoop_strv) > r->opts->max_bytes)
		return rctx__fail(r, it->fmt_pos, "':strv' on '%s' copies %zu bytes, more than --max-bytes (%u)",
				  it->text, sizeof(struct ksnoop_strv), r->opts->max_bytes);
	err = chain__push_deref(r, c, pos);
	if (err)
		return err;
	c->acc.flags |= KSNOOP_VAL_STRV;
	c->acc.size = sizeof(struct ksnoop_strv);
	vd->how = PRINT_STRV;
	vd->size = vd->obj_size = c->acc.size;
	return 0;
}

/*
 * A u8 * (unsigned char *): the first --str-bytes bytes it points at,
 * NULs and all, printed escaped beside the address.  Its length is not
 * known, so neither is a string's end (":str" reads up to the NUL).
 */
static int value_bytes(struct rctx *r, struct chain *c, int pos, struct value_desc *vd)
{
	const struct btf_type *t = btf__type_by_id(r->btf, btfu_strip(r->btf, c->type_id));
	int err = chain__push_deref(r, c, pos);

	if (err)
		return err;
	c->acc.size = r->opts->str_bytes;
	vd->how = PRINT_BYTES;
	vd->obj_id = t->type;
	vd->size = vd->obj_size = c->acc.size;
	return 0;
}

/* ":str" and ":ip" through a pointer: the bytes it points to. */
static int finish_format(struct rctx *r, struct chain *c, const struct spec_item *it,
			 int pos, struct value_desc *vd)
{
	const struct btf *btf = r->btf;
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, c->type_id));
	__s64 size;
	int err;

	if (it->fmt == FMT_STR && value__is_byte_array(btf, c->type_id)) {
		if (it->str_len)
			return rctx__fail(r, it->str_len_pos, "':str(%s)' on '%s', an array: its size bounds it already",
					  it->str_len, it->text);
		if (c->in_reg)
			return rctx__fail(r, pos, "'%s': array passed by value", it->text);
		size = btf__resolve_size(btf, c->type_id);
		vd->how = PRINT_STRING;
		vd->size = vd->obj_size = size < r->opts->max_bytes ? size : r->opts->max_bytes;
		c->acc.size = vd->size;
		return 0;
	}
	if (it->fmt == FMT_STR)
		return value_string(r, c, it, pos, vd);
	err = chain__push_deref(r, c, pos);
	if (err)
		return err;
	vd->how = PRINT_DEREF;
	vd->obj_id = t->type;
	vd->obj_size = vd->size = c->acc.size = btf__resolve_size(btf, t->type);
	return 0;
}

/* A pointer to a struct of PSIZE bytes: the struct, at most --max-bytes. */
static int value_object(struct rctx *r, struct chain *c, int pos, __s64 psize,
			struct value_desc *vd)
{
	const struct btf_type *t = btf__type_by_id(r->btf, btfu_strip(r->btf, c->type_id));
	int err = chain__push_deref(r, c, pos);

	if (err)
		return err;
	vd->how = PRINT_DEREF;
	vd->obj_id = t->type;
	/* Spelled here, not per event: a btf_dump is costly to set up. */
	btfu_type_str(r->btf, t->type, NULL, vd->obj_name, sizeof(vd->obj_name));
	vd->obj_size = psize;
	vd->size = psize < r->opts->max_bytes ? psize : r->opts->max_bytes;
	c->acc.size = vd->size;
	return 0;
}

/* The value itself: the register word, a bitfield's bytes, or its own. */
static int value_plain(struct rctx *r, struct chain *c, const char *text, int pos,
		       struct value_desc *vd)
{
	__s64 size = btf__resolve_size(r->btf, c->type_id);

	if (size <= 0)
		return rctx__fail(r, pos, "'%s' has type %s, which has no size", text,
				  rctx__type_str(r, c->type_id));
	if (c->in_reg) {
		if (size > 8)
			return rctx__fail(r, pos, "'%s': a struct passed by value cannot be captured yet", text);
		c->acc.flags |= KSNOOP_VAL_REG;
		c->acc.size = 8;
		vd->size = vd->obj_size = size;
		return 0;
	}
	if (c->bit_size) {
		vd->bit_off = c->bit_off;
		vd->bit_size = c->bit_size;
		size = (c->bit_off + c->bit_size + 7) / 8;
	}
	vd->obj_size = size;
	vd->size = size < r->opts->max_bytes ? size : r->opts->max_bytes;
	c->acc.size = vd->size;
	return 0;
}

/* The size of the struct a pointer points to (0: not one, or incomplete). */
static __s64 pointee_size(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	if (!btfu_is_struct_ptr(btf, id))
		return 0;
	return btf__resolve_size(btf, t->type);
}

/*
 * Whether the value is a return code, as the kernel returns errors: a
 * kernel function's return (an int or a long, or a pointer: ERR_PTR), a
 * system call's (sys:NAME's return, sys_exit_NAME's 'ret').  Arguments
 * are left alone: a negative one is mostly just a number (AT_FDCWD).
 */
bool value__is_error_code(const struct rctx *r, const struct chain *c, const char *base)
{
	const struct signature *sig = r->sig;
	const struct btf_type *t = btf__type_by_id(r->btf, btfu_strip(r->btf, c->type_id));
	bool exit_ret = sig->syscall == SIG_SYSCALL_EVENT && !strncmp(sig->attach, "sys_exit_", 9) &&
			base && !strcmp(base, "ret");

	if (!t || !c->in_reg || (c->acc.src != KSNOOP_SRC_RET && !exit_ret))
		return false;
	if (btf_is_ptr(t))
		return sig->syscall == SIG_NOT_SYSCALL && !r->opts->user_space;
	return btf_is_int(t) && (t->size == 4 || t->size == 8) &&
	       (btf_int_encoding(t) & BTF_INT_SIGNED);
}

/*
 * ":tcpstate": the kernel's own enum of TCP states (include/net/tcp_states.h,
 * anonymous in BTF), found by the enumerator TCP_ESTABLISHED; the value is
 * then printed as that enum, so a state a later kernel adds is named too.
 * One pass over the types, once per value of the spec.
 */
#define TCP_STATE_ENUMERATOR	"TCP_ESTABLISHED"

static __u32 tcp_state_enum(const struct btf *btf)
{
	__u32 id, n = btf__type_cnt(btf);
	const char *name;
	int i;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_any_enum(t))
			continue;
		for (i = 0; i < btf_vlen(t); i++) {
			btfu_enumerator(btf, t, i, &name);
			if (strcmp(name, TCP_STATE_ENUMERATOR) == 0)
				return id;
		}
	}
	return 0;
}

/* VD prints as the TCP state enum, of its own size; 0 or the error. */
static int value_tcpstate(struct rctx *r, struct chain *c, const struct spec_item *it, int pos,
			  struct value_desc *vd)
{
	__u32 id = tcp_state_enum(r->btf);
	int err;

	if (!id)
		return rctx__fail(r, it->fmt_pos, "':tcpstate' on '%s': %s has no enum with %s",
				  it->text, r->opts->types_where ? r->opts->types_where : "this BTF",
				  TCP_STATE_ENUMERATOR);
	if (btf__resolve_size(r->btf, id) != btf__resolve_size(r->btf, c->type_id))
		return rctx__fail(r, it->fmt_pos, "':tcpstate' on '%s' (%s): the kernel's TCP states are %lld bytes",
				  it->text, rctx__type_str(r, c->type_id),
				  (long long)btf__resolve_size(r->btf, id));
	err = value_plain(r, c, it->text, pos, vd);
	vd->type_id = vd->obj_id = id;
	vd->fmt = FMT_NONE;
	return err;
}

/* "VALUE >> N": an integer or enum, shown as a number or in hex. */
static int check_shift(struct rctx *r, const struct spec_item *it, const struct chain *c,
		       struct value_desc *vd)
{
	const struct btf_type *t = btf__type_by_id(r->btf, btfu_strip(r->btf, c->type_id));

	if (!t || !(btf_is_any_enum(t) || (btf_is_int(t) && !(btf_int_encoding(t) & BTF_INT_BOOL))))
		return rctx__fail(r, it->shift_pos, "'%s': a shift applies to an integer or enum, not %s",
				  it->text, rctx__type_str(r, c->type_id));
	if (it->fmt && it->fmt != FMT_HEX)
		return rctx__fail(r, it->shift_pos, "'%s': a shifted value prints as a number, or in hex (:hex); not ':%s'",
				  it->text, spec_format__str(it->fmt));
	vd->shift = it->shift;
	vd->errno_names = false;
	return 0;
}

int value__from_chain(struct rctx *r, struct chain *c, const struct spec_item *it,
		      const char *text, int pos, struct value_desc *vd)
{
	const struct btf_type *t = btf__type_by_id(r->btf, btfu_strip(r->btf, c->type_id));
	__s64 psize;
	int err;

	memset(vd, 0, sizeof(*vd));
	vd->text = text;
	vd->type_id = c->type_id;
	vd->obj_id = c->type_id;
	vd->how = PRINT_VALUE;
	vd->fmt = it->fmt;
	vd->errno_names = !it->fmt && value__is_error_code(r, c, it->base);

	err = value__check_format(r, it, c);
	if (!err && it->shift)
		err = check_shift(r, it, c, vd);
	if (err)
		return err;
	if (it->fmt == FMT_STR || (it->fmt == FMT_IP && t && btf_is_ptr(t)))
		return finish_format(r, c, it, pos, vd);
	if (it->fmt == FMT_TUPLE)
		return value__tuple(r, c, it, pos, vd);
	if (it->fmt == FMT_TCPSTATE)
		return value_tcpstate(r, c, it, pos, vd);
	if (it->fmt == FMT_STRV)
		return value_strv(r, c, it, pos, vd);
	/* ":hex" and ":sym" show a pointer itself, not what it points to. */
	if (it->fmt == FMT_HEX || it->fmt == FMT_SYM || it->fmt == FMT_SIGNAL)
		return value_plain(r, c, text, pos, vd);
	if (btfu_is_char_ptr(r->btf, c->type_id))
		return value_string(r, c, it, pos, vd);
	if (btfu_is_byte_ptr(r->btf, c->type_id))
		return value_bytes(r, c, pos, vd);
	/* A pointer to an incomplete type prints as an address. */
	psize = pointee_size(r->btf, c->type_id);
	if (psize > 0)
		return value_object(r, c, pos, psize, vd);
	return value_plain(r, c, text, pos, vd);
}
