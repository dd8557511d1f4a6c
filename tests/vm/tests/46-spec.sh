#!/bin/sh
# The spec language on real kernel functions, both attach modes: bitfield
# predicates, one key per value, char arrays that hold more than a string,
# casts and the :be, :ip, :sym and :hex formats.
. /tests/lib.sh

tmp=$(mktemp -d)
# Where a count includes ping's echo replies there is no -c ping: a reply is
# sent from the receive softirq, which runs in ping's context or, when it is
# deferred, in ksoftirqd's.  The VM has only lo and nothing else talking.
for mode in fentry kprobe; do
	T=$mode
	# skb->pkt_type is a 3-bit field; outgoing packets are PACKET_HOST (0).
	if start "$tmp/o1" "$tmp/e1" --mode $mode 'ip_output(skb->pkt_type == 0, skb->len == 84, skb->len)'; then
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
	# Member aliases: sk_prot is __sk_common.skc_prot (the kernel's macro).
	if start "$tmp/o5" "$tmp/e5" --mode $mode \
		'ip_output(skb->sk->sk_prot->name == "RAW", skb->pkt_type == 0, skb->len, skb->sk->sk_family)'; then
		ping -c 2 127.0.0.1 >/dev/null 2>&1
		stop
		# Two echo requests and the two replies, all on raw sockets.
		count_is ${T}_alias_pred_and_value 4 '^    skb->sk->sk_family = 2$' "$tmp/o5" "$tmp/e5"
		expect_match ${T}_alias_said "'sk_prot' is __sk_common.skc_prot in struct sock" "$(cat "$tmp/e5")"
	else
		fail ${T}_attach_alias "$(cat "$tmp/e5")"
	fi
	if start "$tmp/o6" "$tmp/e6" --mode $mode -c ping 'ip_output(skb->sk->sk_prot->name == "TCP")'; then
		ping -c 1 127.0.0.1 >/dev/null 2>&1
		stop
		count_is ${T}_alias_pred_filters 0 'ip_output' "$tmp/o6" "$tmp/e6"
	else
		fail ${T}_attach_alias2 "$(cat "$tmp/e6")"
	fi
	# Flag tests: O_CREAT (0x40) in how->flags: touch of a new file, not cat.
	if start "$tmp/o7" "$tmp/e7" --mode $mode 'do_sys_openat2(how->flags & 0x40, filename)'; then
		cat /proc/version >/dev/null
		touch "$tmp/new-$mode"
		stop
		count_is ${T}_mask_matches_creat 1 "^    filename = \"$tmp/new-$mode\"\$" "$tmp/o7" "$tmp/e7"
		count_is ${T}_mask_filters 0 '/proc/version' "$tmp/o7" "$tmp/e7"
	else
		fail ${T}_attach_mask "$(cat "$tmp/e7")"
	fi
	# Function pointers name their function: a raw socket's packets are
	# freed through sock_wfree.
	if start "$tmp/o8" "$tmp/e8" --mode $mode 'ip_output(skb->destructor)'; then
		ping -c 1 127.0.0.1 >/dev/null 2>&1
		stop
		count_is ${T}_fn_pointer_symbol 2 '^    skb->destructor = 0x[0-9a-f]+ <sock_wfree>$' "$tmp/o8" "$tmp/e8"
	else
		fail ${T}_attach_fn_pointer "$(cat "$tmp/e8")"
	fi
	# One key per value, even when a predicate names it too.
	if start "$tmp/o3" "$tmp/e3" --mode $mode -j -c ping 'ip_output(skb->len == 84, skb->len)'; then
		ping -c 1 127.0.0.1 >/dev/null 2>&1
		stop
		expect_eq ${T}_one_key_per_value '["skb->len"]' "$(events "$tmp/o3" | jq -c '.values | keys' | sort -u)"
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
	# Casts to a type the function does not take, and formats: connect()
	# passes a struct sockaddr *; the port and address are sockaddr_in's.
	sin='((struct sockaddr_in *)uaddr)'
	if start "$tmp/o9" "$tmp/e9" --mode $mode -c nc \
		"tcp_v4_connect($sin->sin_port:be, $sin->sin_addr.s_addr:ip, $sin->sin_port)"; then
		nc 127.0.0.1 1 </dev/null >/dev/null 2>&1
		stop
		count_is ${T}_cast_be_port 1 '^    \(\(struct sockaddr_in \*\)uaddr\)->sin_port:be = 1$' "$tmp/o9" "$tmp/e9"
		count_is ${T}_cast_ip_addr 1 '^    \(\(struct sockaddr_in \*\)uaddr\)->sin_addr.s_addr:ip = 127.0.0.1$' "$tmp/o9" "$tmp/e9"
		# The same member without :be: the bytes 00 01 read on x86-64.
		count_is ${T}_cast_raw_port 1 '^    \(\(struct sockaddr_in \*\)uaddr\)->sin_port = 256$' "$tmp/o9" "$tmp/e9"
	else
		fail ${T}_attach_cast "$(cat "$tmp/e9")"
	fi
	# Predicates on formatted values, in BPF: only port 1 on 127.0.0.1.
	if start "$tmp/o10" "$tmp/e10" --mode $mode -j -c nc \
		"tcp_v4_connect($sin->sin_port:be == 1, $sin->sin_addr:ip == \"127.0.0.1\", uaddr:hex)"; then
		nc 127.0.0.1 2 </dev/null >/dev/null 2>&1
		nc 127.0.0.2 1 </dev/null >/dev/null 2>&1
		nc 127.0.0.1 1 </dev/null >/dev/null 2>&1
		stop
		count_is ${T}_format_preds_select 1 '"func":"tcp_v4_connect"' "$tmp/o10" "$tmp/e10"
		expect_eq ${T}_format_json_values '1 127.0.0.1 true' \
			"$(events "$tmp/o10" | jq -r --arg p "$sin->sin_port:be" --arg a "$sin->sin_addr:ip" \
				'"\(.values[$p]) \(.values[$a]) \(.values["uaddr:hex"] | test("^0x[0-9a-f]+$"))"')"
	else
		fail ${T}_attach_format_preds "$(cat "$tmp/e10")"
	fi
	# :sym names a kernel address on its own.
	if start "$tmp/o11" "$tmp/e11" --mode $mode 'ip_output(skb->destructor:sym)'; then
		ping -c 1 127.0.0.1 >/dev/null 2>&1
		stop
		count_is ${T}_format_sym 2 '^    skb->destructor:sym = sock_wfree$' "$tmp/o11" "$tmp/e11"
	else
		fail ${T}_attach_format_sym "$(cat "$tmp/e11")"
	fi
	# ... data too (the socket's proto), and in JSON an
	# object like any pointer's, its address with its name (busybox's ping
	# is a raw socket).
	if start "$tmp/o12" "$tmp/e12" --mode $mode -j 'ip_output(skb->sk->sk_prot:sym)'; then
		ping -c 1 127.0.0.1 >/dev/null 2>&1
		stop
		expect_eq ${T}_format_sym_data 'raw_prot true' \
			"$(events "$tmp/o12" | jq -r '.values["skb->sk->sk_prot:sym"] | "\(.sym) \(.addr | test("^0xffff[0-9a-f]+$"))"' \
				2>&1 | sort -u | tr '\n' ' ' | sed 's/ $//')"
	else
		fail ${T}_attach_format_sym_data "$(cat "$tmp/e12")"
	fi
done
rm -rf "$tmp"
