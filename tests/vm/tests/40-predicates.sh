#!/bin/sh
# Predicates, evaluated in BPF at the value's width and signedness, and
# stash-on-entry / report-on-return, in both attach modes.
. /tests/lib.sh

tmp=$(mktemp -d)
echo data > "$tmp/exists"

for mode in fentry kprobe; do
	T=$mode
	# --- failing opens: exactly the k that fail, with the entry value ---
	if start "$tmp/o1" "$tmp/e1" --mode $mode -c cat 'do_sys_openat2(filename, return < 0)'; then
		for i in 1 2 3 4 5 6 7 8 9 10; do
			cat "$tmp/exists" >/dev/null
			[ $((i % 3)) = 0 ] && cat "$tmp/missing-$i" >/dev/null 2>&1
		done
		stop
		count_is ${T}_failing_opens_only 3 '<- do_sys_openat2 \([0-9.]+ [nmu]?s\)$' "$tmp/o1" "$tmp/e1"
		count_is ${T}_failing_return 3 '^    return = -2$' "$tmp/o1" "$tmp/e1"
		count_is ${T}_entry_value_shown 3 "^    filename = \"$tmp/missing-[369]\"$" "$tmp/o1" "$tmp/e1"
		count_is ${T}_no_entry_events 0 '-> do_sys_openat2$' "$tmp/o1" "$tmp/e1"
	else
		fail ${T}_attach_failing_opens "$(cat "$tmp/e1")"
	fi

	# --- member-chain predicate on loopback ping packets ---
	if start "$tmp/o2" "$tmp/e2" --mode $mode 'ip_output(skb->len == 84, skb->sk->__sk_common.skc_family)'; then
		ping -c 2 127.0.0.1 >/dev/null 2>&1
		stop
		count_is ${T}_chain_pred_matches 4 '^    skb->len = 84$' "$tmp/o2" "$tmp/e2"
		count_is ${T}_chain_pred_values 4 '^    skb->sk->__sk_common.skc_family = 2$' "$tmp/o2" "$tmp/e2"
	else
		fail ${T}_attach_chain_pred "$(cat "$tmp/e2")"
	fi
	if start "$tmp/o3" "$tmp/e3" --mode $mode 'ip_output(skb->len == 85)'; then
		ping -c 2 127.0.0.1 >/dev/null 2>&1
		stop
		count_is ${T}_chain_pred_filters 0 'ip_output' "$tmp/o3" "$tmp/e3"
	else
		fail ${T}_attach_chain_pred2 "$(cat "$tmp/e3")"
	fi

	# --- negative constant on an int argument (AT_FDCWD is -100) ---
	if start "$tmp/o4" "$tmp/e4" --mode $mode -c cat 'do_sys_openat2(dfd == -100, filename)'; then
		cat "$tmp/exists" >/dev/null
		cat "$tmp/exists" >/dev/null
		stop
		count_is ${T}_negative_const 2 "^    filename = \"$tmp/exists\"$" "$tmp/o4" "$tmp/e4"
		count_is ${T}_negative_const_value 2 '^    dfd = -100$' "$tmp/o4" "$tmp/e4"
	else
		fail ${T}_attach_negative "$(cat "$tmp/e4")"
	fi
	if start "$tmp/o5" "$tmp/e5" --mode $mode -c cat 'do_sys_openat2(dfd == -101)'; then
		cat "$tmp/exists" >/dev/null
		stop
		count_is ${T}_negative_const_filters 0 'do_sys_openat2' "$tmp/o5" "$tmp/e5"
	else
		fail ${T}_attach_negative2 "$(cat "$tmp/e5")"
	fi

	# --- stress: concurrent tasks, nested traced functions, return predicate;
	#     every reported entry value must belong to its own call ---
	if start "$tmp/o6" "$tmp/e6" --mode $mode -j \
		'do_sys_openat2(filename, return < 0)' 'do_filp_open(pathname->name, return >= 0xfffffffffffff001)'; then
		workers=""
		for w in 1 2 3 4; do
			sh -c '
				i=0
				while [ $i -lt 25 ]; do
					cat "$1/exists" >/dev/null
					cat "$1/miss-$$-$i" >/dev/null 2>&1
					i=$((i + 1))
				done' worker "$tmp" &
			workers="$workers $!"
		done
		for p in $workers; do wait "$p" 2>/dev/null; done
		stop
		n_open=$(jq -r 'select(.func=="do_sys_openat2") | .values.filename' "$tmp/o6" | grep -c .)
		expect_eq ${T}_stress_all_failures 100 "$n_open"
		[ "$n_open" = 100 ] || note "${T} stress stderr: $(tr "\n" " " < "$tmp/e6")"
		bad=$(jq -r 'select(.func=="do_sys_openat2") |
			select((.values.return != -2) or
			       ((.values.filename | test("/miss-" + (.pid | tostring) + "-[0-9]+$")) | not)) |
			"\(.pid) \(.values.filename) \(.values.return)"' "$tmp/o6" | head -5)
		expect_eq ${T}_stress_pairs_match "" "$bad"
		n_filp=$(jq -r 'select(.func=="do_filp_open") | .values["pathname->name"]' "$tmp/o6" | grep -c "/miss-")
		expect_eq ${T}_stress_nested_function 100 "$n_filp"
		expect_eq ${T}_stress_summary '200 0' "$(record summary "$tmp/o6" | jq -r '"\(.printed) \(.lost)"')"
	else
		fail ${T}_attach_stress "$(cat "$tmp/e6")"
	fi
done
rm -rf "$tmp"
