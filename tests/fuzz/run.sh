#!/bin/sh
# Runs bounded libFuzzer campaigns on the trace reader (fuzz_trace), on the JSON report
# reader of diff and rank (fuzz_json), and on the streamed analysis against the whole one
# (fuzz_stream, RUNS / 10: each run analyzes twice).
# Usage: tests/fuzz/run.sh BUILD_DIR RUNS
# The seeds are the fixture traces (tests/fixtures/*.tct, small real recordings) and the
# golden JSON reports (tests/golden/*.json); new inputs go to BUILD_DIR/fuzz/corpus-* so
# the checked-in files stay as they are. A crash, an undefined behaviour or a streamed
# answer that differs leaves crash-* in BUILD_DIR/fuzz: add it to tests/fuzz/regressions/
# (trace-*, json-* or stream-*) and a test.
set -eu
O=$1
runs=${2:-10000000}
stream_runs=$((runs / 10))
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$O/fuzz/corpus-trace" "$O/fuzz/corpus-json" "$O/fuzz/corpus-stream" "$O/fuzz/seeds-trace" "$O/fuzz/seeds-json"
cp "$top"/tests/fixtures/*.tct "$O/fuzz/seeds-trace/"
cp "$top"/tests/golden/*.json "$O/fuzz/seeds-json/"
cd "$O/fuzz"
# Regressions first: each must now be handled cleanly.
for f in "$top"/tests/fuzz/regressions/*; do
	[ -f "$f" ] || continue
	case "$(basename "$f")" in
	json-*) fz=./fuzz_json ;;
	stream-*) fz=./fuzz_stream ;;
	*) fz=./fuzz_trace ;;
	esac
	"$fz" "$f" >/dev/null 2>&1 || { echo "fuzz: regression $f fails"; exit 1; }
done
for target in trace json; do
	echo "fuzz_$target:"
	"./fuzz_$target" -runs="$runs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 "corpus-$target" "seeds-$target" 2>&1 | tail -n 12
done
# The streamed analysis against the whole one, on traces its inputs spell (no seeds: any
# bytes are a trace); each run analyzes twice, so a tenth as many runs.
echo "fuzz_stream:"
./fuzz_stream -runs="$stream_runs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 corpus-stream 2>&1 | tail -n 12
