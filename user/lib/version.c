// SPDX-License-Identifier: BSD-2-Clause
/* version.c - the version and the build facts, from the header the build generates. */
#include "build_info.h"
#include "lib/version.h"

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
