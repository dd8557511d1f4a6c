#!/bin/sh
# USDT arguments where the compiler put them, on any architecture
# (tests/usdt/usdt_sites.c): registers, the stack frame, constants (gcc 12
# on aarch64: "-4@x0", "-4@[sp, 28]", "-4@-7"; on x86-64 "%edi",
# "-4(%rbp)", "$-7"), every probe with a semaphore, which ksnoop's attach
# sets: the program fires its guarded probe only then.  Needs usdt_sites
# in the VM.
. /tests/lib.sh

tmp=$(mktemp -d)
S=$(command -v usdt_sites)
if [ -z "$S" ]; then
	fail sites_program "usdt_sites is not in the VM (--bin build/usdt/usdt_sites)"
	exit 0
fi

# What the notes say, as info lists them: one location of each kind.
info=$(ksnoop info usdt "$S" 2>&1)
case $(uname -m) in
aarch64)
	expect_match sites_info_stack '^ksnoop_sites +stack +0x[0-9a-f]+ 0x[0-9a-f]+ arg0:s32@\[sp, [0-9]+\] arg1:s64@\[sp, [0-9]+\]$' "$info"
	expect_match sites_info_reg '^ksnoop_sites +reg +0x[0-9a-f]+ 0x[0-9a-f]+ arg0:s32@x0 arg1:s64@x1$' "$info"
	expect_match sites_info_konst '^ksnoop_sites +konst +0x[0-9a-f]+ 0x[0-9a-f]+ arg0:s32@-7 arg1:s64@1099511627776$' "$info" ;;
*)
	expect_match sites_info_stack '^ksnoop_sites +stack +0x[0-9a-f]+ 0x[0-9a-f]+ arg0:s32@-?[0-9]+\(%r[bs]p\) arg1:s64@-?[0-9]+\(%r[bs]p\)$' "$info"
	expect_match sites_info_reg '^ksnoop_sites +reg +0x[0-9a-f]+ 0x[0-9a-f]+ arg0:s32@%edi arg1:s64@%rsi$' "$info"
	expect_match sites_info_konst '^ksnoop_sites +konst +0x[0-9a-f]+ 0x[0-9a-f]+ arg0:s32@\$-7 arg1:s64@\$1099511627776$' "$info" ;;
esac

# The values, read from each kind of location, and the semaphores set.
values() { events "$OUT" | jq -r --arg f "ksnoop_sites:$1" 'select(.func == $f) | [.values[]] | map(tostring) | join(",")'; }
ks_case <<'CASE'
NAME     sites
RUN      -j usdt "$S:ksnoop_sites:*"
WORKLOAD usdt_sites 7 >"$tmp/said"
EXPECT   sites_reg: eq "7,7000" "$(values reg)"
EXPECT   sites_stack: eq "7,7000" "$(values stack)"
EXPECT   sites_konst: eq "-7,1099511627776" "$(values konst)"
EXPECT   sites_guarded: eq "7" "$(values guarded)"
EXPECT   sites_semaphore_set: eq "guarded=1" "$(cat "$tmp/said")"
CASE

# Without ksnoop the semaphores are 0: the guarded probe does not fire.
expect_eq sites_semaphore_clear "guarded=0" "$(usdt_sites 7)"
rm -rf "$tmp"
