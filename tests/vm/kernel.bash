# tests/vm/run, the kernel: which Debian cloud kernel package to boot,
# downloaded and unpacked once into the cache. Sourced by tests/vm/run.
#
#   kernel_prepare RELEASE   "" or bookworm (the system's apt) or trixie
#                            (scripts/trixie-apt's private configuration in
#                            $KSNOOP_APT_DIR: its own sources, lists and
#                            cache, the system's mirror); sets
#       kdir      the unpacked package in the cache
#       vmlinuz   its kernel image
#       kver      its release, e.g. 6.1.0-27-cloud-amd64
#       moddir    its modules directory
#
# The caller provides cache (the cache directory, which exists), tmp, here
# (tests/vm), die and info.

kernel_meta=linux-image-cloud-amd64

# kernel_apt RELEASE: the apt commands (apt_get, apt_cache), the lists
# they read (apt_lists) and where the resolved name is kept (resolved)
kernel_apt() {
	apt_get=(apt-get)
	apt_cache=(apt-cache)
	resolved=$cache/resolved
	apt_lists=/var/lib/apt/lists
	if [ "$1" = trixie ]; then
		aptdir=${KSNOOP_APT_DIR:-$cache/apt-trixie}
		mkdir -p "$aptdir" && aptdir=$(cd "$aptdir" && pwd) || die "cannot create $aptdir"
		trixie_apt=$here/../../scripts/trixie-apt
		"$trixie_apt" "$aptdir" update || info "no fresh trixie lists; trying the cache"
		apt_get=("$trixie_apt" "$aptdir" apt-get)
		apt_cache=("$trixie_apt" "$aptdir" apt-cache)
		resolved=$cache/resolved-trixie
		apt_lists=$aptdir/lists
	fi
}

# kernel_resolve: kernel_pkg and kernel_ver, the package the meta-package
# depends on, or both empty. apt-cache takes a second or two; its answer is
# kept until the apt lists change (apt-get update).
kernel_resolve() {
	kernel_pkg=
	kernel_ver=
	if [ -s "$resolved" ] && [ -d "$apt_lists" ] &&
		[ -z "$(find "$apt_lists" -maxdepth 1 -newer "$resolved" -print -quit)" ]; then
		read -r kernel_pkg kernel_ver <"$resolved" || true
	fi
	if [ -n "$kernel_pkg" ] && [ -n "$kernel_ver" ]; then
		return 0
	fi
	kernel_pkg=$("${apt_cache[@]}" depends "$kernel_meta" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-.*-cloud-amd64$/ { print $2; exit }') || true
	if [ -n "$kernel_pkg" ]; then
		kernel_ver=$("${apt_cache[@]}" show --no-all-versions "$kernel_pkg" 2>/dev/null |
			awk '$1 == "Version:" { print $2; exit }') || true
	fi
	if [ -n "$kernel_pkg" ] && [ -n "$kernel_ver" ]; then
		echo "$kernel_pkg $kernel_ver" >"$resolved.$$"
		mv "$resolved.$$" "$resolved"
	fi
}

# kernel_fetch: kdir, the package kernel_pkg=kernel_ver unpacked in the
# cache, downloaded and unpacked first if it is not there yet
kernel_fetch() {
	local deb lock_fd
	kdir=$cache/${kernel_pkg}_${kernel_ver}
	deb=$cache/${kernel_pkg}_${kernel_ver//:/%3a}_amd64.deb
	# Another run may be filling the cache at the same time.
	exec {lock_fd}>"$cache/.lock"
	flock "$lock_fd"
	if [ ! -e "$kdir/.unpacked" ]; then
		if [ ! -s "$deb" ]; then
			info "downloading $kernel_pkg $kernel_ver into $cache"
			# apt-get download writes to the current directory; as root it
			# warns that _apt cannot reach it, which is harmless.
			(cd "$cache" && "${apt_get[@]}" download -q "$kernel_pkg=$kernel_ver") >"$tmp/apt.log" 2>&1 ||
				die "apt-get download $kernel_pkg=$kernel_ver failed: $(grep -m1 '^E:' "$tmp/apt.log" || tail -n 1 "$tmp/apt.log")"
			[ -s "$deb" ] || die "apt-get download did not produce $deb"
		fi
		rm -rf "$kdir.tmp"
		mkdir -p "$kdir.tmp"
		dpkg-deb -x "$deb" "$kdir.tmp" || die "dpkg-deb -x $deb failed"
		touch "$kdir.tmp/.unpacked"
		rm -rf "$kdir"
		mv "$kdir.tmp" "$kdir"
	fi
	flock -u "$lock_fd"
	exec {lock_fd}>&-
}

# kernel_cached RELEASE: kdir, the newest kernel of RELEASE already
# unpacked (no apt lists, offline?); trixie's are 6.12, "+deb13"
kernel_cached() {
	local pat='linux-image-*-cloud-amd64_*'
	[ "$1" != trixie ] || pat='linux-image-*+deb13*-cloud-amd64_*'
	kdir=$(ls -d "$cache"/$pat/.unpacked 2>/dev/null | sort -V | tail -n 1) ||
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
	vmlinuz=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1) || true
	[ -n "$vmlinuz" ] || die "no boot/vmlinuz-* in $kdir"
	kver=${vmlinuz##*/vmlinuz-}
	moddir=$kdir/lib/modules/$kver
	# trixie's packages ship /usr/lib only (merged /usr)
	[ -d "$moddir" ] || moddir=$kdir/usr/lib/modules/$kver
	[ -d "$moddir" ] || die "no modules directory $moddir"
	info "kernel $kver (${kdir##*/})"
}
