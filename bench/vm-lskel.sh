#!/bin/bash
# vm-timeout: 1200
#
# Light skeleton against libbpf, inside the test VM (docs/PERFORMANCE.md,
# "Light skeleton"): exec until attached of `ksnoop -v --mode kprobe` for
# one function and for a glob (inet_*: 155-157 functions), with ksnoop's own -v split
# (instances loaded, load seconds), then the load of the kprobe pair both
# ways (ksb-lskel, bench/lskel.c) as many times as ksnoop loaded instances
# for that spec, libbpf and light in turn (which first alternates),
# ROUNDS times, same boot.
#
#   make build/bench/ksb-lskel
#   nice -n 10 tests/vm/run --kernel trixie --bin build/ksnoop \
#       --bin build/bench/ksb-lskel --bin /bin/bash bench/vm-lskel.sh
#
# One line per run:
#   NOTE vm/vm-lskel: RESULT ksnoop <spec> <round> attached_ms= loads= load_s=
#   NOTE vm/vm-lskel: RESULT load <libbpf|light> <spec> <round> mode=... per_load_ms=...
. /tests/lib.sh

set -u
export LC_ALL=C
ROUNDS=${LSKEL_ROUNDS:-7}
W=/tmp/ksb-lskel
mkdir -p "$W"
ONE=do_sys_openat2
ATTACH_FUNC=do_sys_openat2

result() { note "RESULT $*"; }
ms() { # T0 T1 ($EPOCHREALTIME): milliseconds between
	local a=${1//[.,]/} b=${2//[.,]/}
	echo $(((10#$b - 10#$a) / 1000))
}

# SPEC: exec until ksnoop -v says it is tracing, polled every 10 ms (at
# most 6000 times: "error" after); the
# -v cost line's instances and load seconds.  Prints "MS LOADS LOAD_S".
run_ksnoop() {
	local t0 t1 pid i
	: >"$W/err"
	t0=$EPOCHREALTIME
	ksnoop -v --mode kprobe "$1" >/dev/null 2>"$W/err" &
	pid=$!
	for ((i = 0; i < 6000; i++)); do
		grep -q 'tracing .* target' "$W/err" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	t1=$EPOCHREALTIME
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	grep -q 'tracing .* target' "$W/err" || { echo "error"; return; }
	sed -n 's/.* \([0-9]*\) program instance(s) loaded in \([0-9.]*\) s.*/\1 \2/p' "$W/err" |
		head -n 1 | { read -r n s; echo "$(ms "$t0" "$t1") ${n:-?} ${s:-?}"; }
}

# The glob: inet_* (155 functions on 6.12, 157 on 7.3; ip_* has 126,
# tcp_* over 300).  Looking for one nearer 200 by starting ksnoop on
# candidates took longer than the whole measurement on a loaded host.
GLOB=${LSKEL_GLOB:-inet_*}
note "kernel $(uname -r); glob '$GLOB'"
# What a signed loader would meet here: the active LSMs (an enforcing
# policy on BPF signatures needs one) and the keyrings.
mountpoint -q /sys/kernel/security 2>/dev/null || mount -t securityfs none /sys/kernel/security 2>/dev/null
note "lsm: $(cat /sys/kernel/security/lsm 2>/dev/null || echo unreadable)"
note "keyrings: $(grep -o '\.[a-z_]*' /proc/keys 2>/dev/null | sort -u | tr '\n' ' ')"

for spec in "$ONE" "$GLOB"; do
	for ((r = 1; r <= ROUNDS; r++)); do
		set -- $(run_ksnoop "$spec")
		result "ksnoop $spec $r attached_ms=$1 loads=${2:-?} load_s=${3:-?}"
		loads=${2:-1}
		case $loads in '' | *[!0-9]*) loads=1 ;; esac
		# Which goes first alternates, so neither always meets a warm cache.
		order="libbpf light"
		[ $((r % 2)) -eq 0 ] && order="light libbpf"
		for mode in $order; do
			out=$(ksb-lskel "$mode" "$loads" "$ATTACH_FUNC" 2>"$W/lerr") ||
				out="error=$(tail -n 1 "$W/lerr" | tr ' ' _)"
			result "load $mode $spec $r $out"
		done
	done
done
pass lskel-measured
