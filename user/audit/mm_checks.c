// SPDX-License-Identifier: BSD-2-Clause
/*
 * mm_checks.c - transparent huge pages (enabled, defrag, khugepaged/defrag)
 * and the compaction counters of /proc/vmstat.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_ctx.h"

#define THP "/sys/kernel/mm/transparent_hugepage"

/* The selected mode of a sysfs choice file ("always [madvise] never" -> "madvise"). */
static int selected(const char *line, char *mode, size_t len)
{
	const char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;

	if (!open || !close)
		return -EINVAL;
	snprintf(mode, len, "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}

/* Reads THP/<file>, notes it; the selected mode in mode, or -errno (verdict set). */
static int read_mode(struct audit_ctx *c, struct tc_audit_result *r, const char *file, char *mode,
		     size_t len)
{
	char line[256];
	int err = rootfs_read(c, line, sizeof(line), THP "/%s", file);

	if (!err && selected(line, mode, len))
		err = -EINVAL;
	if (err == -ENOENT) {
		res_note(r, THP "/%s: missing (a kernel without THP has none)", file);
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "THP %s cannot be read", file);
	} else if (err) {
		res_note(r, THP "/%s: %s", file,
			 err == -EINVAL ? "no [selected] mode" : strerror(-err));
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "THP %s cannot be read", file);
	} else {
		res_note(r, THP "/%s = %s", file, line);
	}
	return err;
}

static void check_enabled(struct audit_ctx *c, char *mode, size_t len)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_THP_ENABLED);
	const char *fix = "echo never > " THP "/enabled (at boot: transparent_hugepage=never)";

	mode[0] = 0;
	if (read_mode(c, r, "enabled", mode, len))
		return;
	if (!strcmp(mode, "never"))
		res_verdict(r, TC_AUDIT_OK, "", "THP is off (enabled = never)");
	else if (!strcmp(mode, "always"))
		res_verdict(r, TC_AUDIT_FAIL, fix,
			    "THP enabled = always: any anonymous memory may be compacted and "
			    "collapsed");
	else
		res_verdict(r, TC_AUDIT_WARN, fix,
			    "THP enabled = %s: madvised memory still gets huge pages", mode);
}

static void check_defrag(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_THP_DEFRAG);
	const char *fix = "echo never > " THP "/defrag";
	char mode[32];

	if (read_mode(c, r, "defrag", mode, sizeof(mode)))
		return;
	if (!strcmp(mode, "never"))
		res_verdict(r, TC_AUDIT_OK, "", "THP defrag = never: no compaction at fault time");
	else if (!strcmp(mode, "always"))
		res_verdict(r, TC_AUDIT_FAIL, fix,
			    "THP defrag = always: page faults compact memory synchronously");
	else
		res_verdict(r, TC_AUDIT_WARN, fix, "THP defrag = %s: %s", mode,
			    !strcmp(mode, "defer") ? "kcompactd compacts in the background"
						   : "madvised memory is compacted at fault time");
}

static void check_khugepaged(struct audit_ctx *c, const char *enabled)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_KHUGEPAGED);
	char line[64];
	int err = rootfs_read(c, line, sizeof(line), THP "/khugepaged/defrag");

	if (err) {
		res_note(r, THP "/khugepaged/defrag: %s", strerror(-err));
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "khugepaged/defrag cannot be read");
		return;
	}
	res_note(r, THP "/khugepaged/defrag = %s", line);
	if (!strcmp(line, "0"))
		res_verdict(r, TC_AUDIT_OK, "", "khugepaged does not compact (defrag = 0)");
	else if (!strcmp(enabled, "never"))
		res_verdict(r, TC_AUDIT_OK, "",
			    "khugepaged/defrag = %s, but THP is off: khugepaged has nothing to "
			    "collapse",
			    line);
	else
		res_verdict(r, TC_AUDIT_WARN, "echo 0 > " THP "/khugepaged/defrag",
			    "khugepaged compacts memory to collapse huge pages (defrag = %s)",
			    line);
}

static const char *const counters[] = {
	"compact_stall",   "compact_fail",	 "compact_success",    "compact_daemon_wake",
	"thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc", "thp_collapse_alloc_failed",
};
#define N_COUNTERS (sizeof(counters) / sizeof(counters[0]))

static void check_compaction(struct audit_ctx *c)
{
	struct tc_audit_result *r = audit_res(c, TC_AUDIT_COMPACTION);
	FILE *f = rootfs_fopen(c, "/proc/vmstat");
	uint64_t v[N_COUNTERS] = {0};
	int found[N_COUNTERS] = {0}, any = 0;
	char line[256], name[64], text[512] = "";

	if (!f) {
		res_note(r, "/proc/vmstat: %s", strerror(errno));
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "/proc/vmstat cannot be read");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t val;

		if (sscanf(line, "%63s %" SCNu64, name, &val) != 2)
			continue;
		for (size_t i = 0; i < N_COUNTERS; i++)
			if (!strcmp(name, counters[i])) {
				v[i] = val;
				found[i] = any = 1;
			}
	}
	fclose(f);
	for (size_t i = 0; i < N_COUNTERS; i++)
		if (found[i])
			str_appendf(text, sizeof(text), "%s%s %" PRIu64, text[0] ? ", " : "",
				    counters[i], v[i]);
	if (any)
		res_note(r, "/proc/vmstat (since boot): %s", text);
	if (!any)
		res_verdict(r, TC_AUDIT_UNKNOWN, "", "no compaction counters in /proc/vmstat");
	else if (v[0])
		res_verdict(r, TC_AUDIT_WARN,
			    "turn THP and its defrag off (see thp-enabled, thp-defrag) and keep "
			    "memory headroom so allocations need no compaction",
			    "%" PRIu64 " direct compaction stalls since boot", v[0]);
	else if (v[6])
		res_verdict(r, TC_AUDIT_WARN, "turn THP off (see thp-enabled)",
			    "khugepaged collapsed %" PRIu64 " huge pages since boot", v[6]);
	else
		res_verdict(r, TC_AUDIT_OK, "", "no compaction stall or THP collapse since boot");
}

void mm_checks_run(struct audit_ctx *c)
{
	char enabled[32];

	check_enabled(c, enabled, sizeof(enabled));
	check_defrag(c);
	check_khugepaged(c, enabled);
	check_compaction(c);
}
