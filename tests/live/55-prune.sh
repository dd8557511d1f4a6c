#!/bin/bash
# Pruning (ksnoop/attach/prune.c): the code a plan leaves dead, taken out
# before the kernel sees it.  For each kind of program this kernel loads
# natively (a tracepoint's, one with a predicate, a system call's on both
# sides, raw_syscalls' for a glob, a user function's entry and return):
# the same programs load, the kernel's translation of the pruned code is
# the whole code's but for conditional jumps it could not drop itself
# (cases.sh's pruned_like), and -v says fewer instructions were handed
# over.  What the programs then do is what every other test checks.
. "$(dirname "$0")/helpers.bash"
usdt_paths
UP=${KSNOOP_UPROG_DIR:-$(dirname "$U")/uprog}
needs_root prune
if ! command -v bpftool >/dev/null; then
	fail prune_bpftool "no bpftool to read the kernel's translation"
	exit 0
fi
scratch_dir
chmod 755 "$tmp"
cp "$UP/app-gcc-O0" "$tmp/app"

prune_pair tp tp:sched:sched_process_exec
prune_pair tp_predicate 'tp:sched:sched_switch(prev->pid == 1, next->comm)'
prune_pair sys 'sys:getppid(return)'
prune_pair sys_glob 'sys:open*(filename, return < 0)'
prune_pair ufunc "u:$tmp/app:uf_add(a, return)"
