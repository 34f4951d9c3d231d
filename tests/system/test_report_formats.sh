#!/bin/sh
# Every machine-readable format of one recorded run, each read back by a parser
# of its own: JSON against docs/report-schema.json, OpenMetrics line by line,
# Perfetto's trace-event JSON track by track for proper nesting. Also: run
# --html writes the page besides the text report; -o replaces a file whole;
# iterations that overlap (--samples) are dealt into several tracks.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v python3 >/dev/null || skip "needs python3 for the format checkers"
CHK=tests/system

"$TC" run --cpu "$(probe_cpus)" -n 300k --no-progress -o "$TMP/t.tct" --html "$TMP/run.html" \
	>"$TMP/run.txt" 2>&1 || { cat "$TMP/run.txt"; fail "tailcause run --html failed"; }
grep -q '^spikes: ' "$TMP/run.txt" || { cat "$TMP/run.txt"; fail "run printed no text report"; }
grep -q '<svg id="latency-over-time"' "$TMP/run.html" || fail "run --html wrote no latency chart"
[ "$(stat -c %a "$TMP/run.html")" = 600 ] || fail "the HTML page is not mode 0600"

# JSON: the schema, and the same figures as the text report.
"$TC" report "$TMP/t.tct" --format json -o "$TMP/t.json" || fail "report --format json failed"
python3 $CHK/check_report_json.py docs/report-schema.json "$TMP/t.json" latency ||
	fail "the JSON report does not match docs/report-schema.json"
"$TC" report "$TMP/t.tct" >"$TMP/t.txt"
text=$(sed -n 's/^spikes: \([0-9]*\) of .*/\1/p' "$TMP/t.txt")
json=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["latency"]["spikes"]["count"])' \
	"$TMP/t.json")
[ -n "$text" ] && [ "$text" = "$json" ] || fail "text says $text spikes, JSON $json"

# OpenMetrics, to stdout this time.
"$TC" report "$TMP/t.tct" --format openmetrics >"$TMP/t.prom" || fail "openmetrics failed"
# Reports name the host's tasks: 0600 as the trace, but OpenMetrics is for node_exporter,
# another user.
"$TC" report "$TMP/t.tct" --format openmetrics -o "$TMP/o.prom" || fail "openmetrics -o failed"
[ "$(stat -c %a "$TMP/o.prom")" = 644 ] || fail "the OpenMetrics file is not mode 0644"
python3 $CHK/check_openmetrics.py "$TMP/t.prom" tailcause_latency_seconds tailcause_spikes \
	tailcause_spike_excess_seconds tailcause_report_info || fail "OpenMetrics does not parse"

# Perfetto: per-CPU tracks, round trips with spikes flagged, proper nesting everywhere.
"$TC" report "$TMP/t.tct" --format perfetto -o "$TMP/t.pf.json" || fail "perfetto failed"
python3 $CHK/check_perfetto.py "$TMP/t.pf.json" --latency --min-slices 100 ||
	fail "the Perfetto trace does not nest properly"

# Iterations 4 us long (40 us for a few spikes) started every 10 round trips overlap
# without nesting: they need several tracks.
"$TC" dump "$TMP/t.tct" --samples | awk -F'[ =]' '$1 == "sample" && n++ % 10 == 0 && n < 20000 {
	printf "%s,%.0f\n", $3, $3 + (n % 2000 == 1 ? 40000 : 4000) }' >"$TMP/overlap.csv"
"$TC" report "$TMP/t.tct" --samples "$TMP/overlap.csv" --format perfetto -o "$TMP/o.pf.json" ||
	fail "perfetto of overlapping samples failed"
python3 $CHK/check_perfetto.py "$TMP/o.pf.json" --latency || fail "overlapping samples overlap"
lanes=$(grep -c '"name":"thread_name","pid":1,' "$TMP/o.pf.json" || true)
[ "$lanes" -ge 2 ] || fail "overlapping iterations were put on $lanes track(s)"

# -o replaces an existing file whole and leaves no temporary file behind.
echo old >"$TMP/t.json"
"$TC" report "$TMP/t.tct" --format json -o "$TMP/t.json" || fail "report over an existing file"
python3 $CHK/check_report_json.py docs/report-schema.json "$TMP/t.json" >/dev/null ||
	fail "the replaced JSON report is not valid"
[ -z "$(find "$TMP" -name '.t.json.*')" ] || fail "a temporary file was left behind"

# Usage errors.
expect_exit 1 "$TC" report "$TMP/t.tct" --format yaml
grep -q "not a format" "$TMP/out" || fail "no message for an unknown format"
expect_exit 1 "$TC" report "$TMP/t.tct" --format json -o "$TMP/no/such/dir/r.json"
[ ! -e "$TMP/no" ] || fail "report created a directory"
