#!/usr/bin/env python3
# Checks a `tailcause report --format perfetto` file: Chrome trace-event JSON
# that the Perfetto UI imports without moving slices aside.
#   - it parses; traceEvents is a list of events with ph X (complete), i
#     (instant) or M (metadata), numeric ts/dur >= 0, integer pid/tid;
#   - on every track (pid, tid), the X slices nest properly: sorted by start
#     (longer first on ties), each one either starts after the innermost open
#     slice ends or ends inside it. ts and dur are read as exact decimals, as
#     a viewer that rounds nothing would see them;
#   - every track with slices has a thread_name, every pid a process_name;
#   - with --latency: a "round trips" track with at least one flagged spike;
#   - flows (ph s and f, the wait chain's arrows): each id once as a start and once as an
#     end, the end bound to a slice of its track that holds its ts ("bp":"e"); with
#     --min-flows N, at least N of them.
#
#   check_perfetto.py FILE [--latency] [--min-slices N] [--min-flows N]
# Exit 0 when valid, 1 with the problems otherwise.
import json
import sys
from decimal import Decimal


def check(doc, latency, min_slices, min_flows=0):
    errs = []
    flows = {}
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["no traceEvents list"]
    tracks, names, procs = {}, {}, set()
    instants = 0
    for n, e in enumerate(doc["traceEvents"]):
        ph = e.get("ph")
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            errs.append("event %d: pid/tid not integers" % n)
            continue
        key = (e["pid"], e["tid"])
        if ph == "M":
            if e.get("name") == "thread_name":
                names[key] = e["args"]["name"]
            elif e.get("name") == "process_name":
                procs.add(e["pid"])
            continue
        if ph in ("s", "f"):
            if not isinstance(e.get("id"), int) or not isinstance(e.get("ts"), (Decimal, int)):
                errs.append("event %d: flow without an integer id and a ts" % n)
                continue
            flows.setdefault(e["id"], {})[ph] = (key, Decimal(e["ts"]), e.get("bp"))
            continue
        if ph not in ("X", "i"):
            errs.append("event %d: unexpected ph %r" % (n, ph))
            continue
        ts = e.get("ts")
        if not isinstance(ts, Decimal) and not isinstance(ts, int) or ts < 0:
            errs.append("event %d: bad ts %r" % (n, ts))
            continue
        if not isinstance(e.get("name"), str) or not e["name"]:
            errs.append("event %d: no name" % n)
        if ph == "i":
            instants += 1
            if e.get("s") not in ("t", "p", "g"):
                errs.append("event %d: instant without scope" % n)
            continue
        dur = e.get("dur")
        if not isinstance(dur, (Decimal, int)) or dur < 0:
            errs.append("event %d: bad dur %r" % (n, dur))
            continue
        tracks.setdefault(key, []).append((Decimal(ts), Decimal(ts) + Decimal(dur), e))
    slices = sum(len(v) for v in tracks.values())
    for key, sl in tracks.items():
        if key not in names:
            errs.append("track %s has slices but no thread_name" % (key,))
        if key[0] not in procs:
            errs.append("pid %d has no process_name" % key[0])
        sl.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for start, end, e in sl:
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and end > stack[-1]:
                errs.append("track %s (%s): slice %r [%s, %s] overlaps its parent ending %s"
                            % (key, names.get(key), e["name"], start, end, stack[-1]))
                break
            stack.append(end)
    for fid, ends in flows.items():
        if set(ends) != {"s", "f"}:
            errs.append("flow %d: not one start and one end" % fid)
            continue
        key, at, bp = ends["f"]
        if bp != "e" or not any(a <= at <= b for a, b, _ in tracks.get(key, [])):
            errs.append("flow %d: its end at %s binds to no slice of track %s" % (fid, at, key))
    if len(flows) < min_flows:
        errs.append("only %d flows, expected at least %d" % (len(flows), min_flows))
    if slices < min_slices:
        errs.append("only %d slices, expected at least %d" % (slices, min_slices))
    if latency:
        rt = [k for k, v in names.items() if v.startswith("round trips")]
        spikes = [e for k in rt for _, _, e in tracks.get(k, []) if e["name"].startswith("SPIKE")]
        if not rt or not spikes:
            errs.append("no round-trip track with a flagged spike")
    cpus = [p for p in procs if p >= 100]
    if not cpus and slices:
        errs.append("no per-CPU track")
    return errs


def main():
    args = sys.argv[1:]
    if not args:
        print("usage: check_perfetto.py FILE [--latency] [--min-slices N] [--min-flows N]",
              file=sys.stderr)
        return 2
    latency = "--latency" in args
    min_slices = int(args[args.index("--min-slices") + 1]) if "--min-slices" in args else 1
    try:
        doc = json.load(open(args[0]), parse_float=Decimal)
    except ValueError as e:
        print("%s: not JSON: %s" % (args[0], e))
        return 1
    min_flows = int(args[args.index("--min-flows") + 1]) if "--min-flows" in args else 0
    errs = check(doc, latency, min_slices, min_flows)
    for e in errs[:50]:
        print("%s: %s" % (args[0], e))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
