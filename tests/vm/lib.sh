# Shell library for ksnoop VM test scripts: tests/vm/run puts it at
# /tests/lib.sh, next to /tests/report.sh (tests/lib/report.sh). A test
# script starts with
#
#     . /tests/lib.sh
#
# and reports named subtests; each becomes one result line on the host,
# "PASS vm/<script>/<subtest>" or "FAIL vm/<script>/<subtest>" followed by
# the reason. Works in busybox sh and bash, with or without set -eu: the
# helpers return 0 whether the subtest passed or not, so a script goes on
# after a failed subtest.
#
# From report.sh, shared with the live tests:
#   pass, fail, skip, check, check_fails, expect_eq, expect_match,
#   expect_no_match, count_is, note
# Here, for the VM:
#   kmod_path NAME                path of NAME.ko in the VM (for insmod)
#   kmod_load NAME                insmod NAME.ko unless already loaded
#   bpf_prog_count / bpf_link_count   how many BPF programs/links exist now
#   ksnoop_progs                  how many ksnoop programs are loaded now
#   tracefs_lines FILE            lines of /sys/kernel/tracing/FILE (0 if none)
#   vm_modes                      the attach modes for kernel functions this
#                                 kernel has (fentry kprobe); a missing one is a
#                                 SKIP with ksnoop's reason, once per script
# From cases.sh (tests/lib/cases.sh), shared with the live tests too:
#   ks_case                       a test case as data
#   start, stop, finish, wait_exit, wait_lines, read_held
#                                 ksnoop in the background
#   held_ids, left_ids, still_there, left_progs
#                                 the BPF objects one ksnoop held, and which
#                                 of them are left after it exited
#   record TYPE FILE... / events FILE...
#                                 the records of TYPE (events) in -j output,
#                                 one a line: stdout is one NDJSON stream of
#                                 events, notices and the summary
#
# Results go to fd 7 (the console, opened by /init) as protocol lines, and
# to $KSNOOP_VM_RESULTS so /init knows the script reported subtests.

. /tests/report.sh

kmod_path() {
	_ksvm_ko=$(find "/lib/modules/$(uname -r)" -name "$1.ko" 2>/dev/null | head -n 1)
	if [ -z "$_ksvm_ko" ]; then
		echo "kmod_path: module '$1' is not in the VM (tests/vm/run --module $1)" >&2
		return 1
	fi
	echo "$_ksvm_ko"
}

kmod_load() {
	grep -q "^$(echo "$1" | tr - _) " /proc/modules && return 0
	_ksvm_ko=$(kmod_path "$1") || return 1
	insmod "$_ksvm_ko"
}

bpf_prog_count() { bpftool -j prog list | jq length; }
bpf_link_count() { bpftool -j link list | jq length; }

ksnoop_progs() { bpftool prog show 2>/dev/null | grep -c 'name ksnoop_'; }
tracefs_lines() { cat /sys/kernel/tracing/"$1" 2>/dev/null | wc -l; }

# arm64's 6.1 has no BPF trampolines: ksnoop -v says "fentry no (...)"
# (cases.sh's probe, the one REQUIRES reads).
vm_modes() {
	_ks_feature fentry
	case $_ksf in
	no)
		[ -n "${_ksvm_fentry_skipped:-}" ] ||
			skip fentry_mode "$(uname -m): ${_ks_feat_line#ksnoop: }"
		_ksvm_fentry_skipped=1
		echo kprobe ;;
	*) echo fentry kprobe ;;
	esac
}

# qemu without KVM is slow: longer limits than the live tests' (a script
# may set its own after sourcing this file).
START_WAIT=${START_WAIT:-30}
KS_WAIT=${KS_WAIT:-20}
STOP_DELAY=${STOP_DELAY:-0.5}
. /tests/cases.sh

# kernel_in MIN MAX: whether uname -r is MIN (X.Y) or later and MAX or
# earlier (any X.Y.z); an empty bound is none.  For what a kernel's BTF
# says and a case cannot be (ksnoop info): each kernel's truth beside the
# others', the kernels between them a SKIP with a NOTE.
kernel_in() {
	[ -z "$1" ] || _ks_kernel_at_least "$1" || return 1
	[ -z "$2" ] || ! _ks_kernel_at_least "${2%%.*}.$((${2#*.} + 1))"
}

# vm_feature NAME: yes or no, as ksnoop -v's features line says of NAME
# (fentry, kprobe_multi, ...), for a case that expects each side.
vm_feature() {
	_ks_feature "$1"
	echo "$_ksf"
}
