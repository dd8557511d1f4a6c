#!/bin/sh
# --netns and --cgroup over kernel functions, both attach modes (the live
# tests, tests/live/54-containers.sh, have only tracepoints and syscalls).
# A network namespace held by a sleeper (busybox unshare -n) sends one UDP
# datagram over its own loopback, the VM's namespace another from other
# ports: --netns keeps only the skbs of the one it names, at ip_rcv and
# ip_finish_output2 and over a glob.  A cgroup v2 made here with a child:
# a task moved into each opens a file, one left outside too: --cgroup keeps
# the tree's opens at do_sys_openat2 and names each one's cgroup.
# The datagram or open that must be left out always comes first, so a
# filter that lets it through shows in the -n events ksnoop stops after.
. /tests/lib.sh

tmp=$(mktemp -d)

# ---- network namespaces ----

# The namespace: a sleeper's, its loopback up (busybox ip, run inside it).
unshare -n sleep 100000 &
NS_PID=$!
NS=/proc/$NS_PID/ns/net
i=0
while [ "$(stat -L -c %i "$NS" 2>/dev/null)" = "$(stat -L -c %i /proc/self/ns/net)" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
NS_INO=$(stat -L -c %i "$NS" 2>/dev/null)
HOST_INO=$(stat -L -c %i /proc/self/ns/net)
inside() { nsenter -t "$NS_PID" -n "$@"; }

# One 29-byte datagram in each namespace: first the VM's own (5042 >
# 5043), then the namespace's (5040 > 5041); or the other way round.
ns_last() {
	vmprog dgram 127.0.0.1 5042 5043 recv
	inside vmprog dgram 127.0.0.1 5040 5041 recv
}
host_last() {
	inside vmprog dgram 127.0.0.1 5040 5041 recv
	vmprog dgram 127.0.0.1 5042 5043 recv
}

if [ -n "$NS_INO" ] && [ "$NS_INO" != "$HOST_INO" ] && inside ip link set lo up; then
	for mode in fentry kprobe; do
		T=$mode
		ks_case <<-'CASE'
			NAME     ${T}_netns_path
			RUN      --mode $mode -n 2 --oneline --netns $NS 'ip_finish_output2(skb->len == 29, skb:tuple)' 'ip_rcv(skb->len == 29, skb:tuple)'
			WORKLOAD ns_last
			UNTIL    exit
			EXPECT   ${T}_netns_path_exit: exit 0
			EXPECT   ${T}_netns_path_out: count 1 '-> ip_finish_output2 .*skb:tuple=127\.0\.0\.1:5040 > 127\.0\.0\.1:5041 udp$'
			EXPECT   ${T}_netns_path_rcv: count 1 '-> ip_rcv .*skb:tuple=127\.0\.0\.1:5040 > 127\.0\.0\.1:5041 udp$'
			EXPECT   ${T}_netns_path_not_host: no_match ':5042 > '
		CASE
		# The VM's own namespace by inode number: the other datagram only.
		ks_case <<-'CASE'
			NAME     ${T}_netns_ino
			RUN      --mode $mode -n 2 --oneline --netns $HOST_INO 'ip_finish_output2(skb->len == 29, skb:tuple)' 'ip_rcv(skb->len == 29, skb:tuple)'
			WORKLOAD host_last
			UNTIL    exit
			EXPECT   ${T}_netns_ino_exit: exit 0
			EXPECT   ${T}_netns_ino_host: count 2 'skb:tuple=127\.0\.0\.1:5042 > 127\.0\.0\.1:5043 udp$'
			EXPECT   ${T}_netns_ino_not_ns: no_match ':5040 > '
		CASE
	done
	# A glob of skb functions: every event is the namespace's datagram.
	ks_case <<-'CASE'
		NAME     netns_glob
		RUN      --oneline --netns $NS 'ip_rcv*(struct sk_buff *s, s->len == 29, s:tuple)'
		WORKLOAD ns_last
		EXPECT   netns_glob_exit: exit 0
		EXPECT   netns_glob_ns: match '-> ip_rcv .*s:tuple=127\.0\.0\.1:5040 > 127\.0\.0\.1:5041 udp$'
		EXPECT   netns_glob_not_host: no_match ':5042 > '
	CASE
else
	fail netns_setup "cannot make a network namespace with busybox unshare -n (inode '$NS_INO', the VM's $HOST_INO)"
fi
kill "$NS_PID" 2>/dev/null

# ---- cgroups ----

CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$CG2" ]; then
	CG2=/sys/fs/cgroup
	mount -t cgroup2 cgroup2 "$CG2"
fi
CG=$CG2/ks-vm
# in_cgroup DIR WORD: a shell that moves itself into DIR, then opens a
# file named after WORD (cat: its first open after the move).
in_cgroup() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec cat "/nonexistent/ks-vm-$2"' sh "$1" "$2" 2>/dev/null
	return 0
}
opens() {
	cat /nonexistent/ks-vm-out 2>/dev/null
	in_cgroup "$CG" in
	in_cgroup "$CG/child" child
}

if mkdir "$CG" "$CG/child"; then
	for mode in fentry kprobe; do
		T=$mode
		ks_case <<-'CASE'
			NAME     ${T}_cgroup
			RUN      --mode $mode -n 2 --oneline --show-cgroup --cgroup $CG 'do_sys_openat2(filename)'
			WORKLOAD opens
			UNTIL    exit
			EXPECT   ${T}_cgroup_exit: exit 0
			EXPECT   ${T}_cgroup_in: count 1 ' cgroup=/ks-vm filename="/nonexistent/ks-vm-in"$'
			EXPECT   ${T}_cgroup_child: count 1 ' cgroup=/ks-vm/child filename="/nonexistent/ks-vm-child"$'
			EXPECT   ${T}_cgroup_not_outside: no_match 'ks-vm-out'
		CASE
		# The child alone: the parent's open is left out too.
		ks_case <<-'CASE'
			NAME     ${T}_cgroup_child
			RUN      --mode $mode -n 1 -j --cgroup $CG/child 'do_sys_openat2(filename)'
			WORKLOAD opens
			UNTIL    exit
			EXPECT   ${T}_cgroup_child_exit: exit 0
			EXPECT   ${T}_cgroup_child_only: eq '/nonexistent/ks-vm-child' "$(events "$OUT" | jq -r '.values.filename')"
			EXPECT   ${T}_cgroup_child_id: eq "$(stat -c %i "$CG/child")" "$(events "$OUT" | jq -r '.cgroup')"
		CASE
	done
	rmdir "$CG/child" "$CG" 2>/dev/null
else
	fail cgroup_setup "cannot make cgroup $CG"
fi
