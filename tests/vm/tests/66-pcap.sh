#!/bin/sh
# --pcap on kernel functions, both attach modes: a UDP datagram from
# known ports seen where IP sends it (ip_finish_output2: its third
# argument, no MAC header yet: raw IP) and where IP receives it (ip_rcv:
# the Ethernet frame loopback made), and under --track.  No tshark here
# (busybox): the file's packets are counted by ksnoop (-v) and their
# ports found in its bytes; tests/live/52-pcap.sh reads files with tshark.
# And a type glob with --track, --filter and --pcap together: every ip_*
# function taking an skb (not vmlinux's ~1,600 of '*(struct sk_buff *s)':
# under TCG those take minutes to attach in each mode), the datagram
# followed from where the filter passes to its free (the functions
# --track adds: tp:consume_skb, kfree_skbmem...).
. /tests/lib.sh

tmp=$(mktemp -d)

# hexof FILE: FILE's bytes as one line of hex.
hexof() { od -An -v -tx1 "$1" | tr -d ' \n'; }
# ports FILE [PAIR]: how many times UDP 5020 > 5021 (139c 139d), or PAIR, is in FILE.
ports() { hexof "$1" | grep -o "${2:-139c139d}" | wc -l; }
# texts FILE: FILE's bytes, a line between NULs (busybox grep reads a
# line only up to its first NUL).
texts() { tr '\000' '\n' <"$1"; }
# frames FILE: the packets' link types, in order: "eth" (a header of
# Ethernet type IPv4 before the IP header) or "raw" (the IP header first).
frames() {
	hexof "$1" | grep -oE '(08004500|0000004500)[0-9a-f]{36}139c139d' |
		sed -E 's/^0800.*/eth/; s/^0000.*/raw/' | tr '\n' ' '
}

for mode in fentry kprobe; do
	T=$mode
	F=$tmp/$mode.pcapng
	ks_case <<-'CASE'
		NAME     ${T}_pcap
		RUN      --mode $mode -n 2 --pcap $F 'ip_finish_output2(skb->len == 29)' 'ip_rcv(skb->len == 29)'
		WORKLOAD vmprog dgram 127.0.0.1 5020 5021 recv
		UNTIL    exit
		EXPECT   ${T}_pcap_written: stderr '--pcap: 2 packets written'
		EXPECT   ${T}_pcap_ports: eq 2 "$(ports $F)"
		EXPECT   ${T}_pcap_raw_then_eth: eq 'raw eth ' "$(frames $F)"
		EXPECT   ${T}_pcap_comment: eq 1 "$(texts $F | grep -c '^ip_finish_output2 comm=vmprog pid=')"
	CASE
	F2=$tmp/$mode-track.pcapng
	ks_case <<-'CASE'
		NAME     ${T}_pcap_track
		RUN      --mode $mode -n 2 --track s --pcap $F2 'ip_finish_output2(struct sk_buff *s, s->len == 29)' 'ip_rcv(struct sk_buff *s)'
		WORKLOAD vmprog dgram 127.0.0.1 5020 5021 recv
		UNTIL    exit
		EXPECT   ${T}_pcap_track_ports: eq 2 "$(ports $F2)"
		EXPECT   ${T}_pcap_track_objects: eq 2 "$(texts $F2 | grep -c ' object=0x[0-9a-f]* story=[1-9]')"
	CASE
	F3=$tmp/$mode-filter.pcapng
	ks_case <<-'CASE'
		NAME     ${T}_filter
		RUN      --mode $mode -n 2 --filter 'udp dst port 5021' --pcap $F3 'ip_finish_output2(skb->len)' 'ip_rcv(skb->len)'
		WORKLOAD vmprog dgram 127.0.0.1 5020 5023
		WORKLOAD vmprog dgram 127.0.0.1 5020 5021 recv
		UNTIL    exit
		EXPECT   ${T}_filter_exit: exit 0
		EXPECT   ${T}_filter_written: stderr '--pcap: 2 packets written'
		EXPECT   ${T}_filter_passed: eq 2 "$(ports $F3)"
		EXPECT   ${T}_filter_rejected: eq 0 "$(ports $F3 139c139f)"
		EXPECT   ${T}_filter_raw_then_eth: eq 'raw eth ' "$(frames $F3)"
	CASE
	ks_case <<-'CASE'
		NAME     ${T}_filter_track
		RUN      --mode $mode -n 2 --track s --filter 'udp port 5021' 'ip_finish_output2(struct sk_buff *s, s->len)' 'ip_rcv(struct sk_buff *s, s->len)'
		WORKLOAD vmprog dgram 127.0.0.1 5020 5023
		WORKLOAD vmprog dgram 127.0.0.1 5020 5021 recv
		UNTIL    exit
		EXPECT   ${T}_filter_track_exit: exit 0
		EXPECT   ${T}_filter_track_events: count 2 ' object 0x[0-9a-f]+$'
		EXPECT   ${T}_filter_track_len: count 2 's->len = 29'
	CASE
	F4=$tmp/$mode-glob.pcapng
	ks_case <<-'CASE'
		NAME     ${T}_glob_track_pcap
		RUN      --mode $mode --track s --filter 'udp port 5021' --pcap $F4 'ip_*(struct sk_buff *s)'
		WORKLOAD vmprog dgram 127.0.0.1 5020 5023
		WORKLOAD vmprog dgram 127.0.0.1 5020 5021 recv
		TIMEOUT  300
		EXPECT   ${T}_glob_track_pcap_exit: exit 0
		EXPECT   ${T}_glob_track_pcap_several: eq yes "$([ "$(ports $F4)" -ge 3 ] && echo yes)"
		EXPECT   ${T}_glob_track_pcap_rejected: eq 0 "$(ports $F4 139c139f)"
		EXPECT   ${T}_glob_track_pcap_functions: eq yes "$([ "$(texts $F4 | grep -o '^ip_[a-z0-9_]* comm=vmprog ' | sort -u | wc -l)" -ge 3 ] && echo yes)"
		EXPECT   ${T}_glob_track_pcap_objects: eq "$(ports $F4)" "$(texts $F4 | grep -c ' comm=.* object=0x[0-9a-f]* story=[1-9]')"
	CASE
done
