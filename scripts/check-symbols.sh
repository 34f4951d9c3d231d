#!/bin/sh
# The symbol check, on the built objects of core/ (BUILD_DIR/user/core): no two files call
# each other (a knot: split a file's job so that the calls go one way), and every symbol a
# file exports starts with one of the module prefixes below (docs/hacking.md, "Style").
# Prints every violation and exits 1 if there is one.
# Usage: scripts/check-symbols.sh BUILD_DIR
set -eu
O=${1:-build}
[ -d "$O/user/core" ] || { echo "check-symbols: build $O first (make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The prefixes of core's exports: a file's noun, or its module's (codec_ for the trace codec).
PREFIXES='
active_set analysis analyze_ audit calib causes cause_table clock_sync codec_ coll_ context cpuset
dec_ describe diff event_span func_ids grow heap hist idle_latency iter_ jv_ moments noise peer_
plot radix rank report_model rm_ rtt_ samples_csv spike_credit spike_rule spike_window stats
stream_ summary tc_ trace u64map units verdict wait_chain wakeups
'

# the objects of today's sources (a renamed file's old object may linger in the build)
git ls-files 'user/core/*.c' | sort >"$tmp/srcs"
while read -r c; do
	f=${c#user/core/}
	f=${f%.c}
	o="$O/user/core/$f.o"
	[ -f "$o" ] || { echo "check-symbols: $o missing: build $O first (make)" >&2; exit 1; }
	nm --defined-only -g "$o" | awk -v f="$f" '$2 ~ /[TDRB]/ { print f, $3 }' >>"$tmp/defs"
	nm -u "$o" | awk -v f="$f" '{ print f, $2 }' >>"$tmp/uses"
done <"$tmp/srcs"

bad=0
# exports without a module's prefix
while read -r f sym; do
	ok=
	for p in $PREFIXES; do
		case "$sym" in "$p"*) ok=1; break ;; esac
	done
	[ -n "$ok" ] || { echo "user/core/$f.c exports $sym: no module prefix (scripts/check-symbols.sh)"; bad=1; }
done <"$tmp/defs"
# file A uses a symbol of B: the pairs, then those both ways
awk 'NR == FNR { def[$2] = $1; next } ($2 in def) && def[$2] != $1 { print $1, def[$2] }' \
	"$tmp/defs" "$tmp/uses" | sort -u >"$tmp/calls"
while read -r a b; do
	if grep -qx "$b $a" "$tmp/calls" && [ "$a" \< "$b" ]; then
		echo "user/core/$a.c and user/core/$b.c call each other: a knot"
		bad=1
	fi
done <"$tmp/calls"
exit $bad
