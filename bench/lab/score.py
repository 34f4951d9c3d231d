"""The accuracy lab's scoring (README.md in this directory, lab.py's docstring): each spike
of a scenario's rounds against the ground-truth windows of its injections, and the table.

    windows  sorted (t_start_ns, t_end_ns, expected) -- expected: fnmatch patterns
             separated by |, or None for an uncertain window (the sender was preempted)
    spikes   (t_start_ns, t_end_ns, primary cause, % explained, events, excess µs)
"""
import bisect
import fnmatch

# The verdicts that name no OS cause: `unattributed` (too little explained) and `hw-noise` (no
# OS event at all while every tracer was attached and nothing was lost: its evidence is that
# window, which the report states). A clean run may have any share of either; on an injected
# spike either is a miss.
NO_OS_CAUSE = ("unattributed", "hw-noise")

# The causes the lab's injections make (counted in a clean run, not held against it)
LAB_CAUSES = ("preemption:lab-", "softirq:net_rx", "ipi:call_function", "thp-compaction",
              "workqueue:refresh_vm_stats", "signal:SIGUSR1")


def overlaps(s0, s1, w):
    return s0 <= w[1] and w[0] <= s1


def matches(cause, expect):
    """expect: fnmatch patterns separated by |"""
    return any(fnmatch.fnmatchcase(cause, p) for p in expect.split("|"))


def count(d, k):
    d[k] = d.get(k, 0) + 1


def ratio(a, b):
    return round(a / b, 4) if b else None


def top(d):
    return dict(sorted(d.items(), key=lambda kv: -kv[1])[:8])


class Windows:
    """Sorted intervals, and the ones reaching back into a spike found by bisection."""

    def __init__(self, windows):
        self.w = windows
        self.starts = [w[0] for w in windows]
        self.maxlen = max([w[1] - w[0] for w in windows], default=0)

    def overlapping(self, s0, s1):
        j = bisect.bisect_right(self.starts, s1) - 1
        while j >= 0 and self.w[j][0] >= s0 - self.maxlen:
            if overlaps(s0, s1, self.w[j]):
                yield self.w[j]
            j -= 1


def control_windows(windows):
    """Chance: as many windows again, each moved to halfway to the next injection where
    that lies clear of every injection. A spike there is the host's own; those that pass
    the dominant test say how many dominant spikes of the real windows are coincidence."""
    real = Windows(windows)
    controls = []
    for k in range(len(windows) - 1):
        w0, w1, expect = windows[k]
        shift = (windows[k + 1][0] - w0) // 2
        if (expect is not None and shift > 0
                and not any(True for _ in real.overlapping(w0 + shift, w1 + shift))):
            controls.append((w0 + shift, w1 + shift))
    return controls


class Tally:
    """What the spikes of one scenario add up to."""

    def __init__(self):
        self.inj = self.correct = self.attributed = self.excluded = 0
        self.dom = self.dom_correct = self.dom_attributed = 0
        self.non = self.non_unattr = self.non_wrong = 0
        self.chance = 0
        self.inj_causes, self.dom_causes, self.non_causes, self.all_causes = {}, {}, {}, {}
        self.chance_causes, self.no_evidence = {}, {}


def dominant(covered_ns, excess_us, floor_us):
    """The windows cover at least half the spike's excess, so the injection alone can
    account for most of it, and the spike stands out of the noise of a run without
    injection (ground truth only)."""
    return covered_ns >= 0.5 * excess_us * 1000 and excess_us >= floor_us


def score_spike(t, spike, real, controls, patterns, floor_us):
    """One spike into t: injected (dominant or not), excluded, or not injected (and
    then, in a control window, a coincidence)."""
    s0, s1, cause, expl, nev, excess_us = spike
    count(t.all_causes, cause)
    if cause not in NO_OS_CAUSE and (nev == 0 or expl < 50):
        count(t.no_evidence, cause)
    hit, covered, uncertain = set(), 0, False
    for w in real.overlapping(s0, s1):
        if w[2] is None:
            uncertain = True
        else:
            hit.add(w[2])
            covered += min(s1, w[1]) - max(s0, w[0])
    if uncertain and not hit:
        t.excluded += 1  # only windows that hold more than the injection
        return
    if hit:
        ok = any(matches(cause, p) for p in hit)
        t.inj += 1
        count(t.inj_causes, cause)
        t.attributed += cause != "unattributed"
        t.correct += ok
        if dominant(covered, excess_us, floor_us):
            t.dom += 1
            count(t.dom_causes, cause)
            t.dom_attributed += cause != "unattributed"
            t.dom_correct += ok
        return
    # in a control window, as a dominant spike of a real one would be
    c_covered = sum(min(s1, c[1]) - max(s0, c[0]) for c in controls.overlapping(s0, s1))
    if c_covered and dominant(c_covered, excess_us, floor_us):
        t.chance += 1
        count(t.chance_causes, cause)
    t.non += 1
    count(t.non_causes, cause)
    if cause == "unattributed":
        t.non_unattr += 1
    elif any(matches(cause, p) for p in patterns):
        t.non_wrong += 1


def clean_figures(res, t, spikes, rounds):
    """A run without injections: no cause without evidence, no lab process, the overhead."""
    n = len(spikes)
    ex = sorted(e for *_, e in spikes)
    res["spike_excess_p90_us"] = ex[int(0.9 * (len(ex) - 1))] if ex else 0.0
    res["max_cause_share"] = max(
        ((c, round(k / n, 4)) for c, k in t.all_causes.items() if c != "unattributed"),
        key=lambda x: x[1], default=(None, 0))
    res["max_share_without_evidence"] = max(
        ((c, round(k / n, 4)) for c, k in t.no_evidence.items()),
        key=lambda x: x[1], default=(None, 0))
    res["lab_causes_blamed"] = sum(k for c, k in t.all_causes.items()
                                   if c.startswith(LAB_CAUSES))
    # Only a lab process is certainly the lab's: the other lab causes happen on any host
    # (a TLB shootdown is an ipi:call_function), and are counted, not held against it.
    res["lab_processes_blamed"] = sum(
        k for c, k in t.all_causes.items() if c.startswith("preemption:lab-"))
    res["hw_noise_share"] = round(t.all_causes.get("hw-noise", 0) / n, 4) if n else 0.0
    res["clean_ok"] = (res["max_share_without_evidence"][1] <= 0.05
                       and res["lab_processes_blamed"] == 0)
    # Overhead: traced / untraced per round (run back to back), median over rounds.
    res["overhead"] = {}
    for k in ("p50", "p99", "p99_9"):
        r = sorted(x["traced"][k] / x["untraced"][k] for x in rounds
                   if x.get("untraced") and x["untraced"][k] > 0)
        res["overhead"][k] = round(r[len(r) // 2], 3) if r else None
    res["all_causes"] = top(t.all_causes)


def score(name, injectors, windows, spikes, rounds, load_before, load_after, secs, floor_us):
    patterns = list(dict.fromkeys(e for _, e in injectors))  # a sender and its probe: once
    real = Windows(windows)
    controls = control_windows(windows)
    chance = Windows(controls)
    t = Tally()
    for spike in spikes:
        score_spike(t, spike, real, chance, patterns, floor_us)
    n_windows = sum(1 for w in windows if w[2] is not None)
    res = {
        "scenario": name,
        "expected": patterns,
        "windows": n_windows,
        "uncertain_windows": sum(1 for w in windows if w[2] is None),
        "rounds": len(rounds),
        "spikes": len(spikes),
        "truncated_rounds": sum(1 for r in rounds if r["count"] > r["listed"]),
        "excluded_spikes": t.excluded,
        "injected_spikes": t.inj,
        "correct": t.correct,
        "precision": ratio(t.correct, t.attributed),
        "recall": ratio(t.correct, t.inj),
        "noise_floor_us": floor_us,
        "dominant_spikes": t.dom,
        "dominant_precision": ratio(t.dom_correct, t.dom_attributed),
        "dominant_recall": ratio(t.dom_correct, t.dom),
        "dominant_causes": top(t.dom_causes),
        "dominant_misses": t.dom - t.dom_correct,
        "control_windows": len(controls),
        "chance_dominant_spikes": t.chance,
        # as many coincidences as the real windows hold at the control windows' rate
        "chance_expected": round(t.chance * n_windows / len(controls), 1) if controls else None,
        "chance_dominant_causes": top(t.chance_causes),
        "non_injected_spikes": t.non,
        "non_injected_unattributed": ratio(t.non_unattr, t.non),
        "non_injected_wrongly_blamed": ratio(t.non_wrong, t.non),
        "non_injected_other_cause": ratio(t.non - t.non_unattr - t.non_wrong, t.non),
        "injected_causes": top(t.inj_causes),
        "non_injected_causes": top(t.non_causes),
        "seconds": round(secs, 1),
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "per_round": rounds,
    }
    if not injectors:
        clean_figures(res, t, spikes, rounds)
    else:
        for k in ("precision", "dominant_precision"):
            res[k + "_ok"] = res[k] is not None and res[k] >= 0.95
        for k in ("recall", "dominant_recall"):
            res[k + "_ok"] = res[k] is not None and res[k] >= 0.90
    return res

def fmt(x):
    return "-" if x is None else "%.3f" % x


def table(results):
    lines = ["| scenario | expected cause | rounds (contended) | windows | spikes (excluded) | injected "
             "| precision | recall | dominant | precision | recall | misses (by chance) "
             "| non-inj: unattributed / wrongly blamed / other | load avg (1 min) before→after |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- "
             "| --- |"]
    for r in results:
        if "skipped" in r:
            lines.append("| %s | skipped: %s |" % (r["scenario"], r["skipped"]))
            continue
        exp = ", ".join(e.replace("|", " or ") for e in r["expected"]) or "(none)"
        chance = "-" if r["chance_expected"] is None else "%.0f" % r["chance_expected"]
        lines.append("| %s | %s | %d (%d) | %d | %d (%d) | %d | %s | %s | %d | %s | %s "
                     "| %d (%s) | %s / %s / %s | %s→%s |" % (
                         r["scenario"], exp, r["rounds"], len(r["contended_rounds"]),
                         r["windows"], r["spikes"], r["excluded_spikes"], r["injected_spikes"],
                         fmt(r["precision"]), fmt(r["recall"]), r["dominant_spikes"],
                         fmt(r["dominant_precision"]), fmt(r["dominant_recall"]),
                         r["dominant_misses"], chance, fmt(r["non_injected_unattributed"]),
                         fmt(r["non_injected_wrongly_blamed"]),
                         fmt(r["non_injected_other_cause"]),
                         r["loadavg_before"][0], r["loadavg_after"][0]))
    return "\n".join(lines)
