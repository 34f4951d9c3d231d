/* SPDX-License-Identifier: BSD-2-Clause */
/* describe.h - the words for a trace's records: kind names, one line per event. */
#ifndef TAILCAUSE_CORE_DESCRIBE_H
#define TAILCAUSE_CORE_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

/* "offcpu", "hardirq", ... ("lost" for the recorder's lost windows); "unknown" otherwise. */
const char *describe_kind(uint16_t kind);

/* One line on what e is ("tid 12 left cpu 3, preempted; cc1 (pid 9) ran next"), into buf. */
void describe_event(const struct tc_trace *t, const struct tc_event *e, char *buf, size_t len);

struct tc_contrib;

/* Why an interval's credit in a spike is not its own ("nested: counted in its parent",
 * a join's words), or NULL where it is. */
const char *describe_mark(const struct tc_contrib *k);
/* The wait-chain mark of k's interval (wait_chain.h), or NULL where it is not the chain's:
 * "the waker's, while the timing thread waited on it". */
const char *describe_chain_mark(const struct tc_trace *t, const struct tc_contrib *k);

#endif /* TAILCAUSE_CORE_DESCRIBE_H */
