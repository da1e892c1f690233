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
#include "sim/mm/watermark.h"
#include "sim/mm/zonelist.h"

int ps_mm_gfp_zone(const struct ps_mm *mm, uint32_t gfp)
{
	return ps_gfp_zone(gfp, PS_ZONE_TYPES_X86_64);
}

/*
 * The walk's watermark check, zone_watermark_fast() with the pass's mark
 * and flags: WMARK_LOW plus boost with the fast path's flags (pass 0),
 * WMARK_MIN plus boost (5.0+ boosts MIN too) with gfp_to_alloc_flags() of
 * the slow path (1), none (2: the last resort).
 */
int ps_zone_ok(const struct ps_mm *mm, const struct ps_zone *z, int order, int pass, int classzone, unsigned int flags)
{
	if (pass >= 2)
		return 1;
	if (pass == 0)
		return ps_zone_watermark_fast(mm->kver, z, order, z->wmark_low + z->watermark_boost, classzone,
					      flags, 0, 0);
	return ps_zone_watermark_fast(mm->kver, z, order, z->wmark_min + z->watermark_boost, classzone, flags, 1,
				      z->wmark_min);
}

void ps_zone_walk_high(const struct ps_mm *mm, struct ps_zone *z, int order, int classzone, unsigned int flags)
{
	if (mm->kver >= PS_KVER(6, 7, 0) && !z->below_high &&
	    !ps_zone_watermark_fast(mm->kver, z, order, z->wmark_high + z->watermark_boost, classzone, flags, 0, 0))
		z->below_high = 1;
}

/*
 * High-order atomic reserves (4.4+): a slow-path high-order request with
 * ALLOC_HARDER (an atomic one, up to 6.2) or ALLOC_HIGHATOMIC (6.3+: one
 * that may not block) tries the HIGHATOMIC lists first and, once served,
 * turns its pageblock into a reserve while the zone holds less than 1% of
 * its pages (plus one block) in reserves.
 */
static int highatomic_request(const struct ps_mm *mm, unsigned int flags, int order, int pass)
{
	if (mm->kver < PS_KVER(4, 4, 0) || !order || !pass)
		return 0;
	return mm->kver >= PS_KVER(6, 3, 0) ? !!(flags & PS_ALLOC_HIGHATOMIC) : !!(flags & PS_ALLOC_HARDER);
}

static void reserve_highatomic(struct ps_mm *mm, struct ps_zone *z, uint32_t idx)
{
	long pbn = 1L << z->pageblock_order;
	int mt = ps_pageblock_mt(z, idx);

	if (z->nr_reserved_highatomic >= (long)(z->managed / 100) + pbn || mt >= PS_MIGRATE_PCPTYPES)
		return;
	ps_set_pageblock_mt(z, idx, PS_MT_HIGHATOMIC);
	ps_move_freepages_block(z, idx, PS_MT_HIGHATOMIC, NULL);
	z->nr_reserved_highatomic += pbn;
	mm->highatomic_reserved++;
}

/*
 * unreserve_highatomic_pageblock, before the last-resort pass: the first
 * zone of the zonelist (up to @high) holding more than one reserved block
 * gives one back, the smallest free highatomic block's pageblock re-typed
 * to the request's @mt; it stops once a block moved free pages (4.10+
 * tries the next one when none moved).
 */
static void unreserve_highatomic(struct ps_mm *mm, const struct ps_zoneref *refs, int nr, int high, int mt)
{
	for (int i = 0; i < nr; i++) {
		int zi = ps_mm_zoneref_zone(mm, refs[i].node, refs[i].type, high);
		struct ps_zone *z;
		long pbn;

		if (zi < 0)
			continue;
		z = &mm->zones[zi];
		pbn = 1L << z->pageblock_order;
		if (z->nr_reserved_highatomic <= pbn)
			continue;
		for (int o = 0; o < PS_NR_PAGE_ORDERS; o++) {
			uint32_t idx = z->free_area[o].free_list[PS_MT_HIGHATOMIC].head;

			if (idx == PS_NIL)
				continue;
			if (ps_pageblock_mt(z, idx) == PS_MT_HIGHATOMIC) {
				z->nr_reserved_highatomic -= pbn < z->nr_reserved_highatomic ? pbn : z->nr_reserved_highatomic;
				ps_set_pageblock_mt(z, idx, mt);
			}
			mm->highatomic_unreserved++;
			if (ps_move_freepages_block(z, idx, mt, NULL) || mm->kver < PS_KVER(4, 10, 0))
				return;
		}
	}
}

/* rmqueue: from the CPU's per-CPU lists when the order may use them, else from the buddy. */
static uint32_t rmqueue(struct ps_mm *mm, struct ps_zone *z, int cpu, int order, int mt, int highatomic)
{
	uint32_t idx = PS_NIL;
	uint64_t fallbacks;

	if (ps_pcp_allowed(mm->prof, order, z->pageblock_order)) {
		idx = ps_pcp_alloc(z, ps_mm_pcp(mm, z, cpu), order, mt);
		ps_vmstat_mod_free(mm, z, cpu);	/* a refill */
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
	ps_vmstat_mod_free(mm, z, cpu);
	if (idx != PS_NIL) {
		ps_lock_section(z->lock, z->index, cpu, z->now_ns, 1,
				z->fallbacks != fallbacks ? PS_LOCK_FALLBACK : PS_LOCK_DIRECT_ALLOC);
		if (highatomic)
			reserve_highatomic(mm, z, idx);
	}
	return idx;
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

/*
 * wake_all_kswapds: the slow path wakes the kswapd of every node with a
 * managed zone up to @high in the zonelist (ALLOC_KSWAPD).
 */
static void wake_all_kswapds(struct ps_mm *mm, const struct ps_zoneref *refs, int nr, int high, int order)
{
	int last = -1;

	for (int i = 0; i < nr; i++) {
		int zi = ps_mm_zoneref_zone(mm, refs[i].node, refs[i].type, high);

		if (zi < 0 || !mm->zones[zi].managed || refs[i].node == last)
			continue;
		last = refs[i].node;
		ps_wakeup_kswapd(mm, last, high, order, 0, mm->now_ns);
	}
}

/*
 * ALLOC_NOFRAGMENT (5.1+, alloc_flags_nofragment): set in the fast path when
 * the preferred zone is a Normal zone and the machine has one node or that
 * node has a populated DMA32 zone.  Returns the preferred zone's node, or -1.
 */
static int nofragment_node(const struct ps_mm *mm, const struct ps_zoneref *pref)
{
	if (!mm->prof->nofragment || !pref || pref->type != PS_ZONE_NORMAL)
		return -1;
	if (mm->m->nr_nodes > 1 && mm->node_zone[pref->node][PS_ZONE_DMA32] < 0)
		return -1;
	return pref->node;
}

struct ps_zone *ps_alloc_pages(struct ps_mm *mm, int cpu, int node, int thisnode, int high, int order, int mt,
			       uint32_t gfp, uint32_t *idx)
{
	const struct ps_zoneref *refs;
	int nr = ps_node_zonelist(mm->zl, node, thisnode ? PS_GFP_THISNODE : 0, &refs);
	int pref = high >= 0 && high < PS_ZONE_NR ? ps_zonelist_first(refs, nr, high) : -1;
	/* vm.defrag_mode (6.15+): no fragmenting fallback until reclaim has failed (pass 3) */
	int defrag = mm->t.defrag_mode && mm->prof->defrag_mode;
	int local = defrag || pref < 0 ? -1 : nofragment_node(mm, &refs[pref]);
	unsigned int flags = 0;
	int direct_done = 0;

	if (pref < 0)
		return NULL;
	for (int pass = 0; pass < 3; pass++) {
		if (pass < 2)	/* the fast path's, then gfp_to_alloc_flags of the slow path */
			flags = ps_gfp_to_alloc_flags(gfp, order, mm->kver, pass);
		if (pass == 1 && (gfp & PS_GFP_KSWAPD_RECLAIM))
			wake_all_kswapds(mm, refs, nr, high, order);
		if (pass == 2 && (gfp & PS_GFP_DIRECT_RECLAIM) && !direct_done) {
			/*
			 * __alloc_pages_direct_reclaim: what the slow path did not
			 * find, direct reclaim frees, and the walk at MIN runs again
			 */
			direct_done = 1;
			if (ps_try_to_free_pages(mm, refs, nr, high, cpu) > 0) {
				pass = 0;	/* the loop's pass++: the slow path again */
				continue;
			}
		}
		/* before the last resort, the reserves go back */
		if (pass == 2 && mm->kver >= PS_KVER(4, 4, 0))
			unreserve_highatomic(mm, refs, nr, high, mt);
		/*
		 * The fast path walks first with ALLOC_NOFRAGMENT (5.1+) or
		 * ALLOC_FAIR (<= 4.7), each confined to the preferred zone's
		 * node, and starts again without it on reaching a remote node
		 * or the end of the zonelist (get_page_from_freelist's retry).
		 * The fair walk passes over depleted zones; having passed one,
		 * it refills the node's batches first.
		 */
		int fair = pass == 0 && mm->prof->fair;
		int first = pass > 0 ? -1 : fair ? refs[pref].node : local;

		for (int confined = first >= 0; confined >= 0; confined--) {
			int skipped = 0;

			for (int i = 0; i < nr; i++) {
				int zi = ps_mm_zoneref_zone(mm, refs[i].node, refs[i].type, high);
				struct ps_zone *z;
				uint64_t boosts;

				if (zi < 0)
					continue;
				if (confined && refs[i].node != first)
					break;
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
				ps_zone_walk_high(mm, z, order, high, flags);
				if (!ps_zone_ok(mm, z, order, pass, high, flags) &&
				    !(pass == 0 && ps_node_reclaim(mm, z, cpu, order, high, gfp)))
					continue;
				z->now_ns = mm->now_ns;
				z->now_cpu = cpu;
				z->nofragment = (confined && !fair) || (defrag && pass < 2);
				boosts = z->boosts;
				*idx = rmqueue(mm, z, cpu, order, mt, highatomic_request(mm, flags, order, pass));
				z->nofragment = 0;
				/* ZONE_BOOSTED_WATERMARK: set only with ALLOC_KSWAPD */
				if (z->boosts != boosts && (gfp & PS_GFP_KSWAPD_RECLAIM))
					ps_wakeup_kswapd(mm, z->node, z->type, 0, 1, mm->now_ns);
				if (*idx != PS_NIL) {
					if (pass == 2)
						mm->wmark_ignored++;
					if (mm->prof->fair)
						z->nr_alloc_batch -= 1l << order;	/* every page taken, any pass */
					return z;
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
	ps_lru_del(mm, z, idx);
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
	ps_vmstat_mod_free(mm, z, cpu);
}

void ps_drain_zone_pages(struct ps_mm *mm, struct ps_zone *z, int cpu, int n, uint64_t now)
{
	z->now_ns = now;
	z->now_cpu = cpu;
	ps_pcp_drain(z, ps_mm_pcp(mm, z, cpu), n, 0);
	ps_vmstat_mod_free(mm, z, cpu);
}
