#!/bin/sh
# Static functions of one name in several files (modalias_show: the PCI
# bus's, the platform bus's, ...): `info` lists each with its kallsyms
# address, tracing the name takes each (a kprobe at its address) and
# names it in every event, NAME@ADDRESS takes that one alone, fentry
# (which attaches by name) takes the one the kernel picks, the first, and
# a glob matching the name takes each as a name given alone does.
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
ks_case <<'CASE'
NAME     all
RUN      -j "$F"
WORKLOAD read_both
EXPECT   all_attached_as_kprobes: stderr "$F: $n functions of this name .*, $n traced: kprobes"
EXPECT   pci_reads_one_function: eq 1 "$(addr_of "$OUT" cat entry | grep -c .)"
EXPECT   platform_reads_one_function: eq 1 "$(addr_of "$OUT" head entry | grep -c .)"
EXPECT   two_buses_two_functions: eq yes \
         "$(a=$(addr_of "$OUT" cat entry) b=$(addr_of "$OUT" head entry); [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && echo yes || echo "'$a' '$b'")"
EXPECT   pci_address_in_kallsyms: text "^$(addr_of "$OUT" cat entry | sed 's/^0x//') t $F\$" "$(cat /proc/kallsyms)"
EXPECT   platform_address_in_kallsyms: text "^$(addr_of "$OUT" head entry | sed 's/^0x//') t $F\$" "$(cat /proc/kallsyms)"
EXPECT   pci_calls: eq 2 "$(events "$OUT" | jq -r 'select(.comm == "cat" and .kind == "entry") | .func' | grep -c "^$F\$")"
EXPECT   return_same_function: eq "$(addr_of "$OUT" cat entry)" "$(addr_of "$OUT" cat return)"
EXPECT   return_is_file_length: eq "$(wc -c <"$pci")" \
         "$(events "$OUT" | jq -r 'select(.comm == "cat" and .kind == "return") | .values.return' | sort -u)"
CASE
a_pci=$(addr_of "$OUT" cat entry)
a_plat=$(addr_of "$OUT" head entry)

# Text: the header names the function as NAME@ADDRESS picks it.
ks_case <<'CASE'
NAME     text_header_names_it
RUN      -c cat "$F"
WORKLOAD read_both
EXPECT   count 2 " -> $F@${a_pci#0x}\$"
CASE

# --count: a row per function, named as NAME@ADDRESS picks it.
ks_case <<'CASE'
NAME     count_row_names_it
RUN      -j --count -c cat "$F"
WORKLOAD read_both
EXPECT   eq "$F@${a_pci#0x} 2" "$(record count "$OUT" | jq -r '"\(.func) \(.count)"')"
CASE

# --- NAME@ADDRESS: that function alone ---
ks_case <<'CASE'
NAME     by_address
RUN      -j "$F@${a_plat#0x}"
WORKLOAD read_both
EXPECT   by_address_only_it: eq "$a_plat" "$(events "$OUT" | jq -r .addr | sort -u | grep .)"
EXPECT   by_address_platform_calls: eq 2 "$(events "$OUT" | jq -r 'select(.comm == "head" and .kind == "entry") | .comm' | grep -c .)"
EXPECT   by_address_not_pci: eq 0 "$(events "$OUT" | jq -r 'select(.comm == "cat") | .comm' | grep -c .)"
CASE

# --- fentry attaches by name: the kernel takes the first in kallsyms ---
# Neither bus's first: fentry sees neither read.
if [ "0x$first" = "$a_pci" ] || [ "0x$first" = "$a_plat" ]; then
	from=fentry_events_from_first want=0x$first
else
	from=fentry_no_events_from_others want=
fi
ks_case <<'CASE'
NAME     fentry
REQUIRES fentry
RUN      -j --mode fentry "$F"
WORKLOAD read_both
EXPECT   fentry_says_which: stderr "$F: function in vmlinux at 0x$first \(fentry: the one the kernel picks by name\)"
EXPECT   fentry_others_left_out: stderr "$F: $F@[0-9a-f]* \(2 of $n of this name\) left out: fentry attaches by name"
EXPECT   fentry_warns_once: eq "$((n - 1)) of the $n functions named '$F' left out" \
         "$(record warning "$OUT" | jq -r .warning | grep -o "[0-9]* of the [0-9]* functions named '$F' left out")"
EXPECT   $from: eq "$want" "$(events "$OUT" | jq -r .addr | sort -u)"
CASE

# --- a glob's match whose name is several functions': each is a match
# of its own, a kprobe at its address (the kernel refuses a kprobe on the
# name, EADDRNOTAVAIL, and fentry takes the one it picks) ---
ks_case <<'CASE'
NAME     glob
RUN      -j 'modalias_sho?'
WORKLOAD read_both
EXPECT   glob_says_namesakes: stderr "modalias_sho\\?: $F is the name of $n functions; each is a match"
EXPECT   glob_traces_each: stderr "modalias_sho\\?: $n function\\(s\\) match, $n traced, 0 left out"
EXPECT   glob_pci_function: eq "$a_pci" "$(addr_of "$OUT" cat entry)"
EXPECT   glob_platform_function: eq "$a_plat" "$(addr_of "$OUT" head entry)"
EXPECT   glob_pci_calls: eq 2 "$(events "$OUT" | jq -r 'select(.comm == "cat" and .kind == "entry") | .func' | grep -c "^$F\$")"
EXPECT   glob_return_is_file_length: eq "$(wc -c <"$pci")" \
         "$(events "$OUT" | jq -r 'select(.comm == "cat" and .kind == "return") | .values.return' | sort -u)"
CASE

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
