// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_kswapd_slice.c - how kswapd earns its reclaim (ps_kswapd_earn,
 * ps_kswapd_earn_at): page by page as time passes, or with kswapd.slice_us
 * nothing during a slice and its worth at its end, the same pages over the
 * same time either way.  At 100 pages per ms a page takes 10 us and a 4 ms
 * slice holds 400 pages.
 */
#include <string.h>

#include "sim/mm/vmscan.h"
#include "check.h"

#define PAGE PS_KSWAPD_PAGE_CREDIT
#define RATE 100
#define SLICE 4000000ull	/* ns */

int main(void)
{
	struct ps_kswapd k;
	uint64_t pages = 0;

	/* page by page: 5 us earn half a page; the next page is due 5 us later */
	memset(&k, 0, sizeof(k));
	k.last_run = 1000;
	ps_kswapd_earn(&k, 6000, RATE, 0);
	CHECK_EQ(k.credit, PAGE / 2);
	CHECK_EQ(ps_kswapd_earn_at(&k, RATE, 0), 11000);
	ps_kswapd_earn(&k, 11000, RATE, 0);
	CHECK_EQ(k.credit, PAGE);
	CHECK_EQ(ps_kswapd_earn_at(&k, RATE, 0), 11000);
	/* a step at the same time earns nothing more */
	ps_kswapd_earn(&k, 11000, RATE, 0);
	CHECK_EQ(k.credit, PAGE);

	/* slices: a run starting at 1000 ns starts its first slice, with nothing yet */
	memset(&k, 0, sizeof(k));
	k.last_run = 1000;
	ps_kswapd_earn(&k, 1000, RATE, SLICE);
	CHECK_EQ(k.credit, 0);
	CHECK_EQ(k.slice_end, 1000 + SLICE);
	CHECK_EQ(ps_kswapd_earn_at(&k, RATE, SLICE), 1000 + SLICE);
	/* nothing until the slice ends, however long it has run */
	ps_kswapd_earn(&k, 2000000, RATE, SLICE);
	CHECK_EQ(k.credit, 0);
	CHECK_EQ(k.last_run, 2000000);
	CHECK_EQ(ps_kswapd_earn_at(&k, RATE, SLICE), 1000 + SLICE);
	/* at its end its 400 pages at once, and the next slice starts */
	ps_kswapd_earn(&k, 1000 + SLICE, RATE, SLICE);
	CHECK_EQ(k.credit, 400 * PAGE);
	CHECK_EQ(k.slice_end, 1000 + 2 * SLICE);
	CHECK_EQ(ps_kswapd_earn_at(&k, RATE, SLICE), 1000 + SLICE);
	/* pages not used up (the pass ended) are not added to */
	k.credit = 5 * PAGE;
	ps_kswapd_earn(&k, 1000 + 3 * SLICE, RATE, SLICE);
	CHECK_EQ(k.credit, 5 * PAGE);
	CHECK_EQ(k.slice_end, 1000 + 2 * SLICE);
	CHECK_EQ(ps_kswapd_earn_at(&k, RATE, SLICE), 1000 + 3 * SLICE);
	/* under a page left: a slice's pages are added to it */
	k.credit = PAGE / 4;
	ps_kswapd_earn(&k, 1000 + 3 * SLICE, RATE, SLICE);
	CHECK_EQ(k.credit, 400 * PAGE + PAGE / 4);
	CHECK_EQ(k.slice_end, 1000 + 4 * SLICE);

	/*
	 * 40 ms of reclaim, every page taken when due: 4000 pages either way
	 * (a page is earned at its end, a slice's pages at the slice's end)
	 */
	for (int sliced = 0; sliced < 2; sliced++) {
		uint64_t s = sliced ? SLICE : 0, t = 0;

		memset(&k, 0, sizeof(k));
		pages = 0;
		while (t <= 40000000) {
			ps_kswapd_earn(&k, t, RATE, s);
			pages += k.credit / PAGE;
			k.credit %= PAGE;
			t = ps_kswapd_earn_at(&k, RATE, s);
		}
		CHECK_EQ(pages, 4000);
	}
	CHECK_DONE();
}
