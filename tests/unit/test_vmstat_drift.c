// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_vmstat_drift.c - NR_FREE_PAGES as the allocator's fast path reads it
 * (vmstat.drift=1): each CPU's change stays in its vm_stat_diff until it
 * passes the CPU's stat_threshold (__mod_zone_page_state), the thresholds of
 * refresh_zone_stat_thresholds on the recorded 2-node machine (4 CPUs: 6
 * pages in a zone under 128 MB, as its zoneinfo's "vm stats threshold"), the
 * pressure threshold while kswapd is awake in a zone with a percpu_drift_mark,
 * and vmstat_update's fold.
 */
#include <stdlib.h>
#include <string.h>
#include "lib/kver.h"
#include "sim/mm/page_alloc.h"
#include "sim/mm/vmstat.h"
#include "check.h"

static struct ps_mm mm;
static struct ps_zone zones[2];

static void zone_new(struct ps_zone *z, int index, uint64_t managed, long min, long low)
{
	struct ps_zone_desc d;

	memset(&d, 0, sizeof(d));
	d.start_pfn = 0x1000 + (uint64_t)index * 0x10000;
	d.spanned = d.present = d.managed = managed;
	if (ps_zone_create(z, &d, index, ps_profile_by_name("6.1"), 9)) {
		fprintf(stderr, "cannot create a zone\n");
		exit(1);
	}
	z->managed = managed;
	z->wmark_min = min;
	z->wmark_low = low;
	z->wmark_high = low + (low - min);
}

/* @n single pages taken from @z on @cpu, each a change of its own */
static void take(struct ps_zone *z, int cpu, int n)
{
	for (int i = 0; i < n; i++) {
		z->nr_free_pages--;
		ps_vmstat_mod_free(&mm, z, cpu);
	}
}

int main(void)
{
	struct ps_zone *dma = &zones[0], *normal = &zones[1];

	memset(&mm, 0, sizeof(mm));
	mm.nr_cpus = 4;
	mm.nr_zones = 2;
	mm.zones = zones;
	mm.vm_diff = calloc(2 * 4, sizeof(*mm.vm_diff));
	mm.t.vmstat_drift = 1;
	/* node 0's DMA and Normal zones of the recorded machine (zoneinfo: min, low) */
	zone_new(dma, 0, 3840, 22, 27);
	zone_new(normal, 1, 31573, 184, 230);
	mm.prof = dma->prof;
	mm.kver = PS_KVER(6, 1, 0);
	ps_vmstat_thresholds(&mm);
	CHECK_EQ(dma->stat_threshold, 6);	/* 2 * fls(4) * (1 + fls(0)) */
	CHECK_EQ(normal->stat_threshold, 6);
	CHECK_EQ(dma->pressure_threshold, 1);	/* (27 - 22) / 4, at least 1 */
	CHECK_EQ(normal->pressure_threshold, 11);	/* (230 - 184) / 4 */
	CHECK(dma->drift_mark);			/* 4 * 6 > 27 - 22 */
	CHECK(!normal->drift_mark);		/* 4 * 6 < 230 - 184 */

	/* the first change folds at once: the count starts exact */
	dma->nr_free_pages = 300;
	ps_vmstat_mod_free(&mm, dma, 0);
	CHECK_EQ(dma->free_drift, 0);
	/* six pages on CPU 0 stay in its diff: the count reads 6 high; the seventh folds */
	take(dma, 0, 6);
	CHECK_EQ(dma->free_drift, 6);
	take(dma, 0, 1);
	CHECK_EQ(dma->free_drift, 0);
	/* CPUs add up: 5 on CPU 0 and 4 on CPU 1 */
	take(dma, 0, 5);
	take(dma, 1, 4);
	CHECK_EQ(dma->free_drift, 9);
	/* a free on CPU 1 cancels its diff */
	dma->nr_free_pages += 4;
	ps_vmstat_mod_free(&mm, dma, 1);
	CHECK_EQ(dma->free_drift, 5);
	/* vmstat_update folds every CPU's diff */
	ps_vmstat_fold_free(&mm);
	CHECK_EQ(dma->free_drift, 0);
	/* the fast path reads it: LOW 27 plus a reserve of 186 passes with 209 free read as 214 */
	dma->lowmem_reserve[PS_ZONE_NORMAL] = 186;
	dma->nr_free_pages = 214;
	ps_vmstat_fold_free(&mm);
	take(dma, 0, 5);
	CHECK_EQ(dma->nr_free_pages, 209);
	CHECK(ps_zone_ok(&mm, dma, 0, 0, PS_ZONE_NORMAL, 0));
	ps_vmstat_fold_free(&mm);
	CHECK(!ps_zone_ok(&mm, dma, 0, 0, PS_ZONE_NORMAL, 0));

	/* kswapd awake: the DMA zone's threshold drops to 1, Normal's stays 6 */
	mm.node[0].kswapd.awake = 1;
	take(dma, 2, 1);
	CHECK_EQ(dma->free_drift, 1);
	take(dma, 2, 1);
	CHECK_EQ(dma->free_drift, 0);
	normal->nr_free_pages = 5000;
	ps_vmstat_mod_free(&mm, normal, 3);
	take(normal, 3, 6);
	CHECK_EQ(normal->free_drift, 6);

	/* vmstat.drift=0: the checks read the exact count */
	mm.t.vmstat_drift = 0;
	take(normal, 3, 3);
	CHECK_EQ(normal->free_drift, 0);

	ps_zone_destroy(dma);
	ps_zone_destroy(normal);
	free(mm.vm_diff);
	CHECK_DONE();
}
