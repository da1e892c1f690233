// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_reader.c - libFuzzer target: the trace readers through
 * ps_reader_open() (format detection, the naming of what is no trace,
 * zstd, gzip and xz streams, ftrace, trace-cmd report and perf script text;
 * pagesim files and perf.data have their own targets) and every
 * event into stat's counters.  trace.dat inputs are left out: their
 * header is libtracecmd's to parse (most of a second each); pagesim's
 * reading of their data has fuzz_tdat and fuzz_tdat_pages (fuzz_tdat.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mm/vmstat.h"
#include "lib/kver.h"
#include "trace/reader.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_machine m;
	static int ready;
	static const uint8_t tdat[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct ps_reader_opts o = { 0 };
	struct ps_error err;
	struct ps_reader *r;

	if (size >= 7 && !memcmp(data, "PAGESIM", 7))
		return -1;	/* fuzz_pgs */
	if (size >= sizeof(tdat) && !memcmp(data, tdat, sizeof(tdat)))
		return -1;	/* fuzz_tdat */
	if (size >= 8 && !memcmp(data, "PERFILE2", 8))
		return -1;	/* fuzz_perf */
	if (!ready) {
		fuzz_machine(&m);
		ready = 1;
	}
	/* vary the options with the size so that every path is reached */
	if (size % 3 == 1) {
		o.kver = PS_KVER(4, 3, 0);
		o.kver_forced = 1;
	}
	if (size % 4 == 1)
		o.flags |= PS_RD_COMM;
	if (size % 5 == 1)
		o.flags |= PS_RD_STRICT;
	r = ps_reader_open(fuzz_file(data, size), &o, &err);
	if (!r)
		return 0;
	fuzz_count_events(r, &m, ps_reader_pageblock_order(r) >= 0 ? ps_reader_pageblock_order(r) : 9);
	return 0;
}
