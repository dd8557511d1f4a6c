#!/bin/bash
# bash completion (completions/ksnoop.bash over `ksnoop __complete`), driven
# as bash drives it: COMP_WORDS split where bash splits them (at : ( = >
# too, not inside quotes), COMP_LINE and COMP_POINT, then _ksnoop; the
# replies are what readline puts in place of the last piece.  Against the
# running kernel's BTF and tracefs, a USDT test program, and a module made
# for the test (split BTF over this kernel's, from pahole).
. "$(dirname "$0")/helpers.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
needs_root complete
scratch_dir
usdt_paths
. "$root/completions/ksnoop.bash"

# complete LINE PIECE...: the replies for LINE (cursor at its end), one a line.
complete_line() {
	local line=$1
	shift
	COMP_WORDS=("$K" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$K $line"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_ksnoop 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

# completions GOLDEN <<'ROWS': a table, a row per completion: NAME,
# all|has, the LINE and its PIECES (shell words).  GOLDEN has a line per
# row, NAME and the candidates on one line: `all`, exactly the replies
# (what is deterministic: options, a USDT program's probes); `has`, each
# of them among the replies (this kernel's functions and tracepoints are
# many, and change).  $U and $P read as such in GOLDEN.  KS_GOLDEN_UPDATE=1
# rewrites the `all` lines and the zsh lines from what was offered
# (ks_golden_line); a `has` line is a choice, kept.
completions() {
	local golden=$1 row name mode got want c missing
	while IFS= read -r row; do
		eval "set -- $row"
		[ $# -gt 0 ] || continue
		name=$1 mode=$2
		shift 2
		got=$(complete_line "$@")
		if [ "$mode" = all ]; then
			want=$(KS_GOLDEN_VARS=U ks_golden_line "$golden" "$name" "$(printf '%s\n' "$got" | joined)")
		else
			want=$(ks_golden_line "$golden" "$name")
		fi
		want=${want//\$P/$P}
		want=${want//\$U/$U}
		if [ "$mode" = all ]; then
			expect_eq "$name" "$want" "$(printf '%s\n' "$got" | joined)"
			continue
		fi
		missing=""
		for c in $want; do
			printf '%s\n' "$got" | grep -qxF -- "$c" || missing+=" $c"
		done
		if [ -n "$want" ] && [ -z "$missing" ]; then pass "$name"; else fail "$name" "not offered:${missing:- (no golden line)}
replies: $(printf '%s\n' "$got" | head -20 | joined)"; fi
	done
}

expect_eq registered "complete -F _ksnoop ksnoop" "$(complete -p ksnoop)"
golden=$(cd "$(dirname "$0")/../golden/80-complete" && pwd)
# tp: and a category: the piece after the last ':' is replaced.  Inside an
# opening quote the whole word is replaced; a pointer to a struct comes
# also with ->, where its members are next.  A USDT program: BINARY: then
# its probes; a user function: u:BINARY: then its functions.
completions "$golden/bash" <<'ROWS'
option                 all '--mo' --mo
option_values          all '--mode ' --mode ''
option_value_after_eq  all '--mode=k' --mode = k
pid_is_running         has '-p 1' -p 1
function_prefix        has 'ip_send_s' ip_send_s
command                has 'inf' inf
tracepoint_category    has 'tp:sch' tp : sch
tracepoint_name        has 'tp:sch' tp : sch
tracepoint_in_category all 'tp:sched:sched_swi' tp : sched : sched_swi
syscall                has 'sys:opena' sys : opena
argument_name          all '"ip_send_skb(sk' '"ip_send_skb(sk'
argument_after_comma   all '"ip_send_skb(skb->len, ne' '"ip_send_skb(skb->len, ne'
member                 has '"ip_send_skb(skb->le' '"ip_send_skb(skb->le'
member_of_member       has '"ip_send_skb(skb->dev->mt' '"ip_send_skb(skb->dev->mt'
tracepoint_argument    has '"tp:sched_switch(pre' '"tp:sched_switch(pre'
usdt_binary            all "usdt $U/usdt_pr" usdt "$U/usdt_pr"
usdt_probe             all "usdt $P:ksnoop_test:re" usdt "$P" : ksnoop_test : re
info_usdt_binary       all "info usdt $U/usdt_pr" info usdt "$U/usdt_pr"
ufunc_prefix           has 'u' u
ufunc_binary           all "u:$U/usdt_pr" u : "$U/usdt_pr"
ufunc_function         all "u:$P:guarded_f" u : "$P" : guarded_f
ROWS
expect_eq function_prefix_only_matches "" "$(complete_line 'ip_send_s' ip_send_s | grep -v '^ip_send_s')"

# A module: its split BTF over this kernel's, beside it in a BTF directory
# (--btf-dir, the tests' option, is read from the line as ksnoop reads it).
mkdir -p "$tmp/btf"
cp /sys/kernel/btf/vmlinux "$tmp/btf/vmlinux"
cat >"$tmp/mod.c" <<'C'
struct ksnoop_mod_req { int id; long len; };
int ksnoop_mod_submit(struct ksnoop_mod_req *req) { return req->id; }
int ksnoop_mod_cancel(struct ksnoop_mod_req *req, int why) { return why; }
C
if gcc -g -O0 -c "$tmp/mod.c" -o "$tmp/mod.o" && pahole --btf_base "$tmp/btf/vmlinux" -J "$tmp/mod.o" &&
	objcopy --dump-section .BTF="$tmp/btf/ksnoopmod" "$tmp/mod.o"; then
	pass module_btf_made
else
	fail module_btf_made "gcc, pahole or objcopy failed"
fi
expect_eq module_name "ksnoopmod:" "$(complete_line "--btf-dir $tmp/btf ksnoopm" --btf-dir "$tmp/btf" ksnoopm)"
expect_eq module_function "ksnoop_mod_submit" \
	"$(complete_line "--btf-dir $tmp/btf ksnoopmod:ksnoop_mod_s" --btf-dir "$tmp/btf" ksnoopmod : ksnoop_mod_s)"
expect_eq module_function_member "ksnoopmod:ksnoop_mod_submit(req->id ksnoopmod:ksnoop_mod_submit(req->len" \
	"$(complete_line "--btf-dir $tmp/btf \"ksnoopmod:ksnoop_mod_submit(req->" --btf-dir "$tmp/btf" \
		'"ksnoopmod:ksnoop_mod_submit(req->' | joined)"

# zsh: completions/_ksnoop through compinit, a <Tab> typed on a
# pseudo-terminal (completion widgets run only in an interactive zsh); the
# line as zsh leaves it, printed (so unquoted).
zsh_tab() {
	python3 - "$root/completions" "$(dirname "$K")" "$1" <<'PY'
import os, pty, select, sys, time
fdir, bindir, line = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.environ.update(PATH=bindir + ":" + os.environ["PATH"], TERM="dumb")
    os.execvp("zsh", ["zsh", "-f", "-i"])
def read_until(mark, limit):
    out, end = b"", time.time() + limit
    while time.time() < end and mark not in out:
        if select.select([fd], [], [], 0.1)[0]:
            out += os.read(fd, 65536)
    return out
os.write(fd, b"PS1='> '; fpath=(%s $fpath); autoload -Uz compinit; compinit -u -D; print READY\n" % fdir.encode())
read_until(b"READY\r\n", 10)
os.write(fd, line.encode() + b"\t")
time.sleep(0.2)
# The line printed (a quote the word opened closed first).
os.write(fd, b"\x05" + (b'"' if line.count('"') % 2 else b"") + b"\x01print -r -- LINE:\x0d")
out = read_until(b"\n> ", 10).decode(errors="replace")
os.write(fd, b"exit\n")
print(out.rsplit("LINE:", 1)[-1].split("\r")[0].strip() if "LINE:" in out else "no line: " + out[-200:])
PY
}
ks_name=$(basename "$K")
# A row: NAME and what is typed after the program's name; tests/golden/
# 80-complete/zsh the line after <Tab>, without the program's name.
while read -r name typed; do
	[ -n "$name" ] || continue
	eval "typed=$typed"
	got=$(zsh_tab "$ks_name $typed")
	want=$(KS_GOLDEN_VARS=P ks_golden_line "$golden/zsh" "$name" "${got#"$ks_name "}")
	expect_eq "$name" "$ks_name ${want//\$P/$P}" "$got"
done <<'ROWS'
zsh_option     '--mo'
zsh_function   'ip_send_s'
zsh_tracepoint 'tp:sched:sched_swi'
zsh_member     '"ip_send_skb(skb->le'
zsh_usdt_probe "usdt $P:ksnoop_test:re"
ROWS

# A directory where nobody made files named with ESC and with a newline:
# root's `ksnoop __complete` offers neither (raw, one would act on the
# terminal and the other read as two names), and still the plain file.
chmod 755 "$tmp"
hostile=$tmp/hostile
mkdir "$hostile"
chown nobody "$hostile"
"${NOBODY[@]}" sh -c 'cd "$1" && touch plain-file "$(printf "esc\033[31mred")" "$(printf "nl\nforged")"' sh "$hostile"
expect_eq hostile_files_made 3 "$(find "$hostile" -type f -user nobody -printf x | wc -c)"
out=$(ks __complete usdt "$hostile/" 2>&1)
expect_eq hostile_plain_offered "$hostile/plain-file:" "$(printf '%s\n' "$out" | grep -x "$hostile/plain-file:")"
expect_eq hostile_no_control_bytes 0 "$(printf '%s\n' "$out" | LC_ALL=C grep -c -P '[\x00-\x09\x0b-\x1f\x7f]')"
expect_eq hostile_names_left_out "" "$(printf '%s\n' "$out" | grep -e esc -e nl -e forged)"
