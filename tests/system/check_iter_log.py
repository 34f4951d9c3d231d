#!/usr/bin/env python3
"""check_iter_log.py - the iterations tailcause marked against the benchmark's own log.

Usage: check_iter_log.py OURS FORMAT LOG [--tolerance-median F] [--tolerance-tail F]
  OURS    `tailcause dump TRACE --samples` output (sample start=.. end=.. lines)
  FORMAT  sockperf (a --full-log CSV: packet, txTime(sec), rxTime(sec), latency(usec))
          or perftest (ib_*_lat -U output: one latency in usec per iteration, the
          "#, usec" table)
  LOG     that file

The benchmark's rows are matched to ours in order. sockperf logs only its valid
period (no warm-up), on a clock of its own: the first row is placed where the
offset between the clocks stays on one line (offset and rate) across the run best
(one iteration more or less anywhere is a whole round trip off it). perftest logs every iteration.
Then, one way (RTT/2, as both benchmarks print): the count (every row of theirs has
ours), the median absolute difference as a share of the median (t_typical), and
p99 and p99.9 each as a relative difference. Prints the figures; exits 1 when the
count differs or a figure is above its tolerance (defaults 0.02 and 0.05).

--tails-reported: p99 and p99.9 are printed, not judged. Where the marker sits a
while after the benchmark's own clock read (a uprobe's trap: ~13 us under TCG), a
delay that lands in between moves time from one iteration to its neighbour: the
rows still match one by one, the tail shifts by a few percent now and then.
"""
import sys


def ours(path):
    rows = []
    with open(path) as f:
        for line in f:
            if not line.startswith("sample "):
                continue
            kv = dict(x.split("=", 1) for x in line.split()[1:])
            rows.append((int(kv["start"]), int(kv["end"])))
    rows.sort()
    return rows


def ns(text):
    """'2.960566633' -> 2960566633, exactly (no float)."""
    sec, _, frac = text.strip().partition(".")
    return int(sec) * 10**9 + int((frac + "000000000")[:9])


def sockperf_rows(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.split(",")
            if len(parts) != 4 or not parts[0].strip().isdigit():
                continue
            rows.append((ns(parts[1]), ns(parts[2])))
    return rows


def perftest_rows(path):
    vals = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            # "#, usec" table rows: "  12  4.53" (index, latency) or a bare latency
            try:
                nums = [float(p.rstrip(",")) for p in parts]
            except ValueError:
                continue
            if len(nums) == 2 and nums[0] == int(nums[0]):
                vals.append(nums[1])
    return vals


def pct(sorted_vals, p):
    if not sorted_vals:
        return float("nan")
    i = min(len(sorted_vals) - 1, max(0, int(round(p / 100.0 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[i]


def align_sockperf(mine, theirs):
    """Index k of ours that their row 0 is, and how far from a straight line (ns).

    Their clock may run at a slightly other rate than CLOCK_MONOTONIC: at 24 rows
    spread over the run, the offset ours - theirs must lie on one line (offset and
    rate); one iteration more or less anywhere puts a whole round trip off it."""
    last = len(theirs) - 1
    idx = [last * j // 23 for j in range(24)]
    best, best_k = None, None
    for k in range(0, len(mine) - len(theirs) + 1):
        o0 = mine[k][0] - theirs[0][0]
        slope = (mine[k + last][0] - theirs[last][0] - o0) / last if last else 0.0
        worst = 0.0
        for i in idx:
            d = abs(mine[k + i][0] - theirs[i][0] - o0 - slope * i)
            if d > worst:
                worst = d
                if best is not None and worst >= best:
                    break
        if best is None or worst < best:
            best, best_k = worst, k
    return best_k, best


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    tol_med, tol_tail = 0.02, 0.05
    if "--tolerance-median" in argv:
        tol_med = float(argv[argv.index("--tolerance-median") + 1])
    if "--tolerance-tail" in argv:
        tol_tail = float(argv[argv.index("--tolerance-tail") + 1])
    judge_tails = "--tails-reported" not in argv
    mine = ours(argv[1])
    if argv[2] == "sockperf":
        theirs_rows = sockperf_rows(argv[3])
        if not theirs_rows or len(mine) < len(theirs_rows):
            print(f"count: ours {len(mine)}, theirs {len(theirs_rows)}: cannot match")
            return 1
        k, off = align_sockperf(mine, theirs_rows)
        print(f"aligned: their row 0 is our iteration {k} (off the clocks' line by at most"
              f" {off:.0f} ns)")
        theirs = [(rx - tx) / 2000.0 for tx, rx in theirs_rows]
        matched = mine[k:k + len(theirs)]
    else:
        theirs = perftest_rows(argv[3])
        matched = mine[:len(theirs)]
        if len(mine) != len(theirs):
            print(f"count: ours {len(mine)}, theirs {len(theirs)}: differ")
            return 1
    ours_us = [(e - s) / 2000.0 for s, e in matched]
    diffs = sorted(abs(a - b) for a, b in zip(ours_us, theirs))
    st, so = sorted(theirs), sorted(ours_us)
    typical = pct(st, 50)
    med = pct(diffs, 50) / typical
    p99 = abs(pct(so, 99) - pct(st, 99)) / pct(st, 99)
    p999 = abs(pct(so, 99.9) - pct(st, 99.9)) / pct(st, 99.9)
    print(f"count: {len(theirs)} rows of theirs, each matched")
    print(f"t_typical theirs {typical:.3f} us ours {pct(so, 50):.3f} us")
    print(f"median |ours - theirs| = {pct(diffs, 50):.3f} us = {100 * med:.2f} % of t_typical"
          f" (tolerance {100 * tol_med:.0f} %)")
    print(f"p99 theirs {pct(st, 99):.3f} ours {pct(so, 99):.3f}: {100 * p99:.2f} %;"
          f" p99.9 theirs {pct(st, 99.9):.3f} ours {pct(so, 99.9):.3f}: {100 * p999:.2f} %"
          + (f" (tolerance {100 * tol_tail:.0f} %)" if judge_tails else " (reported, not judged)"))
    return 0 if med <= tol_med and (not judge_tails or (p99 <= tol_tail and p999 <= tol_tail)) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
