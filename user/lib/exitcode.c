// SPDX-License-Identifier: BSD-2-Clause
/* exitcode.c - from an error to tailcause's exit code. */
#include <errno.h>

#include "exitcode.h"

int tc_exit_code(int err)
{
	switch (-err) {
	case 0:
		return TC_EXIT_OK;
	case TC_ERRNO__USAGE:
		return TC_EXIT_USAGE;
	case TC_ERRNO__ENV:
		return TC_EXIT_ENV;
	case TC_ERRNO__INPUT:
		return TC_EXIT_INPUT;
	case TC_ERRNO__CROSSED:
		return TC_EXIT_THRESHOLD;
	case EPERM: /* privileges */
	case EACCES:
	case ENOENT:	 /* a tracepoint, a kernel function */
	case EOPNOTSUPP: /* a kernel feature */
	case ENOSYS:
	case ESRCH:
	case ENODEV:	   /* no such RDMA device */
	case ENXIO:	   /* no such port or GID */
	case ENETDOWN:	   /* port not PORT_ACTIVE */
	case ENOLCK:	   /* memory registration refused (RLIMIT_MEMLOCK) */
	case ECONNREFUSED: /* peer unreachable */
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ETIMEDOUT:
	case EADDRINUSE: /* the TCP port is taken */
	case EPROTO:	 /* the peer is another version or program */
		return TC_EXIT_ENV;
	default:
		return TC_EXIT_RUNTIME;
	}
}
