#!/bin/sh
# Tracepoints (tp_btf) on the stock 6.1 kernel too.
. /tests/lib.sh

tmp=$(mktemp -d)
out=$(ksnoop info tp:netif_receive_skb 2>&1)
expect_eq info "tp:netif_receive_skb(struct sk_buff *skb);" "$out"

# No -c ping: the receive softirq may run in ksoftirqd.  Only lo is up.
# __be16 8 is ETH_P_IP (0x0800) read little-endian.
ks_case <<'CASE'
NAME     netif_receive_skb
RUN      -n 2 'tp:netif_receive_skb(skb->len, skb->dev->name, skb->protocol)'
WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
UNTIL    exit
EXPECT   exit_status: exit 0
EXPECT   events: count 2 '-> tp:netif_receive_skb$'
EXPECT   len: count 2 '^    skb->len = 84$'
EXPECT   dev_name: count 2 '^    skb->dev->name = "lo"$'
EXPECT   protocol: count 2 '^    skb->protocol = 8$'
CASE

# A glob over a category: the ping's skb at each net tracepoint that takes
# one (the category from tracefs, the skb bound by type wherever it is).
# Sent and received on lo: net_dev_xmit, netif_rx, netif_receive_skb ...
# each with the 84-byte skb (at net_dev_queue it is 98: the Ethernet
# header is on); nothing else passes the predicate.
# 6.10 on (raw_tp cookies): one program for the matches, a link each,
# the cookie naming the tracepoint; 6.1: a program per match.
ks_case <<'CASE'
NAME     glob
RUN      'tp:net:*(struct sk_buff *s, s->len == 84, s->len)'
WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
WORKLOAD wait_lines "$OUT" 4 10
EXPECT   glob_category_only: stderr 'tp:net:\*\(struct sk_buff \*s, s->len == 84, s->len\): [1-9][0-9]* tracepoint\(s\) match'
EXPECT   glob_no_other_category: eq "" "$(grep -E 'tp:(kfree_skb|consume_skb|sched_)' "$ERR")"
EXPECT   glob_exit_status: exit 0
EXPECT   glob_xmit: match '^[0-9:.]+ cpu[0-9]+ .* -> tp:net_dev_xmit$'
EXPECT   glob_rx: match '^[0-9:.]+ cpu[0-9]+ .* -> tp:netif_rx$'
EXPECT   glob_values_84: eq "$(grep -c -- '-> tp:' "$OUT")" "$(grep -c '^    s->len = 84$' "$OUT")"
EXPECT   glob_nothing_left: eq "" "$(still_there prog "$PROGS")"
CASE
ks_case <<'CASE'
NAME     glob_program_per_match
MAX_KERNEL 6.9
RUN      'tp:net:*(struct sk_buff *s, s->len == 84, s->len)'
EXPECT   eq "" "$(grep -E 'one program, [0-9]+ tracepoints' "$ERR")"
CASE
traced() { sed -n 's/.*tracepoint(s) match, \([0-9]*\) traced.*/\1/p' "$ERR"; }
ks_case <<'CASE'
NAME     glob_shared_program
MIN_KERNEL 6.10
RUN      'tp:net:*(struct sk_buff *s, s->len == 84, s->len)'
EXPECT   stderr 'and [1-9][0-9]* more: one program, [1-9][0-9]* tracepoints'
EXPECT   glob_fewer_programs: text '^yes$' \
         "$([ "$(echo $PROGS | wc -w)" -lt "$(traced)" ] && echo yes || echo "$(echo $PROGS | wc -w) programs, $(traced) tracepoints traced")"
CASE
rm -rf "$tmp"
