/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Standard output in whole lines.  stdio hands its buffer to write(2) in
 * pieces that end wherever the buffer filled, so a write that is given up
 * (a second Ctrl-C while the reader does not read: stop.h) would leave
 * half a line in the pipe.  Here stdout is a stream whose bytes go out in
 * writes that end at a line's end and, on anything but a regular file,
 * hold at most PIPE_BUF bytes: a pipe takes each whole or not at all.
 * After stop__forced() nothing waits: a write the reader has no room for
 * is dropped, whole lines at a time.
 */
#ifndef KSNOOP_STDOUT_LINES_H
#define KSNOOP_STDOUT_LINES_H

#include <stdbool.h>

/* Make stdout such a stream over file descriptor 1 (before anything is printed). */
void stdout_lines__install(void);
/* Everything printed goes out, a last line without its newline too. */
void stdout_lines__end(void);
/* Whether lines were dropped after a forced stop (the reader had no room). */
bool stdout_lines__dropped(void);

#endif
