#!/bin/sh
# Runs the tests and prints one summary line: "N passed, N failed, N skipped".
#  - unit tests: BUILD_DIR/tests/test_* (cmocka, TAP output); each test case counts, a
#    case that calls skip() as skipped
#  - tests/test_*.sh (not with --unit): tests that need neither root nor BPF (the golden
#    renderer tests, the layer check)
#  - system tests (not with --check or --unit): tests/system/test_*.sh
# A shell test exits 0 passed, 77 skipped (it prints "skipped: why"), anything else failed.
# Every test runs under a timeout (TAILCAUSE_TEST_TIMEOUT seconds, default 600; a script
# may ask for more with a "# timeout: SECONDS" line): a hung test fails with its name.
# With TAILCAUSE_NO_SKIP=1 (CI) a skip fails too, unless tests/allowed-skips lists it.
# Usage: tests/run.sh [--check | --unit] BUILD_DIR [PATTERN]
set -u
suite=all
case "${1:-}" in --check) suite=check; shift ;; --unit) suite=unit; shift ;; esac
O=${1:-build}
pattern=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
O=$(cd "$O" && pwd)
limit=${TAILCAUSE_TEST_TIMEOUT:-600}
no_skip=${TAILCAUSE_NO_SKIP:-}
pass=0 fail=0 skip=0
failed=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT

selected() { [ -z "$pattern" ] || case "$1" in *$pattern*) return 0 ;; *) return 1 ;; esac; }

# allowed NAME REASON: whether tests/allowed-skips lets NAME skip for REASON
allowed() {
	grep -v '^#' "$top/tests/allowed-skips" 2>/dev/null | while read -r name why; do
		[ "$name" = "$1" ] && case "$2" in *"$why"*) echo yes; break ;; esac
	done | grep -q yes
}

# skipped NAME REASON: counts a skip, or a failure where skips are not allowed
skipped() {
	if [ -n "$no_skip" ] && ! allowed "$1" "$2"; then
		fail=$((fail + 1)); failed="$failed $1"
		echo "FAIL  $1: skipped ($2), and TAILCAUSE_NO_SKIP=1 (not in tests/allowed-skips)"
	else
		skip=$((skip + 1)); echo "skip  $1: $2"
	fi
}

for t in "$O"/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d) continue ;; esac
	name=$(basename "$t")
	selected "$name" || continue
	CMOCKA_MESSAGE_OUTPUT=TAP timeout -k 5 "$limit" "$t" >"$log" 2>&1
	rc=$?
	# cmocka's skip() prints "not ok N # SKIP name": skipped, not failed
	k=$(grep -c '^not ok [0-9]* # SKIP' "$log")
	p=$(grep -c '^ok ' "$log")
	f=$(($(grep -c '^not ok ' "$log") - k))
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "FAIL  $name: timed out after $limit s"; f=$((f + 1))
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	pass=$((pass + p)); fail=$((fail + f))
	if [ "$f" != 0 ]; then
		failed="$failed $name"
		echo "FAIL  $name"; grep -v '^ok ' "$log" | sed 's/^/      /'
	else
		echo "ok    $name ($p)"
	fi
	[ "$k" = 0 ] || skipped "$name" "$k case(s): $(grep -m1 'skipped:' "$log" | sed 's/.*skipped: *//')"
done

scripts=
[ "$suite" = unit ] || scripts="$top/tests/test_*.sh"
[ "$suite" = all ] && scripts="$scripts $top/tests/system/test_*.sh"
for s in $scripts; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	selected "$name" || continue
	t=$(sed -n 's/^# timeout: \([0-9]*\).*/\1/p' "$s" | head -1)
	(cd "$top" && timeout -k 10 "${t:-$limit}" sh "$s" "$O") >"$log" 2>&1
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "ok    $name" ;;
	77) skipped "$name" "$(grep -m1 'skipped:' "$log" | sed 's/.*skipped: *//')" ;;
	124 | 137) fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL  $name: timed out after ${t:-$limit} s"; sed 's/^/      /' "$log" | tail -20 ;;
	*) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL  $name (exit $rc)"; sed 's/^/      /' "$log" | tail -40 ;;
	esac
done

echo
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
