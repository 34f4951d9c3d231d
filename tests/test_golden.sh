#!/bin/sh
# Golden renderer tests, no root and no BPF: every case of tests/golden/cases reports a
# fixture trace (tests/fixtures/), or compares them (diff, rank), and must print
# tests/golden/<case> byte for byte; the HTML page of each fixture, of a diff and of a
# rank must be well formed, hold its charts and fetch nothing.
# Usage: tests/test_golden.sh BUILD_DIR [--update]   (--update rewrites the golden files)
set -eu
O=${1:-build}
update=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
TC=$(cd "$O" && pwd)/tailcause
cd "$top"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
bad=0 n=0

set -f	# the command lines hold shell patterns (--nic-irq 'virtio*'), not file names

while read -r file cmd; do
	case "$file" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	# shellcheck disable=SC2086 # the case's words are the command line
	if ! "$TC" $cmd >"$TMP/out" 2>"$TMP/err"; then
		echo "FAILED: $file: tailcause $cmd exited $?: $(head -3 "$TMP/err")"
		bad=$((bad + 1))
		continue
	fi
	if [ "$update" = --update ]; then
		cp "$TMP/out" "tests/golden/$file"
	elif ! cmp -s "$TMP/out" "tests/golden/$file"; then
		echo "FAILED: $file differs from tailcause $cmd:"
		diff -u "tests/golden/$file" "$TMP/out" | head -40
		bad=$((bad + 1))
	fi
done <tests/golden/cases
set +f

for f in tests/fixtures/*.tct; do
	n=$((n + 1))
	args=
	[ "$f" = tests/fixtures/bench.tct ] && args="--samples tests/fixtures/bench.csv"
	[ "$f" = tests/fixtures/perftest-first.tct ] && args="--iter-log tests/fixtures/perftest-first.U"
	# shellcheck disable=SC2086
	if ! "$TC" report "$f" $args --format html -o "$TMP/page.html" 2>"$TMP/err" ||
		! python3 tests/check_html.py "$TMP/page.html" >"$TMP/why" 2>&1; then
		echo "FAILED: the HTML page of $f: $(cat "$TMP/err" "$TMP/why" 2>/dev/null | head -5)"
		bad=$((bad + 1))
	fi
done

# The diff and rank pages of the same.
for page in "diff tests/fixtures/hog.tct tests/fixtures/probe-2k.tct" \
	"rank tests/golden/hog.json tests/golden/probe-2k.json tests/golden/lost.json"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	if ! "$TC" $page --format html -o "$TMP/page.html" 2>"$TMP/err" ||
		! python3 tests/check_html.py "$TMP/page.html" >"$TMP/why" 2>&1; then
		echo "FAILED: the HTML page of $page: $(cat "$TMP/err" "$TMP/why" 2>/dev/null | head -5)"
		bad=$((bad + 1))
	fi
done

[ "$update" = --update ] && echo "golden files rewritten: review them with git diff tests/golden"
echo "$((n - bad)) of $n golden cases passed"
[ "$bad" = 0 ]
