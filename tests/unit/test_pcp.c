// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_pcp.c - sim/mm/pcp.c's drain amounts (nr_pcp_high / nr_pcp_free) per
 * version: the free_factor doubling and its CONFIG_PCP_BATCH_SCALE_MAX cap,
 * ZONE_RECLAIM_ACTIVE's cap of high at 4 * batch (5.14+), free_high, and
 * the 6.7+ path under reclaim.  The expected sizes are the drain sections
 * the recorded Debian 6.1.192 traces (testdata/numa2) show for the same batch and high.
 */
#include "lib/kver.h"
#include "sim/mm/pcp.h"
#include "sim/mm/profile.h"
#include "check.h"

/* Free order-0 pages one by one (no allocation between) and record each drain's size. */
static int frees(struct ps_pcp *pcp, const struct ps_profile *prof, int reclaim_active, int nfree,
		 int *sizes, int max)
{
	int nd = 0;

	for (int i = 0; i < nfree; i++) {
		int n;

		pcp->count++;
		n = ps_pcp_drain_pages(pcp, prof, 0, reclaim_active, 0);
		if (n > 0) {
			if (nd < max)
				sizes[nd] = n;
			nd++;
			pcp->count -= n < pcp->count ? n : pcp->count;
		}
	}
	return nd;
}

/* vm.percpu_pagelist_high_fraction: zone_highsize() of 5.14+ and the 6.7+ bounds, by hand */
static void test_high_fraction(void)
{
	int high, hmin, hmax;

	/* 6.1: 65536 managed / 8 = 8192, over 2 node CPUs = 4096; batch 63 keeps its 4 x 63 floor below */
	CHECK_EQ(ps_pcp_high_fraction(PS_KVER(6, 1, 0), 65536, 1000, 8, 2, 4, 63, &high, &hmin, &hmax), 0);
	CHECK_EQ(high, 4096);
	CHECK_EQ(hmin, 0);
	CHECK_EQ(hmax, 0);
	/* the floor: 65536 / 1000 / 2 = 32 < 4 x 63 */
	CHECK_EQ(ps_pcp_high_fraction(PS_KVER(6, 1, 0), 65536, 1000, 1000, 2, 4, 63, &high, &hmin, &hmax), 0);
	CHECK_EQ(high, 252);
	/* fraction 0: the default rule, low watermark 1000 / 2 CPUs */
	CHECK_EQ(ps_pcp_high_fraction(PS_KVER(6, 1, 0), 65536, 1000, 0, 2, 4, 63, &high, &hmin, &hmax), 0);
	CHECK_EQ(high, 500);
	/* a node without CPUs: split over all 4 */
	CHECK_EQ(ps_pcp_high_fraction(PS_KVER(6, 1, 0), 65536, 1000, 8, 0, 4, 63, &high, &hmin, &hmax), 0);
	CHECK_EQ(high, 2048);
	/* 6.7+: a fraction fixes high_min = high_max; 0 gives high_max from fraction 8 */
	CHECK_EQ(ps_pcp_high_fraction(PS_KVER(6, 7, 0), 65536, 1000, 16, 2, 4, 63, &high, &hmin, &hmax), 0);
	CHECK_EQ(hmin, 2048);
	CHECK_EQ(hmax, 2048);
	CHECK_EQ(ps_pcp_high_fraction(PS_KVER(6, 7, 0), 65536, 1000, 0, 2, 4, 63, &high, &hmin, &hmax), 0);
	CHECK_EQ(hmin, 500);
	CHECK_EQ(hmax, 4096);
	/* before 5.14 (vm.percpu_pagelist_fraction) and fractions the kernel refuses */
	CHECK_EQ(ps_pcp_high_fraction(PS_KVER(5, 13, 0), 65536, 1000, 8, 2, 4, 63, &high, &hmin, &hmax), -1);
	CHECK_EQ(ps_pcp_high_fraction(PS_KVER(6, 1, 0), 65536, 1000, 7, 2, 4, 63, &high, &hmin, &hmax), -1);
}

int main(void)
{
	const struct ps_profile *p61 = ps_profile_by_name("6.1"), *p44 = ps_profile_by_name("4.4");
	const struct ps_profile *p68 = ps_profile_by_name("6.8");
	struct ps_pcp pcp;
	int s[64], nd;

	CHECK(p61 && p44 && p68);
	test_high_fraction();

	/* node 1 Normal of numa2-wsf200: batch 15, high 830; memwork's drains are 480 = 15 << 5 */
	ps_pcp_init(&pcp, 830, 15);
	nd = frees(&pcp, p61, 0, 830 + 15 + 30 + 60 + 120 + 240 + 480 + 480, s, 64);
	CHECK(nd >= 7);
	CHECK_EQ(s[0], 15);
	CHECK_EQ(s[1], 30);
	CHECK_EQ(s[4], 240);
	CHECK_EQ(s[5], 480);
	CHECK_EQ(s[6], 480);	/* capped: free_factor stops at 5 */

	/* mainline 5.14-6.6 without the cap: on to high - batch */
	ps_pcp_init(&pcp, 830, 15);
	pcp.scale_max = 24;
	nd = frees(&pcp, p61, 0, 830 + 15 + 30 + 60 + 120 + 240 + 480 + 815, s, 64);
	CHECK(nd >= 7);
	CHECK_EQ(s[5], 480);
	CHECK_EQ(s[6], 815);

	/* an allocation halves free_factor (6 here) */
	ps_pcp_note_alloc(&pcp);
	pcp.count = 830;
	CHECK_EQ(ps_pcp_drain_pages(&pcp, p61, 0, 0, 0), 15 << 3);

	/* ZONE_RECLAIM_ACTIVE: DMA32 of numa2-zrm1 (batch 3, high 59) drains 3, 6, 9, 9 as kswapd frees */
	ps_pcp_init(&pcp, 59, 3);
	nd = frees(&pcp, p61, 1, 12 + 3 + 6 + 9, s, 64);
	CHECK_EQ(nd, 4);
	CHECK_EQ(s[0], 3);
	CHECK_EQ(s[1], 6);
	CHECK_EQ(s[2], 9);
	CHECK_EQ(s[3], 9);
	/* ... and node 1 Normal of numa2-base (batch 15, high 234) at most 45, as kswapd1's */
	ps_pcp_init(&pcp, 234, 15);
	nd = frees(&pcp, p61, 1, 60 + 15 + 30 + 45, s, 64);
	CHECK_EQ(nd, 4);
	CHECK_EQ(s[2], 45);
	CHECK_EQ(s[3], 45);
	/* without reclaim the same lists hold up to high */
	ps_pcp_init(&pcp, 234, 15);
	CHECK_EQ(frees(&pcp, p61, 0, 233, s, 64), 0);

	/* before 5.14 there is no ZONE_RECLAIM_ACTIVE: batch at high, whatever kswapd does */
	ps_pcp_init(&pcp, 234, 15);
	CHECK_EQ(frees(&pcp, p44, 1, 233, s, 64), 0);
	pcp.count++;
	CHECK_EQ(ps_pcp_drain_pages(&pcp, p44, 0, 1, 0), 15);

	/* 5.19-6.6 free_high: an order-1 free after a drain empties the lists */
	ps_pcp_init(&pcp, 234, 15);
	nd = frees(&pcp, p61, 0, 234, s, 64);
	CHECK_EQ(nd, 1);
	CHECK_EQ(pcp.count, 234 - 15);
	pcp.count += 2;
	CHECK(ps_pcp_drain_pages(&pcp, p61, 1, 0, 0) >= pcp.count);

	/* 6.7+ under reclaim: high falls by max(free_count, batch) and the lists keep 4 * batch */
	ps_pcp_init(&pcp, 400, 15);
	ps_pcp_set_adaptive(&pcp, 100, 800);
	pcp.count = 59;
	CHECK_EQ(ps_pcp_drain_pages(&pcp, p68, 0, 1, 0), 0);
	CHECK_EQ(pcp.high, 400 - 15);
	pcp.count = 60;
	CHECK_EQ(ps_pcp_drain_pages(&pcp, p68, 0, 1, 0), 15);	/* clamp(free_count = 2, batch, 60 - batch) */
	CHECK_EQ(pcp.high, 400 - 30);

	/*
	 * 6.7+ ZONE_BELOW_HIGH: a free lowers high by max(free_count, batch) and drains
	 * while the lists hold high_min or more; a refill leaves high where it is
	 */
	ps_pcp_init(&pcp, 400, 15);
	ps_pcp_set_adaptive(&pcp, 100, 800);
	pcp.count = 99;
	CHECK_EQ(ps_pcp_drain_pages(&pcp, p68, 0, 0, 1), 0);	/* below high_min: kept */
	CHECK_EQ(pcp.high, 400 - 15);
	pcp.count = 120;
	CHECK_EQ(ps_pcp_drain_pages(&pcp, p68, 0, 0, 1), 15);	/* clamp(free_count = 2, batch, 120 - batch) */
	CHECK_EQ(pcp.high, 400 - 30);
	pcp.count = 120;
	CHECK_EQ(ps_pcp_drain_pages(&pcp, p68, 0, 0, 0), 0);	/* the zone back above high: kept under high */
	CHECK_EQ(ps_pcp_refill_blocks(&pcp, 0, 1), 15);
	CHECK_EQ(pcp.high, 370);
	CHECK_EQ(ps_pcp_refill_blocks(&pcp, 0, 0), 30);	/* alloc_factor 1 from the refill before */
	CHECK_EQ(pcp.high, 370 + 30);

	/*
	 * 6.7+ free_high with PCPF_FREE_HIGH_BATCH (taken as set): frees of order 1-3 in
	 * a row drain the lists only once they hold batch pages, and then all of them
	 */
	ps_pcp_init(&pcp, 232, 15);
	ps_pcp_set_adaptive(&pcp, 232, 2000);
	pcp.free_count = 15;
	for (int k = 1; k <= 3; k++) {
		pcp.count = 4 * k;
		CHECK_EQ(ps_pcp_drain_pages(&pcp, p68, 2, 0, 0), 0);	/* under batch: kept */
	}
	pcp.count = 16;
	CHECK_EQ(ps_pcp_drain_pages(&pcp, p68, 2, 0, 0), 16);	/* four order-2 pages: all of them */

	/* 6.7+ decay at each vmstat_update: an eighth a run, floored at count - batch << 5 and high_min */
	{
		int changed = 0;

		ps_pcp_init(&pcp, 8000, 63);
		ps_pcp_set_adaptive(&pcp, 1000, 20000);
		pcp.count = 500;
		CHECK_EQ(ps_pcp_decay_high(&pcp, &changed), 0);
		CHECK_EQ(pcp.high, 7000);
		CHECK_EQ(changed, 1);
		pcp.count = 9100;	/* count - 63 << 5 = 7084 is the floor */
		CHECK_EQ(ps_pcp_decay_high(&pcp, &changed), 9100 - 7084);
		CHECK_EQ(pcp.high, 7084);
		pcp.high = 1050;
		pcp.count = 1200;
		changed = 0;
		CHECK_EQ(ps_pcp_decay_high(&pcp, &changed), 200);
		CHECK_EQ(pcp.high, 1000);
		CHECK_EQ(changed, 0);	/* at high_min: nothing left to decay */
	}
	CHECK_DONE();
}
