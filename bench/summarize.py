#!/usr/bin/env python3
"""summarize.py BENCH RAW.jsonl OUT.json - one benchmark's runs -> table on stdout + JSON.

RAW holds one JSON object per run (written by bench/<BENCH>.sh). OUT gets the machine,
the parameters, the summary rows, the targets and every run. Medians over rounds; spread
is min-max. Ratios and differences are paired by round (interleaved runs).
"""
import json
import os
import platform
import statistics
import sys
import time


# `tailcause report` reads a trace file this large or larger a segment at a time unless told
# otherwise (REPORT_STREAM_FILE_MIN, user/report/report.h)
STREAM_FROM_BYTES = 64 * 2**20


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "date": os.environ.get("BENCH_DATE") or time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "kernel": platform.release(),
        "cpu_model": model,
        "cpus": os.cpu_count(),
        "loadavg_at_start": os.environ.get("BENCH_LOAD_START", "?"),
        "quick": os.environ.get("BENCH_QUICK", "0") == "1",
        "tailcause": os.environ.get("BENCH_REV", "?"),
    }


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def spread(xs):
    return (min(xs), max(xs)) if xs else (float("nan"), float("nan"))


def fmt_ratio(xs):
    lo, hi = spread(xs)
    return f"{med(xs):.3f} ({lo:.3f}-{hi:.3f})"


def table(head, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda r: "  ".join(str(x).ljust(w) if i == 0 else str(x).rjust(w)
                               for i, (x, w) in enumerate(zip(r, widths)))
    print(line(head))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))


def verdict(ok):
    return "met" if ok else "MISSED"


# --- 1. probe disturbance ------------------------------------------------------------------
BOOT = 4000  # bootstrap resamples


def boot_ci(xs, stat=statistics.median, seed=1):
    """A bootstrap 95 % interval of stat over xs (resampled with replacement), reproducible."""
    import random
    rnd = random.Random(seed)
    if len(xs) < 2:
        return (float("nan"), float("nan"))
    vals = sorted(stat([rnd.choice(xs) for _ in xs]) for _ in range(BOOT))
    return (vals[int(0.025 * BOOT)], vals[int(0.975 * BOOT) - 1])


def disturbance(runs):
    keys = (("p50_ns", "p50"), ("p99_ns", "p99"), ("p999_ns", "p99.9"), ("p9999_ns", "p99.99"),
            ("avg_ns", "avg"))
    by = {}
    for r in runs:
        by.setdefault(r["round"], {})[r["config"]] = r
    order = [c for c in ["tailcause", "perf", "bpftrace", "trace-cmd"]
             if any(c in rr for rr in by.values())]

    def ratios(a, b, k):
        """Per round: a's k over b's k, where the round has both."""
        return [rr[a][k] / rr[b][k] for rr in by.values() if a in rr and b in rr and rr[b][k]]

    summary, rows = [], []
    for c in order:
        s = {"config": c, "rounds": len(ratios(c, "untraced", "p50_ns"))}
        row = [c, str(s["rounds"])]
        for k, lab in keys:
            xs = ratios(c, "untraced", k)
            lo, hi = boot_ci(xs)
            s[lab + "_ratio"] = med(xs)
            s[lab + "_ci95"] = [lo, hi]
            row.append(f"{med(xs):.3f} [{lo:.3f}, {hi:.3f}]")
        s["events"] = med([rr[c]["events"] for rr in by.values() if c in rr])
        row.append(f"{s['events']:.0f}")
        summary.append(s)
        rows.append(row)
    n = runs[0]["n"] if runs else 0
    print(f"1. probe disturbance: shm probe, {n} round trips, one way; per round every "
          "configuration once (order rotated), each against the untraced run of its round; "
          f"median ratio over the rounds [bootstrap 95 % interval, {BOOT} resamples]")
    table(["config", "rounds"] + [lab + " ratio" for _, lab in keys] + ["events"], rows)
    targets = {}
    tc = next((s for s in summary if s["config"] == "tailcause"), None)
    if tc:
        targets["tailcause_p50_le_1.03"] = tc["p50_ratio"] <= 1.03
        targets["tailcause_p99_le_1.10"] = tc["p99_ratio"] <= 1.10
        print(f"targets: tailcause p50 <= 1.03x: {verdict(targets['tailcause_p50_le_1.03'])} "
              f"({tc['p50_ratio']:.3f}); p99 <= 1.10x: "
              f"{verdict(targets['tailcause_p99_le_1.10'])} ({tc['p99_ratio']:.3f})")
        for o in order[1:]:
            words = []
            for k, lab in keys[1:]:
                xs = ratios("tailcause", o, k)
                lo, hi = boot_ci(xs)
                said = ("less" if hi < 1 else "more" if lo > 1 else "not distinguishable")
                targets[f"{lab}_vs_{o}"] = {"ratio": med(xs), "ci95": [lo, hi], "verdict": said}
                words.append(f"{lab} {said} ({med(xs):.3f} [{lo:.3f}, {hi:.3f}])")
            print(f"  tailcause against {o}, per round: " + ", ".join(words))
    print("  (\"less\"/\"more\" disturbance only where the whole interval is below/above 1; "
          "avg = t_avg, which counts every stolen microsecond)")
    return {"n": n, "bootstrap": BOOT}, summary, targets


# --- 2. per-event cost ---------------------------------------------------------------------
def event_cost(runs):
    stats = [r for r in runs if r["config"] == "bpf_stats"]
    runs = [r for r in runs if r["config"] != "bpf_stats"]
    by = {}
    for r in runs:
        by.setdefault(r["config"], {})[r["round"]] = r
    base = by.get("untraced", {})
    traced, floor = by.get("traced", {}), by.get("floor", {})
    per_event, per_switch, ev_per_rt = [], [], []
    for rd, t in traced.items():
        if rd in base and t["round_trips"]:
            e = t["events"] / t["round_trips"]
            ev_per_rt.append(e)
            per_event.append((t["ns_per_rt"] - base[rd]["ns_per_rt"]) / e)
    for rd, f in floor.items():
        if rd in base:
            per_switch.append((f["ns_per_rt"] - base[rd]["ns_per_rt"]) / 2)
    rows = []
    for c in ("untraced", "traced", "floor"):
        xs = [r["ns_per_rt"] for r in by.get(c, {}).values()]
        if not xs:
            continue
        lo, hi = spread(xs)
        extra = ""
        if c == "traced" and per_event:
            lo2, hi2 = boot_ci(per_event)
            extra = f"{med(per_event):.0f} ns per record [{lo2:.0f}, {hi2:.0f}]"
        if c == "floor" and per_switch:
            lo2, hi2 = boot_ci(per_switch)
            extra = f"{med(per_switch):.0f} ns per sched_switch [{lo2:.0f}, {hi2:.0f}]"
        rows.append([c, f"{med(xs):.0f} ({lo:.0f}-{hi:.0f})",
                     f"{med([r['events'] for r in by[c].values()]):.0f}", extra])
    n = runs[0]["round_trips"] if runs else 0
    print(f"2. per-event cost: pipe storm, {n} round trips (2 switches each) on one CPU; "
          f"median of {len(base)} interleaved rounds (min-max); what is added, paired by round, "
          f"with a bootstrap 95 % interval [{BOOT} resamples]")
    table(["config", "ns/round trip", "records", "added (paired by round)"], rows)
    summary = {
        "ns_per_rt": {c: med([r["ns_per_rt"] for r in by[c].values()]) for c in by},
        "records_per_rt": med(ev_per_rt),
        "ns_per_record": med(per_event),
        "ns_per_record_spread": list(spread(per_event)),
        "ns_per_record_ci95": list(boot_ci(per_event)),
        "floor_ns_per_switch": med(per_switch),
        "floor_ns_per_switch_spread": list(spread(per_switch)),
        "floor_ns_per_switch_ci95": list(boot_ci(per_switch)),
    }
    lo, hi = summary["ns_per_record_ci95"]
    said = "met" if hi <= 200 else "MISSED" if lo > 200 else "not distinguishable from 200 ns"
    targets = {"ns_per_record_le_200": said}
    print(f"targets: <= 200 ns per traced event: {said} "
          f"({summary['ns_per_record']:.0f} ns [{lo:.0f}, {hi:.0f}]; "
          f"{summary['records_per_rt']:.2f} records per round trip); filter floor "
          f"{summary['floor_ns_per_switch']:.0f} ns per untraced switch (its wake-up included)")
    if stats:
        st = stats[0]
        rows, total = [], 0
        for name, (cnt, ns) in sorted(st["progs"].items(), key=lambda kv: -kv[1][1]):
            total += ns
            rows.append([name, str(cnt), f"{cnt / st['round_trips']:.2f}", f"{ns / cnt:.0f}",
                         f"{ns / st['round_trips']:.0f}"])
        print(f"  BPF run time in one more traced run (kernel.bpf_stats_enabled; "
              f"{st['round_trips']} round trips, {st['events']} records):")
        table(["program", "runs", "runs/rt", "ns/run", "ns/rt"], rows[:8])
        if st["events"]:
            print(f"  BPF time per record: {total / st['events']:.0f} ns (all programs; as timed by "
                  "bpf_stats, where an empty program reads ~50 ns on this VM)")
        summary["bpf_stats"] = st["progs"]
        summary["bpf_ns_per_record"] = total / st["events"] if st["events"] else None
    return {"round_trips": n}, summary, targets


# --- 3. recorder throughput ----------------------------------------------------------------
def throughput(runs):
    rows, summary = [], []
    best = None
    for r in runs:
        el = r["elapsed_ns"] / 1e9 if r["elapsed_ns"] else float("nan")
        rate = r["events"] / el if el else 0
        cap = r["events"] / r["drain_cpu_s"] if r["drain_cpu_s"] > 0 else float("nan")
        s = dict(r, events_per_s=rate, drain_capacity_per_s=cap)
        summary.append(s)
        if r["kind"] == "ladder" and r["drops"] == 0 and (best is None or rate > best["events_per_s"]):
            best = s
        rows.append([r["config"], f"{r['target']:.0f}" if r["target"] else "max",
                     f"{rate / 1e6:.3f}", str(r["events"]), str(r["drops"]),
                     f"{r['drain_cpu_s']:.2f}", f"{cap / 1e6:.2f}" if cap == cap else "-",
                     f"{r['ringbuf'] >> 10}K/{r['drain_ms']}ms", r["report"]])
    print("3. recorder throughput: page-fault storm (bench/storm.c -m fault) followed by "
          "`tailcause record -- storm`; rate = records in the trace / storm time")
    table(["config", "target/s", "M rec/s", "records", "drops", "recorder cpu[s]",
           "capacity M/s", "ring/drain", "report"], rows)
    ok = best is not None and best["events_per_s"] >= 1e6
    caps = [s["drain_capacity_per_s"] for s in summary if s["kind"] == "ladder"
            and s["drain_capacity_per_s"] == s["drain_capacity_per_s"]]
    targets = {"sustained_ge_1M": ok}
    if best:
        print(f"highest rate with zero drops: {best['events_per_s'] / 1e6:.3f} M records/s "
              f"({best['config']}); target >= 1 M/s: {verdict(ok)}")
    if caps:
        print(f"  recorder capacity (records per second of its own CPU time): "
              f"{min(caps) / 1e6:.2f}-{max(caps) / 1e6:.2f} M/s")
    base = next((s for s in summary if s["kind"] == "untraced"), None)
    one = next((s for s in summary if s["config"] == "max-1cpu"), None)
    if base and one and base["faults"] and one["faults"]:
        added = one["elapsed_ns"] / one["faults"] - base["elapsed_ns"] / base["faults"]
        print(f"  a traced page fault (max-1cpu) takes {added:.0f} ns more than an untraced one "
              f"({base['elapsed_ns'] / base['faults']:.0f} ns): the cost of one instant record")
        targets["page_fault_record_added_ns"] = round(added)
    over = [s for s in summary if s["kind"] == "overload"]
    for s in over:
        print(f"  overload ({s['config']}): {s['drops']} drops counted in the trace, "
              f"report {s['report']}")
    return {}, {"best": best, "runs": summary}, targets


# --- 4. analyzer ---------------------------------------------------------------------------
def analyzer(runs):
    by = {}
    for r in runs:
        by.setdefault(r["trace"], []).append(r)
    rows, summary = [], []
    for name, rs in by.items():
        ev, sm = rs[0]["events"], rs[0]["samples"]
        wall = [r["wall_s"] for r in rs]
        eps = [ev / w for w in wall if w > 0]
        rps = [(ev + sm) / w for w in wall if w > 0]
        rss = med([r["maxrss_kb"] for r in rs]) * 1024
        s = {"trace": name, "events": ev, "samples": sm, "bytes": rs[0]["bytes"],
             "wall_s": med(wall), "user_s": med([r["user_s"] for r in rs]),
             "sys_s": med([r["sys_s"] for r in rs]), "events_per_s": med(eps),
             "events_per_s_spread": list(spread(eps)), "records_per_s": med(rps),
             "maxrss_bytes": rss, "rss_per_event": rss / ev if ev else None,
             "rss_per_record": rss / (ev + sm) if ev + sm else None, "runs": len(rs)}
        summary.append(s)
        lo, hi = spread(eps)
        rows.append([name, str(ev), str(sm), f"{s['wall_s']:.2f}",
                     f"{s['events_per_s'] / 1e6:.2f} ({lo / 1e6:.2f}-{hi / 1e6:.2f})",
                     f"{s['records_per_s'] / 1e6:.2f}", f"{rss / 2**20:.0f}",
                     f"{s['rss_per_event']:.0f}" if ev else "-",
                     f"{s['rss_per_record']:.0f}" if ev + sm else "-"])
    print("4. analyzer: `tailcause report FILE` on one core (taskset), /usr/bin/time -v; "
          "median (min-max) of the runs")
    table(["trace", "events", "samples", "wall[s]", "M events/s", "M records/s",
           "maxRSS[MiB]", "B/event", "B/record"], rows)
    # the target is `tailcause report FILE` as it reads each trace by itself: a segment at
    # a time from 64 MiB on (the streamed rows), whole below; the other read is listed
    by_name = {s["trace"]: s for s in summary}
    synth, other = [], []
    for s in summary:
        name = s["trace"]
        if not name.startswith("synthetic") or "+" in name:
            continue
        st = by_name.get(name + "+streamed")
        default, alt = (st, s) if st and s["bytes"] >= STREAM_FROM_BYTES else (s, st)
        synth.append(default)
        if alt:
            other.append(alt)
    ok = bool(synth) and all(s["events_per_s"] >= 10e6 for s in synth)
    streamed = [s for s in summary if s["trace"].endswith("+streamed")]
    mem = bool(streamed) and all(s["maxrss_bytes"] <= 512 * 2**20 for s in streamed)
    targets = {"synthetic_ge_10M_events_per_s": ok, "streamed_le_512MiB": mem}
    slow = ", ".join(s["trace"] for s in synth if s["events_per_s"] < 10e6)
    print(f"targets: >= 10 M events/s on one core (synthetic traces, read as `report` reads "
          f"them: {', '.join(s['trace'] for s in synth)}): "
          f"{verdict(ok)}{' (' + slow + ')' if slow else ''}; "
          f"streamed peak RSS <= 512 MiB: {verdict(mem)}")
    if other:
        print("  the other read of the same traces, asked for (--no-stream / --stream), not a "
              "target: " + ", ".join(f"{s['trace']} {s['events_per_s'] / 1e6:.2f}" for s in other)
              + " M events/s")
    print("  (+thp-malloc: one diagnostic run with GLIBC_TUNABLES=glibc.malloc.hugetlb=1, "
          "not a target)")
    return {}, summary, targets


# --- 5. trace size -------------------------------------------------------------------------
def trace_size(runs):
    rows, summary = [], []
    for r in runs:
        bpe = r["bytes"] / r["events"] if r["events"] else float("nan")
        bprt = r["bytes"] / r["round_trips"] if r["round_trips"] else float("nan")
        s = dict(r, bytes_per_event=bpe, bytes_per_round_trip=bprt)
        summary.append(s)
        rd = r.get("read_s")
        rows.append([r["tool"], str(r["bytes"]), str(r["events"]), f"{bpe:.2f}",
                     str(r["round_trips"]), f"{bprt:.2f}",
                     f"{rd:.2f}" if rd is not None else "-",
                     f"{r['round_trips'] / rd / 1e6:.2f}" if rd else "-",
                     f"{r['dump_s']:.2f}" if r.get("dump_s") is not None else "",
                     r.get("note", "")])
    print("5. trace size: the same pipe storm recorded by each tool (its threads only, the "
          "same tracepoints); bytes of the file per event in it, and per round trip; then each "
          "tool's reader on it (median of 3 runs, one core: tailcause report, perf script, "
          "trace-cmd report; dump: tailcause printing every record)")
    table(["tool", "bytes", "events", "B/event", "round trips", "B/round trip", "read[s]",
           "M round trips/s read", "dump[s]", "note"], rows)
    tc = next((s for s in summary if s["tool"] == "tailcause"), None)
    targets = {}
    if tc and tc.get("read_s"):
        print("  reading the same run: tailcause report is " + ", ".join(
            f"{s['read_s'] / tc['read_s']:.1f}x faster than {s['tool']}"
            for s in summary if s["tool"] != "tailcause" and s.get("read_s")))
    if tc:
        targets["tailcause_le_6_bytes_per_event"] = tc["bytes_per_event"] <= 6
        for s in summary:
            if s["tool"] != "tailcause":
                targets[f"smaller_than_{s['tool']}_per_round_trip"] = (
                    tc["bytes_per_round_trip"] < s["bytes_per_round_trip"])
        print(f"targets: tailcause <= 6 B/event: "
              f"{verdict(targets['tailcause_le_6_bytes_per_event'])} "
              f"({tc['bytes_per_event']:.2f}); smaller per round trip than "
              + ", ".join(f"{s['tool']} {verdict(targets['smaller_than_' + s['tool'] + '_per_round_trip'])}"
                          f" ({s['bytes_per_round_trip'] / tc['bytes_per_round_trip']:.1f}x)"
                          for s in summary if s["tool"] != "tailcause"))
    return {}, summary, targets


BENCHES = {f.__name__: f for f in (disturbance, event_cost, throughput, analyzer, trace_size)}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in BENCHES:
        sys.exit("usage: summarize.py {%s} RAW.jsonl OUT.json" % ",".join(BENCHES))
    name, raw, out = sys.argv[1:]
    with open(raw) as f:
        runs = [json.loads(line) for line in f if line.strip()]
    if not runs:
        sys.exit(f"summarize: {name}: no runs in {raw}")
    print()
    params, summary, targets = BENCHES[name](runs)
    print()
    doc = {"benchmark": name, "machine": machine(), "params": params, "summary": summary,
           "targets": targets, "runs": runs}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1, default=str)
        f.write("\n")


if __name__ == "__main__":
    main()
