// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "escape.h"

/*
 * Escaping.  Everything that comes from outside -- traced memory, comm,
 * ELF notes, BTF names, paths -- reaches the terminal through one of two
 * writers, one per output form:
 *
 *   text_write_escaped()  printable ASCII as is but '\' (as \\), every
 *                         other byte as \xNN:
 *                         no C0 control, DEL or C1 control (raw 0x80-0x9f
 *                         or UTF-8 encoded U+0080-U+009F) gets through,
 *                         whatever the terminal's encoding;
 *   json_write_string()   RFC 8259 and always valid UTF-8: well-formed
 *                         UTF-8 passes except the code points a terminal
 *                         acts on (C1, line separators, bidi overrides),
 *                         which become \uXXXX like C0 controls; a byte
 *                         that is not UTF-8 becomes the text \xNN.
 */

/*
 * Output goes to an obuf (obuf.h) a run at a time: a run of bytes that
 * needs no escape is one copy, an escape one piece.  The FILE forms put a
 * small obuf of their own in front of the FILE and hold its lock for the
 * whole string (a string is never interleaved with another thread's line;
 * the lock is recursive, so a caller holding it already pays nothing more).
 */

static const char hex_digits[] = "0123456789abcdef";

/* "\uXXXX" (JSON) for a code point below U+10000. */
static void put_u_escape(struct obuf *b, __u32 cp)
{
	char *q = obuf__room(b, 6);

	*q++ = '\\';
	*q++ = 'u';
	*q++ = hex_digits[cp >> 12 & 0xf];
	*q++ = hex_digits[cp >> 8 & 0xf];
	*q++ = hex_digits[cp >> 4 & 0xf];
	*q++ = hex_digits[cp & 0xf];
	obuf__commit(b, q);
}

/* "\\\\xNN" (JSON): byte C, which is no character, as the text \xNN. */
static void put_byte_escape(struct obuf *b, unsigned char c)
{
	char *q = obuf__room(b, 6);

	*q++ = '\\';
	*q++ = '\\';
	*q++ = 'x';
	*q++ = hex_digits[c >> 4];
	*q++ = hex_digits[c & 0xf];
	obuf__commit(b, q);
}

/* "\C": a two-character escape. */
static void put_pair(struct obuf *b, char c)
{
	char *q = obuf__room(b, 2);

	*q++ = '\\';
	*q++ = c;
	obuf__commit(b, q);
}

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

bool text_is_printable(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;
	__u32 cp;

	while (i < n) {
		if (u[i] >= 0x20 && u[i] < 0x7f) {
			i++;
			continue;
		}
		len = utf8_len(u + i, n - i, &cp);
		if (!len || unsafe_code_point(cp))
			return false;
		i += len;
	}
	return true;
}

/* Bytes at the start of S (N) that JSON takes as they are: printable ASCII. */
static size_t json_plain_run(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\')
		i++;
	return i;
}

void json_escape(struct obuf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	obuf__putc(b, '"');
	while (i < n) {
		size_t run = json_plain_run(u + i, n - i), len;
		unsigned char c;
		__u32 cp;

		if (run) {
			obuf__write(b, u + i, run);
			i += run;
			continue;
		}
		c = u[i];
		if (c == '"' || c == '\\') {
			put_pair(b, c);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': put_pair(b, 'n'); break;
			case '\t': put_pair(b, 't'); break;
			case '\r': put_pair(b, 'r'); break;
			default: put_u_escape(b, c); break;
			}
			i++;
			continue;
		}
		/*
		 * Pass well-formed UTF-8 through (RFC 3629: no overlongs, no
		 * surrogates, nothing above U+10FFFF) unless a terminal would
		 * act on it (then \uXXXX: the unsafe code points are all
		 * below U+10000).  Any other byte is no character: it becomes
		 * the four characters \xNN ("\\xff" in JSON), not U+00NN,
		 * which would read as the character 0xNN is in Latin-1.
		 */
		len = utf8_len(u + i, n - i, &cp);
		if (len && !unsafe_code_point(cp)) {
			obuf__write(b, u + i, len);
			i += len;
		} else if (len) {
			put_u_escape(b, cp);
			i += len;
		} else {
			put_byte_escape(b, c);
			i++;
		}
	}
	obuf__putc(b, '"');
}

/*
 * What the text escaper leaves as it is beside printable ASCII: a name
 * (comm, a path, a symbol) escapes '\', which starts every escape, or one
 * holding the two characters \t would print as one holding a TAB; a
 * quoted string escapes '"' too; a message of ours (stderr) keeps '\',
 * so that "unknown escape '\q'" reads as the user typed it.
 */
enum text_mode {
	TEXT_NAME,
	TEXT_QUOTED,
	TEXT_MESSAGE,
};

/*
 * Per byte, the modes that take it as it is (a bit per mode): printable
 * ASCII, 0x20-0x7e, not isprint(), which would follow the locale; '"'
 * but in quotes, '\\' only in messages.  One load a byte in the loop.
 */
#define TEXT_ALL_MODES	(1u << TEXT_NAME | 1u << TEXT_QUOTED | 1u << TEXT_MESSAGE)
static const unsigned char text_plain[256] = {
	[0x20 ... 0x21] = TEXT_ALL_MODES,
	['"'] = 1u << TEXT_NAME | 1u << TEXT_MESSAGE,
	[0x23 ... 0x5b] = TEXT_ALL_MODES,
	['\\'] = 1u << TEXT_MESSAGE,
	[0x5d ... 0x7e] = TEXT_ALL_MODES,
};

/* Bytes at the start of S (N) that text takes as they are. */
static size_t text_plain_run(const unsigned char *s, size_t n, enum text_mode mode)
{
	unsigned char bit = 1u << mode;
	size_t i = 0;

	while (i < n && (text_plain[s[i]] & bit))
		i++;
	return i;
}

static void text_escape_run(struct obuf *b, const char *s, size_t n, enum text_mode mode)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	char *q;

	while (i < n) {
		size_t run = text_plain_run(u + i, n - i, mode);
		unsigned char c;

		if (run) {
			obuf__write(b, u + i, run);
			i += run;
			continue;
		}
		c = u[i++];
		switch (c) {
		case '\n': put_pair(b, 'n'); break;
		case '\t': put_pair(b, 't'); break;
		case '\r': put_pair(b, 'r'); break;
		case '"':
		case '\\':
			put_pair(b, c);
			break;
		default:
			q = obuf__room(b, 4);
			*q++ = '\\';
			*q++ = 'x';
			*q++ = hex_digits[c >> 4];
			*q++ = hex_digits[c & 0xf];
			obuf__commit(b, q);
		}
	}
}

void text_escape(struct obuf *b, const char *s, size_t n)
{
	text_escape_run(b, s, n, TEXT_NAME);
}

static void text_escape_message(struct obuf *b, const char *s, size_t n)
{
	text_escape_run(b, s, n, TEXT_MESSAGE);
}

void text_quote(struct obuf *b, const char *s, size_t n)
{
	obuf__putc(b, '"');
	text_escape_run(b, s, n, TEXT_QUOTED);
	obuf__putc(b, '"');
}

/* The FILE forms: through an obuf of their own, under OUT's lock. */
static void to_file(FILE *out, const char *s, size_t n,
		    void (*escape)(struct obuf *, const char *, size_t))
{
	char buf[OBUF_MAX_PIECE * 2];
	struct obuf b = OBUF_INIT(out, buf);

	flockfile(out);
	escape(&b, s, n);
	obuf__flush(&b);
	funlockfile(out);
}

void json_write_string(FILE *out, const char *s, size_t n)
{
	to_file(out, s, n, json_escape);
}

void text_write_escaped(FILE *out, const char *s, size_t n)
{
	to_file(out, s, n, text_escape);
}

void text_write_message(FILE *out, const char *s, size_t n)
{
	to_file(out, s, n, text_escape_message);
}

void text_write_quoted(FILE *out, const char *s, size_t n)
{
	to_file(out, s, n, text_quote);
}

char *text_escaped_dup(const char *s)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		return NULL;
	text_write_escaped(f, s, strlen(s));
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
