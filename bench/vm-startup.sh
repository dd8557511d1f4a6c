#!/bin/sh
# vm-timeout: 900
#
# Where a ksnoop start goes inside the test VM, by hand (not part of
# bench/run): wall seconds of reading kallsyms and ftrace's lists, and of
# whole ksnoop runs that exit 1 ms after attaching (a tracepoint, `info`,
# one fentry and one kprobe function, three of each, a two-function
# --tree), two rounds; -v's probe and load lines for one fentry run.
#
#   tests/vm/run --kernel trixie-backports --bin build/ksnoop -v bench/vm-startup.sh
#
# Prints "TIME LABEL: N s" lines.  s61 (7.3.4 guest, TCG, load 2-4):
# kallsyms 0.55-0.96 s per read, tracepoint 1.5-1.9 s, one fentry
# function 2.0-2.7 s (probe 0.23 s, load 0.85 s), three 3.9-5.6 s
# (tests/README.md, "Measured (s61)").
. /tests/lib.sh

# t LABEL CMD...: CMD's wall time, from the guest's /proc/uptime.
t() {
	l=$1
	shift
	a=$(cut -d' ' -f1 /proc/uptime)
	"$@" >/tmp/o 2>/tmp/e
	b=$(cut -d' ' -f1 /proc/uptime)
	echo "TIME $l: $(echo "$a $b" | awk '{printf "%.2f", $2 - $1}') s"
}

uname -r
for round in 1 2; do
	t kallsyms cat /proc/kallsyms
	t ffaddrs cat /sys/kernel/tracing/available_filter_functions_addrs
	t ff cat /sys/kernel/tracing/available_filter_functions
	t tp ksnoop --duration 1ms 'tp:sched:sched_switch'
	t info ksnoop info do_sys_openat2
	t fentry ksnoop --duration 1ms --mode fentry 'do_sys_openat2(filename)'
	t fentry-v ksnoop -v --duration 1ms --mode fentry 'do_sys_openat2(filename)'
	grep -E "probed in|loaded in" /tmp/e
	t kprobe ksnoop --duration 1ms --mode kprobe 'do_sys_openat2(filename)'
	t fentry3 ksnoop --duration 1ms --mode fentry 'do_sys_openat2(filename)' 'path_openat(return)' 'vfs_read(count)'
	t kprobe3 ksnoop --duration 1ms --mode kprobe 'do_sys_openat2(filename)' 'path_openat(return)' 'vfs_read(count)'
	t tree ksnoop --duration 1ms --tree 'do_sys_openat2(filename)' 'path_openat(return)'
done
check done true
