/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli.h - command-line plumbing shared by the subcommands: value parsers and getopt's
 * errors that report bad input in one line, privilege checks, stop signals, the commands.
 */
#ifndef TAILCAUSE_CMD_CLI_H
#define TAILCAUSE_CMD_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "cli_opts.h"
#include "lib/exitcode.h"

struct tc_spike_rule;

/* Each parser reports "<option>: <why>" and returns -EINVAL on bad input. */

/* A count: digits with an optional k/M/G suffix (x1000); min..max inclusive. */
int cli_parse_count(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A size in bytes: digits with an optional K/M/G suffix (x1024). */
int cli_parse_size(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A duration: digits with an optional ms/s/m/h suffix (seconds by default), into ns. */
int cli_parse_duration(const char *opt, const char *s, uint64_t min_s, uint64_t max_s,
		       uint64_t *out_ns);
/* Two CPU numbers "A,B" (distinct, >= 0). */
int cli_parse_cpu_pair(const char *opt, const char *s, int cpu[2]);
/* A name (a file, a device, a pattern): anything but empty ("<option>: empty <what>"). */
int cli_parse_name(const char *opt, const char *s, const char *what, const char **out);
/* --spike's rule (default, p99.9, 20us, 3x: spike_rule_parse()). */
int cli_parse_spike(const char *s, struct tc_spike_rule *out);

/*
 * What getopt_long() (opterr = 0) returned '?' for, in argv[0]'s name: an option of
 * longopts given without its value or with one it takes none of, as it was written, or
 * one the command does not know. Returns -EINVAL.
 */
int cli_option_error(char **argv, const struct option *longopts);

/* Whether the process may load and attach BPF tracing programs (root, or CAP_BPF +
 * CAP_PERFMON); when not, describes what is missing into why. */
int cli_can_trace(char *why, size_t len);

/* SIGINT and SIGTERM request a stop (lib/stop.h) instead of killing: the run ends cleanly. */
void cli_stop_on_signals(void);

/* The command line as one string, for the trace's meta data; static storage. */
const char *cli_command_line(int argc, char **argv);

/*
 * Subcommands: each returns 0, a negative errno or -TC_ERRNO__* (lib/exitcode.h), the
 * failure already reported; main() makes it the exit code.
 */
int cmd_lat(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_probes(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_rank(int argc, char **argv);

/* Each command's options: what it parses, its --help lists, 'tailcause help-options CMD' prints. */
extern const struct cli_opts cmd_lat_opts, cmd_record_opts, cmd_run_opts, cmd_report_opts,
	cmd_top_opts, cmd_probes_opts, cmd_audit_opts, cmd_dump_opts, cmd_diff_opts, cmd_rank_opts;

#endif /* TAILCAUSE_CMD_CLI_H */
