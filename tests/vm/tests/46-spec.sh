#!/bin/sh
# The spec language on real kernel functions, both attach modes: bitfield
# predicates, one key per value, char arrays that hold more than a string,
# casts and the :be, :ip, :sym and :hex formats.
. /tests/lib.sh

tmp=$(mktemp -d)
sin='((struct sockaddr_in *)uaddr)'
# Where a count includes ping's echo replies there is no -c ping: a reply is
# sent from the receive softirq, which runs in ping's context or, when it is
# deferred, in ksoftirqd's.  The VM has only lo and nothing else talking.
for mode in fentry kprobe; do
	T=$mode
	# skb->pkt_type is a 3-bit field; outgoing packets are PACKET_HOST (0).
	ks_case <<-'CASE'
		NAME     ${T}_bitfield_pred_match
		RUN      --mode $mode 'ip_output(skb->pkt_type == 0, skb->len == 84, skb->len)'
		WORKLOAD ping -c 2 127.0.0.1 >/dev/null 2>&1
		EXPECT   count 4 '^    skb->len = 84$'
		CASE
	ks_case <<-'CASE'
		NAME     ${T}_bitfield_pred_filters
		RUN      --mode $mode -c ping 'ip_output(skb->pkt_type == 3, skb->len)'
		WORKLOAD ping -c 2 127.0.0.1 >/dev/null 2>&1
		EXPECT   count 0 'ip_output'
		CASE
	# Member aliases: sk_prot is __sk_common.skc_prot (the kernel's macro).
	# Two echo requests and the two replies, all on raw sockets.
	ks_case <<-'CASE'
		NAME     ${T}_alias_pred_and_value
		RUN      --mode $mode \
		         'ip_output(skb->sk->sk_prot->name == "RAW", skb->pkt_type == 0, skb->len, skb->sk->sk_family)'
		WORKLOAD ping -c 2 127.0.0.1 >/dev/null 2>&1
		EXPECT   count 4 '^    skb->sk->sk_family = 2$'
		EXPECT   ${T}_alias_said: stderr "'sk_prot' is __sk_common.skc_prot in struct sock"
		CASE
	ks_case <<-'CASE'
		NAME     ${T}_alias_pred_filters
		RUN      --mode $mode -c ping 'ip_output(skb->sk->sk_prot->name == "TCP")'
		WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
		EXPECT   count 0 'ip_output'
		CASE
	# Flag tests: O_CREAT (0x40) in how->flags: touch of a new file, not cat.
	ks_case <<-'CASE'
		NAME     ${T}_mask
		RUN      --mode $mode 'do_sys_openat2(how->flags & 0x40, filename)'
		WORKLOAD cat /proc/version >/dev/null
		WORKLOAD touch "$tmp/new-$mode"
		EXPECT   ${T}_mask_matches_creat: count 1 "^    filename = \"$tmp/new-$mode\"\$"
		EXPECT   ${T}_mask_filters: count 0 '/proc/version'
		CASE
	# Function pointers name their function: a raw socket's packets are
	# freed through sock_wfree.
	ks_case <<-'CASE'
		NAME     ${T}_fn_pointer_symbol
		RUN      --mode $mode 'ip_output(skb->destructor)'
		WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
		EXPECT   count 2 '^    skb->destructor = 0x[0-9a-f]+ <sock_wfree>$'
		CASE
	# One key per value, even when a predicate names it too.
	ks_case <<-'CASE'
		NAME     ${T}_one_key_per_value
		RUN      --mode $mode -j -c ping 'ip_output(skb->len == 84, skb->len)'
		WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
		EXPECT   eq '["skb->len"]' "$(events "$OUT" | jq -c '.values | keys' | sort -u)"
		CASE
	# sockaddr's sa_data_min (sa_data) holds the port and the address after a NUL byte.
	# 7.3's tcp_v4_connect takes a struct sockaddr_unsized (sa_data[0]),
	# and its struct sockaddr has sa_data[14] again (no sa_data_min).
	ks_case <<-'CASE'
		NAME     ${T}_char_array_after_nul
		MAX_KERNEL 6.12
		RUN      --mode $mode -c nc 'tcp_v4_connect(uaddr->sa_data_min)'
		WORKLOAD nc 127.0.0.1 1 </dev/null >/dev/null 2>&1
		EXPECT   count 1 '^    uaddr->sa_data_min = "\\x00\\x01\\x7f\\x00\\x00\\x01"$'
		CASE
	ks_case <<-'CASE'
		NAME     ${T}_char_array_after_nul_sockaddr
		MIN_KERNEL 7.3
		RUN      --mode $mode -c nc 'tcp_v4_connect(((struct sockaddr *)uaddr)->sa_data)'
		WORKLOAD nc 127.0.0.1 1 </dev/null >/dev/null 2>&1
		EXPECT   count 1 '^    \(\(struct sockaddr \*\)uaddr\)->sa_data = "\\x00\\x01\\x7f\\x00\\x00\\x01"$'
		CASE
	# Casts to a type the function does not take, and formats: connect()
	# passes a struct sockaddr *; the port and address are sockaddr_in's.
	# The same member without :be: the bytes 00 01 read on x86-64.
	ks_case <<-'CASE'
		NAME     ${T}_cast
		RUN      --mode $mode -c nc \
		         "tcp_v4_connect($sin->sin_port:be, $sin->sin_addr.s_addr:ip, $sin->sin_port)"
		WORKLOAD nc 127.0.0.1 1 </dev/null >/dev/null 2>&1
		EXPECT   ${T}_cast_be_port: count 1 '^    \(\(struct sockaddr_in \*\)uaddr\)->sin_port:be = 1$'
		EXPECT   ${T}_cast_ip_addr: count 1 '^    \(\(struct sockaddr_in \*\)uaddr\)->sin_addr.s_addr:ip = 127.0.0.1$'
		EXPECT   ${T}_cast_raw_port: count 1 '^    \(\(struct sockaddr_in \*\)uaddr\)->sin_port = 256$'
		CASE
	# Predicates on formatted values, in BPF: only port 1 on 127.0.0.1.
	ks_case <<-'CASE'
		NAME     ${T}_format_preds
		RUN      --mode $mode -j -c nc \
		         "tcp_v4_connect($sin->sin_port:be == 1, $sin->sin_addr:ip == \"127.0.0.1\", uaddr:hex)"
		WORKLOAD nc 127.0.0.1 2 </dev/null >/dev/null 2>&1
		WORKLOAD nc 127.0.0.2 1 </dev/null >/dev/null 2>&1
		WORKLOAD nc 127.0.0.1 1 </dev/null >/dev/null 2>&1
		EXPECT   ${T}_format_preds_select: count 1 '"func":"tcp_v4_connect"'
		EXPECT   ${T}_format_json_values: eq '1 127.0.0.1 true' \
		         "$(events "$OUT" | jq -r --arg p "$sin->sin_port:be" --arg a "$sin->sin_addr:ip" \
		            '"\(.values[$p]) \(.values[$a]) \(.values["uaddr:hex"] | test("^0x[0-9a-f]+$"))"')"
		CASE
	# :sym names a kernel address on its own.
	ks_case <<-'CASE'
		NAME     ${T}_format_sym
		RUN      --mode $mode 'ip_output(skb->destructor:sym)'
		WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
		EXPECT   count 2 '^    skb->destructor:sym = sock_wfree$'
		CASE
	# ... data too (the socket's proto), and in JSON an
	# object like any pointer's, its address with its name (busybox's ping
	# is a raw socket).
	ks_case <<-'CASE'
		NAME     ${T}_format_sym_data
		RUN      --mode $mode -j 'ip_output(skb->sk->sk_prot:sym)'
		WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
		EXPECT   eq 'raw_prot true' \
		         "$(events "$OUT" | jq -r '.values["skb->sk->sk_prot:sym"] | "\(.sym) \(.addr | test("^0xffff[0-9a-f]+$"))"' \
		            2>&1 | sort -u | tr '\n' ' ' | sed 's/ $//')"
		CASE
done
rm -rf "$tmp"
