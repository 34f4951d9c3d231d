/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mem_source.h - a trace held in memory cut into blocks of up to `per` records, to be
 * handed to the streamed analysis (core/stream/analyze_stream.h's stream_source: each user
 * reads them its way) by the tests that hold it to the whole analysis
 * (test_analyze_stream.c, fuzz/fuzz_stream.c).
 */
#ifndef TAILCAUSE_TESTS_MEM_SOURCE_H
#define TAILCAUSE_TESTS_MEM_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "core/stream/analyze_stream.h"
#include "core/trace/trace_codec.h"

struct mem_src {
	const struct tc_trace *t; /* sorted */
	struct stream_block *b;	  /* room for every block */
	size_t n;
	size_t per;
};

/* The blocks of type holding the total records of m->t, appended to m->b. */
static inline void mem_blocks(struct mem_src *m, uint32_t type, size_t total)
{
	for (size_t i = 0; i * m->per < total; i++) {
		size_t k = total - i * m->per < m->per ? total - i * m->per : m->per;
		uint64_t lo = UINT64_MAX;

		for (size_t j = 0; j < k; j++) {
			uint64_t s = type == TC_BLOCK_SAMPLES
					     ? m->t->samples[i * m->per + j].t_start
					     : m->t->events[i * m->per + j].start_ns;
			lo = s < lo ? s : lo;
		}
		m->b[m->n++] = (struct stream_block){type, i, 0, k, lo};
	}
}

#endif /* TAILCAUSE_TESTS_MEM_SOURCE_H */
