/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef TAILCAUSE_VERSION
#define TAILCAUSE_VERSION "0.1.0"
#endif
