// SPDX-License-Identifier: BSD-2-Clause
/* stop.c - the stop flag a signal handler sets. */
#include <signal.h>

#include "stop.h"

static volatile sig_atomic_t requested;

void stop_request(void)
{
	requested = 1;
}

int stop_requested(void)
{
	return requested;
}
