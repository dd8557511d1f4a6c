// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the spec parser (ksnoop/spec/spec.c).
 *
 * The first byte picks the language: a kernel function spec, the same with
 * "tp:" or "sys:" in front (a tracepoint, a system call), or a USDT spec;
 * the rest, up to a NUL, is
 * the text, as it would come from argv.  Besides the sanitizers, the parse
 * must keep the promises the resolver relies on: limits held, every column
 * inside the text, an error always has a message.  The text is also
 * read as --by's list of keys (spec__parse_by()).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "spec.h"

#define check(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static void check_name(const char *s)
{
	check(s && *s && strlen(s) <= SPEC_MAX_NAME);
}

static void check_pos(int pos, size_t len)
{
	check(pos >= 1 && (size_t)pos <= len + 1);
}

static void check_spec(const struct spec *s, const char *text)
{
	size_t len = strlen(text);
	int i, j;

	check(s->text && strcmp(s->text, text) == 0);
	check(s->target && *s->target);
	check_pos(s->target_pos, len);
	check(s->nitems >= 0 && s->nitems <= SPEC_MAX_ITEMS);
	check(s->has_list || s->nitems == 0);
	check(s->ndecls >= 0 && s->ndecls <= SPEC_MAX_DECLS);
	check(!s->ndecls || s->kind != SPEC_USDT);
	check(!s->module || (s->kind == SPEC_KFUNC && *s->module));
	for (i = 0; i < s->ndecls; i++) {
		check(s->decls[i].type && *s->decls[i].type && strlen(s->decls[i].type) <= SPEC_MAX_TYPE);
		check_name(s->decls[i].name);
		check_pos(s->decls[i].type_pos, len);
		check_pos(s->decls[i].name_pos, len);
	}
	for (i = 0; i < s->nitems; i++) {
		const struct spec_item *it = &s->items[i];

		check_name(it->base);
		check_pos(it->base_pos, len);
		check(it->text && *it->text);
		check(it->nsteps >= 0 && it->nsteps <= SPEC_MAX_STEPS);
		check((unsigned)it->fmt < FMT_NR);
		/* ':str(LEN)': a length argument goes with ':str' only. */
		check(!it->str_len || (it->fmt == FMT_STR && *it->str_len));
		if (it->str_len)
			check_pos(it->str_len_pos, len);
		check(!it->fmt || (it->fmt_pos > 0 && (size_t)it->fmt_pos <= len));
		for (j = 0; j < it->nsteps; j++) {
			const struct spec_step *st = &it->steps[j];

			check_pos(st->pos, len);
			check_pos(st->op_pos, len);
			if (st->kind == STEP_INDEX || st->kind == STEP_DEREF)
				check(st->index >= 0 && st->index <= INT32_MAX && !st->member &&
				      !st->type);
			else if (st->kind == STEP_CAST)
				check(st->type && *st->type && strlen(st->type) <= SPEC_MAX_TYPE &&
				      !st->member &&
				      (!st->usdt_word || s->kind == SPEC_USDT));
			else
				check_name(st->member);
		}
		if (!it->has_pred)
			continue;
		check(it->op >= KSNOOP_OP_EQ && it->op <= KSNOOP_OP_GE);
		check(strcmp(spec_op__str(it->op), "?") != 0);
		check_pos(it->op_pos, len);
		check_pos(it->cst.pos, len);
		switch (it->cst.kind) {
		case CONST_INT:
			check(!it->cst.str && (!it->cst.neg || it->cst.mag));
			break;
		case CONST_STR:
			check(it->cst.str && strlen(it->cst.str) <= SPEC_MAX_STR);
			break;
		case CONST_NAME:
			check_name(it->cst.str);
			break;
		}
	}
}

/*
 * The same text as --by's KEY[,KEY]...: at most KSNOOP_BY_PARTS parts,
 * none empty, none twice, one VALUE at most; or one line why.
 */
static void check_by(const char *text)
{
	struct ks_error err;
	struct spec_by by;
	int i, j, values = 0;

	if (spec__parse_by(text, &by, &err)) {
		check(err.msg[0] && memchr(err.msg, 0, sizeof(err.msg)));
		return;
	}
	check(by.n >= 1 && by.n <= KSNOOP_BY_PARTS);
	for (i = 0; i < by.n; i++) {
		check(by.part[i][0] && !strchr(by.part[i], ','));
		check(by.word[i] == spec__by_word(by.part[i]));
		values += by.word[i] == KSNOOP_BY_NONE;
		check(by.word[i] != KSNOOP_BY_NONE || by.value == i);
		for (j = 0; j < i; j++)
			check(strcmp(by.part[i], by.part[j]));
	}
	check(values <= 1 && (values == 1) == (by.value >= 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefix[] = { "", "tp:", "", "sys:" };
	struct ks_error err;
	struct spec spec;
	enum spec_kind kind;
	size_t n, plen;
	char *text;
	int ret;

	if (size < 1)
		return 0;
	kind = data[0] % 4 == 2 ? SPEC_USDT : SPEC_KFUNC;
	plen = strlen(prefix[data[0] % 4]);
	n = strnlen((const char *)data + 1, size - 1);	/* argv ends at a NUL */
	text = malloc(plen + n + 1);
	if (!text)
		return 0;
	memcpy(text, prefix[data[0] % 4], plen);
	memcpy(text + plen, data + 1, n);
	text[plen + n] = 0;

	check_by(text);
	ret = spec__parse(text, kind, &spec, &err);
	if (ret == 0) {
		const char *t = text + strspn(text, " \t");

		/* tp:NAME and sys:NAME are tracepoints (sys: a pair of them), u: user functions. */
		check(kind == SPEC_USDT ? spec.kind == SPEC_USDT :
		      spec.kind == (!strncmp(t, "tp:", 3) || !strncmp(t, "sys:", 4) ? SPEC_TP :
				    !strncmp(t, "u:", 2) ? SPEC_UFUNC : SPEC_KFUNC));
		check_spec(&spec, text);
	} else {
		check(ret == -EINVAL || ret == -ENOMEM);
		if (ret == -EINVAL) {
			check(err.err == ret && err.msg[0] && memchr(err.msg, 0, sizeof(err.msg)));
			check(err.pos >= 0 && (size_t)err.pos <= strlen(text) + 1);
		}
	}
	spec__free(&spec);
	/* spec__free leaves a zeroed spec: freeing twice must be harmless. */
	spec__free(&spec);
	free(text);
	return 0;
}
