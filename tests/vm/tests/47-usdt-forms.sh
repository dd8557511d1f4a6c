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
if start "$tmp/o1" "$tmp/e1" -j usdt "$F:ksnoop_forms:ripsym" "$F:ksnoop_forms:indexed"; then
	usdt_forms fire 3
	stop
	expect_match own_said 'ksnoop_forms:ripsym: 1 call site\(s\) attached by ksnoop' "$(cat "$tmp/e1")"
	expect_eq own_rip_values "1000,2000,3000,0,-7 1001,2001,3001,1,-7 1002,2002,3002,2,-7" \
		"$(events "$tmp/o1" | jq -r 'select(.func == "ksnoop_forms:ripsym") | [.values[]] | map(tostring) | join(",")' | tr '\n' ' ' | sed 's/ $//')"
	expect_eq own_index_values "102,100,0,-1 103,101,1,-2 104,102,2,-3" \
		"$(events "$tmp/o1" | jq -r 'select(.func == "ksnoop_forms:indexed") | [.values[]] | map(tostring) | join(",")' | tr '\n' ' ' | sed 's/ $//')"
else
	fail own_attach "$(cat "$tmp/e1")"
fi
# r10, r11 and a scale of 2; a symbol where nothing is mapped: unreadable, not 0.
if start "$tmp/o2" "$tmp/e2" -j usdt "$F:ksnoop_forms:scaled2" "$F:ksnoop_forms:unmapped"; then
	usdt_forms fire 2
	usdt_forms cold >/dev/null
	stop
	expect_eq scaled2_values "-300,0,401 401,1,-502" \
		"$(events "$tmp/o2" | jq -r 'select(.func == "ksnoop_forms:scaled2") | [.values[]] | map(tostring) | join(",")' | tr '\n' ' ' | sed 's/ $//')"
	expect_eq unmapped_unreadable "could not read memory" \
		"$(events "$tmp/o2" | jq -r 'select(.func == "ksnoop_forms:unmapped") | .values.arg0.error')"
else
	fail scaled2_attach "$(cat "$tmp/e2")"
fi
rm -rf "$tmp"
