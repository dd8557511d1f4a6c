// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Seeds for fuzz_btf: small BTF blobs built with libbpf, written raw into
 * DIR.  One shaped like real types, the hostile shapes of issue #11, and
 * members at the end of their value of every kind the printer reads.
 *
 *   btf_seeds DIR      (tests/fuzz/gen-corpus builds and runs it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

static void save(struct btf *btf, const char *dir, const char *name)
{
	char path[4096];
	__u32 size;
	const void *raw = btf__raw_data(btf, &size);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!raw || !f || fwrite(raw, 1, size, f) != size || fclose(f)) {
		perror(path);
		exit(1);
	}
	btf__free(btf);
}

/* struct task { int pid; char comm[16]; struct task *parent; union {...}; ... } */
static struct btf *shapes(void)
{
	struct btf *btf = btf__new_empty();
	int i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int chr = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	int u64 = btf__add_int(btf, "unsigned long", 8, 0);
	int comm = btf__add_array(btf, i32, chr, 16);
	int e = btf__add_enum(btf, "state", 4), task, anon, td;

	btf__add_enum_value(btf, "RUNNING", 0);
	btf__add_enum_value(btf, "DEAD", 64);
	anon = btf__add_union(btf, NULL, 8);
	btf__add_field(btf, "lo", i32, 0, 0);
	btf__add_field(btf, "hash", u64, 0, 0);
	task = btf__add_struct(btf, "task", 48);
	btf__add_field(btf, "pid", i32, 0, 0);
	btf__add_field(btf, "comm", comm, 32, 0);
	btf__add_field(btf, "parent", btf__type_cnt(btf) + 2, 160, 0);
	btf__add_field(btf, NULL, anon, 224, 0);
	btf__add_field(btf, "state", e, 288, 3);
	btf__add_field(btf, "flags", i32, 291, 5);
	td = btf__add_typedef(btf, "task_t", task);
	btf__add_const(btf, td);
	btf__add_ptr(btf, task);
	btf__add_ptr(btf, chr);
	return btf;
}

/* typedef B A; typedef A B; and a pointer cycle through const. */
static struct btf *cycles(void)
{
	struct btf *btf = btf__new_empty();
	__u32 a = btf__type_cnt(btf);

	btf__add_typedef(btf, "A", a + 1);
	btf__add_typedef(btf, "B", a);
	btf__add_ptr(btf, a + 3);
	btf__add_const(btf, a + 2);
	return btf;
}

/* struct outer { struct { int x; <itself>; }; } */
static struct btf *self_containing(void)
{
	struct btf *btf = btf__new_empty();
	int i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int anon = btf__add_struct(btf, NULL, 4);

	btf__add_field(btf, "x", i32, 0, 0);
	btf__add_field(btf, NULL, anon, 0, 0);
	btf__add_struct(btf, "outer", 4);
	btf__add_field(btf, NULL, anon, 0, 0);
	return btf;
}

/*
 * struct tail { int a:4; enum e b:3; int c:1; long l; __int128 big;
 * double d; struct tail *next; }, its pointer ending where the struct
 * does; a struct whose size (12) ends inside its pointer, as malformed BTF
 * may; one that ends with an __int128.  Each has a bitfield, so its
 * members' offsets carry a bitfield size (kflag): one changed byte makes a
 * pointer, float or __int128 at the end a bitfield (a pointer bitfield of
 * one byte was once read as 8 bytes, issue #34).  LONG_SIZE is the size of
 * 'long', which libbpf takes for the pointer size: 4 gives 4-byte pointers.
 */
static struct btf *tails(int long_size)
{
	struct btf *btf = btf__new_empty();
	int i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int lng = btf__add_int(btf, "long", long_size, BTF_INT_SIGNED);
	int i128 = btf__add_int(btf, "__int128", 16, BTF_INT_SIGNED);
	int dbl = btf__add_float(btf, "double", 8);
	int e = btf__add_enum(btf, "e", 4), tail, ptr;

	btf__add_enum_value(btf, "E1", 1);
	tail = btf__add_struct(btf, "tail", 3 * long_size + 24);
	ptr = tail + 1;
	btf__add_field(btf, "a", i32, 0, 4);
	btf__add_field(btf, "b", e, 4, 3);
	btf__add_field(btf, "c", i32, 7, 1);
	btf__add_field(btf, "l", lng, 8 * long_size, 0);
	btf__add_field(btf, "big", i128, 16 * long_size, 0);
	btf__add_field(btf, "d", dbl, 16 * long_size + 128, 0);
	btf__add_field(btf, "next", ptr, 16 * long_size + 192, 0);
	btf__add_ptr(btf, tail);
	btf__add_struct(btf, "cut", 12);
	btf__add_field(btf, "x", i32, 0, 31);
	btf__add_field(btf, "p", ptr, 64, 0);
	btf__add_struct(btf, "wide", 20);
	btf__add_field(btf, "x", i32, 0, 31);
	btf__add_field(btf, "v", i128, 32, 0);
	return btf;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: btf_seeds DIR\n");
		return 2;
	}
	save(shapes(), argv[1], "shapes");
	save(cycles(), argv[1], "cycles");
	save(self_containing(), argv[1], "self-containing");
	save(tails(8), argv[1], "tails");
	save(tails(4), argv[1], "tails-ilp32");
	return 0;
}
