#!/usr/bin/env python3
"""Packets to a pcapng file (issue #48): ksnoop --pcap against dumpcap,
the capture engine of Wireshark and tshark, on the same loopback flood.

    bench/pcap.py [--rounds R] [--calls N] --loop KSB_LOOP KSNOOP

KSB_LOOP is bench/loop.c built as bench/run builds it (gcc -O2 -static);
run as root. The workload is `ksb-loop udp N PORT` on CPU 1 in a network
namespace of the script's own (`ip netns`, loopback only): N one-byte
datagrams as fast as it can send them, each an Ethernet frame through
tp:net:net_dev_queue once. Each variant's capturer runs on CPU 0 and is
stopped by SIGINT once the workload has ended and its file has stopped
growing. Variants, in an order rotated by one each round:

    ksnoop-text   ksnoop -c ksb-loop 'tp:net:net_dev_queue(skb->len)'
                  (text to /dev/null: the event alone, no packet)
    ksnoop-pcap   the same with --pcap FILE (text to /dev/null too)
    dumpcap       dumpcap -q -i lo -f 'udp port PORT' -w FILE, in the
                  workload's namespace (AF_PACKET and its ring)

Per run: the packets in the file (pcapng Enhanced Packet Blocks, counted
here) or, for ksnoop-text, the events ksnoop printed; the capturer's own
CPU (user + system, wait4), less a run of the same command with no
traffic (start-up, attach, detach); *CPU per packet* = that over the
packets it kept; *kept* = packets kept / datagrams sent. Median (min-max)
over the rounds. pwru and retis are not here: pwru needs kprobes (this
machine's kernel has none; the VM's TCG emulation would measure the
emulator), and retis is not packaged by Debian."""

import argparse
import os
import re
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

NS = "ksb-pcap"
PORT = 5998
TP = "tp:net:net_dev_queue(skb->len)"
READY_POLLS = 3000      # 0.02 s each: a minute to attach


def sh(*args, **kw):
    return subprocess.run(list(args), check=True, **kw)


def epb_count(path):
    """Enhanced Packet Blocks in the pcapng file PATH (little-endian, as
    both writers write on this machine)."""
    n = 0
    with open(path, "rb") as f:
        data = f.read()
    off = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if blen < 12 or off + blen > len(data):
            break
        n += btype == 6
        off += blen
    return n


def capturer(variant, ksnoop, out):
    """The command line, and whether it runs in the workload's namespace."""
    if variant == "dumpcap":
        return ["ip", "netns", "exec", NS, "taskset", "-c", "0", "dumpcap", "-q", "-i", "lo",
                "-f", "udp port %d" % PORT, "-w", out]
    cmd = ["taskset", "-c", "0", ksnoop, "-v", "-c", "ksb-loop"]
    if variant == "ksnoop-pcap":
        cmd += ["--pcap", out]
    return cmd + [TP]


def ready(variant, errpath, out):
    """The capturer is capturing: ksnoop -v's 'tracing', dumpcap's file."""
    with open(errpath, errors="replace") as f:
        text = f.read()
    if variant == "dumpcap":
        return os.path.exists(out) and os.path.getsize(out) > 0
    return "ksnoop: tracing" in text


def one_run(variant, ksnoop, loop, n, work):
    out = os.path.join(work, "%s.pcapng" % variant)
    errpath = os.path.join(work, "%s.err" % variant)
    if os.path.exists(out):
        os.unlink(out)
    with open(errpath, "w") as err, open(os.devnull, "w") as null:
        p = subprocess.Popen(capturer(variant, ksnoop, out), stdout=null, stderr=err)
    for _ in range(READY_POLLS):
        if ready(variant, errpath, out) or p.poll() is not None:
            break
        time.sleep(0.02)
    if p.poll() is not None:
        sys.exit("bench/pcap.py: %s ended before capturing: %s" % (variant, open(errpath).read()))
    if n:
        sh("ip", "netns", "exec", NS, "taskset", "-c", "1", loop, "udp", str(n), str(PORT),
           stdout=subprocess.DEVNULL)
    # Until the file stops growing (the capturer drains after the sends).
    last = -1
    for _ in range(500):
        size = os.path.getsize(out) if os.path.exists(out) else 0
        if size == last:
            break
        last = size
        time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    _, status, ru = os.wait4(p.pid, 0)
    cpu = ru.ru_utime + ru.ru_stime
    with open(errpath, errors="replace") as f:
        text = f.read()
    if variant == "ksnoop-text":
        m = re.search(r"ksnoop: (\d+) events printed", text)
        kept = int(m.group(1)) if m else 0
    else:
        kept = epb_count(out) if os.path.exists(out) else 0
    return cpu, kept


def med(xs):
    return "%s (%s-%s)" % (fmt(statistics.median(xs)), fmt(min(xs)), fmt(max(xs)))


def fmt(x):
    return "{:,.0f}".format(x) if abs(x) >= 10 else "%.2f" % x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=300000)
    ap.add_argument("--loop", required=True)
    ap.add_argument("ksnoop")
    a = ap.parse_args()
    variants = ["ksnoop-text", "ksnoop-pcap", "dumpcap"]
    res = {v: [] for v in variants}
    subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)
    sh("ip", "netns", "add", NS)
    try:
        sh("ip", "netns", "exec", NS, "ip", "link", "set", "lo", "up")
        with tempfile.TemporaryDirectory(prefix="ksb-pcap.") as work:
            print("load %s" % open("/proc/loadavg").read().split()[0])
            for r in range(a.rounds):
                order = variants[r % len(variants):] + variants[:r % len(variants)]
                for v in order:
                    idle, _ = one_run(v, a.ksnoop, a.loop, 0, work)
                    cpu, kept = one_run(v, a.ksnoop, a.loop, a.calls, work)
                    per = (cpu - idle) * 1e9 / kept if kept else float("nan")
                    res[v].append((per, kept / a.calls, cpu - idle))
                    print("round %d %-12s kept %7d of %d, CPU %.3f s (idle run %.3f s), %.0f ns/packet"
                          % (r + 1, v, kept, a.calls, cpu, idle, per), flush=True)
            print("load %s" % open("/proc/loadavg").read().split()[0])
    finally:
        subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)
    print()
    print("| capturer | CPU per packet, ns | packets kept, % of sent | capacity, packets/s of CPU |")
    print("| --- | --- | --- | --- |")
    for v in variants:
        per = [x[0] for x in res[v] if x[0] == x[0]]
        kept = [x[1] * 100 for x in res[v]]
        cap = [1e9 / x for x in per if x > 0]
        print("| %s | %s | %s | %s |" % (v, med(per) if per else "-", med(kept),
                                         med(cap) if cap else "-"))


if __name__ == "__main__":
    main()
