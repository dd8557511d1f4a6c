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

# A refused connect from a port the kernel picked: by the tracepoint of
# its CLOSE the port is back in the pool (skc_num 0) while inet_sport,
# which the kernel's own tracepoint prints, still holds it.  The port is
# the one getsockname gave the program.
T=sock_refused
ks_case <<'CASE'
NAME     sock_refused
RUN      --duration 10 -c "$prog" "tp:sock:inet_sock_set_state(sk:tuple, newstate)"
WORKLOAD net refused 127.0.0.1 5061 >"$tmp/refused.port"
EXPECT   sock_refused_port_known: text '^[1-9][0-9]*$' "$(cat "$tmp/refused.port")"
EXPECT   sock_refused_close_sport: eq 1 "$(grep -B1 '^    newstate = 7$' "$OUT" | grep -c "^    sk:tuple = 127\.0\.0\.1:$(cat "$tmp/refused.port") > 127\.0\.0\.1:5061 tcp\$")"
EXPECT   sock_refused_no_port_0: no_match '^    sk:tuple = 127\.0\.0\.1:0 > 127\.0\.0\.1:5061 tcp$'
CASE

# ':tcpstate': the states the tracepoint passes as ints, by the kernel's
# own enumerators (its enum in BTF), on the same refused connect.
T=tcpstate
ks_case <<'CASE'
NAME     tcpstate
RUN      --duration 10 -c "$prog" "tp:sock:inet_sock_set_state(oldstate:tcpstate, newstate:tcpstate)"
WORKLOAD net refused 127.0.0.1 5062 >/dev/null
EXPECT   tcpstate_syn_sent: eq 1 "$(grep -A1 '^    oldstate:tcpstate = TCP_CLOSE$' "$OUT" | grep -c '^    newstate:tcpstate = TCP_SYN_SENT$')"
EXPECT   tcpstate_closed: eq 1 "$(grep -A1 '^    oldstate:tcpstate = TCP_SYN_SENT$' "$OUT" | grep -c '^    newstate:tcpstate = TCP_CLOSE$')"
EXPECT   tcpstate_no_numbers: no_match '^    (old|new)state:tcpstate = [0-9]'
CASE
T=tcpstate_json
ks_case <<'CASE'
NAME     tcpstate_json
RUN      --duration 10 -j -c "$prog" "tp:sock:inet_sock_set_state(oldstate:tcpstate, newstate:tcpstate)"
WORKLOAD net refused 127.0.0.1 5063 >/dev/null
EXPECT   eq 'TCP_CLOSE>TCP_SYN_SENT TCP_SYN_SENT>TCP_CLOSE' "$(events "$OUT" | jq -r '"\(.values["oldstate:tcpstate"])>\(.values["newstate:tcpstate"])"' | joined)"
CASE
refused tcpstate_not_a_number "':tcpstate' does not apply to 'sk:tcpstate' \(const struct sock \*\); it takes an integer or enum" \
	"tp:sock:inet_sock_set_state(sk:tcpstate)"
refused signal_not_a_number "':signal' does not apply to 'sk:signal' \(const struct sock \*\); it takes an integer or enum" \
	"tp:sock:inet_sock_set_state(sk:signal)"

# What does not take ':tuple'.
refused tuple_not_a_skb "':tuple' does not apply to 'skb->len:tuple' \(unsigned int\); it takes a struct sk_buff \* or a struct sock \*" \
	"tp:net:net_dev_queue(skb->len:tuple)"
refused tuple_not_compared "':tuple' is printed, not compared" "tp:net:net_dev_queue(skb:tuple == 0)"
refused tuple_unknown_format "unknown format 'tupel' \(formats: hex, be, ip, sym, str, tuple, signal, tcpstate, strv\)" \
	"tp:net:net_dev_queue(skb:tupel)"

# --- --by 'skb:tuple': one row per flow.  Each flow is one socket pair
# sending N datagrams of 1 to N bytes: their lengths, ids and checksums
# differ, their flow does not.  net_dev_queue and netif_receive_skb fire
# once per packet on loopback (the events above: one each per datagram),
# so the counts are exact.
# flows ADDR,SPORT,DPORT,N ...: each flow's datagrams, in one namespace.
flows() {
	local cmd='ip link set lo up' f
	for f in "$@"; do
		cmd="$cmd && \"\$0\" dgrams $(echo "$f" | tr , ' ')"
	done
	unshare -n sh -c "$cmd" "$tmp/$prog" || fail "${T}_workload" "$prog flows $* failed"
	sleep 0.3
}
T=by_flow
ks_case <<'CASE'
NAME     by_flow
RUN      --duration 10 --count --by 'skb:tuple' -c "$prog" "tp:net:net_dev_queue(skb:tuple)"
WORKLOAD flows 127.0.0.1,5030,5031,3 127.0.0.1,5032,5033,5 ::1,5034,5035,4
EXPECT   by_flow_rows: count 3 '^ +[0-9]+  .* +tp:net_dev_queue$'
EXPECT   by_flow_first: count 1 '^ +3  127\.0\.0\.1:5030 > 127\.0\.0\.1:5031 udp +tp:net_dev_queue$'
EXPECT   by_flow_second: count 1 '^ +5  127\.0\.0\.1:5032 > 127\.0\.0\.1:5033 udp +tp:net_dev_queue$'
EXPECT   by_flow_ipv6: count 1 '^ +4  \[::1\]:5034 > \[::1\]:5035 udp +tp:net_dev_queue$'
EXPECT   by_flow_header: count 1 '^ +CALLS  skb:tuple +FUNCTION$'
CASE

# JSON: the key is the object ':tuple' prints; per function, sent and received.
T=by_flow_json
ks_case <<'CASE'
NAME     by_flow_json
RUN      --duration 10 -j --count --by skb -c "$prog" "tp:net:net_dev_queue(skb:tuple)" "tp:net:netif_receive_skb(skb:tuple)"
WORKLOAD flows ::1,5040,5041,2 ::1,5042,5043,6
EXPECT   by_flow_json_rows: eq 'tp:net_dev_queue:5040>5041:2 tp:net_dev_queue:5042>5043:6 tp:netif_receive_skb:5040>5041:2 tp:netif_receive_skb:5042>5043:6' \
	"$(record count "$OUT" | jq -r '"\(.func):\(.key.sport)>\(.key.dport):\(.count)"' | sort | joined)"
EXPECT   by_flow_json_key: eq '{"family":"ipv6","src":"::1","sport":5042,"dst":"::1","dport":5043,"proto":"udp"}' \
	"$(record count "$OUT" | jq -c 'select(.func == "tp:net_dev_queue" and .count == 6) | .key')"
EXPECT   by_flow_json_by: eq 'skb' "$(record count "$OUT" | jq -r .by | sort -u)"
CASE

# --hist of another value, per flow: skb->len of 3 datagrams of 1 to 3
# bytes is 43 to 45 at net_dev_queue (Ethernet 14, IPv4 20, UDP 8).
T=by_flow_hist
ks_case <<'CASE'
NAME     by_flow_hist
RUN      --duration 10 --hist --by 'skb:tuple' -c "$prog" "tp:net:net_dev_queue(skb:tuple, skb->len)"
WORKLOAD flows 127.0.0.1,5050,5051,3 127.0.0.1,5052,5053,1
EXPECT   by_flow_hist_first: count 1 '^tp:net_dev_queue \[skb:tuple 127\.0\.0\.1:5050 > 127\.0\.0\.1:5051 udp\]: skb->len \(3 calls\)$'
EXPECT   by_flow_hist_second: count 1 '^tp:net_dev_queue \[skb:tuple 127\.0\.0\.1:5052 > 127\.0\.0\.1:5053 udp\]: skb->len \(1 call\)$'
EXPECT   by_flow_hist_max: count 1 'max = 45$'
CASE

refused by_tuple_unnamed "--by 'skb:tuple' is not comm, pid, tid, cpu or a value the spec names; name it in the spec, as in \"tp:net_dev_queue\(skb:tuple\)\"" \
	--count --by 'skb:tuple' "tp:net:net_dev_queue(skb)"
refused by_tuple_at_return "--by 'skb:tuple': calls are counted at their return, where 'skb:tuple' is not read; not supported yet" \
	--hist --by 'skb:tuple' 'ip_send_skb(skb:tuple)'
refused by_tuple_not_a_skb "':tuple' does not apply to 'skb->len:tuple'" \
	--count --by 'skb->len:tuple' "tp:net:net_dev_queue(skb->len:tuple)"
