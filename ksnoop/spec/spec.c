// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Spec parser: a hand-written recursive descent over a small token set.
 * Every error carries the 1-based column of the token at fault, because the
 * user typed the spec on a command line and has no other way to see which
 * of several `->` went wrong.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spec.h"

struct parser {
	enum spec_kind kind;
	const char *s;		/* the spec text */
	size_t i;		/* cursor */
	struct ks_error *err;
};

static int fail(struct parser *p, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, size_t at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ks_vfail_at(p->err, -EINVAL, (int)at + 1, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void skip_space(struct parser *p)
{
	while (p->s[p->i] == ' ' || p->s[p->i] == '\t')
		p->i++;
}

static bool is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool is_ident_char(int c)
{
	return isalnum(c) || c == '_';
}

/* A word at S[*J]: *START is where it starts, *J goes past it; false if none. */
static bool skip_word(const char *s, size_t *j, size_t *start)
{
	if (!is_ident_start((unsigned char)s[*j]))
		return false;
	*start = *j;
	while (is_ident_char((unsigned char)s[*j]))
		(*j)++;
	return true;
}

/* Describe the character at the cursor for an error message. */
static const char *what_is(struct parser *p, char *buf, size_t sz)
{
	unsigned char c = p->s[p->i];

	if (!c)
		return "end of spec";
	if (isprint(c))
		snprintf(buf, sz, "'%c'", c);
	else
		snprintf(buf, sz, "byte 0x%02x", c);
	return buf;
}

static int parse_ident(struct parser *p, char **out, const char *what)
{
	size_t start = p->i;
	char buf[16];

	if (!is_ident_start((unsigned char)p->s[p->i]))
		return fail(p, p->i, "expected %s, found %s", what,
			    what_is(p, buf, sizeof(buf)));
	while (is_ident_char((unsigned char)p->s[p->i]))
		p->i++;
	if (p->i - start > SPEC_MAX_NAME)
		return fail(p, start, "%s is longer than %d characters", what,
			    SPEC_MAX_NAME);
	*out = strndup(p->s + start, p->i - start);
	return *out ? 0 : -ENOMEM;
}

static int parse_escape(struct parser *p, uint64_t *out)
{
	size_t at = p->i;
	char c = p->s[p->i];
	unsigned v = 0;
	int n;

	if (!c)
		return -EAGAIN;	/* the caller reports its unterminated literal */
	p->i++;
	switch (c) {
	case 'n': *out = '\n'; return 0;
	case 't': *out = '\t'; return 0;
	case 'r': *out = '\r'; return 0;
	case '0': *out = 0; return 0;
	case '\\': *out = '\\'; return 0;
	case '\'': *out = '\''; return 0;
	case '"': *out = '"'; return 0;
	case 'x':
		for (n = 0; n < 2 && isxdigit((unsigned char)p->s[p->i]); n++, p->i++)
			v = v * 16 + (isdigit((unsigned char)p->s[p->i]) ?
				      p->s[p->i] - '0' :
				      (tolower((unsigned char)p->s[p->i]) - 'a' + 10));
		if (!n)
			return fail(p, at, "expected hex digits after '\\x'");
		*out = v;
		return 0;
	}
	return fail(p, at, "unknown escape '\\%c'", c ? c : ' ');
}

static int parse_number(struct parser *p, struct spec_const *c)
{
	const char *start = p->s + p->i;
	unsigned long long v;
	char *end;

	if (p->s[p->i] == '-' || p->s[p->i] == '+')
		return fail(p, p->i, "expected a number after the sign");
	errno = 0;
	v = strtoull(start, &end, 0);
	if (end == start)
		return fail(p, p->i, "expected a number");
	if (errno == ERANGE)
		return fail(p, p->i, "number '%.*s' does not fit in 64 bits",
			    (int)(end - start), start);
	if (is_ident_char((unsigned char)*end))
		return fail(p, p->i + (end - start), "bad digit '%c' in number", *end);
	c->kind = CONST_INT;
	c->mag = v;
	p->i += end - start;
	return 0;
}

static int parse_const(struct parser *p, struct spec_const *c)
{
	char buf[16];
	size_t at;
	uint64_t ch;
	int err;

	skip_space(p);
	c->pos = (int)p->i + 1;
	at = p->i;
	if (p->s[p->i] == '-') {
		p->i++;
		skip_space(p);
		if (!isdigit((unsigned char)p->s[p->i]))
			return fail(p, p->i, "expected a number after '-'");
		err = parse_number(p, c);
		if (err)
			return err;
		c->neg = c->mag != 0;
		return 0;
	}
	if (isdigit((unsigned char)p->s[p->i]))
		return parse_number(p, c);
	if (p->s[p->i] == '\'') {
		p->i++;
		if (p->s[p->i] == '\\') {
			p->i++;
			err = parse_escape(p, &ch);
			if (err == -EAGAIN)
				return fail(p, at, "unterminated character literal");
			if (err)
				return err;
		} else if (!p->s[p->i]) {
			return fail(p, at, "unterminated character literal");
		} else if (p->s[p->i] != '\'') {
			ch = (unsigned char)p->s[p->i++];
		} else {
			return fail(p, at, "empty character literal");
		}
		if (p->s[p->i] != '\'')
			return fail(p, at, "unterminated character literal");
		p->i++;
		c->kind = CONST_INT;
		c->mag = ch;
		return 0;
	}
	if (p->s[p->i] == '"') {
		char str[SPEC_MAX_STR + 1];
		size_t n = 0;

		p->i++;
		while (p->s[p->i] && p->s[p->i] != '"') {
			if (p->s[p->i] == '\\') {
				size_t esc = p->i++;

				err = parse_escape(p, &ch);
				if (err == -EAGAIN)
					return fail(p, at, "unterminated string constant");
				if (err)
					return err;
				if (!ch)
					return fail(p, esc, "NUL inside a string constant");
			} else {
				ch = (unsigned char)p->s[p->i++];
			}
			if (n >= SPEC_MAX_STR)
				return fail(p, at, "string constant longer than %d bytes",
					    SPEC_MAX_STR);
			str[n++] = (char)ch;
		}
		if (p->s[p->i] != '"')
			return fail(p, at, "unterminated string constant");
		p->i++;
		str[n] = 0;
		c->kind = CONST_STR;
		c->str = strdup(str);
		return c->str ? 0 : -ENOMEM;
	}
	if (is_ident_start((unsigned char)p->s[p->i])) {
		c->kind = CONST_NAME;
		err = parse_ident(p, &c->str, "constant");
		if (err)
			return err;
		skip_space(p);
		/* 'a == b->c': a name is an enumerator, not a value to compare with. */
		if (!strncmp(p->s + p->i, "->", 2) || (p->s[p->i] && strchr(".[(", p->s[p->i])))
			return fail(p, at, "a predicate compares a value with a constant (a number, a character, a string or an enumerator), not with another value");
		return 0;
	}
	return fail(p, p->i, "expected a constant, found %s",
		    what_is(p, buf, sizeof(buf)));
}

static int parse_op(struct parser *p, enum ksnoop_op *op)
{
	const char *s = p->s + p->i;

	if (s[0] == '=' && s[1] == '=') { *op = KSNOOP_OP_EQ; p->i += 2; return 0; }
	if (s[0] == '!' && s[1] == '=') { *op = KSNOOP_OP_NE; p->i += 2; return 0; }
	if (s[0] == '<' && s[1] == '=') { *op = KSNOOP_OP_LE; p->i += 2; return 0; }
	if (s[0] == '>' && s[1] == '=') { *op = KSNOOP_OP_GE; p->i += 2; return 0; }
	if (s[0] == '<') { *op = KSNOOP_OP_LT; p->i += 1; return 0; }
	if (s[0] == '>') { *op = KSNOOP_OP_GT; p->i += 1; return 0; }
	if (s[0] == '=')
		return fail(p, p->i, "'=' is not an operator; use '=='");
	return fail(p, p->i, "unknown operator '%.2s'", s);
}

/*
 * ">> N": the value as printed, shifted right N (1 to 63) bits, as C
 * shifts its type (arithmetic for a signed one): "exit_code >> 8" is
 * the status exit() was given.  Done where values are printed, in
 * userspace; the spelling joins the value's text ("exit_code >> 8").
 */
#define SPEC_MAX_SHIFT	63

static int parse_shift(struct parser *p, struct spec_item *it)
{
	struct spec_const c = {};
	char buf[16], *text;
	int err;

	p->i += 2;
	skip_space(p);
	it->shift_pos = (int)p->i + 1;
	if (!isdigit((unsigned char)p->s[p->i]))
		return fail(p, p->i, "expected a number of bits after '>>', found %s",
			    what_is(p, buf, sizeof(buf)));
	err = parse_number(p, &c);
	if (err)
		return err;
	if (!c.mag || c.mag > SPEC_MAX_SHIFT)
		return fail(p, it->shift_pos - 1, "a shift is 1 to %d bits", SPEC_MAX_SHIFT);
	it->shift = (unsigned int)c.mag;
	if (asprintf(&text, "%s >> %u", it->text, it->shift) < 0)
		return fail(p, it->shift_pos - 1, "out of memory");
	free(it->text);
	it->text = text;
	skip_space(p);
	if (p->s[p->i] && strchr("&=!<>", p->s[p->i]))
		return fail(p, p->i, "'%s' is printed, not compared or masked: a shift applies where values are printed",
			    it->text);
	return 0;
}

/*
 * "& MASK": a flag test.  Alone it is true when any bit of MASK is set
 * (VALUE & MASK != 0); before an operator the masked value is compared.
 */
static int parse_mask(struct parser *p, struct spec_item *it)
{
	struct spec_const c = {};
	char buf[16];
	int err;

	p->i++;
	skip_space(p);
	it->mask_pos = (int)p->i + 1;
	if (!isdigit((unsigned char)p->s[p->i]))
		return fail(p, p->i, "expected a number after '&', found %s",
			    what_is(p, buf, sizeof(buf)));
	err = parse_number(p, &c);
	if (err)
		return err;
	if (!c.mag)
		return fail(p, it->mask_pos - 1, "a mask of 0 is never set");
	it->has_mask = true;
	it->mask = c.mag;
	/* Alone: any bit set. */
	it->has_pred = true;
	it->op = KSNOOP_OP_NE;
	it->op_pos = it->mask_pos;
	it->cst.kind = CONST_INT;
	it->cst.pos = it->mask_pos;
	return 0;
}

/* ---- the item's text: one canonical spelling of the value ---- */

struct textbuf {
	char *s;
	size_t len;
	int err;
};

static void tb_insert(struct textbuf *tb, size_t at, const char *s)
{
	size_t n = strlen(s);
	char *t;

	if (tb->err)
		return;
	t = realloc(tb->s, tb->len + n + 1);
	if (!t) {
		tb->err = -ENOMEM;
		return;
	}
	memmove(t + at + n, t + at, tb->len - at);
	memcpy(t + at, s, n);
	tb->len += n;
	t[tb->len] = 0;
	tb->s = t;
}

static void tb_append(struct textbuf *tb, const char *s)
{
	tb_insert(tb, tb->len, s);
}

/*
 * Spell the value from its steps, as C would need it written: parentheses
 * only where a '*' or a cast comes before a postfix step, spaces only
 * inside type names, indexes in decimal.  The same value written two ways
 * gets one text, so it gets one key in the output.
 */
static int render_text(struct spec_item *it)
{
	struct textbuf tb = {};
	bool unary = false;	/* the text so far ends in a '*' or a cast */
	char buf[32];
	int i;

	tb_append(&tb, it->base);
	for (i = 0; i < it->nsteps; i++) {
		const struct spec_step *st = &it->steps[i];

		switch (st->kind) {
		case STEP_ARROW:
		case STEP_DOT:
		case STEP_INDEX:
			if (unary) {
				tb_insert(&tb, 0, "(");
				tb_append(&tb, ")");
			}
			unary = false;
			if (st->kind == STEP_INDEX) {
				snprintf(buf, sizeof(buf), "[%lld]", (long long)st->index);
				tb_append(&tb, buf);
			} else {
				tb_append(&tb, st->kind == STEP_DOT ? "." : "->");
				tb_append(&tb, st->member);
			}
			break;
		case STEP_DEREF:
			tb_insert(&tb, 0, "*");
			unary = true;
			break;
		case STEP_CAST:
			if (st->usdt_word) {
				tb_append(&tb, ":");
				tb_append(&tb, st->type);
				break;
			}
			tb_insert(&tb, 0, ")");
			tb_insert(&tb, 0, st->type);
			tb_insert(&tb, 0, "(");
			unary = true;
			break;
		}
	}
	if (it->fmt) {
		tb_append(&tb, ":");
		tb_append(&tb, spec_format__str(it->fmt));
	}
	if (it->str_len) {
		tb_append(&tb, "(");
		tb_append(&tb, it->str_len);
		tb_append(&tb, ")");
	}
	if (tb.err) {
		free(tb.s);
		return tb.err;
	}
	it->text = tb.s;
	return 0;
}

/* ---- values ---- */

static struct spec_step *new_step(struct parser *p, struct spec_item *it, size_t at)
{
	if (it->nsteps >= SPEC_MAX_STEPS) {
		fail(p, at, "more than %d steps in one value", SPEC_MAX_STEPS);
		return NULL;
	}
	return &it->steps[it->nsteps++];
}

static bool is_type_word(const char *s, size_t n)
{
	static const char *const words[] = {
		"struct", "union", "enum", "const", "volatile", "unsigned", "signed",
		"char", "short", "int", "long", "void", "_Bool", "float", "double",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && strncmp(words[i], s, n) == 0)
			return true;
	return false;
}

/*
 * At '(': a cast or a parenthesised value?  The parser knows no typedefs,
 * so it decides as C compilers that meet an unknown name do: a type word
 * (struct, unsigned, ...), a '*' or two words inside, or a value right after
 * the ')', make a cast; `(x)` alone is a value.
 */
static bool at_cast(struct parser *p)
{
	size_t j = p->i + 1, start;
	int words = 0;
	bool star = false;

	while (p->s[j] == ' ' || p->s[j] == '\t')
		j++;
	if (!skip_word(p->s, &j, &start))
		return false;
	if (is_type_word(p->s + start, j - start))
		return true;
	for (;; j++) {
		unsigned char c = p->s[j];

		if (is_ident_start(c)) {
			words++;
			while (is_ident_char((unsigned char)p->s[j + 1]))
				j++;
		} else if (c == '*') {
			star = true;
		} else if (c != ' ' && c != '\t') {
			break;
		}
	}
	if (p->s[j] != ')')
		return false;
	if (star || words > 0)
		return true;
	j++;
	while (p->s[j] == ' ' || p->s[j] == '\t')
		j++;
	return is_ident_start((unsigned char)p->s[j]) || p->s[j] == '(' || p->s[j] == '*';
}

/* TYPE up to END: words and trailing '*'s, spelled "struct foo **". */
static int parse_type_name(struct parser *p, size_t end, char **out)
{
	char word[SPEC_MAX_NAME + 1], buf[16];
	struct textbuf tb = {};
	int stars = 0, err = 0;
	size_t type_at;

	skip_space(p);
	type_at = p->i;
	for (; p->i < end && !err; skip_space(p)) {
		size_t start = p->i;

		if (p->s[p->i] == '*') {
			stars++;
			p->i++;
			continue;
		}
		if (!is_ident_start((unsigned char)p->s[p->i]) || stars) {
			err = fail(p, p->i, "expected a type name, found %s",
				   what_is(p, buf, sizeof(buf)));
			break;
		}
		while (is_ident_char((unsigned char)p->s[p->i]))
			p->i++;
		if (p->i - start > SPEC_MAX_NAME) {
			err = fail(p, start, "type name is too long");
			break;
		}
		snprintf(word, sizeof(word), "%.*s", (int)(p->i - start), p->s + start);
		skip_space(p);
		if ((!strcmp(word, "struct") || !strcmp(word, "union") || !strcmp(word, "enum")) &&
		    !is_ident_start((unsigned char)p->s[p->i])) {
			err = fail(p, p->i, "expected a name after '%s'", word);
			break;
		}
		if (tb.len)
			tb_append(&tb, " ");
		tb_append(&tb, word);
	}
	if (!err && !tb.len)
		err = fail(p, p->i, "expected a type name before %s", stars ? "'*'" : "')'");
	if (!err && stars) {
		tb_append(&tb, " ");
		while (stars--)
			tb_append(&tb, "*");
	}
	if (!err)
		err = tb.err;
	if (!err && tb.len > SPEC_MAX_TYPE)
		err = fail(p, type_at, "type is too long (more than %d characters)", SPEC_MAX_TYPE);
	if (err) {
		free(tb.s);
		return err;
	}
	*out = tb.s;
	return 0;
}

static const char *const format_names[] = {
	[FMT_HEX] = "hex", [FMT_BE] = "be", [FMT_IP] = "ip", [FMT_SYM] = "sym",
	[FMT_STR] = "str", [FMT_TUPLE] = "tuple", [FMT_SIGNAL] = "signal",
	[FMT_TCPSTATE] = "tcpstate", [FMT_STRV] = "strv",
};

static enum spec_format format_by_name(const char *s, size_t n)
{
	size_t f;

	for (f = 1; f < sizeof(format_names) / sizeof(format_names[0]); f++)
		if (strlen(format_names[f]) == n && strncmp(format_names[f], s, n) == 0)
			return (enum spec_format)f;
	return FMT_NONE;
}

/*
 * ":str(LEN)", at the '(' after "str": the argument LEN holds the
 * string's length (pointer and length, as the JVM passes class names).
 */
static int parse_str_len(struct parser *p, struct spec_item *it)
{
	char buf[16];
	size_t open = p->i++;
	int err;

	skip_space(p);
	it->str_len_pos = (int)p->i + 1;
	err = parse_ident(p, &it->str_len, "the argument that holds the length in ':str(...)'");
	if (err)
		return err;
	skip_space(p);
	if (p->s[p->i] != ')')
		return fail(p, p->i, "expected ')' to match the '(' at column %zu, found %s",
			    open + 1, what_is(p, buf, sizeof(buf)));
	p->i++;
	return 0;
}

/* USDT arguments are bare words: "arg2:str", "arg2:str(arg3)", "arg2:struct req *". */
static int parse_usdt_type(struct parser *p, struct spec_item *it)
{
	size_t start = ++p->i, end;
	struct spec_step *st;
	char *type;
	int err;

	while (p->s[p->i] && !strchr(",()=!<>.[&:", p->s[p->i]) &&
	       !(p->s[p->i] == '-' && p->s[p->i + 1] == '>'))
		p->i++;
	end = p->i;
	while (start < end && isspace((unsigned char)p->s[start]))
		start++;
	while (end > start && isspace((unsigned char)p->s[end - 1]))
		end--;
	if (end == start)
		return fail(p, start, "expected a type or 'str' after ':'");
	if (end - start > SPEC_MAX_NAME)
		return fail(p, start, "type name is too long");
	it->fmt = format_by_name(p->s + start, end - start);
	if (it->fmt) {
		it->fmt_pos = (int)start + 1;
		return it->fmt == FMT_STR && p->s[p->i] == '(' ? parse_str_len(p, it) : 0;
	}
	p->i = start;
	err = parse_type_name(p, end, &type);
	if (err)
		return err;
	p->i = end;
	st = new_step(p, it, start);
	if (!st) {
		free(type);
		return -EINVAL;
	}
	st->kind = STEP_CAST;
	st->type = type;
	st->usdt_word = true;
	st->pos = st->op_pos = (int)start + 1;
	return 0;
}

static int parse_unary(struct parser *p, struct spec_item *it, int depth);

/*
 * '@NAME' or '@tls:NAME': a global or thread-local variable of the
 * traced file (a user function's or USDT probe's), its base spelled so
 * ("@tls:NAME").
 */
static int parse_uvar(struct parser *p, struct spec_item *it)
{
	size_t at = p->i++;
	bool tls = strncmp(p->s + p->i, "tls:", 4) == 0;
	char *name = NULL;
	int err;

	if (p->kind != SPEC_UFUNC && p->kind != SPEC_USDT)
		return fail(p, at, "'@NAME' (a variable of the traced program) is for user functions (u:BINARY:FUNC) and USDT probes only");
	p->i += tls ? 4 : 0;
	err = parse_ident(p, &name, tls ? "a thread-local variable's name after '@tls:'" :
				     "a variable's name after '@'");
	if (err)
		return err;
	if (asprintf(&it->base, "@%s%s", tls ? "tls:" : "", name) < 0)
		it->base = NULL;
	free(name);
	return it->base ? 0 : -ENOMEM;
}

static int parse_postfix(struct parser *p, struct spec_item *it, int depth)
{
	char buf[16];
	size_t at;
	int err;

	skip_space(p);
	if (p->s[p->i] == '(') {
		at = p->i++;
		err = parse_unary(p, it, depth + 1);
		if (err)
			return err;
		skip_space(p);
		if (p->s[p->i] != ')')
			return fail(p, p->i, "expected ')' to match the '(' at column %zu, found %s",
				    at + 1, what_is(p, buf, sizeof(buf)));
		p->i++;
	} else {
		it->base_pos = (int)p->i + 1;
		if (p->s[p->i] == '@')
			err = parse_uvar(p, it);
		else
			err = parse_ident(p, &it->base, "a value (argument name or 'return')");
		if (err)
			return err;
		/* argN:TYPE; a variable has its type, and its format after the chain. */
		if (p->kind == SPEC_USDT && it->base[0] != '@' && p->s[p->i] == ':') {
			err = parse_usdt_type(p, it);
			if (err)
				return err;
		}
	}

	for (;;) {
		struct spec_step *st;

		skip_space(p);
		at = p->i;
		if (p->s[p->i] == '-' && p->s[p->i + 1] == '>')
			p->i += 2;
		else if (p->s[p->i] == '.' || p->s[p->i] == '[')
			p->i += 1;
		else
			break;
		st = new_step(p, it, at);
		if (!st)
			return -EINVAL;
		st->op_pos = (int)at + 1;
		skip_space(p);
		st->pos = (int)p->i + 1;
		if (p->s[at] == '[') {
			struct spec_const c = {};

			if (!isdigit((unsigned char)p->s[p->i]))
				return fail(p, p->i, "expected an index, found %s",
					    what_is(p, buf, sizeof(buf)));
			err = parse_number(p, &c);
			if (err)
				return err;
			if (c.mag > INT32_MAX)
				return fail(p, st->pos - 1, "index %llu is too large",
					    (unsigned long long)c.mag);
			skip_space(p);
			if (p->s[p->i] != ']')
				return fail(p, p->i, "expected ']', found %s",
					    what_is(p, buf, sizeof(buf)));
			p->i++;
			st->kind = STEP_INDEX;
			st->index = (int64_t)c.mag;
			continue;
		}
		st->kind = p->s[at] == '.' ? STEP_DOT : STEP_ARROW;
		err = parse_ident(p, &st->member, "a member name");
		if (err)
			return err;
	}
	return 0;
}

/* '*' VALUE | '(' TYPE ')' VALUE | POSTFIX; steps are appended innermost first. */
static int parse_unary(struct parser *p, struct spec_item *it, int depth)
{
	struct spec_step *st;
	size_t at, close;
	char *type;
	int err;

	skip_space(p);
	at = p->i;
	if (depth > SPEC_MAX_STEPS)
		return fail(p, at, "value nested deeper than %d", SPEC_MAX_STEPS);
	if (p->s[p->i] == '*') {
		p->i++;
		err = parse_unary(p, it, depth + 1);
		if (err)
			return err;
		st = new_step(p, it, at);
		if (!st)
			return -EINVAL;
		st->kind = STEP_DEREF;
		st->pos = st->op_pos = (int)at + 1;
		return 0;
	}
	if (p->s[p->i] == '(' && at_cast(p)) {
		close = strchr(p->s + p->i, ')') - p->s;
		p->i++;
		err = parse_type_name(p, close, &type);
		if (err)
			return err;
		p->i = close + 1;
		err = parse_unary(p, it, depth + 1);
		if (err) {
			free(type);
			return err;
		}
		st = new_step(p, it, at);
		if (!st) {
			free(type);
			return -EINVAL;
		}
		st->kind = STEP_CAST;
		st->type = type;
		st->op_pos = (int)at + 1;
		st->pos = (int)at + 2;
		return 0;
	}
	return parse_postfix(p, it, depth);
}

static int parse_format(struct parser *p, struct spec_item *it)
{
	size_t start;
	char buf[16];

	p->i++;
	skip_space(p);
	start = p->i;
	if (!is_ident_start((unsigned char)p->s[p->i]))
		return fail(p, p->i, "expected a format after ':' (hex, be, ip, sym, str, tuple, signal, tcpstate, strv), found %s",
			    what_is(p, buf, sizeof(buf)));
	while (is_ident_char((unsigned char)p->s[p->i]))
		p->i++;
	if (it->fmt)
		return fail(p, start, "a value takes one format; it already has ':%s'",
			    spec_format__str(it->fmt));
	it->fmt = format_by_name(p->s + start, p->i - start);
	if (!it->fmt)
		return fail(p, start, "unknown format '%.*s' (formats: hex, be, ip, sym, str, tuple, signal, tcpstate, strv)",
			    (int)(p->i - start > 32 ? 32 : p->i - start), p->s + start);
	it->fmt_pos = (int)start + 1;
	start = p->i;
	skip_space(p);
	if (it->fmt == FMT_STR && p->s[p->i] == '(')
		return parse_str_len(p, it);
	p->i = start;
	return 0;
}

static int parse_item(struct parser *p, struct spec_item *it)
{
	int err;

	err = parse_unary(p, it, 0);
	if (err)
		return err;
	skip_space(p);
	/* A second ':' is refused there, naming the first. */
	while (p->s[p->i] == ':') {
		err = parse_format(p, it);
		if (err)
			return err;
		skip_space(p);
	}
	err = render_text(it);
	if (err)
		return err;
	if (p->s[p->i] == '>' && p->s[p->i + 1] == '>') {
		err = parse_shift(p, it);
		if (err)
			return err;
	}
	if (p->s[p->i] == '&') {
		err = parse_mask(p, it);
		if (err)
			return err;
		skip_space(p);
	}
	if (strchr("=!<>", p->s[p->i]) && p->s[p->i]) {
		it->op_pos = (int)p->i + 1;
		err = parse_op(p, &it->op);
		if (err)
			return err;
		it->has_pred = true;
		err = parse_const(p, &it->cst);
		if (err)
			return err;
	}
	return 0;
}

/* Characters of a kernel function name or of a glob over them. */
static bool is_func_glob_char(int c)
{
	return is_ident_char(c) || c == '.' || (c && strchr("*?[]!-^", c));
}

/*
 * NAME@ADDRESS: one of the kernel functions of that name (static ones in
 * several files or modules), by its address in kallsyms.
 */
static int parse_address(struct parser *p, struct spec *spec)
{
	size_t at = p->i++, start, digits;
	uint64_t v = 0;

	if (spec->is_glob)
		return fail(p, at, "'@ADDRESS' picks one function of a name; a glob names many");
	if (p->s[p->i] == '0' && (p->s[p->i + 1] == 'x' || p->s[p->i + 1] == 'X'))
		p->i += 2;
	start = p->i;
	while (isxdigit((unsigned char)p->s[p->i])) {
		if (v >> 60)
			return fail(p, start, "address too large for 64 bits");
		v = v << 4 | (uint64_t)(isdigit((unsigned char)p->s[p->i]) ? p->s[p->i] - '0' :
					tolower((unsigned char)p->s[p->i]) - 'a' + 10);
		p->i++;
	}
	digits = p->i - start;
	if (!digits || is_ident_char((unsigned char)p->s[p->i]))
		return fail(p, digits ? p->i : start,
			    "expected a hex address after '@' (as 'ksnoop info %s' lists them)",
			    spec->target);
	if (!v)
		return fail(p, start, "address 0 names no function");
	spec->addr = v;
	spec->addr_pos = (int)at + 1;
	return 0;
}

/* Longest BINARY of a u: spec, and of its function's name (C++ names run long). */
#define SPEC_MAX_PATH		4096
#define SPEC_MAX_UFUNC		1024

/* A number of a u: spec, decimal or 0x hex: 0, or fail() at its column. */
static int parse_unumber(struct parser *p, uint64_t *out, const char *what)
{
	size_t start = p->i;
	bool hex = p->s[p->i] == '0' && (p->s[p->i + 1] == 'x' || p->s[p->i + 1] == 'X');
	uint64_t v = 0;

	if (hex)
		p->i += 2;
	while (hex ? isxdigit((unsigned char)p->s[p->i]) : isdigit((unsigned char)p->s[p->i])) {
		unsigned d = isdigit((unsigned char)p->s[p->i]) ? p->s[p->i] - '0' :
			     tolower((unsigned char)p->s[p->i]) - 'a' + 10;

		if (v > (UINT64_MAX - d) / (hex ? 16 : 10))
			return fail(p, start, "%s too large for 64 bits", what);
		v = v * (hex ? 16 : 10) + d;
		p->i++;
	}
	if (p->i == start + (hex ? 2 : 0) || is_ident_char((unsigned char)p->s[p->i]))
		return fail(p, start, "expected %s (decimal, or hex after 0x)", what);
	*out = v;
	return 0;
}

/* The function of u:BINARY:FUNC: a name, a glob, 'QUOTED', NAME+OFFSET or 0xADDRESS. */
static int parse_ufunc_name(struct parser *p, struct spec *spec)
{
	size_t start = p->i, end;

	if (p->s[p->i] == '\'') {
		start = ++p->i;
		while (p->s[p->i] && p->s[p->i] != '\'')
			p->i++;
		if (!p->s[p->i])
			return fail(p, start - 1, "missing the closing ' of the function's name");
		end = p->i++;
	} else {
		/* '(' opens the values; C++ names with one are quoted. */
		while (p->s[p->i] && p->s[p->i] != '(' && p->s[p->i] != '+' &&
		       !isspace((unsigned char)p->s[p->i]))
			p->i++;
		end = p->i;
	}
	if (end == start)
		return fail(p, start, "expected a function name, a glob or 0xADDRESS after 'u:BINARY:'");
	if (end - start > SPEC_MAX_UFUNC)
		return fail(p, start, "name is too long");
	spec->target_pos = (int)start + 1;
	spec->target = strndup(p->s + start, end - start);
	if (!spec->target)
		return -ENOMEM;
	spec->is_glob = p->s[start - 1] != '\'' && strpbrk(spec->target, "*?[") != NULL;
	if (p->s[start - 1] != '\'' && spec->target[0] == '0' &&
	    (spec->target[1] == 'x' || spec->target[1] == 'X')) {
		size_t save = p->i;

		p->i = start;
		if (parse_unumber(p, &spec->uaddr, "an address"))
			return -EINVAL;
		if (p->i != end)
			return fail(p, p->i, "expected hex digits in the address");
		p->i = save;
		if (!spec->uaddr)
			return fail(p, start, "address 0 names no function");
	}
	if (p->s[p->i] != '+')
		return 0;
	if (spec->is_glob || spec->uaddr)
		return fail(p, p->i, "'+OFFSET' follows one function's name, not a glob or an address");
	p->i++;
	return parse_unumber(p, &spec->uoffset, "an offset");
}

/*
 * u:BINARY:FUNC.  BINARY ends at the first ':' (a path with a ':' in it
 * cannot be named: a link to it can), so a C++ name keeps its '::'.
 */
static int parse_ufunc_target(struct parser *p, struct spec *spec)
{
	size_t start = p->i;

	while (p->s[p->i] && p->s[p->i] != ':' && p->s[p->i] != '(')
		p->i++;
	if (p->s[p->i] != ':')
		return fail(p, p->i, "expected 'u:BINARY:FUNC' (BINARY a path or a library's name, then ':' and the function)");
	if (p->i == start)
		return fail(p, start, "expected a program's path or a library's name after 'u:'");
	if (p->i - start > SPEC_MAX_PATH)
		return fail(p, start, "path is too long");
	spec->binary_pos = (int)start + 1;
	spec->binary = strndup(p->s + start, p->i - start);
	if (!spec->binary)
		return -ENOMEM;
	p->i++;
	return parse_ufunc_name(p, spec);
}

static int parse_target(struct parser *p, struct spec *spec)
{
	size_t start = p->i, end;
	char buf[16];

	if (spec->kind == SPEC_UFUNC)
		return parse_ufunc_target(p, spec);

	if (spec->kind == SPEC_USDT) {
		/* BINARY:PROVIDER:NAME; the path may hold almost anything. */
		while (p->s[p->i] && p->s[p->i] != '(')
			p->i++;
		end = p->i;
		while (end > start && isspace((unsigned char)p->s[end - 1]))
			end--;
	} else if (spec->kind == SPEC_TP) {
		/* NAME or CATEGORY:NAME; `info` takes globs. */
		while (is_func_glob_char((unsigned char)p->s[p->i]) || p->s[p->i] == ':')
			p->i++;
		end = p->i;
	} else {
		/* [MODULE:]NAME, NAME a function name or a glob. */
		while (is_func_glob_char((unsigned char)p->s[p->i]))
			p->i++;
		if (p->s[p->i] == ':' && p->i > start) {
			for (size_t j = start; j < p->i; j++)
				if (!is_ident_char((unsigned char)p->s[j]))
					return fail(p, j, "a module name is letters, digits and '_' (a function of a program or library is u:BINARY:FUNC)");
			if (p->i - start > SPEC_MAX_NAME)
				return fail(p, start, "name is too long");
			spec->module = strndup(p->s + start, p->i - start);
			if (!spec->module)
				return -ENOMEM;
			start = ++p->i;
			while (is_func_glob_char((unsigned char)p->s[p->i]))
				p->i++;
		}
		end = p->i;
	}
	if (end == start)
		return fail(p, start, "expected a %s name, found %s%s",
			    spec->kind == SPEC_TP ? "tracepoint" :
			    spec->kind == SPEC_USDT ? "probe" : "function",
			    what_is(p, buf, sizeof(buf)),
			    spec->kind == SPEC_KFUNC && strchr("/.", p->s[start]) && p->s[start] ?
			    " (a function of a program or library is u:BINARY:FUNC)" : "");
	if (end - start > (spec->kind == SPEC_USDT ? 4096 : SPEC_MAX_NAME))
		return fail(p, start, "name is too long");
	spec->target_pos = (int)start + 1;
	spec->target = strndup(p->s + start, end - start);
	if (!spec->target)
		return -ENOMEM;
	if (spec->kind != SPEC_USDT)
		spec->is_glob = strpbrk(spec->target, "*?[") != NULL;
	if (spec->kind == SPEC_KFUNC) {
		/* Only a glob's own characters: "a-b" is not a name. */
		if (!spec->is_glob && strpbrk(spec->target, "]!-^"))
			return fail(p, start + strcspn(spec->target, "]!-^"),
				    "'%c' in a function name", spec->target[strcspn(spec->target, "]!-^")]);
		if (p->s[p->i] == '@')
			return parse_address(p, spec);
	}
	return 0;
}

/*
 * An item that declares rather than names: TYPE NAME.  A value never
 * has two words in a row or a word before a '*', so those start one.
 */
static bool at_decl(struct parser *p)
{
	size_t j = p->i, start;

	if (!skip_word(p->s, &j, &start))
		return false;
	if (is_type_word(p->s + start, j - start))
		return true;
	while (p->s[j] == ' ' || p->s[j] == '\t')
		j++;
	return j > start && (is_ident_start((unsigned char)p->s[j]) || p->s[j] == '*') &&
	       !(j - start == 6 && strncmp(p->s + start, "return", 6) == 0);
}

/* TYPE NAME, up to the ',' or ')' that ends the item. */
static int parse_decl(struct parser *p, struct spec *spec)
{
	struct spec_decl *d;
	size_t end = p->i, name_at = 0;
	char buf[16];
	int err;

	if (spec->kind == SPEC_USDT || spec->kind == SPEC_UFUNC)
		return fail(p, p->i, "declarations (TYPE NAME) select kernel functions and tracepoints by argument type; not %s",
			    spec->kind == SPEC_USDT ? "USDT probes" : "user functions");
	if (spec->ndecls >= SPEC_MAX_DECLS)
		return fail(p, p->i, "more than %d declarations in one spec", SPEC_MAX_DECLS);
	/* The name is the last word before the item ends. */
	while (p->s[end] && p->s[end] != ',' && p->s[end] != ')') {
		if (is_ident_start((unsigned char)p->s[end]) &&
		    (end == 0 || !is_ident_char((unsigned char)p->s[end - 1])))
			name_at = end;
		end++;
	}
	{
		size_t last = end;

		while (last > p->i && isspace((unsigned char)p->s[last - 1]))
			last--;
		if (last > p->i && !is_ident_char((unsigned char)p->s[last - 1]))
			return fail(p, last, "expected the declared name after the type, found %s",
				    p->s[last] ? (p->s[last] == ',' ? "','" : "')'") : "end of spec");
	}
	d = &spec->decls[spec->ndecls];
	d->type_pos = (int)p->i + 1;
	err = parse_type_name(p, name_at > p->i ? name_at : p->i, &d->type);
	if (err)
		return err;
	spec->ndecls++;
	skip_space(p);
	d->name_pos = (int)p->i + 1;
	err = parse_ident(p, &d->name, "the declared name");
	if (err)
		return err;
	skip_space(p);
	if (p->s[p->i] != ',' && p->s[p->i] != ')')
		return fail(p, p->i, "expected ',' or ')' after the declared name, found %s",
			    what_is(p, buf, sizeof(buf)));
	return 0;
}

int spec__parse(const char *text, enum spec_kind kind, struct spec *spec,
		struct ks_error *err)
{
	struct parser p = { .kind = kind, .s = text, .err = err };
	char buf[16];
	int ret;

	memset(spec, 0, sizeof(*spec));
	ks_clear(err);
	spec->kind = kind;
	spec->text = strdup(text);
	if (!spec->text)
		return -ENOMEM;

	skip_space(&p);
	if (kind == SPEC_KFUNC && strncmp(text + p.i, "tp:", 3) == 0) {
		spec->kind = SPEC_TP;
		p.i += 3;
	} else if (kind == SPEC_KFUNC && strncmp(text + p.i, "sys:", 4) == 0) {
		/* A syscall: a tracepoint pair, named "sys:NAME" (kernel.h). */
		spec->kind = SPEC_TP;
	} else if (kind == SPEC_KFUNC && strncmp(text + p.i, "u:", 2) == 0) {
		/* A user function: "u" is no kernel module's name. */
		spec->kind = SPEC_UFUNC;
		p.kind = SPEC_UFUNC;
		p.i += 2;
	}
	ret = parse_target(&p, spec);
	if (ret)
		return ret;
	skip_space(&p);
	if (p.s[p.i] == '(') {
		spec->has_list = true;
		p.i++;
		skip_space(&p);
		if (p.s[p.i] == ')') {
			p.i++;
		} else {
			for (;;) {
				skip_space(&p);
				if (at_decl(&p))
					ret = parse_decl(&p, spec);
				else if (spec->nitems >= SPEC_MAX_ITEMS)
					return fail(&p, p.i, "more than %d values in one spec",
						    SPEC_MAX_ITEMS);
				else
					ret = parse_item(&p, &spec->items[spec->nitems++]);
				if (ret)
					return ret;
				skip_space(&p);
				if (p.s[p.i] == ',') {
					p.i++;
					continue;
				}
				if (p.s[p.i] == ')') {
					p.i++;
					break;
				}
				if (!p.s[p.i])
					return fail(&p, p.i, "missing ')'");
				return fail(&p, p.i, "expected ',' or ')', found %s",
					    what_is(&p, buf, sizeof(buf)));
			}
		}
	}
	skip_space(&p);
	if (p.s[p.i])
		return fail(&p, p.i, "unexpected %s after the spec",
			    what_is(&p, buf, sizeof(buf)));
	return 0;
}

void spec__free(struct spec *spec)
{
	int i, j;

	if (!spec)
		return;
	for (i = 0; i < spec->nitems; i++) {
		struct spec_item *it = &spec->items[i];

		free(it->text);
		free(it->base);
		for (j = 0; j < it->nsteps; j++) {
			free(it->steps[j].member);
			free(it->steps[j].type);
		}
		free(it->cst.str);
		free(it->str_len);
	}
	for (i = 0; i < spec->ndecls; i++) {
		free(spec->decls[i].type);
		free(spec->decls[i].name);
	}
	free(spec->text);
	free(spec->target);
	free(spec->module);
	free(spec->binary);
	memset(spec, 0, sizeof(*spec));
}

bool spec_item__is_return(const struct spec_item *item)
{
	return item->base && strcmp(item->base, "return") == 0;
}

const char *spec_op__str(enum ksnoop_op op)
{
	static const char *const names[] = {
		[KSNOOP_OP_EQ] = "==", [KSNOOP_OP_NE] = "!=",
		[KSNOOP_OP_LT] = "<",  [KSNOOP_OP_LE] = "<=",
		[KSNOOP_OP_GT] = ">",  [KSNOOP_OP_GE] = ">=",
	};

	return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

const char *spec_format__str(enum spec_format fmt)
{
	return (unsigned)fmt < sizeof(format_names) / sizeof(format_names[0]) &&
	       format_names[fmt] ? format_names[fmt] : "?";
}

bool spec__is_syscall(const struct spec *s)
{
	return s->kind == SPEC_TP && s->target && strncmp(s->target, "sys:", 4) == 0;
}

bool spec__reads_vars(const struct spec *s)
{
	int i;

	for (i = 0; i < s->nitems; i++)
		if (s->items[i].base && s->items[i].base[0] == '@')
			return true;
	return false;
}

/* ---- --by ---- */

static const struct {
	const char *name;
	enum ksnoop_by by;
} by_words[] = {
	{ "comm", KSNOOP_BY_COMM },
	{ "pid", KSNOOP_BY_PID },
	{ "tid", KSNOOP_BY_TID },
	{ "cpu", KSNOOP_BY_CPU },
	{ "cgroup", KSNOOP_BY_CGROUP },
};

enum ksnoop_by spec__by_word(const char *w)
{
	size_t i;

	for (i = 0; i < sizeof(by_words) / sizeof(by_words[0]); i++)
		if (!strcmp(w, by_words[i].name))
			return by_words[i].by;
	return KSNOOP_BY_NONE;
}

/* Part I of BY (LEN bytes at P) checked against the parts before it. */
static int by_add_part(struct spec_by *by, const char *arg, const char *p, size_t len,
		       struct ks_error *e)
{
	char *part = by->part[by->n];
	int i;

	if (!len || len >= sizeof(by->part[0]))
		return ks_fail(e, -EINVAL, "--by '%s': a key is empty or longer than %zu characters",
			       arg, sizeof(by->part[0]) - 1);
	memcpy(part, p, len);
	part[len] = 0;
	for (i = 0; i < by->n; i++)
		if (!strcmp(by->part[i], part))
			return ks_fail(e, -EINVAL, "--by '%s': '%s' is given twice", arg, part);
	by->word[by->n] = spec__by_word(part);
	if (by->word[by->n] == KSNOOP_BY_NONE && by->value >= 0)
		return ks_fail(e, -EINVAL, "--by '%s': one key may be a value the spec names; '%s' is a second (comm, pid, tid, cpu and cgroup go beside it)",
			       arg, part);
	if (by->word[by->n] == KSNOOP_BY_NONE)
		by->value = by->n;
	by->n++;
	return 0;
}

int spec__parse_by(const char *arg, struct spec_by *by, struct ks_error *e)
{
	const char *p = arg, *comma;
	int err;

	memset(by, 0, sizeof(*by));
	by->value = -1;
	for (;;) {
		comma = strchr(p, ',');
		if (by->n == KSNOOP_BY_PARTS)
			return ks_fail(e, -EINVAL, "--by '%s': at most %d keys (KEY[,KEY[,KEY]])",
				       arg, KSNOOP_BY_PARTS);
		err = by_add_part(by, arg, p, comma ? (size_t)(comma - p) : strlen(p), e);
		if (err)
			return err;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}
