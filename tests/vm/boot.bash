# tests/vm/run, the boot: which accelerator, then qemu on the kernel and
# the initramfs, following the serial console until /init says DONE.
# Sourced by tests/vm/run.
#
#   accel_choose             sets accel_args and says which (KSNOOP_VM_ACCEL)
#   vm_boot                  boots, prints each result as it arrives
#                            (tests/lib/tally.bash counts them), and sets
#                            done_seen (1 when /init said DONE)
#
# It uses vmlinuz and kver (kernel.bash), initrd (initramfs.bash), cache,
# tmp, console, timeout_s, label, verbose, busybox_bin, die, info,
# verbose_info and verbose_echo; qemu_pid and tail_pid are for the
# caller's clean-up.

# ---- accelerator --------------------------------------------------------------

# KVM is used only if /dev/kvm opens read-write and this very kernel boots
# under it to userspace. Nested or restricted KVM can start a guest and still
# fail inside the kernel: qemu aborts setting MSR 0x10a (ARCH_CAPABILITIES)
# with "-cpu host", or KVM reports "emulation failure" on an instruction it
# cannot emulate and qemu pauses the guest for ever. Hence a real boot as the
# probe, several CPU models (while qemu fails fast; a guest that just hangs
# means KVM itself does not work here), and the verdict cached per host
# kernel, qemu and guest kernel (rm -r "$cache/kvm-probe" to probe again).
# A working KVM reaches /init in 1-2 s.
kvm_cpu_candidates=(host "host,-arch-capabilities" qemu64)
KVM_PROBE_LIMIT_S=15

# kvm_boots CPU: 0 if the guest kernel reaches a trivial /init under KVM,
# 1 if qemu or KVM failed, 2 if the guest hung
kvm_boots() (
	exec 2>/dev/null # also silences bash's "Aborted" job notices
	pdir=$tmp/kvm-probe
	mkdir -p "$pdir/root/bin"
	if [ ! -e "$pdir/initrd" ]; then
		cp "$busybox_bin" "$pdir/root/bin/busybox"
		printf '#!/bin/busybox sh\n/bin/busybox echo KSNOOP-KVM-PROBE-OK\n/bin/busybox poweroff -f\n' \
			>"$pdir/root/init"
		chmod 0755 "$pdir/root/init"
		(cd "$pdir/root" && find . | cpio --create --format=newc --owner=0:0 --quiet) |
			gzip -1 >"$pdir/initrd"
	fi
	: >"$pdir/console" && : >"$pdir/qemu.log"
	qemu-system-x86_64 -accel kvm -cpu "$1" -m 256 -smp 2 \
		-nodefaults -no-user-config -no-reboot -display none -monitor none -nic none \
		-chardev "file,id=con,path=$pdir/console" -serial chardev:con \
		-kernel "$vmlinuz" -initrd "$pdir/initrd" -append "console=ttyS0 panic=-1 quiet" \
		</dev/null >"$pdir/qemu.log" 2>&1 &
	pid=$!
	ok=2
	for ((i = 0; i < KVM_PROBE_LIMIT_S * 10; i++)); do
		if grep -q KSNOOP-KVM-PROBE-OK "$pdir/console"; then ok=0; break; fi
		if grep -q -e 'internal error' -e 'emulation failure' "$pdir/qemu.log"; then ok=1; break; fi
		if ! kill -0 "$pid"; then ok=1; break; fi
		sleep 0.1
	done
	kill -KILL "$pid"
	wait "$pid"
	exit "$ok"
)

# kvm_cpu: print a -cpu model that boots under KVM, or fail
kvm_cpu() {
	local key verdict cpu rc
	(exec 9<>/dev/kvm) 2>/dev/null || return 1
	key=$cache/kvm-probe/$(uname -r)_$(qemu-system-x86_64 --version | awk 'NR == 1 { print $4 }')_$kver
	if [ -r "$key" ]; then
		verdict=$(cat "$key")
	else
		verdict=none
		for cpu in "${kvm_cpu_candidates[@]}"; do
			rc=0
			kvm_boots "$cpu" || rc=$?
			if [ "$rc" = 0 ]; then verdict=$cpu; break; fi
			if [ "$rc" = 2 ]; then break; fi
		done
		mkdir -p "$cache/kvm-probe"
		echo "$verdict" >"$key"
	fi
	[ "$verdict" != none ] || return 1
	echo "$verdict"
}

# accel_choose: KVM when it works (or KSNOOP_VM_ACCEL=kvm), else TCG; an
# arm64 guest (karch) is always TCG here: qemu-system-aarch64, -M virt, its
# PL011 serial port as the console
accel_choose() {
	local kvm_cpu
	accel=${KSNOOP_VM_ACCEL:-auto}
	qemu_bin=qemu-system-x86_64
	machine_args=()
	console_dev=ttyS0
	# x86: no_timer_check.  Under TCG on a loaded host the kernel's check
	# that the 8254 timer reaches the IO-APIC can miss its ticks and panic
	# ("IO-APIC + timer doesn't work!"): 3 boots of 3 at load 10 here, two
	# kernels.  The parameter skips only that check (KVM guests use it too).
	kernel_args=no_timer_check
	if [ "$karch" = arm64 ]; then
		kernel_args=
		[ "$accel" != kvm ] || die "KSNOOP_VM_ACCEL=kvm: an arm64 guest runs under TCG only on this host"
		tcg_thread=${KSNOOP_VM_TCG_THREAD:-single}
		case $tcg_thread in
		single | multi) ;;
		*) die "KSNOOP_VM_TCG_THREAD must be single or multi" ;;
		esac
		qemu_bin=qemu-system-aarch64
		console_dev=ttyAMA0
		# -cpu max with the implementation-defined pointer authentication
		# algorithm: the architected one (QARMA) costs qemu far more at every
		# function entry and return of a kernel built with it.
		machine_args=(-M virt)
		accel_args=(-accel "tcg,thread=$tcg_thread" -cpu max,pauth-impdef=on)
		accel_desc="tcg (software emulation, aarch64 -M virt -cpu max, thread=$tcg_thread)"
		info "accel $accel_desc"
		return 0
	fi
	case $accel in
	kvm) kvm_cpu=$(kvm_cpu) || die "KSNOOP_VM_ACCEL=kvm but this kernel does not boot under KVM here" ;;
	tcg) ;;
	auto) if kvm_cpu=$(kvm_cpu); then accel=kvm; else accel=tcg; fi ;;
	*) die "KSNOOP_VM_ACCEL must be kvm, tcg or auto" ;;
	esac
	if [ "$accel" = kvm ]; then
		accel_args=(-accel kvm -cpu "$kvm_cpu")
		accel_desc="kvm, -cpu $kvm_cpu"
	else
		# No CMPXCHG16B: bookworm's qemu (7.2) emulates the %gs-relative
		# cmpxchg16b of trixie's SLUB fast path wrongly (EFLAGS comes back
		# with garbage, then a double fault in __kmalloc_noprof: 3 boots of 4 here
		# crashed); without cx16 the kernel takes its locked slow path.
		#
		# One host thread for both vCPUs (thread=single): with qemu 7.2's
		# multi-threaded TCG, live kernel text patching (ftrace call sites,
		# static keys: every fentry/kprobe attach and detach) races with the
		# other vCPU, which then executes the int3 of a patch already
		# finished ("Oops: int3" at vfs_read+0x1, do_sys_openat2+0x1,
		# __schedule+0x343, then "Fatal exception in interrupt") on 6.12, or
		# the guest hangs (6.1). Toggling the function tracer on two hot
		# functions while two loops open files crashed 6.12 within 10 s in 4
		# boots of 4 and hung 6.1 in 2 of 2; with thread=single, 781 toggles
		# on 6.12 and 120 on 6.1 ran clean.
		# KSNOOP_VM_TCG_THREAD=multi brings the old mode back.
		tcg_thread=${KSNOOP_VM_TCG_THREAD:-single}
		case $tcg_thread in
		single | multi) ;;
		*) die "KSNOOP_VM_TCG_THREAD must be single or multi" ;;
		esac
		# 7.x gets cmpxchg16b: without it 7.x refuses BPF task storage
		# (kmalloc_nolock() needs it), and session slots fall back to the
		# stash.  7.3.4 booted with it 3 times of 3 (s58) and ran
		# vm:20-kfunc twice (hundreds of attaches and detaches),
		# 89-session twice and 91-ufunc-session three times with no
		# crash, task storage given.  6.1 and 6.12 keep
		# -cx16 (6.12 crashed as above).  KSNOOP_VM_CX16=on|off overrides.
		case ${KSNOOP_VM_CX16:-auto} in
		auto) case $kver in [7-9].*) tcg_cpu=max ;; *) tcg_cpu=max,-cx16 ;; esac ;;
		on) tcg_cpu=max ;;
		off) tcg_cpu=max,-cx16 ;;
		*) die "KSNOOP_VM_CX16 must be auto, on or off" ;;
		esac
		accel_args=(-accel "tcg,thread=$tcg_thread" -cpu "$tcg_cpu")
		accel_desc="tcg (software emulation, thread=$tcg_thread, -cpu $tcg_cpu)"
	fi
	info "accel $accel_desc"
}

# ---- boot and follow the console --------------------------------------------------

elapsed() { awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# vm_start: qemu in the background (qemu_pid), its console on console_fd
vm_start() {
	: >"$console"
	start=$EPOCHREALTIME
	timeout -k 5 "$timeout_s" "$qemu_bin" \
		${machine_args[@]+"${machine_args[@]}"} "${accel_args[@]}" -m 1536 -smp 2 \
		-nodefaults -no-user-config -no-reboot -display none -monitor none -nic none \
		-chardev "file,id=con,path=$console,append=on" -serial chardev:con \
		-kernel "$vmlinuz" -initrd "$initrd" \
		-append "console=$console_dev panic=-1 oops=panic quiet${kernel_args:+ $kernel_args}" \
		</dev/null >"$tmp/qemu.log" 2>&1 &
	qemu_pid=$!

	exec {console_fd}< <(exec tail -n +1 -s 0.2 -f --pid="$qemu_pid" "$console")
	tail_pid=$!
}

# vm_follow: read the console until DONE or qemu is gone; results through
# tally_take, /init's own keywords (tests/vm/init) here
vm_follow() {
	local rc chunk line
	done_seen=0
	current=
	partial=
	kvm_failed=0
	while :; do
		# Wake up every 2 s: on "KVM internal error" qemu pauses the guest for
		# ever instead of exiting, so look for it while the console is quiet.
		rc=0
		IFS= read -r -t 2 -u "$console_fd" chunk || rc=$?
		if [ "$rc" -gt 128 ]; then
			partial+=$chunk
			if grep -q -e 'KVM internal error' -e 'emulation failure' "$tmp/qemu.log" 2>/dev/null; then
				kvm_failed=1
				kill "$qemu_pid" 2>/dev/null || true
			fi
			continue
		fi
		[ "$rc" = 0 ] || break # end of file: qemu is gone
		line=$partial$chunk
		partial=
		if ! tally_parse marker "$line"; then
			verbose_echo "console: ${line%$'\r'}" >&2
			continue
		fi
		case $TALLY_KIND in
		BOOT) info "booted in $(elapsed) s (kernel ${TALLY_ARG% *}, guest uptime ${TALLY_ARG##* } s)" ;;
		START) current=$TALLY_ARG; verbose_info "running $TALLY_ARG" ;;
		# Each script's time, always: where a suite's minutes go.
		END) current=; info "ended $TALLY_ARG" ;;
		LOG) verbose_echo "  $TALLY_ARG" ;;
		DONE) done_seen=1; break ;;
		*) tally_take "$TALLY_KIND" "$TALLY_ARG" "$label" ||
			verbose_echo "console: ${line%$'\r'}" >&2 ;;
		esac
	done
}

# vm_stop: qemu ended (after DONE the guest powers off; give it a moment,
# then stop it anyway); sets qemu_rc
vm_stop() {
	local i
	if [ "$done_seen" = 1 ]; then
		for ((i = 0; i < 50; i++)); do
			kill -0 "$qemu_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$qemu_pid" 2>/dev/null || true
	fi
	qemu_rc=0
	wait "$qemu_pid" || qemu_rc=$?
	qemu_pid=
	kill "$tail_pid" 2>/dev/null || true
	tail_pid=
}

# vm_gave_up: why the tests did not finish, with the last console lines and
# what qemu said; one failure more
vm_gave_up() {
	local other said
	if [ "$kvm_failed" = 1 ]; then
		echo "vm: KVM failed in the guest${current:+ (while running $current)}; KSNOOP_VM_ACCEL=tcg avoids it"
	elif [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
		echo "vm: timed out after $timeout_s s${current:+ (while running $current)}"
	else
		echo "vm: qemu exited (status $qemu_rc) before the tests finished${current:+ (while running $current)}"
	fi
	# a failure without a FAIL line: the lines above say what failed
	tally_failed=$((tally_failed + 1))
	if [ "$verbose" != 1 ]; then
		# The kernel's own report, from the first line that opens one (the
		# oops header and the call trace say what crashed; the tail alone
		# is the second oops and the panic), then the last lines.
		other=$(grep -v -F "$tally_marker" "$console" | tr -d '\r' |
			awk -v head=40 -v tail=30 '
				!opened && /(Oops|BUG:|general protection fault|kernel BUG|Kernel panic|WARNING:|RCU stall|rcu_.* detected stall)/ { opened = NR }
				{ line[NR] = $0 }
				END {
					from = NR - tail + 1; if (from < 1) from = 1
					if (opened && opened < from) {
						print "(kernel report, from its first line)"
						for (i = opened; i < opened + head && i < from; i++) print line[i]
						if (i < from) print "(...)"
					}
					for (i = from; i <= NR; i++) print line[i]
				}') || true
		if [ -n "$other" ]; then
			echo "vm: last console lines:"
			sed 's/^/    /' <<<"$other"
		fi
	fi
	said=$(grep -v 'terminating on signal' "$tmp/qemu.log" | tail -n 10) || true
	if [ -n "$said" ]; then
		echo "vm: qemu said:"
		sed 's/^/    /' <<<"$said"
	fi
}

vm_boot() {
	vm_start
	vm_follow
	vm_stop
	if [ "$done_seen" != 1 ]; then
		vm_gave_up
	fi
	info "finished in $(elapsed) s"
}
