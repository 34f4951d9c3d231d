#!/bin/sh
# The fleet view: the Grafana dashboard (dashboards/tailcause-grafana.json) and the
# Prometheus alert rules (dashboards/tailcause-alerts.yml) query only series, and labels,
# that the OpenMetrics writer really emits (tests/golden/*.prom, written from the fixture
# traces); promtool (Debian's prometheus package) checks the rules and runs their unit
# test (tests/dashboards/alerts-test.yml: each alert fires for the node it should).
# Needs no root.
set -eu
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "skipped: needs python3"; exit 77; }
python3 - <<'PY' || exit 1
import glob, json, re, sys

emitted = {}  # metric name -> label names seen with it
for f in glob.glob("tests/golden/*.prom"):
    for line in open(f):
        m = re.match(r"(tailcause_[a-z_]+)(\{([^}]*)\})? ", line)
        if m:
            labels = set(re.findall(r'([a-z_]+)="', m.group(3) or ""))
            emitted.setdefault(m.group(1), set()).update(labels)
if not emitted:
    sys.exit("no tailcause series in tests/golden/*.prom")
SCRAPE = {"instance", "job"}  # added by the scrape, not the writer

dash = json.load(open("dashboards/tailcause-grafana.json"))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
exprs += [v["query"] for v in dash["templating"]["list"] if v["type"] == "query"]

# The rules file: every expr: line, or its block after "expr: |".
rules, block = [], None
for line in open("dashboards/tailcause-alerts.yml"):
    if block is not None:
        if line.strip() and len(line) - len(line.lstrip()) > indent:
            block.append(line.strip())
            continue
        rules.append(" ".join(block))
        block = None
    m = re.match(r"(\s*)expr:\s*(.*)", line)
    if m and m.group(2).strip() == "|":
        block, indent = [], len(m.group(1))
    elif m:
        rules.append(m.group(2).strip())
if block:
    rules.append(" ".join(block))

bad = []
for where, lst in (("dashboard", exprs), ("alert rules", rules)):
    if not lst:
        bad.append("%s: no query found" % where)
    for e in lst:
        for name, sel in re.findall(r"(tailcause_[a-z_]+)(\{[^}]*\})?", e):
            if name not in emitted:
                bad.append("%s: %s is not a series tailcause writes (%s)" % (where, name, e))
                continue
            for label in re.findall(r"([a-z_]+)\s*(?:=~|!=|!~|=)", sel or ""):
                if label not in emitted[name] | SCRAPE:
                    bad.append("%s: %s has no label %s" % (where, name, label))
        for label in re.findall(r"by \(([^)]*)\)", e):
            for l in label.split(","):
                l = l.strip()
                if l and not any(l in v for v in emitted.values()) and l not in SCRAPE:
                    bad.append("%s: no series has the label %s (%s)" % (where, l, e))
print("%d dashboard queries, %d alert rules, against %d series" % (len(exprs), len(rules), len(emitted)))
for b in bad:
    print("FAILED: " + b)
sys.exit(1 if bad else 0)
PY
if ! command -v promtool >/dev/null; then
	echo "skipped: promtool not installed (scripts/deps.sh installs Debian's prometheus)"
	exit 77
fi
promtool check rules dashboards/tailcause-alerts.yml || { echo "FAILED: promtool check rules"; exit 1; }
(cd tests/dashboards && promtool test rules alerts-test.yml) || { echo "FAILED: promtool test rules"; exit 1; }
