/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stop.h - the process-wide request to end a run early (SIGINT, SIGTERM): the
 * probes check it in their loops, the recorder forwards it to a traced command.
 */
#ifndef TAILCAUSE_LIB_STOP_H
#define TAILCAUSE_LIB_STOP_H

/* Asks whatever runs to end early; async-signal-safe. */
void stop_request(void);
/* Whether a stop was requested. */
int stop_requested(void);

#endif /* TAILCAUSE_LIB_STOP_H */
