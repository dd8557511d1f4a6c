#!/bin/bash
# The spec language, live: bitfield predicates (in BPF, at the bitfield's
# own width), one key per value.  Tracepoints, as root.
. "$(dirname "$0")/helpers.bash"

needs_root spec
scratch_dir
# A program of our own, named after this run (another run of this script
# at the same time execs its own), so other execs do not count.
probe=kspec$$
cp /bin/true "$tmp/$probe"

# task_struct's in_execve:1 is set while exec runs (bit 3 of its byte).
for c in 1 0; do
	if start "$tmp/o$c" "$tmp/e$c" --duration 10 -c "$probe" \
		"tp:sched_process_exec(p->in_execve == $c, p->in_execve)"; then
		"$tmp/$probe"
		sleep 0.3
		stop
		want=$((c == 1 ? 1 : 0))
		count_is bitfield_pred_eq_$c $want '^    p->in_execve = 1$' "$tmp/o$c" "$tmp/e$c"
	else
		fail bitfield_pred_attach_$c "$(cat "$tmp/e$c")"
	fi
done

# A predicate and a value on the same thing: one JSON key, once.
if start "$tmp/o2" "$tmp/e2" --duration 10 -j -c "$probe" \
	"tp:sched_process_exec(p->in_execve == 1, p->in_execve, old_pid)"; then
	"$tmp/$probe"
	sleep 0.3
	stop
	expect_eq one_key_per_value '["old_pid","p->in_execve"]' \
		"$(events "$tmp/o2" | jq -c '.values | keys')"
	expect_eq one_key_raw_text 1 "$(grep -o '"p->in_execve"' "$tmp/o2" | wc -l)"
else
	fail one_key_attach "$(cat "$tmp/e2")"
fi

# Masks: "VALUE & MASK" alone is true when any bit of MASK is set; before
# an operator, the masked value is compared.  Odd pids, then pids whose
# low two bits are 2.
for m in "& 0x1" "& 0x3 == 2"; do
	T=mask_$(printf '%s' "$m" | tr -c 'a-z0-9' '_')
	if start "$tmp/om" "$tmp/em" --duration 10 -j -c "$probe" \
		"tp:sched_process_exec(old_pid $m, old_pid)"; then
		want=""
		for i in 1 2 3 4 5 6 7 8; do
			"$tmp/$probe" &
			p=$!
			wait "$p"
			case $m in
			"& 0x1") [ $((p & 1)) = 1 ] && want="$want$p " ;;
			*) [ $((p & 3)) = 2 ] && want="$want$p " ;;
			esac
		done
		sleep 0.3
		stop
		# Eight pids in a row without one that matches would prove nothing.
		[ -n "$want" ] || fail "${T}_workload" "no pid of eight matched $m"
		expect_eq "$T" "$want" "$(events "$tmp/om" | jq -r '.values.old_pid' | tr '\n' ' ')"
	else
		fail "${T}_attach" "$(cat "$tmp/em")"
	fi
done

# Function pointers name their function: a new task's restart_block.fn
# is do_no_restart_syscall; the address printed must be kallsyms' one.
want=$(awk '$3 == "do_no_restart_syscall" { print $1; exit }' /proc/kallsyms | sed 's/^0*//')
if start "$tmp/of" "$tmp/ef" --duration 10 -c "$probe" "tp:sched_process_exec(p->restart_block.fn)"; then
	"$tmp/$probe"
	sleep 0.3
	stop
	count_is fn_pointer_symbol 1 "^    p->restart_block.fn = 0x$want <do_no_restart_syscall>\$" "$tmp/of" "$tmp/ef"
else
	fail fn_pointer_attach "$(cat "$tmp/ef")"
fi
if start "$tmp/oj" "$tmp/ej" --duration 10 -j -c "$probe" "tp:sched_process_exec(p->restart_block.fn)"; then
	"$tmp/$probe"
	sleep 0.3
	stop
	expect_eq fn_pointer_symbol_json "do_no_restart_syscall 0x$want" \
		"$(events "$tmp/oj" | jq -r '.values["p->restart_block.fn"] | "\(.sym) \(.addr)"')"
else
	fail fn_pointer_json_attach "$(cat "$tmp/ej")"
fi
