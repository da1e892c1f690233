// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_pgs.c - libFuzzer target: pagesim files (header, blobs, event
 * frames, stats, END; cut detection; task names with every other size)
 * through ps_reader_open(), the machine snapshots they carry through the sysroot parsers, and every
 * event into stat's counters.  Inputs without the magic are left to
 * fuzz_reader.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mm/vmstat.h"
#include "trace/reader.h"
#include "trace/sysroot.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_machine m;
	struct ps_error err;
	struct ps_reader_opts o = { 0 };
	struct ps_reader *r;
	struct ps_fsrc src;
	struct ps_kv kv;

	if (size < 7 || memcmp(data, "PAGESIM", 7))
		return -1;
	/* every other size with task names: the comm table, its cache, each event's task */
	o.flags = size & 1 ? PS_RD_COMM : 0;
	r = ps_reader_open(fuzz_file(data, size), &o, &err);
	if (!r)
		return 0;
	ps_fsrc_reader(&src, r, "before", "fuzz");
	if (ps_sysroot_load_machine_src(&src, &m, &err) < 0)
		fuzz_machine(&m);
	ps_kv_init(&kv);
	ps_sysroot_load_counters_src(&src, &kv, &err);
	ps_kv_free(&kv);
	fuzz_count_events(r, &m, 9);
	return 0;
}
