#!/bin/bash
# vm-timeout: 1500
#
# Many functions at once, inside the test VM (booted by bench/run once per
# kernel): a whole run of `ksnoop 'tcp_*'` (every argument of 300 and more
# functions, entry and return) against `ksnoop tcp_sendmsg`, and bpftrace's
# `kprobe:tcp_*` against its `kprobe:tcp_sendmsg`: start, attached, one
# second of tracing, SIGINT (bpftrace: its -c command ends), exited.
# Then the per-call cost of a glob traced with fentry (a program per
# function) against kprobes (kprobe.multi where the kernel has it, 6.12):
# ns per open+close of `ksb-loop open`, the table-1 workload, each traced
# run after an untraced one (base=).
# Programs as in bench/vm-bench.sh (--bin: ksnoop, bpftrace, bash, ksb-loop).
# /tests/bench.conf sets GLOB_ROUNDS, CALL_ROUNDS and OPEN_N. One line per run:
#
#   NOTE vm/vm-globs: RESULT glob <variant> <round> attach_ms= trace_ms= detach_ms= total_ms= ...
#   NOTE vm/vm-globs: RESULT globcall <variant> <round> kernel= ns_per_iter= ... base=
#
# Failures are "RESULT ... error=<why>".
. /tests/lib.sh
. /tests/bench.conf

set -u
export LC_ALL=C
W=/tmp/ksb-glob
mkdir -p "$W"
KERNEL=$(uname -r | cut -d. -f1-2)
T0='taskset -c 0'
GLOB_SPEC='tcp_*'
ONE_SPEC='tcp_sendmsg'
BT_GLOB='kprobe:tcp_* { @[probe] = count(); }'
BT_ONE='kprobe:tcp_sendmsg { @[probe] = count(); }'

result() { note "RESULT $*"; }
cmdline() { note "CMD $1 $2"; }
ms() { # T0 T1 ($EPOCHREALTIME): milliseconds between
	local a=${1//[.,]/} b=${2//[.,]/}
	echo $(((10#$b - 10#$a) / 1000))
}
oneline() { tail -n 2 "$1" 2>/dev/null | tr -s ' \n\t' '___' | cut -c1-150; }

# bpftrace runs this once it has attached: the time then, a second of
# tracing, the time again; bpftrace detaches when it ends.
cat >"$W/mark" <<EOF
echo "\$EPOCHREALTIME" >$W/ready
sleep 1
echo "\$EPOCHREALTIME" >>$W/ready
EOF

run_ksnoop() { # SPEC
	local t0 t1 t2 t3 pid i rc
	: >"$W/err"
	t0=$EPOCHREALTIME
	$T0 ksnoop -v "$1" >/dev/null 2>"$W/err" &
	pid=$!
	for ((i = 0; i < 6000; i++)); do
		grep -q 'tracing .* target' "$W/err" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	t1=$EPOCHREALTIME
	if ! grep -q 'tracing .* target' "$W/err"; then
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		echo "error=did_not_attach:$(oneline "$W/err")"
		return
	fi
	sleep 1
	t2=$EPOCHREALTIME
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	t3=$EPOCHREALTIME
	echo "attach_ms=$(ms "$t0" "$t1") trace_ms=$(ms "$t1" "$t2") detach_ms=$(ms "$t2" "$t3")" \
		"total_ms=$(ms "$t0" "$t3") rc=$rc" \
		"funcs=$(sed -n 's/.* \([0-9]*\) traced.*/\1/p' "$W/err" | tail -n 1)" \
		"programs=$(sed -n 's/.* glob matches in \([0-9]*\) program.*/\1/p' "$W/err")" \
		"instances=$(sed -n 's/^ksnoop: \([0-9]*\) program instance(s) loaded.*/\1/p' "$W/err")" \
		"links=$(sed -n 's/.*; \([0-9]*\) links;.*/\1/p' "$W/err")"
}

run_bpftrace() { # PROGRAM
	local t0 t3 rc=0 t1 t2
	rm -f "$W/ready"
	t0=$EPOCHREALTIME
	timeout 600 $T0 bpftrace -e "$1" -c "/usr/bin/bash $W/mark" >/dev/null 2>"$W/err" || rc=$?
	t3=$EPOCHREALTIME
	t1=$(sed -n 1p "$W/ready" 2>/dev/null)
	t2=$(sed -n 2p "$W/ready" 2>/dev/null)
	if [ "$rc" != 0 ] || [ -z "$t1" ] || [ -z "$t2" ]; then
		echo "error=bpftrace_rc_$rc:$(oneline "$W/err")"
		return
	fi
	echo "attach_ms=$(ms "$t0" "$t1") trace_ms=$(ms "$t1" "$t2") detach_ms=$(ms "$t2" "$t3")" \
		"total_ms=$(ms "$t0" "$t3") rc=$rc"
}

cmdline glob-ksnoop-glob "ksnoop -v '$GLOB_SPEC'"
cmdline glob-ksnoop-one "ksnoop -v '$ONE_SPEC'"
cmdline glob-bpftrace-glob "bpftrace -e '$BT_GLOB' -c MARK"
cmdline glob-bpftrace-one "bpftrace -e '$BT_ONE' -c MARK"
VARIANTS=(ksnoop-one ksnoop-glob bpftrace-one bpftrace-glob)
n=${#VARIANTS[@]}
for ((r = 0; r < GLOB_ROUNDS; r++)); do
	for ((k = 0; k < n; k++)); do
		v=${VARIANTS[$(((k + r) % n))]}
		case $v in
		ksnoop-one) out=$(run_ksnoop "$ONE_SPEC") ;;
		ksnoop-glob) out=$(run_ksnoop "$GLOB_SPEC") ;;
		bpftrace-one) out=$(run_bpftrace "$BT_ONE") ;;
		bpftrace-glob) out=$(run_bpftrace "$BT_GLOB") ;;
		esac
		result glob "$v" "$r" "kernel=$KERNEL $out"
	done
done

# ---- per call: a glob with fentry against kprobe(.multi) ---------------------
F=$W/target-file
echo hello >"$F"
CALL_GLOB='do_sys_openat*(filename)'
LOOPCMD="ksb-loop -C 1"
untraced() { $LOOPCMD open "$OPEN_N" "$F" | sed -n 's/^ns_per_iter=\([0-9.]*\).*/\1/p'; }
run_call() { # MODE: ksnoop on CPU 0 until attached, the loop on CPU 1, SIGINT
	local pid i out rc attach
	: >"$W/err"
	$T0 ksnoop -v --mode "$1" "$CALL_GLOB" >/dev/null 2>"$W/err" &
	pid=$!
	for ((i = 0; i < 2400; i++)); do
		grep -q 'tracing .* target' "$W/err" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if ! grep -q 'tracing .* target' "$W/err"; then
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		echo "error=did_not_attach:$(oneline "$W/err")"
		return
	fi
	out=$($LOOPCMD open "$OPEN_N" "$F")
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	# how it attached, from -v: kprobe.multi, a kprobe each, or fentry
	if grep -q 'kprobe.multi refused' "$W/err"; then attach=kprobe-each
	elif grep -q 'one program, kprobe.multi' "$W/err"; then attach=kprobe.multi
	elif grep -q 'with a kprobe each' "$W/err"; then attach=kprobe-each
	else attach=$1; fi
	echo "$out" "$(sed -n 's/^ksnoop: \([0-9]*\) events printed, \([0-9]*\) lost.*/printed=\1 lost=\2/p' "$W/err" | tail -n 1)" \
		"rc=$rc attach=$attach funcs=$(sed -n 's/.* \([0-9]*\) traced.*/\1/p' "$W/err" | tail -n 1)"
}
cmdline globcall-untraced "$LOOPCMD open $OPEN_N $F"
cmdline globcall-fentry "$T0 ksnoop -v --mode fentry '$CALL_GLOB' >/dev/null"
cmdline globcall-kprobe "$T0 ksnoop -v --mode kprobe '$CALL_GLOB' >/dev/null"
CALL_VARIANTS=(untraced fentry kprobe)
n=${#CALL_VARIANTS[@]}
for ((r = 0; r < CALL_ROUNDS; r++)); do
	for ((k = 0; k < n; k++)); do
		v=${CALL_VARIANTS[$(((k + r) % n))]}
		case $v in
		untraced) out=$($LOOPCMD open "$OPEN_N" "$F") ;;
		*) base="base=$(untraced)"; out="$(run_call "$v") $base" ;;
		esac
		result globcall "$v" "$r" "kernel=$KERNEL $out"
	done
done
exit 0
