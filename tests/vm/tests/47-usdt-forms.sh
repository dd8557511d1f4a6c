#!/bin/sh
# USDT locations libbpf 1.5 refuses, attached by ksnoop itself: a global
# from the instruction pointer and a scaled index (tests/usdt/usdt_forms.c,
# probes ripsym and indexed; scaled2: r10, r11 and a scale of 2); an
# argument at an unmapped address reads as unreadable, never 0 (probe
# unmapped).  6.1 has no uprobe.multi: a uprobe per call site; 6.12 one
# uprobe.multi link.  The values are the same on both.
# Needs usdt_forms in the VM.
. /tests/lib.sh

tmp=$(mktemp -d)
F=$(command -v usdt_forms)
# The values of each call, one line of comma-separated values per call.
vals() {
	events "$OUT" | jq -r --arg f "ksnoop_forms:$1" 'select(.func == $f) | [.values[]] | map(tostring) | join(",")' |
		tr '\n' ' ' | sed 's/ $//'
}
# The notes are written by hand in x86-64's syntax.
ks_case <<'CASE'
NAME     own
ARCH     x86_64
RUN      -j usdt "$F:ksnoop_forms:ripsym" "$F:ksnoop_forms:indexed"
WORKLOAD usdt_forms fire 3
EXPECT   own_said: stderr 'ksnoop_forms:ripsym: 1 call site\(s\) attached by ksnoop'
EXPECT   own_rip_values: eq "1000,2000,3000,0,-7 1001,2001,3001,1,-7 1002,2002,3002,2,-7" "$(vals ripsym)"
EXPECT   own_index_values: eq "102,100,0,-1 103,101,1,-2 104,102,2,-3" "$(vals indexed)"
CASE
# r10, r11 and a scale of 2; a symbol where nothing is mapped: unreadable, not 0.
ks_case <<'CASE'
NAME     scaled2
ARCH     x86_64
RUN      -j usdt "$F:ksnoop_forms:scaled2" "$F:ksnoop_forms:unmapped"
WORKLOAD usdt_forms fire 2
WORKLOAD usdt_forms cold >/dev/null
EXPECT   scaled2_values: eq "-300,0,401 401,1,-502" "$(vals scaled2)"
EXPECT   unmapped_unreadable: eq "could not read memory" \
         "$(events "$OUT" | jq -r 'select(.func == "ksnoop_forms:unmapped") | .values.arg0.error')"
CASE
rm -rf "$tmp"
