#!/bin/sh
# Every command teaches with --help; bad input gets one "tailcause:" line and
# the documented exit code (1 usage, 3 bad input file); no output file is
# left behind by a refused command.
set -eu
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$TC" --help
grep -q 'exit codes' "$TMP/out" || fail "--help does not list exit codes"
for cmd in run record report lat probes audit; do
	expect_exit 0 "$TC" "$cmd" --help
	grep -q "usage: tailcause $cmd" "$TMP/out" || fail "$cmd --help has no usage line"
	grep -q 'example' "$TMP/out" || grep -q 'options:' "$TMP/out" || fail "$cmd --help lacks options"
done
expect_exit 0 "$TC" --version
grep -q '^tailcause [0-9]' "$TMP/out" || fail "--version"
# which build: the sources' git describe, and the libbpf it was built against and runs with
want=$(git -C "$(dirname "$0")/../.." describe --always --dirty --tags 2>/dev/null || echo "not from git")
grep -qF "(git $want)" "$TMP/out" || fail "--version lacks the build's git describe ($want)"
grep -q "libbpf $(pkg-config --modversion libbpf)" "$TMP/out" || fail "--version lacks the libbpf it was built with"
grep -q "running with libbpf v\?[0-9]" "$TMP/out" || fail "--version lacks the libbpf it runs with"

expect_exit 1 "$TC"
expect_exit 1 "$TC" frobnicate
grep -q "^tailcause: unknown command 'frobnicate'" "$TMP/out" || fail "unknown command message"
expect_exit 1 "$TC" lat -n 0
grep -q '^tailcause: --iterations' "$TMP/out" || fail "-n 0 message"
expect_exit 1 "$TC" lat -n 12x
expect_exit 1 "$TC" lat -n -5
expect_exit 1 "$TC" lat --cpu 1
expect_exit 1 "$TC" lat --cpu 1,1
expect_exit 1 "$TC" lat --cpu 0,99999
expect_exit 1 "$TC" lat --probe nosuch
grep -q 'known: shm' "$TMP/out" || fail "--probe does not list the known probes"
expect_exit 1 "$TC" lat --bogus
expect_exit 1 "$TC" report
expect_exit 1 "$TC" report a b
expect_exit 1 "$TC" report x.tct --spike p101
expect_exit 1 "$TC" report x.tct --spike banana
expect_exit 1 "$TC" record
grep -q -- '-o FILE is required' "$TMP/out" || fail "record without -o"
expect_exit 1 "$TC" record -o /nonexistent/dir/t.tct
expect_exit 1 "$TC" run --ringbuf 12Q
expect_exit 1 "$TC" audit --bogus
expect_exit 1 "$TC" audit --cpu 1-

# One line for a bad option in every command (cli_option_error), naming it as written, and
# one for a bad --spike (cli_parse_spike).
one_line() { [ "$(wc -l <"$TMP/out")" = 1 ] && grep -qxF "$1" "$TMP/out" || fail "not '$1'"; }
expect_exit 1 "$TC" lat --cpu
one_line "tailcause: lat: option --cpu needs a value"
expect_exit 1 "$TC" lat -c
one_line "tailcause: lat: option -c needs a value"
expect_exit 1 "$TC" diff --strict=1 a b
one_line "tailcause: diff: option --strict takes no value"
for cmd in audit top rank; do
	expect_exit 1 "$TC" "$cmd" -zq
	one_line "tailcause: $cmd: unknown option '-z' (see tailcause $cmd --help)"
done
for cmd in report top diff rank; do
	expect_exit 1 "$TC" "$cmd" x.tct y.tct --spike banana
	one_line "tailcause: --spike: 'banana' is not a rule (default, p99.9, 20us, 3x)"
done

# Bad input files: exit 3, one line naming the file.
expect_exit 3 "$TC" report "$TMP/missing.tct"
grep -q "^tailcause: read $TMP/missing.tct: No such file" "$TMP/out" || fail "missing file message"
printf 'not a trace at all, just text\n' >"$TMP/text.tct"
expect_exit 3 "$TC" report "$TMP/text.tct"
grep -q 'not a valid tailcause trace' "$TMP/out" || fail "garbage file message"
: >"$TMP/empty.tct"
expect_exit 3 "$TC" report "$TMP/empty.tct"

# lat runs unprivileged and prints perftest's columns.
expect_exit 0 "$TC" lat -n 20000 --cpu "$(probe_cpus)"
grep -q 't_typical\[usec\]' "$TMP/out" || fail "lat prints no statistics"
grep -q '99.9% percentile' "$TMP/out" || fail "lat lacks the 99.9% column"

# lat -D: runs of -n round trips for a time, every one counted in the histogram.
expect_exit 1 "$TC" lat -D 2x
grep -q "^tailcause: --duration: unexpected 'x'" "$TMP/out" || fail "a bad --duration accepted"
expect_exit 1 "$TC" lat -D 0
# Two hosts (here both on 127.0.0.1), -D on both sides as perftest: the client's 1 s ends
# the server's 20 s too, after more than one run of -n. Runs of 500: a sanitizer build's
# round trip here was 280 us, and runs of 2000 fitted only twice in the second.
port=$((20000 + $$ % 20000))
cpus=$(probe_cpus)
"$TC" lat --probe udp --server --port "$port" -n 500 -D 20 --cpu "$cpus" >"$TMP/dsrv.out" 2>&1 &
srv=$!
for _ in $(seq 100); do
	grep -q "waiting for a client" "$TMP/dsrv.out" && break
	sleep 0.1
done
expect_exit 0 "$TC" lat --probe udp --port "$port" -n 500 -D 1 --cpu "${cpus#*,},${cpus%,*}" 127.0.0.1
[ "$(awk '/t_typical/ { getline; print $2; exit }' "$TMP/out")" -gt 500 ] ||
	fail "lat -D on two hosts ran one run of -n: $(cat "$TMP/out")"
wait "$srv" || fail "the -D server did not end with the client: $(cat "$TMP/dsrv.out")"
expect_exit 0 "$TC" lat --probe shm -D 2 -n 10k --cpu "$(probe_cpus)"
grep -q "every round trip counted, percentiles from a histogram" "$TMP/out" ||
	fail "lat -D does not say its percentiles are binned"
[ "$(awk '/t_typical/ { getline; print $2; exit }' "$TMP/out")" -gt 10000 ] ||
	fail "lat -D ran the probe once only"

# report --from/--to: a stretch of the run; one past its end is bad input, a reversed one usage.
expect_exit 3 "$TC" report tests/fixtures/hog.tct --from 1h
grep -q "no round trip from +3600.000 s after the first to the end" "$TMP/out" ||
	fail "an empty stretch not explained"
expect_exit 1 "$TC" report tests/fixtures/hog.tct --from 2s --to 1s
expect_exit 1 "$TC" report tests/fixtures/hog.tct --from 1.5
