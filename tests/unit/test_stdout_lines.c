// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for stopping (ksnoop/cmd/stop.c) and standard output in whole
 * lines (ksnoop/output/stdout_lines.c), on a pipe put in file descriptor 1's
 * place for the group.  The stop state is the process's: the tests run
 * in order, from no signal to a forced stop.
 *
 * Regression (fixed, issue 49): a copy of SIGINT that came after the
 * first was handled killed ksnoop mid-record (SA_RESETHAND).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "stdout_lines.h"
#include "stop.h"

/* The pipe's two ends, and file descriptor 1 as it came. */
static int pipe_rd = -1, pipe_wr = -1, saved_out = -1;

/* Everything the pipe holds now, into BUF (NUL-terminated); its length. */
static size_t drain_pipe(char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t k;

	while (n + 1 < cap && (k = read(pipe_rd, buf + n, cap - 1 - n)) > 0)
		n += k;
	buf[n] = '\0';
	return n;
}

/* File descriptor 1 is the pipe (cmocka's own lines gone out before), or back. */
static void to_pipe(void)
{
	char buf[4096];

	stdout_lines__end();
	dup2(pipe_wr, STDOUT_FILENO);
	drain_pipe(buf, sizeof(buf));
}

static void to_real(void)
{
	stdout_lines__end();
	dup2(saved_out, STDOUT_FILENO);
}

/* Installed over the pipe, as ksnoop installs them over its stdout. */
static int pipe_as_stdout(void **state)
{
	int p[2];

	(void)state;
	fflush(stdout);
	if (pipe(p))
		return -1;
	/* One page: the second write finds it full. */
	fcntl(p[1], F_SETPIPE_SZ, 4096);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	pipe_rd = p[0];
	pipe_wr = p[1];
	saved_out = dup(STDOUT_FILENO);
	dup2(pipe_wr, STDOUT_FILENO);
	stop__install();
	stdout_lines__install();
	dup2(saved_out, STDOUT_FILENO);
	return 0;
}

static int stdout_back(void **state)
{
	(void)state;
	dup2(saved_out, STDOUT_FILENO);
	close(saved_out);
	close(pipe_rd);
	close(pipe_wr);
	return 0;
}

/* A line printed in pieces, flushed between them, goes out once whole. */
static void test_line_in_pieces_goes_whole(void **state)
{
	char buf[256];

	(void)state;
	to_pipe();
	fputs("{\"type\":", stdout);
	fflush(stdout);
	assert_int_equal(drain_pipe(buf, sizeof(buf)), 0);
	fputs("\"event\"}\n", stdout);
	fflush(stdout);
	drain_pipe(buf, sizeof(buf));
	assert_string_equal(buf, "{\"type\":\"event\"}\n");
	/* The end: a last line without its newline goes too. */
	fputs("last", stdout);
	stdout_lines__end();
	drain_pipe(buf, sizeof(buf));
	assert_string_equal(buf, "last");
	to_real();
}

/* Regression (fixed): the same signal twice in a row (timeout's copy to the group) is one request. */
static void test_same_signal_twice_is_one(void **state)
{
	(void)state;
	to_pipe();
	assert_false(stop__requested());
	raise(SIGINT);
	raise(SIGINT);
	assert_true(stop__requested());
	assert_false(stop__forced());
	assert_int_equal(fcntl(STDOUT_FILENO, F_GETFL) & O_NONBLOCK, 0);
	to_real();
}

/*
 * Another signal forces the stop: standard output does not wait for
 * its reader, and what the full pipe has no room for is dropped in
 * whole lines, never cut.
 */
static void test_forced_drops_whole_lines(void **state)
{
	static char buf[16384];
	char line[38];
	size_t n;
	int i;

	(void)state;
	to_pipe();
	raise(SIGTERM);
	assert_true(stop__forced());
	assert_int_not_equal(fcntl(STDOUT_FILENO, F_GETFL) & O_NONBLOCK, 0);
	/* 37 bytes a line, 7,400 in all: more than the pipe's page. */
	for (i = 0; i < 200; i++) {
		snprintf(line, sizeof(line), "{\"type\":\"event\",\"n\":%015d}\n", i);
		assert_int_equal(strlen(line), 37);
		fputs(line, stdout);
	}
	fflush(stdout);
	assert_false(ferror(stdout));
	assert_true(stdout_lines__dropped());
	n = drain_pipe(buf, sizeof(buf));
	assert_true(n > 0 && n < 200 * 37);
	assert_int_equal(n % 37, 0);
	assert_int_equal(buf[n - 1], '\n');
	/* Flags as they came, once put back. */
	stop__restore_output();
	assert_int_equal(fcntl(STDOUT_FILENO, F_GETFL) & O_NONBLOCK, 0);
	to_real();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_in_pieces_goes_whole),
		cmocka_unit_test(test_same_signal_twice_is_one),
		cmocka_unit_test(test_forced_drops_whole_lines),
	};

	return cmocka_run_group_tests_name("stop", tests, pipe_as_stdout, stdout_back);
}
