/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sniff.h - names what a file is when it is no trace pagesim reads, from
 * its first bytes (after any decompression), so that the refusal says
 * "this is a PNG image" rather than counting its lines as damaged text.
 */
#ifndef PS_SNIFF_H
#define PS_SNIFF_H

#include <stddef.h>
#include <stdint.h>

/* What pagesim reads, for messages. */
#define PS_TRACE_FORMATS \
	"ftrace text, trace-cmd report text, a trace.dat, a perf.data, perf script text or a pagesim file"

struct ps_sniff {
	char what[96];		/* "a PNG image", "bzip2 data", "an ELF executable" */
	const char *todo;	/* what to do instead */
};

/*
 * Fills @out and returns 1 when @head (the first @n bytes, up to 4096) is a
 * known format pagesim does not read, or binary data of no known format;
 * returns 0 for anything that may be text.
 */
int ps_sniff_foreign(const uint8_t *head, size_t n, struct ps_sniff *out);

#endif
