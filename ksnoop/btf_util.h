/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small BTF questions the resolver, printer and info command all ask. */
#ifndef KSNOOP_BTF_UTIL_H
#define KSNOOP_BTF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct btf;
struct btf_type;

/* Longest chain of modifiers followed through BTF (libbpf stops at 32 too). */
#define BTFU_MAX_DEPTH 32

/* Skip typedefs and qualifiers (const, volatile, restrict, type tags). */
__u32 btfu_strip(const struct btf *btf, __u32 id);
/* Plain char (the string kind), not signed/unsigned char or u8. */
bool btfu_is_char(const struct btf *btf, __u32 id);
/* Pointer to plain char, qualifiers allowed on either side. */
bool btfu_is_char_ptr(const struct btf *btf, __u32 id);
/* Array of plain char. */
bool btfu_is_char_array(const struct btf *btf, __u32 id);
/* Pointer to a struct or union. */
bool btfu_is_struct_ptr(const struct btf *btf, __u32 id);
/* int, bool, char, enum or pointer: something a predicate can compare. */
bool btfu_is_scalar(const struct btf *btf, __u32 id);
bool btfu_is_signed(const struct btf *btf, __u32 id);
/* A pointer whose pointee carries the __user type tag. */
bool btfu_is_user_ptr(const struct btf *btf, __u32 id);
/* Does BTF use the __user type tag at all? */
bool btfu_has_user_tags(const struct btf *btf);

/*
 * The C spelling of type ID ("struct sk_buff *", "const char *") written
 * into BUF; with NAME, a declaration of NAME ("int (*fn)(void)").
 */
const char *btfu_type_str(const struct btf *btf, __u32 id, const char *name,
			  char *buf, size_t sz);

#endif
