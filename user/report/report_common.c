// SPDX-License-Identifier: BSD-2-Clause
/* report_common.c - what the text renderers share beyond the model: its words for what the
 * model holds as data. */
#include <string.h>

#include "lib/str.h"
#include "core/attrib/calibrate.h"
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

void report_unexplained_words(const struct report_model *m, const struct tc_spike *sp, char *buf,
			      size_t len)
{
	const struct tc_analysis *a = m->a;

	switch (sp->unexplained) {
	case TC_UNEXPLAINED_LITTLE:
		snprintf(buf, len, "the events that overlap it explain under half of its excess");
		break;
	case TC_UNEXPLAINED_UNTRACED:
		snprintf(buf, len,
			 "no OS event overlaps it, but not hw-noise: tracing was incomplete "
			 "(not traced: %s)",
			 a->coverage_missing[0] ? a->coverage_missing : "?");
		break;
	case TC_UNEXPLAINED_LOST:
		snprintf(buf, len,
			 "no OS event overlaps it, but not hw-noise: records were lost "
			 "in its window");
		break;
	case TC_UNEXPLAINED_CLOCK:
		snprintf(buf, len,
			 "smaller than the two hosts' clock uncertainty (+-%.3f usec): the peer's "
			 "intervals cannot be placed in it",
			 (double)m->t->peer.uncertainty_ns / 1e3);
		break;
	default:
		buf[0] = 0;
	}
}

void report_hw_noise_sentence(const struct report_model *m, const struct tc_spike *sp, char *buf,
			      size_t len)
{
	const struct tc_calib_kind *tick = calibrate_kind(&m->h.cal, TC_EV_TIMER);
	const char *hv = m->h.hypervisor;

	if (!sp->stall_ns || !tick) {
		snprintf(buf, len, "no OS event on the probe CPUs; %s", causes_hw_noise_what(hv));
		if (m->h.cal.exit_floor_ns)
			str_appendf(buf, len,
				    " (enough for one: the cheapest, a cpuid, costs "
				    "%.3f usec here)",
				    (double)m->h.cal.exit_floor_ns / 1000.0);
		return;
	}
	snprintf(buf, len,
		 "timer interrupts spent that much longer in their own code (their span less "
		 "their callbacks) than a whole tick takes here (up to %.3f usec, calibrated): the "
		 "CPU was held in the handler from outside%s",
		 (double)tick->traced_p90_ns / 1000.0,
		 hv && !strcmp(hv, "none") ? "; on bare metal, an SMI or firmware"
		 : hv ? "; on this VM, the hypervisor, not accounting it as steal"
		      : "");
}

int report_chain_next(const struct report_model *m, const struct tc_spike *sp, size_t *pos,
		      uint32_t *depth, char *buf, size_t len)
{
	const struct tc_analysis *a = m->a;

	for (; *pos < sp->n_contrib; (*pos)++) {
		const struct tc_contrib *k = &a->contribs[sp->first_contrib + *pos];
		const struct tc_event *e = &m->t->events[k->event];
		char comm[TC_COMM_TEXT_LEN];

		if (e->kind != TC_EV_WAKEUP || !k->chain)
			continue;
		*depth = k->chain;
		snprintf(buf, len, "%s (pid %u, tid %u), which woke tid %u from cpu %u",
			 e->other_comm[0] ? causes_comm(e, comm, sizeof(comm)) : "?", e->arg,
			 e->other_pid, e->tid, e->cpu);
		(*pos)++;
		return 1;
	}
	return 0;
}

void report_cpu_variance_sentence(const struct report_model *m, const struct tc_spike *sp,
				  char *buf, size_t len)
{
	snprintf(buf, len,
		 "no OS event on the probe CPUs, and %.3f usec lost in all (not halved), less "
		 "than the cheapest exit to the hypervisor (a cpuid, %.3f usec here): within the "
		 "CPU's own variance (caches, memory, a cache line's trip between cores), no fix "
		 "to chase",
		 (double)sp->variance_ns / 1000.0, (double)m->h.cal.exit_floor_ns / 1000.0);
}
