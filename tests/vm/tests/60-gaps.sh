#!/bin/sh
# What only a kernel that traces functions can show: arguments beyond the
# sixth (kprobes read them from the stack), the stash filling up, and the
# kernel-function specs that 50-bad-input accepts (natively they stop at
# "cannot trace kernel functions", so here they are loaded and attached).
# vmprog (tests/vm/vmprog.c) makes the calls.
. /tests/lib.sh

tmp=$(mktemp -d)
btf=$tmp/btf.json
bpftool -j btf dump file /sys/kernel/btf/vmlinux format raw >"$btf" ||
	fail btf_dump "bpftool cannot dump the kernel's BTF"

# params FUNC: the parameter names of FUNC, from BTF.
params() {
	jq -r --arg f "$1" '.types as $t | [$t[] | select(.kind == "FUNC" and .name == $f)][0].type_id as $p
		| $t[$p - 1].params[].name' "$btf" | tr '\n' ' '
}

# --- kprobe arguments 7 and 8, from the stack: do_mmap ---
# do_mmap(file, addr, len, prot, flags, pgoff, populate, uf) on 6.1 (6.12
# adds vm_flags before pgoff): populate and uf are beyond the sixth word
# either way.  populate points into the caller's frame and uf is the
# caller's empty list head, whose ->next points at itself.
p=$(params do_mmap)
expect_eq do_mmap_populate_uf_on_stack "populate uf" "$(echo "$p" |
	awk '{ for (i = 7; i <= NF; i++) if ($i == "populate" || $i == "uf") printf "%s%s", n++ ? " " : "", $i }')"
if start "$tmp/o1" "$tmp/e1" --mode kprobe -n 1 -c vmprog \
	'do_mmap(len == 53248, uf != NULL, populate)'; then
	vmprog mmap 13
	finish
	expect_eq stack_args_status 0 "$RC"
	count_is stack_args_event 1 '-> do_mmap$' "$tmp/o1" "$tmp/e1"
	count_is stack_args_register_arg 1 '^    len = 53248$' "$tmp/o1"
	count_is stack_args_7th_kernel_pointer 1 '^    populate = 0xff[0-9a-f]{14}$' "$tmp/o1"
	uf=$(sed -n 's/^    uf = \(0x[0-9a-f]*\) -> (struct list_head){$/\1/p' "$tmp/o1")
	next=$(sed -n 's/^        \.next = \(0x[0-9a-f]*\),$/\1/p' "$tmp/o1")
	expect_match stack_args_8th_kernel_pointer '^0xff[0-9a-f]{14}$' "$uf"
	expect_eq stack_args_8th_is_empty_list_head "$uf" "$next"
else
	fail stack_args_attach "$(cat "$tmp/e1")"
fi

# --- the stash fills: __x64_sys_exit never returns, so with a predicate
# on its return every thread's entry stays stashed; past
# KSNOOP_STASH_ENTRIES (8192) entries, each call is counted as dropped ---
if start "$tmp/o2" "$tmp/e2" --mode kprobe -c vmprog '__x64_sys_exit(regs, return == 0)'; then
	vmprog threads 8300
	stop
	expect_eq stash_full_status 0 "$RC"
	drops=$(sed -n 's/.*, \([0-9]*\) calls not followed (stash full)$/\1/p' "$tmp/e2")
	if [ -n "$drops" ] && [ "$drops" -ge 100 ] && [ "$drops" -le 8300 ]; then
		pass stash_full_counted
	else
		fail stash_full_counted "expected about 108 calls not followed: $(tail -3 "$tmp/e2")"
	fi
	count_is stash_full_no_events 0 '__x64_sys_exit' "$tmp/o2" "$tmp/e2"
else
	fail stash_full_attach "$(cat "$tmp/e2")"
fi

# --- 50-bad-input's "accepted" kernel-function specs load and attach ---
s31=sssssssssssssssssssssssssssssss
for mode in fentry kprobe; do
	n=0
	for spec in "do_sys_openat2(filename == \"$s31\")" \
		"do_sys_openat2(dfd == 2147483647, dfd == -2147483648)" \
		"ip_send_skb(skb->mac_len == 65535)" \
		"security_file_ioctl(arg == PERF_CONTEXT_KERNEL)"; do
		n=$((n + 1))
		if start "$tmp/a$n" "$tmp/ae$n" --mode $mode --duration 1 "$spec"; then
			finish
			expect_eq "accepted_${mode}_$n" 0 "$RC"
		else
			fail "accepted_${mode}_$n" "$spec: $(cat "$tmp/ae$n")"
		fi
	done
done
