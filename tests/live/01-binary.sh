#!/bin/bash
# build/ksnoop is one self-contained binary: libbpf (the version the
# Makefile pins), libelf and zlib are linked in, nothing is loaded at run
# time.  The VM relies on it: its initramfs gets the binary alone.
. "$(dirname "$0")/../lib/report.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
S=${KSNOOP_STATIC:?KSNOOP_STATIC must name the release build of ksnoop}

deps=$(ldd "$S" 2>&1)
expect_match ldd_not_dynamic 'not a dynamic executable|statically linked' "$deps"
expect_no_match ldd_no_libbpf_libelf_libz 'libbpf|libelf|libz' "$deps"
expect_no_match no_interpreter 'INTERP' "$(readelf -lW "$S")"
# static-pie: position independent (ELF type DYN, no interpreter above),
# so the kernel loads it at a random address.
expect_match static_pie 'Type: +DYN ' "$(readelf -hW "$S")"

pinned=$(sed -n 's/^LIBBPF_VERSION *:= *\([0-9]*\.[0-9]*\).*/\1/p' "$root/Makefile")
out=$("$S" -V)
expect_match version_ksnoop '^ksnoop [0-9]+\.[0-9]+\.[0-9]+$' "$out"
expect_eq version_libbpf "libbpf $pinned" "$(printf '%s\n' "$out" | sed -n 2p)"
expect_eq version_arch "arch $(uname -m)" "$(printf '%s\n' "$out" | sed -n 3p)"

# The link itself decides static-pie: an object that is not position
# independent (what a toolchain without default PIE makes) links ksnoop
# -static instead, said in one line, rather than failing the build.
# Relinked from a copy of the build's objects in a scratch BUILD, nothing
# compiled; the object is x86-64's (-fno-pie: absolute R_X86_64_32).
if [ "$(uname -m)" = x86_64 ]; then
	B=$(dirname "$S")
	libbpf=libbpf-$(sed -n 's/^LIBBPF_VERSION *:= *//p' "$root/Makefile")
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir "$tmp/b"
	cp -a "$B"/*.o "$B"/*.d "$B"/*.skel.h "$B/$libbpf" "$tmp/b/"
	printf 'int ks_nopie_x;\nint *ks_nopie_addr(void) { return &ks_nopie_x; }\n' >"$tmp/nopie.c"
	gcc -O2 -fno-pie -c "$tmp/nopie.c" -o "$tmp/nopie.o"
	relink() {
		make -C "$root" --no-print-directory -o "$tmp/b/$libbpf/lib/libbpf.a" BUILD="$tmp/b" "$@" \
			"$tmp/b/ksnoop" >"$tmp/make.out" 2>"$tmp/make.err"
	}
	relink
	expect_eq relink_status 0 "$?"
	expect_match relink_static_pie 'Type: +DYN ' "$(readelf -hW "$tmp/b/ksnoop" 2>&1)"
	rm -f "$tmp/b/ksnoop"
	relink LDFLAGS="$tmp/nopie.o"
	expect_eq relink_not_pie_status 0 "$?"
	expect_eq relink_not_pie_said \
		"ksnoop: -static-pie does not link here (see $tmp/b/ksnoop.static-pie.log): linking -static, no ASLR" \
		"$(cat "$tmp/make.err")"
	expect_match relink_not_pie_static 'Type: +EXEC ' "$(readelf -hW "$tmp/b/ksnoop" 2>&1)"
	expect_no_match relink_not_pie_no_interpreter 'INTERP' "$(readelf -lW "$tmp/b/ksnoop" 2>&1)"
	expect_match relink_not_pie_runs '^ksnoop [0-9]+\.[0-9]+\.[0-9]+$' "$("$tmp/b/ksnoop" -V 2>&1 | head -1)"
else
	skip relink_not_pie "the non-PIE object is x86-64's"
fi
