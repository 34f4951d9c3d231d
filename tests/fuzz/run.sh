#!/bin/sh
# Runs a bounded libFuzzer campaign on the trace reader.
# Usage: tests/fuzz/run.sh BUILD_DIR RUNS
# The seeds are the fixture traces (tests/fixtures/*.tct, small real recordings);
# new inputs go to BUILD_DIR/fuzz/corpus so the checked-in files stay as they are. A crash leaves
# crash-* in BUILD_DIR/fuzz: add it to tests/fuzz/regressions/ and a test.
set -eu
O=$1
runs=${2:-10000000}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$O/fuzz/corpus" "$O/fuzz/seeds"
cp "$top"/tests/fixtures/*.tct "$O/fuzz/seeds/"
cd "$O/fuzz"
# Regressions first: each must now be handled cleanly.
for f in "$top"/tests/fuzz/regressions/*; do
	[ -f "$f" ] || continue
	./fuzz_trace "$f" >/dev/null 2>&1 || { echo "fuzz: regression $f fails"; exit 1; }
done
./fuzz_trace -runs="$runs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	corpus seeds 2>&1 | tail -n 12
