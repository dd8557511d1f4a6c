// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "escape.h"
#include "writer.h"

int log_verbose;
bool log_debug;
bool log_json;

/*
 * Every message is one line: what the user typed is often part of it (a
 * spec, an option value), and so are names from ELF notes and BTF and
 * paths; a newline or an escape sequence in there must neither split the
 * line nor reach the terminal raw.  The text escaper sees to both.
 */
static void log_vprint(const char *prefix, const char *fmt, va_list ap)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "ksnoop: %s", prefix);
	text_write_message(stderr, buf, strlen(buf));
	fputc('\n', stderr);
}

/*
 * With -j an error or a warning is one JSON record on stdout, where a
 * script reading the events looks (bpftool's convention for errors):
 * {"type":"error","error":"MESSAGE"}, {"type":"warning","warning":...}.
 */
void log_json_message(FILE *out, const char *type, const char *msg)
{
	struct writer w;

	writer__init(&w, out, true);
	writer__begin_object(&w, WRITER_STRUCT, 0);
	writer__key(&w, "type");
	writer__name(&w, type);
	writer__key(&w, type);
	writer__name(&w, msg);
	writer__end_object(&w);
	obuf__putc(writer__obuf(&w), '\n');
	writer__flush(&w);
	fflush(out);
}

static void log_vjson(const char *type, const char *fmt, va_list ap)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	log_json_message(stdout, type, buf);
}

/* An error or a warning: a record of the -j stream, or a line on stderr. */
static void log_vmessage(const char *type, const char *prefix, const char *fmt, va_list ap)
{
	if (log_json)
		log_vjson(type, fmt, ap);
	else
		log_vprint(prefix, fmt, ap);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmessage("error", "", fmt, ap);
	va_end(ap);
}

void log_ks_error(const struct ks_error *e)
{
	log_error("%s", ks_message(e));
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmessage("warning", "warning: ", fmt, ap);
	va_end(ap);
}

void log_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint("", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	log_vprint("", fmt, ap);
	va_end(ap);
}

void log_detail(const char *fmt, ...)
{
	va_list ap;

	if (log_verbose < 2)
		return;
	va_start(ap, fmt);
	log_vprint("", fmt, ap);
	va_end(ap);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/*
	 * Only with -d, warnings included: libbpf warns about what ksnoop
	 * handles itself (a refused fentry load before the kprobe fallback,
	 * a feature probe that fails on an older kernel), and a failure that
	 * matters reaches the user as ksnoop's own one-line reason with the
	 * errno as text.  Shown always, every fallback would print libbpf's
	 * lines about a failure that was not one.
	 */
	if (!log_debug)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
