#!/bin/sh
# user/core stays pure: libc, zlib and bpf/events.h only (DESIGN.md: the analyzer
# has no BPF, verbs or I/O). Fails on any other include.
set -eu
sh "$(dirname "$0")/../../scripts/check-core.sh"
