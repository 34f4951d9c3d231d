#!/bin/sh
# tailcause top against a real recording (root, real BPF): while `record -D` writes the
# trace, top's plain output (stdout is not a terminal) prints a block per interval with
# the last interval's and the whole run's round trips and the last interval's causes,
# and ends when the recording does with the whole run counted, as `report` counts it.
# The recorder's INDEX block: a streamed report by it equals the whole one. Started 4 MB
# behind a recording, it says so and catches up. Also: a finished trace gives one block;
# a file that is not a trace is exit 3; bad options exit 1; Ctrl-C while it waits for a
# recording to start ends it with 0.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
cpus=$(probe_cpus)

"$TC" record -o "$TMP/live.tct" -D 4s -n 200k --cpu "$cpus" --no-progress >"$TMP/rec.out" 2>&1 &
rec=$!
# Mid-run, the file already names the kernel functions of the callbacks seen so far (the
# tick's, at least), so that top names them while the recording runs.
(sleep 2.5 && cp "$TMP/live.tct.partial" "$TMP/mid.tct") &
copier=$!
"$TC" top "$TMP/live.tct" --every 500ms >"$TMP/top.out" 2>"$TMP/top.err" ||
	{ cat "$TMP/top.err"; fail "top exited non-zero"; }
wait "$rec" || { cat "$TMP/rec.out"; fail "record failed"; }
wait "$copier" || fail "the recording's partial file was gone after 2.5 s of a 4 s run"
"$TC" dump "$TMP/mid.tct" >"$TMP/mid.dump" 2>/dev/null || true
grep -q '^meta ksym\.' "$TMP/mid.dump" ||
	fail "2.5 s into the recording, its file names no kernel function ($(grep -c '^event kind=timer_fn' "$TMP/mid.dump") timer callbacks)"
if grep '^tailcause top .*  recording, ' -A12 "$TMP/top.out" | grep -q 'timer:0x'; then
	fail "top showed a timer callback by its address while the recording ran"
fi
frames=$(grep -c '^tailcause top ' "$TMP/top.out")
[ "$frames" -ge 2 ] || { cat "$TMP/top.out"; fail "top printed $frames blocks, not one per interval"; }
grep -q '^tailcause top .*  recording, ' "$TMP/top.out" ||
	fail "no block was printed while the recording ran"
tail -n 20 "$TMP/top.out" | grep -q 'recording ended' || fail "the last block does not say the recording ended"
grep -q '^  whole run ' "$TMP/top.out" || fail "no whole-run row"
grep -q '^  last interval: [0-9]* spikes' "$TMP/top.out" || fail "no cause list of the last interval"
last=$(awk '/^tailcause top /{n=$0} END{print n}' "$TMP/top.out" |
	sed 's/.*: \([0-9]*\) round trips.*/\1/')
expect_exit 0 "$TC" report "$TMP/live.tct"
want=$(sed -n 's/.*: \([0-9]*\) round trips recorded.*/\1/p' "$TMP/out")
[ -n "$want" ] && [ "$last" = "$want" ] ||
	fail "top counted $last round trips at the end, the report $want"
rows=$(awk '/^  whole run /{print $3}' "$TMP/top.out" | tail -1)
[ "$rows" = "$want" ] || fail "the last whole-run row has $rows round trips, not $want"

# The recorder's trace carries an INDEX block: streamed by it, whole and in a stretch, the
# report is the whole read's but for the line that says so, unless that line says a
# segment was cut inside steal intervals (analyze_stream.h: their spikes were then served
# apart). Then the statistics and the spikes counted must still agree.
strip() { grep -v '^  streamed    ' "$1" >"$2"; }
total() { sed -n 's/^spikes: \([0-9]*\) of \([0-9]*\) .*/\1 \2/p' "$1"; }
stats() { grep -A1 '^ #bytes' "$1"; }
for args in "" "--from 1s --to 2s"; do
	for seg in "" "=3000" "=300"; do
		# shellcheck disable=SC2086 # the options' words
		"$TC" report "$TMP/live.tct" $args --no-stream >"$TMP/whole" ||
			fail "report $args failed"
		# shellcheck disable=SC2086
		"$TC" report "$TMP/live.tct" $args --stream$seg >"$TMP/streamed" ||
			fail "report $args --stream$seg failed"
		grep -q '^  streamed ' "$TMP/streamed" || fail "report $args --stream$seg did not stream"
		strip "$TMP/whole" "$TMP/w"
		strip "$TMP/streamed" "$TMP/s"
		if grep -q 'cuts inside a steal interval' "$TMP/streamed"; then
			[ "$(total "$TMP/w")" = "$(total "$TMP/s")" ] &&
				[ "$(stats "$TMP/w")" = "$(stats "$TMP/s")" ] ||
				fail "report $args --stream$seg: cut inside steal, and the totals differ"
		elif ! cmp -s "$TMP/w" "$TMP/s"; then
			diff -u "$TMP/w" "$TMP/s" | head -20
			fail "the streamed report $args --stream$seg differs from the whole one"
		fi
	done
done
"$TC" dump "$TMP/live.tct" >/dev/null || fail "dump does not read a trace with an index"

# Started late: a recording megabytes ahead is caught up with a megabyte at a time, the
# first block saying how far behind it is, and the last counting every round trip.
"$TC" record -o "$TMP/late.tct" -D 10s -n 200k --cpu "$cpus" --no-progress >"$TMP/rec.out" 2>&1 &
rec=$!
while [ "$(stat -c %s "$TMP/late.tct.partial" 2>/dev/null || echo 0)" -lt 4000000 ] &&
	kill -0 "$rec" 2>/dev/null; do
	sleep 0.1
done
[ -e "$TMP/late.tct.partial" ] ||
	{ wait "$rec" || true; cat "$TMP/rec.out"; fail "the recording ended before 4 MB were written"; }
"$TC" top "$TMP/late.tct" --every 500ms >"$TMP/late.out" 2>"$TMP/top.err" ||
	{ cat "$TMP/top.err"; fail "top of a recording far ahead exited non-zero"; }
wait "$rec" || { cat "$TMP/rec.out"; fail "record failed"; }
head -n 1 "$TMP/late.out" | grep -q 'recording, .* MB read (catching up: [0-9.]* MB more written)' ||
	{ head -n 3 "$TMP/late.out"; fail "top started 4 MB behind did not say it was catching up"; }
expect_exit 0 "$TC" report "$TMP/late.tct"
want=$(sed -n 's/.*: \([0-9]*\) round trips recorded.*/\1/p' "$TMP/out")
last=$(awk '/^tailcause top /{n=$0} END{print n}' "$TMP/late.out" | sed 's/.*: \([0-9]*\) round trips.*/\1/')
[ "$last" = "$want" ] || fail "top started late counted $last round trips at the end, the report $want"

# A finished trace: one block, exit 0.
expect_exit 0 "$TC" top "$TMP/live.tct"
[ "$(grep -c '^tailcause top ' "$TMP/out")" = 1 ] || fail "a finished trace gave more than one block"

# Not a trace: exit 3, one line.
echo "not a trace, but long enough to hold a header" >"$TMP/bad.tct"
expect_exit 3 "$TC" top "$TMP/bad.tct"
grep -q 'not a valid tailcause trace' "$TMP/out" || fail "no reason for a bad file"
expect_exit 1 "$TC" top "$TMP/live.tct" --every 10ms
expect_exit 1 "$TC" top

# Waiting for a recording that has not started: Ctrl-C ends it cleanly.
"$TC" top "$TMP/none.tct" >"$TMP/wait.out" 2>&1 &
pid=$!
sleep 1.5
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || fail "Ctrl-C while waiting: exit $rc"
grep -q 'waiting for' "$TMP/wait.out" || fail "top did not say it was waiting"
no_leftover_progs
