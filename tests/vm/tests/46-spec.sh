#!/bin/sh
# The spec language on real kernel functions, both attach modes: bitfield
# predicates, one key per value, char arrays that hold more than a string.
. /tests/lib.sh

tmp=$(mktemp -d)
for mode in fentry kprobe; do
	T=$mode
	# skb->pkt_type is a 3-bit field; outgoing packets are PACKET_HOST (0).
	if start "$tmp/o1" "$tmp/e1" --mode $mode -c ping 'ip_output(skb->pkt_type == 0, skb->len == 84, skb->len)'; then
		ping -c 2 127.0.0.1 >/dev/null 2>&1
		stop
		count_is ${T}_bitfield_pred_match 4 '^    skb->len = 84$' "$tmp/o1" "$tmp/e1"
	else
		fail ${T}_attach_bitfield "$(cat "$tmp/e1")"
	fi
	if start "$tmp/o2" "$tmp/e2" --mode $mode -c ping 'ip_output(skb->pkt_type == 3, skb->len)'; then
		ping -c 2 127.0.0.1 >/dev/null 2>&1
		stop
		count_is ${T}_bitfield_pred_filters 0 'ip_output' "$tmp/o2" "$tmp/e2"
	else
		fail ${T}_attach_bitfield2 "$(cat "$tmp/e2")"
	fi
	# One key per value, even when a predicate names it too.
	if start "$tmp/o3" "$tmp/e3" --mode $mode -j -c ping 'ip_output(skb->len == 84, skb->len)'; then
		ping -c 1 127.0.0.1 >/dev/null 2>&1
		stop
		expect_eq ${T}_one_key_per_value '["skb->len"]' "$(jq -c '.values | keys' "$tmp/o3" | sort -u)"
	else
		fail ${T}_attach_one_key "$(cat "$tmp/e3")"
	fi
	# sockaddr's sa_data_min (sa_data) holds the port and the address after a NUL byte.
	if start "$tmp/o4" "$tmp/e4" --mode $mode -c nc 'tcp_v4_connect(uaddr->sa_data_min)'; then
		nc 127.0.0.1 1 </dev/null >/dev/null 2>&1
		stop
		count_is ${T}_char_array_after_nul 1 '^    uaddr->sa_data_min = "\\x00\\x01\\x7f\\x00\\x00\\x01"$' "$tmp/o4" "$tmp/e4"
	else
		fail ${T}_attach_sa_data "$(cat "$tmp/e4")"
	fi
done
rm -rf "$tmp"
