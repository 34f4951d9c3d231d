#!/bin/sh
# A short libFuzzer run over the trace reader, the JSON report reader and both sides of the
# two-host link, and over the streamed analysis against the whole one (the full campaigns
# are `make fuzz`): the seeds and 50000 mutations each (5000 for the streamed analysis)
# must neither crash, leak, do anything undefined, nor give a streamed answer that differs.
set -eu
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || skip "clang not installed"
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
	skip "libFuzzer runtime (libclang-rt-dev) not installed"
make -s O="$O" "$O/fuzz/fuzz_trace" "$O/fuzz/fuzz_json" "$O/fuzz/fuzz_stream" "$O/fuzz/fuzz_link" \
	>/dev/null
sh tests/fuzz/run.sh "$O" 50000 >"$TMP/fuzz.log" 2>&1 || { cat "$TMP/fuzz.log"; fail "fuzzer found a problem"; }
[ "$(grep -c 'Done 50000 runs' "$TMP/fuzz.log")" = 3 ] && grep -q 'Done 5000 runs' "$TMP/fuzz.log" ||
	{ cat "$TMP/fuzz.log"; fail "a fuzzer did not complete its runs"; }
