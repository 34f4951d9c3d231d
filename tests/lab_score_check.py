#!/usr/bin/env python3
"""The accuracy lab's scoring (bench/lab/score.py) on windows and spikes whose answer
is known: what counts as injected, correct and dominant, and how many dominant spikes the
real windows hold by chance at the rate of the control windows between them."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "lab"))
import score as lab_score  # noqa: E402

US = 1000
PERIOD = 2000 * US  # an injection every 2 ms, 20 us long
WINDOWS = [(k * PERIOD, k * PERIOD + 20 * US, "ipi:call_function*") for k in range(1, 101)]
INJECTORS = [(["ipi"], "ipi:call_function*")]


def spike(t0, us, cause, expl=100.0, events=1):
    """A spike from t0 whose excess is us microseconds, lasting as long."""
    return (t0, t0 + us * US, cause, expl, events, float(us))


def score(spikes, floor_us=1.0):
    return lab_score.score("t", INJECTORS, sorted(WINDOWS), spikes, [], ["0"], ["0"], 1.0, floor_us)


def check(what, got, want):
    if got != want:
        print("FAIL %s: %r, not %r" % (what, got, want))
        sys.exit(1)


def main():
    sp = []
    for k in range(1, 41):  # 40 injected, the window covers them: dominant
        sp.append(spike(k * PERIOD + 2 * US, 10, "ipi:call_function_single"))
    for k in range(41, 45):  # 4 dominant misses: the host's own, inside a window
        sp.append(spike(k * PERIOD + 5 * US, 5, "hw-noise", events=0))
    # inside a window but below the noise floor: injected, not dominant
    sp.append(spike(50 * PERIOD + 1 * US, 0.5, "hw-noise", events=0))
    # half a period on, in the control windows: 2 pass as dominant, 1 is too small
    for k in (60, 61):
        sp.append(spike(k * PERIOD + PERIOD // 2 + 3 * US, 8, "timer:tick"))
    sp.append(spike(62 * PERIOD + PERIOD // 2 + 3 * US, 0.2, "hw-noise", events=0))
    # outside every window and control window: neither
    sp.append(spike(70 * PERIOD + 300 * US, 30, "preemption:kworker/0:1"))
    r = score(sp)
    check("injected", r["injected_spikes"], 45)
    check("dominant", r["dominant_spikes"], 44)
    check("dominant misses", r["dominant_misses"], 4)
    check("dominant precision", r["dominant_precision"], round(40 / 44, 4))
    check("control windows", r["control_windows"], 99)  # each but the last has a next
    check("chance spikes", r["chance_dominant_spikes"], 2)
    check("chance expected", r["chance_expected"], round(2 * 100 / 99, 1))
    check("chance causes", r["chance_dominant_causes"], {"timer:tick": 2})
    check("non-injected", r["non_injected_spikes"], 4)
    # a higher floor: the small misses are no longer dominant, nor the chance ones
    r = score(sp, floor_us=9.0)
    check("dominant, floor 9 us", (r["dominant_spikes"], r["dominant_misses"]), (40, 0))
    check("chance, floor 9 us", (r["chance_dominant_spikes"], r["chance_expected"]), (0, 0.0))
    t = lab_score.table([dict(r, contended_rounds=[])])
    check("table column", "| 0 (0) |" in t, True)
    print("lab score: ok")


if __name__ == "__main__":
    main()
