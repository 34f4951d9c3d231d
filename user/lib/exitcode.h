/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exitcode.h - tailcause's exit codes (docs/design.md, "Errors and exit codes"), and the
 * error classes that an errno alone cannot tell.
 *
 * Every layer returns 0 or a negative errno, having reported the failure in one line
 * where it was found; main() (user/tailcause.c) turns what a command returned into
 * the exit code, with tc_exit_code(). Where the errno does not say which class a
 * failure is of (a file that does not parse is bad input, whatever the codec's errno;
 * a command line that does not parse is a usage error), the layer that knows returns
 * one of the TC_ERRNO__* codes instead, negated like an errno: they lie past errno's
 * range, as libbpf's LIBBPF_ERRNO__* codes do.
 */
#ifndef TAILCAUSE_LIB_EXITCODE_H
#define TAILCAUSE_LIB_EXITCODE_H

#include <errno.h>

enum tc_exit {
	TC_EXIT_OK = 0,
	TC_EXIT_USAGE = 1,     /* bad command line */
	TC_EXIT_ENV = 2,       /* not root, no BTF, tracepoint or device missing */
	TC_EXIT_INPUT = 3,     /* bad input file */
	TC_EXIT_RUNTIME = 4,   /* anything that failed while running */
	TC_EXIT_THRESHOLD = 5, /* a check or a user-set threshold crossed */
};

enum tc_errno {
	TC_ERRNO__START = 4000,
	TC_ERRNO__USAGE = TC_ERRNO__START, /* the command line (exit 1) */
	TC_ERRNO__ENV,			   /* what this host lacks (exit 2) */
	TC_ERRNO__INPUT,		   /* an input file (exit 3) */
	TC_ERRNO__CROSSED,		   /* a check or a threshold crossed (exit 5) */
	TC_ERRNO__END,
};

/*
 * The exit code of err (0, a negative errno or -TC_ERRNO__*): a TC_ERRNO__ code its
 * own; the errnos of a missing privilege, kernel feature, device, port or peer
 * environment (2); any other errno a runtime failure (4).
 */
int tc_exit_code(int err);

/* What a failed read of an input file returns: -ENOMEM as it is, any other failure
 * -TC_ERRNO__INPUT (exit 3). err is a negative errno. */
static inline int tc_input_error(int err)
{
	return err == -ENOMEM ? err : -TC_ERRNO__INPUT;
}

#endif /* TAILCAUSE_LIB_EXITCODE_H */
