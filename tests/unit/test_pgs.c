// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_pgs.c - pagesim files: every field of every event type round-trips
 * (edge values: no pfn, huge pfns, time going backwards, cpus past the
 * predictor state, odd migratetypes and flags), across several frames;
 * snapshots and header values come back; a file cut anywhere reads up to
 * its last whole frame and says it was cut.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../trace/kver.h"
#include "../../trace/pgs.h"
#include "../../trace/reader.h"
#include "check.h"

#define NR_RANDOM 150000	/* three frames */

static uint64_t seed = 88172645463325252ull;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* A plausible event from the readers: defaults outside the event's own fields. */
static void plain(struct ps_event *e, int type, uint64_t ts, int cpu, int pid, uint64_t pfn)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->ts_ns = ts;
	e->cpu = cpu;
	e->pid = pid;
	e->pfn = pfn;
	e->migratetype = PS_MT_UNKNOWN;
	e->alloc_migratetype = e->fallback_migratetype = PS_MT_UNKNOWN;
}

static int nr_events;
static struct ps_event *events;

static void add(const struct ps_event *e)
{
	events[nr_events++] = *e;
}

static void make_events(void)
{
	struct ps_event e;
	uint64_t ts = 1000;

	events = calloc(NR_RANDOM + 100, sizeof(*events));
	/* edge values */
	plain(&e, PS_EV_ALLOC, 5, 0, -1, PS_PFN_NONE);
	e.gfp = PS_GFP_UNKNOWN | PS_GFP_THISNODE;
	e.order = 10;
	e.migratetype = PS_MT_MOVABLE;
	add(&e);
	plain(&e, PS_EV_ALLOC, UINT64_MAX, 1023, INT32_MAX, PS_PFN_NONE - 1);
	e.gfp = 0xffffffffu;
	add(&e);
	plain(&e, PS_EV_FREE, 0, 1024, INT32_MIN, 0);	/* time backwards to 0, cpu past the state */
	e.order = 255;
	add(&e);
	plain(&e, PS_EV_FREE, 3, 65535, 7, 1ull << 63);
	add(&e);
	plain(&e, PS_EV_FREE_BATCHED, 2, 1024, 7, 1);	/* backwards again, same big cpu */
	add(&e);
	plain(&e, PS_EV_ZONE_LOCKED, 1ull << 62, 1, 0, 0x217ea7);
	e.migratetype = PS_MT_RESERVE;
	e.percpu_refill = 1;
	e.flags = PS_EVF_PCPU_REFILL_KNOWN;
	add(&e);
	plain(&e, PS_EV_ZONE_LOCKED, 1ull << 62, 1, 0, 0x217ea7);
	e.migratetype = -128;	/* does not fit the compact form */
	e.percpu_refill = 255;
	e.flags = 0xff;
	add(&e);
	plain(&e, PS_EV_PCPU_DRAIN, 10, 2, 99, 0x217ea8);
	e.migratetype = PS_MT_HIGHATOMIC;
	e.order = 3;
	add(&e);
	plain(&e, PS_EV_EXTFRAG, 11, 2, 99, 0x100000);
	e.order = e.alloc_order = 9;
	e.fallback_order = 10;
	e.alloc_migratetype = PS_MT_UNMOVABLE;
	e.fallback_migratetype = PS_MT_MOVABLE;
	e.change_ownership = 1;
	add(&e);
	plain(&e, PS_EV_EXTFRAG, 12, 2, 99, 0x100000);
	e.alloc_migratetype = 127;
	e.fallback_migratetype = -128;
	e.change_ownership = 200;
	add(&e);
	plain(&e, PS_EV_FREE, 13, 3, 5, 42);	/* extfrag fields on another type: kept */
	e.alloc_order = 4;
	e.gfp = 17;
	add(&e);
	/* a realistic-looking mix, time sometimes going backwards across CPUs */
	for (int i = 0; i < NR_RANDOM; i++) {
		uint64_t x = rnd();
		int type = x % PS_EV_NR;

		ts += (x >> 8) % 5000;
		plain(&e, type, (x & 0x100000) ? ts - (x >> 40) % 3000 : ts, (x >> 20) % 4, 1000 + (x >> 24) % 5,
		      type == PS_EV_ALLOC && (x >> 30) % 100 == 0 ? PS_PFN_NONE : 0x100000 + (rnd() % (1u << 22)));
		if (type != PS_EV_FREE_BATCHED && type != PS_EV_EXTFRAG)
			e.order = (x >> 33) % 4 == 0 ? (x >> 35) % 11 : 0;
		if (type == PS_EV_ALLOC) {
			e.gfp = (uint32_t)rnd() & 0x00ffffffu;
			e.migratetype = (x >> 37) % 3;
		}
		if (type == PS_EV_ZONE_LOCKED || type == PS_EV_PCPU_DRAIN)
			e.migratetype = (x >> 37) % 6;
		if (type == PS_EV_ZONE_LOCKED) {
			e.percpu_refill = e.order == 0;
			e.flags = PS_EVF_PCPU_REFILL_KNOWN;
		}
		if (type == PS_EV_EXTFRAG) {
			e.order = e.alloc_order = (x >> 40) % 4;
			e.fallback_order = (x >> 42) % 11;
			e.alloc_migratetype = (x >> 46) % 3;
			e.fallback_migratetype = (x >> 48) % 3;
			e.change_ownership = (x >> 50) & 1;
		}
		add(&e);
	}
}

static int same(const struct ps_event *a, const struct ps_event *b)
{
	return a->ts_ns == b->ts_ns && a->pfn == b->pfn && a->gfp == b->gfp && a->pid == b->pid &&
	       a->cpu == b->cpu && a->type == b->type && a->order == b->order &&
	       a->migratetype == b->migratetype && a->percpu_refill == b->percpu_refill &&
	       a->flags == b->flags && a->alloc_order == b->alloc_order &&
	       a->fallback_order == b->fallback_order && a->alloc_migratetype == b->alloc_migratetype &&
	       a->fallback_migratetype == b->fallback_migratetype && a->change_ownership == b->change_ownership;
}

static char path[64];
static size_t file_size;
static uint8_t *file;

static int write_file(void)
{
	struct ps_pgs_meta m = { .kernel_release = "6.1.0-57-amd64", .page_size = 4096, .pageblock_order = 9,
				 .nr_cpus = 4, .source = "test" };
	struct ps_error err;
	struct ps_pgs_writer *w;
	FILE *f;
	int fd;

	strcpy(path, "/tmp/pagesim-pgs-XXXXXX");
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w+") : NULL;
	if (!f)
		return -1;
	w = ps_pgs_writer_open(f, path, &m, &err);
	if (!w)
		return -1;
	CHECK(ps_pgs_write_blob(w, "before/proc/zoneinfo", "Node 0, zone Normal\n", 20, &err) == 0);
	for (int i = 0; i < nr_events; i++) {
		if (ps_pgs_write_event(w, &events[i], &err) < 0) {
			fprintf(stderr, "write: %s\n", err.msg);
			return -1;
		}
		if (i == 20)
			ps_pgs_note_comm(w, 99, "kswapd0");
	}
	CHECK(ps_pgs_write_blob(w, "after/proc/vmstat", "pgfree 3\n", 9, &err) == 0);
	ps_pgs_set_cpu_lost(w, 1, 5, 3, 1, 0);
	ps_pgs_set_pageblock_order(w, 10);	/* patched at finish */
	CHECK(ps_pgs_writer_finish(w, &err) == 0);
	CHECK_EQ(ps_pgs_events(w), nr_events);
	ps_pgs_writer_free(w);
	fflush(f);
	file_size = ftell(f);
	file = malloc(file_size);
	rewind(f);
	CHECK(fread(file, 1, file_size, f) == file_size);
	fclose(f);
	return 0;
}

static void test_round_trip(void)
{
	struct ps_reader_opts o = { .flags = PS_RD_COMM };
	struct ps_error err;
	struct ps_reader *r = ps_reader_open(path, &o, &err);
	struct ps_event ev;
	int n = 0, bad = 0, ret;
	size_t len;
	char *z;

	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "open: %s\n", err.msg);
		return;
	}
	CHECK(!strcmp(ps_reader_format(r), "pagesim v1"));
	CHECK(!strcmp(ps_reader_kernel_release(r), "6.1.0-57-amd64"));
	CHECK_EQ(ps_reader_kver(r), PS_KVER(6, 1, 0));
	CHECK_EQ(ps_reader_pageblock_order(r), 10);
	CHECK_EQ(ps_reader_nr_cpus(r), 4);
	z = ps_reader_snapshot(r, "before/proc/zoneinfo", &len);
	CHECK(z && len == 20 && !strcmp(z, "Node 0, zone Normal\n"));
	free(z);
	z = ps_reader_snapshot(r, "after/proc/vmstat", &len);
	CHECK(z && !strcmp(z, "pgfree 3\n"));
	free(z);
	CHECK(ps_reader_snapshot(r, "after/proc/zoneinfo", NULL) == NULL);
	CHECK(ps_reader_has_snapshots(r));
	while ((ret = ps_reader_next(r, &ev, &err)) > 0) {
		if (n < nr_events && !same(&ev, &events[n]) && bad++ < 5)
			fprintf(stderr, "event %d differs: type %d ts %llu pfn %llx\n", n, ev.type,
				(unsigned long long)ev.ts_ns, (unsigned long long)ev.pfn);
		if (ev.pid == 99)
			CHECK(ev.comm && !strcmp(ev.comm, "kswapd0"));
		n++;
	}
	CHECK_EQ(ret, 0);
	CHECK_EQ(n, nr_events);
	CHECK_EQ(bad, 0);
	CHECK(!ps_reader_stats(r)->truncated);
	CHECK_EQ(ps_reader_stats(r)->lost_events, 5);
	CHECK(ps_reader_stats(r)->out_of_order > 0);
	ps_reader_close(r);
}

/* Offsets of the sections after the header, and event counts of frames. */
struct sec {
	size_t off, end;
	int frame_events;	/* -1 for non-frame sections */
};

static int sections(struct sec *s, int max)
{
	size_t off = PS_PGS_HEADER_SIZE;
	int n = 0;

	while (off + PS_PGS_SECTION_HEADER <= file_size && n < max) {
		uint64_t len = 0;

		for (int i = 0; i < 8; i++)
			len |= (uint64_t)file[off + 8 + i] << (8 * i);
		s[n].off = off;
		s[n].end = off + PS_PGS_SECTION_HEADER + len;
		s[n].frame_events = -1;
		if (!memcmp(file + off, "EVTS", 4))
			s[n].frame_events = file[off + 16] | file[off + 17] << 8 | file[off + 18] << 16;
		off = s[n++].end;
	}
	return n;
}

/* Reads the first @cut bytes of the file; returns events read, sets *trunc. */
static long read_cut(size_t cut, int *trunc, int *failed)
{
	char cpath[64];
	struct ps_error err;
	struct ps_reader *r;
	struct ps_event ev;
	long n = 0;
	int fd, ret;

	strcpy(cpath, "/tmp/pagesim-cut-XXXXXX");
	fd = mkstemp(cpath);
	if (fd < 0 || write(fd, file, cut) != (ssize_t)cut)
		return -1;
	close(fd);
	r = ps_reader_open(cpath, NULL, &err);
	unlink(cpath);
	*failed = !r;
	if (!r)
		return 0;
	while ((ret = ps_reader_next(r, &ev, &err)) > 0)
		n++;
	*failed = ret < 0;
	*trunc = ps_reader_stats(r)->truncated;
	ps_reader_close(r);
	return n;
}

static void test_cuts(void)
{
	struct sec s[64];
	int n = sections(s, 64), frames = 0, trunc, failed;
	long whole = 0;

	for (int i = 0; i < n; i++)
		frames += s[i].frame_events >= 0;
	CHECK_EQ(frames, 3);
	CHECK(!memcmp(file + s[n - 1].off, "END ", 4));
	/* the header alone, then each section boundary and the middle of each section */
	for (int i = 0; i < n; i++) {
		size_t cuts[3] = { s[i].off, s[i].off + 7, (s[i].off + s[i].end) / 2 };

		for (int k = 0; k < 3; k++) {
			long got = read_cut(cuts[k], &trunc, &failed);

			CHECK(!failed);
			CHECK(trunc);
			CHECK_EQ(got, whole);
		}
		if (s[i].frame_events >= 0)
			whole += s[i].frame_events;
	}
	CHECK_EQ(whole, nr_events);
	/* the whole file: not cut */
	CHECK_EQ(read_cut(file_size, &trunc, &failed), nr_events);
	CHECK(!trunc && !failed);
	/* less than the header: an error, not a crash */
	read_cut(100, &trunc, &failed);
	CHECK(failed);
}

static void test_damaged(void)
{
	struct sec s[64];
	int n = sections(s, 64), trunc, failed;
	long got;

	/* flip a byte inside the second frame: the zstd checksum catches it */
	for (int i = 0, f = 0; i < n; i++) {
		if (s[i].frame_events < 0 || f++ != 1)
			continue;
		file[(s[i].off + s[i].end) / 2] ^= 0x55;
		got = read_cut(file_size, &trunc, &failed);
		CHECK(failed);
		CHECK(got == PS_PGS_FRAME_EVENTS);
		file[(s[i].off + s[i].end) / 2] ^= 0x55;
	}
	/* a newer format version is refused with a message */
	file[PS_PGS_H_VERSION] = 9;
	read_cut(file_size, &trunc, &failed);
	CHECK(failed);
	file[PS_PGS_H_VERSION] = PS_PGS_VERSION;
}

static void test_varint(void)
{
	int64_t v[] = { 0, 1, -1, 63, -64, INT64_MAX, INT64_MIN };

	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		CHECK(ps_unzigzag(ps_zigzag(v[i])) == v[i]);
	CHECK_EQ(ps_zigzag(-1), 1);
	CHECK_EQ(ps_zigzag(1), 2);
}

int main(void)
{
	test_varint();
	make_events();
	if (write_file() < 0) {
		fprintf(stderr, "cannot write the test file\n");
		return 1;
	}
	test_round_trip();
	test_cuts();
	test_damaged();
	unlink(path);
	free(file);
	free(events);
	CHECK_DONE();
}
