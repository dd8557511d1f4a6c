// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF into BTF, on demand (dwarf_btf.h says what and where from).
 *
 * The file is read whole into memory by pread() and handed to libelf with
 * elf_memory(): a file cut short under us is then an error, not a SIGBUS,
 * and the fuzzer reaches the same code from a buffer.  Compressed debug
 * sections are checked against DWBTF_MAX_INFLATED before libdw inflates
 * them.
 *
 * Opening indexes the functions and variables by name (one walk over the
 * CUs' top-level DIEs and the namespaces and classes in them); types are
 * converted only when a function or variable asks for them, each DIE once
 * (a table from DIE offset to BTF id).  BTF wants a struct's members to
 * follow it, so a struct's member types are converted before the struct
 * itself: a struct that reaches itself by value (hostile DWARF: C cannot
 * say it) is a cycle, refused.  Pointers are what legitimately close a
 * cycle (a list node's `next`), so a pointer is added pointing at void and
 * its target queued; the queue is drained when nothing is half-built, and
 * each pointer is patched to its target's id then.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <zlib.h>
#include <bpf/btf.h>
#include "dwarf_btf.h"

/* A DIE offset's BTF id while its type is being built (a cycle if met). */
#define ID_BUILDING	UINT32_MAX
/* A table slot once used, now free (a failed conversion's). */
#define ID_NONE		(UINT32_MAX - 1)

struct memo_slot {
	__u64 key;		/* DIE offset + 1; 0: never used */
	__u32 id;
};

struct sym {
	const char *name;	/* qualified (in names[]) or NULL until resolved */
	const char *linkage;	/* from the debug strings, or NULL */
	Dwarf_Off off, origin;	/* origin: DW_AT_specification/abstract_origin, or 0 */
	__u64 addr;
	bool func;		/* a function, else a variable */
	bool decl;		/* a declaration only (a prototype, extern) */
	bool code;		/* a function with an out-of-line copy */
	bool var;		/* a variable with a location we read */
	bool tls;
};

struct pending_ptr {
	__u32 id;
	Dwarf_Off off;		/* the pointer's own DIE */
	Dwarf_Die target;
};

struct dwbtf {
	char *name;		/* the file opened, for messages */
	char *source;		/* where the debug information came from */
	char *buf, *dbg_buf;	/* the files, read whole */
	Elf *elf, *dbg_elf;
	Dwarf *dw;
	bool big_endian;
	struct btf *btf;
	size_t btf_bytes;	/* roughly what btf holds, for DWBTF_MAX_BTF */
	__u32 size_type;	/* arrays' index type, once made */
	struct memo_slot *memo;
	size_t memo_cap, memo_used;
	struct sym *syms;
	size_t nsyms, syms_cap;
	char **names;		/* qualified names made, freed with D */
	size_t nnames, names_cap;
	struct pending_ptr *ptrs;
	size_t nptrs, ptrs_cap;
	/* One call's budget. */
	__u64 visits;
	struct timespec deadline;
	struct ks_error *e;
};

static int fail(struct dwbtf *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct dwbtf *d, int err, const char *fmt, ...)
{
	char msg[KS_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ks_fail(d->e, err, "'%s': %s", d->name, msg);
}

/* ---- budget ---------------------------------------------------------- */

static void budget_start(struct dwbtf *d, struct ks_error *e)
{
	d->e = e;
	d->visits = 0;
	clock_gettime(CLOCK_MONOTONIC, &d->deadline);
	d->deadline.tv_sec += DWBTF_MAX_MS / 1000;
}

/* Count one DIE visited; every loop over DIEs calls it. */
static int visit(struct dwbtf *d)
{
	struct timespec now;

	if (++d->visits > DWBTF_MAX_VISITS)
		return fail(d, -E2BIG, "more than %u DIEs visited in one conversion",
			    DWBTF_MAX_VISITS);
	if (d->visits % 4096 == 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > d->deadline.tv_sec ||
		    (now.tv_sec == d->deadline.tv_sec && now.tv_nsec > d->deadline.tv_nsec))
			return fail(d, -E2BIG, "debug information took longer than %d s to read",
				    DWBTF_MAX_MS / 1000);
	}
	return 0;
}

/* ---- DIE offset -> BTF id ------------------------------------------- */

static struct memo_slot *memo_find(struct dwbtf *d, __u64 key)
{
	size_t mask = d->memo_cap - 1, i;

	for (i = (key * 0x9E3779B97F4A7C15ULL) >> 20 & mask;; i = (i + 1) & mask)
		if (d->memo[i].key == key || d->memo[i].key == 0)
			return &d->memo[i];
}

static int memo_set(struct dwbtf *d, Dwarf_Off off, __u32 id)
{
	struct memo_slot *old = d->memo, *s;
	size_t cap = d->memo_cap, i;

	if ((d->memo_used + 1) * 2 > d->memo_cap) {
		d->memo_cap = cap ? cap * 2 : 1024;
		d->memo = calloc(d->memo_cap, sizeof(*d->memo));
		if (!d->memo) {
			d->memo = old;
			d->memo_cap = cap;
			return -ENOMEM;
		}
		for (i = 0; i < cap; i++)
			if (old[i].key)
				*memo_find(d, old[i].key) = old[i];
		free(old);
	}
	s = memo_find(d, off + 1);
	if (!s->key)
		d->memo_used++;
	s->key = off + 1;
	s->id = id;
	return 0;
}

static __u32 memo_get(struct dwbtf *d, Dwarf_Off off)
{
	struct memo_slot *s;

	if (!d->memo_cap)
		return ID_NONE;
	s = memo_find(d, off + 1);
	return s->key ? s->id : ID_NONE;
}

/* ---- small DWARF questions ------------------------------------------ */

static bool udata(Dwarf_Die *die, int at, Dwarf_Word *v)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, at, &a) && dwarf_formudata(&a, v) == 0;
}

/* The DIE's own flag: a definition is not its declaration's DW_AT_declaration. */
static bool flag(Dwarf_Die *die, int at)
{
	Dwarf_Attribute a;
	bool v = false;

	return dwarf_attr(die, at, &a) && dwarf_formflag(&a, &v) == 0 && v;
}

/* The DIE attribute AT refers to, inside our own file. */
static bool ref(struct dwbtf *d, Dwarf_Die *die, int at, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, at, &a) || !dwarf_formref_die(&a, out))
		return false;
	/* A supplementary file's DIE (dwz): offsets there are another space. */
	return dwarf_cu_getdwarf(out->cu) == d->dw;
}

static int add_bytes(struct dwbtf *d, size_t n)
{
	d->btf_bytes += n;
	if (d->btf_bytes > DWBTF_MAX_BTF)
		return fail(d, -E2BIG, "more than %u MB of BTF", DWBTF_MAX_BTF >> 20);
	return 0;
}

/* A btf__add_*() result: an id, or an error naming the DIE. */
static int added(struct dwbtf *d, int id, Dwarf_Die *die, const char *what)
{
	if (id < 0)
		return fail(d, id == -ENOMEM ? id : -ENOEXEC,
			    "DIE 0x%llx: %s not representable in BTF (%s)",
			    (unsigned long long)dwarf_dieoffset(die), what, strerror(-id));
	return id;
}

/* ---- types ------------------------------------------------------------ */

static int conv(struct dwbtf *d, Dwarf_Die *die, int depth);

/* The type DIE's DW_AT_type as a BTF id (0: void). */
static int conv_ref(struct dwbtf *d, Dwarf_Die *die, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a))
		return 0;
	if (!ref(d, die, DW_AT_type, &t))
		return fail(d, -ENOEXEC, "DIE 0x%llx: a type reference out of range",
			    (unsigned long long)dwarf_dieoffset(die));
	return conv(d, &t, depth + 1);
}

static int conv_base(struct dwbtf *d, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	Dwarf_Word enc = 0, size = 0;
	int flags = 0;

	if (!name || !udata(die, DW_AT_encoding, &enc) || !udata(die, DW_AT_byte_size, &size))
		return fail(d, -ENOEXEC, "DIE 0x%llx: a base type without name, encoding or size",
			    (unsigned long long)dwarf_dieoffset(die));
	switch (enc) {
	case DW_ATE_float:
		return added(d, btf__add_float(d->btf, name, size), die, "float");
	case DW_ATE_boolean:
		flags = BTF_INT_BOOL;
		break;
	case DW_ATE_signed_char:
		flags = BTF_INT_SIGNED | BTF_INT_CHAR;
		break;
	case DW_ATE_unsigned_char:
		flags = BTF_INT_CHAR;
		break;
	case DW_ATE_signed:
		flags = BTF_INT_SIGNED;
		break;
	case DW_ATE_unsigned:
	case DW_ATE_UTF:
		break;
	default:
		return fail(d, -EOPNOTSUPP, "type '%s': DWARF encoding 0x%llx has no BTF form",
			    name, (unsigned long long)enc);
	}
	return added(d, btf__add_int(d->btf, name, size, flags), die, name);
}

/* A pointer (or C++ reference) to void for now; its target is queued. */
static int conv_ptr(struct dwbtf *d, Dwarf_Die *die)
{
	struct pending_ptr *p;
	Dwarf_Attribute a;
	Dwarf_Die t;
	int id;

	id = added(d, btf__add_ptr(d->btf, 0), die, "pointer");
	if (id < 0 || !dwarf_attr_integrate(die, DW_AT_type, &a))
		return id;
	if (!ref(d, die, DW_AT_type, &t))
		return fail(d, -ENOEXEC, "DIE 0x%llx: a type reference out of range",
			    (unsigned long long)dwarf_dieoffset(die));
	if (d->nptrs == d->ptrs_cap) {
		size_t cap = d->ptrs_cap ? 2 * d->ptrs_cap : 64;

		p = realloc(d->ptrs, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		d->ptrs = p;
		d->ptrs_cap = cap;
	}
	d->ptrs[d->nptrs++] = (struct pending_ptr){ .id = id, .off = dwarf_dieoffset(die),
						    .target = t };
	return id;
}

static int conv_qual(struct dwbtf *d, Dwarf_Die *die, int depth)
{
	int tag = dwarf_tag(die), t = conv_ref(d, die, depth);

	if (t < 0)
		return t;
	switch (tag) {
	case DW_TAG_const_type:
		return added(d, btf__add_const(d->btf, t), die, "const");
	case DW_TAG_volatile_type:
		return added(d, btf__add_volatile(d->btf, t), die, "volatile");
	case DW_TAG_restrict_type:
		return added(d, btf__add_restrict(d->btf, t), die, "restrict");
	default:	/* _Atomic: BTF has no such qualifier */
		return t;
	}
}

static int conv_typedef(struct dwbtf *d, Dwarf_Die *die, int depth)
{
	const char *name = dwarf_diename(die);
	int t = conv_ref(d, die, depth);

	if (t < 0)
		return t;
	if (!name)
		return fail(d, -ENOEXEC, "DIE 0x%llx: a typedef without a name",
			    (unsigned long long)dwarf_dieoffset(die));
	return added(d, btf__add_typedef(d->btf, name, t), die, name);
}

static int size_type(struct dwbtf *d)
{
	int id;

	if (d->size_type)
		return d->size_type;
	id = btf__add_int(d->btf, "__ARRAY_SIZE_TYPE__", 4, 0);
	if (id > 0)
		d->size_type = id;
	return id;
}

/* One subrange's element count; 0 when unknown (flexible, a VLA). */
static __u32 subrange_count(Dwarf_Die *sub)
{
	Dwarf_Word count, upper, lower = 0;

	if (udata(sub, DW_AT_count, &count))
		return count > UINT32_MAX ? UINT32_MAX : count;
	if (!udata(sub, DW_AT_upper_bound, &upper))
		return 0;
	udata(sub, DW_AT_lower_bound, &lower);
	/* int x[0]'s upper bound is -1: no elements. */
	if (upper == (Dwarf_Word)-1 || upper < lower || upper - lower >= UINT32_MAX)
		return 0;
	return upper - lower + 1;
}

/* T[a][b] is an array of a arrays of b: built from the last dimension. */
static int conv_array(struct dwbtf *d, Dwarf_Die *die, int depth)
{
	__u32 counts[DWBTF_MAX_DIMS];
	int n = 0, id, idx, err;
	Dwarf_Die c;

	id = conv_ref(d, die, depth);
	if (id < 0)
		return id;
	if (dwarf_child(die, &c) == 0) {
		do {
			if ((err = visit(d)))
				return err;
			if (dwarf_tag(&c) != DW_TAG_subrange_type)
				continue;
			if (n == DWBTF_MAX_DIMS)
				return fail(d, -E2BIG, "DIE 0x%llx: an array of more than %d dimensions",
					    (unsigned long long)dwarf_dieoffset(die), DWBTF_MAX_DIMS);
			counts[n++] = subrange_count(&c);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (!n)
		counts[n++] = 0;
	idx = size_type(d);
	if (idx < 0)
		return idx;
	while (n-- > 0) {
		id = added(d, btf__add_array(d->btf, idx, id, counts[n]), die, "array");
		if (id < 0)
			return id;
	}
	return id;
}

struct member {
	const char *name;
	int type;
	__u32 bit_off, bit_size;
};

/* Where a member starts, in bits, in either of DWARF's bitfield forms. */
static int member_bits(struct dwbtf *d, Dwarf_Die *m, struct member *out)
{
	Dwarf_Word bits, bytes = 0, size = 0, old_off, storage = 0;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	out->bit_size = udata(m, DW_AT_bit_size, &size) ? size : 0;
	if (udata(m, DW_AT_data_bit_offset, &bits)) {
		out->bit_off = bits;
		return bits > UINT32_MAX ? -ERANGE : 0;
	}
	if (dwarf_attr(m, DW_AT_data_member_location, &a) &&
	    dwarf_formudata(&a, &bytes) != 0) {
		/* The old form: an expression, DW_OP_plus_uconst N. */
		if (dwarf_getlocation(&a, &ops, &nops) != 0 || nops != 1 ||
		    ops[0].atom != DW_OP_plus_uconst)
			return -EOPNOTSUPP;
		bytes = ops[0].number;
	}
	if (bytes > UINT32_MAX / 8)
		return -ERANGE;
	bits = bytes * 8;
	/*
	 * DWARF 2/3: DW_AT_bit_offset counts from the most significant bit
	 * of a storage unit of DW_AT_byte_size bytes at that location; on a
	 * little-endian machine the member's first bit is then storage's
	 * bits less the offset less the member's size.
	 */
	if (out->bit_size && udata(m, DW_AT_bit_offset, &old_off)) {
		if (!udata(m, DW_AT_byte_size, &storage))
			storage = (out->bit_size + 7) / 8;
		if (d->big_endian)
			bits += old_off;
		else if (old_off + out->bit_size <= storage * 8)
			bits += storage * 8 - old_off - out->bit_size;
		else
			return -ERANGE;
	}
	out->bit_off = bits > UINT32_MAX ? UINT32_MAX : bits;
	return bits > UINT32_MAX ? -ERANGE : 0;
}

/* Is this child of a struct one of its data members (a base class is)? */
static bool data_member(Dwarf_Die *c)
{
	int tag = dwarf_tag(c);

	if (tag == DW_TAG_inheritance)
		return true;
	/* C++ static members: DWARF 4 marks them, DWARF 5 makes them variables. */
	return tag == DW_TAG_member && !flag(c, DW_AT_external) && !flag(c, DW_AT_declaration);
}

static int conv_members(struct dwbtf *d, Dwarf_Die *die, int depth, struct member **out,
			int *n)
{
	struct member *ms = NULL, *p;
	int cap = 0, err = 0;
	Dwarf_Die c;

	*out = NULL;
	*n = 0;
	if (dwarf_child(die, &c) != 0)
		return 0;
	do {
		if ((err = visit(d)))
			break;
		if (!data_member(&c))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			if (cap > 0xffff + 1) {
				err = fail(d, -E2BIG, "DIE 0x%llx: more than 65535 members",
					   (unsigned long long)dwarf_dieoffset(die));
				break;
			}
			p = realloc(ms, cap * sizeof(*ms));
			if (!p) {
				err = -ENOMEM;
				break;
			}
			ms = p;
		}
		p = &ms[*n];
		p->name = dwarf_tag(&c) == DW_TAG_inheritance ? NULL : dwarf_diename(&c);
		if ((err = member_bits(d, &c, p))) {
			err = fail(d, -ENOEXEC, "DIE 0x%llx: member '%s': offset not understood",
				   (unsigned long long)dwarf_dieoffset(&c), p->name ?: "");
			break;
		}
		p->type = conv_ref(d, &c, depth);
		if (p->type < 0) {
			err = p->type;
			break;
		}
		(*n)++;
	} while (dwarf_siblingof(&c, &c) == 0);
	if (err) {
		free(ms);
		return err;
	}
	*out = ms;
	return 0;
}

static int conv_struct(struct dwbtf *d, Dwarf_Die *die, int depth)
{
	bool is_union = dwarf_tag(die) == DW_TAG_union_type;
	const char *name = dwarf_diename(die);
	struct member *ms;
	Dwarf_Word size = 0;
	int n, i, id, err;

	if (flag(die, DW_AT_declaration))
		return added(d, btf__add_fwd(d->btf, name ?: "", is_union ? BTF_FWD_UNION :
					     BTF_FWD_STRUCT), die, "declaration");
	udata(die, DW_AT_byte_size, &size);
	if (size > UINT32_MAX)
		return fail(d, -ENOEXEC, "DIE 0x%llx: a struct of %llu bytes",
			    (unsigned long long)dwarf_dieoffset(die), (unsigned long long)size);
	if ((err = conv_members(d, die, depth, &ms, &n)))
		return err;
	if ((err = add_bytes(d, 12 * (n + 1)))) {
		free(ms);
		return err;
	}
	id = is_union ? btf__add_union(d->btf, name, size) : btf__add_struct(d->btf, name, size);
	for (i = 0; id > 0 && i < n; i++) {
		err = btf__add_field(d->btf, ms[i].name, ms[i].type, ms[i].bit_off, ms[i].bit_size);
		if (err)
			id = err;
	}
	free(ms);
	return added(d, id, die, name ?: "struct");
}

/* The enum's underlying type decides how its values read. */
static bool enum_signed(struct dwbtf *d, Dwarf_Die *die)
{
	Dwarf_Word enc;
	Dwarf_Die t;
	int i;

	for (i = 0; i < DWBTF_MAX_DEPTH && ref(d, die, DW_AT_type, &t); i++) {
		if (dwarf_tag(&t) == DW_TAG_base_type)
			return udata(&t, DW_AT_encoding, &enc) &&
			       (enc == DW_ATE_signed || enc == DW_ATE_signed_char);
		die = &t;
	}
	return false;
}

static int enum_value(Dwarf_Die *c, bool sign, __u64 size, __s64 *v)
{
	Dwarf_Attribute a;
	Dwarf_Word u;

	if (!dwarf_attr(c, DW_AT_const_value, &a))
		return -ENOEXEC;
	if (dwarf_whatform(&a) == DW_FORM_sdata)
		return dwarf_formsdata(&a, (Dwarf_Sword *)v) ? -ENOEXEC : 0;
	if (dwarf_formudata(&a, &u))
		return -ENOEXEC;
	/* data1/2/4 do not say their sign: the enum's type does. */
	if (sign && size && size < 8 && (u >> (size * 8 - 1) & 1))
		u |= ~0ULL << (size * 8);
	*v = u;
	return 0;
}

static int conv_enum(struct dwbtf *d, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die), *vname;
	bool sign = enum_signed(d, die);
	Dwarf_Word size = 4;
	int id, err = 0;
	Dwarf_Die c;
	__s64 v;

	if (flag(die, DW_AT_declaration))
		return added(d, btf__add_fwd(d->btf, name ?: "", BTF_FWD_ENUM), die, "enum");
	udata(die, DW_AT_byte_size, &size);
	id = size == 8 ? btf__add_enum64(d->btf, name, size, sign) :
		btf__add_enum(d->btf, name, size);
	if ((id = added(d, id, die, name ?: "enum")) < 0 || dwarf_child(die, &c) != 0)
		return id;
	do {
		if ((err = visit(d)) || (err = add_bytes(d, 12)))
			return err;
		if (dwarf_tag(&c) != DW_TAG_enumerator)
			continue;
		vname = dwarf_diename(&c);
		if (!vname || enum_value(&c, sign, size, &v))
			return fail(d, -ENOEXEC, "DIE 0x%llx: an enumerator without name or value",
				    (unsigned long long)dwarf_dieoffset(&c));
		err = size == 8 ? btf__add_enum64_value(d->btf, vname, v) :
			btf__add_enum_value(d->btf, vname, v);
		if (err)
			return added(d, err, &c, vname);
	} while (dwarf_siblingof(&c, &c) == 0);
	return id;
}

/* A DW_TAG_subroutine_type: a prototype, variadic tail as BTF has it. */
static int conv_proto(struct dwbtf *d, Dwarf_Die *die, int depth)
{
	int ret, id, n = 0, types[256], err;
	const char *names[256];
	Dwarf_Die c;

	ret = conv_ref(d, die, depth);
	if (ret < 0)
		return ret;
	if (dwarf_child(die, &c) == 0) {
		do {
			if ((err = visit(d)))
				return err;
			if (dwarf_tag(&c) != DW_TAG_formal_parameter &&
			    dwarf_tag(&c) != DW_TAG_unspecified_parameters)
				continue;
			if (n == 256)
				return fail(d, -E2BIG, "DIE 0x%llx: more than 256 parameters",
					    (unsigned long long)dwarf_dieoffset(die));
			names[n] = NULL;
			types[n] = dwarf_tag(&c) == DW_TAG_formal_parameter ?
				   conv_ref(d, &c, depth) : 0;
			if (types[n] < 0)
				return types[n];
			n++;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	id = added(d, btf__add_func_proto(d->btf, ret), die, "prototype");
	for (int i = 0; id > 0 && i < n; i++)
		if ((err = btf__add_func_param(d->btf, names[i], types[i])))
			return added(d, err, die, "parameter");
	return id;
}

static int conv_tag(struct dwbtf *d, Dwarf_Die *die, int depth)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
		return conv_base(d, die);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return conv_ptr(d, die);
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		return conv_qual(d, die, depth);
	case DW_TAG_typedef:
		return conv_typedef(d, die, depth);
	case DW_TAG_array_type:
		return conv_array(d, die, depth);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		return conv_struct(d, die, depth);
	case DW_TAG_enumeration_type:
		return conv_enum(d, die);
	case DW_TAG_subroutine_type:
		return conv_proto(d, die, depth);
	case DW_TAG_unspecified_type:	/* C++ decltype(nullptr) */
		return 0;
	default:
		return fail(d, -EOPNOTSUPP, "DIE 0x%llx: type tag 0x%x has no BTF form",
			    (unsigned long long)dwarf_dieoffset(die), dwarf_tag(die));
	}
}

/* DIE as a BTF type id, memoised; the recursion under it bounded. */
static int conv(struct dwbtf *d, Dwarf_Die *die, int depth)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	__u32 known = memo_get(d, off);
	int id, err;

	if (known == ID_BUILDING)
		return fail(d, -ELOOP, "DIE 0x%llx: a type that contains itself",
			    (unsigned long long)off);
	if (known != ID_NONE)
		return known;
	if (depth > DWBTF_MAX_DEPTH)
		return fail(d, -E2BIG, "DIE 0x%llx: types nested deeper than %d",
			    (unsigned long long)off, DWBTF_MAX_DEPTH);
	if ((err = visit(d)) || (err = add_bytes(d, 16)) || (err = memo_set(d, off, ID_BUILDING)))
		return err;
	id = conv_tag(d, die, depth);
	memo_set(d, off, id < 0 ? ID_NONE : (__u32)id);	/* the slot exists: cannot fail */
	return id;
}

/* Patch every queued pointer, converting its target (which may queue more). */
static int drain_ptrs(struct dwbtf *d)
{
	struct btf_type *t;
	int id;

	while (d->nptrs) {
		struct pending_ptr p = d->ptrs[--d->nptrs];

		id = conv(d, &p.target, 0);
		if (id < 0)
			return id;
		/* Our own BTF, built by btf__add_*(): its types are writable. */
		t = (struct btf_type *)btf__type_by_id(d->btf, p.id);
		t->type = id;
	}
	return 0;
}

/*
 * A top-level conversion: on failure, the pointers still queued would
 * stay void pointers in the table; forget them so that a later call
 * converts them again.
 */
static int conv_top(struct dwbtf *d, int id)
{
	size_t i;
	int err;

	if (id >= 0 && (err = drain_ptrs(d)) < 0)
		id = err;
	if (id < 0) {
		for (i = 0; i < d->nptrs; i++)
			memo_set(d, d->ptrs[i].off, ID_NONE);	/* the slot exists */
		d->nptrs = 0;
	}
	return id;
}

/* ---- the index of names --------------------------------------------- */

static const char *keep_name(struct dwbtf *d, const char *scope, const char *name)
{
	char *s, **p;

	if (!scope[0])
		return name;
	if (d->nnames == d->names_cap) {
		size_t cap = d->names_cap ? 2 * d->names_cap : 64;

		p = realloc(d->names, cap * sizeof(*p));
		if (!p)
			return NULL;
		d->names = p;
		d->names_cap = cap;
	}
	if (asprintf(&s, "%s::%s", scope, name) < 0)
		return NULL;
	d->names[d->nnames++] = s;
	return s;
}

static Dwarf_Off origin_of(struct dwbtf *d, Dwarf_Die *die)
{
	static const int ats[] = { DW_AT_specification, DW_AT_abstract_origin };
	Dwarf_Attribute a;
	Dwarf_Die t;

	for (size_t i = 0; i < sizeof(ats) / sizeof(ats[0]); i++)
		if (dwarf_attr(die, ats[i], &a) && dwarf_formref_die(&a, &t) &&
		    dwarf_cu_getdwarf(t.cu) == d->dw)
			return dwarf_dieoffset(&t);
	return 0;
}

/*
 * An address or constant operation's value: inline (DW_OP_addr, constNu),
 * or an index into .debug_addr (DWARF 5's DW_OP_addrx, DW_OP_constx:
 * clang's choice).
 */
static bool op_value(Dwarf_Attribute *loc, Dwarf_Op *op, __u64 *v)
{
	Dwarf_Attribute a;
	Dwarf_Addr addr;

	switch (op->atom) {
	case DW_OP_addr:
	case DW_OP_const8u:
	case DW_OP_const4u:
	case DW_OP_constu:
		*v = op->number;
		return true;
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
	case DW_OP_constx:
	case DW_OP_GNU_const_index:
		if (dwarf_getlocation_attr(loc, op, &a) != 0 || dwarf_formaddr(&a, &addr) != 0)
			return false;
		*v = addr;
		return true;
	default:
		return false;
	}
}

/* A variable's location: one address, or a TLS offset. */
static bool var_location(Dwarf_Die *die, __u64 *addr, bool *tls)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(die, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &n) != 0)
		return false;
	*tls = n == 2 && (ops[1].atom == DW_OP_form_tls_address ||
			  ops[1].atom == DW_OP_GNU_push_tls_address);
	if (n != 1 && !*tls)
		return false;
	/* A TLS offset is a constant; an address operation is no TLS offset. */
	if (*tls && (ops[0].atom == DW_OP_addr || ops[0].atom == DW_OP_addrx ||
		     ops[0].atom == DW_OP_GNU_addr_index))
		return false;
	if (!*tls && ops[0].atom != DW_OP_addr && ops[0].atom != DW_OP_addrx &&
	    ops[0].atom != DW_OP_GNU_addr_index)
		return false;
	return op_value(&a, &ops[0], addr);
}

static int add_sym(struct dwbtf *d, Dwarf_Die *die, const char *scope)
{
	struct sym s = { .off = dwarf_dieoffset(die) }, *p;
	const char *name = dwarf_hasattr(die, DW_AT_name) ? dwarf_diename(die) : NULL;
	Dwarf_Attribute a;
	Dwarf_Addr pc;

	/* A name attribute of a form that is no string, or "": no name. */
	if (name && name[0] && !(s.name = keep_name(d, scope, name)))
		return fail(d, -ENOMEM, "%s", strerror(ENOMEM));
	if (dwarf_attr(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr(die, DW_AT_MIPS_linkage_name, &a))
		s.linkage = dwarf_formstring(&a);
	s.origin = origin_of(d, die);
	s.func = dwarf_tag(die) == DW_TAG_subprogram;
	s.decl = flag(die, DW_AT_declaration);
	if (s.func)
		s.code = !flag(die, DW_AT_declaration) && dwarf_entrypc(die, &pc) == 0;
	else
		s.var = var_location(die, &s.addr, &s.tls);
	if (s.code)
		s.addr = pc;
	if (!s.name && !s.origin)
		return 0;
	if (d->nsyms == d->syms_cap) {
		size_t cap = d->syms_cap ? 2 * d->syms_cap : 1024;

		if (cap > DWBTF_MAX_SYMS)
			return fail(d, -E2BIG, "more than %u functions and variables",
				    DWBTF_MAX_SYMS);
		p = realloc(d->syms, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		d->syms = p;
		d->syms_cap = cap;
	}
	d->syms[d->nsyms++] = s;
	return 0;
}

static int index_scope(struct dwbtf *d, Dwarf_Die *parent, const char *scope, int level)
{
	const char *name;
	char sub[1024];
	Dwarf_Die c;
	int err, tag;

	if (dwarf_child(parent, &c) != 0)
		return 0;
	do {
		if ((err = visit(d)))
			return err;
		tag = dwarf_tag(&c);
		/* clang declares a class's static data members as members. */
		if (tag == DW_TAG_subprogram || tag == DW_TAG_variable ||
		    (tag == DW_TAG_member && flag(&c, DW_AT_declaration))) {
			if ((err = add_sym(d, &c, scope)))
				return err;
			continue;
		}
		if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
		    tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			continue;
		if (level == DWBTF_MAX_SCOPES)
			return fail(d, -E2BIG, "DIE 0x%llx: scopes nested deeper than %d",
				    (unsigned long long)dwarf_dieoffset(&c), DWBTF_MAX_SCOPES);
		name = dwarf_diename(&c) ?: "(anonymous namespace)";
		if (snprintf(sub, sizeof(sub), "%s%s%s", scope, scope[0] ? "::" : "", name) >=
		    (int)sizeof(sub))
			continue;	/* a name longer than any we could print */
		if ((err = index_scope(d, &c, sub, level + 1)))
			return err;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int sym_by_off(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static const struct sym *find_off(struct dwbtf *d, Dwarf_Off off)
{
	struct sym key = { .off = off };

	return bsearch(&key, d->syms, d->nsyms, sizeof(key), sym_by_off);
}

/* A definition's name is its declaration's: follow the origins, bounded. */
static void resolve_names(struct dwbtf *d)
{
	const struct sym *o;
	size_t i;
	int hops;

	if (!d->nsyms)		/* no table at all: qsort() wants one */
		return;
	qsort(d->syms, d->nsyms, sizeof(*d->syms), sym_by_off);
	for (i = 0; i < d->nsyms; i++) {
		struct sym *s = &d->syms[i];

		o = s;
		for (hops = 0; !s->name && o && o->origin && hops < DWBTF_MAX_ORIGIN; hops++) {
			o = find_off(d, o->origin);
			if (o && o->name)
				s->name = o->name;
			if (o && !s->linkage)
				s->linkage = o->linkage;
		}
	}
}

static int build_index(struct dwbtf *d)
{
	Dwarf_Off off = 0, next;
	Dwarf_Die cu;
	size_t hsize;
	int err;

	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if ((err = visit(d)))
			return err;
		/*
		 * An assembler's unit (gas -g: glibc's memcpy, its system
		 * call wrappers such as getpid) names its functions with no
		 * type and no parameters: "void getpid(void)" would be a lie.
		 */
		if (dwarf_offdie(d->dw, off + hsize, &cu) &&
		    dwarf_srclang(&cu) != DW_LANG_Mips_Assembler &&
		    (err = index_scope(d, &cu, "", 0)))
			return err;
		off = next;
	}
	resolve_names(d);
	return 0;
}

/* ---- finding the debug information ---------------------------------- */

/* Read FD whole, at most DWBTF_MAX_FILE bytes. */
static int read_whole(int fd, char **buf, size_t *size)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;

	*buf = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	if ((__u64)st.st_size > DWBTF_MAX_FILE)
		return -E2BIG;
	*buf = malloc(st.st_size ?: 1);
	if (!*buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		n = pread(fd, *buf + got, st.st_size - got, got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(*buf);
			*buf = NULL;
			return n < 0 ? -errno : -EIO;	/* cut short under us */
		}
		got += n;
	}
	*size = got;
	return 0;
}

static Elf_Scn *section(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return NULL;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, want))
			return sh.sh_type == SHT_NOBITS ? NULL : scn;
	}
	return NULL;
}

/* Debug sections libdw would inflate: their sizes, before it does. */
static int check_inflated(Elf *elf)
{
	__u64 total = 0, size;
	Elf_Scn *scn = NULL;
	unsigned char *p;
	GElf_Chdr ch;
	GElf_Shdr sh;
	Elf_Data *data;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_flags & SHF_COMPRESSED) {
			if (!gelf_getchdr(scn, &ch))
				return -ENOEXEC;
			size = ch.ch_size;
		} else if (sh.sh_type != SHT_NOBITS && (data = elf_rawdata(scn, NULL)) &&
			   data->d_buf && data->d_size >= 12 &&
			   !memcmp(data->d_buf, "ZLIB", 4)) {
			/* .zdebug_*: "ZLIB", then the size, big-endian. */
			p = (unsigned char *)data->d_buf + 4;
			size = 0;
			for (int i = 0; i < 8; i++)
				size = size << 8 | p[i];
		} else {
			continue;
		}
		if (size > DWBTF_MAX_INFLATED || (total += size) > DWBTF_MAX_INFLATED)
			return -E2BIG;
	}
	return 0;
}

/* The build-id note's bytes, or 0. */
static size_t build_id(Elf *elf, const unsigned char **id)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *data;
	size_t off, name_off, desc_off;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		if (!(data = elf_getdata(scn, NULL)))
			continue;
		off = 0;
		while (off < data->d_size &&
		       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + name_off, "GNU", 4) &&
			    nh.n_descsz > 0 && nh.n_descsz <= 64) {
				*id = (unsigned char *)data->d_buf + desc_off;
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

struct found {
	char *buf;
	size_t size;
	Elf *elf;
	char path[PATH_MAX];		/* the file kept */
	char looked[KS_ERROR_MSG_MAX];	/* "PATH (why), PATH, ..." */
};

static void looked(struct found *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void looked(struct found *f, const char *fmt, ...)
{
	size_t n = strlen(f->looked);
	va_list ap;

	if (n && n + 2 < sizeof(f->looked))
		strcpy(f->looked + n, ", "), n += 2;
	va_start(ap, fmt);
	vsnprintf(f->looked + n, sizeof(f->looked) - n, fmt, ap);
	va_end(ap);
}

static bool has_dwarf(Elf *elf)
{
	return section(elf, ".debug_info") || section(elf, ".zdebug_info");
}

/* Open PATH as a candidate debug file; keep it if CHECK says it is ours. */
static bool try_debug(struct found *f, const char *path, const unsigned char *id,
		      size_t id_len, const __u32 *crc)
{
	const unsigned char *their_id;
	char *buf;
	size_t size;
	Elf *elf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		looked(f, "%s", path);
		return false;
	}
	err = read_whole(fd, &buf, &size);
	close(fd);
	if (err == -ENOEXEC) {
		looked(f, "%s (not a regular file)", path);
		return false;
	}
	if (err == -E2BIG) {
		looked(f, "%s (larger than %llu MB)", path, DWBTF_MAX_FILE >> 20);
		return false;
	}
	if (err) {
		looked(f, "%s (%s)", path, strerror(-err));
		return false;
	}
	if (crc && (__u32)crc32(0, (const Bytef *)buf, size) != *crc) {
		looked(f, "%s (CRC does not match the debuglink's)", path);
		goto bad;
	}
	elf = elf_memory(buf, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		looked(f, "%s (not ELF)", path);
		goto bad_elf;
	}
	if (id && (build_id(elf, &their_id) != id_len || memcmp(their_id, id, id_len))) {
		looked(f, "%s (another build-id)", path);
		goto bad_elf;
	}
	if (!has_dwarf(elf)) {
		looked(f, "%s (no .debug_info)", path);
		goto bad_elf;
	}
	f->buf = buf;
	f->size = size;
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->elf = elf;
	return true;
bad_elf:
	elf_end(elf);
bad:
	free(buf);
	return false;
}

static bool by_build_id(struct found *f, Elf *elf, const char *root)
{
	const unsigned char *id;
	size_t len = build_id(elf, &id), i;
	char path[PATH_MAX], hex[130];

	if (!len) {
		looked(f, "no build-id note");
		return false;
	}
	for (i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	if (len < 2 ||
	    snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2) >=
	    (int)sizeof(path))
		return false;
	return try_debug(f, path, id, len, NULL);
}

static bool by_debuglink(struct found *f, Elf *elf, const char *name, const char *root)
{
	Elf_Scn *scn = section(elf, ".gnu_debuglink");
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	char dir[PATH_MAX], path[PATH_MAX];
	const char *link, *slash;
	size_t len, at;
	__u32 crc;

	if (!data || !data->d_size) {
		looked(f, "no .gnu_debuglink");
		return false;
	}
	link = data->d_buf;
	len = strnlen(link, data->d_size);
	at = (len + 4) & ~(size_t)3;	/* the CRC, 4-aligned after the NUL */
	if (len == data->d_size || at + 4 > data->d_size || !len || strchr(link, '/')) {
		looked(f, ".gnu_debuglink malformed");
		return false;
	}
	memcpy(&crc, (char *)data->d_buf + at, 4);
	if (elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB)
		crc = __builtin_bswap32(crc);
	slash = strrchr(name, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - name) : 1, slash ? name : ".");
	/* gdb's three places: beside the file, in .debug/ there, under ROOT. */
	for (int i = 0; i < 3; i++) {
		int n = snprintf(path, sizeof(path), "%s%s%s%s%s", i == 2 ? root : "",
				 i == 2 && dir[0] != '/' ? "/" : "", dir,
				 i == 1 ? "/.debug/" : "/", link);

		if (n < (int)sizeof(path) && try_debug(f, path, NULL, 0, &crc))
			return true;
	}
	return false;
}

static int use_btf_section(struct dwbtf *d, Elf *elf)
{
	Elf_Scn *scn = section(elf, ".BTF");
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	struct btf *btf;

	if (!data || !data->d_size)
		return -ENOENT;
	btf = btf__new(data->d_buf, data->d_size);
	if (!btf)
		return fail(d, -ENOEXEC, "its .BTF section is malformed (%s)", strerror(errno));
	btf__free(d->btf);
	d->btf = btf;
	if (asprintf(&d->source, "%s (.BTF)", d->name) < 0)
		return -ENOMEM;
	return 0;
}

static int find_debug(struct dwbtf *d, const char *root)
{
	struct found f = { 0 };
	int err;

	if (has_dwarf(d->elf)) {
		d->source = strdup(d->name);
		d->dbg_elf = d->elf;
		return d->source ? 0 : -ENOMEM;
	}
	looked(&f, "no .debug_info in the file");
	if (root && (by_build_id(&f, d->elf, root) || by_debuglink(&f, d->elf, d->name, root))) {
		d->dbg_buf = f.buf;
		d->dbg_elf = f.elf;
		d->source = strdup(f.path);
		return d->source ? 0 : -ENOMEM;
	}
	err = use_btf_section(d, d->elf);
	if (err != -ENOENT)
		return err;
	looked(&f, "no .BTF section");
	return fail(d, -ENOENT, "no debug information: %s", f.looked);
}

/* ---- the API ------------------------------------------------------------ */

static int open_buf(char *buf, size_t size, const char *name, const char *root,
		    struct dwbtf **out, struct ks_error *e)
{
	struct dwbtf *d = calloc(1, sizeof(*d));
	int err;

	*out = NULL;
	if (!d || !(d->name = strdup(name)) || !(d->btf = btf__new_empty())) {
		free(buf);
		dwbtf__close(d);
		return ks_fail(e, -ENOMEM, "'%s': %s", name, strerror(ENOMEM));
	}
	d->buf = buf;
	budget_start(d, e);
	elf_version(EV_CURRENT);
	d->elf = elf_memory(buf, size);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF || !elf_getident(d->elf, NULL)) {
		err = fail(d, -ENOEXEC, "not an ELF file");
		goto out;
	}
	d->big_endian = elf_getident(d->elf, NULL)[EI_DATA] == ELFDATA2MSB;
	if ((err = find_debug(d, root)) || !d->dbg_elf)	/* .BTF: nothing to index */
		goto out;
	if ((err = check_inflated(d->dbg_elf))) {
		err = fail(d, err, err == -E2BIG ? "debug sections inflate to more than %llu MB" :
			   "malformed section headers", DWBTF_MAX_INFLATED >> 20);
		goto out;
	}
	d->dw = dwarf_begin_elf(d->dbg_elf, DWARF_C_READ, NULL);
	if (!d->dw) {
		err = fail(d, -ENOEXEC, "malformed DWARF (%s)", dwarf_errmsg(-1));
		goto out;
	}
	err = build_index(d);
out:
	if (err && e && !e->err)	/* every failure is one line naming the file */
		fail(d, err, "%s", strerror(-err));
	if (err) {
		dwbtf__close(d);
		return err;
	}
	*out = d;
	return 0;
}

int dwbtf__open_mem(const void *buf, size_t size, const char *name, struct dwbtf **out,
		    struct ks_error *e)
{
	char *copy = malloc(size ?: 1);

	*out = NULL;
	if (!copy)
		return ks_fail(e, -ENOMEM, "'%s': %s", name, strerror(ENOMEM));
	memcpy(copy, buf, size);
	return open_buf(copy, size, name, NULL, out, e);
}

int dwbtf__open_fd(int fd, const char *name, const char *debug_root, struct dwbtf **out,
		   struct ks_error *e)
{
	size_t size = 0;
	char *buf;
	int err;

	*out = NULL;
	err = read_whole(fd, &buf, &size);
	if (err == -E2BIG)
		return ks_fail(e, err, "'%s': larger than %llu MB", name, DWBTF_MAX_FILE >> 20);
	if (err == -ENOEXEC)
		return ks_fail(e, err, "'%s' is not a regular file", name);
	if (err)
		return ks_fail(e, err, "'%s': %s", name, strerror(-err));
	return open_buf(buf, size, name, debug_root ?: DWBTF_DEBUG_ROOT, out, e);
}

int dwbtf__open(const char *path, const char *debug_root, struct dwbtf **out,
		struct ks_error *e)
{
	int fd, err;

	*out = NULL;
	/* Opened once, then read from the fd: the path is not looked at again. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		return ks_fail(e, err, "'%s': %s", path, strerror(-err));
	}
	err = dwbtf__open_fd(fd, path, debug_root, out, e);
	close(fd);
	return err;
}

void dwbtf__close(struct dwbtf *d)
{
	size_t i;

	if (!d)
		return;
	if (d->dw)
		dwarf_end(d->dw);
	if (d->dbg_elf && d->dbg_elf != d->elf)
		elf_end(d->dbg_elf);
	if (d->elf)
		elf_end(d->elf);
	for (i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d->syms);
	free(d->memo);
	free(d->ptrs);
	btf__free(d->btf);
	free(d->dbg_buf);
	free(d->buf);
	free(d->source);
	free(d->name);
	free(d);
}

const char *dwbtf__source(const struct dwbtf *d)
{
	return d->source;
}

struct btf *dwbtf__btf(const struct dwbtf *d)
{
	return d->btf;
}

/* The symbols named NAME (qualified or linkage), the first with code first. */
static const struct sym *find_sym(struct dwbtf *d, const char *name, bool want_var,
				  bool *seen)
{
	size_t i;

	*seen = false;
	for (i = 0; i < d->nsyms; i++) {
		const struct sym *s = &d->syms[i];

		if (!(s->name && !strcmp(s->name, name)) &&
		    !(s->linkage && !strcmp(s->linkage, name)))
			continue;
		if (s->func == want_var || s->decl)
			continue;
		*seen = true;
		if (s->var || s->code)
			return s;
	}
	return NULL;
}

/* What a parameter may not be: the ABI passes these where we do not read. */
static const char *by_value(struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int i;

	for (i = 0; t && i < DWBTF_MAX_DEPTH; i++) {
		if (btf_is_typedef(t) || btf_is_mod(t))
			t = btf__type_by_id(btf, t->type);
		else
			break;
	}
	if (!t)
		return NULL;
	if (btf_is_struct(t))
		return "a struct passed by value";
	if (btf_is_union(t))
		return "a union passed by value";
	if (btf_is_float(t))
		return "a floating-point value";
	return NULL;
}

struct param {
	const char *name;
	int type;
};

static int func_params(struct dwbtf *d, Dwarf_Die *fn, const char *fname, struct param *ps,
		       int *n)
{
	const char *why;
	Dwarf_Die c;
	int err;

	*n = 0;
	if (dwarf_child(fn, &c) != 0)
		return 0;
	do {
		if ((err = visit(d)))
			return err;
		if (dwarf_tag(&c) == DW_TAG_unspecified_parameters)
			return fail(d, -EINVAL, "'%s' takes a variadic tail (...): not traced",
				    fname);
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		if (*n == 256)
			return fail(d, -E2BIG, "'%s' has more than 256 parameters", fname);
		ps[*n].name = dwarf_diename(&c);
		ps[*n].type = conv_ref(d, &c, 0);
		if (ps[*n].type < 0)
			return ps[*n].type;
		why = by_value(d->btf, ps[*n].type);
		if (why)
			return fail(d, -EINVAL, "'%s': parameter %d '%s' is %s: not traced",
				    fname, *n + 1, ps[*n].name ?: "", why);
		(*n)++;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int func_from_btf(struct dwbtf *d, const char *name, __u32 *func_id)
{
	int id = btf__find_by_name_kind(d->btf, name, BTF_KIND_FUNC);

	if (id < 0)
		return fail(d, -ENOENT, "no function '%s' in its .BTF", name);
	*func_id = id;
	return 0;
}

static int func_build(struct dwbtf *d, const struct sym *s, const char *name)
{
	struct param ps[256];
	Dwarf_Die fn, orig;
	int ret, id, n, err, i;

	if (!dwarf_offdie(d->dw, s->off, &fn))
		return fail(d, -ENOEXEC, "DIE 0x%llx out of range", (unsigned long long)s->off);
	if ((err = func_params(d, &fn, name, ps, &n)))
		return err;
	/* An out-of-line copy that lists no parameters: its origin's. */
	if (!n && s->origin && dwarf_offdie(d->dw, s->origin, &orig) &&
	    (err = func_params(d, &orig, name, ps, &n)))
		return err;
	if ((ret = conv_ref(d, &fn, 0)) < 0)
		return ret;
	if ((err = add_bytes(d, 12 * (n + 2) + strlen(s->name))))
		return err;
	id = added(d, btf__add_func_proto(d->btf, ret), &fn, "prototype");
	for (i = 0; id > 0 && i < n; i++)
		if ((err = btf__add_func_param(d->btf, ps[i].name, ps[i].type)))
			return added(d, err, &fn, "parameter");
	if (id < 0)
		return id;
	return added(d, btf__add_func(d->btf, s->name, BTF_FUNC_GLOBAL, id), &fn, s->name);
}

/* The address ELF's symbol tables give NAME (a function's), or 0. */
static __u64 elf_sym_addr(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *n;
	size_t i, cnt;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		cnt = data->d_size / sh.sh_entsize;
		for (i = 1; i < cnt; i++) {
			if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name))
				return sym.st_value;
		}
	}
	return 0;
}

/*
 * A function DWARF knows under another name: glibc's malloc is an alias
 * of __libc_malloc, so DWARF has only the latter.  The symbol's address
 * names the DWARF function that starts there.
 */
static const struct sym *find_alias(struct dwbtf *d, const char *name)
{
	__u64 addr = elf_sym_addr(d->elf, name);
	size_t i;

	if (!addr && d->dbg_elf != d->elf)
		addr = elf_sym_addr(d->dbg_elf, name);
	for (i = 0; addr && i < d->nsyms; i++)
		if (d->syms[i].code && d->syms[i].name && d->syms[i].addr == addr)
			return &d->syms[i];
	return NULL;
}

/* Every failure is one line naming the file, a bare errno too (-ENOMEM). */
static int finish(struct dwbtf *d, int err)
{
	if (err < 0 && d->e && !d->e->err)
		fail(d, err, "%s", strerror(-err));
	return err < 0 ? err : 0;
}

static int func_lookup(struct dwbtf *d, const char *name, __u32 *func_id)
{
	const struct sym *s;
	int id, err;
	bool seen;

	if (!d->dw)
		return func_from_btf(d, name, func_id);
	s = find_sym(d, name, false, &seen);
	if (!s)
		s = find_alias(d, name);
	if (!s && seen)
		return fail(d, -ENOENT, "'%s' is inlined everywhere: no out-of-line copy to trace",
			    name);
	if (!s)
		return fail(d, -ENOENT, "no function '%s' in its debug information", name);
	/* A subprogram's DIE is no type's: its FUNC is memoised under it. */
	id = memo_get(d, s->off);
	if (id == (int)ID_NONE || id == (int)ID_BUILDING) {
		id = conv_top(d, func_build(d, s, name));
		if (id < 0)
			return id;
		if ((err = memo_set(d, s->off, id)))
			return fail(d, err, "%s", strerror(-err));
	}
	*func_id = id;
	return 0;
}

int dwbtf__func(struct dwbtf *d, const char *name, __u32 *func_id, struct ks_error *e)
{
	budget_start(d, e);
	return finish(d, func_lookup(d, name, func_id));
}

static int var_lookup(struct dwbtf *d, const char *name, __u32 *type_id, __u64 *addr,
		      bool *tls)
{
	const struct sym *s;
	Dwarf_Die die;
	bool seen;
	int id;

	if (!d->dw)
		return fail(d, -ENOENT, "'%s': only .BTF, which gives no variable's address", name);
	s = find_sym(d, name, true, &seen);
	if (!s && seen)
		return fail(d, -ENOENT, "variable '%s' has no fixed address (a register, optimised out?)",
			    name);
	if (!s)
		return fail(d, -ENOENT, "no variable '%s' in its debug information", name);
	if (!dwarf_offdie(d->dw, s->off, &die))
		return fail(d, -ENOEXEC, "DIE 0x%llx out of range", (unsigned long long)s->off);
	id = conv_top(d, conv_ref(d, &die, 0));
	if (id < 0)
		return id;
	*type_id = id;
	*addr = s->addr;
	*tls = s->tls;
	return 0;
}

int dwbtf__var(struct dwbtf *d, const char *name, __u32 *type_id, __u64 *addr, bool *tls,
	       struct ks_error *e)
{
	budget_start(d, e);
	return finish(d, var_lookup(d, name, type_id, addr, tls));
}

/* The definition of variable NAME that has no location (not a declaration). */
static const struct sym *find_unlocated_var(struct dwbtf *d, const char *name)
{
	for (size_t i = 0; i < d->nsyms; i++) {
		const struct sym *s = &d->syms[i];

		if (!s->func && !s->decl && !s->var && s->name && !strcmp(s->name, name))
			return s;
	}
	return NULL;
}

static int var_type_lookup(struct dwbtf *d, const char *name, __u32 *type_id)
{
	const struct sym *s = d->dw ? find_unlocated_var(d, name) : NULL;
	Dwarf_Die die;
	int id;

	if (!s)
		return fail(d, -ENOENT, "no variable '%s' without a location in its debug information",
			    name);
	if (!dwarf_offdie(d->dw, s->off, &die))
		return fail(d, -ENOEXEC, "DIE 0x%llx out of range", (unsigned long long)s->off);
	id = conv_top(d, conv_ref(d, &die, 0));
	if (id < 0)
		return id;
	*type_id = id;
	return 0;
}

int dwbtf__var_type(struct dwbtf *d, const char *name, __u32 *type_id, struct ks_error *e)
{
	budget_start(d, e);
	return finish(d, var_type_lookup(d, name, type_id));
}

int dwbtf__each_var(struct dwbtf *d, int (*cb)(const char *name, bool tls, void *ctx),
		    void *ctx)
{
	int err;

	for (size_t k = 0; d->dw && k < d->nsyms; k++)
		if (d->syms[k].var && d->syms[k].name &&
		    (err = cb(d->syms[k].name, d->syms[k].tls, ctx)))
			return err;
	return 0;
}

int dwbtf__each_func(struct dwbtf *d, int (*cb)(const char *name, __u64 addr, void *ctx),
		     void *ctx)
{
	const struct btf_type *t;
	__u32 i, n;
	int err;

	if (!d->dw) {
		n = btf__type_cnt(d->btf);
		for (i = 1; i < n; i++) {
			t = btf__type_by_id(d->btf, i);
			if (btf_is_func(t) && (err = cb(btf__name_by_offset(d->btf, t->name_off),
							0, ctx)))
				return err;
		}
		return 0;
	}
	for (size_t k = 0; k < d->nsyms; k++)
		if (d->syms[k].code && d->syms[k].name &&
		    (err = cb(d->syms[k].name, d->syms[k].addr, ctx)))
			return err;
	return 0;
}
