#!/bin/bash
# Containers live: --cgroup on a cgroup v2 made here (a shell moved into
# it through cgroup.procs, another into a child of it, a third left
# outside), each event's cgroup (JSON's id, --show-cgroup's path), --by cgroup;
# --netns on one of two network namespaces joined by a veth pair;
# --by reason's enumerators; the refusals (one line, exit 2).
# Tracepoints and system calls, as root.
. "$(dirname "$0")/helpers.bash"

golden=$(cd "$(dirname "$0")/../golden/54-containers" && pwd)
needs_root containers
scratch_dir
if ! command -v ip >/dev/null || ! command -v jq >/dev/null; then
	fail containers_workload "needs ip and jq (make deps)"
	exit 0
fi

# ---- cgroups ----

# The cgroup2 file system: its mount point is the field after "- cgroup2"'s
# fourth-from-the-start (mountinfo's optional fields vary in number).
CG2=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' \
	/proc/self/mountinfo)
if [ -z "$CG2" ]; then
	skip containers_cgroup "no cgroup2 file system is mounted"
else
	CG=$CG2/ks-cg$$
	mkdir "$CG" "$CG/child" || fail containers_cgroup_mkdir "cannot make $CG"
	at_exit rmdir "$CG/child" "$CG"
	CG_ID=$(stat -c %i "$CG")
	CHILD_ID=$(stat -c %i "$CG/child")
fi

# in_cgroup DIR WORD: a shell that moves itself into cgroup DIR, then opens
# a file named after WORD (none exists: the open fails, openat is called).
in_cgroup() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec sh -c ": <\"/nonexistent/ks-cg-$2\"" 2>/dev/null' \
		sh "$1" "$2-$$"
	return 0
}
outside() { sh -c ": <\"/nonexistent/ks-cg-$1-$$\"" 2>/dev/null; return 0; }
three_shells() {
	in_cgroup "$CG" in
	in_cgroup "$CG/child" child
	outside out
}

if [ -n "$CG2" ]; then
T=cgroup_json
ks_case <<'CASE'
NAME     cgroup_json
RUN      -j --cgroup "$CG" 'sys:openat(filename)'
WORKLOAD three_shells
EXPECT   cgroup_json_exit: exit 0
EXPECT   cgroup_json_in: match "ks-cg-in-$$"
EXPECT   cgroup_json_child: match "ks-cg-child-$$"
EXPECT   cgroup_json_not_outside: no_match "ks-cg-out-$$"
EXPECT   cgroup_json_ids: eq "$CG_ID,$CHILD_ID" \
	"$(events "$tmp/cgroup_json.out" | jq -r '.cgroup' | sort -n -u | paste -sd,)"
CASE

# The child alone: its events name its path (--show-cgroup), the parent's are left out.
ks_case <<'CASE'
NAME     cgroup_child
RUN      --oneline --show-cgroup --cgroup "$CG/child" 'sys:openat(filename)'
WORKLOAD three_shells
EXPECT   cgroup_child_exit: exit 0
EXPECT   cgroup_child_in_child: match "cgroup=/ks-cg$$/child filename=\"/nonexistent/ks-cg-child-$$\""
EXPECT   cgroup_child_only: no_match "ks-cg-(in|out)-$$"
EXPECT   cgroup_child_every_event: eq 0 "$(grep -E '^[0-9:.]+ ' "$tmp/cgroup_child.out" | grep -vc " cgroup=/ks-cg$$/child ")"
CASE

# Counted per cgroup, the key its path: the two of the tree, nothing else.
ks_case <<'CASE'
NAME     cgroup_by
RUN      --count --by cgroup --cgroup "$CG" 'sys:openat(filename)'
WORKLOAD three_shells
EXPECT   cgroup_by_exit: exit 0
EXPECT   cgroup_by_parent: match "^ +[0-9]+  /ks-cg$$ +sys:openat$"
EXPECT   cgroup_by_child: match "^ +[0-9]+  /ks-cg$$/child +sys:openat$"
EXPECT   cgroup_by_rows: count 2 '^ +[0-9]+  /'
CASE

# JSON: the key is the path too.
ks_case <<'CASE'
NAME     cgroup_by_json
RUN      -j --count --by cgroup,comm --cgroup "$CG" 'sys:openat(filename)'
WORKLOAD three_shells
EXPECT   cgroup_by_json_keys: eq "/ks-cg$$,/ks-cg$$/child" \
	"$(record count "$tmp/cgroup_by_json.out" | jq -r '.key.cgroup' | sort -u | paste -sd,)"
CASE

# USDT probes (uprobe programs, sleepable or not) carry the task's cgroup
# too: 3 hits in the child, 2 outside; --cgroup keeps the child's, each
# naming the child (JSON's id, --show-cgroup's path).
usdt_programs
usdt_in_child() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" fire 3' sh "$CG/child" "$P" >/dev/null
	"$P" fire 2 >/dev/null
	return 0
}
ks_case <<'CASE'
NAME     cgroup_usdt_json
RUN      -j --cgroup "$CG" usdt "$P:ksnoop_test:small(arg0)"
WORKLOAD usdt_in_child
EXPECT   cgroup_usdt_json_exit: exit 0
EXPECT   cgroup_usdt_json_ids: eq "3 $CHILD_ID" \
	"$(events "$tmp/cgroup_usdt_json.out" | jq -r '.cgroup' | sort | uniq -c | awk '{ print $1, $2 }' | paste -sd,)"
CASE
ks_case <<'CASE'
NAME     cgroup_usdt_text
RUN      --oneline --show-cgroup usdt "$P:ksnoop_test:small(arg0)"
WORKLOAD usdt_in_child
EXPECT   cgroup_usdt_text_exit: exit 0
EXPECT   cgroup_usdt_text_child: count 3 "ksnoop_test:small cgroup=/ks-cg$$/child arg0="
EXPECT   cgroup_usdt_text_all: count 5 "ksnoop_test:small"
CASE
fi

# ---- network namespaces ----

# Two namespaces, a veth pair between them, neighbours written in (no ARP:
# every datagram leaves in its sender's context, as it is sent).
NA=ks-cgA-$$
NB=ks-cgB-$$
A_IF=kca$$
B_IF=kcb$$
net_up() {
	ip netns add "$NA" && ip netns add "$NB" || return 1
	at_exit ip netns del "$NA"
	at_exit ip netns del "$NB"
	ip link add "$A_IF" type veth peer name "$B_IF" &&
		ip link set "$A_IF" netns "$NA" && ip link set "$B_IF" netns "$NB" &&
		ip -n "$NA" addr add 10.231.0.1/24 dev "$A_IF" &&
		ip -n "$NB" addr add 10.231.0.2/24 dev "$B_IF" &&
		ip -n "$NA" link set "$A_IF" up && ip -n "$NB" link set "$B_IF" up || return 1
	ip -n "$NA" neigh replace 10.231.0.2 dev "$A_IF" nud permanent \
		lladdr "$(ip netns exec "$NB" cat "/sys/class/net/$B_IF/address")" &&
		ip -n "$NB" neigh replace 10.231.0.1 dev "$B_IF" nud permanent \
		lladdr "$(ip netns exec "$NA" cat "/sys/class/net/$A_IF/address")"
}
# Three one-byte datagrams from A to B (43-byte frames: nobody listens, B
# drops them), two from B to A.
datagrams() {
	ip netns exec "$NA" bash -c 'for i in 1 2 3; do printf x >/dev/udp/10.231.0.2/5001; done'
	ip netns exec "$NB" bash -c 'for i in 1 2; do printf x >/dev/udp/10.231.0.1/5003; done'
	return 0
}

if net_up; then
ks_case <<'CASE'
NAME     netns_path
RUN      --oneline --netns "/run/netns/$NA" 'tp:net:net_dev_queue(skb->len == 43, skb:tuple)'
WORKLOAD datagrams
EXPECT   netns_path_exit: exit 0
EXPECT   netns_path_a: count 3 ' skb:tuple=10\.231\.0\.1:[0-9]+ > 10\.231\.0\.2:5001 udp$'
EXPECT   netns_path_only_a: count 3 ' -> tp:net_dev_queue '
CASE

# By inode number, the other namespace; its drops counted by reason.
NB_INO=$(stat -L -c %i "/run/netns/$NB")
ks_case <<'CASE'
NAME     netns_ino
RUN      --count --netns "$NB_INO" 'tp:net:net_dev_queue(skb->len == 43)'
WORKLOAD datagrams
EXPECT   netns_ino_b: match '^ +2  tp:net_dev_queue$'
CASE

ks_case <<'CASE'
NAME     netns_drop_reason
RUN      --count --by reason --netns "/run/netns/$NB" 'tp:skb:kfree_skb(reason)'
WORKLOAD datagrams
EXPECT   netns_drop_reason_name: match '^ +3  SKB_DROP_REASON_NO_SOCKET +tp:kfree_skb$'
# Other drops in the namespace may come too (a fresh veth's own IPv6 or
# ARP traffic, seen as SKB_DROP_REASON_NOT_SPECIFIED in CI): every row is
# named, none a bare number.
EXPECT   netns_drop_reason_rows_named: no_match '^ +[0-9]+  -?[0-9]+ +tp:kfree_skb$'
CASE

ks_case <<'CASE'
NAME     netns_drop_reason_json
RUN      -j --count --by reason --netns "/run/netns/$NB" 'tp:skb:kfree_skb(reason)'
WORKLOAD datagrams
EXPECT   netns_drop_reason_json_name: eq 'SKB_DROP_REASON_NO_SOCKET 3' \
	"$(record count "$tmp/netns_drop_reason_json.out" | jq -r 'select(.key_name | startswith("SKB_DROP_REASON_NO_")) | "\(.key_name) \(.count)"')"
CASE
else
	fail netns_setup "cannot make network namespaces $NA and $NB with a veth pair"
fi

# Refused: one line on stderr, exit 2, nothing attached.
KSNOOP_TIMEOUT=20 ks_errors --in "$tmp" "$golden/errors" <<'TABLE'
cgroup_missing        --cgroup /nonexistent/ks-cg sys:openat
cgroup_not_cgroup     --cgroup /proc sys:openat
cgroup_file           --cgroup /etc/hostname sys:openat
netns_no_skb          --netns /proc/self/ns/net tp:sched:sched_process_exec
netns_not_netns       --netns /proc/self/ns/pid tp:net:net_dev_queue
netns_missing         --netns /nonexistent/ns tp:net:net_dev_queue
netns_zero            --netns 0 tp:net:net_dev_queue
netns_report          --netns 1 report rec.ksnoop
by_cgroup_twice       --count --by cgroup,cgroup sys:openat
show_cgroup_count     --count --show-cgroup sys:openat
TABLE
