#!/bin/sh
# Runs every test and prints one summary line: "N passed, N failed, N skipped".
#  - unit tests: build/tests/test_* (cmocka, TAP output); each test case counts, a
#    case that calls skip() as skipped
#  - system tests: tests/system/test_*.sh; exit 0 passed, 77 skipped (they print
#    "skipped: why"), anything else failed
# Usage: tests/run.sh BUILD_DIR [PATTERN]
set -u
O=${1:-build}
pattern=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
O=$(cd "$O" && pwd)
pass=0 fail=0 skip=0
failed=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for t in "$O"/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d) continue ;; esac
	name=$(basename "$t")
	[ -n "$pattern" ] && case "$name" in *$pattern*) ;; *) continue ;; esac
	CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$log" 2>&1
	rc=$?
	# cmocka's skip() prints "not ok N # SKIP name": skipped, not failed
	k=$(grep -c '^not ok [0-9]* # SKIP' "$log")
	p=$(grep -c '^ok ' "$log")
	f=$(($(grep -c '^not ok ' "$log") - k))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
	if [ "$f" != 0 ]; then
		failed="$failed $name"
		echo "FAIL  $name"; grep -v '^ok ' "$log" | sed 's/^/      /'
	else
		echo "ok    $name ($p)"
		[ "$k" = 0 ] || echo "skip  $name: $k case(s): $(grep -m1 'skipped:' "$log" |
			sed 's/.*skipped: *//')"
	fi
done

for s in "$top"/tests/system/test_*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	[ -n "$pattern" ] && case "$name" in *$pattern*) ;; *) continue ;; esac
	(cd "$top" && sh "$s" "$O") >"$log" 2>&1
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "ok    $name" ;;
	77) skip=$((skip + 1)); echo "skip  $name: $(grep -m1 'skipped:' "$log" | sed 's/.*skipped: *//')" ;;
	*) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL  $name (exit $rc)"; sed 's/^/      /' "$log" | tail -40 ;;
	esac
done

echo
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
