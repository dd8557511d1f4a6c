#!/bin/bash
# --pcap live: the packets of the skbs that tracepoints pass, written as
# pcapng and read back by tshark (Debian's, a reader we did not write).
# Datagrams of known ports and payload ('x') on loopback, in a network
# namespace of their own (vmprog): one received (seen queued and
# received: the same packet twice, two comments), one to a port nobody
# listens on (the ICMP port unreachable that answers it), a TCP SYN;
# under --track
# the comments name the object; the file is whole while ksnoop runs.
# Then the refusals (one line, exit 2).  Tracepoints, as root.
. "$(dirname "$0")/helpers.bash"

golden=$(cd "$(dirname "$0")/../golden/52-pcap" && pwd)
needs_root pcap
scratch_dir
V=${KSNOOP_USDT_DIR:?}/../vm/vmprog
if [ ! -x "$V" ] || ! command -v unshare >/dev/null || ! command -v ip >/dev/null ||
   ! command -v tshark >/dev/null; then
	fail pcap_workload "needs $V (make build/vm/vmprog), unshare, ip and tshark (make deps)"
	exit 0
fi
# A copy named after this run: its comm is ours alone.
prog=kspcp$$
cp "$V" "$tmp/$prog"

# net PROG-ARGS...: run our program in a namespace whose only traffic is its own.
net() {
	unshare -n sh -c 'ip link set lo up && exec "$@"' sh "$tmp/$prog" "$@" ||
		fail "${T}_workload" "$prog $* failed"
}
# tshark's FIELDS of FILE's packets (matching FILTER, if given), one packet a line.
fields() {
	local file=$1 filter=$2
	shift 2
	tshark -r "$file" ${filter:+-Y "$filter"} -T fields -E separator=' ' \
		$(printf -- '-e %s ' "$@") 2>/dev/null
}
# Until FILE holds N packets tshark reads whole (at most 600 polls): the
# file is valid while ksnoop runs.  Their count goes to FILE.count.
packets_while_running() {
	local file=$1 n=$2 i c=0
	for i in $(seq 600); do
		c=$(tshark -r "$file" 2>/dev/null | wc -l)
		[ "$c" -ge "$n" ] && break
		sleep 0.05
	done
	echo "$c" >"$file.count"
	kill -0 "$KPID" 2>/dev/null && echo running >>"$file.count"
}

# UDP from 5000 to 5001, received: an Ethernet frame of 43 bytes queued
# (skb->len counts the Ethernet header) and 29 received (from the IP
# header: eth_type_trans() pulled it); the predicates say so.
T=pcap_udp
F=$tmp/udp.pcapng
ks_case <<'CASE'
NAME     pcap_udp
RUN      -n 2 -c "$prog" --pcap "$F" "tp:net:net_dev_queue(skb->len == 43)" "tp:net:netif_receive_skb(skb->len == 29)"
WORKLOAD net dgram 127.0.0.1 5000 5001 recv
UNTIL    exit
EXPECT   pcap_udp_exit: exit 0
EXPECT   pcap_udp_decoded: eq '5000 5001 78,5000 5001 78' "$(fields "$F" '' udp.srcport udp.dstport udp.payload | paste -sd,)"
EXPECT   pcap_udp_wall_clock: eq 1 "$(fields "$F" 'frame.number == 1' frame.time_epoch | awk -v now="$(date +%s)" '{ print ($1 > now - 300 && $1 <= now + 1) }')"
EXPECT   pcap_udp_ethernet_lo: eq '1 lo,1 lo' "$(fields "$F" '' frame.encap_type frame.interface_name | paste -sd,)"
EXPECT   pcap_udp_lengths: eq '43 43,43 43' "$(fields "$F" '' frame.len frame.cap_len | paste -sd,)"
EXPECT   pcap_udp_one_packet_twice: eq 1 "$(fields "$F" '' ip.id | sort -u | wc -l)"
EXPECT   pcap_udp_comment_queued: text "^tp:net_dev_queue comm=$prog pid=[0-9]+ tid=[0-9]+$" "$(fields "$F" 'frame.number == 1' frame.comment)"
EXPECT   pcap_udp_comment_received: text "^tp:netif_receive_skb comm=$prog pid=[0-9]+ tid=[0-9]+$" "$(fields "$F" 'frame.number == 2' frame.comment)"
EXPECT   pcap_udp_events_printed: count 2 "^[0-9:.]+ cpu[0-9]+ $prog "
EXPECT   pcap_udp_no_packet_printed: no_match 'packet'
CASE

# To a port nobody listens on: the ICMP error that comes back, decoded,
# with the datagram it quotes; the snap length cuts what is written.
T=pcap_icmp
F2=$tmp/icmp.pcapng
ks_case <<'CASE'
NAME     pcap_icmp
RUN      -n 2 -c "$prog" --snaplen 60 --pcap "$F2" "tp:net:net_dev_queue(skb)"
WORKLOAD net dgram 127.0.0.1 5002 5003
UNTIL    exit
EXPECT   pcap_icmp_unreachable: eq 1 "$(fields "$F2" 'icmp.type == 3 && icmp.code == 3' frame.number | wc -l)"
EXPECT   pcap_icmp_snaplen: eq '43 43,71 60' "$(fields "$F2" '' frame.len frame.cap_len | paste -sd,)"
CASE

# TCP: a connection from 5006 to a listener on 5007; its first packet
# queued is the SYN, decoded as one (and nothing else set but SYN).
T=pcap_tcp
F5=$tmp/tcp.pcapng
ks_case <<'CASE'
NAME     pcap_tcp
RUN      -n 1 -c "$prog" --pcap "$F5" "tp:net:net_dev_queue(skb)"
WORKLOAD net tcp 127.0.0.1 5006 5007
UNTIL    exit
EXPECT   pcap_tcp_exit: exit 0
EXPECT   pcap_tcp_syn: eq '5006 5007 1 0' "$(fields "$F5" 'tcp' tcp.srcport tcp.dstport tcp.flags.syn tcp.flags.ack | sed 's/True/1/g; s/False/0/g')"
CASE

# --track: each packet's comment names its object and story.
T=pcap_track
F3=$tmp/track.pcapng
ks_case <<'CASE'
NAME     pcap_track
RUN      -n 2 -c "$prog" --track s --pcap "$F3" "tp:net:net_dev_queue(struct sk_buff *s, s->len == 43)" "tp:net:netif_receive_skb(struct sk_buff *s)"
WORKLOAD net dgram 127.0.0.1 5004 5005 recv
UNTIL    exit
EXPECT   pcap_track_comments: eq 2 "$(fields "$F3" 'udp.dstport == 5005' frame.comment | grep -cE " object=0x[0-9a-f]+ story=[1-9][0-9]*$")"
EXPECT   pcap_track_one_object: eq 1 "$(fields "$F3" '' frame.comment | grep -oE 'object=0x[0-9a-f]+' | sort -u | wc -l)"
CASE

# Read while ksnoop runs: every block written whole, flushed; then Ctrl-C.
T=pcap_live
F4=$tmp/live.pcapng
ks_case <<'CASE'
NAME     pcap_live
RUN      --duration 60 -c "$prog" --pcap "$F4" "tp:net:net_dev_queue(skb->len == 43)"
WORKLOAD net dgram 127.0.0.1 5006 5007 recv
WORKLOAD packets_while_running "$F4" 1
EXPECT   pcap_live_read_while_running: eq '1,running' "$(paste -sd, "$F4.count")"
EXPECT   pcap_live_after_stop: eq 1 "$(fields "$F4" 'udp.dstport == 5007' frame.number | wc -l)"
CASE

# A disk that fills while tracing: one line, exit 1 (a runtime failure).
T=pcap_full
mkdir "$tmp/small"
if mount -t tmpfs -o size=8k tmpfs "$tmp/small"; then
	at_exit umount "$tmp/small"
	ks_case <<'CASE'
NAME     pcap_full
RUN      --duration 60 -c "$prog" --pcap "$tmp/small/full.pcapng" "tp:net:net_dev_queue(skb)"
WORKLOAD net dgrams 127.0.0.1 5010 5011 200
UNTIL    exit
EXPECT   pcap_full_exit: exit 1
EXPECT   pcap_full_said: stderr '^ksnoop: --pcap: writing failed: No space left on device$'
CASE
else
	fail pcap_full "cannot mount a tmpfs of 8 KiB on $tmp/small"
fi

# Refused: one line on stderr, exit 2, nothing attached.
# record --pcap keeps each event's packet in the recording as well as
# writing the file; report --pcap writes it again from the recording:
# the same file, byte for byte, and tshark reads the same packets.
T=pcap_report
F5=$tmp/rec-live.pcapng
F6=$tmp/rec-report.pcapng
R=$tmp/pcap.ksr
ks_case <<'CASE'
NAME     pcap_record
RUN      -n 2 -c "$prog" --pcap "$F5" record -o "$R" "tp:net:net_dev_queue(skb->len == 43)" "tp:net:netif_receive_skb(skb->len == 29)"
WORKLOAD net dgram 127.0.0.1 5006 5007 recv
UNTIL    exit
EXPECT   pcap_record_exit: exit 0
EXPECT   pcap_record_written: stderr '--pcap: 2 packets written'
CASE
ks report -v --pcap "$F6" "$R" >"$tmp/pcap_report.out" 2>"$tmp/pcap_report.err"
expect_eq pcap_report_exit 0 "$?"
expect_match pcap_report_written '--pcap: 2 packets written' "$(cat "$tmp/pcap_report.err")"
expect_eq pcap_report_decoded '5006 5007 78,5006 5007 78' "$(fields "$F6" '' udp.srcport udp.dstport udp.payload | paste -sd,)"
expect_eq pcap_report_as_live "$(fields "$F5" '' frame.time_epoch frame.interface_name frame.len frame.comment)" \
	"$(fields "$F6" '' frame.time_epoch frame.interface_name frame.len frame.comment)"
if cmp -s "$F5" "$F6"; then pass pcap_report_same_bytes; else fail pcap_report_same_bytes "$F6 differs from the live $F5"; fi
expect_eq pcap_report_events 2 "$(grep -cE '^[0-9:.]+ cpu[0-9]+ ' "$tmp/pcap_report.out")"

# A recording without packets for report --pcap to refuse (the fixture's).
cp "$(dirname "$0")/../fixture/record/tp.ksr" "$tmp/tp.ksr"
KSNOOP_TIMEOUT=20 ks_errors --in "$tmp" "$golden/errors" <<'TABLE'
pcap_no_skb           --pcap out.pcapng tp:sched:sched_process_exec
pcap_dir_missing      --pcap no/such/dir/out.pcapng tp:net:net_dev_queue
pcap_unwritable       --pcap /proc/version tp:net:net_dev_queue
pcap_info             info --pcap out.pcapng ip_rcv
pcap_report_no_packets report --pcap out.pcapng tp.ksr
pcap_report_merged    report --pcap out.pcapng tp.ksr tp.ksr
pcap_report_count     report --count --pcap out.pcapng tp.ksr
pcap_report_snaplen   report --snaplen 64 --pcap out.pcapng tp.ksr
pcap_count            --count --pcap out.pcapng tp:net:net_dev_queue
snaplen_without_pcap  --snaplen 64 tp:net:net_dev_queue
snaplen_zero          --snaplen 0 --pcap out.pcapng tp:net:net_dev_queue
snaplen_too_large     --snaplen 16385 --pcap out.pcapng tp:net:net_dev_queue
TABLE
