/* SPDX-License-Identifier: BSD-2-Clause */
/* version.h - which tailcause this is: the release, and the build it came from. */
#ifndef TAILCAUSE_LIB_VERSION_H
#define TAILCAUSE_LIB_VERSION_H

#ifndef TAILCAUSE_VERSION
#define TAILCAUSE_VERSION "0.1.0"
#endif

/* "0.1.0 (git v0.1.0-12-g1a2b3c4)": what every trace records as the version that wrote it. */
const char *tc_version(void);

/* What the build was made with, in words: the compilers and the libbpf it was built against. */
struct tc_build_facts {
	const char *git;    /* git describe of the sources, or "not from git" */
	const char *clang;  /* the clang that compiled the BPF programs */
	const char *cc;	    /* the compiler of the rest */
	const char *libbpf; /* the libbpf it was built against */
};
const struct tc_build_facts *tc_build_facts(void);

#endif /* TAILCAUSE_LIB_VERSION_H */
