// SPDX-License-Identifier: GPL-2.0-or-later
/* pgs_read.c - pagesim's own trace files (see docs/pagesim-format.md). */
#include "reader-local.h"

int ps_pgs_open(struct ps_reader *r, struct ps_error *err)
{
	return ps_err(err, "%s: pagesim trace files are not readable by this build yet", r->path);
}
