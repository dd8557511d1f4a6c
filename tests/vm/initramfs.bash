# tests/vm/run, the initramfs: busybox, /init, the test library, the
# programs, files and kernel modules asked for, and the test scripts, in a
# tree under $root packed into $initrd. Sourced by tests/vm/run.
#
#   initramfs_build          build $root and pack it into $tmp/initrd.cpio.gz
#                            (sets initrd)
#
# It reads what tests/vm/run's options gave (bins, files, modules, the
# scripts and their names and limits, script_timeout_s, verbose) and the
# kernel (moddir, kver from kernel.bash), and uses root, tmp, here (tests/vm),
# busybox_bin (the guest's), host_busybox (depmod here), guest_root (another
# architecture's userspace, or empty: kernel.bash's guest_prepare), die.

default_modules=(dummy veth loop)

# initramfs_base: the directories, busybox, /init, the test library and the
# few files in /etc that programs look for
initramfs_base() {
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,dev,proc,sys,tmp,run,root,etc,tests,var/tmp}
	chmod 1777 "$root/tmp" "$root/var/tmp"
	# Another architecture's guest: its libc, busybox, bpftool and jq.
	if [ -n "$guest_root" ]; then
		cp -a "$guest_root/." "$root/"
		rm -f "$root/.unpacked"
	fi

	# /init creates the applet links ("busybox --install -s"); they never replace
	# a file already there, and PATH in the VM puts /usr/bin (--bin) first.
	cp "$busybox_bin" "$root/bin/busybox"
	ln -sf busybox "$root/bin/sh"

	install -m 0755 "$here/init" "$root/init"
	install -m 0644 "$here/lib.sh" "$root/tests/lib.sh"
	install -m 0644 "$here/../lib/report.sh" "$root/tests/report.sh"
	install -m 0644 "$here/../lib/cases.sh" "$root/tests/cases.sh"

	cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
	cat >"$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
	printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"
	printf 'passwd: files\ngroup: files\nhosts: files\n' >"$root/etc/nsswitch.conf"
	echo ksnoop-vm >"$root/etc/hostname"
	ln -s /proc/self/mounts "$root/etc/mtab"
}

# add_libs FILE: copy every library ldd lists for FILE, at the same absolute
# path (the dynamic loader included); nothing for static programs and scripts.
add_libs() {
	local out lib
	out=$(ldd "$1" 2>&1) || return 0
	if grep -q 'not found' <<<"$out"; then
		die "$1 needs libraries that are not installed: $(grep 'not found' <<<"$out" | tr -s ' \t\n' ' ')"
	fi
	while IFS= read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out")
}

# add_bin PATH[:NAME]: the program at /usr/bin/NAME, with its libraries
declare -A bin_names=()
add_bin() {
	local spec=$1 path name
	path=$spec
	name=
	if [[ $spec == *:* && ${spec##*:} != */* ]]; then
		path=${spec%:*}
		name=${spec##*:}
	fi
	if [[ ! -e $path && $path != */* ]]; then
		path=$(command -v "$path" 2>/dev/null) || die "--bin $spec: no such file or command"
	fi
	[ -f "$path" ] || die "--bin $spec: '$path' is not a file"
	[ -n "$name" ] || name=${path##*/}
	[[ $name =~ ^[A-Za-z0-9._+-]+$ ]] || die "--bin $spec: bad name '$name'"
	if [ -n "${bin_names[$name]:-}" ]; then
		die "--bin $spec: /usr/bin/$name is already ${bin_names[$name]}; rename one with --bin PATH:NAME"
	fi
	bin_names[$name]=$path
	install -m 0755 "$path" "$root/usr/bin/$name"
	add_libs "$path"
}

# add_jq: trixie's jq from jq_root (kernel.bash's guest_jq_prepare) under
# /opt/jq, run by its own loader with its own libraries: /usr/bin/jq
# a script that execs it (busybox's sh: a few ms under TCG)
add_jq() {
	cp -a "$jq_root/opt" "$root/"
	cat >"$root/usr/bin/jq" <<'EOF'
#!/bin/sh
exec /opt/jq/lib/ld-linux-x86-64.so.2 --library-path /opt/jq/lib /opt/jq/jq "$@"
EOF
	chmod 0755 "$root/usr/bin/jq"
	bin_names[jq]=$jq_root/opt/jq/jq
}

# add_file SRC:DEST: a file or directory at DEST (absolute; a DEST ending in
# / means DEST/basename(SRC))
add_file() {
	local spec=$1 src dest
	[[ $spec == *:* ]] || die "--file $spec: expected SRC:DEST"
	src=${spec%:*}
	dest=${spec##*:}
	[[ $dest == /* ]] || die "--file $spec: DEST must be an absolute path in the VM"
	[ -e "$src" ] || die "--file $spec: no such file '$src'"
	[[ $dest == */ ]] && dest=$dest${src##*/}
	mkdir -p "$root$(dirname "$dest")"
	cp -RLpT "$src" "$root$dest"
}

# add_module NAME|RELPATH: NAME.ko and, recursively, what it depends on.
declare -A modules_added=()
add_module() {
	local m=$1 rel dep deps ko
	if [[ $m == */* ]]; then
		rel=${m#"$moddir"/}
		[ -f "$moddir/$rel" ] || die "--module $m: no $moddir/$rel"
	else
		m=${m%.ko}
		rel=$(cd "$moddir" && find kernel \( -name "$m.ko*" -o -name "${m//_/-}.ko*" -o \
			-name "${m//-/_}.ko*" \) -a \( -name '*.ko' -o -name '*.ko.xz' \) | head -n 1)
		[ -n "$rel" ] || die "--module $m: no $m.ko in $kver"
	fi
	[ -n "${modules_added[$rel]:-}" ] && return 0
	modules_added[$rel]=1
	# trixie's modules are .ko.xz: the VM gets them unpacked.
	ko=$root/lib/modules/$kver/${rel%.xz}
	mkdir -p "$(dirname "$ko")"
	case $rel in
	*.xz) xz -dc "$moddir/$rel" >"$ko" || die "cannot unpack $moddir/$rel (xz-utils)" ;;
	*) cp "$moddir/$rel" "$ko" ;;
	esac
	deps=$(tr '\0' '\n' <"$ko" | sed -n 's/^depends=//p' | head -n 1)
	for dep in ${deps//,/ }; do
		add_module "$dep"
	done
}

# initramfs_modules: the default modules and --module's, with modules.dep
initramfs_modules() {
	local m f
	for m in "${default_modules[@]}" ${modules[@]+"${modules[@]}"}; do
		add_module "$m"
	done
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		if [ -e "$moddir/$f" ]; then cp "$moddir/$f" "$root/lib/modules/$kver/"; fi
	done
	# modules.dep lets "modprobe NAME" work in the VM too.
	"$host_busybox" depmod -b "$root" "$kver" 2>/dev/null || true
}

# initramfs_scripts: the test scripts, /tests/index (NAME FILE TIMEOUT, in
# order, read by /init) and /tests/config
initramfs_scripts() {
	local i
	for i in "${!scripts[@]}"; do
		install -m 0755 "${scripts[$i]}" "$root/tests/${script_files[$i]}"
		echo "${script_names[$i]} /tests/${script_files[$i]} ${script_limits[$i]}" >>"$root/tests/index"
	done
	printf 'KSNOOP_VM_SCRIPT_TIMEOUT=%s\nKSNOOP_VM_VERBOSE=%s\n' "$script_timeout_s" "$verbose" \
		>"$root/tests/config"
}

initramfs_build() {
	local b spec
	initramfs_base
	for b in ${bins[@]+"${bins[@]}"}; do
		add_bin "$b"
	done
	# Tests use these to look at BPF state and parse JSON; a --bin of the same
	# name (say, a newer bpftool) takes precedence.
	# (another architecture's guest has its own: guest_prepare).
	for b in bpftool jq; do
		[ -z "$guest_root" ] || break
		[ -z "${bin_names[$b]:-}" ] || continue
		if [ "$b" = jq ] && [ -n "${jq_root:-}" ]; then
			add_jq
		else
			add_bin "$(command -v "$b")"
		fi
	done
	for spec in ${files[@]+"${files[@]}"}; do
		add_file "$spec"
	done
	initramfs_modules
	initramfs_scripts

	initrd=$tmp/initrd.cpio.gz
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null --create --format=newc --owner=0:0 --quiet) | gzip -1 >"$initrd" ||
		die "building the initramfs failed"
}
