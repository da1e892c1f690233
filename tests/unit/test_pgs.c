// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_pgs.c - pagesim files: every field of every event type round-trips
 * (edge values: no pfn, huge pfns, time going backwards, cpus past the
 * predictor state, odd migratetypes and flags; the page-cache, LRU and
 * reclaim events' own fields at their limits), across several frames;
 * snapshots and header values come back; a file cut anywhere reads up to
 * its last whole frame and says it was cut; ps_reader_next_batch() gives
 * the same events, statistics and errors as ps_reader_next(), also on a
 * frame whose columns are damaged.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "lib/kver.h"
#include "trace/pgs.h"
#include "trace/reader.h"
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

static int nr_events, nr_edge;	/* events, and how many of them come first with edge values */
static struct ps_event *events;
/* what the reader gives for events[]: bad orders skipped, other bytes as the text reader would give them */
static int nr_expected;
static struct ps_event *expected;
static int *kept_before;	/* [i]: events of expected[] among events[0..i) */

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
	/* the page-cache, LRU and reclaim events: their fields at their limits */
	plain(&e, PS_EV_PC_ADD, 14, 0, 5, 0x100000);
	e.x.pc.ino = UINT64_MAX;
	e.x.pc.index = UINT64_MAX;
	e.x.pc.dev = UINT32_MAX;
	e.order = 10;
	add(&e);
	plain(&e, PS_EV_PC_DEL, 15, 0, 5, 0x100001);	/* the predictors wrap back to 0 */
	add(&e);
	plain(&e, PS_EV_LRU_ADD, 16, 1, 5, PS_PFN_NONE - 1);
	e.x.lru.lru = PS_LRU_UNEVICTABLE;
	e.x.lru.flags = 0xffff;
	add(&e);
	plain(&e, PS_EV_LRU_ACTIVATE, 17, 1, 5, 7);
	e.x.lru.lru = 1;	/* not one of its fields, but its member's: kept */
	e.x.lru.flags = 3;
	add(&e);
	plain(&e, PS_EV_KSWAPD_WAKE, 18, 1024, 5, PS_PFN_NONE);
	e.x.ks.nid = INT16_MIN;
	e.x.ks.zid = INT16_MAX;
	add(&e);
	plain(&e, PS_EV_WAKEUP_KSWAPD, 19, 3, 5, PS_PFN_NONE);
	e.x.ks.nid = -1;
	e.x.ks.zid = -1;
	e.gfp = 0xffffffffu;
	e.order = 9;
	add(&e);
	plain(&e, PS_EV_DIRECT_BEGIN, 19, 3, 5, PS_PFN_NONE);
	e.gfp = PS_GFP_FS | PS_GFP_IO;
	add(&e);
	plain(&e, PS_EV_SHRINK_INACTIVE, 20, 3, 5, PS_PFN_NONE);
	e.x.rc.nr_scanned = e.x.rc.nr_reclaimed = e.x.rc.nr_taken = e.x.rc.nr_skipped = UINT32_MAX;
	e.x.rc.nid = INT16_MIN;
	e.x.rc.priority = -128;
	e.x.rc.lru = PS_LRU_UNEVICTABLE;
	e.x.rc.flags = 0xffff;
	add(&e);
	plain(&e, PS_EV_WRITE_FOLIO, 21, 3, 5, 0x100000);	/* kmem fields and gfp on it: the extended form */
	e.x.rc.flags = PS_RECLAIM_WB_FILE | PS_RECLAIM_WB_ASYNC;
	e.migratetype = PS_MT_MOVABLE;
	e.gfp = 5;
	e.alloc_order = 3;
	add(&e);
	plain(&e, PS_EV_NODE_RECLAIM_END, 22, 3, 5, PS_PFN_NONE);
	e.x.rc.nr_reclaimed = 32;
	e.x.rc.nid = -1;
	e.flags = 0x80;
	add(&e);
	nr_edge = nr_events;
	/* a realistic-looking mix, time sometimes going backwards across CPUs */
	for (int i = 0; i < NR_RANDOM; i++) {
		uint64_t x = rnd();
		/* one in three a page-cache, LRU or reclaim event */
		int type = (x >> 52) % 3 ? (int)(x % PS_EV_KMEM_NR) : PS_EV_KMEM_NR + (int)(x % (PS_EV_NR - PS_EV_KMEM_NR));

		ts += (x >> 8) % 5000;
		/* cpus 0-2 and 300 (a two-byte varint, within the per-cpu state) */
		plain(&e, type, (x & 0x100000) ? ts - (x >> 40) % 3000 : ts,
		      (x >> 20) % 4 == 3 ? 300 : (int)((x >> 20) % 4), 1000 + (x >> 24) % 5,
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
		if (!ps_event_is_kmem(type)) {
			uint64_t y = rnd();

			e.order = y % 3 ? 0 : y % 11;
			if (type > PS_EV_LRU_ACTIVATE && type != PS_EV_WRITE_FOLIO)
				e.pfn = PS_PFN_NONE;
			switch (type) {
			case PS_EV_PC_ADD:
			case PS_EV_PC_DEL:
				e.x.pc.ino = 0xfe00010 + (y >> 8) % 3;
				e.x.pc.index = (y >> 12) % 100000;
				e.x.pc.dev = 3;
				break;
			case PS_EV_LRU_ADD:
				e.x.lru.lru = (y >> 8) % PS_NR_LRU;
				e.x.lru.flags = (y >> 12) & 0x7f;
				break;
			case PS_EV_LRU_ACTIVATE:
				break;
			case PS_EV_KSWAPD_WAKE:
			case PS_EV_KSWAPD_SLEEP:
			case PS_EV_WAKEUP_KSWAPD:
			case PS_EV_NODE_RECLAIM_BEGIN:
				e.x.ks.nid = (y >> 8) % 4;
				e.x.ks.zid = type == PS_EV_KSWAPD_SLEEP ? -1 : (int)((y >> 12) % 4);
				/* fall through */
			case PS_EV_DIRECT_BEGIN:
				if (type != PS_EV_KSWAPD_WAKE && type != PS_EV_KSWAPD_SLEEP)
					e.gfp = (uint32_t)(y >> 16) & 0xfffff;
				break;
			default:
				e.x.rc.nr_scanned = (y >> 8) % 64;
				e.x.rc.nr_reclaimed = (y >> 14) % 64;
				e.x.rc.nr_taken = (y >> 20) % 4096;
				e.x.rc.nr_skipped = (y >> 32) % 3;
				e.x.rc.nid = (y >> 34) % 5 - 1;
				e.x.rc.priority = (y >> 38) % 13;
				e.x.rc.lru = (y >> 42) % PS_NR_LRU;
				e.x.rc.flags = (y >> 45) % 32;
				break;
			}
		}
		add(&e);
	}
}

static int8_t mt_norm(int v)
{
	return v >= PS_MT_UNKNOWN && v < PS_MIGRATETYPE_NAMES ? (int8_t)v : PS_MT_UNKNOWN;
}

/*
 * The reader's view of events[]: an order past 10 (or an extfrag's
 * alloc_order or fallback_order past it) or a timestamp past 2^63 ns is a
 * bad field, skipped;
 * migratetypes outside the kernel's are unknown; flags bytes read as 0/1.
 */
static void make_expected(void)
{
	expected = calloc(nr_events + 1, sizeof(*expected));
	kept_before = calloc(nr_events + 1, sizeof(*kept_before));
	nr_expected = 0;
	for (int i = 0; i < nr_events; i++) {
		struct ps_event e = events[i];

		kept_before[i] = nr_expected;
		if (e.order > PS_MAX_PAGE_ORDER || e.ts_ns > PS_EV_MAX_TS ||
		    (e.type == PS_EV_EXTFRAG && (e.alloc_order > PS_MAX_PAGE_ORDER || e.fallback_order > PS_MAX_PAGE_ORDER)))
			continue;
		e.migratetype = mt_norm(e.migratetype);
		e.alloc_migratetype = mt_norm(e.alloc_migratetype);
		e.fallback_migratetype = mt_norm(e.fallback_migratetype);
		e.percpu_refill = e.percpu_refill != 0;
		e.change_ownership = e.change_ownership != 0;
		expected[nr_expected++] = e;
	}
	kept_before[nr_events] = nr_expected;
}

static int same(const struct ps_event *a, const struct ps_event *b)
{
	return a->ts_ns == b->ts_ns && a->pfn == b->pfn && a->gfp == b->gfp && a->pid == b->pid &&
	       a->cpu == b->cpu && a->type == b->type && a->order == b->order &&
	       a->migratetype == b->migratetype && a->percpu_refill == b->percpu_refill &&
	       a->flags == b->flags && a->alloc_order == b->alloc_order &&
	       a->fallback_order == b->fallback_order && a->alloc_migratetype == b->alloc_migratetype &&
	       a->fallback_migratetype == b->fallback_migratetype && a->change_ownership == b->change_ownership &&
	       !memcmp(&a->x, &b->x, sizeof(a->x));
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
	CHECK(!strcmp(ps_reader_format(r), "pagesim v2"));
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
		if (n < nr_expected && !same(&ev, &expected[n]) && bad++ < 5)
			fprintf(stderr, "event %d differs: type %d ts %llu pfn %llx\n", n, ev.type,
				(unsigned long long)ev.ts_ns, (unsigned long long)ev.pfn);
		if (ev.pid == 99) {
			CHECK(ev.comm && !strcmp(ev.comm, "kswapd0"));
			CHECK(ev.task == PS_TASK_KSWAPD && ev.task_node == 0);
		} else {
			CHECK_EQ(ev.task, PS_TASK_OTHER);
		}
		n++;
	}
	CHECK_EQ(ret, 0);
	CHECK_EQ(n, nr_expected);
	CHECK_EQ(nr_expected, nr_events - 2);	/* the allocation at 2^64 - 1 ns, the free of order 255 */
	CHECK_EQ(ps_reader_stats(r)->skipped[PS_SKIP_BAD_FIELD], 2);
	CHECK(strstr(ps_reader_stats(r)->skip_first[PS_SKIP_BAD_FIELD], "event 1 of frame 0") != NULL);
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
			CHECK_EQ(got, kept_before[whole]);
		}
		if (s[i].frame_events >= 0)
			whole += s[i].frame_events;
	}
	CHECK_EQ(whole, nr_events);
	/* the whole file: not cut */
	CHECK_EQ(read_cut(file_size, &trunc, &failed), nr_expected);
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
		CHECK(got == kept_before[PS_PGS_FRAME_EVENTS]);
		file[(s[i].off + s[i].end) / 2] ^= 0x55;
	}
	/* a newer format version is refused with a message */
	file[PS_PGS_H_VERSION] = 9;
	read_cut(file_size, &trunc, &failed);
	CHECK(failed);
	file[PS_PGS_H_VERSION] = PS_PGS_VERSION;
}

/* What a reader gave: events, the last return value, its message and statistics. */
struct readout {
	struct ps_event *ev;
	struct ps_reader *r;	/* kept open: the events' comm strings are the reader's */
	long n;
	int ret;
	char msg[512];
	struct ps_reader_stats st;
};

/*
 * Reads @p to its end: one event at a time (mode 0), in batches (1), or
 * three events one at a time and then the rest of that batch (2, repeated).
 */
static void read_all(const char *p, int mode, struct readout *o)
{
	struct ps_reader_opts opts = { .flags = PS_RD_COMM };
	struct ps_error err = { { 0 } };
	struct ps_reader *r = ps_reader_open(p, &opts, &err);
	const struct ps_event *evs;
	int ret;

	memset(o, 0, sizeof(*o));
	o->r = r;
	o->ev = calloc(nr_events + 1, sizeof(*o->ev));
	CHECK(r != NULL);
	if (!r || !o->ev)
		return;
	for (;;) {
		if (mode == 0 || (mode == 2 && o->n % 256 < 3)) {
			ret = ps_reader_next(r, &o->ev[o->n], &err);
			o->n += ret > 0;
		} else {
			ret = ps_reader_next_batch(r, &evs, &err);
			CHECK(ret <= 256);
			for (int i = 0; i < ret && o->n < nr_events; i++)
				o->ev[o->n++] = evs[i];
		}
		if (ret <= 0)
			break;
	}
	o->ret = ret;
	snprintf(o->msg, sizeof(o->msg), "%s", ret < 0 ? err.msg : "");
	o->st = *ps_reader_stats(r);
}

static void readout_free(struct readout *o)
{
	free(o->ev);
	ps_reader_close(o->r);
}

/* The statistics of the events a reader gave, by the rules of ps_reader_account(). */
static void expect_stats(const struct readout *o, struct ps_reader_stats *x)
{
	uint64_t last = 0;

	memset(x, 0, sizeof(*x));
	x->max_cpu = -1;
	for (long i = 0; i < o->n; i++) {
		const struct ps_event *e = &o->ev[i];

		x->events[e->type]++;
		x->alloc_failed += e->type == PS_EV_ALLOC && e->pfn == PS_PFN_NONE;
		x->out_of_order += e->ts_ns < last;
		last = e->ts_ns < last ? last : e->ts_ns;
		x->max_cpu = e->cpu > x->max_cpu ? e->cpu : x->max_cpu;
	}
}

static void check_same_reads(const char *p)
{
	struct readout a, b;
	struct ps_reader_stats x;

	read_all(p, 0, &a);
	expect_stats(&a, &x);
	for (int t = 0; t < PS_EV_NR; t++)
		CHECK_EQ(a.st.events[t], x.events[t]);
	CHECK_EQ(a.st.alloc_failed, x.alloc_failed);
	CHECK_EQ(a.st.out_of_order, x.out_of_order);
	CHECK_EQ(a.st.max_cpu, x.max_cpu);
	for (int mode = 1; mode <= 2; mode++) {
		int bad = 0;

		read_all(p, mode, &b);
		CHECK_EQ(b.n, a.n);
		CHECK_EQ(b.ret, a.ret);
		CHECK(!strcmp(b.msg, a.msg));
		for (long i = 0; i < a.n && i < b.n; i++)
			bad += !same(&a.ev[i], &b.ev[i]) ||
			       a.ev[i].task != b.ev[i].task ||
			       !(a.ev[i].comm == b.ev[i].comm ||
				 (a.ev[i].comm && b.ev[i].comm && !strcmp(a.ev[i].comm, b.ev[i].comm)));
		CHECK_EQ(bad, 0);
		for (int t = 0; t < PS_EV_NR; t++)
			CHECK_EQ(b.st.events[t], a.st.events[t]);
		CHECK_EQ(b.st.alloc_failed, a.st.alloc_failed);
		CHECK_EQ(b.st.out_of_order, a.st.out_of_order);
		CHECK_EQ(b.st.max_cpu, a.st.max_cpu);
		readout_free(&b);
	}
	readout_free(&a);
}

/* The whole file, then one whose second frame has a control byte of type 6 (no event's) at its event 1000. */
static void test_batch(void)
{
	struct sec s[64];
	int n = sections(s, 64), f = 0;
	struct readout a;
	long expect_failed = 0;

	check_same_reads(path);
	read_all(path, 1, &a);
	CHECK_EQ(a.n, nr_expected);
	CHECK_EQ(a.ret, 0);
	CHECK(a.st.out_of_order > 0);
	CHECK_EQ(a.st.max_cpu, 65535);
	for (int i = 0; i < nr_events; i++)
		expect_failed += events[i].type == PS_EV_ALLOC && events[i].pfn == PS_PFN_NONE;
	CHECK_EQ(a.st.alloc_failed, expect_failed);
	CHECK(expect_failed > 1);
	readout_free(&a);

	for (int i = 0; i < n; i++) {
		const uint8_t *sp = file + s[i].off + PS_PGS_SECTION_HEADER;
		size_t zlen = s[i].end - s[i].off - PS_PGS_SECTION_HEADER - 8, raw_len, bound, got;
		uint8_t *raw, *z, *out;
		char dpath[64];
		FILE *fp;
		int fd;

		if (s[i].frame_events < 0 || f++ != 1)
			continue;
		raw_len = sp[4] | sp[5] << 8 | sp[6] << 16 | (size_t)sp[7] << 24;
		raw = malloc(raw_len);
		got = raw ? ZSTD_decompress(raw, raw_len, sp + 8, zlen) : 0;
		CHECK(got == raw_len);
		/* the ctrl column follows the column lengths */
		raw[4 * PS_PGS_NR_COLS + 1000] = (raw[4 * PS_PGS_NR_COLS + 1000] & ~PS_PGS_C_TYPE) | 6;
		bound = ZSTD_compressBound(raw_len);
		z = malloc(bound);
		{
			ZSTD_CCtx *cc = ZSTD_createCCtx();

			ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
			got = ZSTD_compress2(cc, z, bound, raw, raw_len);
			ZSTD_freeCCtx(cc);
		}
		CHECK(!ZSTD_isError(got));
		strcpy(dpath, "/tmp/pagesim-dmg-XXXXXX");
		fd = mkstemp(dpath);
		fp = fd >= 0 ? fdopen(fd, "w") : NULL;
		CHECK(fp != NULL);
		if (fp) {
			uint64_t len = 8 + got;
			uint8_t h[PS_PGS_SECTION_HEADER] = { 'E', 'V', 'T', 'S' };

			for (int k = 0; k < 8; k++)
				h[8 + k] = len >> (8 * k);
			out = (uint8_t *)file;
			fwrite(out, 1, s[i].off, fp);
			fwrite(h, 1, sizeof(h), fp);
			fwrite(sp, 1, 8, fp);
			fwrite(z, 1, got, fp);
			fwrite(file + s[i].end, 1, file_size - s[i].end, fp);
			fclose(fp);
			read_all(dpath, 1, &a);
			CHECK_EQ(a.ret, -1);
			CHECK(strstr(a.msg, "event 1000 of frame 1") != NULL);
			/* the events of the batches before the damaged one */
			CHECK_EQ(a.n, kept_before[PS_PGS_FRAME_EVENTS + 1000 / 256 * 256]);
			readout_free(&a);
			check_same_reads(dpath);
			unlink(dpath);
		}
		free(raw);
		free(z);
	}
	CHECK_EQ(f, 3);

	/* without the edge values: every batch on the fast path */
	{
		char *save_path = strdup(path);
		uint8_t *save_file = file;
		size_t save_size = file_size;

		events += nr_edge;
		nr_events -= nr_edge;
		CHECK(write_file() == 0);
		check_same_reads(path);
		read_all(path, 1, &a);
		CHECK_EQ(a.n, nr_events);
		CHECK_EQ(a.st.max_cpu, 300);
		CHECK(a.st.out_of_order > 0);
		readout_free(&a);
		unlink(path);
		free(file);
		events -= nr_edge;
		nr_events += nr_edge;
		strcpy(path, save_path);
		free(save_path);
		file = save_file;
		file_size = save_size;
	}
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
	make_expected();
	if (write_file() < 0) {
		fprintf(stderr, "cannot write the test file\n");
		return 1;
	}
	test_round_trip();
	test_cuts();
	test_damaged();
	test_batch();
	unlink(path);
	free(file);
	free(events);
	CHECK_DONE();
}
