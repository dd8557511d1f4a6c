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
rm -rf "$tmp"
