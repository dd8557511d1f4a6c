#!/bin/sh
# vm-timeout: 1200
# --track (issue #29) on kernel functions and tracepoints together, both
# attach modes.  ping -c 3 127.0.0.1: each echo skb (84 bytes at the IP
# layer) is followed from where its predicate holds to its free, through
# calls where it does not (98 bytes where the device queues it, 64 in
# icmp_rcv past the IP header), which the same specs without --track
# leave out (the replies are 84 bytes too: 6 objects); a raw socket's
# clone of a reply (skb_clone) is followed to its own free (icmp_rcv and
# icmp_echo, a glob, share a kprobe program: kprobe.multi on 6.12); UDP datagrams of other sizes sent afterwards (their skbs
# reuse freed addresses) are never reported.  A second type: struct file,
# ended by --untrack __fput: dd of one file followed from its first read
# (at position 0) through the reads past it, to __fput; another file's
# reads, never.  --group with --track-max: objects pushed out of the set
# end their groups (evicted), a reused address never continues one.
. /tests/lib.sh

tmp=$(mktemp -d)
echo "ksnoop track test" >"$tmp/ktrack_target"
echo "another file" >"$tmp/ktrack_other"

SKB="ip_output ip_finish_output2 ip_rcv ip_local_deliver icmp_[er]c* __dev_queue_xmit tp:net:*"
skb_specs() {
	set -f
	for f in $SKB; do
		printf "'%s(struct sk_buff *s, s->len == 84, s->len)' " "$f"
	done
	set +f
}
SPECS=$(skb_specs)

ping_then_udp() {
	ping -c 3 -i 0.2 127.0.0.1 >/dev/null 2>&1
	vmprog udp 3 20
}

# stories FILE: each object's story in event order, "FIRST>LAST" (an
# address freed and used again starts a new one).
stories() {
	events "$1" | jq -r '"\(.object) \(.func) \(.freed)"' |
		awk '!($1 in first) { first[$1] = $2 } $3 == "true" { print first[$1] ">" $2; delete first[$1] }
		     END { for (o in first) print first[o] ">(not freed)" }'
}
# jq_count FILE FILTER: how many events FILTER selects.
jq_count() { events "$1" | jq -c "select($2)" | wc -l; }

for mode in fentry kprobe; do
	T=$mode
	# kprobes: the glob's two functions share one program (kprobe.multi
	# on 6.12); an EXPECT of the kprobe case only.
	ICMP_SHARED=
	[ $mode = fentry ] ||
		ICMP_SHARED="EXPECT   ${T}_icmp_one_program: stderr 'icmp_(echo|rcv) and 1 more: one program'"
	ks_case <<-CASE
		NAME     ${T}_skb
		RUN      --mode $mode -j --track s $SPECS
		WORKLOAD ping_then_udp
		EXPECT   ${T}_echo_skbs: eq 6 "\$(stories "\$OUT" | grep -c '^ip_output>')"
		EXPECT   ${T}_all_freed: eq 0 "\$(stories "\$OUT" | grep -c 'not freed')"
		EXPECT   ${T}_ends_at_free: eq "" "\$(stories "\$OUT" | grep -Ev '>(tp:consume_skb|tp:kfree_skb|__kfree_skb|kfree_skbmem|napi_skb_cache_put)\$')"
		EXPECT   ${T}_queued_tracked: eq 1 "\$([ \$(jq_count "\$OUT" '.func == "__dev_queue_xmit" and .tracked == true and .values["s->len"] == 98') -ge 3 ] && echo 1)"
		EXPECT   ${T}_icmp_rcv_tracked: eq 1 "\$([ \$(jq_count "\$OUT" '.func == "icmp_rcv" and .tracked == true and .values["s->len"] == 64') -ge 3 ] && echo 1)"
		EXPECT   ${T}_tp_tracked: eq 1 "\$([ \$(jq_count "\$OUT" '.func == "tp:net_dev_queue" and .tracked == true') -ge 3 ] && echo 1)"
		EXPECT   ${T}_held_not_tracked: eq 0 "\$(jq_count "\$OUT" '.tracked == true and .values["s->len"] == 84')"
		EXPECT   ${T}_no_udp: eq 0 "\$(jq_count "\$OUT" '.values["s->len"] == 48 or .values["s->len"] == 62 or .values["s->len"] == 28')"
		EXPECT   ${T}_clone_followed: eq 1 "\$([ \$(stories "\$OUT" | grep -c '^skb_clone>') -ge 1 ] && echo 1)"
		EXPECT   ${T}_clone_event: eq 1 "\$([ \$(jq_count "\$OUT" '.func == "skb_clone" and .kind == "return" and .clone == true') -ge 1 ] && echo 1)"
		EXPECT   ${T}_summary: eq 0 "\$(record summary "\$OUT" | jq '.objects_alive + .objects_evicted + .objects_not_tracked')"
		EXPECT   ${T}_clone_attached: stderr 'skb_clone\\(struct sk_buff \\*s, return:hex\\): 1 [a-z]+\\(s\\) match, 1 traced'
		EXPECT   ${T}_free_attached: stderr '__kfree_skb\\(struct sk_buff \\*s\\): 1 [a-z]+\\(s\\) match, 1 traced'
		$ICMP_SHARED
	CASE
	ks_case <<-CASE
		NAME     ${T}_skb_untracked
		RUN      --mode $mode -j $SPECS
		WORKLOAD ping_then_udp
		EXPECT   ${T}_untracked_no_icmp_rcv: eq 0 "\$(jq_count "\$OUT" '.func == "icmp_rcv"')"
		EXPECT   ${T}_untracked_no_queue: eq 0 "\$(jq_count "\$OUT" '.func == "__dev_queue_xmit"')"
		EXPECT   ${T}_untracked_ip_output: eq 6 "\$(jq_count "\$OUT" '.func == "ip_output"')"
	CASE
	ks_case <<-CASE
		NAME     ${T}_file
		RUN      --mode $mode -c dd --track f --untrack __fput 'vfs_read(struct file *f, (char *)f->f_path.dentry->d_name.name == "ktrack_target", f->f_pos == 0, f->f_pos)'
		WORKLOAD dd if=$tmp/ktrack_target of=/dev/null bs=8 2>/dev/null
		WORKLOAD dd if=$tmp/ktrack_other of=/dev/null bs=8 2>/dev/null
		EXPECT   ${T}_file_first_read: eq 1 "\$(grep -A2 -E -- ' -> vfs_read object 0x[0-9a-f]+\$' "\$OUT" | grep -Ec '^    f->f_pos = 0\$')"
		EXPECT   ${T}_file_reads_after: eq "8 16 18" "\$(grep -A2 -E -- ' -> vfs_read object 0x[0-9a-f]+ \(tracked\)\$' "\$OUT" | sed -n 's/^    f->f_pos = //p' | tr '\n' ' ' | sed 's/ \$//')"
		EXPECT   ${T}_file_fput_last: eq '__fput' "\$(grep -Eo -- '-> [a-z_]+' "\$OUT" | tail -1 | cut -c4-)"
		EXPECT   ${T}_file_freed: count 1 ' -> __fput object 0x[0-9a-f]+ \(freed\)\$'
		EXPECT   ${T}_file_one_object: eq 1 "\$(grep -Eo 'object 0x[0-9a-f]+' "\$OUT" | sort -u | wc -l)"
		EXPECT   ${T}_file_summary: stderr '; 1 objects tracked, 1 freed, 0 still tracked'
	CASE
done

# --group --track-max 4 (issue 40): eight skbs alive at once, received by
# a socket, ten rounds; the set pushes four out each round (their frees
# go unreported) and later skbs come at their addresses.  Every stay in
# the set is a group of its own, ended "evicted" or "freed" (one per free
# BPF counted), never two datagrams in one; each group's record counts
# the events that follow it, all of its object.
# per_group FILE: "H ADDR N" per object record, "E ADDR FUNC" per event.
per_group() {
	jq -r 'if .type == "object" then "H \(.object) \(.events)" elif .type == "event" then "E \(.object) \(.func)" else empty end' "$1"
}
# groups_bad: of per_group's lines, the groups that are not N events of
# ADDR with at most one net_dev_queue.
groups_bad() {
	awk 'function done() { if (h != "" && (n != want || q > 1)) bad++ }
	     $1 == "H" { done(); h = $2; want = $3; n = 0; q = 0; next }
	     $1 == "E" { if ($2 != h) bad++; n++; if ($3 == "tp:net_dev_queue") q++ }
	     END { if (h == "") bad++; done(); print bad + 0 }'
}
ends() { record object "$1" | jq -r .end | grep -c "^$2\$"; }
ks_case <<CASE
NAME     group_evicted
RUN      -j -c vmprog --track s --track-max 4 --group 'tp:net:net_dev_queue(struct sk_buff *s, s->len >= 642, s->len < 700, s->len)' 'ip_rcv(struct sk_buff *s, s->len >= 642, s->len < 700, s->len)'
WORKLOAD vmprog queue 8 10
EXPECT   group_evicted_stories: eq 1 "\$([ \$(record object "\$OUT" | wc -l) -ge \$(record summary "\$OUT" | jq .objects_tracked) ] && echo 1)"
EXPECT   group_evicted_said: eq 1 "\$([ \$(ends "\$OUT" evicted) -ge 4 ] && echo 1)"
EXPECT   group_evicted_some_freed: eq 1 "\$([ \$(ends "\$OUT" freed) -ge 1 ] && echo 1)"
EXPECT   group_evicted_freed: eq "\$(record summary "\$OUT" | jq .objects_freed)" "\$(ends "\$OUT" freed)"
EXPECT   group_evicted_groups: eq 0 "\$(per_group "\$OUT" | groups_bad)"
CASE

rm -rf "$tmp"
