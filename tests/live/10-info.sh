#!/bin/bash
# `ksnoop info` against this machine's kernel BTF (no privileges needed).
. "$(dirname "$0")/../vm/lib.sh"
K=${KSNOOP:?KSNOOP must name the ksnoop binary}

out=$($K info ip_send_skb 2>&1)
expect_eq ip_send_skb "int ip_send_skb(struct net *net, struct sk_buff *skb);" "$out"

out=$($K info do_sys_openat2 2>&1)
expect_eq const_char_ptr "int do_sys_openat2(int dfd, const char *filename, struct open_how *how);" "$out"

out=$($K info iterate_fd 2>&1)
expect_eq func_ptr_param "int iterate_fd(struct files_struct *files, unsigned int n, int (*f)(const void *, struct file *, unsigned int), const void *p);" "$out"

out=$($K info schedule 2>&1)
expect_eq no_args_is_void "void schedule(void);" "$out"

out=$($K info ip_send_skb tcp_sendmsg 2>&1)
expect_eq several "2" "$(printf '%s\n' "$out" | grep -c ';$')"

# Every prototype must be valid C against the kernel's own types: compile a
# sample that covers function pointers, arrays, enums, const and typedefs.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bpftool btf dump file /sys/kernel/btf/vmlinux format c > "$tmp/vmlinux.h" 2>/dev/null
funcs=$(awk '$2 == "FUNC" { gsub("\x27", "", $3); print $3 }' \
	<(bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null) |
	grep -E '^(ip_|tcp_|vfs_|do_sys|kernel_|sock_|security_|__register|iterate_|bpf_prog_|sched_|wake_up|mutex_)' |
	head -400)
{
	echo '#include "vmlinux.h"'
	# shellcheck disable=SC2086
	$K info $funcs 2>/dev/null | grep ';'
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
if [ -n "$inlined" ]; then
	out=$($K info "$inlined" 2>&1); rc=$?
	expect_eq not_in_kallsyms_status 0 "$rc"
	expect_match not_in_kallsyms_says_why "cannot be traced: .*not in kallsyms" "$out"
else
	skip not_in_kallsyms "every BTF function is in kallsyms here"
fi

# -v names where the BTF came from.
out=$($K -v info ip_send_skb 2>&1 >/dev/null)
expect_match verbose_names_btf_source "ip_send_skb: BTF from vmlinux" "$out"

# Tracepoints.
out=$($K info tp:sched_process_exec 2>&1)
expect_eq tp_prototype "tp:sched_process_exec(struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm);" "$out"
out=$($K info 'tp:sched:sched_process_exec' 2>&1)
expect_eq tp_category_prefix "tp:sched_process_exec(struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm);" "$out"
out=$($K info 'tp:sched_process_*' 2>&1)
expect_match tp_glob_exec '^tp:sched_process_exec\(' "$out"
expect_match tp_glob_fork '^tp:sched_process_fork\(' "$out"
expect_no_match tp_glob_only_matches '^tp:sched_switch' "$out"
