#!/bin/sh
# `tailcause audit` on this machine: every check is listed, the JSON is valid
# and has the documented shape, the exit code is 5 exactly when a check fails
# (else 0), it works unprivileged, and --root reads a fixture tree instead of /.
set -eu
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "needs python3 to validate the JSON"
CHECKS="irqbalance nic-irq-affinity thp-enabled thp-defrag khugepaged-defrag compaction
cpu-governor c-states isolation nic-mtu nic-rings nic-coalesce rdma-port memlock steal
lossless-pfc lossless-trust lossless-ecn"

# run_audit OUT ARGS...: runs the audit, which must exit 0 or 5; the code in $rc
run_audit() {
	out=$1; shift
	set +e
	"$@" >"$out" 2>"$out.err"
	rc=$?
	set -e
	case $rc in 0|5) ;; *) cat "$out" "$out.err"; fail "'$*' exited $rc, expected 0 or 5" ;; esac
	[ ! -s "$out.err" ] || { cat "$out.err"; fail "'$*' wrote to stderr"; }
}

# check_text FILE RC: every check has a table row; exit 5 iff a row says fail
check_text() {
	for c in $CHECKS; do
		grep -Eq "^  $c +(ok|warn|fail|unknown) " "$1" || { cat "$1"; fail "text: no row for $c"; }
	done
	if grep -Eq '^  [a-z-]+ +fail ' "$1"; then want=5; else want=0; fi
	[ "$2" = "$want" ] || fail "text: exit code $2 but a failing check means $want"
	grep -q "exit code $2" "$1" || fail "text: the summary line does not state exit code $2"
}

# check_json FILE RC: valid JSON with the schema's keys; exit 5 iff a check fails
check_json() {
	python3 -m json.tool "$1" >/dev/null || { cat "$1"; fail "not valid JSON"; }
	python3 - "$1" "$2" $CHECKS <<'PY' || fail "JSON does not have the documented shape"
import json, sys
doc = json.load(open(sys.argv[1]))
rc, names = int(sys.argv[2]), sys.argv[3:]
assert doc["schema"] == "tailcause-audit/1", doc["schema"]
assert isinstance(doc["probe_cpus"], str) and doc["probe_cpus"], doc["probe_cpus"]
ids = [c["id"] for c in doc["checks"]]
assert ids == names, ids
for c in doc["checks"]:
    assert set(c) == {"id", "title", "status", "summary", "evidence", "why", "fix"}, c
    assert c["status"] in ("ok", "warn", "fail", "unknown"), c
    assert c["summary"] and c["why"] and isinstance(c["evidence"], list), c
    assert all(isinstance(e, str) and e for e in c["evidence"]), c
    if c["status"] == "ok":
        assert c["fix"] == "", c
statuses = [c["status"] for c in doc["checks"]]
for s in ("ok", "warn", "fail", "unknown"):
    assert doc["counts"][s] == statuses.count(s), (s, doc["counts"])
want = 5 if "fail" in statuses else 0
assert rc == want == doc["exit_code"], (rc, want, doc["exit_code"])
PY
}

expect_exit 0 "$TC" audit --help
for w in 'usage: tailcause audit' '--cpu' '--nic ' '--nic-irq' '--json' '--root' 'examples:' 'exit codes'; do
	grep -q -- "$w" "$TMP/out" || fail "audit --help does not mention '$w'"
done

# This machine, as it is.
run_audit "$TMP/text" "$TC" audit
check_text "$TMP/text" "$rc"
run_audit "$TMP/json" "$TC" audit --json
check_json "$TMP/json" "$rc"
[ -d /sys/class/infiniband ] ||
	grep -q '"summary": "no RDMA device (ibv_devinfo lists none)"' "$TMP/json" ||
	fail "no RDMA device here, but rdma-port does not say so"

# Unprivileged, as nobody: the same shape, no crash, nothing on stderr.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 0755 "$TMP"
	run_audit "$TMP/nobody.json" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TC" audit --json
	check_json "$TMP/nobody.json" "$rc"
	grep -q '"memlock"' "$TMP/nobody.json" || fail "unprivileged audit lacks memlock"
fi

# An interface given by name, and one that does not exist: unknown, not an error.
nic=$(ls /sys/class/net | grep -v '^lo$' | head -n 1 || true)
if [ -n "$nic" ]; then
	run_audit "$TMP/nic" "$TC" audit --json --nic "$nic" --cpu 0
	check_json "$TMP/nic" "$rc"
fi
run_audit "$TMP/nonic" "$TC" audit --json --nic tc-no-such-nic0
check_json "$TMP/nonic" "$rc"
grep -q 'tc-no-such-nic0 does not exist' "$TMP/nonic" || fail "a missing --nic is not reported"

# --root: a fixture with THP always fails, and the ioctl/verbs checks are unknown.
R="$TMP/root"
mkdir -p "$R/sys/kernel/mm/transparent_hugepage" "$R/sys/devices/system/cpu" "$R/proc/1"
echo '[always] madvise never' >"$R/sys/kernel/mm/transparent_hugepage/enabled"
echo '0-3' >"$R/sys/devices/system/cpu/online"
echo 'init' >"$R/proc/1/comm"
run_audit "$TMP/root.json" "$TC" audit --json --root "$R"
check_json "$TMP/root.json" "$rc"
[ "$rc" = 5 ] || fail "THP always under --root: exit $rc, expected 5"
grep -q '"probe_cpus": "2-3"' "$TMP/root.json" || fail "--root: probe CPUs are not the last two of 0-3"
grep -q 'not available under --root' "$TMP/root.json" || fail "--root: verbs/ethtool not unknown"
run_audit "$TMP/root.txt" "$TC" audit --root "$R" --cpu 0,1
check_text "$TMP/root.txt" "$rc"

# Usage errors: exit 1, one line.
expect_exit 1 "$TC" audit --root "$TMP/nonexistent"
grep -q "^tailcause: --root $TMP/nonexistent: No such file or directory" "$TMP/out" ||
	fail "--root of a missing directory: $(cat "$TMP/out")"
expect_exit 1 "$TC" audit --cpu 5000
expect_exit 1 "$TC" audit --root "$R" --cpu 7
grep -q 'not online (online: 0-3)' "$TMP/out" || fail "--cpu off-line CPU message"
expect_exit 1 "$TC" audit extra
[ "$(wc -l <"$TMP/out")" = 1 ] || fail "a usage error printed more than one line"
