#!/bin/sh
# --tree with a user function as ROOT and kernel functions as INNER: what
# the kernel did inside one call of a program, in both attach modes.
# tests/uprog/app.c's `app tree` (gcc -O0, in the VM as /usr/bin/app)
# calls tree_request(1), which succeeds, then tree_request(2), which fails
# (-ENOENT); each calls uf_add, uf_depth, prctl(PR_SET_NAME) (the kernel's
# __set_task_comm, under the syscall's __x64_sys_prctl on x86-64) and
# uf_lookup, which returns -ENOENT.  Only the failing call's tree prints:
# the kernel's calls nest under the user function's session at their
# depth, beside the program's own functions.
. /tests/lib.sh

if ! command -v app >/dev/null; then
	fail ufunc_tree_program "app is not in the VM (--bin build/uprog/app-gcc-O0:app)"
	exit 0
fi
A=$(command -v app)
tmp=$(mktemp -d)
for mode in fentry kprobe; do
	T=$mode
	ks_case <<-'CASE'
		NAME     ${T}_ufunc_tree
		KFUNC    COMM __set_task_comm
		RUN      --mode $mode --tree "u:$A:tree_request(x, return < 0)" "u:$A:uf_lookup(key, return)" "$COMM(buf:str)"
		WORKLOAD echo go | app tree >/dev/null
		EXPECT   ${T}_one_tree: count 1 ' <- tree_request \('
		EXPECT   ${T}_root_failed: count 1 '^    return = -2 \(ENOENT\)$'
		EXPECT   ${T}_kernel_inner: count 1 "^  → $COMM \\([0-9.]+ [mun]?s\\)"
		EXPECT   ${T}_kernel_value: count 1 '^        buf:str = "kstree-fail"$'
		EXPECT   ${T}_kernel_then_user: eq "$COMM uf_lookup" "$(sed -n 's/^  → \([a-z_]*\) .*/\1/p' "$OUT" | tr '\n' ' ' | sed 's/ $//')"
		EXPECT   ${T}_first_error: count 1 '^  → uf_lookup \([0-9.]+ [mun]?s\) = -2 \(ENOENT\)  \[first error\]$'
		EXPECT   ${T}_no_success: count 0 'kstree-ok'
	CASE
done
