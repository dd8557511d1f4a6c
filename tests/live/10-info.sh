#!/bin/bash
# `ksnoop info` against this machine's kernel BTF (no privileges needed).
. "$(dirname "$0")/helpers.bash"

scratch_dir

# The expected prototypes come from this kernel's BTF (bpftool's raw dump,
# spelled by proto.jq), not from a copy of one kernel's headers.
if ! bpftool -j btf dump file /sys/kernel/btf/vmlinux format raw >"$tmp/btf.json"; then
	fail bpftool_btf_dump "bpftool cannot dump /sys/kernel/btf/vmlinux"
fi
btf_proto() {
	jq -r --arg names "$*" -f "$(dirname "$0")/proto.jq" "$tmp/btf.json" | awk '!seen[$0]++'
}
for f in ip_send_skb do_sys_openat2 iterate_fd schedule; do
	want=$(btf_proto "$f")
	[ -n "$want" ] || fail "$f" "not in this kernel's BTF"
	expect_eq "$f" "$want" "$(ks info "$f" 2>&1)"
done
expect_match func_ptr_param_spelled '\(\*f\)\(' "$(ks info iterate_fd 2>&1)"
expect_match no_args_is_void '\(void\);$' "$(ks info schedule 2>&1)"

out=$(ks info ip_send_skb tcp_sendmsg 2>&1)
expect_eq several "2" "$(printf '%s\n' "$out" | grep -c ';$')"

# Every prototype must be valid C against the kernel's own types: compile a
# sample that covers function pointers, arrays, enums, const and typedefs.
bpftool btf dump file /sys/kernel/btf/vmlinux format c > "$tmp/vmlinux.h" 2>/dev/null
funcs=$(awk '$2 == "FUNC" { gsub("\x27", "", $3); print $3 }' \
	<(bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null) |
	grep -E '^(ip_|tcp_|vfs_|do_sys|kernel_|sock_|security_|__register|iterate_|bpf_prog_|sched_|wake_up|mutex_)' |
	head -400)
{
	echo '#include "vmlinux.h"'
	# shellcheck disable=SC2086
	ks info $funcs 2>/dev/null | grep ';'
} > "$tmp/protos.c"
n=$(grep -c ';' "$tmp/protos.c")
if [ "$n" -lt 300 ]; then
	fail valid_c "only $n prototypes printed"
elif err=$(clang -fsyntax-only -Wno-everything -Werror=implicit-int "$tmp/protos.c" 2>&1); then
	pass valid_c_${n}_prototypes
else
	fail valid_c "$(printf '%s\n' "$err" | head -20)"
fi

# Not traceable: in BTF, absent from kallsyms.  Find one by comparing.
grep -E ' [tT] ' /proc/kallsyms | awk '{print $3}' | sort -u > "$tmp/ksyms"
printf '%s\n' $(awk '$2 == "FUNC" { gsub("\x27", "", $3); print $3 }' \
	<(bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null)) | sort -u > "$tmp/btf"
inlined=$(comm -23 "$tmp/btf" "$tmp/ksyms" | head -1)
if ! grep -q . "$tmp/btf"; then
	# No list of BTF functions is no proof that they are all in kallsyms.
	fail not_in_kallsyms "no functions from 'bpftool btf dump file /sys/kernel/btf/vmlinux' (is bpftool installed?)"
elif ! grep -q . "$tmp/ksyms"; then
	fail not_in_kallsyms "no text symbols read from /proc/kallsyms"
elif [ -n "$inlined" ]; then
	out=$(ks info "$inlined" 2>&1); rc=$?
	expect_eq not_in_kallsyms_status 0 "$rc"
	expect_match not_in_kallsyms_says_why "cannot be traced: .*not in kallsyms" "$out"
else
	skip not_in_kallsyms "every BTF function is in kallsyms here"
fi

# -v names where the BTF came from.
out=$(ks -v info ip_send_skb 2>&1 >/dev/null)
expect_match verbose_names_btf_source "ip_send_skb: BTF from vmlinux" "$out"

# Functions named alone are looked up by name in the kernel (a BPF syscall
# program) by root, instead of reading all of /proc/kallsyms; as nobody,
# who may not load one, kallsyms is read, with the same answers.
if [ "$(id -u)" = 0 ]; then
	expect_match verbose_kernel_lookup "looked up by name in the kernel" "$out"
	cp "$K" "$tmp/ksnoop"
	chmod -R a+rX "$tmp"
	out=$(cd "$tmp" && timeout -k 2 20 "${NOBODY[@]}" "$tmp/ksnoop" -v info ip_send_skb \
		${inlined:+"$inlined"} 2>&1)
	expect_no_match nobody_reads_kallsyms "looked up by name" "$out"
	expect_match nobody_prototype '^int ip_send_skb\(struct net \*net, struct sk_buff \*skb\);$' "$out"
	if [ -n "$inlined" ]; then
		expect_match nobody_not_in_kallsyms "cannot be traced: .*not in kallsyms" "$out"
	fi
	# The same prototypes both ways, for 1,000 functions spread over the
	# kernel's (__init ones, inlined ones not in kallsyms, and the rest);
	# a name of several static functions is a line each, which says where
	# (root: its name found in kallsyms' text) or that kallsyms hides it
	# (nobody: kallsyms read whole).
	many=$(ks info '*' 2>/dev/null | awk 'NR % 37 == 0' | head -1000 |
		sed -E 's/^[^(]*[ *]([A-Za-z_0-9]+)\(.*/\1/')
	# shellcheck disable=SC2086
	by_root=$(ks info $many 2>&1)
	# shellcheck disable=SC2086
	by_nobody=$(cd "$tmp" && timeout -k 2 60 "${NOBODY[@]}" "$tmp/ksnoop" info $many 2>&1)
	one_each() {
		printf '%s\n' "$1" |
			sed -E 's/@([0-9a-f]+|\? \(address hidden\))( \[[^]]*\])?, [0-9]+ of [0-9]+/@ADDRESS/' | uniq
	}
	expect_eq many_lookups_count 1000 "$(one_each "$by_root" | grep -c ';')"
	expect_eq many_lookups_same_as_kallsyms "$(one_each "$by_nobody")" "$(one_each "$by_root")"
	expect_eq many_lookups_same_functions "$(printf '%s\n' "$by_nobody" | grep -c ';')" \
		"$(printf '%s\n' "$by_root" | grep -c ';')"
	# Up to 64 names are searched for by the kernel's kallsyms iterator
	# (bpf/ksymscan.bpf.c's iter/ksym program), not in kallsyms' text:
	# the same answers both ways (KSNOOP_KSYM_ITER=0: the text) for 60 of
	# the 1,000, the inlined one among them, and -v says which way.
	# shellcheck disable=SC2086
	sixty=$(printf '%s\n' $many | head -59)
	# shellcheck disable=SC2086
	by_iter=$(ks -v info $sixty ${inlined:+"$inlined"} 2>&1)
	# shellcheck disable=SC2086
	by_text=$(KSNOOP_KSYM_ITER=0 ks -v info $sixty ${inlined:+"$inlined"} 2>&1)
	expect_match namesakes_by_iter "namesakes searched for by the kernel's iterator \\(iter/ksym\\)" "$by_iter"
	expect_match namesakes_by_text "namesakes searched for in /proc/kallsyms' text \\(KSNOOP_KSYM_ITER=0\\)" "$by_text"
	expect_eq namesakes_iter_same_as_text "$(printf '%s\n' "$by_text" | grep -v 'searched for')" \
		"$(printf '%s\n' "$by_iter" | grep -v 'searched for')"
	expect_eq namesakes_iter_count 60 "$(printf '%s\n' "$by_iter" | grep -c ';')"
	expect_no_match namesakes_iter_whole "searched for in /proc/kallsyms' text, not by" "$by_iter"
	# Names alike in their first 16 bytes (families such as
	# __bpf_trace_xfs_*, whose hits once overflowed the walk) and in their
	# first 32 (the iterator's whole key, KSNOOP_KSYM_PREFIX: one key for
	# both names): the walk still finds each one's own, not a read of the
	# text, with the text's answers.
	all_names=$(ks info '*' 2>/dev/null | sed -E 's/^[^(]*[ *]([A-Za-z_0-9]+)\(.*/\1/')
	for plen in 16 32; do
		shared=$(printf '%s\n' "$all_names" | awk -v p="$plen" 'length($0) > p {
			k = substr($0, 1, p); if (k in seen && !(k in done)) {
			print seen[k]; print $0; done[k] = 1; if (++n == 3) exit } seen[k] = $0 }')
		if [ "$(printf '%s\n' "$shared" | grep -c .)" != 6 ]; then
			skip "shared${plen}" "no three pairs of function names alike in their first $plen bytes"
			continue
		fi
		# shellcheck disable=SC2086
		by_iter=$(ks -v info $shared 2>&1)
		# shellcheck disable=SC2086
		by_text=$(KSNOOP_KSYM_ITER=0 ks -v info $shared 2>&1)
		expect_no_match "shared${plen}_by_iter" "searched for in /proc/kallsyms' text, not by" "$by_iter"
		expect_eq "shared${plen}_iter_same_as_text" \
			"$(printf '%s\n' "$by_text" | grep -v 'searched for')" \
			"$(printf '%s\n' "$by_iter" | grep -v 'searched for')"
		expect_eq "shared${plen}_iter_count" 6 "$(printf '%s\n' "$by_iter" | grep -c ';')"
	done
else
	skip kernel_lookup "needs root"
fi

# Tracepoints: the arguments of the kernel's __bpf_trace_NAME, without its
# first (the tracepoint's private data).
tp_want=$(btf_proto __bpf_trace_sched_process_exec |
	sed -E 's/^void __bpf_trace_([a-z_0-9]+)\([^,]*, /tp:\1(/')
expect_match tp_prototype_derived '^tp:sched_process_exec\(.+\);$' "$tp_want"
out=$(ks info tp:sched_process_exec 2>&1)
expect_eq tp_prototype "$tp_want" "$out"
out=$(ks info 'tp:sched:sched_process_exec' 2>&1)
expect_eq tp_category_prefix "$tp_want" "$out"
out=$(ks info 'tp:sched_process_*' 2>&1)
expect_match tp_glob_exec '^tp:sched_process_exec\(' "$out"
expect_match tp_glob_fork '^tp:sched_process_fork\(' "$out"
expect_no_match tp_glob_only_matches '^tp:sched_switch' "$out"

# info "struct NAME": the members with offsets and sizes, the same as
# pahole reads them from this kernel's BTF (it once said "unexpected 's'
# after the spec").  Compared as "name offset[:bit] size" lines, each
# member pahole lists with its offset (anonymous unions' members too).
members_of() {
	awk '/^[ \t]*}/ { next }
	match($0, /;[ \t]*\/\*[ \t]*[0-9]+(:[ \t]*[0-9]+)?[ \t]+[0-9]+[ \t]*\*\/$/) {
		decl = substr($0, 1, RSTART - 1); c = substr($0, RSTART + 1)
		gsub(/\/\*|\*\//, "", c); gsub(/:[ \t]*/, ":", c); split(c, f, " ")
		gsub(/\[[0-9]*\]/, "", decl); sub(/:[0-9]+$/, "", decl)
		sub(/[ \t]*__attribute__.*$/, "", decl)
		if (match(decl, /\(\*[ \t]*[A-Za-z0-9_]+\)/))
			decl = substr(decl, RSTART + 2, RLENGTH - 3)
		sub(/.*[^A-Za-z0-9_]/, "", decl)
		print decl, f[1], f[2]
	}'
}
if command -v pahole >/dev/null; then
	for type in sock_common sock sk_buff task_struct net_device; do
		want=$(pahole -C "$type" /sys/kernel/btf/vmlinux 2>/dev/null | members_of)
		got=$(ks info "struct $type" 2>&1)
		expect_match "info_struct_${type}_head" "^struct $type \{	/\* size [0-9]+ \*/$" "$(head -1 <<<"$got")"
		if [ -z "$want" ]; then
			fail "info_struct_${type}_pahole" "pahole lists no members of struct $type"
		else
			expect_eq "info_struct_${type}_as_pahole" "$want" "$(members_of <<<"$got")"
		fi
	done
else
	fail info_struct_pahole "pahole (dwarves) is not installed"
fi
error_is info_struct_unknown 2 "^ksnoop: info: no struct 'ksnoop_no_such_zz' in vmlinux BTF$" \
	"$(ks info 'struct ksnoop_no_such_zz' >/dev/null 2>&1; echo $?)" "$(ks info 'struct ksnoop_no_such_zz' 2>&1)"
