#!/bin/sh
# Runs bounded libFuzzer campaigns on the trace reader (fuzz_trace), on the JSON report
# reader of diff and rank (fuzz_json), on the streamed analysis against the whole one
# (fuzz_stream, RUNS / 10: each run analyzes twice), and on both sides of the two-host
# link (fuzz_link, seeded by the messages of each side and a fixture trace sent over it).
# Usage: tests/fuzz/run.sh BUILD_DIR RUNS
# The seeds are the fixture traces (tests/fixtures/*.tct, small real recordings) and the
# golden JSON reports (tests/golden/*.json); new inputs go to BUILD_DIR/fuzz/corpus-* so
# the checked-in files stay as they are. A crash, an undefined behaviour or a streamed
# answer that differs leaves crash-* in BUILD_DIR/fuzz: add it to tests/fuzz/regressions/
# (trace-*, json-*, stream-* or link-*) and a test.
set -eu
O=$1
runs=${2:-10000000}
stream_runs=$((runs / 10))
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$O/fuzz/corpus-trace" "$O/fuzz/corpus-json" "$O/fuzz/corpus-stream" "$O/fuzz/seeds-trace" \
	"$O/fuzz/seeds-json" "$O/fuzz/corpus-link" "$O/fuzz/seeds-link"
cp "$top"/tests/fixtures/*.tct "$O/fuzz/seeds-trace/"
cp "$top"/tests/golden/*.json "$O/fuzz/seeds-json/"
cd "$O/fuzz"
# Regressions first: each must now be handled cleanly.
for f in "$top"/tests/fuzz/regressions/*; do
	[ -f "$f" ] || continue
	case "$(basename "$f")" in
	json-*) fz=./fuzz_json ;;
	stream-*) fz=./fuzz_stream ;;
	link-*) fz=./fuzz_link ;;
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
# The link: the first byte picks the side (0 server, 1 client, 2 fetch, 3 serve, 4 -D; 0x80
# with a key), the rest is what the other side says.
nonce=0123456789abcdef0123456789abcdef
mac=$(printf '%064d' 0)
s=seeds-link
printf '\000tailcause-link 2 %s\ntailcause-link proof none\n' "$nonce" >"$s/server-nokey"
printf '\200tailcause-link 2 %s\ntailcause-link proof %s\n' "$nonce" "$mac" >"$s/server-key"
printf '\001tailcause-link 2 %s nokey\ntailcause-link ok none\n' "$nonce" >"$s/client-nokey"
printf '\201tailcause-link 2 %s key\ntailcause-link ok %s\n' "$nonce" "$mac" >"$s/client-key"
printf '\201tailcause-link 2 %s key\ntailcause-link refused key\n' "$nonce" >"$s/client-refused"
f="$top/tests/fixtures/probe-2k-v3.tct"
{ printf '\002tailcause-trace 2 %s\n' "$(wc -c <"$f")"; cat "$f"; printf 'tailcause-trace-mac %s\n' "$mac"; } >"$s/fetch"
printf '\002tailcause-trace 2 none no key\n' >"$s/fetch-none"
printf '\003tailcause-trace? 2 0123456789abcdef\n' >"$s/serve"
printf '\104tailcause-run? more\n' >"$s/next-run"
echo "fuzz_link:"
./fuzz_link -runs="$runs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 corpus-link seeds-link 2>&1 | tail -n 12
