// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_perf.c - libFuzzer target: pagesim's reading of perf.data (the
 * file header, attributes and sample ids, the feature sections, the
 * layout of the tracing data and the check of each event format, the
 * records of a file or of a pipe, compressed records, the ordering by
 * FINISHED_ROUND, task names, losses; tep_kmem.c's field reads).  The
 * events are checked, not counted: fuzz_pgs feeds stat's counters
 * arbitrary events already.
 *
 * libtraceevent's parsing of the formats themselves is not pagesim's (and
 * crashes on some damaged ones that pass pagesim's check): the formats of
 * a real recording (testdata/perf/kmem.data.zst) are parsed once and lent
 * to every input, whose own tracing data is still walked and checked
 * (ps_perf_open_with()).  FUZZ_PERF_OWN_FORMATS=1 parses each input's own
 * formats instead, libtraceevent included.  Inputs that do not start with
 * perf's magic are left to fuzz_reader.  Seeds: fuzz/mkseeds-perf.py cuts
 * them from testdata/perf.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <zstd.h>

#include "trace/perf_tracing.h"
#include "trace/reader-local.h"
#include "fuzz-util.h"

#ifndef FUZZ_PERF_TRACE
#error "FUZZ_PERF_TRACE: the zstd-compressed perf.data whose event formats the inputs borrow (fuzz/meson.build)"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tep_handle *tep;
static int own_formats;		/* FUZZ_PERF_OWN_FORMATS */

/* The tracing data (feature 1) of the perf.data in @b, parsed. */
static struct tep_handle *formats_of(const uint8_t *b, size_t n)
{
	uint64_t data_off, data_size, off, size;
	struct ps_error err;
	struct tep_handle *t;

	if (n < 104 || memcmp(b, "PERFILE2", 8) || !(b[72] & 2))
		return NULL;
	memcpy(&data_off, b + 40, 8);
	memcpy(&data_size, b + 48, 8);
	/* feature 1 is the first bit set past the reserved bit 0: the first section */
	if (data_off + data_size + 16 > n)
		return NULL;
	memcpy(&off, b + data_off + data_size, 8);
	memcpy(&size, b + data_off + data_size + 8, 8);
	if (off > n || size > n - off)
		return NULL;
	t = ps_perf_tracing_parse(b + off, size, FUZZ_PERF_TRACE, NULL, &err);
	if (!t)
		fprintf(stderr, "fuzz_perf: %s\n", err.msg);
	return t;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *f = fopen(FUZZ_PERF_TRACE, "rb");
	static uint8_t z[1 << 20];
	size_t zn, cap;
	unsigned long long n;
	uint8_t *b;

	if (!f) {
		fprintf(stderr, "fuzz_perf: cannot open %s\n", FUZZ_PERF_TRACE);
		abort();
	}
	zn = fread(z, 1, sizeof(z), f);
	fclose(f);
	n = ZSTD_getFrameContentSize(z, zn);
	cap = n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR ? 64u << 20 : n;
	b = malloc(cap);
	if (!b)
		abort();
	n = ZSTD_decompress(b, cap, z, zn);
	if (ZSTD_isError(n))
		abort();
	tep = formats_of(b, n);
	free(b);
	if (!tep)
		abort();
	own_formats = getenv("FUZZ_PERF_OWN_FORMATS") && atoi(getenv("FUZZ_PERF_OWN_FORMATS"));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_reader_opts o = { 0 };
	const struct ps_reader_stats *s;
	struct ps_error err;
	struct ps_reader *r;
	struct ps_event ev;
	uint64_t hsize;
	int n = 0, ret, fd = -1;

	if (size < 16 || memcmp(data, "PERFILE2", 8))
		return -1;
	/* vary the options with the size so that every path is reached */
	if (size % 2)
		o.flags |= PS_RD_COMM;
	if (size % 5 == 1)
		o.flags |= PS_RD_STRICT;
	r = ps_reader_alloc("fuzz.data", &o);
	if (!r)
		abort();
	/* as reader.c does: a pipe's perf.data is read in order from a stream, a file's at offsets */
	memcpy(&hsize, data + 8, 8);
	if (hsize == 16) {
		r->stream = ps_stream_open(fuzz_file(data, size), &err);
		if (!r->stream)
			abort();
	} else {
		fd = dup(fuzz_fd(data, size));
		if (fd < 0)
			abort();
	}
	if (ps_perf_open_with(r, fd, own_formats ? NULL : tep, &err) < 0) {
		ps_reader_close(r);
		return 0;
	}
	while ((ret = ps_reader_next(r, &ev, &err)) > 0 && n++ < 1000000)
		if (!fuzz_event_ok(&ev) || ev.order > PS_MAX_PAGE_ORDER || ev.cpu >= PS_READER_MAX_CPUS ||
		    (ev.comm && strnlen(ev.comm, 16) > 15))
			abort();
	s = ps_reader_stats(r);
	if (s->lost_unknown > s->lost_markers)
		abort();
	ps_reader_close(r);
	return 0;
}
