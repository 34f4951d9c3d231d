#!/bin/sh
# make bench: runs the benchmarks, prints one table each, writes bench/results/NAME.json.
#   1 disturbance   the shm probe untraced / under tailcause / perf / bpftrace / trace-cmd
#   2 event_cost    ns per traced scheduler event (pipe storm), and the filter's floor
#   3 throughput    records/s the recorder keeps up with, with zero ring-buffer drops
#   4 analyzer      events/s and memory of `tailcause report` on large traces
#   5 trace_size    bytes per event: .tct vs perf.data vs trace.dat, same workload
#   6 iter_cost     what record --iter costs sockperf: untraced / traced / with markers
#   7 udp_parity    the udp probe against sockperf ping-pong, blocking and busy-poll
#   8 coll_cost     what the collective records (record --iter mpi) cost an MPI call
#   9 coll_stragglers  a hog on one rank's CPU: the straggler and its cause; no hog: chance
# bench/README.md says what each measures, and holds the latest figures.
#
# Usage: bench/run.sh BUILD_DIR [NAME...]     (root; make bench, make O=DIR bench)
#   BENCH_QUICK=1   small sizes and 3 rounds: a smoke test of a couple of minutes
# The machine should be quiet: the figures are ratios and rates on 2 busy CPUs.
set -eu
O=$(cd "${1:-build}" && pwd)
[ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")/.." && pwd)
export O top
CC=${CC:-cc}

[ "$(id -u)" = 0 ] || { echo "tailcause: bench: needs root (BPF, perf, ftrace)" >&2; exit 2; }
[ -x "$O/tailcause" ] && [ -f "$O/libtccore.a" ] && [ -f "$O/libtclib.a" ] ||
	{ echo "tailcause: bench: $O/tailcause not built (make O=$O)" >&2; exit 2; }
for t in perf bpftrace trace-cmd python3 /usr/bin/time; do
	command -v "$t" >/dev/null ||
		{ echo "tailcause: bench: $t missing (scripts/deps.sh installs it)" >&2; exit 2; }
done

mkdir -p "$O/bench"
# the benchmark's own programs (not part of `make all`)
build() {  # OUT SRC ARGS...
	out=$1 src=$2
	shift 2
	if [ ! -x "$out" ] || [ "$src" -nt "$out" ] || [ "$O/libtccore.a" -nt "$out" ] ||
		[ "$O/user/tracefile/trace_file.o" -nt "$out" ]; then
		printf '  %-5s %s\n' CC "$out"
		$CC -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE "$src" "$@" -o "$out"
	fi
}
build "$O/bench/storm" "$top/bench/storm.c" -lpthread
build "$O/bench/gen_trace" "$top/bench/gen_trace.c" -I"$top/user" -I"$top" \
	"$O"/user/tracefile/*.o "$O/libtccore.a" \
	"$O/libtclib.a" -ldeflate -lzstd -lz -lm
build "$O/bench/ftrace_shim.so" "$top/bench/ftrace_shim.c" -shared -fPIC -ldl

BENCH_LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
BENCH_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
BENCH_REV=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)
export BENCH_LOAD_START BENCH_REV BENCH_DATE
names=${*:-disturbance event_cost throughput trace_size analyzer iter_cost udp_parity coll_cost coll_stragglers}
quick=""
[ "${BENCH_QUICK:-0}" = 1 ] && quick=" (BENCH_QUICK=1: small sizes)"
echo "tailcause bench$quick: $BENCH_DATE, $(uname -r)," \
	"$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs," \
	"load $BENCH_LOAD_START, tailcause $BENCH_REV"

failed=""
start=$(date +%s)
for b in $names; do
	[ -f "$top/bench/$b.sh" ] || { echo "tailcause: bench: no benchmark '$b'" >&2; exit 1; }
	t0=$(date +%s)
	# each bounded in time: a hung tracer must not hold up the rest
	if ! timeout -k 10 "${BENCH_TIMEOUT:-600}" sh "$top/bench/$b.sh"; then
		echo "tailcause: bench: $b failed" >&2
		failed="$failed $b"
	fi
	echo "  ($b: $(($(date +%s) - t0)) s)"
done
res=$top/bench/results
[ "${BENCH_QUICK:-0}" = 1 ] && res=$O/bench/work/results-quick
echo "bench: $(($(date +%s) - start)) s; results in $res/"
[ -z "$failed" ] || { echo "tailcause: bench: failed:$failed" >&2; exit 4; }
