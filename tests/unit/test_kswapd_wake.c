// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_kswapd_wake.c - wakeup_kswapd's verdict (ps_wakeup_kswapd) against
 * the kernel's rule (6.1 mm/vmscan.c): a sleeping kswapd is not woken when
 * the node is balanced for the class zone (pgdat_balanced: some zone up to
 * it passes WMARK_HIGH plus its boost) and no zone up to the class zone is
 * boosted (pgdat_watermark_boosted); a boost above the class zone does not
 * count.  A node of two zones: DMA32 with plenty free, Normal short of its
 * high watermark and boosted.  Then balance_pgdat's boosts (the run takes
 * back those of the zones up to its class zone that it started with, not
 * those made meanwhile) and ZONE_BELOW_HIGH's end after a drain, with the
 * pages a follow-mode drain has not yet put back.
 */
#include <stdlib.h>
#include <string.h>
#include "lib/kver.h"
#include "sim/mm/pcp.h"
#include "sim/mm/vmscan.h"
#include "check.h"

static struct ps_mm mm;
static struct ps_zone zones[2];
static int armed;

static void arm(void *ctx, int what, int arg, uint64_t at)
{
	(void)ctx;
	(void)what;
	(void)arg;
	(void)at;
	armed++;
}

static void zone_new(struct ps_zone *z, int index, int type, uint64_t start_pfn, long free)
{
	struct ps_zone_desc d;

	memset(&d, 0, sizeof(d));
	d.node = 0;
	d.type = type;
	d.start_pfn = start_pfn;
	d.spanned = d.present = d.managed = 8192;
	if (ps_zone_create(z, &d, index, ps_profile_by_name("5.10"), 9)) {
		fprintf(stderr, "cannot create a zone\n");
		exit(1);
	}
	z->wmark_min = 100;
	z->wmark_low = 125;
	z->wmark_high = 150;
	z->nr_free_pages = free;
}

int main(void)
{
	struct ps_kswapd *k = &mm.node[0].kswapd;

	zone_new(&zones[0], 0, PS_ZONE_DMA32, 0x1000, 1000);
	zone_new(&zones[1], 1, PS_ZONE_NORMAL, 0x3000, 10);
	memset(&mm, 0, sizeof(mm));
	mm.prof = zones[0].prof;
	mm.kver = PS_KVER(6, 1, 0);
	mm.nr_zones = 2;
	mm.zones = zones;
	mm.ops.arm = arm;
	k->req_zoneidx = -1;

	/* Normal boosted, a wake for DMA32: balanced there and nothing boosted up to it */
	zones[1].watermark_boost = 512;
	ps_wakeup_kswapd(&mm, 0, PS_ZONE_DMA32, 0, 0, 1000);
	CHECK_EQ(k->awake, 0);
	CHECK_EQ(k->wakeups, 0);
	CHECK_EQ(armed, 0);

	/* the same node, a wake for Normal: still balanced (DMA32 passes), but Normal is boosted */
	ps_wakeup_kswapd(&mm, 0, PS_ZONE_NORMAL, 0, 1, 2000);
	CHECK_EQ(k->awake, 1);
	CHECK_EQ(k->wakeups, 1);
	CHECK_EQ(k->boost_wakeups, 1);
	CHECK_EQ(armed, 1);

	/* no boost anywhere and DMA32 balanced: a wake for Normal finds the node balanced */
	memset(k, 0, sizeof(*k));
	k->req_zoneidx = -1;
	mm.nr_awake = 0;
	zones[1].watermark_boost = 0;
	ps_wakeup_kswapd(&mm, 0, PS_ZONE_NORMAL, 0, 0, 3000);
	CHECK_EQ(k->awake, 0);

	/* DMA32 short too: not balanced, woken */
	zones[0].nr_free_pages = 10;
	ps_wakeup_kswapd(&mm, 0, PS_ZONE_NORMAL, 0, 0, 4000);
	CHECK_EQ(k->awake, 1);
	CHECK_EQ(k->wakeups, 1);

	/* a run for class zone DMA32 takes back DMA32's boost only */
	zones[0].watermark_boost = 100;
	zones[1].watermark_boost = 512;
	ps_kswapd_boost_start(&mm, 0, PS_ZONE_DMA32);
	zones[0].watermark_boost += 512;	/* a fallback during the run */
	ps_kswapd_boost_end(&mm, 0);
	CHECK_EQ(zones[0].watermark_boost, 512);
	CHECK_EQ(zones[1].watermark_boost, 512);
	/* a run for Normal takes back both as they were at its start */
	ps_kswapd_boost_start(&mm, 0, PS_ZONE_NORMAL);
	zones[1].watermark_boost += 512;
	ps_kswapd_boost_end(&mm, 0);
	CHECK_EQ(zones[0].watermark_boost, 0);
	CHECK_EQ(zones[1].watermark_boost, 512);
	/* a second end without a start changes nothing */
	ps_kswapd_boost_end(&mm, 0);
	CHECK_EQ(zones[1].watermark_boost, 512);

	/* ZONE_BELOW_HIGH stays until a drain leaves the zone over high plus boost */
	zones[1].kver = mm.kver;
	zones[1].below_high = 1;
	zones[1].nr_free_pages = 150 + 512 - 20;
	ps_pcp_drained(&zones[1], 0);
	CHECK_EQ(zones[1].below_high, 1);
	ps_pcp_drained(&zones[1], 30);		/* 30 drained pages not yet in the buddy */
	CHECK_EQ(zones[1].below_high, 0);

	ps_zone_destroy(&zones[0]);
	ps_zone_destroy(&zones[1]);
	CHECK_DONE();
}
