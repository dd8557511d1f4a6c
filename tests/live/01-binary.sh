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
