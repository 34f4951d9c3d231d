// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_trace.c - libFuzzer target for the trace reader: any byte string must
 * decode or be rejected, never crash, hang or leak. Each decoded trace is
 * also sorted and analyzed, the path `tailcause report` takes.
 *
 *   make fuzz                 bounded campaign (FUZZ_RUNS, default 10M) from the fixture traces
 */
#include <stddef.h>
#include <stdint.h>

#include "core/attrib/analyze.h"
#include "core/trace/trace_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct tc_analysis_opts o = {0};
	struct tc_codec_error err;
	struct tc_analysis *a = NULL;
	struct tc_trace *t = trace__new();

	if (!t)
		return 0;
	if (codec_decode(data, len, t, &err) == 0) {
		trace__sort(t);
		if (analysis__run(t, &o, &a) == 0)
			analysis__free(a);
	}
	trace__free(t);
	return 0;
}
