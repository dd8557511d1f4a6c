#!/bin/bash
# record and report of user stacks, live on this machine (root): --ustack
# with -s at a system call (the kernel's stack, then the user's), a USDT
# probe's -s and a user function's -s.  ustack_prog, held on a pipe, calls
# main -> outer_fn -> inner_fn (its probe, then openat) N times; a live
# text run, a live -j run and a recording of the same probes, each with
# -p (its maps read at attach), see the same calls.  report prints each
# event's stacks as the live runs did, byte for byte but for the times;
# the frames are named (inner_fn, outer_fn, main), so equality is not that
# of two unnamed stacks.  The names were taken at record time: report
# prints them after the program is gone and its file deleted.  --count:
# report --count (and a plain report of record --count) equals the live
# --count of a user function's -s and of --ustack; two recordings merged
# name each row's frames from their own file.
. "$(dirname "$0")/helpers.bash"
. "$(dirname "$0")/record.bash"
END_SETTLE=0.3
ustack_program record_ustack
N=3

# Times and durations are each run's own (its BPF program reads the clock).
notime() {
	sed -E 's/^[0-9:.]+ cpu/TIME cpu/; s/ \([0-9.]+ [mun]?s\)$/ (DURATION)/
		s/"time_ns":[0-9]+,/"time_ns":T,/; s/"duration_ns":[0-9]+,/"duration_ns":D,/'
}
# frames FILE KEY: the first three frames of the first KEY stack of a -j output, by name.
frames() {
	events "$1" | head -1 | jq -r ".$2[0:3][]" | sed -E 's/\+0x[0-9a-f]+ \(.*\)$//' | joined
}

# run NAME EVENTS SPEC...: the three runs over one held ustack_prog (its
# calls make EVENTS events), then report's.
run() {
	local name=$1 want=$2 fifo=$tmp/fifo-$1 pid lt lj rec i
	shift 2
	mkfifo "$fifo"
	"$prog" "$missing" $N <"$fifo" >/dev/null 2>&1 &
	pid=$!
	exec 6>"$fifo"
	bg "$tmp/$name.t" "$tmp/$name.et" -p "$pid" "$@" 6>&- && lt=$BGPID
	bg "$tmp/$name.j" "$tmp/$name.ej" -j -p "$pid" "$@" 6>&- && lj=$BGPID
	bg "$tmp/$name.o" "$tmp/$name.er" record -o "$tmp/$name.ksr" -p "$pid" "$@" 6>&- && rec=$BGPID
	# COUNTED=1: a live --count (text, -j) too, which report --count must
	# equal, and a record --count, which a plain report must equal.
	lc= lcj= rc=
	if [ -n "${COUNTED:-}" ]; then
		bg "$tmp/$name.c" "$tmp/$name.ec" --count -p "$pid" "$@" 6>&- && lc=$BGPID
		bg "$tmp/$name.cj" "$tmp/$name.ecj" -j --count -p "$pid" "$@" 6>&- && lcj=$BGPID
		bg "$tmp/$name.co" "$tmp/$name.erc" record --count -o "$tmp/$name-count.ksr" \
			-p "$pid" "$@" 6>&- && rc=$BGPID
	fi
	echo go >&6
	exec 6>&-
	wait "$pid" 2>/dev/null
	for i in $(seq 100); do
		[ "$(events "$tmp/$name.j" | grep -c .)" -ge "$want" ] && break
		sleep 0.1
	done
	end $lt $lj $rec $lc $lcj $rc
	ks report "$tmp/$name.ksr" >"$tmp/$name.rt" 2>"$tmp/$name.ert"
	expect_eq "${name}_report_status" 0 "$?"
	ks report -j "$tmp/$name.ksr" >"$tmp/$name.rj" 2>/dev/null
	expect_eq "${name}_events" "$want $want" "$(events "$tmp/$name.j" | grep -c .) $(events "$tmp/$name.rj" | grep -c .)"
	check "${name}_text_as_live" cmp <(notime <"$tmp/$name.t") <(notime <"$tmp/$name.rt")
	check "${name}_json_as_live" cmp <(events "$tmp/$name.j" | notime) <(events "$tmp/$name.rj" | notime)
	[ -n "${COUNTED:-}" ] || return 0
	check "${name}_count_as_live" cmp "$tmp/$name.c" <(ks report --count "$tmp/$name.ksr" 2>/dev/null)
	check "${name}_count_json_as_live" cmp "$tmp/$name.cj" <(ks report -j --count "$tmp/$name.ksr" 2>/dev/null)
	check "${name}_record_count_as_live" cmp "$tmp/$name.c" <(ks report "$tmp/$name-count.ksr" 2>/dev/null)
	expect_eq "${name}_count_frames" 'inner_fn outer_fn main' \
		"$(record count "$tmp/$name.cj" | head -1 | jq -r '.ustack[0:3][]' | sed -E 's/\+0x[0-9a-f]+ \(.*\)$//' | joined)"
}

# --- a system call: the kernel's stack (-s, KSYMS), then the user's (--ustack) ---
run sys $N -s --ustack "sys:openat(filename, return < 0)"
expect_eq sys_user_frames 'inner_fn outer_fn main' "$(frames "$tmp/sys.rj" ustack)"
expect_match sys_kernel_frames '^(do_syscall_64|entry_SYSCALL_64[a-z_]*)\+0x' \
	"$(events "$tmp/sys.rj" | head -1 | jq -r '.stack[]')"
expect_eq sys_text_both "$N $N" \
	"$(grep -c '^    stack = \[$' "$tmp/sys.rt") $(grep -c '^    ustack = \[$' "$tmp/sys.rt")"

# --- --count --ustack: per user stack, as live (without -s: live counts a
# call whose return is asked at its return, where the kernel's stack is
# another than the entry's that the event carries) ---
COUNTED=1 run ucount $N --ustack "sys:openat(filename, return < 0)"

# --- two recordings merged: each row's user frames named from its own
# file's USYMS (a copy of the program at another path, another process:
# the names differ, and another file's names would leave them in hex) ---
other=$tmp/other_prog
cp "$prog" "$other"
prog=$other run other $N --ustack "sys:openat(filename, return < 0)"
ks report -j --count "$tmp/ucount.ksr" "$tmp/other.ksr" >"$tmp/merged.cj" 2>/dev/null
expect_eq merged_count_status 0 "$?"
# "PID OBJECT FRAMES" of each row, and each recording's own pid and object.
rows() { record count "$1" | jq -r '"\(.pid) \(.ustack[0] | sub("^.* \\(";"") | rtrimstr(")")) \(.ustack[0:3] | map(sub("\\+0x.*$";"")) | join(","))"' | sort; }
own() { echo "$(events "$tmp/$1.j" | head -1 | jq -r .pid) $2 inner_fn,outer_fn,main"; }
expect_eq merged_count_own_names "$( (own ucount "$prog"; own other "$other") | sort)" "$(rows "$tmp/merged.cj")"

# --- a USDT probe's -s: its program's stack ---
run usdt $N -s usdt "$prog:ksnoop_ustack:inner(arg0:str)"
expect_eq usdt_user_frames 'inner_fn outer_fn main' "$(frames "$tmp/usdt.rj" stack)"

# --- a user function's -s: its entries and returns ---
COUNTED=1 run ufunc $((2 * N)) -s "u:$prog:inner_fn"
expect_eq ufunc_user_frames 'inner_fn outer_fn main' "$(frames "$tmp/ufunc.rj" stack)"

# The names are in the file: the program gone, they print the same.
rm -f "$prog"
check names_kept_after_program_gone cmp <(notime <"$tmp/usdt.t") \
	<(ks report "$tmp/usdt.ksr" 2>/dev/null | notime)
