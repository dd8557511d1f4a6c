#!/bin/bash
# Whose memory is read and which ids are shown: USDT arguments are user
# memory only, user pages not touched yet are paged in, string predicates
# are exact, a string that fills its buffer is not "truncated", call sites
# of one probe are typed each from its own note, and pids are those of
# ksnoop's pid namespace.  Live, as root.
. "$(dirname "$0")/helpers.bash"
K=$(realpath "${KSNOOP:?KSNOOP must name the ksnoop binary}")
usdt_paths

needs_root memory
if [ ! -x "$E" ]; then
	fail edge_program "missing $E (make build/usdt/usdt_edge)"
	exit 0
fi
scratch_dir
# Our own copy: uprobes belong to a file, and another run tracing the
# build's usdt_edge at the same time would add its events to ours.
cp "$E" "$tmp/usdt_edge"
E=$tmp/usdt_edge

# --- entry values kept for the return must fit the 32 KiB stash: said at
#     resolve time, one line, exit 2 (was: E2BIG from map creation) ---
# 64 (event header) + 16 (value header) + 32768 (the string): 32848.
ks_errors "$(cd "$(dirname "$0")/../golden/35-memory" && pwd)/errors" <<'ROWS'
stash_too_big --str-bytes 32768 "do_sys_openat2(filename, return < 0)"
ROWS

# --- a USDT argument holding a kernel address is a fault, not a kernel read ---
kaddr=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)
if [ -z "$kaddr" ] || [ "$kaddr" = 0000000000000000 ]; then
	fail usdt_kernel_address "no address for _stext in /proc/kallsyms"
else
	ks_case <<-'CASE'
		NAME     usdt_kernel_address
		RUN      --duration 10 -n 1 usdt "$E:ksnoop_edge:addr(arg0:str)"
		WORKLOAD "$E" kaddr "$kaddr"
		UNTIL    exit
		EXPECT   usdt_kernel_address_faults: count 1 "^    arg0:str = 0x$kaddr /\\* could not read memory \\*/\$"
		EXPECT   usdt_kernel_address_no_bytes: count 0 '"'
	CASE
fi

# --- a string on a page the program never touched is paged in and read ---
printf 'hello-untouched\0' > "$tmp/untouched"
ks_case <<'CASE'
NAME     usdt_untouched
RUN      --duration 10 -n 1 usdt "$E:ksnoop_edge:str(arg0:str)"
WORKLOAD "$E" untouched "$tmp/untouched"
UNTIL    exit
EXPECT   usdt_untouched_page_read: count 1 '^    arg0:str = "hello-untouched"$'
EXPECT   usdt_sleepable_said: stderr 'sleepable program'
CASE
# A string predicate and a --by key read it too: paged in before a scratch
# frame is taken (bpf/scratch.bpf.h), then read there.
ks_case <<'CASE'
NAME     usdt_untouched_pred
RUN      --duration 10 -n 1 -j usdt "$E:ksnoop_edge:str(arg0:str == \"hello-untouched\", arg0:str)"
WORKLOAD "$E" untouched "$tmp/untouched"
UNTIL    exit
EXPECT   usdt_untouched_pred_holds: eq 1 "$(events "$OUT" | grep -c .)"
CASE
ks_case <<'CASE'
NAME     usdt_untouched_by
RUN      -j --count --by arg0:str usdt "$E:ksnoop_edge:str(arg0:str)"
WORKLOAD "$E" untouched "$tmp/untouched"
WORKLOAD "$E" untouched "$tmp/untouched"
EXPECT   usdt_untouched_by_key: eq "hello-untouched 2" "$(record count "$OUT" | jq -r '"\(.key) \(.count)"' | joined)"
CASE

# --- one probe, two call sites: an int32 and an int64, each typed as such ---
ks_case <<'CASE'
NAME     usdt_sites_typed_each
RUN      --duration 10 -n 2 -j usdt "$E:ksnoop_edge:mixed"
WORKLOAD "$E" mixed
UNTIL    exit
EXPECT   eq "5 4294967301" "$(events "$OUT" | jq -r '.values.arg0' | sort -n | joined)"
CASE
ks_case <<'CASE'
NAME     usdt_sites_pred_full_width
RUN      --duration 10 -j usdt "$E:ksnoop_edge:mixed(arg0 == 5)"
WORKLOAD "$E" mixed
WORKLOAD sleep 0.3
EXPECT   eq 5 "$(events "$OUT" | jq -r '.values.arg0' | joined)"
CASE

# --- string predicates are exact, up to 63 characters ---
# Paths of exactly 31 and 63 characters, and the same with more after them.
p31=$tmp/$(printf 'x%.0s' $(seq $((31 - ${#tmp} - 1))))
p63=$tmp/$(printf 'y%.0s' $(seq $((63 - ${#tmp} - 1))))
for p in "$p31" "$p31"EVIL "$p63" "$p63"EVIL; do ln -s /bin/true "$p"; done
for n in 31 63; do
	eval "p=\$p$n"
	ks_case <<-'CASE'
		NAME     str_pred_exact_$n
		RUN      --duration 10 "tp:sched_process_exec(bprm->filename == \"$p\")"
		WORKLOAD "$p"EVIL; "$p"; "$p"EVIL
		WORKLOAD sleep 0.3
		EXPECT   count 1 '^    bprm->filename = '
	CASE
done
ks_case <<'CASE'
NAME     str_pred_ne_exact
RUN      --duration 10 -j "tp:sched_process_exec(bprm->filename != \"$p63\", bprm->filename)"
WORKLOAD "$p63"EVIL; "$p63"
WORKLOAD sleep 0.3
EXPECT   eq "$p63"EVIL "$(events "$OUT" | jq -r '.values["bprm->filename"]' | grep "^$tmp/" | joined)"
CASE

# --- --str-bytes N: N-1 characters fit exactly; N are cut ---
n=64
fit=$tmp/$(printf 'f%.0s' $(seq $((n - 1 - ${#tmp} - 1))))
cut=$tmp/$(printf 'c%.0s' $(seq $((n - ${#tmp} - 1))))
ln -s /bin/true "$fit"; ln -s /bin/true "$cut"
ks_case <<'CASE'
NAME     str_bytes
RUN      --duration 10 --str-bytes $n "tp:sched_process_exec(bprm->filename)"
WORKLOAD "$fit"; "$cut"
WORKLOAD sleep 0.3
EXPECT   str_fills_buffer_exactly: count 1 "^    bprm->filename = \"$fit\"\$"
EXPECT   str_longer_is_truncated: \
         count 1 "^    bprm->filename = \"${cut%c}\"\\.\\.\\. /\\* truncated at $n bytes \\*/\$"
CASE

# --- argN:str(argM): a class name as the JVM passes it, pointer and length
#     with no NUL after it (0xff bytes follow).  Exactly LEN characters; a
#     length below 0 (int64 -1, int32 INT32_MIN) reads nothing; 2^40 is cut
#     at --str-bytes.  usdt_edge has no .BTF: its arguments are integers ---
ks_case <<'CASE'
NAME     str_len
RUN      --duration 10 -n 5 -j usdt "$E:ksnoop_edge:name(arg0:str(arg1), arg1)" "$E:ksnoop_edge:name32(arg0:str(arg1), arg1)"
WORKLOAD "$E" name
UNTIL    exit
EXPECT   str_len_exact: eq "java/lang/Object" \
         "$(events "$OUT" | jq -r 'select(.values.arg1 == 16) | .values["arg0:str(arg1)"]')"
EXPECT   str_len_int32: eq "java/lang" \
         "$(events "$OUT" | jq -r 'select(.values.arg1 == 9) | .values["arg0:str(arg1)"]')"
EXPECT   str_len_negative_reads_nothing: eq "-2147483648= -1=" \
         "$(events "$OUT" | jq -r 'select(.values.arg1 < 0) | "\(.values.arg1)=\(.values["arg0:str(arg1)"])"' | sort -n | joined)"
EXPECT   str_len_huge_stops_at_nul: eq "java/lang/Object$(printf '\\xff%.0s' $(seq 40))" \
         "$(events "$OUT" | jq -r 'select(.values.arg1 == 1099511627776) | .values["arg0:str(arg1)"]')"
CASE
ks_case <<'CASE'
NAME     str_len_clamped
RUN      --duration 10 -n 5 --str-bytes 10 usdt "$E:ksnoop_edge:name(arg0:str(arg1))" "$E:ksnoop_edge:name32(arg0:str(arg1))"
WORKLOAD "$E" name
UNTIL    exit
EXPECT   str_len_cut_at_str_bytes: count 2 '^    arg0:str\(arg1\) = "java/lang"\.\.\. /\* truncated at 10 bytes \*/$'
EXPECT   str_len_fills_exactly: count 1 '^    arg0:str\(arg1\) = "java/lang"$'
EXPECT   str_len_clamped_empty: count 2 '^    arg0:str\(arg1\) = ""$'
EXPECT   str_len_no_bytes_past: count 0 '\\x'
CASE
ks_case <<'CASE'
NAME     str_len_pred
RUN      --duration 10 -n 1 -j usdt "$E:ksnoop_edge:name(arg0:str(arg1) == \"java/lang/Object\", arg1)"
WORKLOAD "$E" name
UNTIL    exit
EXPECT   str_len_pred_exact: eq 16 "$(events "$OUT" | jq -r '.values.arg1')"
CASE

# --- the same for a tracepoint: tp:console(text, len) has no NUL at len
#     (its text goes on with "\n"); buf:str(len) stops there ---
mark=ksnoop-str-len-$$
ks_case <<'CASE'
NAME     tp_str_len
RUN      --duration 10 -j "tp:console(text:str(len))" "tp:console(text, len)"
WORKLOAD echo "$mark" > /dev/kmsg
WORKLOAD sleep 0.3
EXPECT   tp_str_len_exact: eq 1 \
         "$(events "$OUT" | jq -r --arg m "$mark" 'select(.values["text:str(len)"] == $m) | .tid' | wc -l)"
EXPECT   tp_str_len_text_goes_on: eq "${#mark}" \
         "$(events "$OUT" | jq -r --arg m "$mark" 'select(.values.text == $m + "\n") | .values.len')"
CASE

# --- casts to C base types and pointers to them, without --btf ---
ks_case <<'CASE'
NAME     base_type_casts
RUN      --duration 10 -n 1 usdt "$E:ksnoop_edge:ptrs(*(char **)arg0, ((char **)arg0)[1], *(int *)arg1, ((int *)arg1)[1], ((short *)arg1)[2], ((u8 *)arg1)[4], ((unsigned long long *)arg1)[0] & 0xffffffff)"
WORKLOAD "$E" ptrs
UNTIL    exit
EXPECT   base_type_casts_no_btf: eq "" "$(readelf -S "$E" | grep -F .BTF)"
EXPECT   cast_char_pp: count 1 '^    \*\(char \*\*\)arg0 = "first"$'
EXPECT   cast_char_pp_index: count 1 '^    \(\(char \*\*\)arg0\)\[1\] = "second"$'
EXPECT   cast_int_p: count 1 '^    \*\(int \*\)arg1 = 7$'
EXPECT   cast_int_p_index: count 1 '^    \(\(int \*\)arg1\)\[1\] = -8$'
EXPECT   cast_short_p: count 1 '^    \(\(short \*\)arg1\)\[2\] = -8$'
EXPECT   cast_u8_p: count 1 '^    \(\(u8 \*\)arg1\)\[4\] = 248$'
CASE

# --- pids as ksnoop's pid namespace sees them, for -p and for output ---
if command -v unshare >/dev/null; then
	unshare -p -f --mount-proc bash -c '
		( while ! grep -q "tracing" "$2/ns.err" 2>/dev/null; do sleep 0.05; done
		  exec /bin/true ) &
		child=$!
		echo "$child" > "$2/ns.child"
		timeout 20 "$1" -v -j -n 1 --duration 10 -p "$child" \
			"tp:sched_process_exec(p->pid)" > "$2/ns.out" 2> "$2/ns.err"
	' ns "$K" "$tmp"
	child=$(cat "$tmp/ns.child")
	expect_eq pidns_filter_and_pid "$child $child" "$(events "$tmp/ns.out" | jq -r '"\(.pid) \(.tid)"')"
	# p->pid is the kernel's (host) pid: not the one shown.
	host=$(events "$tmp/ns.out" | jq -r '.values["p->pid"]')
	[ -n "$host" ] && [ "$host" != "$child" ] && pass pidns_host_pid_differs ||
		fail pidns_host_pid_differs "host $host, namespace $child: $(cat "$tmp/ns.err")"
else
	fail pidns "unshare (util-linux) is missing"
fi

# --- one file, opened once: a bare name is the file ksnoop read (./NAME),
#     not another one libbpf or the kernel might find on $PATH ---
mkdir -p "$tmp/cwd" "$tmp/bin"
cp "$E" "$tmp/cwd/edgeprog"
cp "$E" "$tmp/bin/edgeprog"
cd "$tmp/cwd" || exit 1
ks_case <<'CASE'
NAME     usdt_same_file_attach
BEFORE   path=$PATH PATH=$tmp/bin:$PATH
RUN      --duration 10 -n 2 usdt "edgeprog:ksnoop_edge:mixed"
WORKLOAD PATH=$path
WORKLOAD "$tmp/cwd/edgeprog" mixed
UNTIL    exit
EXPECT   usdt_same_file_exit: exit 0
EXPECT   usdt_same_file_traced: count 2 '-> ksnoop_edge:mixed$'
EXPECT   usdt_file_named: stderr "USDT probe ksnoop_edge:mixed in edgeprog \\(device [0-9]+:[0-9]+, inode $(stat -c %i "$tmp/cwd/edgeprog")\\)"
CASE
cd / || exit 1
