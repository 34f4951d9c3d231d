#!/bin/sh
# Parity with perftest: tailcause's verbs probe against ib_write_lat on the same
# soft-RoCE device (rxe0), in one VM boot (scripts/vmlab), interleaved:
#   ib_write_lat -d rxe0 -n N            server + client over 127.0.0.1
#   tailcause lat --probe verbs -d rxe0 -n N   server + client over 127.0.0.1
# Both send 2-byte RDMA WRITEs; both servers on CPU 0, both clients on CPU 1
# (taskset for perftest, --cpu for tailcause). The client's figures count.
# perftest refuses inline data on rxe ("Device not recognized to implement
# inline feature. Disabling it"), so the parity pair is tailcause -I 0 against
# perftest; tailcause with inline writes (its default) runs too, for contrast.
# Prints each run, then the median of each figure over the rounds and the
# ratio tailcause / perftest (target for t_typical: 0.90-1.10).
#
# Usage: bench/parity.sh BUILD_DIR [-n ITERATIONS] [-r ROUNDS]   (root)
#        bench/parity.sh BUILD_DIR --in-guest N ROUNDS            (what the VM runs)
set -eu

# ----------------------------------------------------------------- guest side
if [ "${2:-}" = --in-guest ]; then
	TC="$1/tailcause" n=$3 rounds=$4
	T=$(mktemp -d)
	listening() {  # listening SERVER_LOG: until the server listens on 18515
		for _ in $(seq 1 120); do
			[ -n "$(ss -Hltn 'sport = :18515')" ] && return 0
			sleep 0.25
		done
		echo "parity: the server did not come up:" >&2
		cat "$1" >&2
		return 1
	}
	row() { awk '/t_typical/ { getline; print $5, $6, $8, $9; exit }' "$1"; }
	perftest() {
		taskset -c 0 timeout 300 ib_write_lat -d rxe0 -n "$n" >"$T/srv" 2>&1 &
		listening "$T/srv" || return 1
		taskset -c 1 timeout 300 ib_write_lat -d rxe0 -n "$n" 127.0.0.1 >"$T/cli" 2>&1
		wait
	}
	tc_lat() {  # tc_lat INLINE_SIZE
		timeout 300 "$TC" lat --probe verbs -d rxe0 -n "$n" -I "$1" --cpu 0,1 >"$T/srv" 2>&1 &
		listening "$T/srv" || return 1
		timeout 300 "$TC" lat --probe verbs -d rxe0 -n "$n" -I "$1" --cpu 1,0 127.0.0.1 \
			>"$T/cli" 2>&1
		wait
	}
	tailcause() { tc_lat 0; }
	tc_inline() { tc_lat 220; }
	echo "guest: $(uname -r), $(nproc) CPUs, clocksource" \
		"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "$rounds rounds of $n iterations, one way (RTT/2), usec"
	printf '%-10s %5s %10s %10s %10s %10s\n' tool round t_typical t_avg p99 p99.9
	# One short run of each first: the first verbs run after boot is slower.
	n0=$n n=$((n / 10 + 100))
	perftest || { cat "$T/cli"; exit 1; }
	echo "perftest: $(grep -m1 'Max inline data' "$T/cli" | sed 's/^ *//')"
	tailcause || { cat "$T/cli"; exit 1; }
	n=$n0
	r=1
	while [ "$r" -le "$rounds" ]; do
		# ABBA order: drift in the VM's speed hits both tools alike.
		if [ $((r % 2)) = 1 ]; then order="perftest tailcause tc_inline"
		else order="tc_inline tailcause perftest"; fi
		for tool in $order; do
			"$tool" || { cat "$T/cli"; exit 1; }
			set -- $(row "$T/cli")
			[ $# = 4 ] || { echo "parity: no statistics from $tool:"; cat "$T/cli"; exit 1; }
			printf '%-10s %5d %10s %10s %10s %10s' "$tool" "$r" "$1" "$2" "$3" "$4"
			# perftest prints "inf" when its cycle counter calibration fails: drop the run.
			case "$1$2$3$4" in
			*[!0-9.]*) echo "  (discarded)" ;;
			*) echo; echo "$tool $1 $2 $3 $4 $r" >>"$T/all" ;;
			esac
		done
		grep -m1 'clock:' "$T/cli" >"$T/clock" 2>/dev/null || :
		r=$((r + 1))
	done
	echo
	echo "tailcause $(cat "$T/clock" 2>/dev/null | sed 's/^ *//')"
	echo
	awk '
		function median(tool, k,   m, i, j, v, t) {
			m = cnt[tool]
			for (i = 1; i <= m; i++) v[i] = val[tool, k, i]
			return med(v, m)
		}
		function med(v, m,   i, j, t) {
			for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
			return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
		}
		function low(tool, k,   i, b) {
			b = val[tool, k, 1]
			for (i = 2; i <= cnt[tool]; i++) if (val[tool, k, i] < b) b = val[tool, k, i]
			return b
		}
		{ c = ++cnt[$1]; for (k = 2; k <= 5; k++) val[$1, k, c] = $k; typ[$1, $6] = $2
		  if ($6 > rounds) rounds = $6 }
		END {
			split("t_typical t_avg p99 p99.9", name, " ")
			printf "| %-16s | %9s | %14s | %7s | %16s |\n", "median of rounds", "perftest",
				"tailcause -I 0", "ratio", "tailcause inline"
			printf "| %-16s | %9s | %14s | %7s | %16s |\n", "---", "---:", "---:", "---:",
				"---:"
			for (k = 2; k <= 5; k++) {
				p = median("perftest", k); q = median("tailcause", k)
				r = p > 0 ? q / p : 0
				printf "| %-16s | %9.2f | %14.2f | %7.3f | %16.2f |\n", name[k - 1], p, q, r,
					median("tc_inline", k)
			}
			p = low("perftest", 2); q = low("tailcause", 2)
			r = p > 0 ? q / p : 0
			printf "| %-16s | %9.2f | %14.2f | %7.3f | %16.2f |\n", "t_typical, best", p, q,
				r, low("tc_inline", 2)
			# Paired: each round ran both tools back to back, so the VM speed of the moment cancels.
			m = 0
			for (i = 1; i <= rounds; i++)
				if (typ["perftest", i] > 0 && typ["tailcause", i] > 0)
					pr[++m] = typ["tailcause", i] / typ["perftest", i]
			ratio = med(pr, m)
			verdict = ratio >= 0.9 && ratio <= 1.1 ? "within" : "OUTSIDE"
			printf "\nt_typical, median of the %d per-round ratios tailcause/perftest: %.3f (%s the +-10%% target)\n", m, ratio, verdict
		}' "$T/all"
	rm -rf "$T"
	exit 0
fi

# ------------------------------------------------------------------ host side
O=$(cd "${1:-build}" && pwd)
shift || :
n=20000 rounds=5
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift ;;
	-r) rounds=$2; shift ;;
	*) echo "usage: bench/parity.sh BUILD_DIR [-n ITERATIONS] [-r ROUNDS]" >&2; exit 1 ;;
	esac
	shift
done
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "tailcause: bench-parity: needs root (scripts/vmlab)" >&2; exit 2; }
[ -x "$O/tailcause" ] || { echo "tailcause: bench-parity: $O/tailcause not built" >&2; exit 2; }
shares="--share $top"
case "$O" in "$top"/*) ;; *) shares="$shares --share $O" ;; esac
echo "parity: $(date -u '+%Y-%m-%d %H:%M UTC'), host $(uname -n): $(nproc) CPUs," \
	"$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
# shellcheck disable=SC2086
exec bash "$top/scripts/vmlab" run $shares --timeout 1200 -- \
	sh "$top/bench/parity.sh" "$O" --in-guest "$n" "$rounds"
