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

for mode in fentry kprobe; do
	T=$mode
	# --- *pos at entry is 0 (fexit alone would see 6, where read left it) ---
	if start "$tmp/o1" "$tmp/e1" --mode $mode -c dd 'vfs_read(*pos, return > 0)'; then
		dd if="$tmp/six" of=/dev/null bs=64 2>/dev/null
		stop
		count_is ${T}_pos_at_entry 1 '^    \*pos = 0$' "$tmp/o1" "$tmp/e1"
		count_is ${T}_pos_return 1 '^    return = 6$' "$tmp/o1" "$tmp/e1"
		count_is ${T}_pos_one_event 1 '<- vfs_read \([0-9.]+ [nmu]?s\)$' "$tmp/o1" "$tmp/e1"
	else
		fail ${T}_attach_pos "$(cat "$tmp/e1")"
	fi

	# --- a call selected (by comm) at entry is reported at its own return,
	#     even though the task renamed itself in between; a call filtered
	#     out at entry is not ---
	if start "$tmp/o2" "$tmp/e2" --mode $mode -j -c usdt_edge \
		'__x64_sys_prctl(regs->si, return == 0)'; then
		addrs=$(usdt_edge rename)
		stop
		got=$(events "$tmp/o2" | jq -r '.values["regs->si"]' | tr '\n' ' ')
		want=""
		for a in $addrs; do want="$want$((a)) "; done
		expect_eq ${T}_selected_at_entry "$want" "$got"
	else
		fail ${T}_attach_rename "$(cat "$tmp/e2")"
	fi

	# --- a user string on a page nobody touched yet: read at the return ---
	if start "$tmp/o3" "$tmp/e3" --mode $mode -c usdt_edge 'do_sys_openat2(filename)'; then
		usdt_edge open "$tmp/pathfile" >/dev/null
		stop
		count_is ${T}_untouched_read_at_return 1 \
			"^    filename = \"$tmp/six\" /\\* read at return \\*/\$" "$tmp/o3" "$tmp/e3"
		count_is ${T}_untouched_no_fault 0 'could not read' "$tmp/o3" "$tmp/e3"
	else
		fail ${T}_attach_untouched "$(cat "$tmp/e3")"
	fi
	# The same with a return predicate (the stash path), and in JSON.
	if start "$tmp/o4" "$tmp/e4" --mode $mode -j -c usdt_edge 'do_sys_openat2(filename, return >= 0)'; then
		usdt_edge open "$tmp/pathfile" >/dev/null
		stop
		got=$(jq -c --arg f "$tmp/six" 'select(.values.filename == $f) |
			[.values.filename, .read_at_return]' "$tmp/o4")
		expect_eq ${T}_untouched_stash_json "[\"$tmp/six\",[\"filename\"]]" "$got"
	else
		fail ${T}_attach_untouched_stash "$(cat "$tmp/e4")"
	fi
	# A page the program did touch is read at entry, with no remark.
	if start "$tmp/o5" "$tmp/e5" --mode $mode -c cat 'do_sys_openat2(filename)'; then
		cat "$tmp/six" >/dev/null
		stop
		count_is ${T}_touched_read_at_entry 1 "^    filename = \"$tmp/six\"\$" "$tmp/o5" "$tmp/e5"
	else
		fail ${T}_attach_touched "$(cat "$tmp/e5")"
	fi
done
rm -rf "$tmp"
