// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Command line: global options, then a command from cmds[] (bpftool's
 * shape).  A first word that is not a command is a SPEC, so
 * `ksnoop ip_send_skb` means `ksnoop trace ip_send_skb`.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "ksnoop.h"
#include "ks_error.h"
#include "duration.h"
#include "log.h"
#include "ksnoop.h"
#include "btf_util.h"
#include "cmd_complete.h"
#include "spec.h"
#include "stdout_lines.h"
#include "stop.h"
#include "container.h"
#include "btf_lend.h"
#include "klookup.h"

#ifndef KSNOOP_VERSION
#define KSNOOP_VERSION "unknown"
#endif

/* The architecture built for, as uname -m says it (-V). */
#if defined(__x86_64__)
#define KSNOOP_ARCH "x86_64"
#elif defined(__aarch64__)
#define KSNOOP_ARCH "aarch64"
#else
#error "ksnoop is written for x86_64 and aarch64 (bpf/arch.bpf.h, ksnoop/usdt_<arch>.c)"
#endif

/* --tree: inner calls one tree records by default (issue #28). */
#define TREE_DEFAULT_MAX_CALLS 4096

/* Ring buffer default: room for bursts of large struct events. */
#define DEFAULT_BUFFER_BYTES (8u << 20)

static const char usage_text[] =
"Usage: ksnoop [OPTIONS] [trace] SPEC...\n"
"       ksnoop [OPTIONS] --tree ROOT INNER...\n"
"       ksnoop [OPTIONS] usdt USPEC...\n"
"       ksnoop [OPTIONS] info { TARGET... | usdt BINARY... }\n"
"       ksnoop [OPTIONS] record -o FILE [--force] { SPEC... | usdt USPEC... }\n"
"       ksnoop [OPTIONS] report { FILE... | - } [SPEC... | USPEC...]\n"
"       ksnoop report --info { FILE | - }\n"
"       ksnoop { -h | --help | -V | --version }\n"
"\n"
"SPEC     := { [MODULE:]FUNC[@ADDRESS] | [MODULE:]GLOB | tp:[CATEGORY:]TRACEPOINT | tp:[CATEGORY:]GLOB\n"
"            | sys:SYSCALL | sys:GLOB | u:BINARY:UFUNC } [ '(' [ ITEM {, ITEM} ] ')' ]\n"
"UFUNC    := { FUNC[+OFFSET] | GLOB | 0xADDRESS | 'NAME' }\n"
"USPEC    := BINARY:PROVIDER:NAME [ '(' [ ITEM {, ITEM} ] ')' ]\n"
"ITEM     := { VALUE [ :FORMAT ] [ >> BITS | & MASK ] [ OP CONST ] | TYPE NAME }\n"
"VALUE    := { ARG | return | argN[:TYPE] | @VAR | @tls:VAR | *VALUE | (TYPE)VALUE | (VALUE) }\n"
"            { ->MEMBER | .MEMBER | [INDEX] }\n"
"FORMAT   := { hex | be | ip | sym | str | str(LEN) | tuple | signal | tcpstate | strv }\n"
"OP       := { == | != | < | <= | > | >= }\n"
"CONST    := { INTEGER | 'C' | \"STRING\" | NULL | ENUMERATOR }\n"
"TARGET   := { [MODULE:]FUNC[@ADDRESS] | [MODULE:]GLOB | tp:[CATEGORY:]TRACEPOINT | tp:[CATEGORY:]GLOB\n"
"            | sys:SYSCALL | sys:GLOB | u:BINARY[:UFUNC] }\n"
"ROOT     := { [MODULE:]FUNC[@ADDRESS] | [MODULE:]GLOB | u:BINARY:UFUNC } [ '(' [ ITEM {, ITEM} ] ')' ]\n"
"INNER    := { [MODULE:]FUNC[@ADDRESS] | [MODULE:]GLOB | tp:[CATEGORY:]TRACEPOINT | tp:[CATEGORY:]GLOB\n"
"            | u:BINARY:UFUNC }\n"
"            [ '(' [ ITEM {, ITEM} ] ')' ]\n"
"\n"
"Without a value list, a function shows every argument on entry and its\n"
"return value on return; a tracepoint or USDT probe shows every argument.\n"
"A GLOB (* ? [...]) traces every matching function its values fit (-v counts\n"
"what is left out by reason, -vv lists each); MODULE: keeps to one module\n"
"(vmlinux: the kernel's own).  TYPE NAME binds NAME to the argument of that\n"
"type: "
"\"*(struct sk_buff *s, s->len == 84)\" traces every function taking an skb.\n"
"A FUNC that is several static functions of one name (info lists each, with\n"
"its address) traces them all, each event naming its own (NAME@ADDRESS);\n"
"FUNC@ADDRESS traces that one.  info \"struct NAME\" (or union) lists a\n"
"type's members with their offsets and sizes, as pahole does.\n"
"tp:GLOB does the same over tracepoints; a CATEGORY (tp:sched:*) is\n"
"tracefs's (events/CATEGORY/NAME), checked where tracefs is mounted.\n"
"sys:SYSCALL traces a system call's entry and exit as one call (entry values\n"
"with the return, durations); tp:syscalls:sys_enter_SYSCALL and\n"
"sys_exit_SYSCALL are its events alone; arguments typed from tracefs.  A\n"
"sys:GLOB of more than 16 calls (KSNOOP_SYS_RAW_MIN) in at most 8 programs\n"
"(sys:*: one) attaches on the raw_syscalls tracepoints: a link per program\n"
"and side.\n"
"TYPE is any C type BTF has: vmlinux's, the function's module's, or the USDT\n"
"binary's (or --btf); ((struct sockaddr_in *)uaddr)->sin_port as in C.  C's\n"
"base types (char, int, long, unsigned ..., u8 ... s64) need no BTF.\n"
"Formats: hex; be, a big-endian integer in host order; ip, a 4- or 16-byte\n"
"address; sym, a kernel address by name; str, a pointer read as a C string;\n"
"str(LEN), at most as many bytes as argument LEN says (buf:str(len)).\n"
"tuple, a struct sk_buff * or struct sock * as \"10.0.0.1:5000 > 10.0.0.2:80 udp\".\n"
"--tree: each call of ROOT (every match of a GLOB) that passes -p, -c and its\n"
"entry predicates opens a session for its task; the INNER calls the task makes\n"
"until that call returns are recorded, at any depth, with durations, returns\n"
"and their values (a tracepoint's event as a leaf), and printed as a tree if\n"
"ROOT's return predicates hold\n"
"(\"do_sys_openat2(filename, return < 0)\": failing opens only); errors are\n"
"marked, and the first failing call: the innermost that returned the error\n"
"its callers returned (-s: with its kernel stack).  A user function may be\n"
"ROOT or INNER: what the kernel and the program did inside one call.\n"
"--track NAME: the object every SPEC binds as NAME (TYPE NAME, a pointer) joins\n"
"a set where a call's predicates hold; from then on every call passing it is\n"
"shown, predicates or not, until it is freed (struct sk_buff: skb:kfree_skb,\n"
"skb:consume_skb, __kfree_skb, kfree_skbmem, napi_skb_cache_put; clones join\n"
"at skb_clone, skb_copy, __pskb_copy_fclone, skb_copy_expand; other types:\n"
"--untrack FUNC).\n"
"record attaches as a trace would and writes the raw events, with the plans,\n"
"the types they print and the kernel symbols they name, to FILE (-: stdout;\n"
"an existing FILE only with --force); report prints them, on any machine, as\n"
"the trace would have (-j, -p, --tid, -c, -n, -z, --oneline, --depth apply\n"
"there), or --count (--folded, --by) its calls, --hist (--by) and --stats\n"
"(--pair) its values or latencies; --pair (-L) a recording of START and END\n"
"as a live --pair prints them; --info says what FILE holds.  report's\n"
"SPECs ask the recording questions: only the events of the targets they name\n"
"(globs too; a USDT probe as PROVIDER:NAME) whose predicates hold over the\n"
"recorded values (report f.ksr 'sys:openat(return == -2)') or members in a\n"
"struct recorded whole ('u:./app:f(p->seq >= 3)' where p was); a value not\n"
"recorded is refused; --hist counts by the value a SPEC names (or durations),\n"
"--by by a recorded value; both by such a member too.\n"
"--since and --until keep a time window, -L the returns that took that long.\n"
"report --format=perfetto writes the events as a timeline: Chrome trace-event\n"
"JSON that Perfetto's UI and chrome://tracing open, a track per thread and\n"
"per CPU, calls as slices nested by time (--tree's trees too), events as\n"
"instants with their values, --track objects as flows; of several FILEs,\n"
"one timeline by wall time, each host's processes and CPUs apart.\n"
"Several FILEs (after the first, each argument ending in .ksr or naming an\n"
"existing file; the rest are SPECs) are merged by wall-clock time, each\n"
"event marked with its host (text: after the time; -j: \"host\", \"wall_ns\").\n"
"record --count and --hist record the events; a plain report prints the\n"
"table; a recording of --tree prints its trees.  User stacks (--ustack, -s of\n"
"a USDT probe or a user function) are named as they are recorded: report\n"
"prints the live run's frames without the programs; report --count counts\n"
"per user stack and process, each FILE's frames named from that file.\n"
"Not recorded yet: --stats.\n"
"u:BINARY:FUNC traces a function of a program or library (uprobe, uretprobe):\n"
"BINARY a path (./app), or a library's name as the loader finds it (libc),\n"
"with -p as that process maps it; FUNC from its symbols (.symtab, else\n"
".dynsym), a GLOB over them, FUNC+OFFSET (an instruction's start; no\n"
"return) or 0xADDRESS; 'NAME' quotes a name with '(' or spaces.  C++ names\n"
"are demangled: ns::Conn::read, 'ns::f(int)', globs (ns::f*) over either.\n"
"A user function's -s is its program's (user) stack, as a USDT probe's;\n"
"with --count per user stack and process.\n"
"A glob's functions attach through uprobe.multi where the kernel has it.\n"
"Typed from DWARF (the file's, /usr/lib/debug by build-id or debuglink:\n"
"libc6-dbg) or .BTF: parameters by name (u:./app:f(req->path:str, return < 0));\n"
"a struct, union or float by value is refused.  Without debug info arguments\n"
"are arg0..arg5, 64-bit integers (cast them: (int)return, (struct req *)arg0,\n"
"arg1:str), the return a long.  Pointers are read as the program's memory\n"
"only.  info u:BINARY lists its functions, info u:BINARY:GLOB prototypes.\n"
"@VAR reads a global of BINARY, @tls:VAR a thread-local of the executable,\n"
"typed from DWARF, at the entry (u:./app:f(@cfg->name:str, @tls:req_id == 7))\n"
"or at a USDT probe (usdt ./app:myapp:req(arg0, @cfg->level)).\n"
"In a USPEC, PROVIDER and NAME may be globs; argN:TYPE reads argument N as\n"
"a pointer to TYPE, argN:str as a C string, argN:str(argM) as argM bytes.\n"
"\n"
"Options:\n"
"  -j, --json             stdout is JSON, one object a line, each with a \"type\":\n"
"                         event, count, hist, stats, info, lost, summary,\n"
"                         warning, error\n"
"  -p, --pid PID          only events of process PID\n"
"      --tid TID          only events of thread TID\n"
"  -c, --comm NAME        only events of tasks named NAME\n"
"  -n, --max-events N     exit after N events\n"
"      --duration TIME    exit after TIME (TIME := NUMBER[ns|us|ms|s], default s)\n"
"  -L, --min-duration TIME\n"
"                         only calls that took at least TIME (a unit is needed),\n"
"                         entry values shown with the return; kernel functions\n"
"                         and system calls (sys:NAME) only, or the latency\n"
"                         of a --pair (report --pair too)\n"
"      --mode MODE        MODE := { fentry | kprobe }; default: fentry,\n"
"                         kprobe if the kernel refuses fentry\n"
"      --max-bytes N      bytes captured per value (default 4096)\n"
"      --str-bytes N      bytes captured per string (default 256)\n"
"      --buffer BYTES     ring buffer size, a power of 2 (default 8 MiB)\n"
"      --btf FILE         BTF for USDT argN:TYPE (default: the binary's .BTF)\n"
"  -z, --zeros            show struct members that are zero\n"
"      --oneline          an event a line: time comm pid/tid -> func a=1\n"
"                         s={.len=84 ...}; a struct shows its first 4 members,\n"
"                         nested ones left out; -s adds the stack, folded\n"
"      --depth N          structs, unions and arrays nested deeper than N\n"
"                         print as {...} (--oneline: left out)\n"
"  -s, --stack            each event carries the stack at its probe, symbolised:\n"
"                         the kernel's, or a USDT probe's or user function's\n"
"                         user stack\n"
"      --ustack           each event also carries the user stack of the task\n"
"                         the kernel event ran in (functions, tp:, sys:),\n"
"                         after the kernel's with -s; frames need frame pointers;\n"
"                         with --count, counted per user stack and process too\n"
"      --count            no events: calls per function, summed in BPF,\n"
"                         busiest first, at exit; with -s per stack\n"
"      --folded           with --count -s (or --ustack): folded stacks for\n"
"                         flame graphs, user frames below the kernel's\n"
"      --hist[=linear:MIN:MAX:STEP]\n"
"                         no events: a log2 histogram per function of the one\n"
"                         value the spec names (\"vfs_read(return)\"), in BPF;\n"
"                         without one, of call durations (kernel functions,\n"
"                         sys:NAME; said when the spec names only predicates);\n"
"                         linear: buckets of STEP from MIN to MAX;\n"
"                         p50/p90/p99/max below\n"
"      --stats            no events: count, sum, min, max and average per\n"
"                         function of the value --hist would count (or of\n"
"                         call durations), summed in BPF, a table at exit;\n"
"                         report --stats sums a recording's the same way\n"
"                         (with --pair: its START-to-END latencies)\n"
"      --by KEY[,KEY]...  with --count, --hist or --stats: per key too,\n"
"                         busiest first; up to 3 KEYs, a column each in the\n"
"                         order given (--by comm,return), one --by;\n"
"                         KEY := { comm | pid | tid | cpu | cgroup | VALUE },\n"
"                         cgroup the task's (cgroup v2, shown as its path),\n"
"                         VALUE one the spec names (at most one): an integer,\n"
"                         a string (63 bytes) or a :tuple (per flow:\n"
"                         --by 'skb:tuple'); printed as events print it\n"
"                         (enumerators: --by reason, errno names, formats)\n"
"      --interval TIME    with --count, --hist or --stats: print and reset\n"
"                         this often\n"
"      --pair             two SPECs, START and END (tracepoints or USDT\n"
"                         probes), paired by the value each names (none:\n"
"                         the thread): each END event with the latency since\n"
"                         its START; with --hist or --stats the latencies,\n"
"                         with -L only the END events at least that late\n"
"      --tree             the first SPEC is the ROOT of call trees, the others\n"
"                         INNER functions (kernel or user) or tracepoints\n"
"                         (leaves)\n"
"      --tree-max-calls N with --tree: inner calls one tree records (default\n"
"                         4096); the others are counted in the tree\n"
"      --track NAME       follow the object every SPEC binds as NAME from where\n"
"                         its predicates hold to its free; events name it\n"
"      --untrack FUNC     with --track: FUNC (or tp:NAME) frees the object\n"
"                         (repeatable)\n"
"      --track-max N      with --track: objects followed at once (default 16384)\n"
"      --group            with --track (or report of a recording of it): each\n"
"                         object's events together, when it is freed,\n"
"                         evicted or at exit, with the time since its first\n"
"      --pcap FILE        also write each event's packet to FILE as pcapng\n"
"                         (Wireshark, tshark): the target's first struct\n"
"                         sk_buff * argument, read at its entry from the MAC\n"
"                         header (else the network header), one block per\n"
"                         packet with a comment naming the function or\n"
"                         tracepoint, the task and with --track the object;\n"
"                         record --pcap keeps the packets in the recording\n"
"                         too, report --pcap writes them again from it\n"
"      --snaplen N        with --pcap or --filter: bytes of each packet\n"
"                         (default 256, at most 16384)\n"
"      --filter EXPR      only packets a pcap-filter expression EXPR passes\n"
"                         (libpcap's syntax, as tcpdump's: 'udp port 53'),\n"
"                         judged in BPF at the entry on the target's first\n"
"                         struct sk_buff * (a target without one is refused),\n"
"                         ANDed with the predicates; not 'protochain', nor\n"
"                         loads past --snaplen\n"
"      --cgroup PATH      only events of tasks in cgroup v2 PATH or below it,\n"
"                         decided in BPF; a kernel event (functions, tp:,\n"
"                         sys:) carries its task's cgroup: -j's \"cgroup\" id\n"
"      --show-cgroup      text: each event's header names its task's cgroup\n"
"                         (cgroup=PATH, under the cgroup2 mount)\n"
"      --netns NS         only calls whose packet (the first struct sk_buff *\n"
"                         argument's device) or socket (struct sock *) is in\n"
"                         network namespace NS: an inode number,\n"
"                         /run/netns/NAME or /proc/PID/ns/net; a SPEC with\n"
"                         neither is refused; a function's entry values then\n"
"                         print with its return\n"
"  -o, --output FILE      record: the file events go to (-: stdout)\n"
"      --force            record: replace FILE if it is a regular file of ours\n"
"      --info             report: what FILE holds (specs, targets, events,\n"
"                         time span, lost events, size), not the events\n"
"      --since TIME       report: only events from TIME on: an offset from the\n"
"                         recording's start (2s, 150ms) or a wall time as the\n"
"                         events print it (HH:MM:SS[.FRACTION], that day) or\n"
"                         YYYY-MM-DDTHH:MM:SS[.FRACTION][Z] (Z: UTC)\n"
"      --until TIME       report: only events up to TIME (as --since)\n"
"      --format perfetto  report: the events as one Chrome trace-event JSON\n"
"                         document (Perfetto's UI, chrome://tracing)\n"
"  -v, --verbose          say what is resolved and how it is attached;\n"
"                         -vv: also every match a glob leaves out\n"
"  -d, --debug            also show libbpf's debug output\n"
"  -h, --help             show this help\n"
"  -V, --version          show the version, the libbpf inside, the architecture\n"
"\n"
"Examples:\n"
"  ksnoop info ip_send_skb\n"
"  ksnoop \"ip_send_skb(skb->len == 84, skb)\"\n"
"  ksnoop \"do_sys_openat2(filename, return)\"\n"
"  ksnoop -L 10ms \"do_sys_openat2(filename, return)\"\n"
"  ksnoop \"sys:openat(filename, return < 0)\"\n"
"  ksnoop -s --ustack -p 1234 \"sys:openat(filename, return < 0)\"\n"
"  ksnoop \"tcp_v4_connect(((struct sockaddr_in *)uaddr)->sin_port:be == 443)\"\n"
"  ksnoop \"ip_*(skb->len == 84, skb->len)\"\n"
"  ksnoop info \"tcp_v4_*\"\n"
"  ksnoop --tree \"do_sys_openat2(filename, return < 0)\" do_filp_open path_openat \\\n"
"         \"lookup_*(return)\" \"step_into(return)\"\n"
"  ksnoop --track s \"*(struct sk_buff *s, s->len == 84, s->len)\"\n"
"  ksnoop \"tp:sched_process_exec(p->comm, bprm->filename)\"\n"
"  ksnoop \"tp:*(struct sk_buff *skb, skb->len > 1000)\"\n"
"  ksnoop --pcap out.pcapng \"tp:net_dev_queue(skb->len == 98)\" \"tp:netif_receive_skb(skb->len == 84)\"\n"
"  ksnoop --cgroup /sys/fs/cgroup/system.slice/nginx.service \"sys:openat(filename, return < 0)\"\n"
"  ksnoop --netns /run/netns/blue --oneline -s \"tp:kfree_skb(location:sym, skb:tuple, reason)\"\n"
"  ksnoop --count --by reason \"tp:kfree_skb(reason)\"\n"
"  ksnoop info usdt ./app\n"
"  ksnoop usdt \"./app:myapp:req_start(arg0, arg1:str)\"\n"
"  ksnoop -p PID usdt \"libjvm.so:hotspot:class__loaded(arg0:str(arg1))\"\n"
"  ksnoop record -o - \"tp:sched_process_exec(p->comm)\" | ssh HOST ksnoop report -\n"
"  ksnoop report --since 2s f.ksr \"sys:openat(return == -2)\"\n"
"  ksnoop report --count --by comm,return f.ksr\n"
"  ksnoop report db1.ksr db2.ksr \"sys:openat(return < 0)\"\n"
"  ksnoop report --format=perfetto f.ksr > f.json\n";

enum {
	OPT_TID = 256,
	OPT_DURATION,
	OPT_COUNT,
	OPT_HIST,
	OPT_STATS,
	OPT_PAIR,
	OPT_FOLDED,
	OPT_INTERVAL,
	OPT_MODE,
	OPT_MAX_BYTES,
	OPT_STR_BYTES,
	OPT_BUFFER,
	OPT_BTF_DIR,
	OPT_BTF,
	OPT_ONELINE,
	OPT_DEPTH,
	OPT_BY,
	OPT_USTACK,
	OPT_TREE,
	OPT_TREE_MAX_CALLS,
	OPT_TRACK,
	OPT_UNTRACK,
	OPT_TRACK_MAX,
	OPT_GROUP,
	OPT_FORCE,
	OPT_INFO,
	OPT_PCAP,
	OPT_SNAPLEN,
	OPT_FILTER,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_FORMAT,
	OPT_CGROUP,
	OPT_SHOW_CGROUP,
	OPT_NETNS,
	OPT_LAST	/* above every option's code, short ones included */
};

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, 'c' },
	{ "max-events", required_argument, NULL, 'n' },
	{ "count", no_argument, NULL, OPT_COUNT },
	{ "tree", no_argument, NULL, OPT_TREE },
	{ "tree-max-calls", required_argument, NULL, OPT_TREE_MAX_CALLS },
	{ "track", required_argument, NULL, OPT_TRACK },
	{ "untrack", required_argument, NULL, OPT_UNTRACK },
	{ "track-max", required_argument, NULL, OPT_TRACK_MAX },
	{ "group", no_argument, NULL, OPT_GROUP },
	{ "hist", optional_argument, NULL, OPT_HIST },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "pair", no_argument, NULL, OPT_PAIR },
	{ "by", required_argument, NULL, OPT_BY },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "min-duration", required_argument, NULL, 'L' },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
	{ "str-bytes", required_argument, NULL, OPT_STR_BYTES },
	{ "buffer", required_argument, NULL, OPT_BUFFER },
	{ "zeros", no_argument, NULL, 'z' },
	{ "oneline", no_argument, NULL, OPT_ONELINE },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "stack", no_argument, NULL, 's' },
	{ "ustack", no_argument, NULL, OPT_USTACK },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "info", no_argument, NULL, OPT_INFO },
	{ "pcap", required_argument, NULL, OPT_PCAP },
	{ "snaplen", required_argument, NULL, OPT_SNAPLEN },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "show-cgroup", no_argument, NULL, OPT_SHOW_CGROUP },
	{ "netns", required_argument, NULL, OPT_NETNS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "debug", no_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "btf", required_argument, NULL, OPT_BTF },
	/* For tests: read BTF from another directory. Not documented. */
	{ "btf-dir", required_argument, NULL, OPT_BTF_DIR },
	{ NULL, 0, NULL, 0 },
};

/* getopt's short options (':' first: a missing value is reported as such). */
static const char short_opts[] = ":jp:c:n:L:o:zsvdhV";

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, const struct options *opts);
} cmds[] = {
	{ "info", do_info },
	{ "trace", do_trace },
	{ "usdt", do_usdt },
	{ "record", do_record },
	{ "report", do_report },
};

/* A whole decimal number in [MIN, MAX], or an error naming the option. */
static int parse_uint(const char *opt, const char *arg, unsigned long long min,
		      unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	/* strtoull() would skip spaces and accept a sign: insist on digits. */
	if (!arg || !isdigit((unsigned char)*arg))
		goto bad;
	v = strtoull(arg, &end, 10);
	if (errno || *end)
		goto bad;
	if (v < min || v > max) {
		log_error("%s: %s is out of range (%llu to %llu)", opt, arg, min, max);
		return -ERANGE;
	}
	*out = v;
	return 0;
bad:
	log_error("%s: '%s' is not a number", opt, arg);
	return -EINVAL;
}

/* A time for OPT ("1.5ms"; a bare number counts DEFAULT_UNIT_NS, 0: refused). */
static int parse_time(const char *opt, const char *arg, __u64 default_unit_ns, __u64 *ns)
{
	struct ks_error e;
	int err = duration__parse(arg, default_unit_ns, ns, &e);

	if (err)
		log_error("%s: %s", opt, ks_message(&e));
	return err;
}

/* The option that chooses each output mode (cli.h). */
static const char *const output_option[] = {
	[OUTPUT_EVENTS] = "events",
	[OUTPUT_COUNT] = "--count",
	[OUTPUT_HIST] = "--hist",
	[OUTPUT_STATS] = "--stats",
};

/* One bound of --hist=linear: an integer, or a TIME with its unit (in ns). */
static int parse_hist_bound(const char *what, const char *arg, __s64 *out)
{
	struct ks_error e;
	long long v;
	__u64 ns;
	char *end;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (*arg && !isspace((unsigned char)*arg) && !errno && !*end &&
	    v > -(1LL << 62) && v < (1LL << 62)) {
		*out = v;
		return 0;
	}
	if (duration__parse(arg, 0, &ns, &e) == 0) {
		*out = (__s64)ns;
		return 0;
	}
	log_error("--hist=linear: %s '%s' is not an integer (below 2^62) or a time with its unit",
		  what, arg);
	return -EINVAL;
}

/*
 * --hist=linear:MIN:MAX:STEP: STEP-wide buckets from MIN up to MAX, a
 * whole number of them (at most KSNOOP_HIST_LINEAR_MAX); --hist=log2 is
 * the default's name.
 */
static int parse_hist_scale(const char *arg, struct options *o)
{
	char buf[128], *f[3], *save = NULL;
	__s64 min, max, step;
	int i;

	if (!arg || !strcmp(arg, "log2")) {
		o->hist_step = 0;
		return 0;
	}
	if (strncmp(arg, "linear:", 7) || strlen(arg) >= sizeof(buf)) {
		log_error("--hist: '%s' is not log2 or linear:MIN:MAX:STEP", arg);
		return -EINVAL;
	}
	strcpy(buf, arg + 7);
	for (i = 0; i < 3; i++)
		f[i] = strtok_r(i ? NULL : buf, ":", &save);
	if (!f[2] || strtok_r(NULL, ":", &save)) {
		log_error("--hist: '%s' is not linear:MIN:MAX:STEP", arg);
		return -EINVAL;
	}
	if (parse_hist_bound("MIN", f[0], &min) || parse_hist_bound("MAX", f[1], &max) ||
	    parse_hist_bound("STEP", f[2], &step))
		return -EINVAL;
	if (max <= min || step <= 0 || (max - min) % step) {
		log_error("--hist=linear: MAX must be above MIN by a whole number of STEPs (STEP > 0): '%s'",
			  arg);
		return -EINVAL;
	}
	if ((max - min) / step > KSNOOP_HIST_LINEAR_MAX) {
		log_error("--hist=linear: %lld buckets in '%s'; at most %d",
			  (long long)((max - min) / step), arg, KSNOOP_HIST_LINEAR_MAX);
		return -EINVAL;
	}
	o->hist_min = min;
	o->hist_step = step;
	o->hist_nbuckets = (max - min) / step;
	return 0;
}

/* --by KEY[,KEY]...: words, and a value as the spec writes it (resolved per target). */
static int parse_by(const char *arg, struct options *o)
{
	struct spec_by by;
	struct ks_error e = {};

	if (spec__parse_by(arg, &by, &e)) {
		log_error("%s", e.msg);
		return -EINVAL;
	}
	o->by = arg;
	return 0;
}

/* One output mode per run: a second one is refused, naming both. */
static int set_output(struct options *o, enum output_mode mode)
{
	if (o->output != OUTPUT_EVENTS && o->output != mode) {
		log_error("%s and %s are two output modes; give one",
			  output_option[o->output], output_option[mode]);
		return -EINVAL;
	}
	o->output = mode;
	return 0;
}

#define MODE(m)	(1u << (m))

/*
 * Options that apply to some output modes only.  One row per option (or
 * pair of options) given, with the modes it goes with and the one line
 * said when it is given with another; %s is the mode's option.
 */
struct mode_rule {
	bool given;
	unsigned int modes;	/* MODE(OUTPUT_...) bits; 0: goes with none */
	const char *why;
};

/* REPORT: the command is report (--group of a recording of --track). */
static int check_output_options(const struct options *o, bool report)
{
	const struct mode_rule rules[] = {
		{ o->folded, MODE(OUTPUT_COUNT), "--folded goes with --count (and -s)" },
		{ o->tree, MODE(OUTPUT_EVENTS), "--tree prints call trees: not with %s" },
		{ o->tree_max_calls && !o->tree, 0, "--tree-max-calls goes with --tree" },
		{ o->tree && o->ustack, 0, "--tree does not take --ustack yet" },
		{ o->tree && o->min_duration_ns, 0, "--tree does not take -L yet" },
		{ o->tree && o->oneline, 0, "--tree prints trees: --oneline does not apply" },
		{ o->track, MODE(OUTPUT_EVENTS), "--track prints an object's events: not with %s" },
		{ o->track && o->tree, 0, "--track and --tree do not go together yet" },
		{ o->pair, MODE(OUTPUT_EVENTS) | MODE(OUTPUT_HIST) | MODE(OUTPUT_STATS),
		  "--pair measures latencies: not with %s (use --hist or --stats)" },
		{ o->pair && (o->tree || o->track), 0, "--pair does not go with --tree or --track" },
		{ o->track && o->min_duration_ns, 0,
		  "--track follows objects at the calls' entry: -L does not apply" },
		{ o->pcap_path, MODE(OUTPUT_EVENTS), "--pcap writes each event's packet: not with %s" },
		{ o->snaplen && !o->pcap_path && !o->filter, 0, "--snaplen goes with --pcap or --filter" },
		{ (o->nuntrack || o->track_max || (o->group && !report)) && !o->track, 0,
		  "--untrack, --track-max and --group go with --track" },
		{ o->interval_ms, MODE(OUTPUT_COUNT) | MODE(OUTPUT_HIST) | MODE(OUTPUT_STATS),
		  "--interval goes with --count, --hist or --stats" },
		{ o->stack, MODE(OUTPUT_EVENTS) | MODE(OUTPUT_COUNT),
		  "%s counts by a value: not with -s" },
		{ o->ustack, MODE(OUTPUT_EVENTS) | MODE(OUTPUT_COUNT),
		  "%s counts by a value: not with --ustack" },
		{ o->max_events, MODE(OUTPUT_EVENTS),
		  "%s prints no events: -n/--max-events does not apply; use --duration" },
		{ o->by, MODE(OUTPUT_COUNT) | MODE(OUTPUT_HIST) | MODE(OUTPUT_STATS),
		  "--by goes with --count, --hist or --stats" },
		{ o->by && o->stack, 0, "--by and -s do not go together: count per stack or per key" },
		{ o->by && o->ustack, 0,
		  "--by and --ustack do not go together: count per stack or per key" },
		{ o->folded && o->json, 0,
		  "--folded is a text format; -j and --folded do not go together" },
		{ o->perfetto, MODE(OUTPUT_EVENTS),
		  "--format=perfetto writes events as a timeline: not with %s" },
		{ o->perfetto && (o->json || o->folded || o->oneline || o->has_depth || o->pair), 0,
		  "--format=perfetto is a JSON document of its own: not with -j, --folded, --oneline, --depth or --pair" },
		{ o->oneline, MODE(OUTPUT_EVENTS), "%s prints no events: --oneline does not apply" },
		{ o->show_cgroup, MODE(OUTPUT_EVENTS),
		  "%s prints no events: --show-cgroup does not apply (--by cgroup counts per cgroup)" },
		{ o->show_cgroup && o->json, 0,
		  "--show-cgroup is a text format; -j gives each event's \"cgroup\" id already" },
		{ o->has_depth, MODE(OUTPUT_EVENTS), "%s prints no events: --depth does not apply" },
		{ o->oneline && o->json, 0,
		  "--oneline is a text format; -j writes an event a line already" },
		{ o->has_depth && o->json, 0,
		  "--depth cuts text; -j keeps every member (name the members in the spec, or use jq)" },
	};
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (rules[i].given && !(rules[i].modes & MODE(o->output))) {
			log_error(rules[i].why, output_option[o->output]);
			return -EINVAL;
		}
	}
	return 0;
}

/* 0, or a negative errno once the error is reported. */
/* An option that takes a whole number: its range and where it goes. */
struct numeric_opt {
	int opt;
	const char *name;
	unsigned long long min, max;
	size_t off, size;	/* the field of struct options: __u32, int or __u64 */
	bool pow2;		/* a power of 2 only */
};

#define OPT_FIELD(f) offsetof(struct options, f), sizeof(((struct options *)0)->f)

static const struct numeric_opt numeric_opts[] = {
	{ 'p', "--pid", 1, INT_MAX, OPT_FIELD(pid), false },
	{ OPT_TID, "--tid", 1, INT_MAX, OPT_FIELD(tid), false },
	{ 'n', "--max-events", 1, ULLONG_MAX, OPT_FIELD(max_events), false },
	{ OPT_MAX_BYTES, "--max-bytes", 1, KSNOOP_MAX_VALUE_SIZE, OPT_FIELD(max_bytes), false },
	{ OPT_STR_BYTES, "--str-bytes", 2, KSNOOP_MAX_VALUE_SIZE, OPT_FIELD(str_bytes), false },
	{ OPT_BUFFER, "--buffer", 4096, 1ULL << 30, OPT_FIELD(buffer_bytes), true },
	{ OPT_DEPTH, "--depth", 0, BTFU_MAX_DEPTH, OPT_FIELD(depth), false },
	{ OPT_TREE_MAX_CALLS, "--tree-max-calls", 1, KSNOOP_TREE_CALLS_LIMIT, OPT_FIELD(tree_max_calls), false },
	{ OPT_TRACK_MAX, "--track-max", 1, KSNOOP_TRACK_MAX_ENTRIES, OPT_FIELD(track_max), false },
	{ OPT_SNAPLEN, "--snaplen", 1, KSNOOP_MAX_SNAPLEN, OPT_FIELD(snaplen), false },
};

_Static_assert(sizeof(int) == sizeof(__u32), "--depth is stored as a 32-bit field");

static const struct numeric_opt *numeric_opt(int c)
{
	size_t i;

	for (i = 0; i < sizeof(numeric_opts) / sizeof(numeric_opts[0]); i++)
		if (numeric_opts[i].opt == c)
			return &numeric_opts[i];
	return NULL;
}

static int parse_numeric(const struct numeric_opt *n, const char *arg, struct options *o)
{
	void *field = (char *)o + n->off;
	unsigned long long v;
	int err = parse_uint(n->name, arg, n->min, n->max, &v);

	if (err)
		return err;
	if (n->pow2 && (v & (v - 1))) {
		log_error("%s: %llu is not a power of 2", n->name, v);
		return -EINVAL;
	}
	if (n->size == sizeof(__u64))
		*(__u64 *)field = v;
	else
		*(__u32 *)field = v;
	if (n->opt == OPT_DEPTH)
		o->has_depth = true;
	return 0;
}

/* An option that sets a flag or keeps its value as given: true if C is one. */
static bool set_plain(int c, const char *arg, struct options *o)
{
	switch (c) {
	case 'j': o->json = true; break;
	case 'z': o->zeros = true; break;
	case OPT_ONELINE: o->oneline = true; break;
	case 's': o->stack = true; break;
	case OPT_USTACK: o->ustack = true; break;
	case OPT_TREE: o->tree = true; break;
	case OPT_PAIR: o->pair = true; break;
	case OPT_GROUP: o->group = true; break;
	case OPT_FOLDED: o->folded = true; break;
	case OPT_SHOW_CGROUP: o->show_cgroup = true; break;
	case OPT_FORCE: o->force = true; break;
	case OPT_INFO: o->rec_info = true; break;
	case OPT_SINCE: o->since = arg; break;
	case OPT_UNTIL: o->until = arg; break;
	case OPT_BTF_DIR: o->btf_dir = arg; break;
	case OPT_BTF: o->btf_file = arg; break;
	case OPT_TRACK: o->track = arg; break;
	case OPT_PCAP: o->pcap_path = arg; break;
	case OPT_FILTER: o->filter = arg; break;
	case 'o': o->record_path = arg; break;
	case 'v': log_verbose++; break;
	case 'd': log_debug = true; log_verbose++; break;
	default: return false;
	}
	return true;
}

static int parse_comm(const char *arg, struct options *o)
{
	if (!*arg || strlen(arg) >= sizeof(o->comm)) {
		log_error("--comm: '%s' must be 1 to %zu characters (the kernel's comm length)",
			  arg, sizeof(o->comm) - 1);
		return -EINVAL;
	}
	memset(o->comm, 0, sizeof(o->comm));
	memcpy(o->comm, arg, strlen(arg));
	o->has_comm = true;
	return 0;
}

static int parse_mode(const char *arg, struct options *o)
{
	if (strcmp(arg, "fentry") == 0)
		o->mode = MODE_FENTRY;
	else if (strcmp(arg, "kprobe") == 0)
		o->mode = MODE_KPROBE;
	else {
		log_error("--mode: '%s' is not one of fentry, kprobe", arg);
		return -EINVAL;
	}
	return 0;
}

/* --format FORMAT: perfetto only yet (text is the default, -j JSON). */
static int parse_format(const char *arg, struct options *o)
{
	if (strcmp(arg, "perfetto")) {
		log_error("--format: '%s' is not perfetto (text is the default, -j is JSON)", arg);
		return -EINVAL;
	}
	o->perfetto = true;
	return 0;
}

static int add_untrack(const char *arg, struct options *o)
{
	const int max = sizeof(o->untrack) / sizeof(o->untrack[0]);

	if (o->nuntrack == max) {
		log_error("--untrack: at most %d functions", max);
		return -EINVAL;
	}
	o->untrack[o->nuntrack++] = arg;
	return 0;
}

static int parse_interval(const char *arg, struct options *o)
{
	__u64 ns;

	if (parse_time("--interval", arg, 1000000000ULL, &ns))
		return -EINVAL;
	if (ns < 1000000) {
		log_error("--interval: '%s' is shorter than a millisecond", arg);
		return -EINVAL;
	}
	o->interval_ms = ns / 1000000;
	return 0;
}

/* An option whose value is checked: 0, a negative errno (said), or 1 if C is none. */
static int parse_checked(int c, const char *arg, struct options *o)
{
	switch (c) {
	case 'c':
		return parse_comm(arg, o);
	case OPT_DURATION:
		return parse_time("--duration", arg, 1000000000ULL, &o->duration_ns) ? -EINVAL : 0;
	case 'L':
		/* A bare number could mean ms (retsnoop's -L) or s: say which. */
		return parse_time("--min-duration", arg, 0, &o->min_duration_ns) ? -EINVAL : 0;
	case OPT_MODE:
		return parse_mode(arg, o);
	case OPT_COUNT:
		return set_output(o, OUTPUT_COUNT);
	case OPT_HIST:
		return set_output(o, OUTPUT_HIST) ?: parse_hist_scale(arg, o);
	case OPT_STATS:
		return set_output(o, OUTPUT_STATS);
	case OPT_UNTRACK:
		return add_untrack(arg, o);
	case OPT_BY:
		return parse_by(arg, o);
	case OPT_INTERVAL:
		return parse_interval(arg, o);
	case OPT_FORMAT:
		return parse_format(arg, o);
	case OPT_CGROUP:
		o->cgroup_path = arg;
		return 0;
	case OPT_NETNS:
		o->netns_arg = arg;
		return 0;
	}
	return 1;
}

/* -h, -V: printed, and that is the run. */
static void print_and_exit(int c)
{
	if (c == 'h') {
		fputs(usage_text, stdout);
		exit(KSNOOP_EXIT_OK);
	}
	/* The libbpf linked in, not the headers compiled against. */
	printf("ksnoop %s\nlibbpf %u.%u\narch %s\n", KSNOOP_VERSION,
	       libbpf_major_version(), libbpf_minor_version(), KSNOOP_ARCH);
	exit(KSNOOP_EXIT_OK);
}

/* What getopt refused (C ':' or '?'), said: -EINVAL. */
static int bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		log_error("option '%s' needs a value", arg);
	/* A known long option given a value it does not take. */
	else if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=') && optopt)
		log_error("option '%.*s' takes no value (see --help)",
			  (int)(strchr(arg, '=') - arg), arg);
	else if (optopt && optopt < 256 && arg[1] != '-')
		log_error("unknown option '-%c' (see --help)", optopt);
	else
		log_error("unknown option '%s' (see --help)", arg);
	return -EINVAL;
}

/* The name an option is known by ("--pid", for -p too). */
static const char *option_name(int c)
{
	static char buf[32];
	const struct option *l;

	for (l = long_opts; l->name; l++) {
		if (l->val == c) {
			snprintf(buf, sizeof(buf), "--%s", l->name);
			return buf;
		}
	}
	snprintf(buf, sizeof(buf), "-%c", c);
	return buf;
}

/*
 * An option that holds one value, given again: refused rather than the
 * last one silently taken (-n 1 -n 2).  Flags may repeat (they say the
 * same thing twice); -v and -d count; --untrack adds to a list.
 */
static int check_repeated(int c, const char *arg, bool seen[OPT_LAST])
{
	bool valued = arg || c == OPT_HIST;

	if (c < 0 || c >= OPT_LAST || !valued || c == OPT_UNTRACK)
		return 0;
	if (seen[c]) {
		if (c == OPT_BY)
			log_error("--by given twice: give its keys once, separated by commas (--by comm,return)");
		else
			log_error("%s given twice; give it once", option_name(c));
		return -EINVAL;
	}
	seen[c] = true;
	return 0;
}

/*
 * --cgroup PATH: its id and level, for BPF; --netns INODE|PATH: the
 * namespace's inode number.  Looked up once every option is read (so
 * that --help after them is help); said in one line if it is none.
 */
static int resolve_containers(struct options *o)
{
	struct cgroup_target t = {};
	struct ks_error e = {};
	int err = 0;

	if (o->cgroup_path) {
		err = container__cgroup(o->cgroup_path, &t, &e);
		o->cgroup_id = t.id;
		o->cgroup_level = t.level;
	}
	if (!err && o->netns_arg)
		err = container__netns(o->netns_arg, &o->netns_ino, &e);
	if (err)
		log_error("%s", ks_message(&e));
	return err;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	const struct numeric_opt *n;
	bool seen[OPT_LAST] = {};
	int c, err;

	opterr = 0;
	/* GNU getopt permutes: options may come before or after the command. */
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		if (c == 'h' || c == 'V')
			print_and_exit(c);
		if (check_repeated(c, optarg, seen))
			return -EINVAL;
		if (set_plain(c, optarg, o))
			continue;
		n = numeric_opt(c);
		err = n ? parse_numeric(n, optarg, o) : parse_checked(c, optarg, o);
		if (err > 0)
			return bad_option(c, argv);
		if (err)
			return err;
	}
	o->format = report__format(o->json, o->folded, o->perfetto);
	/* getopt_long() moved the operands last: the first is the command. */
	return check_output_options(o, optind < argc && !strcmp(argv[optind], "report")) ?:
	       resolve_containers(o);
}

/*
 * -j decides the form of every error, including those about options that
 * come before it on the command line: look for it first.
 */
static bool wants_json(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--json"))
			return true;
		/* A cluster of short options without values: -j, -jv, -vj. */
		if (argv[i][0] == '-' && argv[i][1] != '-' &&
		    strspn(argv[i] + 1, "jzvd") == strlen(argv[i] + 1) && strchr(argv[i], 'j'))
			return true;
	}
	return false;
}

/*
 * `ksnoop __complete WORD...`: what the last WORD may become, for the
 * shell's completion (cmd_complete.h).  Hidden from --help, as a word no one
 * types; ksnoop(8) documents it.  Before option parsing: the words are
 * the user's half-typed command line, not ksnoop's options.
 */
#define COMPLETE_CMD "__complete"

static int run_complete(int argc, char **argv)
{
	const char *names[sizeof(cmds) / sizeof(cmds[0]) + 1] = {};
	struct complete_src src = {
		.opts = long_opts,
		.shortopts = short_opts,
		.cmds = names,
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		names[i] = cmds[i].name;
	if (argc < 1) {
		log_error(COMPLETE_CMD ": expected the words of a command line, the last one to complete");
		return -EINVAL;
	}
	return complete__words(&src, argc, argv, stdout);
}

/*
 * -p, --tid: a process or thread that is not there would make a trace
 * that never prints; refused at once.  Not for report: the events of a
 * recording belong to processes long gone.
 */
static int check_ids_exist(const struct options *opts)
{
	if (opts->pid && kill(opts->pid, 0) && errno == ESRCH) {
		log_error("--pid: no process %u", opts->pid);
		return -EINVAL;
	}
	if (opts->tid && kill(opts->tid, 0) && errno == ESRCH) {
		log_error("--tid: no thread %u", opts->tid);
		return -EINVAL;
	}
	return 0;
}

/* The command ARGV[0] names, or trace: 0 or a negative errno, reported. */
static int run_command(int argc, char **argv, const struct options *opts)
{
	size_t i;

	if (argc < 1) {
		log_error("expected a command or a SPEC (see --help)");
		return -EINVAL;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[0], cmds[i].name) == 0)
			break;
	}
	/* Options of record and report alone: elsewhere they would be silently ignored. */
	if ((opts->record_path || opts->force) &&
	    (i == sizeof(cmds) / sizeof(cmds[0]) || strcmp(cmds[i].name, "record"))) {
		log_error("%s goes with record", opts->force ? "--force" : "-o");
		return -EINVAL;
	}
	/*
	 * --pcap: a trace's packets; a recording's too (record keeps the bytes
	 * in its events and writes the file live, report writes it again).
	 */
	if (opts->pcap_path && i < sizeof(cmds) / sizeof(cmds[0]) && cmds[i].fn == do_info) {
		log_error("--pcap goes with a trace, record or report (info: it traces nothing)");
		return -EINVAL;
	}
	if (opts->snaplen && i < sizeof(cmds) / sizeof(cmds[0]) && cmds[i].fn == do_report) {
		log_error("--snaplen goes with a trace or record (report: the recording's packets were cut when it was made)");
		return -EINVAL;
	}
	/* --filter selects what is traced: a trace's or a recording's, never report's or info's. */
	if (opts->filter && i < sizeof(cmds) / sizeof(cmds[0]) && cmds[i].fn != do_trace &&
	    cmds[i].fn != do_usdt && cmds[i].fn != do_record) {
		log_error("--filter goes with a trace or a recording (%s traces nothing)", cmds[i].name);
		return -EINVAL;
	}
	/* Decided in BPF: a recording's events were chosen when it was made. */
	if ((opts->cgroup_path || opts->netns_arg) && i < sizeof(cmds) / sizeof(cmds[0]) &&
	    (cmds[i].fn == do_info || cmds[i].fn == do_report)) {
		log_error("%s goes with a trace or record (%s: %s)",
			  opts->cgroup_path ? "--cgroup" : "--netns", cmds[i].name,
			  cmds[i].fn == do_info ? "it traces nothing" :
			  "a recording's events were chosen when it was made");
		return -EINVAL;
	}
	if (opts->rec_info && (i == sizeof(cmds) / sizeof(cmds[0]) || strcmp(cmds[i].name, "report"))) {
		log_error("--info goes with report (info TARGET is a command of its own)");
		return -EINVAL;
	}
	if (opts->perfetto && (i == sizeof(cmds) / sizeof(cmds[0]) || strcmp(cmds[i].name, "report"))) {
		log_error("--format goes with report (a live run prints text or -j)");
		return -EINVAL;
	}
	if ((opts->since || opts->until) &&
	    (i == sizeof(cmds) / sizeof(cmds[0]) || strcmp(cmds[i].name, "report"))) {
		log_error("%s goes with report (a live run's is --duration)",
			  opts->since ? "--since" : "--until");
		return -EINVAL;
	}
	if ((i == sizeof(cmds) / sizeof(cmds[0]) || strcmp(cmds[i].name, "report")) &&
	    check_ids_exist(opts))
		return -EINVAL;
	if (i < sizeof(cmds) / sizeof(cmds[0]))
		return cmds[i].fn(argc - 1, argv + 1, opts);
	return do_trace(argc, argv, opts);
}

int main(int argc, char **argv)
{
	struct options opts = {
		.max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
		.str_bytes = KSNOOP_DEFAULT_STR_SIZE,
		.buffer_bytes = DEFAULT_BUFFER_BYTES,
	};
	int err;

	if (argc > 1 && !strcmp(argv[1], COMPLETE_CMD))
		return ks_exit_status(run_complete(argc - 2, argv + 2));
	/* First: a Ctrl-C at any later point is seen (stop.h). */
	stop__install();
	stdout_lines__install();
	log_json = wants_json(argc, argv);
	err = parse_options(argc, argv, &opts);
	if (!err && !opts.tree_max_calls)
		opts.tree_max_calls = TREE_DEFAULT_MAX_CALLS;
	if (!err) {
		log_setup_libbpf();
		/* kallsyms' iterator loads with ksnoop's vmlinux BTF, not a parse of libbpf's */
		klookup__set_btf_lender(btf_lend__begin, btf_lend__end);
		err = run_command(argc - optind, argv + optind, &opts);
	}
	/*
	 * Every error was reported where it happened, and its errno says
	 * whose it is: here, and only here, it becomes the exit status.
	 */
	stdout_lines__end();
	return ks_exit_status(err);
}
