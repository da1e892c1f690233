// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_reclaim_data.c - the readers on the recorded runs of testdata/reclaim:
 * the text slices (trace-cmd report lines of a few windows of a run) give,
 * event for event and field for field, what the run's pagesim file (its whole
 * trace.dat converted) holds in those windows; the slice's trace.dat (the
 * first window, trace-cmd split) gives exactly the same events, nanoseconds
 * and kswapd's zid included; each slice has the page-cache, LRU and reclaim
 * event types its run has; and the machine description's reclaim facts
 * come from the slice's before/ sysroot.  argv[1]: the source root.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/machine.h"
#include "trace/reader.h"
#include "trace/sysroot.h"
#include "check.h"

static const char *root;

/* The windows of testdata/bundle-reclaim-runs.sh's SLICES, in ns, the first one first. */
struct slice {
	const char *run;
	uint64_t win[6][2];
	int nr_win;
	unsigned int types;	/* the PS_EV_* of the page-cache, LRU and reclaim events it must hold */
	long nr_inactive_file0, nr_file_pages1, nr_slab_reclaimable0;	/* its before/'s nodeN/vmstat */
	int lru_gen;
};

#define T(x) (1u << (x))
#define ALL_X (((1u << PS_EV_NR) - 1) & ~((1u << PS_EV_KMEM_NR) - 1))

static const struct slice slices[] = {
	{ "k61_zrm1_r3",
	  { { 11566000500, 11612792500 }, { 8863400500, 8864200500 }, { 8867500500, 8868100500 } }, 3,
	  /* no direct reclaim in this run, and no write-back from reclaim in any */
	  ALL_X & ~(T(PS_EV_DIRECT_BEGIN) | T(PS_EV_DIRECT_END) | T(PS_EV_WRITE_FOLIO)), 18, 10, 359, 0 },
	{ "k612_base_r3",
	  { { 10884400500, 10885700500 }, { 8840500500, 8841500500 }, { 8845500500, 8847000500 },
	    { 8863300500, 8864100500 }, { 9210000500, 9216000500 } }, 5,
	  /* the multi-generational LRU: no activation, no active-list shrinking; no node reclaim */
	  ALL_X & ~(T(PS_EV_NODE_RECLAIM_BEGIN) | T(PS_EV_NODE_RECLAIM_END) | T(PS_EV_LRU_ACTIVATE) |
		    T(PS_EV_SHRINK_ACTIVE) | T(PS_EV_WRITE_FOLIO)), 0, 2354, 132, 7 },
};

static int in_window(const struct slice *s, uint64_t ts, int only_first)
{
	for (int w = 0; w < (only_first ? 1 : s->nr_win); w++)
		if (ts >= s->win[w][0] && ts < s->win[w][1])
			return 1;
	return 0;
}

/* Every event of @path, or those in the windows of @s (@only_first: the first one). */
static long read_events(const char *path, const struct slice *s, int only_first, struct ps_event **out)
{
	struct ps_error err;
	struct ps_reader *r = ps_reader_open(path, NULL, &err);
	struct ps_event ev;
	long n = 0, cap = 1 << 16;
	int ret;

	*out = malloc(cap * sizeof(**out));
	if (!r || !*out) {
		fprintf(stderr, "%s: %s\n", path, r ? "out of memory" : err.msg);
		ps_reader_close(r);
		return -1;
	}
	while ((ret = ps_reader_next(r, &ev, &err)) > 0) {
		if (s && !in_window(s, ev.ts_ns, only_first))
			continue;
		if (n == cap) {
			struct ps_event *m = realloc(*out, 2 * cap * sizeof(*m));

			if (!m)
				break;
			*out = m;
			cap *= 2;
		}
		ev.comm = NULL;
		(*out)[n++] = ev;
	}
	CHECK_EQ(ret, 0);
	CHECK_EQ(ps_reader_stats(r)->skipped[PS_SKIP_BAD_FIELD], 0);
	ps_reader_close(r);
	return n;
}

/* @a and @b the same event; @text: @b is from trace-cmd report text (microseconds, no zid). */
static int same(const struct ps_event *a, const struct ps_event *b, int text)
{
	struct ps_event x = *a, y = *b;

	if (text) {
		x.ts_ns = (x.ts_ns + 500) / 1000 * 1000;
		/* the print formats leave out kswapd's zid */
		if (x.type == PS_EV_KSWAPD_WAKE || x.type == PS_EV_WAKEUP_KSWAPD)
			x.x.ks.zid = -1;
	}
	return !memcmp(&x, &y, sizeof(x));
}

static void test_slice(const struct slice *s)
{
	char pgs[512], txt[512], dat[512], sys[512];
	struct ps_event *a = NULL, *b = NULL;
	long na, nb, bad = 0;
	unsigned int seen = 0;
	int zid_seen = 0;

	snprintf(pgs, sizeof(pgs), "%s/testdata/reclaim/%s.pgs", root, s->run);
	snprintf(txt, sizeof(txt), "%s/testdata/reclaim/slices/%s/trace.txt.zst", root, s->run);
	snprintf(dat, sizeof(dat), "%s/testdata/reclaim/slices/%s/trace.dat", root, s->run);
	snprintf(sys, sizeof(sys), "%s/testdata/reclaim/slices/%s/before", root, s->run);

	/* the text against the pagesim file in the windows (read in the same order: by time, lower CPU first) */
	na = read_events(pgs, s, 0, &a);
	nb = read_events(txt, NULL, 0, &b);
	CHECK(na > 2000);
	CHECK_EQ(nb, na);
	for (long i = 0; i < na && i < nb; i++) {
		if (!same(&a[i], &b[i], 1) && bad++ < 3)
			fprintf(stderr, "%s: event %ld (type %d, ts %llu) differs between the text and the pagesim file\n",
				s->run, i, a[i].type, (unsigned long long)a[i].ts_ns);
		seen |= 1u << a[i].type;
		zid_seen |= a[i].type == PS_EV_KSWAPD_WAKE && a[i].x.ks.zid >= 0;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(seen & ALL_X, s->types);
	CHECK(zid_seen);	/* the trace.dat's record has it */
	free(a);
	free(b);

	/* the first window's trace.dat against the pagesim file, exactly */
	bad = 0;
	na = read_events(pgs, s, 1, &a);
	nb = read_events(dat, NULL, 0, &b);
	CHECK(na > 1000);
	CHECK_EQ(nb, na);
	for (long i = 0; i < na && i < nb; i++)
		bad += !same(&a[i], &b[i], 0);
	CHECK_EQ(bad, 0);
	free(a);
	free(b);

	/* what reclaim depends on, from the bundled sysroot */
	{
		struct ps_machine *m = malloc(sizeof(*m));
		struct ps_error err;

		CHECK(m && ps_sysroot_load_machine(sys, m, &err) == 0);
		if (m) {
			CHECK_EQ(m->nr_nodes, 2);
			CHECK_EQ(m->lru_gen_enabled, s->lru_gen);
			CHECK_EQ(m->swap_total_kb, 0);
			CHECK_EQ(m->swap_free_kb, 0);
			CHECK_EQ(m->node[0].nr_inactive_file, s->nr_inactive_file0);
			CHECK_EQ(m->node[1].nr_file_pages, s->nr_file_pages1);
			CHECK_EQ(m->node[0].nr_slab_reclaimable, s->nr_slab_reclaimable0);
			for (int n = 0; n < 2; n++) {
				CHECK(m->node[n].nr_inactive_anon >= 0 && m->node[n].nr_active_file >= 0);
				CHECK(m->node[n].nr_mapped >= 0 && m->node[n].nr_dirty >= 0 && m->node[n].nr_writeback >= 0);
				CHECK(m->node[n].nr_shmem >= 0 && m->node[n].nr_unevictable >= 0);
			}
			CHECK_EQ(m->node[2].nr_inactive_file, -1);
		}
		free(m);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_reclaim_data SOURCE-ROOT\n");
		return 2;
	}
	root = argv[1];
	for (size_t i = 0; i < sizeof(slices) / sizeof(slices[0]); i++)
		test_slice(&slices[i]);
	CHECK_DONE();
}
