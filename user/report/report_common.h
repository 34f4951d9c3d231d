/* SPDX-License-Identifier: BSD-2-Clause */
/* report_common.h - what the renderers share beyond the model: units. */
#ifndef TAILCAUSE_REPORT_REPORT_COMMON_H
#define TAILCAUSE_REPORT_REPORT_COMMON_H

#include "core/describe.h"
#include "core/report_model.h"

#define NS_US(ns) ((double)(ns) / 1000.0)

#endif /* TAILCAUSE_REPORT_REPORT_COMMON_H */
