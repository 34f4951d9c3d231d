#!/bin/sh
# Faults: ring-buffer overrun is counted, stored and placed in time; kill -9
# leaves a readable partial trace the report calls truncated; a full disk is
# one clear error with nothing left under the final name; without privileges
# record says what is missing (exit 2) while report still works; no BPF
# program or map outlives any of it.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
cpus=$(probe_cpus)
A=${cpus%,*}
B=${cpus#*,}

# Overrun: a 4 KiB ring buffer and an IPI storm, after a calibration that overruns it too:
# its records stay out of the trace, its lost windows do not (the counters count them).
expect_exit 0 "$TC" record -o "$TMP/storm.tct" --ringbuf 4K --drain-ms 1000 --no-progress -- \
	"$O/tests/tc-ipi" "$A" "$B" 100000
"$TC" dump "$TMP/storm.tct" >"$TMP/storm.txt"
drops=$(sed -n 's/^# .* drops \([0-9]*\)$/\1/p' "$TMP/storm.txt")
[ "${drops:-0}" -gt 0 ] || fail "no drops counted with a 4 KiB ring buffer under an IPI storm"
grep -q '^event kind=lost ' "$TMP/storm.txt" || fail "drops not placed in time (no lost windows)"
lost=$(awk '$2 == "kind=lost" { sub("aux=", "", $8); n += $8 } END { print n + 0 }' "$TMP/storm.txt")
[ "$lost" = "$drops" ] || fail "lost windows add up to $lost, drop counters to $drops"
expect_exit 0 "$TC" report "$TMP/storm.tct"
grep -qi 'lost' "$TMP/out" || fail "report does not mention the lost events"

# Overrun of the off-CPU records: a context-switch storm, the smallest ring buffer, the
# recorder stopped for a second. Every switch back in of a storm thread (2 a round trip, and
# one more for each time something else preempted it: the storm counts them all) is a record
# or a counted drop, the records of the end included, and the drops are placed in time.
# Recorded --no-calibrate: the counts are the storm's alone.
N=400000
"$TC" record -o "$TMP/switches.tct" --ringbuf 4K --no-progress --no-calibrate -- \
	"$O/tests/tc-storm" -c "$A" -n $N >"$TMP/switches.log" 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && [ ! -e "$TMP/switches.tct.partial" ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -STOP "$pid"
sleep 1
kill -CONT "$pid"
wait "$pid" || { cat "$TMP/switches.log"; fail "record of the switch storm failed"; }
"$TC" dump "$TMP/switches.tct" >"$TMP/switches.txt"
drops=$(sed -n 's/^# .* drops \([0-9]*\)$/\1/p' "$TMP/switches.txt")
[ "${drops:-0}" -gt 0 ] || fail "no drops counted with the recorder stopped under a switch storm"
lost=$(awk '$2 == "kind=lost" { sub("aux=", "", $8); n += $8 } END { print n + 0 }' "$TMP/switches.txt")
[ "$lost" = "$drops" ] || fail "switch storm: lost windows add up to $lost, drop counters to $drops"
storm_field() { sed -n "s/^storm .* $1=\([0-9,]*\).*/\1/p" "$TMP/switches.log"; }
# The storm's own threads only (a sanitizer build's leak checker adds one at exit), and the
# switches out before it counted them (its exit comes after).
tids=$(storm_field tids)
counted=$(storm_field counted_ns)
offcpu=$(awk -v t="$tids" -v c="$counted" '
	BEGIN { n = split(t, v, ","); for (i = 1; i <= n; i++) want["tid=" v[i]] = 1 }
	$2 == "kind=offcpu" && ($6 in want) { sub("start=", "", $3); if ($3 + 0 < c + 0) k++ }
	END { print k + 0 }' "$TMP/switches.txt")
switches=$(storm_field switches)
resumed=$(storm_field switches_resumed)
before=$(storm_field switches_before)
[ "${resumed:-0}" -ge $((2 * N)) ] && [ -n "$switches" ] && [ -n "$before" ] && [ -n "$tids" ] &&
	[ -n "$counted" ] || { cat "$TMP/switches.log"; fail "the storm made too few switches"; }
# Lost windows name the kind they lost. The storm's off-CPU records kept and lost add up to
# its switches: at least those it saw itself switched back in from, less the ones from its
# fork to its exec (they may come before the recorder followed it); at most all it counted,
# and the few its exit makes after counting (its printf; a sanitizer build's leak check),
# which are lost, not kept, where the ring is still full at the end (seen: 2, under a hog on
# each CPU). Most of the losses are on its CPU.
lost_offcpu() {  # lost_offcpu [cpu=N]: off-CPU records lost (flags=1), on that CPU or all
	awk -v c="${1:-}" '$2 == "kind=lost" && $9 == "flags=1" && (c == "" || $5 == c) {
		sub("aux=", "", $8); n += $8 } END { print n + 0 }' "$TMP/switches.txt"
}
all=$(lost_offcpu)
on_a=$(lost_offcpu "cpu=$A")
[ $((offcpu + all)) -ge $((resumed - before)) ] && [ $((offcpu + all)) -le $((switches + 16)) ] &&
	[ $((2 * on_a)) -gt "$all" ] ||
	fail "switch storm: $offcpu off-CPU records + $all lost ($on_a on CPU $A) for $resumed..$switches switches ($before before it started)"

# kill -9 mid-run: the .partial file reads up to its last whole block, flagged truncated.
"$TC" record -o "$TMP/killed.tct" -n 50M --cpu "$cpus" --drain-ms 50 --no-progress >/dev/null 2>&1 &
pid=$!
# Kill it once it records (a loaded machine needs a while to fault in 50M samples):
# the first events reach the file within a second of the start.
i=0
while [ $i -lt 60 ] && ! { [ -f "$TMP/killed.tct.partial" ] &&
	"$TC" dump "$TMP/killed.tct.partial" 2>/dev/null | grep -q '^event '; }; do
	sleep 0.5; i=$((i + 1))
done
sleep 1
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
[ ! -e "$TMP/killed.tct" ] || fail "a killed recording left a file under the final name"
[ -f "$TMP/killed.tct.partial" ] || fail "no partial file after kill -9"
expect_exit 0 "$TC" dump "$TMP/killed.tct.partial"
grep -q '^# .* truncated 1 ' "$TMP/out" || fail "partial trace not flagged truncated"
# The drain runs every --drain-ms and writes at least once a second: events are in.
[ "$(grep -c '^event ' "$TMP/out")" -gt 0 ] || fail "a killed recording kept no events"
expect_exit 0 "$TC" report "$TMP/killed.tct.partial"
grep -qi 'truncated' "$TMP/out" || fail "report does not say the trace is truncated"

# Disk full: a 64 KiB tmpfs.
mkdir "$TMP/full"
if mount -t tmpfs -o size=64k tmpfs "$TMP/full" 2>/dev/null; then
	set +e
	"$TC" record -o "$TMP/full/t.tct" -n 2M --cpu "$cpus" --no-progress >"$TMP/out" 2>&1
	rc=$?
	set -e
	umount_full() { umount "$TMP/full" 2>/dev/null || true; }
	if [ "$rc" = 0 ]; then umount_full; fail "record succeeded on a full disk"; fi
	[ "$rc" = 4 ] || { cat "$TMP/out"; umount_full; fail "disk full exited $rc, expected 4"; }
	grep -q 'No space left on device' "$TMP/out" || { cat "$TMP/out"; umount_full; fail "no ENOSPC message"; }
	[ "$(grep -c '^tailcause:' "$TMP/out")" = 1 ] || { cat "$TMP/out"; umount_full; fail "more than one error line"; }
	left=$(ls -A "$TMP/full")
	umount_full
	[ -z "$left" ] || fail "files left on the full disk: $left"
else
	echo "note: cannot mount a tmpfs here; disk-full case not run"
fi

# Unprivileged: record refuses with exit 2, report and dump work.
if command -v setpriv >/dev/null; then
	cp "$TMP/storm.tct" "$TMP/pub.tct" && chmod 0644 "$TMP/pub.tct" && chmod 0755 "$TMP"
	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
	expect_exit 2 $nobody "$TC" record -o /tmp/never.tct -n 1000
	grep -q 'CAP_BPF' "$TMP/out" || fail "unprivileged record does not name the missing capabilities"
	expect_exit 2 $nobody "$TC" probes
	expect_exit 0 $nobody "$TC" report "$TMP/pub.tct"
fi

no_leftover_progs
