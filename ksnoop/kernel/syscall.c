// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * System calls typed from tracefs format files (syscall.h).
 *
 * A syscall event's record is the common header (8 bytes), the syscall's
 * number (an int, padded to 8) and then every argument as one 8-byte word
 * (sys_exit: ret).  A perf tracepoint program gets that record as ctx, so
 * the word at offset O is ctx word O / 8: the same reading as a raw
 * tracepoint's arguments, from word 2 on.  Fields past the arguments that
 * are not words (7.3's __data_loc copies of user strings) are left out.
 * Names come from the file; they
 * live as long as the process (a signature is copied by value).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "ksnoop.h"
#include "syscall.h"

/* Field names, kept for the process's lifetime: signatures point at them. */
static const char *intern_name(const char *name)
{
	static char **pool;
	static size_t n, cap;
	size_t i;
	char *copy;

	for (i = 0; i < n; i++)
		if (!strcmp(pool[i], name))
			return pool[i];
	if (n == cap) {
		char **np = realloc(pool, (cap = cap ? 2 * cap : 64) * sizeof(*np));

		if (!np)
			return NULL;
		pool = np;
	}
	copy = strdup(name);
	if (copy)
		pool[n++] = copy;
	return copy;
}

/* "key:VALUE;" in LINE: VALUE as a number into *V; false if absent. */
static bool field_number(const char *line, const char *key, int *v)
{
	const char *p = strstr(line, key);
	char *end;
	long x;

	if (!p)
		return false;
	x = strtol(p + strlen(key), &end, 10);
	if (end == p + strlen(key) || *end != ';' || x < 0 || x > 4096)
		return false;
	*v = (int)x;
	return true;
}

/*
 * "field:DECL;" in LINE: the declaration's type and name (the last
 * identifier; an array's "[N]" stays in the type, which then maps to an
 * integer of the field's size).
 */
static bool field_decl(const char *line, struct syscall_field *f)
{
	const char *d = strstr(line, "field:"), *end, *name;
	size_t tlen, nlen;

	if (!d)
		return false;
	d += 6;
	end = strchr(d, ';');
	if (!end)
		return false;
	while (end > d && isspace((unsigned char)end[-1]))
		end--;
	name = end;
	while (name > d && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	nlen = end - name;
	tlen = name - d;
	while (tlen && isspace((unsigned char)d[tlen - 1]))
		tlen--;
	if (!nlen || !tlen || nlen >= sizeof(f->name) || tlen >= sizeof(f->ctype))
		return false;
	memcpy(f->name, name, nlen);
	f->name[nlen] = 0;
	memcpy(f->ctype, d, tlen);
	f->ctype[tlen] = 0;
	return true;
}

int syscall_format__parse(const char *text, struct syscall_field *fields, int max)
{
	const char *line = text;
	bool seen_field = false;
	int n = 0, sgn;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char buf[256];
		struct syscall_field f = {};
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1),
			 line);
		line = nl ? nl + 1 : NULL;
		if (!strstr(buf, "field:"))
			continue;
		seen_field = true;
		if (!field_decl(buf, &f) || !field_number(buf, "offset:", &f.offset) ||
		    !field_number(buf, "size:", &f.size) || !field_number(buf, "signed:", &sgn))
			return -EINVAL;
		f.is_signed = sgn;
		if (!strncmp(f.name, "common_", 7) || !strcmp(f.name, "__syscall_nr"))
			continue;
		/*
		 * Not an argument: the kernel's copy of a user string argument
		 * (7.3's sys_enter_openat: "__data_loc char[] __filename_val"),
		 * 4 bytes of offset and length into the record's end.  The
		 * argument itself is shown, read from the caller's memory; as
		 * a word of the record (or a raw_tp's sixth argument) this
		 * would be a number, or another register.
		 */
		if (!strncmp(f.ctype, "__data_loc ", 11))
			continue;
		if (n == max)
			return -EINVAL;
		fields[n++] = f;
	}
	return seen_field ? n : -EINVAL;
}

/* The BTF integer of SIZE bytes and that sign, 0 if none. */
static __u32 int_of_size(const struct btf *btf, int size, bool is_signed)
{
	static const char *const names[][2] = {
		/* unsigned, signed */
		{ "unsigned char", "signed char" },
		{ "short unsigned int", "short int" },
		{ "unsigned int", "int" },
		{ "long unsigned int", "long int" },
		{ "long long unsigned int", "long long int" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		__s32 id = btf__find_by_name_kind(btf, names[i][is_signed], BTF_KIND_INT);
		const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;

		if (t && (int)t->size == size)
			return id;
	}
	/* BTF from elsewhere may spell them otherwise: any plain integer. */
	for (i = 1; i < btf__type_cnt(btf); i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (btf_is_int(t) && (int)t->size == size &&
		    !(btf_int_encoding(t) & (BTF_INT_BOOL | BTF_INT_CHAR)) &&
		    !!(btf_int_encoding(t) & BTF_INT_SIGNED) == is_signed)
			return i;
	}
	return 0;
}

/*
 * A pointer to ID: to const ID first where CONST_FIRST (as the format
 * spells it: "const char *"), else to plain ID first; 0 if BTF has none.
 */
static __u32 pointer_to(const struct btf *btf, __u32 id, bool const_first)
{
	__u32 i, n = btf__type_cnt(btf), plain = 0, qualified = 0;

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i), *to;

		if (!btf_is_ptr(t))
			continue;
		if (t->type == id && !plain)
			plain = i;
		to = btf__type_by_id(btf, t->type);
		if (!qualified && to && btf_is_const(to) && to->type == id)
			qualified = i;
		if (plain && qualified)
			break;
	}
	if (const_first)
		return qualified ? qualified : plain;
	return plain ? plain : qualified;
}

/* CTYPE without the words that change nothing read: __user, qualifiers' spacing. */
static void plain_ctype(const char *ctype, char *out, size_t sz)
{
	size_t n = 0;
	const char *p = ctype;

	while (*p && n + 2 < sz) {
		if (!strncmp(p, "__user", 6) && !isalnum((unsigned char)p[6]) && p[6] != '_') {
			p += 6;
			continue;
		}
		if (*p == '*' && n && out[n - 1] != ' ' && out[n - 1] != '*')
			out[n++] = ' ';
		if (isspace((unsigned char)*p)) {
			if (n && out[n - 1] != ' ')
				out[n++] = ' ';
			p++;
			continue;
		}
		out[n++] = *p++;
	}
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = 0;
	/* "char *const *" (argv): the inner const says nothing about the read. */
	for (char *c; (c = strstr(out, "*const")); )
		memmove(c + 1, c + 6, strlen(c + 6) + 1);
	for (char *c; (c = strstr(out, "* *")); )
		memmove(c + 1, c + 2, strlen(c + 2) + 1);
}

__u32 syscall_format__btf_type(const struct btf *btf, const char *ctype, int size,
			       bool is_signed)
{
	static const char *const c_ints[][2] = {
		{ "long", "long int" },
		{ "unsigned long", "long unsigned int" },
		{ "short", "short int" },
		{ "unsigned short", "short unsigned int" },
		{ "long long", "long long int" },
		{ "unsigned long long", "long long unsigned int" },
	};
	char plain[SYSCALL_MAX_CTYPE + 8];
	const struct btf_type *t;
	__u32 id, fallback = int_of_size(btf, size, is_signed);
	int nptrs, i;
	__s64 tsize;

	plain_ctype(ctype, plain, sizeof(plain));
	/* C's spellings of the integers a format uses, as BTF names them. */
	for (i = 0; i < (int)(sizeof(c_ints) / sizeof(c_ints[0])); i++) {
		__s32 iid;

		if (strcmp(plain, c_ints[i][0]))
			continue;
		iid = btf__find_by_name_kind(btf, c_ints[i][1], BTF_KIND_INT);
		if (iid > 0 && btf__resolve_size(btf, iid) <= size)
			return iid;
	}
	if (btfu_find_type(btf, plain, &id, &nptrs))
		return fallback;
	if (!nptrs) {
		/* A typedef of another size (a struct, an array): the raw integer. */
		tsize = btf__resolve_size(btf, id);
		t = btf__type_by_id(btf, btfu_strip(btf, id));
		/* An int in a word of 8 bytes is its low bytes, extended. */
		if (tsize <= 0 || tsize > size || !t || !(btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t) ||
					     btf_is_ptr(t)))
			return fallback;
		return id;
	}
	if (size != 8 && size != (int)sizeof(void *))
		return fallback;
	for (i = 0; i < nptrs; i++) {
		id = pointer_to(btf, id, i == 0 && !strncmp(plain, "const ", 6));
		if (!id)
			return fallback;
	}
	return id;
}

int signature__from_syscall(const struct btf *btf, const char *shown, const char *attach,
			    const char *enter, const char *exit, struct signature *sig,
			    struct ks_error *e)
{
	struct syscall_field f[SYSCALL_MAX_FIELDS];
	int n, i;

	memset(sig, 0, sizeof(*sig));
	sig->btf = btf;
	sig->syscall = enter && exit ? SIG_SYSCALL_PAIR : SIG_SYSCALL_EVENT;
	snprintf(sig->name, sizeof(sig->name), "%s", shown);
	snprintf(sig->attach, sizeof(sig->attach), "%s", attach);
	n = syscall_format__parse(enter ? enter : exit, f, SYSCALL_MAX_FIELDS);
	if (n < 0)
		return ks_fail(e, -EINVAL, "its tracefs format file cannot be read as one");
	for (i = 0; i < n; i++) {
		struct sig_param *sp = &sig->params[sig->nparams];

		if (f[i].offset % 8 || f[i].size > 8 || f[i].offset / 8 >= KSNOOP_MAX_ARGS)
			return ks_fail(e, -EINVAL, "argument '%s' is not a word of its record",
				       f[i].name);
		sp->name = intern_name(f[i].name);
		if (!sp->name)
			return ks_fail(e, -ENOMEM, "out of memory");
		sp->type_id = syscall_format__btf_type(btf, f[i].ctype, f[i].size, f[i].is_signed);
		sp->slot = f[i].offset / 8;
		sig->nparams++;
		if (sp->slot + 1 > sig->nslots)
			sig->nslots = sp->slot + 1;
	}
	if (!(enter && exit))
		return 0;
	n = syscall_format__parse(exit, f, SYSCALL_MAX_FIELDS);
	if (n != 1)
		return ks_fail(e, -EINVAL, "its exit event's tracefs format is not one return value");
	sig->has_return = true;
	sig->ret_type = syscall_format__btf_type(btf, f[0].ctype, f[0].size, f[0].is_signed);
	return 0;
}
