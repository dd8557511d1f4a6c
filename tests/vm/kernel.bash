# tests/vm/run, the kernel: which Debian cloud kernel package to boot,
# downloaded and unpacked once into the cache. Sourced by tests/vm/run.
#
#   kernel_prepare RELEASE   "" or bookworm (the system's apt) or trixie
#                            (scripts/trixie-apt's private configuration in
#                            $KSNOOP_APT_DIR: its own sources, lists and
#                            cache, the system's mirror) or trixie-backports
#                            (the newest backport, 7.3 when written; its
#                            own configuration in $KSNOOP_BACKPORTS_APT_DIR,
#                            default $cache/apt-trixie-backports); with karch=arm64
#                            the arm64 kernel of RELEASE (bookworm if "")
#                            through a private configuration of that
#                            release's arm64 archive (KSNOOP_ARM64_APT_DIR,
#                            default $cache/apt-RELEASE-arm64); sets
#       kdir      the unpacked package in the cache
#       vmlinuz   its kernel image
#       kver      its release, e.g. 6.1.0-27-cloud-amd64
#       moddir    its modules directory
#
# The caller provides cache (the cache directory, which exists), tmp, here
# (tests/vm), karch (amd64 or arm64), die and info.

# kernel_apt RELEASE: the apt commands (apt_get, apt_cache), the lists
# they read (apt_lists) and where the resolved name is kept (resolved)
kernel_apt() {
	kernel_meta=linux-image-cloud-$karch
	apt_get=(apt-get)
	apt_cache=(apt-cache)
	resolved=$cache/resolved
	apt_lists=/var/lib/apt/lists
	if [ "$karch" != amd64 ]; then
		local rel=${1:-bookworm}
		aptdir=${KSNOOP_ARM64_APT_DIR:-$cache/apt-$rel-$karch}
		mkdir -p "$aptdir" && aptdir=$(cd "$aptdir" && pwd) || die "cannot create $aptdir"
		arch_apt=("$here/../../scripts/trixie-apt" "$aptdir")
		KSNOOP_APT_RELEASE=$rel KSNOOP_APT_ARCH=$karch "${arch_apt[@]}" update ||
			info "no fresh $rel $karch lists; trying the cache"
		apt_get=("${arch_apt[@]}" apt-get)
		apt_cache=("${arch_apt[@]}" apt-cache)
		resolved=$cache/resolved-$rel-$karch
		apt_lists=$aptdir/lists
	elif [ "$1" = trixie ] || [ "$1" = trixie-backports ]; then
		if [ "$1" = trixie ]; then
			aptdir=${KSNOOP_APT_DIR:-$cache/apt-trixie}
		else
			aptdir=${KSNOOP_BACKPORTS_APT_DIR:-$cache/apt-trixie-backports}
		fi
		mkdir -p "$aptdir" && aptdir=$(cd "$aptdir" && pwd) || die "cannot create $aptdir"
		# scripts/trixie-apt fixes a directory's release when it makes it
		if [ -s "$aptdir/release" ] && [ "$(cat "$aptdir/release")" != "$1" ]; then
			die "$aptdir is an apt configuration for $(cat "$aptdir/release"), not $1"
		fi
		trixie_apt=$here/../../scripts/trixie-apt
		KSNOOP_APT_RELEASE=$1 "$trixie_apt" "$aptdir" update || info "no fresh $1 lists; trying the cache"
		apt_get=("$trixie_apt" "$aptdir" apt-get)
		apt_cache=("$trixie_apt" "$aptdir" apt-cache)
		resolved=$cache/resolved-$1
		apt_lists=$aptdir/lists
	fi
}

# kernel_resolve: kernel_pkg and kernel_ver, the package the meta-package
# depends on, or both empty, and kernel_parts, the packages that hold its
# files: kernel_pkg itself, or, where kernel_pkg is a meta package too
# (trixie-backports' 7.x), the linux-binary-VER (vmlinuz under
# /usr/lib/modules/VER/) and linux-modules-VER it depends on, at the same
# version. apt-cache takes a second or two; its answer is kept until the
# apt lists change (apt-get update).
kernel_resolve() {
	local parts
	kernel_pkg=
	kernel_ver=
	kernel_parts=
	if [ -s "$resolved" ] && [ -d "$apt_lists" ] &&
		[ -z "$(find "$apt_lists" -maxdepth 1 -newer "$resolved" -print -quit)" ]; then
		read -r kernel_pkg kernel_ver kernel_parts <"$resolved" || true
	fi
	if [ -n "$kernel_pkg" ] && [ -n "$kernel_ver" ]; then
		kernel_parts=${kernel_parts:-$kernel_pkg}
		return 0
	fi
	kernel_pkg=$("${apt_cache[@]}" depends "$kernel_meta" 2>/dev/null |
		awk -v want="-cloud-$karch" '$1 == "Depends:" && $2 ~ /^linux-image-/ && substr($2, length($2) - length(want) + 1) == want { print $2; exit }') || true
	if [ -n "$kernel_pkg" ]; then
		kernel_ver=$("${apt_cache[@]}" show --no-all-versions "$kernel_pkg" 2>/dev/null |
			awk '$1 == "Version:" { print $2; exit }') || true
	fi
	if [ -n "$kernel_pkg" ]; then
		parts=$("${apt_cache[@]}" depends "$kernel_pkg" 2>/dev/null |
			awk '$1 == "Depends:" && $2 ~ /^linux-(binary|modules)-/ { printf "%s ", $2 }') || true
		case $parts in
		*linux-binary-*) kernel_parts=${parts% } ;;
		*) kernel_parts=$kernel_pkg ;;
		esac
	fi
	if [ -n "$kernel_pkg" ] && [ -n "$kernel_ver" ]; then
		echo "$kernel_pkg $kernel_ver $kernel_parts" >"$resolved.$$"
		mv "$resolved.$$" "$resolved"
	fi
}

# kernel_fetch: kdir, the packages kernel_parts=kernel_ver unpacked into
# one directory of the cache named for kernel_pkg, downloaded and unpacked
# first if it is not there yet
kernel_fetch() {
	local deb lock_fd part
	kdir=$cache/${kernel_pkg}_${kernel_ver}
	# Another run may be filling the cache at the same time.
	exec {lock_fd}>"$cache/.lock"
	flock "$lock_fd"
	if [ ! -e "$kdir/.unpacked" ]; then
		rm -rf "$kdir.tmp"
		mkdir -p "$kdir.tmp"
		for part in $kernel_parts; do
			deb=$cache/${part}_${kernel_ver//:/%3a}_$karch.deb
			if [ ! -s "$deb" ]; then
				info "downloading $part $kernel_ver into $cache"
				# apt-get download writes to the current directory; as root
				# it warns that _apt cannot reach it, which is harmless.
				(cd "$cache" && "${apt_get[@]}" download -q "$part=$kernel_ver") >"$tmp/apt.log" 2>&1 ||
					die "apt-get download $part=$kernel_ver failed: $(grep -m1 '^E:' "$tmp/apt.log" || tail -n 1 "$tmp/apt.log")"
				[ -s "$deb" ] || die "apt-get download did not produce $deb"
			fi
			dpkg-deb -x "$deb" "$kdir.tmp" || die "dpkg-deb -x $deb failed"
		done
		touch "$kdir.tmp/.unpacked"
		rm -rf "$kdir"
		mv "$kdir.tmp" "$kdir"
	fi
	flock -u "$lock_fd"
	exec {lock_fd}>&-
}

# kernel_cached RELEASE: kdir, the newest kernel of RELEASE already
# unpacked (no apt lists, offline?); trixie's are "+deb13" (6.12),
# trixie-backports' "+deb13" with a "~bpo13" version, bookworm's neither
kernel_cached() {
	local pat="linux-image-*-cloud-${karch}_*" not='+deb1[3-9]'
	case $1 in
	trixie) pat="linux-image-*+deb13*-cloud-${karch}_*" not='~bpo' ;;
	trixie-backports) pat="linux-image-*+deb13*-cloud-${karch}_*~bpo13*" not='^$' ;;
	esac
	kdir=$(ls -d "$cache"/$pat/.unpacked 2>/dev/null | grep -v -e "$not" | sort -V | tail -n 1) ||
		true
	[ -n "$kdir" ] ||
		die "cannot resolve $kernel_meta with apt-cache (run apt-get update) and no kernel is cached in $cache"
	kdir=${kdir%/.unpacked}
	info "apt-cache cannot resolve $kernel_meta; using cached ${kdir##*/}"
}

kernel_prepare() {
	kernel_apt "$1"
	kernel_resolve
	if [ -n "$kernel_pkg" ] && [ -n "$kernel_ver" ]; then
		kernel_fetch
	else
		kernel_cached "$1"
	fi
	kernel_locate
	info "kernel $kver (${kdir##*/})"
}

# kernel_locate: vmlinuz, kver and moddir in the unpacked kdir: boot/vmlinuz-VER
# (6.1, 6.12) or 7.x's usr/lib/modules/VER/vmlinuz
kernel_locate() {
	vmlinuz=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1) || true
	if [ -n "$vmlinuz" ]; then
		kver=${vmlinuz##*/vmlinuz-}
	else
		# 7.x's linux-binary-VER: /usr/lib/modules/VER/vmlinuz
		vmlinuz=$(ls "$kdir"/usr/lib/modules/*/vmlinuz 2>/dev/null | head -n 1) || true
		[ -n "$vmlinuz" ] || die "no boot/vmlinuz-* or usr/lib/modules/*/vmlinuz in $kdir"
		kver=${vmlinuz%/vmlinuz}
		kver=${kver##*/}
	fi
	moddir=$kdir/lib/modules/$kver
	# trixie's packages ship /usr/lib only (merged /usr)
	[ -d "$moddir" ] || moddir=$kdir/usr/lib/modules/$kver
	[ -d "$moddir" ] || die "no modules directory $moddir"
}

# guest_jq_prepare: jq_root, trixie's jq 1.7 for an x86-64 guest, with the
# libc and loader it needs (trixie's glibc 2.41, newer than this host's),
# unpacked in the cache under opt/jq; empty where apt cannot give it (then
# the host's jq goes in, as before, and -v says so).  Why: the VM tests ask
# jq about ksnoop's JSON some 200 times a script on 7.3, and bookworm's jq
# 1.6 compiles its builtins at every start: 28 ms of CPU here, 0.4-0.65 s
# under TCG, 40 % of 7.3's 85-tree and 89-session (s64: 210 calls, 136 s
# of 342).  jq 1.7.1 starts in 2.7 ms.  Through scripts/trixie-apt's
# configuration in $KSNOOP_APT_DIR (default $cache/apt-trixie), the one
# trixie's kernel comes through; cached by the packages' versions.
JQ_PACKAGES="jq libjq1 libonig5 libc6"
guest_jq_prepare() {
	local aptdir trixie_apt key p v d lock_fd
	jq_root=
	aptdir=${KSNOOP_APT_DIR:-$cache/apt-trixie}
	mkdir -p "$aptdir" && aptdir=$(cd "$aptdir" && pwd) || return 0
	if [ -s "$aptdir/release" ] && [ "$(cat "$aptdir/release")" != trixie ]; then
		info "$aptdir is an apt configuration for $(cat "$aptdir/release"), not trixie: the host's jq goes in"
		return 0
	fi
	trixie_apt=$here/../../scripts/trixie-apt
	KSNOOP_APT_RELEASE=trixie "$trixie_apt" "$aptdir" update 2>/dev/null ||
		info "no fresh trixie lists for jq; trying the cache"
	key=
	for p in $JQ_PACKAGES; do
		v=$("$trixie_apt" "$aptdir" apt-cache show --no-all-versions "$p" 2>/dev/null |
			awk '$1 == "Version:" { print $2; exit }') || true
		[ -n "$v" ] || { key=; break; }
		key="$key${p}_$v "
	done
	if [ -n "$key" ]; then
		d=$cache/jq-amd64-$(echo "$key" | md5sum | cut -c1-12)
	else
		# no versions from apt: the last one unpacked, if any
		d=$(ls -d "$cache"/jq-amd64-*/.unpacked 2>/dev/null | tail -n 1)
		d=${d%/.unpacked}
	fi
	exec {lock_fd}>"$cache/.lock"
	flock "$lock_fd"
	if [ ! -e "$d/.unpacked" ] && [ -n "$key" ]; then
		info "downloading trixie's$(printf ' %s' $JQ_PACKAGES) for the guest's jq"
		rm -rf "$d.tmp"
		mkdir -p "$d.tmp/debs" "$d.tmp/root" "$d.tmp/jq/opt/jq/lib"
		# shellcheck disable=SC2086
		if (cd "$d.tmp/debs" && "$trixie_apt" "$aptdir" apt-get download -q $JQ_PACKAGES) >"$tmp/apt.log" 2>&1; then
			for p in "$d.tmp"/debs/*.deb; do dpkg-deb -x "$p" "$d.tmp/root" || break; done
			# the program, its loader and the libraries ldd names, nothing else
			p=$d.tmp/root/usr/lib/x86_64-linux-gnu
			if cp -L "$d.tmp/root/usr/bin/jq" "$d.tmp/jq/opt/jq/jq" &&
				cp -L "$p/ld-linux-x86-64.so.2" "$p/libc.so.6" "$p/libm.so.6" "$p/libjq.so.1" \
					"$p/libonig.so.5" "$d.tmp/jq/opt/jq/lib/"; then
				touch "$d.tmp/jq/.unpacked"
				rm -rf "$d"
				mv "$d.tmp/jq" "$d"
			fi
		fi
		rm -rf "$d.tmp"
	fi
	flock -u "$lock_fd"
	exec {lock_fd}>&-
	if [ -e "$d/.unpacked" ]; then
		jq_root=$d
		v=${key% }
		verbose_info "jq: trixie's, ${v:-from the cache ($d)}"
	else
		info "trixie's jq could not be fetched ($(grep -m1 '^E:' "$tmp/apt.log" 2>/dev/null || echo 'no versions')): the host's jq goes in"
	fi
}

# guest_prepare: for a kernel of another architecture (karch arm64), the
# guest's own userspace from the same archive as its kernel: busybox, and
# bpftool and jq with the libraries they need (the host's cannot run there).
# Sets guest_root, the packages unpacked in the cache (no documentation,
# locales or gconv modules), and busybox_bin, its busybox. Cached by the
# packages' versions.
# A|B: the first of the names the archive has a version of (trixie's
# t64 transition renamed libelf1 to libelf1t64, which provides the old
# name: a virtual package has no version to download); trixie's libelf needs
# libzstd1.
GUEST_PACKAGES="busybox-static bpftool jq libjq1 libonig5 libc6 libgcc-s1 libcap2 libelf1t64|libelf1 zlib1g libzstd1"
guest_prepare() {
	local key p v debs lock_fd names alt
	key=
	names=
	for p in $GUEST_PACKAGES; do
		v=
		for alt in ${p//|/ }; do
			v=$("${apt_cache[@]}" show --no-all-versions "$alt" 2>/dev/null | awk '$1 == "Version:" { print $2; exit }') || true
			[ -z "$v" ] || break
		done
		[ -n "$v" ] || { key=; break; }
		key="$key${alt}_$v "
		names="$names $alt"
	done
	if [ -n "$key" ]; then
		guest_root=$cache/guest-$karch-$(echo "$key" | md5sum | cut -c1-12)
	else
		guest_root=$(ls -d "$cache"/guest-"$karch"-*/.unpacked 2>/dev/null | tail -n 1) ||
			die "cannot resolve the $karch guest packages with apt-cache and none are cached"
		guest_root=${guest_root%/.unpacked}
	fi
	exec {lock_fd}>"$cache/.lock"
	flock "$lock_fd"
	if [ ! -e "$guest_root/.unpacked" ]; then
		info "downloading the $karch guest's$names"
		rm -rf "$guest_root.tmp"
		mkdir -p "$guest_root.tmp/debs" "$guest_root.tmp/root"
		# shellcheck disable=SC2086
		(cd "$guest_root.tmp/debs" && "${apt_get[@]}" download -q $names) >"$tmp/apt.log" 2>&1 ||
			die "apt-get download of the $karch guest's packages failed: $(grep -m1 '^E:' "$tmp/apt.log" || tail -n 1 "$tmp/apt.log")"
		for debs in "$guest_root.tmp"/debs/*.deb; do
			dpkg-deb -x "$debs" "$guest_root.tmp/root" || die "dpkg-deb -x $debs failed"
		done
		rm -rf "$guest_root.tmp/root/usr/share" "$guest_root.tmp/root"/usr/lib/*/gconv
		# A merged-/usr release (trixie) ships /bin, /sbin and /lib as
		# links in base-files, which the guest does not unpack: a link
		# for each entry instead (the initramfs has those directories;
		# the loader must be at /lib/ld-linux-aarch64.so.1).
		for p in bin sbin lib; do
			[ ! -e "$guest_root.tmp/root/$p" ] && [ -d "$guest_root.tmp/root/usr/$p" ] || continue
			mkdir "$guest_root.tmp/root/$p"
			for v in "$guest_root.tmp/root/usr/$p"/*; do
				ln -s "../usr/$p/${v##*/}" "$guest_root.tmp/root/$p/${v##*/}"
			done
		done
		touch "$guest_root.tmp/root/.unpacked"
		rm -rf "$guest_root"
		mv "$guest_root.tmp/root" "$guest_root"
		rm -rf "$guest_root.tmp"
	fi
	flock -u "$lock_fd"
	exec {lock_fd}>&-
	busybox_bin=$guest_root/bin/busybox
	[ -x "$busybox_bin" ] || die "no bin/busybox in the $karch guest's busybox-static"
}
