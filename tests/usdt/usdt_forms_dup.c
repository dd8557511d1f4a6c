// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A second static named ksnoop_dup (usdt_forms.c has the first), so that
 * usdt_forms's symbol table holds the name twice at two addresses: a
 * "%rip" location naming it cannot say which is meant.
 */
static int ksnoop_dup __attribute__((used)) = 2;
