#!/bin/sh
# vm-timeout: 600
# Pruning (ksnoop/attach/prune.c) of the programs of kernel functions, in
# each attach mode the kernel has: entry values with the return (a
# session program where the kernel has one: fsession 7.0 on,
# kprobe.session 6.10 on) and a tree's root and inner call; in the first
# mode the same return through the stash (KSNOOP_FEATURES).  Each: the same
# programs load, the kernel's translation of the pruned code is the whole
# code's but for conditional jumps (cases.sh's pruned_like), and -v says
# fewer instructions were handed over.
. /tests/lib.sh

tmp=$(mktemp -d)

for mode in $(vm_modes); do
	prune_pair "${mode}_return" --mode "$mode" 'do_sys_openat2(filename, return < 0)'
	prune_pair "${mode}_tree" --mode "$mode" --tree 'do_sys_openat2(return < 0)' 'path_openat(return)'
done
# The stash's pair where the return above took a session program (one
# mode is enough: the capture code is the same, the words differ).
mode=$(vm_modes | cut -d' ' -f1)
export KSNOOP_FEATURES=-fsession,-kprobe_session
prune_pair "${mode}_stash" --mode "$mode" 'do_sys_openat2(filename, return < 0)'
unset KSNOOP_FEATURES
