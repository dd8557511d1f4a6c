#!/bin/sh
# `ksnoop info` on Debian's kernels: vmlinux and module BTF.
. /tests/lib.sh

out=$(ksnoop info ip_send_skb 2>&1)
expect_eq ip_send_skb "int ip_send_skb(struct net *net, struct sk_buff *skb);" "$out"
# A function named alone is looked up by name in the kernel (BPF), not in kallsyms.
out=$(ksnoop -v info ip_send_skb 2>&1 >/dev/null)
expect_match kernel_lookup_by_name 'looked up by name in the kernel' "$out"
# do_sys_openat2 returns long to 6.12, int on 7.3 (BTF: "int do_sys_openat2").
out=$(ksnoop info do_sys_openat2 2>&1)
if kernel_in "" 6.12; then
	expect_eq do_sys_openat2 "long int do_sys_openat2(int dfd, const char *filename, struct open_how *how);" "$out"
elif kernel_in 7.3 ""; then
	expect_eq do_sys_openat2 "int do_sys_openat2(int dfd, const char *filename, struct open_how *how);" "$out"
else
	skip do_sys_openat2 "kernel $(uname -r): its return type is known for 6.12 and earlier (long) and 7.3 on (int)"
	note "do_sys_openat2 not checked: kernel $(uname -r) is between 6.12 and 7.3"
fi
out=$(ksnoop info iterate_fd 2>&1)
expect_eq func_ptr_param "int iterate_fd(struct files_struct *files, unsigned int n, int (*f)(const void *, struct file *, unsigned int), const void *p);" "$out"
out=$(ksnoop info tcp_sendmsg vfs_read 2>&1)
expect_eq several "int tcp_sendmsg(struct sock *sk, struct msghdr *msg, size_t size);
ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos);" "$out"

kmod_load dummy
check module_btf_present test -e /sys/kernel/btf/dummy
out=$(ksnoop -v info dummy_get_stats64 2>&1)
expect_match module_function_prototype '^void dummy_get_stats64\(struct net_device \*dev, struct rtnl_link_stats64 \*stats\);$' "$out"
expect_match module_named_in_verbose 'dummy_get_stats64: BTF from dummy' "$out"
out=$(ksnoop info dummy_xmit 2>&1)
expect_eq module_typedef_return "netdev_tx_t dummy_xmit(struct sk_buff *skb, struct net_device *dev);" "$out"
# With -j, one typed record a target, a module's named (issue #26).
out=$(ksnoop -j info dummy_xmit 2>&1)
expect_eq module_function_json "info func dummy_xmit dummy netdev_tx_t skb,dev true" \
	"$(printf '%s\n' "$out" | jq -r '"\(.type) \(.kind) \(.name) \(.module) \(.return) \([.params[].name] | join(",")) \(.traceable)"')"
n=$(ksnoop info 'dummy:dummy_*' 2>/dev/null | wc -l)
out=$(ksnoop -j info 'dummy:dummy_*' 2>&1)
expect_eq module_glob_json "$n $n" \
	"$(printf '%s\n' "$out" | wc -l) $(printf '%s\n' "$out" | jq -r 'select(.type == "info" and .module == "dummy") | .name' | wc -l)"
out=$(ksnoop -j info ip_send_skb 2>&1)
expect_eq vmlinux_function_json_module_null "null" "$(printf '%s\n' "$out" | jq -r .module)"

out=$(ksnoop info ip_send_skbb 2>&1); rc=$?
expect_eq unknown_status 2 "$rc"
expect_eq unknown_message "ksnoop: spec 'ip_send_skbb': unknown kernel function 'ip_send_skbb' (did you mean 'ip_send_skb'?)" "$out"
