#!/bin/sh
# The accuracy lab's scoring (bench/lab/score.py) on windows and spikes with known answers:
# injected, dominant, misses, and the coincidences expected at the control windows' rate.
# Needs no root.
set -eu
python3 "$(dirname "$0")/lab_score_check.py"
