// SPDX-License-Identifier: BSD-2-Clause
/* cli.c - value parsers and getopt's errors in one line each, privilege checks, stop signals. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "core/attrib/analyze.h"
#include "lib/log.h"
#include "lib/stop.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static int parse_scaled(const char *opt, const char *s, uint64_t unit, uint64_t min, uint64_t max,
			uint64_t *out)
{
	uint64_t mul = 1, v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') {
		log_err("%s: expected a number, got '%s'", opt, s ? s : "");
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s) {
		log_err("%s: expected a number, got '%s'", opt, s);
		return -EINVAL;
	}
	switch (*end) {
	case 'k':
	case 'K':
		mul = unit;
		end++;
		break;
	case 'm':
	case 'M':
		mul = unit * unit;
		end++;
		break;
	case 'g':
	case 'G':
		mul = unit * unit * unit;
		end++;
		break;
	default:
		break;
	}
	if (*end) {
		log_err("%s: unexpected '%s' after the number in '%s'", opt, end, s);
		return -EINVAL;
	}
	if (v > UINT64_MAX / mul || v * mul < min || v * mul > max) {
		log_err("%s: '%s' is out of range (%llu..%llu)", opt, s, (unsigned long long)min,
			(unsigned long long)max);
		return -EINVAL;
	}
	*out = v * mul;
	return 0;
}

int cli_parse_count(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return parse_scaled(opt, s, 1000, min, max, out);
}

int cli_parse_size(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return parse_scaled(opt, s, 1024, min, max, out);
}

int cli_parse_duration(const char *opt, const char *s, uint64_t min_s, uint64_t max_s,
		       uint64_t *out_ns)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {{"ms", 1000000ull},
		     {"s", 1000000000ull},
		     {"m", 60000000000ull},
		     {"h", 3600000000000ull}};
	uint64_t unit = 1000000000ull, v;
	size_t len = strlen(s);
	char num[32];

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].suffix);

		if (len > n && !strcmp(s + len - n, units[i].suffix)) {
			unit = units[i].ns;
			len -= n;
			break;
		}
	}
	if (!len || len >= sizeof(num)) {
		log_err("%s: expected a duration such as 30, 90s, 500ms, 30m or 2h, got '%s'", opt,
			s);
		return -EINVAL;
	}
	snprintf(num, sizeof(num), "%.*s", (int)len, s);
	if (parse_scaled(opt, num, 1, 0, UINT32_MAX, &v))
		return -EINVAL;
	if (v > max_s * 1000000000ull / unit || v * unit < min_s * 1000000000ull) {
		log_err("%s: %s is outside %llu s .. %llu s", opt, s, (unsigned long long)min_s,
			(unsigned long long)max_s);
		return -EINVAL;
	}
	*out_ns = v * unit;
	return 0;
}

int cli_parse_cpu_pair(const char *opt, const char *s, int cpu[2])
{
	const char *comma = strchr(s, ',');
	uint64_t v[2];
	char first[32];

	if (!comma || (size_t)(comma - s) >= sizeof(first)) {
		log_err("%s: expected two CPUs as A,B (e.g. --cpu 2,3), got '%s'", opt, s);
		return -EINVAL;
	}
	snprintf(first, sizeof(first), "%.*s", (int)(comma - s), s);
	if (parse_scaled(opt, first, 1, 0, 4095, &v[0]) ||
	    parse_scaled(opt, comma + 1, 1, 0, 4095, &v[1]))
		return -EINVAL;
	if (v[0] == v[1]) {
		log_err("%s: the two sides need two different CPUs, got '%s'", opt, s);
		return -EINVAL;
	}
	cpu[0] = (int)v[0];
	cpu[1] = (int)v[1];
	return 0;
}

int cli_parse_name(const char *opt, const char *s, const char *what, const char **out)
{
	if (!*s) {
		log_err("%s: empty %s", opt, what);
		return -EINVAL;
	}
	*out = s;
	return 0;
}

int cli_parse_spike(const char *s, struct tc_spike_rule *out)
{
	if (spike_rule_parse(s, out)) {
		log_err("--spike: '%s' is not a rule (default, p99.9, 20us, 3x)", s);
		return -EINVAL;
	}
	return 0;
}

int cli_option_error(char **argv, const struct option *longopts)
{
	const char *arg = argv[optind - 1];

	for (const struct option *l = longopts; optopt && l->name; l++) {
		if (l->val != optopt)
			continue;
		if (arg[1] != '-') /* a short option fails only for want of its value */
			log_err("%s: option -%c needs a value", argv[0], optopt);
		else
			log_err("%s: option --%s %s", argv[0], l->name,
				l->has_arg ? "needs a value" : "takes no value");
		return -EINVAL;
	}
	if (optopt) /* a short one, perhaps among others in one word */
		log_err("%s: unknown option '-%c' (see tailcause %s --help)", argv[0], optopt,
			argv[0]);
	else
		log_err("%s: unknown option '%s' (see tailcause %s --help)", argv[0], arg, argv[0]);
	return -EINVAL;
}

int cli_can_trace(char *why, size_t len)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {0};
	int has_admin, has_bpf, has_perfmon;

	if (syscall(SYS_capget, &hdr, data)) {
		snprintf(why, len, "cannot read capabilities: %s", strerror(errno));
		return 0;
	}
#define HAS(cap) (!!(data[(cap) / 32].effective & (1u << ((cap) % 32))))
	has_admin = HAS(CAP_SYS_ADMIN);
	has_bpf = HAS(CAP_BPF);
	has_perfmon = HAS(CAP_PERFMON);
#undef HAS
	if (has_admin || (has_bpf && has_perfmon))
		return 1;
	snprintf(why, len, "needs root, or CAP_BPF and CAP_PERFMON (missing:%s%s)",
		 has_bpf ? "" : " CAP_BPF", has_perfmon ? "" : " CAP_PERFMON");
	return 0;
}

const char *cli_command_line(int argc, char **argv)
{
	static char buf[512];
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < argc && off < sizeof(buf) - 1; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? " " : "",
					argv[i]);
	return buf;
}

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_request();
}

void cli_stop_on_signals(void)
{
	struct sigaction sa = {.sa_handler = on_stop_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
