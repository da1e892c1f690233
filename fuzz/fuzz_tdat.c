// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_tdat.c - libFuzzer targets: pagesim's own reading of trace.dat
 * data (trace/tdat_data.c: file header fields, v7 options-section chains,
 * compressed or not, BUFFER options, v6 options and flyrecord tables, zstd
 * chunks, ring-buffer pages and events, the merge by time; trace/tdat.c's
 * record checks and tep_kmem.c's field reads).  The events are checked,
 * not counted: stat's counters get arbitrary events from fuzz_pgs already,
 * and setting them up per input would cost a third of the time.
 *
 * libtracecmd's parsing of the header (event formats, kallsyms, cmdlines)
 * is not pagesim's and takes most of a second: a real trace
 * (testdata/uma-small/trace.dat) is opened once and its handle lends the
 * event formats, buffer names and uname to every input, whose bytes are
 * then read by ps_tdat_open_with() alone.  The CPU count is set to 4.
 *
 *   fuzz_tdat        the input is a whole trace.dat as far as tdat_data.c
 *                    reads it: the header up to the options offset, options
 *                    sections, CPU data (seeds: fuzz/mkseeds-tdat.py).  A v6
 *                    file's options are taken to follow its header at once.
 *   fuzz_tdat_pages  the input is one control byte then ring-buffer pages,
 *                    wrapped into an uncompressed v7 file.  Control bits:
 *                    0-1 CPUs - 1, 2 long size 4 (else 8), 3-4 page size
 *                    4096/1024/256/4096, 5 a TSC2NSEC option, 6 an OFFSET
 *                    option, 7 the buffer is instance "pagesim" (else the
 *                    top level).  The pages are split between the CPUs in
 *                    order, the last one possibly short.
 *
 * FUZZ_TDAT_VERBOSE=1 prints what each input gave (error, event counts), =2 each event too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>

#include "trace/reader-local.h"
#include "trace/tep_kmem.h"
#include "fuzz-util.h"

#ifndef FUZZ_TDAT_TRACE
#error "FUZZ_TDAT_TRACE: the trace.dat whose header the inputs borrow (fuzz/meson.build)"
#endif
#define NCPU 4

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tracecmd_input *handle;
static struct ps_tep_kmem kmem;		/* its kmem event formats, looked up once */
static int verbose;		/* FUZZ_TDAT_VERBOSE */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	tracecmd_set_loglevel(TEP_LOG_NONE);
	handle = tracecmd_open(FUZZ_TDAT_TRACE, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle) {
		fprintf(stderr, "fuzz_tdat: cannot open %s\n", FUZZ_TDAT_TRACE);
		abort();
	}
	tep_set_cpus(tracecmd_get_tep(handle), NCPU);
	if (!ps_tep_kmem_init(&kmem, tracecmd_get_tep(handle)))
		abort();
	verbose = getenv("FUZZ_TDAT_VERBOSE") ? atoi(getenv("FUZZ_TDAT_VERBOSE")) : 0;
	return 0;
}

#ifdef FUZZ_TDAT_PAGES
/* Builds the file around the pages; returns its size. */
static size_t wrap_pages(uint8_t *out, const uint8_t *data, size_t size)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t ctl = size ? data[0] : 0, *p = out, *opts, *sec;
	int ncpu = (ctl & 3) + 1, long_size = ctl & 4 ? 4 : 8;
	static const uint32_t pages[4] = { 4096, 1024, 256, 4096 };
	uint32_t page = pages[ctl >> 3 & 3];
	const char *name = ctl & 0x80 ? "pagesim" : "";
	size_t npages, per, head;
	uint64_t u64;
	uint32_t u32;
	uint16_t u16;

#define PUT(v, n) (memcpy(p, &(v), n), p += n)
#define PUTS(s) (memcpy(p, s, strlen(s) + 1), p += strlen(s) + 1)
	data += !!size;
	size -= !!size;
	npages = (size + page - 1) / page;
	per = (npages + ncpu - 1) / ncpu;
	memcpy(p, magic, sizeof(magic));
	p += sizeof(magic);
	PUTS("7");
	*p++ = 0;
	*p++ = long_size;
	PUT(page, 4);
	PUTS("none");
	PUTS("");
	u64 = p - out + 8;
	PUT(u64, 8);
	/* the options section: header (id DONE, no flags, size set below), then its body */
	sec = p;
	memset(sec, 0, 16);
	p += 16;
	opts = p;
	if (ctl & 0x20) {
		static const uint8_t tsc[16] = { 0x55, 0x55, 0x55, 0x05, 24 };	/* mult, shift, offset */

		u16 = 14;
		u32 = 16;
		PUT(u16, 2);
		PUT(u32, 4);
		PUT(tsc, 16);
	}
	if (ctl & 0x40) {
		u16 = 7;
		u32 = 12;
		PUT(u16, 2);
		PUT(u32, 4);
		memcpy(p, "-1000000000", 12);
		p += 12;
	}
	u16 = 3;
	u32 = 8 + strlen(name) + 1 + 6 + 8 + ncpu * 20;
	PUT(u16, 2);
	PUT(u32, 4);
	head = p - out + u32 + 6 + 8;	/* the flyrecord section header follows DONE */
	u64 = head;
	PUT(u64, 8);
	PUTS(name);
	PUTS("local");
	PUT(page, 4);
	u32 = ncpu;
	PUT(u32, 4);
	for (int c = 0; c < ncpu; c++) {
		uint64_t from = c * per * page, to = (c + 1) * per * page;

		from = from < size ? from : size;
		to = to < size ? to : size;
		u32 = c;
		PUT(u32, 4);
		u64 = head + 16 + from;
		PUT(u64, 8);
		u64 = to - from;
		PUT(u64, 8);
	}
	u16 = 0;	/* DONE: no next section */
	u32 = 8;
	u64 = 0;
	PUT(u16, 2);
	PUT(u32, 4);
	PUT(u64, 8);
	u64 = p - opts;
	memcpy(sec + 8, &u64, 8);
	/* the flyrecord section (id BUFFER, not compressed), then the pages */
	memset(p, 0, 16);
	p[0] = 3;
	u64 = size;
	memcpy(p + 8, &u64, 8);
	p += 16;
	memcpy(p, data, size);
	return p - out + size;
#undef PUT
#undef PUTS
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_reader_opts o = { 0 };
	uint64_t v6_options = 0;
	struct ps_reader *r;
	struct ps_error err;
	struct ps_event ev;
	int fd, ret, n = 0;

#ifdef FUZZ_TDAT_PAGES
	{
		static uint8_t file[(1 << 16) + 4096];

		if (size > (1 << 16))
			return -1;
		fd = fuzz_fd(file, wrap_pages(file, data, size));
	}
#else
	{
		const uint8_t *z = size > 10 ? memchr(data + 10, 0, size - 10) : NULL;

		/* v6: options right after the header (libtracecmd would find them past the formats) */
		if (z)
			v6_options = z + 1 + 6 - data;
		fd = fuzz_fd(data, size);
	}
#endif
	/* vary the options with the size so that every path is reached */
	if (size % 4 == 1)
		o.flags |= PS_RD_COMM;
	if (size % 5 == 1)
		o.flags |= PS_RD_STRICT;
	r = ps_reader_alloc("fuzz.dat", &o);
	if (!r)
		abort();
	if (ps_tdat_open_with(r, fd, handle, &kmem, v6_options, &err) < 0) {
		if (verbose)
			fprintf(stderr, "fuzz_tdat: %s\n", err.msg);
		ps_reader_close(r);
		return 0;
	}
	while ((ret = ps_reader_next(r, &ev, &err)) > 0 && n++ < 1000000) {
		if (!fuzz_event_ok(&ev) || ev.order > PS_MAX_PAGE_ORDER || ev.cpu >= NCPU)
			abort();
		if (verbose > 1)
			fprintf(stderr, "fuzz_tdat: cpu %d ts %llu %s pfn %#llx order %d\n", ev.cpu,
				(unsigned long long)ev.ts_ns, ps_event_names[ev.type],
				(unsigned long long)ev.pfn, ev.order);
	}
	if (verbose) {
		const struct ps_reader_stats *st = ps_reader_stats(r);

		if (ret < 0)
			fprintf(stderr, "fuzz_tdat: %s\n", err.msg);
		fprintf(stderr, "fuzz_tdat: %s, %d events, %llu malformed, %llu other, %llu bad field, %llu lost markers\n",
			ps_reader_format(r), n, (unsigned long long)st->skipped[PS_SKIP_MALFORMED],
			(unsigned long long)st->skipped[PS_SKIP_OTHER_EVENT],
			(unsigned long long)st->skipped[PS_SKIP_BAD_FIELD],
			(unsigned long long)st->lost_markers);
	}
	ps_reader_close(r);
	return 0;
}
