// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_zone_ok.c - the zone walk's watermark check (ps_zone_ok) against the
 * kernel's rules (docs/kernel-rules.md, Watermarks): the fast
 * path checks WMARK_LOW plus boost; the slow path WMARK_MIN plus boost,
 * halved for __GFP_HIGH and a quarter of the rest off for ALLOC_HARDER; from
 * 5.10 an order-0 __GFP_ATOMIC request that fails the boosted MIN tries the
 * unboosted one.  A check passes when free > mark (+ lowmem_reserve).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/kver.h"
#include "sim/mm/page_alloc.h"
#include "sim/mm/watermark.h"
#include "check.h"

static struct ps_mm mm;

static void zone_new(struct ps_zone *z, const char *prof)
{
	struct ps_zone_desc d;

	memset(&d, 0, sizeof(d));
	d.start_pfn = 0x1000;
	d.spanned = d.present = d.managed = 8192;
	if (ps_zone_create(z, &d, 0, ps_profile_by_name(prof), 9)) {
		fprintf(stderr, "cannot create a zone for profile %s\n", prof);
		exit(1);
	}
	z->wmark_min = 100;
	z->wmark_low = 125;
	z->wmark_high = 150;
	memset(&mm, 0, sizeof(mm));
	mm.prof = z->prof;
	mm.kver = z->prof->kver_min;
}

/* The lowest free count that passes: the mark the check applied, plus one. */
static long lowest_ok(struct ps_zone *z, int pass, uint32_t gfp)
{
	for (long f = 0; f < 10000; f++) {
		z->nr_free_pages = f;
		if (ps_zone_ok(&mm, z, 0, pass, -1, ps_gfp_to_alloc_flags(gfp, 0, mm.kver, pass)))
			return f;
	}
	return -1;
}

int main(void)
{
	const uint32_t kernel = PS_GFP_DIRECT_RECLAIM | PS_GFP_KSWAPD_RECLAIM | PS_GFP_IO | PS_GFP_FS;
	const uint32_t atomic = PS_GFP_HIGH | PS_GFP_ATOMIC | PS_GFP_KSWAPD_RECLAIM;
	struct ps_zone z;

	zone_new(&z, "5.10");
	/* no boost */
	CHECK_EQ(lowest_ok(&z, 0, kernel), 126);		/* LOW */
	CHECK_EQ(lowest_ok(&z, 1, kernel), 101);		/* MIN */
	CHECK_EQ(lowest_ok(&z, 1, PS_GFP_HIGH | kernel), 51);	/* MIN - MIN/2 */
	CHECK_EQ(lowest_ok(&z, 1, atomic), 39);		/* 100 - 50 = 50, 50 - 12 = 38 */
	CHECK_EQ(lowest_ok(&z, 2, kernel), 0);		/* no watermark */
	/* a boost of 200 raises LOW and MIN alike (5.0+) */
	z.watermark_boost = 200;
	CHECK_EQ(lowest_ok(&z, 0, kernel), 326);
	CHECK_EQ(lowest_ok(&z, 0, atomic), 326);		/* the fast path has no reductions */
	CHECK_EQ(lowest_ok(&z, 1, kernel), 301);
	CHECK_EQ(lowest_ok(&z, 1, PS_GFP_HIGH | kernel), 151);
	/* 5.10+: order-0 GFP_ATOMIC falls back to the unboosted MIN, with its reductions */
	CHECK_EQ(lowest_ok(&z, 1, atomic), 39);
	/* up to 6.2 a request without __GFP_ATOMIC is not ALLOC_HARDER: halved boosted MIN only */
	CHECK_EQ(lowest_ok(&z, 1, PS_GFP_HIGH | PS_GFP_KSWAPD_RECLAIM), 151);
	/*
	 * 6.3+ GFP_ATOMIC has no __GFP_ATOMIC: __GFP_HIGH | __GFP_KSWAPD_RECLAIM
	 * is ALLOC_MIN_RESERVE | ALLOC_NON_BLOCK and gets the same as 6.1's
	 * GFP_ATOMIC; __GFP_HIGH with direct reclaim retries the unboosted MIN
	 * too, halved (ALLOC_MIN_RESERVE alone)
	 */
	mm.kver = PS_KVER(6, 5, 0);
	CHECK_EQ(lowest_ok(&z, 1, PS_GFP_HIGH | PS_GFP_KSWAPD_RECLAIM), 39);
	CHECK_EQ(lowest_ok(&z, 1, PS_GFP_HIGH | kernel), 51);
	mm.kver = PS_KVER(5, 10, 0);
	/* __GFP_HIGH with direct reclaim gets the halved boosted MIN only: 300 - 150 */
	CHECK_EQ(lowest_ok(&z, 1, PS_GFP_HIGH | kernel), 151);
	/* an order-1 request needs a free block of order 1 or more (4.4+): this zone has none */
	z.nr_free_pages = 5000;
	CHECK(!ps_zone_ok(&mm, &z, 1, 1, -1, ps_gfp_to_alloc_flags(atomic, 1, mm.kver, 1)));
	ps_zone_destroy(&z);

	/* 5.0-5.9: the boosted MIN holds for GFP_ATOMIC too: 300 - 150 = 150, 150 - 37 = 113 */
	zone_new(&z, "5.0");
	z.watermark_boost = 200;
	CHECK_EQ(lowest_ok(&z, 1, atomic), 114);
	CHECK_EQ(lowest_ok(&z, 1, kernel), 301);
	/* lowmem_reserve of the class zone adds to the mark after the reductions */
	z.lowmem_reserve[0] = 1000;
	z.watermark_boost = 0;
	for (long f = 0; f < 10000; f++) {
		z.nr_free_pages = f;
		if (ps_zone_ok(&mm, &z, 0, 1, 0, ps_gfp_to_alloc_flags(atomic, 0, mm.kver, 1))) {
			CHECK_EQ(f, 1039);
			break;
		}
	}
	ps_zone_destroy(&z);
	CHECK_DONE();
}
