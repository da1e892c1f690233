// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * page_alloc.c - the zone walk of __alloc_pages per kernel version, rmqueue
 * from the per-CPU lists or the buddy, the highatomic reserves, the fair
 * zone policy, and the free path.
 *
 * Simplifies: the walk tries zones in zonelist order against WMARK_LOW plus
 * boost, then WMARK_MIN plus boost (with the slow path's reductions for
 * __GFP_HIGH and ALLOC_HARDER), then without watermarks (standing in for
 * direct reclaim and compaction); a failed request is counted, not retried.
 * The fair zone policy (<= 4.7) is one form for 4.0-4.7: a fair pass over
 * the preferred node, then an unfair walk of the whole zonelist, where the
 * 4.6 and 4.7 code both end up.  See docs/replay.md.
 */
#include <stddef.h>

#include "lib/event.h"
#include "lib/kver.h"
#include "sim/mm/lock.h"
#include "sim/mm/page_alloc.h"
#include "sim/mm/vmscan.h"
#include "sim/mm/vmstat.h"

int ps_mm_gfp_zone(const struct ps_mm *mm, uint32_t gfp)
{
	if (gfp & PS_GFP_DMA)
		return PS_ZONE_DMA;
	if (gfp & PS_GFP_DMA32)
		return PS_ZONE_DMA32;
	if ((gfp & PS_GFP_MOVABLE) && (gfp & PS_GFP_HIGHMEM))
		return PS_ZONE_MOVABLE;
	return PS_ZONE_NORMAL;
}

/* __zone_watermark_ok, simplified: free pages above @mark plus lowmem_reserve of the class zone */
static int wmark_ok(const struct ps_zone *z, int order, long mark, int classzone, int harder)
{
	long free = (long)z->nr_free_pages - (1L << order) + 1;

	mark += classzone >= 0 && classzone < PS_ZONE_NR ? z->lowmem_reserve[classzone] : 0;
	/* 4.4+: the high-atomic reserves (whole blocks) are unusable but to ALLOC_HARDER */
	if (!z->prof->old_mt && !harder)
		free -= z->nr_reserved_highatomic;
	if (free <= mark)
		return 0;
	if (!order)
		return 1;
	if (z->prof->old_mt) {
		/* <= 4.3: subtract the free pages of each lower order, halving the mark */
		for (int o = 0; o < order; o++) {
			free -= (long)(z->free_area[o].nr_free << o);
			mark >>= 1;
			if (free <= mark)
				return 0;
		}
		return 1;
	}
	/* 4.4+: a free block of at least the order on a list the request may use */
	for (int o = order; o < PS_NR_ORDERS; o++)
		for (int mt = 0; mt < PS_MT_PCPTYPES; mt++)
			if (z->free_area[o].free_list[mt].head != PS_NIL)
				return 1;
	return 0;
}

int ps_zone_balanced_wmark(const struct ps_zone *z, int order, long mark, int classzone)
{
	return wmark_ok(z, order, mark, classzone, 0);
}

/* ALLOC_HARDER: the slow path of an atomic request (__GFP_ATOMIC, or __GFP_HIGH without direct reclaim). */
static int alloc_harder(uint32_t gfp, int pass)
{
	if (pass == 0 || (gfp & PS_GFP_NOMEMALLOC))
		return 0;
	return (gfp & PS_GFP_ATOMIC) || (!(gfp & PS_GFP_DIRECT_RECLAIM) && (gfp & PS_GFP_HIGH));
}

/*
 * In the slow path __GFP_HIGH (ALLOC_HIGH, 6.3+ ALLOC_MIN_RESERVE) halves
 * MIN and @harder (ALLOC_HARDER, 6.3+ ALLOC_NON_BLOCK) takes a quarter off
 * what is left.
 */
static long slow_path_min(long min, uint32_t gfp, int harder)
{
	if (gfp & PS_GFP_HIGH)
		min -= min / 2;
	if (harder)
		min -= min / 4;
	return min;
}

/*
 * zone_watermark_ok in the zone walk: WMARK_LOW plus boost (pass 0, the
 * fast path), WMARK_MIN plus boost (1, the slow path: 5.0+ boosts MIN too),
 * none (2).  5.10+ lets an order-0 GFP_ATOMIC request failing the boosted
 * MIN try the unboosted one (zone_watermark_fast; up to 6.2 __GFP_ATOMIC,
 * from 6.3, which dropped that flag, ALLOC_MIN_RESERVE: here __GFP_HIGH
 * without __GFP_DIRECT_RECLAIM, which is GFP_ATOMIC there).
 */
int ps_zone_ok(const struct ps_mm *mm, const struct ps_zone *z, int order, int pass, int classzone, uint32_t gfp)
{
	int harder = alloc_harder(gfp, pass);

	if (pass >= 2)
		return 1;
	if (pass == 0)
		return wmark_ok(z, order, z->wmark_low + (long)z->watermark_boost, classzone, 0);
	if (wmark_ok(z, order, slow_path_min(z->wmark_min + (long)z->watermark_boost, gfp, harder), classzone, harder))
		return 1;
	if (order || !z->watermark_boost || z->prof->kver_min < PS_KVER(5, 10, 0) ||
	    !((gfp & PS_GFP_ATOMIC) || ((gfp & PS_GFP_HIGH) && !(gfp & PS_GFP_DIRECT_RECLAIM))))
		return 0;
	return wmark_ok(z, order, slow_path_min(z->wmark_min, gfp, harder), classzone, harder);
}

/*
 * High-order atomic reserves (4.4+): a slow-path, non-blocking high-order
 * request (ALLOC_HARDER with __GFP_ATOMIC up to 6.2, ALLOC_HIGHATOMIC from
 * 6.3: no direct reclaim, __GFP_HIGH) tries the HIGHATOMIC lists first and,
 * once served, turns its pageblock into a reserve while the zone holds less
 * than 1% of its pages (plus one block) in reserves.
 */
static int highatomic_request(const struct ps_mm *mm, uint32_t gfp, int order, int pass)
{
	return !mm->prof->old_mt && order && alloc_harder(gfp, pass);
}

static void reserve_highatomic(struct ps_mm *mm, struct ps_zone *z, uint32_t idx)
{
	long pbn = 1L << z->pageblock_order;
	int mt = ps_pageblock_mt(z, idx);

	if (z->nr_reserved_highatomic >= (long)(z->managed / 100) + pbn || mt >= PS_MT_PCPTYPES)
		return;
	ps_set_pageblock_mt(z, idx, PS_MT_HIGHATOMIC);
	ps_move_freepages_block(z, idx, PS_MT_HIGHATOMIC, NULL);
	z->nr_reserved_highatomic += pbn;
	mm->highatomic_reserved++;
}

/* unreserve_highatomic_pageblock: before the last-resort pass, give one reserve back. */
static void unreserve_highatomic(struct ps_mm *mm, struct ps_zone *z, int mt)
{
	long pbn = 1L << z->pageblock_order;

	if (z->nr_reserved_highatomic <= pbn)
		return;
	for (int o = 0; o < PS_NR_ORDERS; o++) {
		uint32_t idx = z->free_area[o].free_list[PS_MT_HIGHATOMIC].head;

		if (idx == PS_NIL)
			continue;
		if (ps_pageblock_mt(z, idx) == PS_MT_HIGHATOMIC) {
			z->nr_reserved_highatomic -= pbn;
			ps_set_pageblock_mt(z, idx, mt);
		}
		ps_move_freepages_block(z, idx, mt, NULL);
		mm->highatomic_unreserved++;
		return;
	}
}

/* rmqueue: from the CPU's per-CPU lists when the order may use them, else from the buddy. */
static uint32_t rmqueue(struct ps_mm *mm, struct ps_zone *z, int cpu, int order, int mt, int highatomic)
{
	uint32_t idx = PS_NIL;
	uint64_t fallbacks;

	if (ps_pcp_allowed(mm->prof, order, z->pageblock_order)) {
		idx = ps_pcp_alloc(z, ps_mm_pcp(mm, z, cpu), order, mt);
		if (idx != PS_NIL && highatomic)
			reserve_highatomic(mm, z, idx);	/* get_page_from_freelist, after any success */
		if (idx != PS_NIL || !highatomic)
			return idx;
	}
	fallbacks = z->fallbacks;
	z->lock_acquisitions++;
	if (highatomic)
		idx = ps_rmqueue(z, order, PS_MT_HIGHATOMIC, NULL);
	if (idx == PS_NIL)
		idx = ps_rmqueue(z, order, mt, NULL);
	if (idx != PS_NIL) {
		ps_lock_section(z->lock, z->index, cpu, z->now_ns, 1,
				z->fallbacks != fallbacks ? PS_LOCK_FALLBACK : PS_LOCK_DIRECT_ALLOC);
		if (highatomic)
			reserve_highatomic(mm, z, idx);
	}
	return idx;
}

/*
 * The fair zone allocation policy (3.12-4.7): the preferred zone's node,
 * whose zones share the fast path in batches of high - low pages
 * (NR_ALLOC_BATCH); -1 when the zonelist has no zone up to @high.
 */
static int fair_node(const struct ps_mm *mm, int node, int thisnode, int high)
{
	int nr;

	if (node < 0 || node >= PS_MAX_NODES || high < 0 || high >= PS_ZONE_NR)
		return -1;
	nr = thisnode ? 1 : mm->nr_node_order[node];
	for (int ni = 0; ni < nr; ni++) {
		int n = thisnode ? node : mm->node_order[node][ni];

		for (int t = high; t >= 0 && n < PS_MAX_NODES; t--)
			if (mm->node_zone[n][t] >= 0)
				return n;
	}
	return -1;
}

/* reset_alloc_batches: the preferred node's zones up to @high get high - low again. */
static void fair_reset(struct ps_mm *mm, int node, int high)
{
	for (int t = high; t >= 0; t--) {
		int zi = mm->node_zone[node][t];

		if (zi >= 0)
			mm->zones[zi].nr_alloc_batch = mm->zones[zi].wmark_high - mm->zones[zi].wmark_low;
	}
	mm->fair_resets++;
}

struct ps_zone *ps_alloc_pages(struct ps_mm *mm, int cpu, int node, int thisnode, int high, int order, int mt,
			       uint32_t gfp, uint32_t *idx)
{
	int nr = thisnode ? 1 : mm->nr_node_order[node];
	/* vm.defrag_mode (6.15+): no fragmenting fallback until reclaim has failed (pass 3) */
	int defrag = mm->t.defrag_mode && mm->prof->defrag_mode;
	int local = defrag || node < 0 || node >= PS_MAX_NODES || high < 0 || high >= PS_ZONE_NR ? -1 :
		    mm->nofrag_node[thisnode][node][high];

	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1) {
			/* the slow path wakes kswapd on every node of the zonelist (ALLOC_KSWAPD) */
			for (int ni = 0; ni < nr && (gfp & PS_GFP_KSWAPD_RECLAIM); ni++)
				ps_wakeup_kswapd(mm, thisnode ? node : mm->node_order[node][ni], high, order, mm->now_ns);
		}
		if (pass == 2 && !mm->prof->old_mt) {
			/* before the last resort, the reserves go back */
			for (int ni = 0; ni < nr; ni++) {
				int n = thisnode ? node : mm->node_order[node][ni];

				for (int t = high; t >= 0; t--)
					if (n < PS_MAX_NODES && mm->node_zone[n][t] >= 0)
						unreserve_highatomic(mm, &mm->zones[mm->node_zone[n][t]], mt);
			}
		}
		/*
		 * The fast path walks first with ALLOC_NOFRAGMENT (5.1+) or
		 * ALLOC_FAIR (<= 4.7), each confined to one node, and starts
		 * again without it on reaching a remote node or the end of
		 * the zonelist (get_page_from_freelist's retry).  The fair
		 * walk passes over depleted zones; having passed one, it
		 * refills the node's batches first.
		 */
		int fair = pass == 0 && mm->prof->fair;
		int first = pass > 0 ? -1 : fair ? fair_node(mm, node, thisnode, high) : local;

		for (int confined = first >= 0; confined >= 0; confined--) {
			int skipped = 0;

			for (int ni = 0; ni < nr; ni++) {
				int n = thisnode ? node : mm->node_order[node][ni];

				if (confined && n != first)
					break;
				for (int t = high; t >= 0; t--) {
					int zi = n < PS_MAX_NODES ? mm->node_zone[n][t] : -1;
					struct ps_zone *z;
					uint64_t boosts;

					if (zi < 0)
						continue;
					z = &mm->zones[zi];
					if (confined && fair && z->nr_alloc_batch <= 0) {
						skipped = 1;	/* ZONE_FAIR_DEPLETED */
						mm->fair_skipped++;
						continue;
					}
					/* spread_dirty_pages: the fast path skips a node (zone) over its dirty limit */
					if (pass == 0 && (gfp & PS_GFP_WRITE) && !ps_dirty_ok(&mm->dirty, mm->zones, zi)) {
						mm->dirty.skips++;
						continue;
					}
					if (!ps_zone_ok(mm, z, order, pass, high, gfp) &&
					    !(pass == 0 && ps_node_reclaim(mm, z, cpu, order, high, gfp)))
						continue;
					z->now_ns = mm->now_ns;
					z->now_cpu = cpu;
					z->nofragment = (confined && !fair) || (defrag && pass < 2);
					boosts = z->boosts;
					*idx = rmqueue(mm, z, cpu, order, mt, highatomic_request(mm, gfp, order, pass));
					z->nofragment = 0;
					/* ZONE_BOOSTED_WATERMARK: set only with ALLOC_KSWAPD */
					if (z->boosts != boosts && (gfp & PS_GFP_KSWAPD_RECLAIM))
						ps_wakeup_kswapd(mm, z->node, z->type, 0, mm->now_ns);
					if (*idx != PS_NIL) {
						if (pass == 2)
							mm->wmark_ignored++;
						if (mm->prof->fair)
							z->nr_alloc_batch -= 1l << order;	/* every page taken, any pass */
						return z;
					}
				}
			}
			if (skipped)
				fair_reset(mm, first, high);
		}
	}
	return NULL;
}

void ps_free_pages(struct ps_mm *mm, struct ps_zone *z, uint32_t idx, int order, int cpu, uint64_t now, int traced)
{
	z->now_ns = now;
	z->now_cpu = cpu;
	if (traced)
		ps_vmstat_touch(mm, z->index, cpu);
	ps_dirty_release(&mm->dirty, mm->gbase[z->index] + idx, z->index, order);
	if (ps_pcp_allowed(mm->prof, order, z->pageblock_order)) {
		ps_pcp_free(z, ps_mm_pcp(mm, z, cpu), idx, order);
	} else {
		z->lock_acquisitions++;
		if (traced)
			ps_lock_section(z->lock, z->index, cpu, now, 1, PS_LOCK_DIRECT_FREE);
		ps_free_block(z, idx, order);
	}
}

void ps_drain_zone_pages(struct ps_mm *mm, struct ps_zone *z, int cpu, int n, uint64_t now)
{
	z->now_ns = now;
	z->now_cpu = cpu;
	ps_pcp_drain(z, ps_mm_pcp(mm, z, cpu), n, 0);
}
