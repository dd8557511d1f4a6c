#!/bin/sh
# Tracepoints (tp_btf) on the stock 6.1 kernel too.
. /tests/lib.sh

tmp=$(mktemp -d)
out=$(ksnoop info tp:netif_receive_skb 2>&1)
expect_eq info "tp:netif_receive_skb(struct sk_buff *skb);" "$out"

# No -c ping: the receive softirq may run in ksoftirqd.  Only lo is up.
ksnoop -v -n 2 'tp:netif_receive_skb(skb->len, skb->dev->name, skb->protocol)' >"$tmp/o" 2>"$tmp/e" &
k=$!
i=0
while [ $i -lt 300 ] && ! grep -q "tracing" "$tmp/e"; do sleep 0.1; i=$((i + 1)); done
ping -c 1 127.0.0.1 >/dev/null 2>&1
i=0
while [ $i -lt 200 ] && kill -0 $k 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
kill -9 $k 2>/dev/null
wait $k; rc=$?
expect_eq exit_status 0 "$rc"
expect_eq events 2 "$(grep -c -- '-> tp:netif_receive_skb$' "$tmp/o")"
expect_eq len 2 "$(grep -c '^    skb->len = 84$' "$tmp/o")"
expect_eq dev_name 2 "$(grep -c '^    skb->dev->name = "lo"$' "$tmp/o")"
# __be16 8 is ETH_P_IP (0x0800) read little-endian.
expect_eq protocol 2 "$(grep -c '^    skb->protocol = 8$' "$tmp/o")"

# A glob over a category: the ping's skb at each net tracepoint that takes
# one (the category from tracefs, the skb bound by type wherever it is).
start "$tmp/g" "$tmp/ge" 'tp:net:*(struct sk_buff *s, s->len == 84, s->len)' ||
	fail glob_attach "$(cat "$tmp/ge")"
expect_match glob_category_only 'tp:net:\*\(struct sk_buff \*s, s->len == 84, s->len\): [1-9][0-9]* tracepoint\(s\) match' "$(cat "$tmp/ge")"
expect_no_match glob_no_other_category 'tp:(kfree_skb|consume_skb|sched_)' "$(cat "$tmp/ge")"
ping -c 1 127.0.0.1 >/dev/null 2>&1
wait_lines "$tmp/g" 4 10
stop
expect_eq glob_exit_status 0 "$RC"
# Sent and received on lo: net_dev_xmit, netif_rx, netif_receive_skb ...
# each with the 84-byte skb (at net_dev_queue it is 98: the Ethernet
# header is on); nothing else passes the predicate.
expect_match glob_xmit '^[0-9:.]+ cpu[0-9]+ .* -> tp:net_dev_xmit$' "$(cat "$tmp/g")"
expect_match glob_rx '^[0-9:.]+ cpu[0-9]+ .* -> tp:netif_rx$' "$(cat "$tmp/g")"
expect_eq glob_values_84 "$(grep -c -- '-> tp:' "$tmp/g")" "$(grep -c '^    s->len = 84$' "$tmp/g")"
# 6.10 on (raw_tp cookies): one program for the matches, a link each,
# the cookie naming the tracepoint; 6.1: a program per match.
case $(uname -r) in
6.[0-9].* | [1-5].*)
	expect_no_match glob_program_per_match 'one program, [0-9]+ tracepoints' "$(cat "$tmp/ge")" ;;
*)
	expect_match glob_shared_program 'and [1-9][0-9]* more: one program, [1-9][0-9]* tracepoints' "$(cat "$tmp/ge")"
	expect_fewer glob_fewer_programs "$(echo $PROGS | wc -w)" \
		"$(sed -n 's/.*tracepoint(s) match, \([0-9]*\) traced.*/\1/p' "$tmp/ge")" "programs (tracepoints traced)" ;;
esac
expect_eq glob_nothing_left "" "$(still_there prog "$PROGS")"
rm -rf "$tmp"
