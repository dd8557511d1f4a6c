#!/bin/bash
# The help text, the man page and the README agree with the binary.
. "$(dirname "$0")/helpers.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
man=$root/docs/ksnoop.8

help=$(ks --help)
help_opts=$(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
man_opts=$(sed 's/\\-/-/g; s/\\f[BIR]//g' "$man" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
expect_eq man_and_help_same_options "$help_opts" "$man_opts"

# Every documented option is accepted (exit 0 with --help after it).
bad=""
for o in $help_opts; do
	case $o in
	--help|--version) continue ;;
	--json|--zeros|--verbose|--debug) args=("$o") ;;
	--mode) args=("$o" fentry) ;;
	--format) args=("$o" perfetto) ;;
	--comm) args=("$o" x) ;;
	--btf) args=("$o" /dev/null) ;;
	--buffer) args=("$o" 4096) ;;
	--min-duration) args=("$o" 5ms) ;;
	*) args=("$o" 5) ;;
	esac
	ks "${args[@]}" --help >/dev/null 2>&1 || bad="$bad $o"
done
expect_eq every_documented_option_accepted "" "$bad"

# The grammar in --help is the man page's SYNOPSIS and the README's: a
# rule and the lines that continue it (indented).
rule_of() { awk -v r="$1" '$0 ~ "^ *" r " +:=" { on = 1; print; next }
	on && /^ {8,}[^ ]/ && !/:=/ { print; next } { on = 0 }' | sed -E 's/ +/ /g; s/^ //'; }
readme_grammar=$(sed -n '/^The spec language/,/^- /p' "$root/README.md")
for rule in SPEC USPEC ITEM VALUE FORMAT OP CONST; do
	h=$(printf '%s\n' "$help" | rule_of "$rule")
	m=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$man" | sed 's/\\-/-/g; s/\\f[BIR]//g' | rule_of "$rule")
	r=$(printf '%s\n' "$readme_grammar" | rule_of "$rule")
	expect_eq "synopsis_$rule" "$h" "$m"
	expect_eq "readme_grammar_$rule" "$h" "$r"
done
t=$(printf '%s\n' "$help" | rule_of TARGET)
expect_eq synopsis_TARGET "$t" "$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$man" | sed 's/\\-/-/g; s/\\f[BIR]//g' | rule_of TARGET)"
# A call tree's ROOT and INNER (user functions among them): --help's as the man page's.
for rule in ROOT INNER; do
	expect_eq "synopsis_$rule" "$(printf '%s\n' "$help" | rule_of "$rule")" \
		"$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$man" | sed 's/\\-/-/g; s/\\f[BIR]//g' | rule_of "$rule")"
done

# The README's two set-up commands come first.
first=$(grep -m2 -E '^ *make (demo|check)$' "$root/README.md" | sed 's/^ *//' | tr '\n' ' ')
expect_eq readme_two_commands "make demo make check " "$first"

# docs/ARCHITECTURE.md's file map names every file of the source
# directories, and nothing else: in "## Files", a line starting with
# `DIR/` is a heading, and a table row's first column names files (or,
# ending in /, a directory of data) under the last heading; under a
# heading of two directories, it names them from the top.
map=$(awk '/^## Files/ { on = 1; next } on && /^## / { on = 0 }
	on && /^`[a-z]+\/([a-z0-9_]+\/)*`/ { dir = substr($1, 2); sub(/`.*/, "", dir)
		if (/ and `/) dir = ""; next }
	on && /^\| `/ { split($0, col, "|"); n = split(col[2], w, "`")
		for (i = 2; i <= n; i += 2) print dir w[i] }' \
	"$root/docs/ARCHITECTURE.md" | sort -u)
tree=$(cd "$root" && find ksnoop bpf include tests bench -type f | sort |
	while read -r f; do
		d=""
		for m in $(printf '%s\n' "$map" | grep '/$'); do
			case $f in "$m"*) d=$m ;; esac
		done
		echo "${d:-$f}"
	done | sort -u)
expect_eq architecture_file_map "" "$(diff <(echo "$map") <(echo "$tree"))"

# The man page renders as man(1) shows it on an 80-column terminal
# without groff's warnings ("can't break line", "cannot adjust line"):
# warnings are errors here.
if command -v groff >/dev/null; then
	expect_eq man_renders_clean "" "$(groff -man -Tutf8 -z -rLL=78n -wbreak "$man" 2>&1)"
else
	fail man_renders_clean "groff is not installed"
fi
