#!/bin/sh
# The man pages and the shell completion come from the option tables the commands parse
# with (scripts/gen-man.py reads 'tailcause help-options'): every option of every table must
# be in the command's --help, in its man page's OPTIONS, in what bash completes after
# "tailcause CMD -" and in what zsh lists there. man renders every page with no warning
# (man --warnings=w: all of groff's), each with NAME, SYNOPSIS, DESCRIPTION, OPTIONS,
# EXIT STATUS, EXAMPLES and SEE ALSO; tailcause.8 lists every command and every exit code of
# lib/exitcode.h. Needs python3, man (man-db, groff-base) and zsh (scripts/deps.sh).
# Usage: tests/test_man.sh BUILD_DIR
# timeout: 300
set -eu
O=${1:-build}
TC=$(cd "$O" && pwd)/tailcause
top=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$TC" ] || { echo "FAIL: $TC is not built (make)"; exit 1; }
for tool in python3 man zsh bash; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "skipped: no $tool (scripts/deps.sh installs it)"; exit 77; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export LC_ALL=C.UTF-8 MANWIDTH=100
failed=0
fail() { echo "FAIL: $*"; failed=1; }

python3 "$top/scripts/gen-man.py" man "$TC" "$TMP/man"
python3 "$top/scripts/gen-man.py" completion "$TC" "$TMP/completion"
commands=$("$TC" help-options | awk -F'\t' '$1 == "command" { print $2 }')
[ -n "$commands" ] || { echo "FAIL: tailcause help-options lists no command"; exit 1; }

# options CMD: the short and long names of CMD's options ("" for tailcause's own)
options() {
	# shellcheck disable=SC2086 # no command: no argument
	"$TC" help-options $1 | awk -F'\t' '$1 == "option" { if ($2 != "") print $2; print $3 }'
}
# has FILE OPT: whether FILE names OPT as a word (--iter is not --iter-first, -c not --cpu)
has() { grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|$)" "$1"; }

# What zsh lists for each line of $TMP/zsh.in and TAB, in one session: the words of the
# listing (before a " -- " description), into $TMP/zsh.N for line N.
{
	echo "tailcause "
	echo "tailcause -"
	for cmd in $commands; do echo "tailcause $cmd -"; done
} >"$TMP/zsh.in"
cat >"$TMP/complete.zsh" <<'EOF'
zmodload zsh/zpty
zpty z env TERM=xterm zsh -f -i
zpty -w z "PS1='> '; LISTMAX=100000; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
# what is typed before zle sets the terminal up may be lost: type only at a prompt
zpty -w z "echo \$((8000 + 1))ready"
zpty -r z out "*8001ready*> *" || { print "zpty: the shell does not answer"; exit 1; }
n=0
for line in "${(@f)$(<$2/zsh.in)}"; do
	n=$((n + 1))
	# TAB lists; ^U empties the line; the echo's output (not its input) ends the listing
	zpty -w -n z "$line"$'\t'$'\x15'"echo \$((9000 + $n))done"$'\n'
	zpty -r z out "*$((9000 + n))done*> *" || { print "zpty: no end for '$line'"; exit 1; }
	print -r -- "$out" | tr -d '\r' | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/ -- .*//' \
		>"$2/zsh.$n"
done
zpty -d z
EOF
timeout 120 zsh -f "$TMP/complete.zsh" "$TMP/completion" "$TMP" ||
	fail "zsh did not complete: $(cat "$TMP"/zsh.[0-9]* 2>/dev/null | tail -5)"

# bash_complete WORD...: what _tailcause offers for the last word
bash_complete() {
	bash -c '. "$1/tailcause"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _tailcause
		printf "%s\n" "${COMPREPLY[@]}"' sh "$TMP/completion" "$@"
}

n=1 # the line of $TMP/zsh.in
for cmd in "" $commands; do
	n=$((n + 1))
	name=${cmd:-tailcause}
	page=$TMP/man/tailcause${cmd:+-$cmd}.8
	[ -f "$page" ] || { fail "no man page for $name"; continue; }
	man --warnings=w -l "$page" >"$TMP/page" 2>"$TMP/warnings" || fail "man $page failed"
	[ -s "$TMP/warnings" ] && fail "man warns on $name: $(head -3 "$TMP/warnings")"
	for section in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' EXAMPLES 'SEE ALSO'; do
		grep -qx "$section" "$TMP/page" || fail "$name: the man page has no $section"
	done
	sed -n '/^OPTIONS$/,/^EXIT STATUS$/p' "$TMP/page" >"$TMP/options"
	# shellcheck disable=SC2086 # no command: no argument
	"$TC" $cmd --help >"$TMP/help"
	if [ -n "$cmd" ]; then
		bash_complete tailcause "$cmd" - >"$TMP/bash"
	else
		bash_complete tailcause - >"$TMP/bash"
	fi
	k=0
	for opt in $(options "$cmd"); do
		k=$((k + 1))
		has "$TMP/help" "$opt" || fail "$name: $opt is not in its --help"
		has "$TMP/options" "$opt" || fail "$name: $opt is not in its man page's OPTIONS"
		grep -qxF -- "$opt" "$TMP/bash" || fail "$name: bash does not complete $opt"
		has "$TMP/zsh.$n" "$opt" || fail "$name: zsh does not complete $opt"
	done
	[ "$k" -gt 1 ] || fail "$name: help-options lists $k options"
done

# tailcause.8: every command, every exit code; both shells complete the commands.
man -l "$TMP/man/tailcause.8" >"$TMP/page"
bash_complete tailcause "" >"$TMP/bash"
for cmd in $commands; do
	grep -q "tailcause-$cmd(8)" "$TMP/page" || fail "tailcause.8 does not list $cmd"
	grep -qxF "$cmd" "$TMP/bash" || fail "bash does not complete the command $cmd"
	has "$TMP/zsh.1" "$cmd" || fail "zsh does not complete the command $cmd"
done
sed -n '/^EXIT STATUS$/,/^[A-Z]/p' "$TMP/page" >"$TMP/exit"
sed -n 's/^\tTC_EXIT_[A-Z]* = \([0-9]*\),.*/\1/p' "$top/user/lib/exitcode.h" >"$TMP/codes"
[ "$(wc -l <"$TMP/codes")" -ge 6 ] || fail "exitcode.h: $(wc -l <"$TMP/codes") exit codes read"
while read -r code; do
	grep -qE "^ +$code +[a-z]" "$TMP/exit" || fail "tailcause.8 lacks exit code $code"
done <"$TMP/codes"
zsh -n "$TMP/completion/_tailcause" || fail "_tailcause is not zsh"
bash -n "$TMP/completion/tailcause" || fail "the bash completion is not bash"
[ "$failed" = 0 ] || exit 1
echo "ok: $(echo "$commands" | wc -w) commands: their options in --help, man pages, bash, zsh"
