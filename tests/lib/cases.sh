# ksnoop in the background, and test cases written as data: the one helper
# library of the live tests (sourced by tests/live/helpers.bash, under bash)
# and the VM tests (sourced by tests/vm/lib.sh as /tests/cases.sh, under
# busybox sh).  POSIX sh and busybox only; every name it sets that is not
# documented starts with _ks.  Sourced after report.sh.
#
#   ks_case <<'CASE' ... CASE
#                          one test case, declared (below)
#   spawn OUT ERR ARGS...  run `ksnoop ARGS` in the background; sets KPID and
#                          KCMDLINE (the live helpers replace it with one
#                          that gives each run its sanitizer logs)
#   start OUT ERR ARGS...  spawn `ksnoop -v ARGS`, wait until it has
#                          attached (given up after START_WAIT s without
#                          progress, kswait); sets KPID, and PROGS,
#                          LINKS and MAPS (the ids it holds then)
#   read_held              set PROGS, LINKS and MAPS to the ids KPID holds now
#   wait_exit SECONDS      wait for KPID to exit (killed after SECONDS
#                          without progress); sets RC ("timeout" if it
#                          had to be killed)
#   finish                 wait_exit KS_WAIT, then ks_after_run (the live
#                          helpers check for a sanitizer report there)
#   stop                   SIGINT it (after STOP_DELAY s), then finish
#   wait_lines FILE N [SECONDS]
#                          until FILE has N lines (at most SECONDS, KS_WAIT)
#   held_ids PID prog|link|map
#                          the ids of the BPF objects PID holds (its fds)
#   left_ids prog|link|map IDS
#                          which of IDS still exist ("" when all are gone);
#                          no ids, or bpftool failing, is never ""
#   still_there prog|link|map IDS
#                          left_ids, once they are gone or after 5 s (the
#                          kernel frees programs and maps after an RCU grace
#                          period; a sleepable one's can take seconds)
#   left_progs IDS         still_there prog IDS
#   record TYPE FILE...    the records of TYPE in -j output, one a line:
#                          its stdout is one NDJSON stream of events,
#                          histograms, notices and the closing summary
#   events FILE...         record event FILE...: what was traced, without
#                          the summary and notices
#   ks_errors [--json] [--in DIR] GOLDEN <<'ROWS' ... ROWS
#                          ksnoop refusing, as data: a table of runs, each
#                          exactly one line of a golden file (below)
#   ks_golden_file GOLDEN FILE / ks_golden_line GOLDEN NAME [ACTUAL]
#                          what GOLDEN holds (all of it, or line NAME), for
#                          a script's own comparison; both rewritten under
#                          KS_GOLDEN_UPDATE=1
#
# The time limits, set before this file is sourced or at any time after:
# START_WAIT (10 s), KS_WAIT (10 s), STOP_DELAY (0.3 s).  The VM's lib.sh
# makes them 30, 20 and 0.5: qemu without KVM is slow; the live helpers
# make the first two 60 (a busy machine).
#
# ---- A test case as data ----
#
# The model is bpftrace's runtime tests: a case is a few lines, one keyword
# each, that a runner executes; here the runner is ks_case, the same in the
# live tests and in the VM.
#
#     ks_case <<'CASE'
#     NAME     ${T}_bitfield_pred
#     RUN      --mode $mode 'ip_output(skb->pkt_type == 0, skb->len)'
#     WORKLOAD ping -c 2 127.0.0.1 >/dev/null 2>&1
#     EXPECT   count 4 '^    skb->len = 84$'
#     EXPECT   ${T}_said: stderr 'attached'
#     CASE
#
#   NAME N       the case's name: its result when it has one expectation,
#                and the failure when ksnoop does not attach
#   BEFORE CMD   a command run before ksnoop starts (a process for RUN's
#                -p to name, held until the workload lets it go)
#   RUN ARGS     ksnoop's arguments (started as `ksnoop -v ARGS`)
#   WORKLOAD CMD a command run once ksnoop has attached; several run in
#                order (a shell function for anything longer); none when
#                what ksnoop traces runs anyway.  It runs too when ksnoop
#                did not attach, so that what BEFORE started ends the same
#                way
#   UNTIL exit   ksnoop ends by itself (-n, --duration): wait for it
#                instead of sending SIGINT after the workload
#   TIMEOUT S    at most S seconds to attach, and S more to exit after the
#                workload (default START_WAIT and KS_WAIT); then killed
#   STOP_WAIT S  at most S seconds to exit after the SIGINT (or, with
#                UNTIL exit, after the workload), whatever TIMEOUT says;
#                then killed and RC is "timeout" (EXPECT exit 0 fails)
#   ARCH A[|B]   run only on these machines (uname -m: x86_64, aarch64)
#   MIN_KERNEL X.Y  run only on kernel X.Y or later (uname -r)
#   MAX_KERNEL X.Y  run only on kernel X.Y (any X.Y.z) or earlier
#   REQUIRES F...   run only where ksnoop -v says "F yes" for each F
#                (fentry, kprobes or kprobe, kprobe_multi, uprobe_sleepable,
#                tp_cookies, ringbuf, kprobe_session, uprobe_multi,
#                fsession, uprobe_session), probed once per
#                KSNOOP_FEATURES; a
#                name the line does not have fails the case
#   KFUNC V F1 F2...  set V to the first of the kernel functions F1 F2 ...
#                that /proc/kallsyms has (a function renamed between
#                kernels: do_filp_open, later do_file_open), for RUN and
#                EXPECT to use as $V
#                A case whose gate does not hold is not run: each of its
#                results is a SKIP and a NOTE says why, naming the kernel
#                (or the machine), so that it is never silently left out
#   EXPECT [R:] CHECK ARGS
#                one result, named R (default NAME) and judged once ksnoop
#                exited, OUT and ERR naming its stdout and stderr files:
#                  count N ERE       exactly N lines of OUT match ERE
#                  match ERE         a line of OUT matches
#                  no_match ERE      no line of OUT matches
#                  stderr ERE        a line of ERR matches
#                  eq WANT ACTUAL    the two words are equal
#                  text ERE TEXT     a line of TEXT matches
#                  exit STATUS       ksnoop exited with STATUS
#                  json              OUT parses as JSON (jq)
#
# Everything after the keyword is shell words, expanded when it is used
# (the case's variables, $OUT, $(jq ... "$OUT") in an EXPECT); quote the
# here-document's delimiter so that nothing is expanded before.  A line
# that ends in a backslash goes on on the next.  OUT and ERR are
# $tmp/NAME.out and .err, and stay set after the case with PROGS, RC and
# KPID for what the script checks itself.
#
# ---- Errors as data: ks_errors, the one golden-line table ----
#
#     ks_errors [--json] [--in DIR] GOLDEN <<'ROWS'
#     # comments, blank lines; a backslash at the end goes on on the next
#     missing_file  usdt /nonexistent/app:p:n
#     not_elf       usdt "$tmp/text:p:n"
#     no_ringbuf    KSNOOP_FEATURES=-ringbuf --duration 1 tp:sched_process_free
#     ROWS
#
# Each row is a name and ksnoop's arguments, shell words expanded in
# order when the table is read (leading NAME=VALUE words are ksnoop's
# environment).  The rows then run KS_PARALLEL (4) at a time, in DIR
# (default: here), stdin /dev/null, each bounded by KSNOOP_TIMEOUT (30 s)
# through ks_row_run, and are judged in the order written.  GOLDEN has a
# line a row, NAME STATUS MESSAGE; each row gives two results:
#   NAME_status  ksnoop exited with STATUS;
#   NAME         and printed exactly one line, MESSAGE: on stderr with
#                nothing on stdout, or with --json a {"type":"error"}
#                object on stdout with nothing on stderr; no sanitizer
#                report, no time-out.
# The line as the file holds it: each value KS_GOLDEN_VARS names (default
# tmp; longer paths first) reads $NAME, a kernel address (KASLR)
# 0xKADDR.  A MESSAGE starting with ~ is an ERE the whole line must match,
# only for what the build decides (a register gcc chose, a record's size).
# golden_used_FILE fails on a golden line no row made.  A row's files stay
# as ROWS_DIR/NAME.out, .err and .rc ($tmp/rows-FILE).
#
# KS_GOLDEN_UPDATE=1 (make golden) rewrites GOLDEN from what ran, keeping
# the ~ lines that still match, then judges against it (the status, one
# line and sanitizer checks still bite): read its diff before committing.
# ks_golden_file and ks_golden_line (below) do the same for a whole
# output (a histogram) and for a line of the script's own (completions).

START_WAIT=${START_WAIT:-10}
KS_WAIT=${KS_WAIT:-10}
STOP_DELAY=${STOP_DELAY:-0.3}

held_ids() { _ks_wait held "$1" "$2"; }

# One process for the three (a pipeline of four each, before).  $(...)
# drops the empty lines at the end: those reads meet the end, and their
# variables stay empty.
read_held() {
	PROGS="" LINKS="" MAPS=""
	{ read -r PROGS; read -r LINKS; read -r MAPS; } <<EOF
$(_ks_wait held "$KPID")
EOF
	return 0
}

left_ids() {
	[ -n "$2" ] || { echo "none-recorded"; return; }
	command -v bpftool >/dev/null || { echo "no-bpftool"; return; }
	for _ksl_id in $2; do
		if _ksl_out=$(bpftool "$1" show id "$_ksl_id" 2>&1); then
			printf '%s ' "$_ksl_id"
		elif ! has_line 'No such file or directory' "$_ksl_out"; then
			printf '%s ' "bpftool-failed($_ksl_id: $_ksl_out)"
		fi
	done
}

still_there() {
	_kss_i=0
	while [ $_kss_i -lt 50 ]; do
		_kss_left=$(left_ids "$1" "$2")
		[ -z "$_kss_left" ] || [ -z "$2" ] && break
		sleep 0.1
		_kss_i=$((_kss_i + 1))
	done
	echo "$_kss_left"
}
left_progs() { still_there prog "$1"; }

# xlated IDS: the kernel's translation of programs IDS (read_held's
# PROGS), an instruction a line: no index, no source lines; the numbers
# that move with what pruning removed dropped (jumps', callbacks', maps',
# and the tags of the subprograms called, a hash of their code).
xlated() {
	for _ksx_id in $1; do
		bpftool prog dump xlated id "$_ksx_id" 2>/dev/null
	done | sed -n -E '/^ *[0-9]+: /{s/^ *[0-9]+: //; s/pc[+-][0-9]+/pc/g; s/map\[id:[0-9]+\]/map/g; s/subprog\[[+-]?[0-9]+\]/subprog/g; s/bpf_prog_[0-9a-f]+_/bpf_prog_/g; p;}'
}

# pruned_like WHOLE PRUNED: "yes" when PRUNED (xlated's lines of a run with
# the code pruned, prune.h) is WHOLE's (KSNOOP_PRUNE=0) but for conditional
# jumps: gone (never taken: the kernel keeps one whose target other paths
# reach) or a goto (always taken); else where they part.
pruned_like() {
	awk 'function cond(l) { return l ~ /^\(.6|.[1-4d]|.5\) if / && l ~ / goto pc$/ }
	     NR == FNR { w[++n] = $0; next }
	     bad { next }
	     {
		while (i < n) {
			f = w[++i]
			if (f == $0 || ($0 == "(05) goto pc" && cond(f))) next
			if (!cond(f)) { bad = "instruction " FNR ": " $0 "; whole: " f; next }
		}
		bad = "instruction " FNR " past the whole code: " $0
	     }
	     END {
		while (!bad && i < n) if (!cond(w[++i])) bad = "whole code left: " w[i]
		print bad ? bad : (n ? "yes" : "no code")
	     }' "$1" "$2"
}

# prune_pair NAME ARGS...: ksnoop ARGS started twice, its code loaded
# whole (KSNOOP_PRUNE=0), then pruned (ksnoop/attach/prune.h): the same
# programs, the kernel's translation the same but for conditional jumps
# (pruned_like), and -v saying fewer instructions went to the kernel, all
# of them pruned.  Needs bpftool.
prune_pair() {
	_ksp_name=$1
	shift
	export KSNOOP_PRUNE=0
	start "$tmp/$_ksp_name.whole.out" "$tmp/$_ksp_name.whole.err" "$@"
	_ksp_rc=$?
	unset KSNOOP_PRUNE
	xlated "$PROGS" >"$tmp/$_ksp_name.whole.x"
	_ksp_n=$(echo $PROGS | wc -w)
	stop
	if [ "$_ksp_rc" != 0 ]; then
		fail "${_ksp_name}_whole" "did not attach: ksnoop -v $*
$(cat "$tmp/$_ksp_name.whole.err")"
		return 0
	fi
	if ! start "$tmp/$_ksp_name.out" "$tmp/$_ksp_name.err" "$@"; then
		stop
		fail "${_ksp_name}_pruned" "did not attach: ksnoop -v $*
$(cat "$tmp/$_ksp_name.err")"
		return 0
	fi
	xlated "$PROGS" >"$tmp/$_ksp_name.x"
	expect_eq "${_ksp_name}_programs" "$_ksp_n" "$(echo $PROGS | wc -w)"
	stop
	expect_eq "${_ksp_name}_same_code" yes "$(pruned_like "$tmp/$_ksp_name.whole.x" "$tmp/$_ksp_name.x")"
	_ksp_said=$(sed -n 's/^ksnoop: BPF code: \([0-9]*\) of \([0-9]*\) instructions .*(0 program(s) whole)$/\1 \2/p' "$tmp/$_ksp_name.err")
	set -- $_ksp_said
	expect_eq "${_ksp_name}_fewer" yes \
		"$( [ $# = 2 ] && [ "$1" -lt "$2" ] && echo yes || echo "-v said '$_ksp_said'")"
	expect_eq "${_ksp_name}_whole_said_none" 0 "$(grep -c 'BPF code:' "$tmp/$_ksp_name.whole.err")"
}

record() {
	_ksr_type=$1
	shift
	jq -c --arg t "$_ksr_type" 'select(.type == $t)' "$@"
}
events() { record event "$@"; }

wait_lines() { _ks_wait lines "$1" "$2" "${3:-$KS_WAIT}"; }

spawn() {
	_ksp_out=$1 _ksp_err=$2
	shift 2
	KCMDLINE="ksnoop $*"
	"${K:-ksnoop}" "$@" >"$_ksp_out" 2>"$_ksp_err" &
	KPID=$!
}

# The waits below are kswait's (tests/lib/kswait.c): blocked in the
# kernel until the file is written or KPID exits, given up when KPID has
# shown no progress (its page faults and CPU time, and the file's size)
# for LIMIT seconds, or spent 10 times LIMIT in all (a ksnoop that spins).
# The limits count steps of 0.1 s, not the clock: a guest that got no CPU
# for a while has not waited.  A loop of grep, wc and sleep here cost a
# guest ~0.13 s of its CPU a step, as much as the ksnoop it waited for.
KSWAIT=${KSWAIT:-kswait}

# _ks_wait ARGS...: kswait ARGS, or a failure that says it is missing (a
# script that sources this file and never waits needs no kswait).
_ks_wait() {
	if ! command -v "$KSWAIT" >/dev/null 2>&1; then
		fail harness_kswait "no $KSWAIT: cases.sh waits with it (make test-bins: build/vm/kswait; a guest needs --bin build/vm/kswait)"
		return 3
	fi
	"$KSWAIT" "$@"
}

start() {
	_kst_out=$1 _kst_err=$2
	shift 2
	# Empty both files here, not in the background job: the job opens
	# them some time after it is started, and until then a file reused
	# from an earlier start still says "tracing", so the wait below would
	# return before this ksnoop has attached (the "zero events" flake).
	: >"$_kst_out"
	: >"$_kst_err"
	spawn "$_kst_out" "$_kst_err" -v "$@"
	PROGS="" LINKS="" MAPS=""
	# Attached once it said so, alive or (a quick -n) exited since; not
	# if it exited without saying so, or stalled.
	_ks_wait match "$KPID" "$_kst_err" "$START_WAIT" 'tracing .* target' || return 1
	read_held
}

# The shell's "Killed" notice for the job goes nowhere.
wait_exit() {
	if ! _ks_wait exit "$KPID" "${_kst_err:-/dev/null}" "$1"; then
		{ kill -9 "$KPID"; wait "$KPID"; } 2>/dev/null
		RC=timeout
	else
		{ wait "$KPID"; RC=$?; } 2>/dev/null
	fi
}

# What a run's end checks besides its status: nothing here; the live
# helpers look for its sanitizer report.
ks_after_run() { :; }

finish() {
	wait_exit "$KS_WAIT"
	ks_after_run
}

stop() {
	sleep "$STOP_DELAY"
	kill -INT "$KPID" 2>/dev/null
	finish
}

# ---- ks_case ----

_ks_nl='
'

# _ks_words VAR TEXT: set VAR to TEXT's first word, expanded.
_ks_words() {
	_ksv_var=$1
	eval "set -- $2"
	eval "$_ksv_var=\${1:-}"
}

# _ks_has ERE FILE YES NO: _ksx_ok is YES when a line of FILE matches ERE,
# else NO (set, not printed: no subshell).
_ks_has() { if grep -Eq -- "$1" "$2"; then _ksx_ok=$3; else _ksx_ok=$4; fi; }

# _ks_expect CASE LINE: judge one EXPECT line; a failure shows ksnoop's
# stderr.
_ks_expect() {
	_ksx_case=$1 _ksx_line=$2
	eval "set -- $2"
	_ksx_name=$_ksx_case
	case ${1:-} in *:) _ksx_name=${1%:}; shift ;; esac
	_ksx_check=${1:-}
	[ $# -gt 0 ] && shift
	case $_ksx_check in
	count) count_is "$_ksx_name" "$1" "$2" "$OUT" "$ERR"; return 0 ;;
	match) _ks_has "$1" "$OUT" y n ;;
	no_match) _ks_has "$1" "$OUT" n y ;;
	stderr) _ks_has "$1" "$ERR" y n ;;
	eq) [ "$1" = "$2" ] && _ksx_ok=y || _ksx_ok="expected: '$1'
actual:   '$2'" ;;
	text) has_line "$1" "$2" && _ksx_ok=y || _ksx_ok="no line matches /$1/ in:
$2" ;;
	exit) [ "$1" = "$RC" ] && _ksx_ok=y || _ksx_ok="exit status $RC, expected $1" ;;
	json) jq -e . "$OUT" >/dev/null 2>&1 && _ksx_ok=y || _ksx_ok=n ;;
	*)
		fail "$_ksx_name" "case $_ksx_case: unknown check '$_ksx_check' in EXPECT $_ksx_line"
		return 0
		;;
	esac
	case $_ksx_ok in
	y) pass "$_ksx_name" ;;
	n) fail "$_ksx_name" "EXPECT $_ksx_line
--- stdout:
$(head -60 "$OUT")
--- stderr:
$(cat "$ERR")" ;;
	*) fail "$_ksx_name" "$_ksx_ok
--- stderr:
$(cat "$ERR")" ;;
	esac
}

# _ks_kernel_at_least X.Y: whether uname -r is X.Y or later.
_ks_kernel_at_least() {
	_ksk_r=${_ksk_r:-$(uname -r)}
	_ksk_maj=${_ksk_r%%.*} _ksk_min=${_ksk_r#*.}
	_ksk_min=${_ksk_min%%[!0-9]*}
	[ $((${_ksk_maj:-0} * 1000 + ${_ksk_min:-0})) -ge $((${1%%.*} * 1000 + ${1#*.})) ]
}

# _ks_feature NAME: set _ksf to yes, no, or unknown (not a feature
# ksnoop -v names), from ksnoop -v's features line (_ks_feat_line), probed
# once per value of KSNOOP_FEATURES.
_ks_feature() {
	if [ "${_ks_feat_for-}" != "x${KSNOOP_FEATURES-}" ] || [ -z "${_ks_feat_line:-}" ]; then
		_ks_feat_line=$("${K:-ksnoop}" -v 'vfs_read(ksnoop_no_such_argument)' 2>&1 >/dev/null |
			grep -m1 '^ksnoop: kernel [^ ]*: fentry')
		_ks_feat_for=x${KSNOOP_FEATURES-}
	fi
	case $1 in kprobe) set -- kprobes ;; esac
	# ", NAME yes," or "; " or " (why)" after it: a pattern, not a grep.
	case $_ks_feat_line in
	*[:,]" $1 yes"[,\;]* | *[:,]" $1 yes ("*) _ksf=yes ;;
	*[:,]" $1 no"[,\;]* | *[:,]" $1 no ("*) _ksf=no ;;
	*) _ksf=unknown ;;
	esac
	return 0
}

# _ks_kfuncs: $_ks_kfuncs_file lists the kernel's functions (kallsyms'
# t, T, w and W names), read once per script and again after a module
# came or went.  Under TCG each read of /proc/kallsyms takes the kernel
# seconds (7.3's 85-tree spent 100 of its 360 s on 30 KFUNC lookups).
_ks_kfuncs() {
	_ks_kfuncs_file=$tmp/.ks_kfuncs
	_ksm_now=$(wc -l </proc/modules 2>/dev/null)
	[ -s "$_ks_kfuncs_file" ] && [ "${_ks_kfuncs_mods-}" = "$_ksm_now" ] && return 0
	awk '$2 ~ /^[tTwW]$/ { print $3 }' /proc/kallsyms >"$_ks_kfuncs_file"
	_ks_kfuncs_mods=$_ksm_now
}

# _ks_gate: why the case being read may not run here ("" when it may);
# sets its KFUNC variables.  A gate that is wrong itself (a feature ksnoop
# does not name, X.Y that is not a version) goes to _ksc_bad.
_ks_gate() {
	_ksg_why=""
	if [ -n "$_ksc_arch" ]; then
		_ksg_ok=n
		for _ksg_a in $_ksc_arch; do
			[ "$_ksg_a" = "$(uname -m)" ] && _ksg_ok=y
		done
		[ $_ksg_ok = y ] || { _ksg_why="the machine is $(uname -m), not$(printf " %s" $_ksc_arch)"; return; }
	fi
	for _ksg_v in $_ksc_min $_ksc_max; do
		case $_ksg_v in
		*[!0-9.]* | *.*.*) ;;
		[0-9]*.[0-9]*) continue ;;
		esac
		_ksc_bad="$_ksc_bad '$_ksg_v' is not a kernel version X.Y;"
		return
	done
	if [ -n "$_ksc_min" ] && ! _ks_kernel_at_least "$_ksc_min"; then
		_ksg_why="kernel $(uname -r) is older than $_ksc_min"; return
	fi
	if [ -n "$_ksc_max" ] && _ks_kernel_at_least "${_ksc_max%%.*}.$((${_ksc_max#*.} + 1))"; then
		_ksg_why="kernel $(uname -r) is newer than $_ksc_max"; return
	fi
	eval "set -- $_ksc_requires"
	for _ksg_f in "$@"; do
		_ks_feature "$_ksg_f"
		case $_ksf in
		yes) ;;
		no) _ksg_why="no $_ksg_f: ${_ks_feat_line#ksnoop: }"; return ;;
		*) _ksc_bad="$_ksc_bad REQUIRES '$_ksg_f': not a feature in ksnoop -v's line (${_ks_feat_line:-none});"; return ;;
		esac
	done
	while IFS= read -r _ksg_line; do
		[ -n "$_ksg_line" ] || continue
		eval "set -- $_ksg_line"
		_ksg_var=$1
		shift
		_ksg_found=""
		_ks_kfuncs
		for _ksg_f in "$@"; do
			if grep -qxF -- "$_ksg_f" "$_ks_kfuncs_file"; then _ksg_found=$_ksg_f; break; fi
		done
		[ -n "$_ksg_found" ] || { _ksg_why="kernel $(uname -r) has none of $* (/proc/kallsyms)"; return; }
		eval "$_ksg_var=\$_ksg_found"
	done <<_KS_KFUNC_
$_ksc_kfunc
_KS_KFUNC_
}

# _ks_skip_case: each result the case would have given is a SKIP, and a
# NOTE says why.
_ks_skip_case() {
	_kss_names=" "
	while IFS= read -r _kss_line; do
		[ -n "$_kss_line" ] || continue
		_kss_name=$_ksc_name
		_ks_words _kss_first "${_kss_line%%[ 	]*}"
		case $_kss_first in *:) _kss_name=${_kss_first%:} ;; esac
		case $_kss_names in *" $_kss_name "*) continue ;; esac
		_kss_names="$_kss_names$_kss_name "
		skip "$_kss_name" "$_ksg_why"
	done <<_KS_EXPECT_
$_ksc_expect
_KS_EXPECT_
	note "case $_ksc_name not run: $_ksg_why"
}

ks_case() {
	_ksc_name="" _ksc_before="" _ksc_run="" _ksc_work="" _ksc_until=sigint _ksc_limit=""
	_ksc_expect="" _ksc_bad="" _ksc_line="" _ksc_stopw=""
	_ksc_expect="" _ksc_bad="" _ksc_line=""
	_ksc_arch="" _ksc_min="" _ksc_max="" _ksc_requires="" _ksc_kfunc=""
	while IFS= read -r _ksc_part; do
		# A backslash at the end goes on on the next line.
		case $_ksc_part in
		*\\) _ksc_line="$_ksc_line${_ksc_part%\\} "; continue ;;
		esac
		_ksc_line=$_ksc_line$_ksc_part
		# Leading blanks, the keyword, the blanks after it.
		_ksc_line=${_ksc_line#"${_ksc_line%%[! 	]*}"}
		_ksc_key=${_ksc_line%%[ 	]*}
		_ksc_val=${_ksc_line#"$_ksc_key"}
		_ksc_val=${_ksc_val#"${_ksc_val%%[! 	]*}"}
		_ksc_line=""
		case $_ksc_key in
		'' | '#'*) ;;
		NAME) _ks_words _ksc_name "$_ksc_val" ;;
		BEFORE) _ksc_before=$_ksc_before$_ksc_val$_ks_nl ;;
		RUN) _ksc_run=$_ksc_val ;;
		WORKLOAD) _ksc_work=$_ksc_work$_ksc_val$_ks_nl ;;
		UNTIL) _ks_words _ksc_until "$_ksc_val" ;;
		TIMEOUT) _ks_words _ksc_limit "$_ksc_val" ;;
		STOP_WAIT) _ks_words _ksc_stopw "$_ksc_val" ;;
		EXPECT) _ksc_expect=$_ksc_expect$_ksc_val$_ks_nl ;;
		ARCH) _ksc_arch=$(printf "%s" "$_ksc_val" | tr "|" " ") ;;
		MIN_KERNEL) _ks_words _ksc_min "$_ksc_val" ;;
		MAX_KERNEL) _ks_words _ksc_max "$_ksc_val" ;;
		REQUIRES) _ksc_requires="$_ksc_requires $_ksc_val" ;;
		KFUNC) _ksc_kfunc=$_ksc_kfunc$_ksc_val$_ks_nl ;;
		*) _ksc_bad="$_ksc_bad unknown keyword '$_ksc_key';" ;;
		esac
	done
	[ -n "$_ksc_name" ] || _ksc_bad="$_ksc_bad no NAME;"
	[ -n "$_ksc_run" ] || _ksc_bad="$_ksc_bad no RUN;"
	[ -n "$_ksc_expect" ] || _ksc_bad="$_ksc_bad no EXPECT: a case that cannot fail;"
	case $_ksc_until in sigint | exit) ;; *) _ksc_bad="$_ksc_bad UNTIL is sigint or exit;" ;; esac
	[ -n "${tmp:-}" ] || _ksc_bad="$_ksc_bad \$tmp (the script's scratch directory) is not set;"
	if [ -n "$_ksc_bad" ]; then
		fail "${_ksc_name:-ks_case}" "case ${_ksc_name:-without a name}:$_ksc_bad"
		return 0
	fi
	# Named before the gate: after a skipped case they name its files,
	# which do not exist, not the case before's.
	OUT=$tmp/$_ksc_name.out
	ERR=$tmp/$_ksc_name.err
	_ks_gate
	if [ -n "$_ksc_bad" ]; then
		fail "$_ksc_name" "case $_ksc_name:$_ksc_bad"
		return 0
	fi
	if [ -n "$_ksg_why" ]; then
		_ks_skip_case
		return 0
	fi
	_ksc_wait=$START_WAIT _ksc_exit=$KS_WAIT
	[ -z "$_ksc_limit" ] || START_WAIT=$_ksc_limit KS_WAIT=$_ksc_limit
	eval "$_ksc_before"
	if eval "start \"\$OUT\" \"\$ERR\" $_ksc_run"; then
		eval "$_ksc_work"
		[ -z "$_ksc_stopw" ] || KS_WAIT=$_ksc_stopw
		if [ "$_ksc_until" = exit ]; then finish; else stop; fi
		START_WAIT=$_ksc_wait KS_WAIT=$_ksc_exit
		while IFS= read -r _ksc_line; do
			[ -z "$_ksc_line" ] || _ks_expect "$_ksc_name" "$_ksc_line"
		done <<_KS_EXPECT_
$_ksc_expect
_KS_EXPECT_
	else
		START_WAIT=$_ksc_wait KS_WAIT=$_ksc_exit
		# Exited before it said "tracing", or stalled: which, in the reason.
		_ksc_exited=
		kill -0 "$KPID" 2>/dev/null || _ksc_exited=1
		# Not started yet, or still waiting: none of it may outlive the case.
		kill -9 "$KPID" 2>/dev/null
		wait_exit 1
		if [ -n "$_ksc_exited" ]; then
			_ksc_why="exited before it attached (status $RC)"
		else
			_ksc_why="did not attach within ${_ksc_limit:-$START_WAIT} s of no progress"
		fi
		ks_after_run
		eval "$_ksc_work"
		fail "$_ksc_name" "$_ksc_why: $KCMDLINE
$(cat "$ERR")"
	fi
	return 0
}

# ---- ks_errors ----

KS_PARALLEL=${KS_PARALLEL:-4}

# ks_row_run TAG ARGS...: one row's ksnoop, bounded.  The live helpers
# replace it with one that logs sanitizer reports under TAG, and
# ks_row_sanitizer TAG with one that prints them (false: none).
ks_row_run() {
	shift
	timeout -k 2 "${KSNOOP_TIMEOUT:-30}" "${K:-ksnoop}" "$@"
}
ks_row_sanitizer() { return 1; }

# _ks_row_exec FILE ARGS...: a row in a background subshell; its
# environment words exported, its output FILE.out, .err and .rc.
_ks_row_exec() {
	_ksx_f=$1
	shift
	while [ $# -gt 0 ]; do
		case ${1%%=*} in '' | *[!A-Z0-9_]* | "$1") break ;; esac
		export "$1"
		shift
	done
	[ -z "$_kse_in" ] || cd "$_kse_in" || exit
	ks_row_run "$_kse_tag-${_ksx_f##*/}" "$@" </dev/null >"$_ksx_f.out" 2>"$_ksx_f.err"
	echo $? >"$_ksx_f.rc"
}

# _ks_golden_text TEXT: TEXT as a golden file holds it: on one line
# (newlines as \n), each value KS_GOLDEN_VARS names replaced by $NAME, a
# kernel address by 0xKADDR.
_ks_golden_text() {
	_ksg_text=$(printf '%s\n' "$1" | awk 'NR > 1 { printf "\\n" } { printf "%s", $0 }')
	for _ksg_var in ${KS_GOLDEN_VARS:-tmp}; do
		eval "_ksg_val=\${$_ksg_var:-}"
		[ -n "$_ksg_val" ] || continue
		_ksg_text=$(printf '%s\n' "$_ksg_text" | _KSG_F=$_ksg_val _KSG_T="\$$_ksg_var" awk '
			{ f = ENVIRON["_KSG_F"]; o = ""
			  while ((i = index($0, f)) > 0) { o = o substr($0, 1, i - 1) ENVIRON["_KSG_T"]; $0 = substr($0, i + length(f)) }
			  print o $0 }')
	done
	printf '%s\n' "$_ksg_text" | sed -E 's/0xffff[0-9a-f]{12}/0xKADDR/g'
}

# _ks_row_line FILE: the row's one line, as the golden file holds it; why
# not (status 1).
_ks_row_line() {
	_ksl_main=$1.err _ksl_other=$1.out
	[ "$_kse_json" = 0 ] || { _ksl_main=$1.out _ksl_other=$1.err; }
	_ksl_n=$(tr -cd '\n' <"$_ksl_main" | wc -c)
	if [ "$_ksl_n" -ne 1 ] || [ "$(wc -c <"$_ksl_main")" -le 1 ]; then
		printf 'expected exactly one line on %s, got %s newline(s):\n%s' \
			"${_ksl_main##*.}" "$_ksl_n" "$(head -20 "$_ksl_main")"
		return 1
	fi
	if [ -s "$_ksl_other" ]; then
		printf 'output on %s besides the error:\n%s' "${_ksl_other##*.}" "$(head -5 "$_ksl_other")"
		return 1
	fi
	if [ "$_kse_json" = 1 ] && ! jq -e 'select(.type == "error") | .error | strings' "$_ksl_main" >/dev/null 2>&1; then
		printf 'not a {"type":"error","error":STRING} object:\n%s' "$(cat "$_ksl_main")"
		return 1
	fi
	_ks_golden_text "$(cat "$_ksl_main")"
}

# _ks_golden_want NAME: GOLDEN's "STATUS MESSAGE" for NAME; false if none.
_ks_golden_want() { ks_golden_line "$_kse_golden" "$1"; }

# _ks_golden_judge WANT STATUS LINE: true when STATUS and LINE are WANT
# ("STATUS MESSAGE" or "STATUS ~ERE").
_ks_golden_judge() {
	[ "${1%% *}" = "$2" ] || return 1
	case ${1#* } in
	"~"*) has_line "^(${1#* ~})\$" "$3" ;;
	*) [ "${1#* }" = "$3" ] ;;
	esac
}

# _ks_row_update NAME: the row's golden line from this run (the old one
# while the run printed no single line, or a ~ line that still matches).
_ks_row_update() {
	_ksu_rc=$(cat "$ROWS_DIR/$1.rc")
	_ksu_old=$(_ks_golden_want "$1")
	if ! _ksu_line=$(_ks_row_line "$ROWS_DIR/$1"); then
		[ -z "$_ksu_old" ] || printf '%s %s\n' "$1" "$_ksu_old"
	elif [ -n "$_ksu_old" ] && _ks_golden_judge "$_ksu_rc ${_ksu_old#* }" "$_ksu_rc" "$_ksu_line"; then
		printf '%s %s %s\n' "$1" "$_ksu_rc" "${_ksu_old#* }"
	else
		printf '%s %s %s\n' "$1" "$_ksu_rc" "$_ksu_line"
	fi
}

# _ks_row_judge NAME ARGS: the row's two results.
_ks_row_judge() {
	_ksj_f=$ROWS_DIR/$1 _ksj_cmd="ksnoop $2"
	_ksj_rc=$(cat "$_ksj_f.rc")
	if ! _ksj_want=$(_ks_golden_want "$1"); then
		fail "${1}_status" "$_ksj_cmd: no line in $_kse_golden (KS_GOLDEN_UPDATE=1 writes it); exit $_ksj_rc"
		fail "$1" "$_ksj_cmd: no line in $_kse_golden; printed:
$(head -5 "$_ksj_f.err")$(head -5 "$_ksj_f.out")"
		return 0
	fi
	if [ "${_ksj_want%% *}" = "$_ksj_rc" ]; then
		pass "${1}_status"
	else
		fail "${1}_status" "$_ksj_cmd: exit $_ksj_rc, expected ${_ksj_want%% *}
$(head -5 "$_ksj_f.err")$(head -5 "$_ksj_f.out")"
	fi
	if _ksj_rep=$(ks_row_sanitizer "$_kse_tag-$1") || grep -Eq 'Sanitizer|runtime error:' "$_ksj_f.err"; then
		fail "$1" "sanitizer report (exit $_ksj_rc): $_ksj_cmd
$_ksj_rep$(head -30 "$_ksj_f.err")"
	elif [ "$_ksj_rc" = 124 ] || [ "$_ksj_rc" = 137 ]; then
		fail "$1" "no answer within ${KSNOOP_TIMEOUT:-30} s (killed): $_ksj_cmd"
	elif ! _ksj_line=$(_ks_row_line "$_ksj_f"); then
		fail "$1" "$_ksj_cmd: $_ksj_line"
	elif _ks_golden_judge "$_ksj_want" "$_ksj_rc" "$_ksj_line"; then
		pass "$1"
	else
		fail "$1" "$_ksj_cmd
expected: $_ksj_want
actual:   $_ksj_rc $_ksj_line"
	fi
}

ks_errors() {
	_kse_json=0 _kse_in=""
	while :; do
		case ${1:-} in
		--json) _kse_json=1; shift ;;
		--in) _kse_in=$2; shift 2 ;;
		*) break ;;
		esac
	done
	_kse_golden=$1 _kse_names="" _kse_pids="" _kse_n=0 _kse_row=""
	_kse_tag=rows$$-${_kse_golden##*/}
	ROWS_DIR=${tmp:?ks_errors: \$tmp is not set}/rows-${_kse_golden##*/}
	rm -rf "$ROWS_DIR" && mkdir -p "$ROWS_DIR"
	while IFS= read -r _kse_part; do
		case $_kse_part in *\\) _kse_row="$_kse_row${_kse_part%\\} "; continue ;; esac
		_kse_row=$_kse_row$_kse_part
		_kse_row=${_kse_row#"${_kse_row%%[! 	]*}"}
		case $_kse_row in '' | '#'*) _kse_row=""; continue ;; esac
		eval "set -- $_kse_row"
		_kse_row=""
		_kse_name=$1
		shift
		_kse_names="$_kse_names$_kse_name "
		printf '%s\n' "$*" >"$ROWS_DIR/$_kse_name.args"
		# At most KS_PARALLEL at a time: wait for the oldest.
		while [ "$_kse_n" -ge "$KS_PARALLEL" ]; do
			_kse_pids=${_kse_pids# }
			wait "${_kse_pids%% *}"
			_kse_pids=${_kse_pids#"${_kse_pids%% *}"}
			_kse_n=$((_kse_n - 1))
		done
		_ks_row_exec "$ROWS_DIR/$_kse_name" "$@" &
		_kse_pids="$_kse_pids $!"
		_kse_n=$((_kse_n + 1))
	done
	for _kse_pid in $_kse_pids; do wait "$_kse_pid"; done
	if [ "${KS_GOLDEN_UPDATE:-}" = 1 ]; then
		[ -f "$_kse_golden" ] || : >"$_kse_golden"
		for _kse_name in $_kse_names; do
			_ks_row_update "$_kse_name"
		done >"$ROWS_DIR/golden.new"
		cat "$ROWS_DIR/golden.new" >"$_kse_golden"
		note "wrote $_kse_golden"
	fi
	if [ ! -r "$_kse_golden" ]; then
		fail "golden_used_${_kse_golden##*/}" "no golden file $_kse_golden (KS_GOLDEN_UPDATE=1 writes it)"
		return 0
	fi
	for _kse_name in $_kse_names; do
		_ks_row_judge "$_kse_name" "$(cat "$ROWS_DIR/$_kse_name.args")"
	done
	_kse_stale=$(while read -r _kse_name _kse_rest; do
		case " $_kse_names" in *" $_kse_name "*) ;; *) printf '%s %s\n' "$_kse_name" "$_kse_rest" ;; esac
	done <"$_kse_golden")
	if [ -z "$_kse_stale" ]; then
		pass "golden_used_${_kse_golden##*/}"
	else
		fail "golden_used_${_kse_golden##*/}" "lines of $_kse_golden that no row made:
$_kse_stale"
	fi
	return 0
}

# ks_golden_file GOLDEN FILE: print what GOLDEN holds (for an EXPECT eq
# against FILE); KS_GOLDEN_UPDATE=1 first copies FILE to GOLDEN.
ks_golden_file() {
	[ "${KS_GOLDEN_UPDATE:-}" != 1 ] || cp "$2" "$1"
	cat "$1" 2>/dev/null || echo "no golden file $1"
}

# ks_golden_line GOLDEN NAME [ACTUAL]: print the rest of GOLDEN's line
# NAME (false if none); KS_GOLDEN_UPDATE=1 with ACTUAL first makes that
# line NAME ACTUAL (ACTUAL as _ks_golden_text writes it).
ks_golden_line() {
	if [ "${KS_GOLDEN_UPDATE:-}" = 1 ] && [ $# -ge 3 ]; then
		_ksn_new="$2 $(_ks_golden_text "$3")"
		[ -f "$1" ] || : >"$1"
		_KSN_L=$_ksn_new awk -v n="$2" '$1 == n { if (!f) print ENVIRON["_KSN_L"]; f = 1; next }
			{ print } END { if (!f) print ENVIRON["_KSN_L"] }' "$1" >"$1.new" && mv "$1.new" "$1"
	fi
	awk -v n="$2" '$1 == n { sub(/^[^ ]+ ?/, ""); print; f = 1; exit } END { exit !f }' "$1" 2>/dev/null
}
