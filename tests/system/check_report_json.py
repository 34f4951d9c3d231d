#!/usr/bin/env python3
# Validates a `tailcause report --format json` file against docs/report-schema.json,
# then checks what a schema cannot say (sums, orders, units); or a `tailcause diff` or
# `rank` JSON file against docs/diff-schema.json or docs/rank-schema.json.
#
#   check_report_json.py SCHEMA REPORT [latency|noise|diff|rank]
#
# The validator implements the subset of JSON Schema (2020-12) the schema uses:
# type, const, enum, properties, required, additionalProperties, items, minimum,
# maximum, minLength, oneOf, $ref to #/$defs/..., and boolean schemas. Any other
# keyword in the schema is an error, so the schema cannot silently outgrow it.
# Exit 0 when valid; 1 with one line per problem otherwise.
import json
import sys

ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs"}
KNOWN = ANNOTATIONS | {"type", "const", "enum", "properties", "required",
                       "additionalProperties", "items", "minimum", "maximum",
                       "minLength", "oneOf", "$ref"}


def type_ok(v, t):
    if t == "object":
        return isinstance(v, dict)
    if t == "array":
        return isinstance(v, list)
    if t == "string":
        return isinstance(v, str)
    if t == "boolean":
        return isinstance(v, bool)
    if t == "null":
        return v is None
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    raise ValueError("unknown type %r" % t)


def same(a, b):
    # JSON equality: true is not 1
    return type(a) == type(b) and a == b


class Validator:
    def __init__(self, root):
        self.root = root

    def resolve(self, ref):
        if not ref.startswith("#/"):
            raise ValueError("only local $ref supported: %r" % ref)
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def errors(self, v, s, path="$"):
        if s is True:
            return []
        if s is False:
            return ["%s: not allowed here" % path]
        unknown = set(s) - KNOWN
        if unknown:
            raise ValueError("schema uses unsupported keywords %s" % sorted(unknown))
        errs = []
        if "$ref" in s:
            errs += self.errors(v, self.resolve(s["$ref"]), path)
        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(type_ok(v, t) for t in types):
                return errs + ["%s: %s is not of type %s" % (path, json.dumps(v)[:60], types)]
        if "const" in s and not same(v, s["const"]):
            errs.append("%s: %r is not %r" % (path, v, s["const"]))
        if "enum" in s and not any(same(v, e) for e in s["enum"]):
            errs.append("%s: %r is not one of %s" % (path, v, s["enum"]))
        if type_ok(v, "number"):
            if "minimum" in s and v < s["minimum"]:
                errs.append("%s: %r < minimum %r" % (path, v, s["minimum"]))
            if "maximum" in s and v > s["maximum"]:
                errs.append("%s: %r > maximum %r" % (path, v, s["maximum"]))
        if isinstance(v, str) and "minLength" in s and len(v) < s["minLength"]:
            errs.append("%s: shorter than %d" % (path, s["minLength"]))
        if isinstance(v, dict):
            errs += self.object_errors(v, s, path)
        if isinstance(v, list) and "items" in s:
            for i, x in enumerate(v):
                errs += self.errors(x, s["items"], "%s[%d]" % (path, i))
        if "oneOf" in s:
            ok = [i for i, sub in enumerate(s["oneOf"]) if not self.errors(v, sub, path)]
            if len(ok) != 1:
                errs.append("%s: matches %d of the oneOf alternatives, not exactly 1"
                            % (path, len(ok)))
        return errs

    def object_errors(self, v, s, path):
        errs = []
        props = s.get("properties", {})
        for k in s.get("required", []):
            if k not in v:
                errs.append("%s: missing required key %r" % (path, k))
        for k, x in v.items():
            if k in props:
                errs += self.errors(x, props[k], "%s.%s" % (path, k))
            elif "additionalProperties" in s:
                errs += self.errors(x, s["additionalProperties"], "%s.%s" % (path, k))
        return errs


def latency_checks(d):
    lat = d["latency"]
    st, sp = lat["stats"], lat["spikes"]
    errs = []
    if not st["min"] <= st["p50"] <= st["p99"] <= st["p99_9"] <= st["p99_99"] <= \
            st["p99_999"] <= st["max"]:
        errs.append("stats: percentiles out of order")
    if sum(c["spikes"] for c in lat["causes"]) != sp["count"]:
        errs.append("causes: spikes do not add up to spikes.count")
    share = sum(c["share_pct"] for c in lat["causes"])
    if sp["count"] and abs(share - 100) > 0.5:
        errs.append("causes: shares add up to %.2f %%, not 100" % share)
    lats = [s["latency_us"] for s in lat["top_spikes"]]
    if lats != sorted(lats, reverse=True):
        errs.append("top_spikes: not largest first")
    for s in lat["top_spikes"]:
        if len(s["timeline"]) > s["timeline_events"]:
            errs.append("top_spikes: more timeline entries than timeline_events")
        # both rounded to the ns: a spike 1 ns above the threshold may print equal
        if s["latency_us"] < sp["threshold_us"] - 0.0015:
            errs.append("top_spikes: a spike below the threshold")
    h = lat["histogram"]
    if sum(b["count"] for b in h["buckets"]) != h["total"] or h["total"] != st["n"]:
        errs.append("histogram: bucket counts do not add up to the sample count")
    los = [b["lo_us"] for b in h["buckets"]]
    if los != sorted(los) or any(b["lo_us"] > b["hi_us"] for b in h["buckets"]):
        errs.append("histogram: buckets out of order")
    if d["run"]["round_trips"] != st["n"]:
        errs.append("run.round_trips differs from stats.n")
    return errs


def noise_checks(d):
    n = d["noise"]
    errs = []
    t = n["totals"]
    parts = t["offcpu_us"] + t["irq_us"] + t["mm_us"] + t["signal_us"]
    if abs(t["noise_us"] - parts) > 0.01 * len(n["threads"]) + 0.01:
        errs.append("noise.totals: noise_us is not offcpu + irq + mm + signal")
    if abs(sum(th["noise_us"] for th in n["threads"]) - t["noise_us"]) > 0.001 * (len(n["threads"]) + 1):
        errs.append("noise.threads: noise does not add up to the total")
    worst = [w["noise_us"] for w in n["worst_intervals"]]
    if worst != sorted(worst, reverse=True):
        errs.append("noise.worst_intervals: not worst first")
    tids = {th["tid"] for th in n["threads"]}
    if any(w["tid"] not in tids for w in n["worst_intervals"]):
        errs.append("noise.worst_intervals: a tid that is not among the threads")
    return errs


def diff_checks(d):
    errs = []
    for f in d["figures"]:
        if f["ci_lo_us"] is not None and not f["ci_lo_us"] <= f["ci_hi_us"]:
            errs.append("figures: %s interval upside down" % f["name"])
        if f["ci_lo_us"] is not None and f["significant"] != (f["ci_lo_us"] > 0 or f["ci_hi_us"] < 0):
            errs.append("figures: %s significant does not follow its interval" % f["name"])
    return errs


def rank_checks(d):
    vals = [n["value_us"] for n in d["nodes"]]
    errs = [] if vals == sorted(vals, reverse=True) else ["nodes: not worst first"]
    if [n["rank"] for n in d["nodes"]] != list(range(1, len(vals) + 1)):
        errs.append("nodes: ranks are not 1..n")
    return errs


CHECKS = {"diff": diff_checks, "rank": rank_checks}


def main():
    if len(sys.argv) not in (3, 4):
        print("usage: check_report_json.py SCHEMA REPORT [latency|noise|diff|rank]",
              file=sys.stderr)
        return 2
    schema = json.load(open(sys.argv[1]))
    try:
        doc = json.load(open(sys.argv[2]))
    except ValueError as e:
        print("%s: not JSON: %s" % (sys.argv[2], e))
        return 1
    errs = Validator(schema).errors(doc, schema)
    kind = sys.argv[3] if len(sys.argv) == 4 else None
    if not errs and kind in CHECKS:
        for e in CHECKS[kind](doc):
            print("%s: %s" % (sys.argv[2], e))
        return 1 if CHECKS[kind](doc) else 0
    if not errs:
        errs = latency_checks(doc) if doc["report"] == "latency" else noise_checks(doc)
    if len(sys.argv) == 4 and not errs and doc["report"] != sys.argv[3]:
        errs.append("report is %r, expected %r" % (doc["report"], sys.argv[3]))
    for e in errs[:50]:
        print("%s: %s" % (sys.argv[2], e))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
