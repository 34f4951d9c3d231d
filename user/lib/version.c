// SPDX-License-Identifier: BSD-2-Clause
/*
 * version.c - the version and the build facts. The build force-includes the header it
 * generates (scripts/build-info.sh: TC_BUILD_*) into this file alone.
 */
#include "lib/version.h"

#ifndef TC_BUILD_GIT
#define TC_BUILD_GIT	"unknown"
#define TC_BUILD_CLANG	"unknown"
#define TC_BUILD_CC	"unknown"
#define TC_BUILD_LIBBPF "unknown"
#endif

const char *tc_version(void)
{
	return TAILCAUSE_VERSION " (git " TC_BUILD_GIT ")";
}

const struct tc_build_facts *tc_build_facts(void)
{
	static const struct tc_build_facts facts = {
		.git = TC_BUILD_GIT,
		.clang = TC_BUILD_CLANG,
		.cc = TC_BUILD_CC,
		.libbpf = TC_BUILD_LIBBPF,
	};

	return &facts;
}
