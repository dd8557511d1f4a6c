#!/bin/sh
# ':tuple' on kernel functions, in both attach modes: a skb's addresses,
# ports and protocol where the IP layer sends it (ip_send_skb,
# ip6_send_skb), a sock's where UDP and TCP take it (udp_sendmsg,
# tcp_v4_connect).  vmprog (tests/vm/vmprog.c) sends from known ports.
. /tests/lib.sh

tmp=$(mktemp -d)

for mode in fentry kprobe; do
	T=$mode
	ks_case <<-'CASE'
		NAME     ${T}_skb_ipv4
		RUN      --mode $mode -c vmprog 'ip_send_skb(skb:tuple)'
		WORKLOAD vmprog dgram 127.0.0.1 5000 5001 recv
		EXPECT   ${T}_skb_ipv4: count 1 '^    skb:tuple = 127\.0\.0\.1:5000 > 127\.0\.0\.1:5001 udp$'
		EXPECT   ${T}_skb_ipv4_events: count 1 '-> ip_send_skb$'
	CASE
	ks_case <<-'CASE'
		NAME     ${T}_skb_ipv6
		RUN      --mode $mode -c vmprog 'ip6_send_skb(skb:tuple)'
		WORKLOAD vmprog dgram ::1 5002 5003 recv
		EXPECT   ${T}_skb_ipv6: count 1 '^    skb:tuple = \[::1\]:5002 > \[::1\]:5003 udp$'
	CASE
	ks_case <<-'CASE'
		NAME     ${T}_skb_json
		RUN      --mode $mode -j -c vmprog 'ip_send_skb(skb:tuple)'
		WORKLOAD vmprog dgram 127.0.0.1 5006 5007 recv
		EXPECT   eq '{"family":"ipv4","src":"127.0.0.1","sport":5006,"dst":"127.0.0.1","dport":5007,"proto":"udp"}' "$(events "$OUT" | jq -c '.values["skb:tuple"]')"
	CASE
	# An unconnected UDP socket: bound, no peer.
	ks_case <<-'CASE'
		NAME     ${T}_sock_udp
		RUN      --mode $mode -c vmprog 'udp_sendmsg(sk:tuple)'
		WORKLOAD vmprog dgram 127.0.0.1 5008 5009 recv
		EXPECT   ${T}_sock_udp: count 1 '^    sk:tuple = 127\.0\.0\.1:5008 > 0\.0\.0\.0:0 udp$'
	CASE
	# At tcp_v4_connect's entry the socket is bound, its peer not yet set.
	ks_case <<-'CASE'
		NAME     ${T}_sock_tcp
		RUN      --mode $mode -c vmprog 'tcp_v4_connect(sk:tuple)'
		WORKLOAD vmprog tcp 127.0.0.1 5010 5011
		EXPECT   ${T}_sock_tcp: count 1 '^    sk:tuple = 127\.0\.0\.1:5010 > 0\.0\.0\.0:0 tcp$'
	CASE
done

# A glob: functions taking a skb share one kprobe program, each reading
# its own argument (values per function, from the map).
ks_case <<'CASE'
NAME     glob_skb
RUN      --mode kprobe -c vmprog 'ip*_send_skb(struct sk_buff *s, s:tuple)'
WORKLOAD vmprog dgram 127.0.0.1 5012 5013 recv
WORKLOAD vmprog dgram ::1 5014 5015 recv
EXPECT   glob_skb_shared: stderr 'one program'
EXPECT   glob_skb_ipv4: eq 1 "$(grep -A1 -- '-> ip_send_skb$' "$OUT" | grep -c '^    s:tuple = 127\.0\.0\.1:5012 > 127\.0\.0\.1:5013 udp$')"
EXPECT   glob_skb_ipv6: eq 1 "$(grep -A1 -- '-> ip6_send_skb$' "$OUT" | grep -c '^    s:tuple = \[::1\]:5014 > \[::1\]:5015 udp$')"
CASE

# --by 'skb:tuple': one row per flow, each flow's datagrams (1 to N bytes:
# lengths, ids and checksums differ) counted together, in BPF; ip_send_skb
# sends each datagram once.  A sock's key (udp_sendmsg, udpv6_sendmsg)
# is its flow too.
for mode in fentry kprobe; do
	T=$mode
	ks_case <<-'CASE'
		NAME     ${T}_by_flow
		RUN      --mode $mode --count --by 'skb:tuple' -c vmprog 'ip_send_skb(skb:tuple)'
		WORKLOAD vmprog dgrams 127.0.0.1 5020 5021 3
		WORKLOAD vmprog dgrams 127.0.0.1 5022 5023 5
		EXPECT   ${T}_by_flow_rows: count 2 '^ +[0-9]+  .* +ip_send_skb$'
		EXPECT   ${T}_by_flow_first: count 1 '^ +3  127\.0\.0\.1:5020 > 127\.0\.0\.1:5021 udp +ip_send_skb$'
		EXPECT   ${T}_by_flow_second: count 1 '^ +5  127\.0\.0\.1:5022 > 127\.0\.0\.1:5023 udp +ip_send_skb$'
	CASE
done
ks_case <<'CASE'
NAME     by_sock_json
RUN      -j --count --by sk -c vmprog 'udp_sendmsg(sk:tuple)' 'udpv6_sendmsg(sk:tuple)'
WORKLOAD vmprog dgrams 127.0.0.1 5024 5025 2
WORKLOAD vmprog dgrams ::1 5026 5027 4
EXPECT   eq 'udp_sendmsg {"family":"ipv4","src":"127.0.0.1","sport":5024,"dst":"0.0.0.0","dport":0,"proto":"udp"}:2 udpv6_sendmsg {"family":"ipv6","src":"::1","sport":5026,"dst":"::","dport":0,"proto":"udp"}:4' \
	"$(record count "$OUT" | jq -rs 'map("\(.func) \(.key | tojson):\(.count)") | sort | join(" ")')"
CASE
