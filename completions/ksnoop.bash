# bash completion for ksnoop(8).  The candidates come from ksnoop itself,
# `ksnoop __complete WORD...` (the words after "ksnoop", the last one the
# word under the cursor); this script only gives it the words as the
# command will receive them, and gives bash back the part it replaces.

_ksnoop()
{
	local ks=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
	local line=${COMP_LINE:0:COMP_POINT} piece prefix c i
	local -a words=() cands=()

	# bash splits words at : ( = > too (COMP_WORDBREAKS): join the pieces
	# that touch in the command line, then drop the quotes.
	line=${line#*"$ks"}
	for ((i = 1; i <= COMP_CWORD; i++)); do
		piece=${COMP_WORDS[i]}
		if [[ $line =~ ^[[:space:]] || ${#words[@]} -eq 0 ]]; then
			words+=("")
		fi
		line=${line#"${line%%[![:space:]]*}"}
		line=${line#"$piece"}
		words[${#words[@]} - 1]+=$piece
	done
	for i in "${!words[@]}"; do
		c=${words[i]//\"/}
		c=${c//\'/}
		words[i]=${c//\\/}
	done
	[[ ${#words[@]} -eq 0 ]] && words=("")

	mapfile -t cands < <("$ks" __complete "${words[@]}" 2>/dev/null)
	# What readline replaces: inside an opening quote, the whole word;
	# otherwise what follows the last COMP_WORDBREAKS character.
	prefix=""
	if [[ $cur != [\"\']* ]]; then
		prefix=${words[${#words[@]} - 1]}
		while [[ -n $prefix && $COMP_WORDBREAKS != *"${prefix: -1}"* ]]; do
			prefix=${prefix%?}
		done
	fi
	COMPREPLY=()
	for c in "${cands[@]}"; do
		COMPREPLY+=("${c#"$prefix"}")
		# Names that go on (MODULE:, tp:CAT:, dir/, --hist=, a spec's
		# arguments) take no space.
		[[ $c == *[:/=\(] || $c == *\(* ]] && compopt -o nospace 2>/dev/null
	done
	return 0
}
complete -F _ksnoop ksnoop
