#!/bin/sh
# Entry values are what they were at entry, in both attach modes; a call is
# paired with its own return; user memory not paged in at entry is read
# again at the return, and the output says so.  Needs usdt_edge
# (tests/usdt/usdt_edge.c) in the VM.
. /tests/lib.sh

tmp=$(mktemp -d)
printf 'hello\n' > "$tmp/six"
# A path, NUL-terminated, that usdt_edge maps and never touches itself.
printf '%s\0' "$tmp/six" > "$tmp/pathfile"
printf 'hello-untouched' > "$tmp/untouched"
# decimal NUMBER...: each in decimal, followed by a space.
decimal() { for a in "$@"; do printf '%s ' "$((a))"; done; }

for mode in fentry kprobe; do
	T=$mode
	# --- *pos at entry is 0 (fexit alone would see 6, where read left it) ---
	ks_case <<-'CASE'
		NAME     ${T}_pos
		RUN      --mode $mode -c dd 'vfs_read(*pos, return > 0)'
		WORKLOAD dd if="$tmp/six" of=/dev/null bs=64 2>/dev/null
		EXPECT   ${T}_pos_at_entry: count 1 '^    \*pos = 0$'
		EXPECT   ${T}_pos_return: count 1 '^    return = 6$'
		EXPECT   ${T}_pos_one_event: count 1 '<- vfs_read \([0-9.]+ [nmu]?s\)$'
	CASE

	# --- a call selected (by comm) at entry is reported at its own return,
	#     even though the task renamed itself in between; a call filtered
	#     out at entry is not ---
	ks_case <<-'CASE'
		NAME     ${T}_selected_at_entry
		RUN      --mode $mode -j -c usdt_edge '__x64_sys_prctl(regs->si, return == 0)'
		WORKLOAD addrs=$(usdt_edge rename)
		EXPECT   eq "$(decimal $addrs)" "$(events "$OUT" | jq -r '.values["regs->si"]' | tr '\n' ' ')"
	CASE

	# --- a user string on a page nobody touched yet: read at the return ---
	ks_case <<-'CASE'
		NAME     ${T}_untouched
		RUN      --mode $mode -c usdt_edge 'do_sys_openat2(filename)'
		WORKLOAD usdt_edge open "$tmp/pathfile" >/dev/null
		EXPECT   ${T}_untouched_read_at_return: \
		         count 1 "^    filename = \"$tmp/six\" /\\* read at return \\*/\$"
		EXPECT   ${T}_untouched_no_fault: count 0 'could not read'
	CASE
	# The same with a return predicate (the stash path), and in JSON.
	ks_case <<-'CASE'
		NAME     ${T}_untouched_stash_json
		RUN      --mode $mode -j -c usdt_edge 'do_sys_openat2(filename, return >= 0)'
		WORKLOAD usdt_edge open "$tmp/pathfile" >/dev/null
		EXPECT   eq "[\"$tmp/six\",[\"filename\"]]" \
		         "$(jq -c --arg f "$tmp/six" 'select(.values.filename == $f) | [.values.filename, .read_at_return]' "$OUT")"
	CASE
	# --- buf:str(count): as many bytes as count says, none after (the
	#     class name has 0xff bytes after it); a page not touched at entry
	#     is read at the return, as many bytes again ---
	ks_case <<-'CASE'
		NAME     ${T}_str_len
		RUN      --mode $mode -c usdt_edge 'vfs_write(buf:str(count))'
		WORKLOAD usdt_edge write "$tmp/untouched" > "$tmp/written"
		EXPECT   ${T}_str_len_exact: count 1 '^    buf:str\(count\) = "java/lang/Object"$'
		EXPECT   ${T}_str_len_read_at_return: \
		         count 1 '^    buf:str\(count\) = "hello" /\* read at return \*/$'
		EXPECT   ${T}_str_len_nothing_after: count 0 '\\x'
	CASE
	# A page the program did touch is read at entry, with no remark.
	ks_case <<-'CASE'
		NAME     ${T}_touched_read_at_entry
		RUN      --mode $mode -c cat 'do_sys_openat2(filename)'
		WORKLOAD cat "$tmp/six" >/dev/null
		EXPECT   count 1 "^    filename = \"$tmp/six\"\$"
	CASE
done
rm -rf "$tmp"
