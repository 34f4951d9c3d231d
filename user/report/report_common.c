// SPDX-License-Identifier: BSD-2-Clause
/* report_common.c - what the text renderers share beyond the model. */
#include "report_common.h"

void report_wrap(FILE *out, const char *prefix, const char *text, size_t n, size_t width,
		 size_t indent)
{
	size_t col = (size_t)fprintf(out, "%s", prefix);
	const char *p = text, *end = text + n;
	int first = 1;

	while (p < end) {
		const char *sp = p;
		size_t w;

		while (sp < end && *sp != ' ')
			sp++;
		w = (size_t)(sp - p);
		if (!first && col + 1 + w > width) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, w, out);
		col += w;
		first = 0;
		p = sp;
		while (p < end && *p == ' ')
			p++;
	}
	fputc('\n', out);
}
