#!/bin/bash
# ':tuple' live: the addresses, ports and protocol of the skbs and socks
# that tracepoints pass, for traffic of known ports sent on loopback in a
# network namespace of its own (vmprog: IPv4 and IPv6 UDP, a TCP
# connection, an AF_UNIX skb with no network header).  Tracepoints, as root.
. "$(dirname "$0")/helpers.bash"

needs_root tuple
scratch_dir
V=${KSNOOP_USDT_DIR:?}/../vm/vmprog
if [ ! -x "$V" ] || ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
	fail tuple_workload "needs $V (make build/vm/vmprog), unshare and ip"
	exit 0
fi
# A copy named after this run: its comm is ours alone.
prog=kstup$$
cp "$V" "$tmp/$prog"

# net PROG-ARGS...: run our program in a namespace whose only traffic is its own.
net() {
	unshare -n sh -c 'ip link set lo up && exec "$@"' sh "$tmp/$prog" "$@" ||
		fail "${T}_workload" "$prog $* failed"
	sleep 0.3
}

T=skb_udp4
ks_case <<'CASE'
NAME     skb_udp4
RUN      --duration 10 -c "$prog" "tp:net:net_dev_queue(skb:tuple)" "tp:net:netif_receive_skb(skb:tuple)"
WORKLOAD net dgram 127.0.0.1 5000 5001 recv
EXPECT   skb_udp4_both: count 2 '^    skb:tuple = 127\.0\.0\.1:5000 > 127\.0\.0\.1:5001 udp$'
EXPECT   skb_udp4_events: count 2 '^    skb:tuple = '
EXPECT   skb_udp4_sent: eq 1 "$(grep -A1 -- '-> tp:net_dev_queue$' "$OUT" | grep -c ' = 127\.0\.0\.1:5000 > 127\.0\.0\.1:5001 udp$')"
EXPECT   skb_udp4_received: eq 1 "$(grep -A1 -- '-> tp:netif_receive_skb$' "$OUT" | grep -c ' = 127\.0\.0\.1:5000 > 127\.0\.0\.1:5001 udp$')"
CASE

# To a port nobody listens on: the datagram is dropped (kfree_skb) and an
# ICMPv6 error, which has no ports, goes back.
T=skb_udp6
ks_case <<'CASE'
NAME     skb_udp6
RUN      --duration 10 -c "$prog" "tp:net:net_dev_queue(skb:tuple)" "tp:skb:kfree_skb(skb:tuple)"
WORKLOAD net dgram ::1 5002 5003
EXPECT   skb_udp6_sent_and_dropped: count 2 '^    skb:tuple = \[::1\]:5002 > \[::1\]:5003 udp$'
EXPECT   skb_udp6_dropped: eq 1 "$(grep -A1 -- '-> tp:kfree_skb$' "$OUT" | grep -c '\[::1\]:5002 > \[::1\]:5003 udp$')"
EXPECT   skb_icmp6_no_ports: count 1 '^    skb:tuple = ::1 > ::1 icmpv6$'
CASE

T=skb_json
ks_case <<'CASE'
NAME     skb_json
RUN      --duration 10 -j -c "$prog" "tp:net:net_dev_queue(skb:tuple)"
WORKLOAD net dgram 127.0.0.1 5010 5011 recv
EXPECT   eq '{"family":"ipv4","src":"127.0.0.1","sport":5010,"dst":"127.0.0.1","dport":5011,"proto":"udp"}' "$(events "$OUT" | jq -c '.values["skb:tuple"]')"
CASE

# A skb that never had a network header: '?' and why, no addresses.
T=skb_unset
ks_case <<'CASE'
NAME     skb_no_network_header
RUN      --duration 10 -c "$prog" "tp:skb:consume_skb(skb:tuple)"
WORKLOAD net unix
EXPECT   count 1 '^    skb:tuple = \? /\* no network header set yet \*/$'
CASE
T=skb_unset_json
ks_case <<'CASE'
NAME     skb_no_network_header_json
RUN      --duration 10 -j -c "$prog" "tp:skb:consume_skb(skb:tuple)"
WORKLOAD net unix
EXPECT   eq '{"family":null,"src":null,"sport":null,"dst":null,"dport":null,"proto":null,"unknown":"no network header set yet"}' "$(events "$OUT" | jq -c '.values["skb:tuple"]')"
CASE

# Socks: the connecting socket as it enters SYN_SENT (2: bound, and the
# peer known), the listener as it enters LISTEN (10: no peer), IPv4 and IPv6.
for fam in 4 6; do
	if [ $fam = 4 ]; then a=127.0.0.1 src='127\.0\.0\.1:5020' dst='127\.0\.0\.1:5021' any='0\.0\.0\.0:0'
	else a=::1 src='\[::1\]:5020' dst='\[::1\]:5021' any='\[::\]:0'; fi
	T=sock_tcp$fam
	ks_case <<-'CASE'
		NAME     sock_tcp$fam
		RUN      --duration 10 -c "$prog" "tp:sock:inet_sock_set_state(sk:tuple, newstate)"
		WORKLOAD net tcp $a 5020 5021
		EXPECT   sock_tcp${fam}_connecting: eq 1 "$(grep -B1 '^    newstate = 2$' "$OUT" | grep -c "^    sk:tuple = $src > $dst tcp\$")"
		EXPECT   sock_tcp${fam}_listening: eq 1 "$(grep -B1 '^    newstate = 10$' "$OUT" | grep -c "^    sk:tuple = $dst > $any tcp\$")"
		EXPECT   sock_tcp${fam}_no_other_ports: no_match '^    sk:tuple = .*:(50[^2]|502[^01])'
	CASE
done

# What does not take ':tuple'.
refused tuple_not_a_skb "':tuple' does not apply to 'skb->len:tuple' \(unsigned int\); it takes a struct sk_buff \* or a struct sock \*" \
	"tp:net:net_dev_queue(skb->len:tuple)"
refused tuple_not_compared "':tuple' is printed, not compared" "tp:net:net_dev_queue(skb:tuple == 0)"
refused tuple_unknown_format "unknown format 'tupel' \(formats: hex, be, ip, sym, str, tuple\)" \
	"tp:net:net_dev_queue(skb:tupel)"
