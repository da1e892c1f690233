// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm.c - the model set up for one machine: its zones, per-CPU lists,
 * zonelists and per-node state, as after boot.
 *
 * Notes (what this simplifies):
 *  - Per-CPU list sizes come from the recorded zoneinfo (high and batch of
 *    the first CPU listed, with 6.7+'s auto-tuning bounds), not from the
 *    kernel's formulas, unless the tunables override them.
 *  - Every zone of the machine description is modelled; memory hotplug is
 *    not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mm/mm.h"
#include "sim/mm/vmstat.h"
#include "sim/mm/watermark.h"
#include "sim/mm/zonelist.h"

uint64_t ps_mm_node_pages(const struct ps_mm *mm, int n)
{
	uint64_t pages = 0;

	for (int i = 0; i < mm->nr_zones; i++)
		if (mm->zones[i].node == n)
			pages += mm->zones[i].nr_pages;
	return pages;
}

/*
 * The watermarks and lowmem_reserve of every zone recomputed by the
 * tunables' release's rules (watermark.c); kept as recorded when the layout
 * has no managed counts (an assumed one).
 */
static void setup_wmarks(struct ps_mm *mm)
{
	struct ps_wmark_tunables t;
	struct ps_wmarks *w;

	ps_wmark_tunables_default(&t, mm->t.wmark_kver);
	if (mm->t.min_free_kbytes >= 0)
		t.min_free_kbytes = mm->t.min_free_kbytes;
	if (mm->t.watermark_scale_factor >= 0)
		t.watermark_scale_factor = (int)mm->t.watermark_scale_factor;
	w = malloc(sizeof(*w));
	if (!w || ps_wmark_setup(w, mm->m, &t) < 0) {
		free(w);
		return;
	}
	for (int i = 0; i < mm->nr_zones; i++) {
		struct ps_zone *z = &mm->zones[i];
		const struct ps_wmark_zone *wz = &w->zone[z->node][z->type];

		z->wmark_min = wz->mark[PS_WMARK_MIN];
		z->wmark_low = wz->mark[PS_WMARK_LOW];
		z->wmark_high = wz->mark[PS_WMARK_HIGH];
		memcpy(z->lowmem_reserve, wz->lowmem_reserve, sizeof(z->lowmem_reserve));
	}
	free(w);
}

static int init_pcps(struct ps_mm *mm)
{
	const struct ps_machine *m = mm->m;

	mm->nr_cpus = m->nr_cpus > 0 ? m->nr_cpus : 1;
	if (mm->nr_cpus > PS_MAX_CPUS)
		mm->nr_cpus = PS_MAX_CPUS;
	mm->pcps = calloc((size_t)m->nr_zones * mm->nr_cpus, sizeof(*mm->pcps));
	mm->vm_expire = calloc((size_t)m->nr_zones * mm->nr_cpus, 1);
	mm->vm_touched = calloc((size_t)m->nr_zones * mm->nr_cpus, 1);
	mm->vm_queued = calloc(mm->nr_cpus, 1);
	mm->vm_diff = calloc((size_t)m->nr_zones * mm->nr_cpus, sizeof(*mm->vm_diff));
	if (!mm->pcps || !mm->vm_expire || !mm->vm_touched || !mm->vm_queued || !mm->vm_diff)
		return -1;
	for (int i = 0; i < m->nr_zones; i++) {
		const struct ps_zone_desc *d = &m->zones[i];
		int batch = d->pcp_batch > 0 ? d->pcp_batch : 63;
		int high = d->pcp_high >= 0 ? d->pcp_high : 6 * batch, hmin = d->pcp_high_min, hmax = d->pcp_high_max;

		/*
		 * 6.7 to 6.12 auto-tune high between high_min and high_max but
		 * print neither in zoneinfo (6.13 does): the bounds by the
		 * kernel's rule for the recorded fraction, high as recorded.
		 */
		if (mm->kver >= PS_KVER(6, 7, 0) && hmin <= 0 && hmax <= 0 && d->pcp_high >= 0 &&
		    mm->t.percpu_pagelist_high_fraction < 0) {
			int h;

			if (ps_pcp_high_fraction(mm->kver, d->managed, d->wmark_low, mm->t.recorded_high_fraction,
						 ps_machine_node_cpus(m, d->node), m->nr_cpus, batch, &h, &hmin, &hmax) < 0)
				hmin = hmax = 0;
		}
		/* vm.percpu_pagelist_high_fraction other than the recorded one: the kernel's rule */
		if (mm->t.percpu_pagelist_high_fraction >= 0 &&
		    ps_pcp_high_fraction(mm->kver, d->managed, d->wmark_low, mm->t.percpu_pagelist_high_fraction,
					 ps_machine_node_cpus(m, d->node), m->nr_cpus, batch, &high, &hmin, &hmax) < 0)
			return -2;
		if (mm->t.pcp_batch >= 0)
			batch = (int)mm->t.pcp_batch;
		if (mm->t.pcp_high >= 0)
			high = (int)mm->t.pcp_high;
		for (int c = 0; c < mm->nr_cpus; c++) {
			struct ps_pcp *pcp = &mm->pcps[(size_t)i * mm->nr_cpus + c];

			ps_pcp_init(pcp, high, batch);
			if (mm->t.pcp_batch_scale_max >= 0)
				pcp->scale_max = (int)mm->t.pcp_batch_scale_max;
			if (mm->t.pcp_high < 0)
				ps_pcp_set_adaptive(pcp, hmin, hmax);
		}
	}
	return 0;
}

int ps_mm_create(struct ps_mm *mm, const struct ps_machine *m, const struct ps_profile *prof, int kver,
		 const struct ps_mm_tunables *t, int dirty, char *err, int len)
{
	memset(mm, 0, sizeof(*mm));
	mm->m = m;
	mm->prof = prof;
	mm->kver = kver;
	mm->t = *t;
	mm->nr_zones = m->nr_zones;
	mm->zones = calloc(m->nr_zones ? m->nr_zones : 1, sizeof(*mm->zones));
	mm->gbase = calloc(m->nr_zones ? m->nr_zones : 1, sizeof(*mm->gbase));
	if (!mm->zones || !mm->gbase)
		goto nomem;
	for (int i = 0; i < m->nr_zones; i++) {
		struct ps_zone *z = &mm->zones[i];

		if (ps_zone_create(z, &m->zones[i], i, prof, m->pageblock_order) < 0) {
			snprintf(err, len, "cannot model zone %s of node %d (%llu pages): out of memory or too large",
				 ps_zone_names[m->zones[i].type], m->zones[i].node,
				 (unsigned long long)m->zones[i].spanned);
			ps_mm_destroy(mm);
			return -1;
		}
		z->boost_factor = t->watermark_boost_factor;
		z->kver = kver;
		mm->gbase[i] = mm->total_pages;
		mm->total_pages += z->nr_pages;
	}
	for (int n = 0; n < PS_MAX_NODES; n++) {
		mm->node[n].kswapd.req_zoneidx = -1;
		mm->node[n].kswapd.zoneidx = PS_ZONE_NORMAL;
	}
	/* kswapd frees on its node's first CPU (CPU 0 for a node without any) until told otherwise */
	for (int c = (m->nr_cpus < PS_MAX_CPUS ? m->nr_cpus : PS_MAX_CPUS) - 1; c >= 0; c--)
		if (m->cpu_node[c] >= 0 && m->cpu_node[c] < PS_MAX_NODES)
			mm->node[m->cpu_node[c]].kswapd.cpu = c;
	switch (init_pcps(mm)) {
	case 0:
		break;
	case -2:
		snprintf(err, len, "vm.percpu_pagelist_high_fraction came with 5.14: the kernel replayed (%s profile) has vm.percpu_pagelist_fraction, which pagesim does not model",
			 prof->name);
		ps_mm_destroy(mm);
		return -1;
	default:
		goto nomem;
	}
	if (t->wmark_recompute)
		setup_wmarks(mm);
	ps_vmstat_thresholds(mm);
	/* build_all_zonelists, in node order */
	mm->zl = calloc(1, sizeof(*mm->zl));
	if (!mm->zl)
		goto nomem;
	ps_zonelists_build(mm->zl, m, kver, PS_ZONELIST_ORDER_NODE);
	for (int n = 0; n < PS_MAX_NODES; n++)
		for (int ty = 0; ty < PS_ZONE_NR; ty++)
			mm->node_zone[n][ty] = -1;
	for (int i = 0; i < mm->nr_zones; i++)
		if (mm->zones[i].node < PS_MAX_NODES)
			mm->node_zone[mm->zones[i].node][mm->zones[i].type] = i;
	/* the fair zone policy's batches start full, as after setup_per_zone_wmarks */
	for (int i = 0; i < mm->nr_zones && prof->fair; i++)
		mm->zones[i].nr_alloc_batch = mm->zones[i].wmark_high - mm->zones[i].wmark_low;
	for (int n = 0; n < PS_MAX_NODES; n++) {
		struct ps_lrugen *lg = &mm->node[n].lru.gen;

		for (int l = 0; l < PS_NR_LRU; l++)
			mm->node[n].lru.head[l] = mm->node[n].lru.tail[l] = PS_NIL;
		/* lru_gen_init_lruvec: max_seq MIN_NR_GENS + 1, min_seq 0 */
		lg->max_seq = PS_MIN_NR_GENS + 1;
		for (int g = 0; g < PS_MAX_NR_GENS; g++)
			for (int ty = 0; ty < 2; ty++)
				for (int zt = 0; zt < PS_ZONE_NR; zt++)
					lg->head[g][ty][zt] = lg->tail[g][ty][zt] = PS_NIL;
	}
	if (dirty) {
		/* the model's page flags: LRU state */
		for (int i = 0; i < mm->nr_zones; i++)
			if (!(mm->zones[i].lru = calloc(mm->zones[i].nr_pages, 1)))
				goto nomem;
		/* the dirty limits: node_dirty_ok from 4.8, zone_dirty_ok before */
		if (ps_dirty_init(&mm->dirty, mm->zones, mm->nr_zones, mm->gbase, mm->total_pages,
				  kver >= PS_KVER(4, 8, 0), t->dirty_ratio, t->dirty_bytes) < 0)
			goto nomem;
		ps_writeback_init(&mm->dirty, t->dirty_expire_cs, t->dirty_writeback_cs);
		/* node reclaim's floors: vm.min_unmapped_ratio and min_slab_ratio percent of each zone's managed pages */
		for (int i = 0; i < mm->nr_zones; i++)
			if (mm->zones[i].node < PS_MAX_NODES) {
				mm->node[mm->zones[i].node].min_unmapped_pages +=
					(long)mm->zones[i].managed * t->min_unmapped_ratio / 100;
				mm->node[mm->zones[i].node].min_slab_pages +=
					(long)mm->zones[i].managed * t->min_slab_ratio / 100;
			}
		for (int n = 0; n < PS_MAX_NODES; n++)
			mm->node[n].nr_slab_reclaimable = m->node[n].nr_slab_reclaimable > 0 ? m->node[n].nr_slab_reclaimable : 0;
	}
	return 0;
nomem:
	snprintf(err, len, "out of memory building the model");
	ps_mm_destroy(mm);
	return -1;
}

void ps_mm_destroy(struct ps_mm *mm)
{
	for (int i = 0; mm->zones && i < mm->nr_zones; i++)
		ps_zone_destroy(&mm->zones[i]);
	free(mm->zones);
	free(mm->gbase);
	ps_dirty_free(&mm->dirty);
	free(mm->pcps);
	free(mm->vm_expire);
	free(mm->vm_touched);
	free(mm->vm_queued);
	free(mm->vm_diff);
	free(mm->iso.pool);
	free(mm->iso.top);
	free(mm->zl);
	memset(mm, 0, sizeof(*mm));
}
