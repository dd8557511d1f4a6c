#!/bin/sh
# Static functions of one name in several files (modalias_show: the PCI
# bus's, the platform bus's, ...): `info` lists each with its kallsyms
# address, tracing the name takes each (a kprobe at its address) and
# names it in every event, NAME@ADDRESS takes that one alone, and fentry
# (which attaches by name) takes the one the kernel picks, the first.
. /tests/lib.sh

tmp=$(mktemp -d)
F=modalias_show
addrs=$(awk -v f=$F '$3 == f && NF == 3 { print $1 }' /proc/kallsyms)
n=$(printf '%s\n' $addrs | grep -c .)
first=$(printf '%s\n' $addrs | head -1)
check several_in_kallsyms test "$n" -ge 2

# --- info: one prototype per function, its address and place among them ---
out=$(ksnoop info $F 2>&1)
expect_eq info_one_line_each "$n" "$(printf '%s\n' "$out" | grep -c .)"
expect_eq info_addresses_are_kallsyms "$(printf '%s\n' $addrs | sort)" \
	"$(printf '%s\n' "$out" | sed -n "s|.*/\* $F@\([0-9a-f]*\), [0-9]* of $n \*/\$|\1|p" | sort)"
expect_match info_prototype "^ssize_t $F\(struct device \*dev, struct device_attribute \*attr, char \*buf\); /\* $F@$first, 1 of $n \*/\$" "$out"
out=$(ksnoop -j info $F 2>&1)
expect_eq info_json_addresses "$(printf '0x%s\n' $addrs | sort)" "$(printf '%s\n' "$out" | jq -r .addr | sort)"
expect_eq info_json_count "$n" "$(printf '%s\n' "$out" | jq -r .instances | sort -u)"
out=$(ksnoop -v info $F 2>&1 >/dev/null)
expect_match info_verbose_says_how_many "^ksnoop: $F: $n functions of this name in kallsyms" "$out"
out=$(ksnoop info "$F@$first" 2>&1)
expect_match info_one_by_address "/\* $F@$first, 1 of $n \*/\$" "$out"
expect_eq info_one_by_address_lines 1 "$(printf '%s\n' "$out" | grep -c .)"
out=$(ksnoop info "$F@1234" 2>&1); rc=$?
expect_eq bad_address_status 2 "$rc"
expect_match bad_address_lists "no function '$F' at 0x1234; kallsyms has these: 0x$first, " "$out"

# Two buses' files: read by cat (PCI) and by head (platform).
pci=$(ls /sys/bus/pci/devices/*/modalias 2>/dev/null | head -1)
plat=$(ls /sys/bus/platform/devices/*/modalias 2>/dev/null | head -1)
check pci_modalias test -r "$pci"
check platform_modalias test -r "$plat"
read_both() {
	for _i in 1 2; do cat "$pci" >/dev/null; head -c 200 "$plat" >/dev/null; done
	sleep 1
}
# The one address of COMM's events of KIND in FILE.
addr_of() { events "$1" | jq -r --arg c "$2" --arg k "$3" 'select(.comm == $c and .kind == $k) | .addr' | sort -u; }

# --- every function of the name: each event names its own ---
start "$tmp/out" "$tmp/err" -j "$F"
read_both
stop
a_pci=$(addr_of "$tmp/out" cat entry)
a_plat=$(addr_of "$tmp/out" head entry)
expect_match all_attached_as_kprobes "$F: $n functions of this name .*, $n traced: kprobes" "$(cat "$tmp/err")"
expect_eq pci_reads_one_function 1 "$(printf '%s\n' "$a_pci" | grep -c .)"
expect_eq platform_reads_one_function 1 "$(printf '%s\n' "$a_plat" | grep -c .)"
check two_buses_two_functions test -n "$a_pci" -a -n "$a_plat" -a "$a_pci" != "$a_plat"
expect_match pci_address_in_kallsyms "^${a_pci#0x} t $F\$" "$(cat /proc/kallsyms)"
expect_match platform_address_in_kallsyms "^${a_plat#0x} t $F\$" "$(cat /proc/kallsyms)"
expect_eq pci_calls 2 "$(events "$tmp/out" | jq -r 'select(.comm == "cat" and .kind == "entry") | .func' | grep -c "^$F\$")"
expect_eq return_same_function "$a_pci" "$(addr_of "$tmp/out" cat return)"
expect_eq return_is_file_length "$(wc -c <"$pci")" \
	"$(events "$tmp/out" | jq -r 'select(.comm == "cat" and .kind == "return") | .values.return' | sort -u)"

# Text: the header names the function as NAME@ADDRESS picks it.
start "$tmp/out" "$tmp/err" -c cat "$F"
read_both
stop
expect_eq text_header_names_it 2 "$(grep -c " -> $F@${a_pci#0x}\$" "$tmp/out")"

# --count: a row per function, named as NAME@ADDRESS picks it.
start "$tmp/out" "$tmp/err" -j --count -c cat "$F"
read_both
stop
expect_eq count_row_names_it "$F@${a_pci#0x} 2" \
	"$(record count "$tmp/out" | jq -r '"\(.func) \(.count)"')"

# --- NAME@ADDRESS: that function alone ---
start "$tmp/out" "$tmp/err" -j "$F@${a_plat#0x}"
read_both
stop
expect_eq by_address_only_it "$a_plat" "$(events "$tmp/out" | jq -r .addr | sort -u | grep .)"
expect_eq by_address_platform_calls 2 "$(events "$tmp/out" | jq -r 'select(.comm == "head" and .kind == "entry") | .comm' | grep -c .)"
expect_eq by_address_not_pci 0 "$(events "$tmp/out" | jq -r 'select(.comm == "cat") | .comm' | grep -c .)"

# --- fentry attaches by name: the kernel takes the first in kallsyms ---
start "$tmp/out" "$tmp/err" -j --mode fentry "$F"
read_both
stop
expect_match fentry_says_which "$F: function in vmlinux at 0x$first \(fentry: the one the kernel picks by name\)" "$(cat "$tmp/err")"
expect_match fentry_others_left_out "$F: $F@[0-9a-f]* \(2 of $n of this name\) left out: fentry attaches by name" "$(cat "$tmp/err")"
expect_eq fentry_warns_once "$((n - 1)) of the $n functions named '$F' left out" \
	"$(record warning "$tmp/out" | jq -r .warning | grep -o "[0-9]* of the [0-9]* functions named '$F' left out")"
got=$(events "$tmp/out" | jq -r .addr | sort -u)
if [ "0x$first" = "$a_pci" ] || [ "0x$first" = "$a_plat" ]; then
	expect_eq fentry_events_from_first "0x$first" "$got"
else
	# Neither bus's: fentry sees neither read.
	expect_eq fentry_no_events_from_others "" "$got"
fi

# --- a glob attaches a match by name: -v says it is several functions' ---
start "$tmp/out" "$tmp/err" 'modalias_sho?'
stop
expect_match glob_says_namesakes "modalias_sho\?: $F is the name of $n functions; a glob attaches it by name" "$(cat "$tmp/err")"

# --- BTF with several prototypes for a name (6.1's m_show: two FUNC
# records) cannot say which function has which: each says so, and
# tracing the name fails; with one (6.12's), each has it.
G=m_show
nf=$(bpftool btf dump file /sys/kernel/btf/vmlinux | grep -c "FUNC '$G'")
ni=$(awk -v f=$G '$3 == f && NF == 3' /proc/kallsyms | grep -c .)
out=$(ksnoop info $G 2>&1)
expect_eq protos_one_line_each "$ni" "$(printf '%s\n' "$out" | grep -c .)"
unknown=$(printf '%s\n' "$out" | grep -c "; cannot be traced: vmlinux BTF has several prototypes for '$G' and does not say which is this one's \*/\$")
if [ "$nf" -gt 1 ]; then
	expect_eq protos_unknown_each "$ni" "$unknown"
	out=$(ksnoop $G 2>&1); rc=$?
	expect_eq protos_unknown_status 2 "$rc"
	expect_match protos_unknown_error "spec '$G': none of the $ni functions named '$G' can be traced \($G@[0-9a-f]*: vmlinux BTF has several prototypes" "$out"
else
	expect_eq protos_known_each 0 "$unknown"
	expect_match protos_known "^int $G\(struct seq_file \*m, void \*[a-z]+\); /\* $G@" "$out"
fi
rm -rf "$tmp"
