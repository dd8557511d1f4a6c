#!/bin/bash
# --filter live: a pcap-filter expression judged in BPF on the skbs that
# tracepoints pass, in network namespaces of the test's own.  Datagrams
# to 5001, then to 5000, then to 5001 again on loopback (an Ethernet
# frame each): 'udp dst port 5000' passes exactly the four to 5000
# (counted, and their ports read back by tshark from --pcap's file) and
# 'udp dst port 5001' exactly the six others; ANDed with a typed
# predicate; under --track; raw IP on a tun device (no link header: the
# raw-IP program).  Then the refusals (one line, exit 2, nothing left
# attached).  Tracepoints, as root.
. "$(dirname "$0")/helpers.bash"

golden=$(cd "$(dirname "$0")/../golden/53-pfilter" && pwd)
needs_root pfilter
scratch_dir
V=${KSNOOP_USDT_DIR:?}/../vm/vmprog
if [ ! -x "$V" ] || ! command -v unshare >/dev/null || ! command -v ip >/dev/null ||
   ! command -v tshark >/dev/null; then
	fail pfilter_workload "needs $V (make build/vm/vmprog), unshare, ip and tshark (make deps)"
	exit 0
fi
# Copies named after this run: their comms are ours alone.
prog=kspfl$$
cp "$V" "$tmp/$prog"
shell=kspfb$$
cp "$(command -v bash)" "$tmp/$shell"
cp "$KSNOOP_USDT_DIR/usdt_prog" "$tmp/usdt_prog"

# net PROG-ARGS...: run our program in a namespace whose only traffic is its own.
net() {
	unshare -n sh -c 'ip link set lo up && exec "$@"' sh "$tmp/$prog" "$@" ||
		fail "${T}_workload" "$prog $* failed"
}
# 3 datagrams to 5001, 4 to 5000, 3 to 5001 (each answered: no ICMP error).
mixed() {
	net dgrams 127.0.0.1 4000 5001 3 && net dgrams 127.0.0.1 4000 5000 4 &&
		net dgrams 127.0.0.1 4000 5001 3
}
# tshark's udp.dstport of FILE's packets, sorted and counted: "4 5000".
dstports() {
	tshark -r "$1" -T fields -e udp.dstport 2>/dev/null | sort | uniq -c | awk '{ print $1, $2 }' |
		paste -sd,
}

T=pfilter_port
F=$tmp/port.pcapng
ks_case <<'CASE'
NAME     pfilter_port
RUN      -c "$prog" --filter 'udp dst port 5000' --pcap "$F" "tp:net:net_dev_queue(skb->len)"
WORKLOAD mixed
EXPECT   pfilter_port_exit: exit 0
EXPECT   pfilter_port_events: count 4 "^[0-9:.]+ cpu[0-9]+ $prog "
EXPECT   pfilter_port_in_pcap: eq '4 5000' "$(dstports "$F")"
EXPECT   pfilter_port_said: stderr '^ksnoop: --filter: [0-9]+ instructions for Ethernet frames, [0-9]+ for raw IP, over 256 bytes, [0-9]+ in eBPF$'
CASE

T=pfilter_other_port
ks_case <<'CASE'
NAME     pfilter_other_port
RUN      -c "$prog" --filter 'udp and dst port 5001' "tp:net:net_dev_queue(skb->len)"
WORKLOAD mixed
EXPECT   pfilter_other_port_exit: exit 0
EXPECT   pfilter_other_port_events: count 6 '^    skb->len = (43|44|45)$'
CASE

# ANDed with the typed predicates: of the four to 5000, the one of 2 bytes (44).
T=pfilter_and
ks_case <<'CASE'
NAME     pfilter_and
RUN      -c "$prog" --filter 'udp dst port 5000' "tp:net:net_dev_queue(skb->len == 44, skb->len)"
WORKLOAD mixed
EXPECT   pfilter_and_events: count 1 '^    skb->len = 44$'
CASE

# --count: what the filter rejects is not counted either.
T=pfilter_count
ks_case <<'CASE'
NAME     pfilter_count
RUN      -c "$prog" --count --filter 'udp dst port 5000' "tp:net:net_dev_queue"
WORKLOAD mixed
EXPECT   pfilter_count_four: stderr '^ksnoop: 4 calls counted$'
CASE

# --track: the object is followed from where the filter passes it.
T=pfilter_track
ks_case <<'CASE'
NAME     pfilter_track
RUN      -c "$prog" --track s --filter 'udp port 5000' "tp:net:net_dev_queue(struct sk_buff *s, s->len)" "tp:net:netif_receive_skb(struct sk_buff *s, s->len)"
WORKLOAD mixed
EXPECT   pfilter_track_queued: count 4 "-> tp:net_dev_queue object 0x[0-9a-f]+$"
EXPECT   pfilter_track_received: count 4 "-> tp:netif_receive_skb object 0x[0-9a-f]+$"
CASE

# Raw IP: a tun device (no link header), packets to 10.9.0.2 routed to it.
tun_send() {
	unshare -n "$tmp/$shell" -c 'ip link set lo up && ip tuntap add dev kstun0 mode tun &&
		ip addr add 10.9.0.1/24 dev kstun0 && ip link set kstun0 up &&
		for p in 5001 5000 5001 5000; do echo -n x >/dev/udp/10.9.0.2/$p; done' ||
		fail "${T}_workload" "no tun device in a namespace"
}
T=pfilter_raw
ks_case <<'CASE'
NAME     pfilter_raw
RUN      -c "$shell" --filter 'udp dst port 5000 and dst host 10.9.0.2' "tp:net:net_dev_queue(skb->len, skb->dev->name)"
WORKLOAD tun_send
EXPECT   pfilter_raw_events: count 2 '^    skb->len = 29$'
EXPECT   pfilter_raw_tun: count 2 '^    skb->dev->name = "kstun0"$'
CASE

long=$(printf 'port %d or ' $(seq 1 150))'port 151'
# Refused: one line on stderr, exit 2, nothing attached.
KSNOOP_TIMEOUT=20 ks_errors --in "$tmp" "$golden/errors" <<'TABLE'
filter_syntax         --filter 'udp port' tp:net:net_dev_queue
filter_empty          --filter ' ' tp:net:net_dev_queue
filter_protochain     --filter 'ip protochain 6' tp:net:net_dev_queue
filter_past_snaplen   --filter 'udp[300] = 1' tp:net:net_dev_queue
filter_small_snaplen  --snaplen 40 --filter 'udp port 53' tp:net:net_dev_queue
filter_too_long       --filter "$long" tp:net:net_dev_queue
filter_no_skb         --filter udp tp:sched:sched_process_exec
filter_usdt           usdt --filter udp ./usdt_prog:ksnoop_test:req
filter_report         report --filter udp rec.ksnoop
filter_info           info --filter udp tp:net:net_dev_queue
TABLE
