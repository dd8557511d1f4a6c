#!/bin/bash
# The Debian package, built as `make deb` builds it (scripts/make-deb: a
# clean copy of this tree, libbpf's source as the orig-libbpf component,
# dpkg-buildpackage -us -uc, lintian): what it holds, what it depends on,
# lintian's verdict, and the installed binary, man page and completion run
# from a throwaway root (dpkg -x); dpkg installs and purges it in a root
# of its own.  make install and make uninstall are
# checked against the same file list.  About a minute and a half on 2 CPUs.
# live-timeout: 2400
. "$(dirname "$0")/helpers.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$K")/.." && pwd)
S=${KSNOOP_STATIC:?KSNOOP_STATIC must name the release build of ksnoop}
scratch_dir
# The package's own build directory, kept: libbpf's tarball is fetched once.
out=$build/deb-test
apt_dir=${KSNOOP_APT_DIR:-$build/apt}
version=$(sed -n 's/^VERSION *:= *//p' "$root/Makefile")
libbpf_version=$(sed -n 's/^LIBBPF_VERSION *:= *//p' "$root/Makefile")

if "$root/scripts/make-deb" "$version" "$libbpf_version" "$apt_dir" "$out" >"$tmp/make-deb.out" 2>&1; then
	pass package_built
else
	fail package_built "$(tail -n 20 "$tmp/make-deb.out")"
	exit 0
fi
deb=$(ls "$out"/ksnoop_*_amd64.deb)

# The version is ksnoop -V's; no Depends: the binary is static.
expect_eq deb_version "$("$S" -V | sed -n 's/^ksnoop //p')" "$(dpkg-deb -f "$deb" Version | sed 's/-[^-]*$//')"
expect_eq deb_no_depends "" "$(dpkg-deb -f "$deb" Depends)"
expect_match deb_built_using '^elfutils \(= [^)]+\), glibc \(= [^)]+\), libiberty \(= [^)]+\), libpcap \(= [^)]+\), libzstd \(= [^)]+\), zlib \(= [^)]+\)$' \
	"$(dpkg-deb -f "$deb" Built-Using)"
expect_match dsc_has_libbpf_component "ksnoop_${version}\.orig-libbpf\.tar\.gz" "$(cat "$out"/ksnoop_*.dsc)"
expect_match build_ran_unit_tests '^[0-9]+ passed, 0 failed$' "$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out/build.log")"

files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sort | joined)
expect_eq deb_files "./usr/sbin/ksnoop ./usr/share/bash-completion/completions/ksnoop ./usr/share/doc/ksnoop/README.md.gz ./usr/share/doc/ksnoop/changelog.Debian.gz ./usr/share/doc/ksnoop/copyright ./usr/share/lintian/overrides/ksnoop ./usr/share/man/man8/ksnoop.8.gz ./usr/share/zsh/vendor-completions/_ksnoop" "$files"

# lintian: no error, no warning (the overrides say why for each one left).
expect_eq lintian_clean "" "$(grep -E '^[EW]: ' "$out/lintian.txt")"

# make install: the package's files but Debian's own, uncompressed; make
# uninstall leaves no file behind.
make -s -C "$root" BUILD="$build" -o "$build/ksnoop" install DESTDIR="$tmp/inst" PREFIX=/usr >/dev/null 2>&1
pkg_files=$(printf '%s\n' $files | grep -vE 'changelog.Debian|/copyright$|/lintian/' | sed 's/\.gz$//' | joined)
expect_eq make_install_same_files "$pkg_files" "$(cd "$tmp/inst" && find . -type f | sort | joined)"
make -s -C "$root" BUILD="$build" uninstall DESTDIR="$tmp/inst" PREFIX=/usr >/dev/null 2>&1
expect_eq make_uninstall_removes_all "" "$(cd "$tmp/inst" && find . -type f)"

# dpkg installs it into a root of its own (an empty dpkg database), and
# purging it leaves nothing but that database behind.
mkdir -p "$tmp/dpkg/var/lib/dpkg/info" "$tmp/dpkg/var/lib/dpkg/updates"
: >"$tmp/dpkg/var/lib/dpkg/status"
dpkg --root="$tmp/dpkg" -i "$deb" >"$tmp/dpkg.out" 2>&1
expect_eq dpkg_installs "ii ksnoop" "$(dpkg --root="$tmp/dpkg" -l ksnoop 2>/dev/null | awk '$2 == "ksnoop" { print $1, $2 }')"
dpkg --root="$tmp/dpkg" -P ksnoop >>"$tmp/dpkg.out" 2>&1
expect_eq dpkg_purge_leaves_nothing "" "$(cd "$tmp/dpkg" && find . -mindepth 1 -not -path './var*')"

# Unpacked into a throwaway root: the binary, its man page, the completion.
dpkg -x "$deb" "$tmp/root"
bin=$tmp/root/usr/sbin/ksnoop
expect_eq installed_version "ksnoop $version" "$("$bin" --version | head -n 1)"
expect_match installed_info '^int ip_send_skb\(struct net \*net, struct sk_buff \*skb\);$' "$("$bin" info ip_send_skb 2>&1)"
expect_match installed_man_page '^KSNOOP\(8\)' "$(MANWIDTH=80 man -l "$tmp/root/usr/share/man/man8/ksnoop.8.gz" 2>/dev/null | head -n 1)"
got=$(bash -c '
	. "$1/usr/share/bash-completion/completions/ksnoop"
	COMP_WORDS=("$2" ip_send_s) COMP_CWORD=1 COMP_LINE="$2 ip_send_s" COMP_POINT=${#COMP_LINE}
	_ksnoop 2>/dev/null
	printf "%s\n" "${COMPREPLY[@]}"' sh "$tmp/root" "$bin")
expect_eq installed_completion "ip_send_skb" "$(printf '%s\n' "$got" | grep -x ip_send_skb)"
