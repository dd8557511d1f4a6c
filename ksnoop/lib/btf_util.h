/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small BTF questions the resolver, printer and info command all ask. */
#ifndef KSNOOP_BTF_UTIL_H
#define KSNOOP_BTF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct btf;
struct btf_type;

/*
 * How deep any walk over BTF goes: typedef and qualifier chains, anonymous
 * members inside anonymous members, nested values in the printer.  BTF
 * comes from the user too (a binary's .BTF, --btf FILE), and nothing stops
 * it from holding a typedef cycle or a struct that contains itself.  32 is
 * the depth at which libbpf's btf__resolve_type() and btf__resolve_size()
 * give up, far beyond what real types nest.
 */
#define BTFU_MAX_DEPTH	32
/*
 * How many types one walk may visit.  Depth alone does not bound a walk
 * that fans out (a struct of 1000 anonymous members, each a struct of
 * 1000 anonymous members ...); the kernel's largest types need a few
 * thousand visits.
 */
#define BTFU_MAX_VISITS	65536
/* Largest anonymous struct or union spelled inline (with its padding). */
#define BTFU_MAX_INLINE_SIZE	65536

/*
 * Whether every type BTF refers to exists.  libbpf checks the layout of a
 * blob, not this, and its btf_dump writes out of bounds without it: BTF
 * from a file is checked before use.
 */
bool btfu_refs_valid(const struct btf *btf);

/* The name at OFF, or "" when there is none or OFF is invalid (anonymous). */
const char *btfu_name(const struct btf *btf, __u32 off);

/*
 * Skip typedefs and qualifiers (const, volatile, restrict, type tags).  A
 * chain longer than BTFU_MAX_DEPTH (a cycle) ends at 0, void.
 */
__u32 btfu_strip(const struct btf *btf, __u32 id);
/* Plain char (the string kind), not signed/unsigned char or u8. */
bool btfu_is_char(const struct btf *btf, __u32 id);
/* Pointer to plain char, qualifiers allowed on either side. */
bool btfu_is_char_ptr(const struct btf *btf, __u32 id);
/* A pointer to a 1-byte integer that is not char: u8 *, unsigned char *. */
bool btfu_is_byte_ptr(const struct btf *btf, __u32 id);
/* Array of plain char. */
bool btfu_is_char_array(const struct btf *btf, __u32 id);
/* Pointer to a struct or union. */
bool btfu_is_struct_ptr(const struct btf *btf, __u32 id);
/* int, bool, char, enum or pointer: something a predicate can compare. */
bool btfu_is_scalar(const struct btf *btf, __u32 id);
bool btfu_is_signed(const struct btf *btf, __u32 id);
/*
 * Enumerator I of enum or enum64 T: its value (sign-extended for a signed
 * enum, zero-extended otherwise; an unsigned enum64 above INT64_MAX wraps)
 * and its name ("" if none).
 */
__s64 btfu_enumerator(const struct btf *btf, const struct btf_type *t, int i, const char **name);
/* A pointer whose pointee carries the __user type tag. */
bool btfu_is_user_ptr(const struct btf *btf, __u32 id);
/* Does BTF use the __user type tag at all? */
bool btfu_has_user_tags(const struct btf *btf);

/*
 * Type TEXT, a C type name as the spec parser spells it ("struct
 * sockaddr_in *", "unsigned long", "u32", "const char *"): sets ID to the
 * type pointers lead to and NPTRS to the number of '*'s.  Integers match
 * by meaning ("unsigned long" is BTF's "long unsigned int"); a bare name is
 * a typedef, an integer, then a struct or union.  Returns -ENOENT when BTF
 * has no such type, -EINVAL when TEXT is not a type name.
 */
int btfu_find_type(const struct btf *btf, const char *text, __u32 *id, int *nptrs);
/*
 * Is type ID WANT behind NPTRS pointers (what btfu_find_type() found)?
 * Typedefs and qualifiers do not count at any level.
 */
bool btfu_same_type(const struct btf *btf, __u32 id, __u32 want, int nptrs);
/*
 * Add the C base type TEXT names, pointers aside (char, short, int, long,
 * long long, their signed and unsigned forms, _Bool, u8 ... s64, __u8 ...
 * __s64, uint8_t ... int64_t), to BTF: for casts where the BTF has none
 * (a program without .BTF).  The new id, -ENOENT if TEXT is no base type,
 * -EINVAL if it is no type name, or libbpf's error.
 */
int btfu_add_base_type(struct btf *btf, const char *text);
/* A pointer type to ID in BTF (no qualifiers between), or -ENOENT. */
int btfu_find_ptr(const struct btf *btf, __u32 id);

/*
 * BTF lives until btfu_drop_dump(BTF), which comes before it is freed:
 * btfu_type_str() keeps one btf_dump for it instead of one per call (each
 * walks every type).  0 or -ENOMEM (then it is spelled the slow way).
 */
int btfu_keep_dump(const struct btf *btf);
void btfu_drop_dump(const struct btf *btf);

/*
 * The C spelling of type ID ("struct sk_buff *", "const char *") written
 * into BUF; with NAME, a declaration of NAME ("int (*fn)(void)").  A type
 * libbpf's btf_dump could not spell in bounded time (a cycle, a name that
 * is not in the string section) is "<type ID>".
 */
const char *btfu_type_str(const struct btf *btf, __u32 id, const char *name,
			  char *buf, size_t sz);

#endif
