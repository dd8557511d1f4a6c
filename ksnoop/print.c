// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One BTF walker, two outputs.
 *
 * libbpf's btf_dump__dump_type_data() would do for text, but the libbpf we
 * build against (1.1) prints char arrays as lists of characters and has no
 * JSON form; a network engineer wants `dev->name = "lo"`, and a script
 * wants {"name":"lo"}.  So the walk over the bytes is ours, and text and
 * JSON differ only in punctuation.  libbpf's btf_dump still spells the
 * types (btfu_type_str).
 *
 * Text skips members that are zero unless asked (as btf_dump and the kernel's
 * BTF show do); JSON always has every member, so a script can rely on keys.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "print.h"

#define INDENT "    "
/*
 * Values printed for one captured value, at most.  A real value is at most
 * KSNOOP_MAX_VALUE_BYTES and prints as fewer values than it has bytes; BTF
 * from a file can describe empty structs of empty structs that would print
 * forever.
 */
#define PRINT_MAX_NODES	65536

struct walk {
	FILE *out;
	const struct btf *btf;
	bool json;
	bool zeros;
	bool truncated;		/* some member lay beyond the copied bytes */
	bool cut;		/* BTF nested deeper or wider than we print */
	int depth;		/* of nested values, up to BTFU_MAX_DEPTH */
	int nodes;		/* values printed, up to PRINT_MAX_NODES */
};

/* Whether one more level fits; if not, the output says it was cut. */
static bool walk_enter(struct walk *w)
{
	if (w->depth >= BTFU_MAX_DEPTH || w->nodes >= PRINT_MAX_NODES) {
		w->cut = true;
		return false;
	}
	w->depth++;
	w->nodes++;
	return true;
}

void printer__init(struct printer *p, FILE *out, const struct print_opts *opts)
{
	p->out = out;
	p->opts = *opts;
}

/*
 * Escaping.  Everything that comes from outside -- traced memory, comm,
 * ELF notes, BTF names, paths -- reaches the terminal through one of two
 * writers, one per output form:
 *
 *   text_write_escaped()  printable ASCII as is, every other byte as \xNN:
 *                         no C0 control, DEL or C1 control (raw 0x80-0x9f
 *                         or UTF-8 encoded U+0080-U+009F) gets through,
 *                         whatever the terminal's encoding;
 *   json_write_string()   RFC 8259 and always valid UTF-8: well-formed
 *                         UTF-8 passes except the code points a terminal
 *                         acts on (C1, line separators, bidi overrides),
 *                         which become \uXXXX like any other byte.
 */

/* Length of the well-formed UTF-8 sequence at S (its code point in *CP), or 0. */
static size_t utf8_len(const unsigned char *s, size_t avail, __u32 *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, k;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* The second byte's range rules out overlongs, surrogates, > U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (avail < len || s[1] < lo || s[1] > hi)
		return 0;
	*cp = s[0] & (0x7f >> len);
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[k] & 0x3f);
	}
	return len;
}

/* Code points a terminal acts on rather than shows. */
static bool unsafe_code_point(__u32 cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||		/* C1 controls (CSI, OSC ...) */
	       cp == 0x2028 || cp == 0x2029 ||		/* line, paragraph separator */
	       cp == 0x200e || cp == 0x200f ||		/* LRM, RLM */
	       (cp >= 0x202a && cp <= 0x202e) ||	/* bidi embeddings, overrides */
	       (cp >= 0x2066 && cp <= 0x2069);		/* bidi isolates */
}

void json_write_string(FILE *out, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	fputc('"', out);
	while (i < n) {
		unsigned char c = u[i];
		size_t len;
		__u32 cp;

		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': fputs("\\n", out); break;
			case '\t': fputs("\\t", out); break;
			case '\r': fputs("\\r", out); break;
			default: fprintf(out, "\\u%04x", c); break;
			}
			i++;
			continue;
		}
		if (c < 0x80) {
			fputc(c, out);
			i++;
			continue;
		}
		/*
		 * Pass well-formed UTF-8 through (RFC 3629: no overlongs, no
		 * surrogates, nothing above U+10FFFF) unless a terminal would
		 * act on it; escape any other byte as U+00XX so the output is
		 * always valid.
		 */
		len = utf8_len(u + i, n - i, &cp);
		if (len && !unsafe_code_point(cp)) {
			fwrite(u + i, 1, len, out);
			i += len;
		} else if (len) {
			fprintf(out, "\\u%04x", cp);
			i += len;
		} else {
			fprintf(out, "\\u%04x", c);
			i++;
		}
	}
	fputc('"', out);
}

/* The text writer; QUOTED: inside "...", so '"' and '\' are escaped too. */
static void text_escape(FILE *out, const char *s, size_t n, bool quoted)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		switch (c) {
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		case '"':
		case '\\':
			if (quoted)
				fputc('\\', out);
			fputc(c, out);
			break;
		default:
			/* Not isprint(): that would follow the locale. */
			if (c >= 0x20 && c < 0x7f)
				fputc(c, out);
			else
				fprintf(out, "\\x%02x", c);
		}
	}
}

void text_write_escaped(FILE *out, const char *s, size_t n)
{
	text_escape(out, s, n, false);
}

char *text_escaped_dup(const char *s)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		return NULL;
	text_escape(f, s, strlen(s), false);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A C string literal: printable ASCII as is, the rest escaped. */
static void text_write_string(FILE *out, const char *s, size_t n)
{
	fputc('"', out);
	text_escape(out, s, n, true);
	fputc('"', out);
}

static void write_string(struct walk *w, const char *s, size_t n)
{
	if (w->json)
		json_write_string(w->out, s, n);
	else
		text_write_string(w->out, s, n);
}

/* A name from BTF or ELF: a JSON string, or escaped bare text. */
static void write_name(FILE *out, bool json, const char *name)
{
	if (json)
		json_write_string(out, name, strlen(name));
	else
		text_write_escaped(out, name, strlen(name));
}

static void indent(struct walk *w, int level)
{
	while (level-- > 0)
		fputs(INDENT, w->out);
}

static bool all_zero(const unsigned char *d, size_t n)
{
	while (n--)
		if (*d++)
			return false;
	return true;
}

static __u64 load_uint(const void *data, size_t size)
{
	__u64 v = 0;

	memcpy(&v, data, size > 8 ? 8 : size);	/* little-endian */
	return v;
}

static __u64 bitfield_value(const unsigned char *data, __u32 bit_off, __u32 bit_size)
{
	__u64 v = load_uint(data, (bit_off + bit_size + 7) / 8) >> bit_off;

	return v & (bit_size >= 64 ? ~0ULL : ((1ULL << bit_size) - 1));
}

static void emit_int(struct walk *w, const struct btf_type *t, const void *data,
		     __u32 bit_off, __u32 bit_size)
{
	__u8 enc = btf_int_encoding(t);
	__u32 size = t->size;
	__u64 v;

	if (size > 8) {
		/* __int128: hex, most significant half first. */
		fprintf(w->out, w->json ? "\"0x%016llx%016llx" "\"" :
				"0x%016llx%016llx",
			load_uint((const char *)data + 8, 8), load_uint(data, 8));
		return;
	}
	if (bit_size) {
		v = bitfield_value(data, bit_off, bit_size);
		if ((enc & BTF_INT_SIGNED) && bit_size < 64 && (v >> (bit_size - 1)))
			v |= ~0ULL << bit_size;
		size = 8;
	} else {
		v = load_uint(data, size);
		if ((enc & BTF_INT_SIGNED) && size && size < 8 && (v >> (8 * size - 1)))
			v |= ~0ULL << (8 * size);
	}
	if (enc & BTF_INT_BOOL) {
		fputs(v ? "true" : "false", w->out);
		return;
	}
	if (enc & BTF_INT_SIGNED)
		fprintf(w->out, "%lld", (__s64)v);
	else
		fprintf(w->out, "%llu", v);
}

static void emit_char(struct walk *w, const void *data)
{
	unsigned char c = *(const unsigned char *)data;

	if (w->json) {
		fprintf(w->out, "%d", (signed char)c);
		return;
	}
	if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
		fprintf(w->out, "'%c'", c);
	else
		fprintf(w->out, "'\\x%02x'", c);
}

static void emit_enum(struct walk *w, const struct btf_type *t, const void *data,
		      __u32 bit_off, __u32 bit_size)
{
	__u32 bits = bit_size ? bit_size : 8 * t->size;
	__s64 v = bit_size ? (__s64)bitfield_value(data, bit_off, bit_size) :
			     (__s64)load_uint(data, t->size);
	int i, vlen = btf_vlen(t);

	if (btf_kflag(t) && bits && bits < 64 && ((__u64)v >> (bits - 1)))
		v |= (__s64)(~0ULL << bits);
	for (i = 0; i < vlen; i++) {
		const char *name;
		__s64 ev = btfu_enumerator(w->btf, t, i, &name);

		if (ev == v && *name) {
			write_name(w->out, w->json, name);
			return;
		}
	}
	if (btf_kflag(t))
		fprintf(w->out, "%lld", v);
	else
		fprintf(w->out, "%llu", (__u64)v);
}

static void emit_ptr(struct walk *w, const void *data)
{
	__u64 v = load_uint(data, 8);

	if (!v)
		fputs(w->json ? "null" : "NULL", w->out);
	else
		fprintf(w->out, w->json ? "\"0x%llx\"" : "0x%llx", v);
}

static void emit(struct walk *w, __u32 id, const unsigned char *data, size_t avail,
		 int level, __u32 bit_off, __u32 bit_size);

static void emit_array(struct walk *w, const struct btf_type *t, const unsigned char *data,
		       size_t avail, int level)
{
	const struct btf_array *a = btf_array(t);
	__s64 esize = btf__resolve_size(w->btf, a->type);
	const struct btf_type *et = btf__type_by_id(w->btf, btfu_strip(w->btf, a->type));
	bool multiline = et && (btf_is_composite(et) || btf_is_array(et)) && !w->json;
	__u32 i, n = a->nelems;

	if (btfu_is_char(w->btf, a->type)) {
		size_t len = n < avail ? n : avail;

		write_string(w, (const char *)data, strnlen((const char *)data, len));
		return;
	}
	fputc('[', w->out);
	for (i = 0; i < n && esize > 0 && !w->cut; i++) {
		if ((size_t)(i + 1) * esize > avail) {
			w->truncated = true;
			break;
		}
		if (i)
			fputs(w->json || multiline ? "," : ", ", w->out);
		if (multiline) {
			fputc('\n', w->out);
			indent(w, level + 1);
		}
		emit(w, a->type, data + i * esize, esize, level + 1, 0, 0);
	}
	if (multiline && i) {
		fputc('\n', w->out);
		indent(w, level);
	}
	fputc(']', w->out);
}

/* Members of a struct or union; anonymous members are flattened in. */
static int emit_members(struct walk *w, const struct btf_type *t, const unsigned char *data,
			size_t avail, int level, int printed)
{
	const struct btf_member *m = btf_members(t);
	int i, vlen = btf_vlen(t);

	for (i = 0; i < vlen && !w->cut; i++, m++) {
		__u32 off = btf_member_bit_offset(t, i);
		__u32 bsz = btf_member_bitfield_size(t, i);
		const char *name = btfu_name(w->btf, m->name_off);
		__s64 msize = bsz ? (off % 8 + bsz + 7) / 8 : btf__resolve_size(w->btf, m->type);
		const struct btf_type *mt = btf__type_by_id(w->btf, btfu_strip(w->btf, m->type));

		if (msize < 0)
			continue;
		if ((size_t)(off / 8 + msize) > avail) {
			w->truncated = true;
			break;
		}
		if (!*name && mt && btf_is_composite(mt)) {
			if (walk_enter(w)) {
				printed = emit_members(w, mt, data + off / 8, avail - off / 8,
						       level, printed);
				w->depth--;
			}
			continue;
		}
		/* Text leaves out zeros, and markers that hold no bytes at all. */
		if (!w->json && (msize == 0 ||
				 (!w->zeros &&
				  (bsz ? !bitfield_value(data + off / 8, off % 8, bsz) :
					 all_zero(data + off / 8, msize)))))
			continue;
		if (w->json) {
			if (printed)
				fputc(',', w->out);
			write_name(w->out, true, name);
			fputc(':', w->out);
		} else {
			fputc('\n', w->out);
			indent(w, level + 1);
			fputc('.', w->out);
			write_name(w->out, false, name);
			fputs(" = ", w->out);
		}
		emit(w, m->type, data + off / 8, avail - off / 8, level + 1,
		     bsz ? off % 8 : 0, bsz);
		if (!w->json)
			fputc(',', w->out);
		printed++;
	}
	return printed;
}

static void emit_composite(struct walk *w, const struct btf_type *t, const unsigned char *data,
			   size_t avail, int level)
{
	int printed;

	fputc('{', w->out);
	printed = emit_members(w, t, data, avail, level, 0);
	if (!w->json && printed) {
		fputc('\n', w->out);
		indent(w, level);
	}
	fputc('}', w->out);
}

static void emit_kind(struct walk *w, const struct btf_type *t, __u32 sid,
		      const unsigned char *data, size_t avail, int level,
		      __u32 bit_off, __u32 bit_size);

static void emit(struct walk *w, __u32 id, const unsigned char *data, size_t avail,
		 int level, __u32 bit_off, __u32 bit_size)
{
	__u32 sid = btfu_strip(w->btf, id);
	const struct btf_type *t = btf__type_by_id(w->btf, sid);

	if (!t || sid == 0) {
		fputs(w->json ? "null" : "void", w->out);
		return;
	}
	if (!walk_enter(w)) {
		fputs(w->json ? "null" : "/* ... */", w->out);
		return;
	}
	emit_kind(w, t, sid, data, avail, level, bit_off, bit_size);
	w->depth--;
}

static void emit_kind(struct walk *w, const struct btf_type *t, __u32 sid,
		      const unsigned char *data, size_t avail, int level,
		      __u32 bit_off, __u32 bit_size)
{
	__s64 size = btf__resolve_size(w->btf, sid);

	if (!bit_size && size > 0 && (size_t)size > avail && !btf_is_composite(t) &&
	    !btf_is_array(t)) {
		w->truncated = true;
		fputs(w->json ? "null" : "/* truncated */", w->out);
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		if (btfu_is_char(w->btf, sid) && !bit_size)
			emit_char(w, data);
		else
			emit_int(w, t, data, bit_off, bit_size);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		emit_enum(w, t, data, bit_off, bit_size);
		break;
	case BTF_KIND_PTR:
		emit_ptr(w, data);
		break;
	case BTF_KIND_FLOAT:
		if (t->size == 4 || t->size == 8) {
			double d;
			float f;

			if (t->size == 4) {
				memcpy(&f, data, 4);
				d = f;
			} else {
				memcpy(&d, data, 8);
			}
			/* JSON has no NaN or infinity. */
			if (w->json && !isfinite(d))
				fputs("null", w->out);
			else
				fprintf(w->out, t->size == 4 ? "%.9g" : "%.17g", d);
		} else {
			fputs(w->json ? "null" : "/* float */", w->out);
		}
		break;
	case BTF_KIND_ARRAY:
		emit_array(w, t, data, avail, level);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		emit_composite(w, t, data, avail, level);
		break;
	default:
		fputs(w->json ? "null" : "/* ? */", w->out);
	}
}

static const char *status_reason(__u32 status)
{
	switch (status & KSNOOP_STATUS_MASK) {
	case KSNOOP_FAULT: return "could not read memory";
	case KSNOOP_NULL: return "NULL pointer along the chain";
	default: return "unknown capture status";
	}
}

/* An entry value whose user memory was paged in only by the return. */
static void print_at_return(struct printer *p, const struct ksnoop_value *vh)
{
	if (!(vh->status & KSNOOP_ST_AT_RETURN) || p->opts.format == FORMAT_JSON)
		return;
	fputs(" /* read at return */", p->out);
}

void printer__value(struct printer *p, const struct btf *btf,
		    const struct value_desc *vd, const struct ksnoop_value *vh,
		    const void *data, int level)
{
	struct walk w = {
		.out = p->out, .btf = btf, .json = p->opts.format == FORMAT_JSON,
		.zeros = p->opts.zeros,
	};
	size_t avail = vh->len < vd->size ? vh->len : vd->size;
	__u32 st = vh->status & KSNOOP_STATUS_MASK;
	char tbuf[160];

	if (st != KSNOOP_OK && st != KSNOOP_TRUNCATED) {
		if (w.json) {
			fputs("{\"error\":", p->out);
			json_write_string(p->out, status_reason(vh->status),
					  strlen(status_reason(vh->status)));
			if (vh->addr)
				fprintf(p->out, ",\"addr\":\"0x%llx\"", (__u64)vh->addr);
			fputc('}', p->out);
		} else {
			if (vh->addr)
				fprintf(p->out, "0x%llx ", (__u64)vh->addr);
			fprintf(p->out, "/* %s */", status_reason(vh->status));
		}
		return;
	}

	switch (vd->how) {
	case PRINT_STRING:
		avail = strnlen(data, avail);
		write_string(&w, data, avail);
		if (st == KSNOOP_TRUNCATED && !w.json)
			fprintf(p->out, "... /* truncated at %u bytes */", vd->size);
		print_at_return(p, vh);
		return;
	case PRINT_DEREF:
		if (!w.json) {
			fprintf(p->out, "0x%llx -> (", (__u64)vh->addr);
			write_name(p->out, false, vd->obj_name[0] ? vd->obj_name :
				   btfu_type_str(btf, vd->obj_id, NULL, tbuf, sizeof(tbuf)));
			fputc(')', p->out);
		}
		emit(&w, vd->obj_id, data, avail, level, 0, 0);
		break;
	case PRINT_VALUE:
		emit(&w, vd->type_id, data, avail, level, vd->bit_off, vd->bit_size);
		break;
	}
	if (!w.json && (w.truncated || vd->obj_size > avail))
		fprintf(p->out, " /* truncated at %zu of %u bytes */", avail, vd->obj_size);
	if (!w.json && w.cut)
		fprintf(p->out, " /* cut: its BTF nests deeper than %d or holds more than %d values */",
			BTFU_MAX_DEPTH, PRINT_MAX_NODES);
	print_at_return(p, vh);
}

/* JSON: "read_at_return": the entry values read again at the return. */
static void print_json_at_return(struct printer *p, const struct capture_plan *plan,
				 const struct ksnoop_side_plan *side, const void *rec, int kind)
{
	int i, n = 0;

	for (i = 0; i < plan->nvalues[kind]; i++) {
		const struct ksnoop_value *vh =
			(const void *)((const char *)rec + side->values[i].rec_off);
		const char *text = plan->values[kind][i].text;

		if (!(vh->status & KSNOOP_ST_AT_RETURN))
			continue;
		fputs(n++ ? "," : ",\"read_at_return\":[", p->out);
		json_write_string(p->out, text, strlen(text));
	}
	if (n)
		fputc(']', p->out);
}

static void print_header_text(struct printer *p, const struct capture_plan *plan,
			      const struct ksnoop_event *ev)
{
	__s64 ns = (__s64)ev->time_ns + p->opts.clock_offset_ns;
	time_t secs = ns / 1000000000LL;
	struct tm tm;
	char comm[KSNOOP_COMM_LEN + 1];

	memcpy(comm, ev->comm, KSNOOP_COMM_LEN);
	comm[KSNOOP_COMM_LEN] = 0;
	localtime_r(&secs, &tm);
	fprintf(p->out, "%02d:%02d:%02d.%06lld cpu%u ",
		tm.tm_hour, tm.tm_min, tm.tm_sec, (long long)(ns % 1000000000LL) / 1000,
		ev->cpu);
	/* comm is the traced program's to choose: "\e[31m\nFORGED" is one. */
	write_name(p->out, false, comm);
	fprintf(p->out, " %u/%u %s ", ev->tgid, ev->tid,
		ev->kind == KSNOOP_ENTRY ? "->" : "<-");
	write_name(p->out, false, plan->sig.name);
	fputc('\n', p->out);
}

void printer__event(struct printer *p, const struct capture_plan *plan,
		    const void *rec, size_t size)
{
	const struct ksnoop_event *ev = rec;
	const struct ksnoop_side_plan *side;
	int kind, i;
	bool json = p->opts.format == FORMAT_JSON;

	if (size < sizeof(*ev) || ev->kind >= KSNOOP_NR_KINDS)
		return;
	kind = ev->kind;
	side = &plan->bpf.side[kind];
	if (size < side->rec_size)
		return;

	if (json) {
		char comm[KSNOOP_COMM_LEN + 1];

		memcpy(comm, ev->comm, KSNOOP_COMM_LEN);
		comm[KSNOOP_COMM_LEN] = 0;
		fprintf(p->out, "{\"time_ns\":%llu,\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
			(unsigned long long)ev->time_ns, ev->cpu, ev->tgid, ev->tid);
		write_name(p->out, true, comm);
		fputs(",\"func\":", p->out);
		write_name(p->out, true, plan->sig.name);
		fprintf(p->out, ",\"kind\":\"%s\",\"values\":{",
			kind == KSNOOP_ENTRY ? "entry" : "return");
	} else {
		print_header_text(p, plan, ev);
	}
	for (i = 0; i < plan->nvalues[kind]; i++) {
		const struct value_desc *vd = &plan->values[kind][i];
		const struct ksnoop_value *vh =
			(const void *)((const char *)rec + side->values[i].rec_off);

		if (json) {
			if (i)
				fputc(',', p->out);
			write_name(p->out, true, vd->text);
			fputc(':', p->out);
		} else {
			fputs(INDENT, p->out);
			write_name(p->out, false, vd->text);
			fputs(" = ", p->out);
		}
		printer__value(p, plan->sig.btf, vd, vh, vh + 1, 1);
		if (!json)
			fputc('\n', p->out);
	}
	if (json) {
		fputc('}', p->out);
		print_json_at_return(p, plan, side, rec, kind);
		fputs("}\n", p->out);
	}
}
