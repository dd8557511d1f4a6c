#!/bin/sh
# A user function's variables, on each architecture: @NAME (its address
# from the load bias) and @tls:NAME (the thread pointer and the
# executable's TLS block: x86-64's variant II below fs_base, arm64's
# variant I after the 16-byte TCB at tpidr_el0), read at uv_work's entry
# in tests/uprog/vars.c linked static by the target's compiler (in the VM
# as uvars), in four threads, each value against what the program printed
# before its call; then the same at the USDT probe uvars:work in uv_work.
# The main thread's first call comes before it ever left the CPU: on
# arm64 the kernel's copy of its tpidr_el0 is still the shell's (from the
# fork before exec), and the thread pointer comes from glibc's rseq
# registration (words.bpf.h's thread_pointer()).
. /tests/lib.sh

if ! command -v uvars >/dev/null; then
	fail uvars_program "uvars is not in the VM (--bin build/uprog/uvars)"
	exit 0
fi
V=$(command -v uvars)
tmp=$(mktemp -d)
ks_case <<-'CASE'
	NAME     uvars_tls
	RUN      -j "u:$V:uv_work(arg, @uv_counter, @uv_config.level, @tls:uv_tls_id, @tls:uv_tls_state.req_id, @tls:uv_tls_state.tag)"
	WORKLOAD uvars 2 >"$tmp/printed"
	EXPECT   uvars_as_printed: eq "$(sed -n 's/^call \([0-9]*\) counter=\([0-9]*\) cfg.level=\([0-9]*\) .* tls.id=\([0-9]*\) tls.req=\([0-9]*\) tls.tag=\([^ ]*\) .*/\1 \2 \3 \4 \5 \6/p' "$tmp/printed" | sort)" "$(events "$OUT" | jq -r 'select(.kind == "entry") | [.values[] | tostring] | join(" ")' | sort)"
	EXPECT   uvars_all_calls: eq 8 "$(events "$OUT" | jq -r 'select(.kind == "entry") | .func' | wc -l | tr -d ' ')"
	EXPECT   uvars_threads_apart: eq '100,101,102,103' "$(events "$OUT" | jq -r '.values["@tls:uv_tls_id"]' | sort -u | paste -sd, -)"
CASE
# The same variables at a USDT probe in uv_work (uvars:work, arg0 = arg):
# the load bias from the call site's address, the thread pointer as above.
ks_case <<-'CASE'
	NAME     uvars_usdt
	RUN      -j usdt "$V:uvars:work(arg0, @uv_counter, @uv_config.level, @tls:uv_tls_id, @tls:uv_tls_state.req_id, @tls:uv_tls_state.tag)"
	WORKLOAD uvars 2 >"$tmp/usdt_printed"
	EXPECT   uvars_usdt_as_printed: eq "$(sed -n 's/^call \([0-9]*\) counter=\([0-9]*\) cfg.level=\([0-9]*\) .* tls.id=\([0-9]*\) tls.req=\([0-9]*\) tls.tag=\([^ ]*\) .*/\1 \2 \3 \4 \5 \6/p' "$tmp/usdt_printed" | sort)" "$(events "$OUT" | jq -r '[.values[] | tostring] | join(" ")' | sort)"
	EXPECT   uvars_usdt_all_calls: eq 8 "$(events "$OUT" | jq -r '.func' | wc -l | tr -d ' ')"
CASE
