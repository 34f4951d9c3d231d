// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_json.c - libFuzzer target for the JSON reader and the report reader of diff
 * and rank: any byte string must parse or be refused, and a parsed one read as a
 * report or refused, never crash, hang or leak; two that read are also compared.
 *
 *   make fuzz                 runs it after fuzz_trace, seeded by the golden JSON reports
 */
#include <stddef.h>
#include <stdint.h>

#include "core/compare/diff.h"
#include "core/compare/json_in.h"
#include "core/compare/rank.h"
#include "core/compare/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct jv *root = NULL;
	struct summary s[2];
	char why[256];

	if (jv_parse((const char *)data, len, &root, NULL))
		return 0;
	if (!summary_from_json(&s[0], root, why, sizeof(why))) {
		struct diff_opts o = {.resamples = 20, .seed = 1};
		struct diff *d = NULL;
		struct rank *r = NULL;

		s[1] = s[0];
		if (!diff__run(&s[0], &s[1], &o, &d))
			diff__free(d);
		if (!rank__run(s, 2, SM_P999, &r))
			rank__free(r);
		summary__free(&s[0]);
	}
	jv__free(root);
	return 0;
}
