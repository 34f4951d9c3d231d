#!/bin/sh
# record writes a complete 0600 trace that report reads; it refuses to
# overwrite without --force; SIGINT ends a long run with a complete trace;
# classic tracepoints (the fallback) record too; nothing stays loaded.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
cpus=$(probe_cpus)

expect_exit 0 "$TC" record -o "$TMP/a.tct" -n 200k --cpu "$cpus" --no-progress
[ -f "$TMP/a.tct" ] || fail "no trace written"
[ ! -e "$TMP/a.tct.partial" ] || fail "partial file left behind"
[ "$(stat -c %a "$TMP/a.tct")" = 600 ] || fail "trace is not mode 0600"
expect_exit 0 "$TC" report "$TMP/a.tct"
grep -q '200000 round trips recorded' "$TMP/out" || fail "report does not see 200000 round trips"
grep -q 'traced .*sched (' "$TMP/out" || fail "report does not say sched was traced"
"$TC" dump "$TMP/a.tct" | grep -q '^meta tracer.sched.tc_sched_switch=attached tp_btf/sched_switch' ||
	fail "the trace does not record that sched_switch was attached via tp_btf"
# which build wrote it: the same line as tailcause --version's first
"$TC" dump "$TMP/a.tct" | grep -qxF "meta tailcause.version=$("$TC" --version | sed -n '1s/^tailcause //p')" ||
	fail "the trace does not record the version and build that wrote it"

# No overwrite without --force; with it, fine.
expect_exit 1 "$TC" record -o "$TMP/a.tct" -n 1000 --cpu "$cpus" --no-progress
grep -q 'exists' "$TMP/out" || fail "no 'exists' message"
expect_exit 0 "$TC" record -o "$TMP/a.tct" -n 1000 --cpu "$cpus" --no-progress --force

# The writer's round-trip summary: a streamed report of the whole run takes its statistics
# from it and is the whole read's; given another recording's summary (as many round trips,
# other times), the report says so and is still the whole read's.
expect_exit 0 "$TC" record -o "$TMP/c.tct" -n 1000 --cpu "$cpus" --no-progress
python3 - "$TMP/a.tct" "$TMP/c.tct" "$TMP/lie.tct" <<'EOF'
import struct, sys

def summary(d):  # the RTT_SUMMARY block's bytes, its header's included
    off = struct.unpack_from('<H', d, 10)[0]
    found = []
    while off + 16 <= len(d):
        kind, _, comp = struct.unpack_from('<III', d, off)
        if kind == 11:
            found.append((off, off + 16 + comp))
        off += 16 + comp
    assert len(found) == 1, 'not one RTT_SUMMARY block'
    return found[0]

a, c = (open(f, 'rb').read() for f in sys.argv[1:3])
(ao, ae), (co, ce) = summary(a), summary(c)
open(sys.argv[3], 'wb').write(a[:ao] + c[co:ce] + a[ae:])
EOF
"$TC" report "$TMP/a.tct" --no-stream | grep -v '^  streamed' >"$TMP/a.whole"
for f in a lie; do
	"$TC" report "$TMP/$f.tct" --stream >"$TMP/$f.out" 2>"$TMP/$f.err" ||
		fail "report --stream of $f.tct exited $?: $(cat "$TMP/$f.err")"
	grep -v '^  streamed' "$TMP/$f.out" | sed "s|$TMP/lie.tct|$TMP/a.tct|" >"$TMP/$f.streamed"
	cmp -s "$TMP/a.whole" "$TMP/$f.streamed" || {
		diff -u "$TMP/a.whole" "$TMP/$f.streamed" | head -20
		fail "$f.tct streams to another report"
	}
done
[ ! -s "$TMP/a.err" ] || fail "the streamed report of the recording said: $(cat "$TMP/a.err")"
grep -q "round-trip summary differs from its round trips: counted them instead" "$TMP/lie.err" ||
	fail "another recording's summary was not said: $(cat "$TMP/lie.err")"

# A symlink at the output path is never followed.
ln -s "$TMP/target" "$TMP/link.tct"
expect_exit 1 "$TC" record -o "$TMP/link.tct" -n 1000 --cpu "$cpus" --no-progress
[ ! -e "$TMP/target" ] || fail "followed a symlink"

# SIGINT mid-run: the trace is finalized and says it was interrupted.
"$TC" record -o "$TMP/int.tct" -n 50M --cpu "$cpus" --no-progress >"$TMP/int.out" 2>&1 &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid" || { cat "$TMP/int.out"; fail "record exited non-zero after SIGINT"; }
expect_exit 0 "$TC" report "$TMP/int.tct"
grep -q 'interrupted' "$TMP/out" || fail "report does not say the run was interrupted"
if grep -q 'truncated' "$TMP/out"; then fail "an interrupted run left a truncated trace"; fi

# The classic-tracepoint fallback records as well.
expect_exit 0 env TAILCAUSE_FORCE_FALLBACK=1 "$TC" record -o "$TMP/fb.tct" -n 100k --cpu "$cpus" --no-progress
expect_exit 0 "$TC" dump "$TMP/fb.tct"
grep -q '^meta tracer.sched.tc_sched_switch=attached tp/sched/sched_switch' "$TMP/out" ||
	fail "fallback did not use tp/sched/sched_switch"
# The program runs the kernel's recursion guard skipped (classic tracepoints refuse an
# event while another BPF program runs on the CPU) are counted, per program and in all,
# and a report says so when there were any.
total=$(sed -n 's/^meta run.missed=\([0-9]*\)$/\1/p' "$TMP/out")
[ -n "$total" ] || fail "the trace does not count the program runs the kernel skipped"
sum=$(sed -n 's/^meta missed\.[a-z_]*\.[a-z0-9_]*=\([0-9]*\)$/\1/p' "$TMP/out" | awk '{ s += $1 } END { print s + 0 }')
[ "$sum" = "$total" ] || fail "the programs' skipped runs add up to $sum, not $total"
expect_exit 0 "$TC" report "$TMP/fb.tct"
if [ "$total" -gt 0 ]; then
	grep -q "^  missed      $total program runs skipped by the kernel's recursion guard" "$TMP/out" ||
		fail "the report does not say $total program runs were skipped"
elif grep -q '^  missed ' "$TMP/out"; then
	fail "the report says runs were skipped, the trace counts none"
fi

expect_exit 0 "$TC" probes
grep -q 'sched .*attached' "$TMP/out" || fail "probes: sched not attached"
no_leftover_progs

# Once attached and its trace created, the recorder of a command keeps no capability (the
# verbs probe's would keep CAP_IPC_LOCK alone); the traced command keeps the caller's.
expect_exit 0 "$TC" record -o "$TMP/caps.tct" --no-progress -- sh -c \
	"grep CapEff /proc/\$PPID/status > '$TMP/rec.caps'; grep CapEff /proc/self/status > '$TMP/cmd.caps'"
grep -q 'CapEff:[[:space:]]*0000000000000000$' "$TMP/rec.caps" ||
	fail "recorder still holds capabilities after attaching: $(cat "$TMP/rec.caps")"
[ "$(sed 's/.*:[[:space:]]*//' "$TMP/cmd.caps")" = "$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)" ] ||
	fail "the traced command lost the caller's capabilities: $(cat "$TMP/cmd.caps")"
# record -D: runs of -n round trips for a time, each written to the file as it ends.
expect_exit 1 "$TC" record -o "$TMP/d.tct" -D 2 -- true
grep -q "^tailcause: --duration runs the probe: not with a command" "$TMP/out" ||
	fail "--duration with a command accepted"
"$TC" record -o "$TMP/d.tct" --probe shm -D 2 -n 50k --cpu "$(probe_cpus)" --no-progress \
	>"$TMP/d.log" 2>&1 || { cat "$TMP/d.log"; fail "record -D failed"; }
"$TC" report "$TMP/d.tct" --top 0 >"$TMP/d.txt"
n=$(sed -n 's/.*: \([0-9]*\) round trips recorded (-D 2 s requested).*/\1/p' "$TMP/d.txt")
[ -n "$n" ] && [ "$n" -gt 50000 ] || { cat "$TMP/d.txt"; fail "record -D ran the probe once only"; }
no_leftover_progs
