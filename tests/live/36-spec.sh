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

# exec_probe: one exec of our program, and the time to see its event.
exec_probe() { "$tmp/$probe"; sleep 0.3; }

# task_struct's in_execve:1 is set while exec runs (bit 3 of its byte).
for c in 1 0; do
	ks_case <<-'CASE'
		NAME     bitfield_pred_eq_$c
		RUN      --duration 10 -c "$probe" "tp:sched_process_exec(p->in_execve == $c, p->in_execve)"
		WORKLOAD exec_probe
		EXPECT   count $((c == 1 ? 1 : 0)) '^    p->in_execve = 1$'
	CASE
done

# A predicate and a value on the same thing: one JSON key, once.
ks_case <<'CASE'
NAME     one_key
RUN      --duration 10 -j -c "$probe" "tp:sched_process_exec(p->in_execve == 1, p->in_execve, old_pid)"
WORKLOAD exec_probe
EXPECT   one_key_per_value: eq '["old_pid","p->in_execve"]' "$(events "$OUT" | jq -c '.values | keys')"
EXPECT   one_key_raw_text: eq 1 "$(grep -o '"p->in_execve"' "$OUT" | wc -l)"
CASE

# Masks: "VALUE & MASK" alone is true when any bit of MASK is set; before
# an operator, the masked value is compared.  Odd pids, then pids whose
# low two bits are 2.
# exec_some MASK: execs until at least eight have run, one pid matched
# MASK and one did not (pids are the machine's: another run's forks
# between ours can skip every pid that matches), at most 64; want: the
# pids of those that match.
exec_some() {
	local n=0 miss=""
	want=""
	while [ $n -lt 64 ] && { [ $n -lt 8 ] || [ -z "$want" ] || [ -z "$miss" ]; }; do
		"$tmp/$probe" &
		p=$!
		wait "$p"
		case $1 in
		"& 0x1") [ $((p & 1)) = 1 ] ;;
		*) [ $((p & 3)) = 2 ] ;;
		esac && want="$want$p " || miss=$p
		n=$((n + 1))
	done
	sleep 0.3
	# Pids that all match, or none, would prove nothing.
	[ -n "$want" ] && [ -n "$miss" ] || fail "${T}_workload" "$n pids, not one that matched $1 and one that did not"
}
for m in "& 0x1" "& 0x3 == 2"; do
	T=mask_$(printf '%s' "$m" | tr -c 'a-z0-9' '_')
	ks_case <<-'CASE'
		NAME     $T
		RUN      --duration 10 -j -c "$probe" "tp:sched_process_exec(old_pid $m, old_pid)"
		WORKLOAD exec_some "$m"
		EXPECT   eq "$want" "$(events "$OUT" | jq -r '.values.old_pid' | tr '\n' ' ')"
	CASE
done

# Function pointers name their function: a new task's restart_block.fn
# is do_no_restart_syscall; the address printed must be kallsyms' one.
want=$(awk '$3 == "do_no_restart_syscall" { print $1; exit }' /proc/kallsyms | sed 's/^0*//')
ks_case <<'CASE'
NAME     fn_pointer_symbol
RUN      --duration 10 -c "$probe" "tp:sched_process_exec(p->restart_block.fn)"
WORKLOAD exec_probe
EXPECT   count 1 "^    p->restart_block.fn = 0x$want <do_no_restart_syscall>\$"
CASE
ks_case <<'CASE'
NAME     fn_pointer_symbol_json
RUN      --duration 10 -j -c "$probe" "tp:sched_process_exec(p->restart_block.fn)"
WORKLOAD exec_probe
EXPECT   eq "do_no_restart_syscall 0x$want" "$(events "$OUT" | jq -r '.values["p->restart_block.fn"] | "\(.sym) \(.addr)"')"
CASE
