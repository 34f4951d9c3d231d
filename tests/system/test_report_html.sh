#!/bin/sh
# The HTML report of a recorded run, rendered by Debian's headless Chromium:
# the page is one self-contained file (no script, nothing fetched), the DOM
# Chromium parsed holds every chart, and its screenshot is not blank.
set -eu
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v python3 >/dev/null || skip "needs python3 to check the screenshot"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip "needs Debian's chromium (scripts/deps.sh installs it)"

"$TC" record --cpu "$(probe_cpus)" -n 300k --no-progress -o "$TMP/t.tct" >"$TMP/rec.txt" 2>&1 ||
	{ cat "$TMP/rec.txt"; fail "tailcause record failed"; }
"$TC" report "$TMP/t.tct" --format html -o "$TMP/page.html" || fail "report --format html failed"

page="$TMP/page.html"
for id in latency-over-time histogram percentiles causes irq-heatmap; do
	grep -q "<svg id=\"$id\"" "$page" || fail "the page has no <svg id=\"$id\"> chart"
done
grep -q '<svg class="spike"' "$page" || fail "the page has no spike timeline"
! grep -qi '<script' "$page" || fail "the page carries a script"
ext=$(grep -o 'https\?://[^"<> ]*' "$page" | grep -v '^http://www.w3.org/2000/svg$' || true)
[ -z "$ext" ] || fail "the page refers to the network: $ext"

browse() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$(mktemp -d -p "$TMP")" "$@" "file://$page"
}
browse --dump-dom >"$TMP/dom.html" 2>"$TMP/chromium.err" ||
	{ tail -5 "$TMP/chromium.err"; fail "chromium --dump-dom failed"; }
grep -q '<h1>tailcause report</h1>' "$TMP/dom.html" || fail "chromium did not parse the page"
n=$(grep -o '<svg id="[a-z-]*"' "$TMP/dom.html" | sort -u | wc -l)
[ "$n" -ge 5 ] || fail "chromium's DOM has $n charts, expected 5"
grep -q '</svg>' "$TMP/dom.html" || fail "the SVG did not parse"

browse --screenshot="$TMP/shot.png" --window-size=1280,2000 >/dev/null 2>"$TMP/chromium.err" ||
	{ tail -5 "$TMP/chromium.err"; fail "chromium --screenshot failed"; }
python3 tests/system/check_png.py "$TMP/shot.png" 64 3 || fail "the screenshot looks blank"
