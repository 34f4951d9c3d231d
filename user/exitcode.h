/* SPDX-License-Identifier: BSD-2-Clause */
/* exitcode.h - tailcause's exit codes (DESIGN.md, "Errors and exit codes"). */
#ifndef TAILCAUSE_EXITCODE_H
#define TAILCAUSE_EXITCODE_H

enum tc_exit {
	TC_EXIT_OK = 0,
	TC_EXIT_USAGE = 1,	/* bad command line */
	TC_EXIT_ENV = 2,	/* not root, no BTF, tracepoint or device missing */
	TC_EXIT_INPUT = 3,	/* bad input file */
	TC_EXIT_RUNTIME = 4,	/* anything that failed while running */
	TC_EXIT_THRESHOLD = 5,	/* a check or a user-set threshold crossed */
};

/* Maps a negative errno from recording to ENV (privileges, kernel features) or RUNTIME. */
int exit_for_record_error(int err);

#endif /* TAILCAUSE_EXITCODE_H */
