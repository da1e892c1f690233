// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/error.h"

int ps_err(struct ps_error *err, const char *fmt, ...)
{
	char buf[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return -1;
	/* through a copy: callers prefix err->msg itself (ps_err(err, "%s: ...", err->msg)) */
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(err->msg, buf, sizeof(buf));
	return -1;
}
