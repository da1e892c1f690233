// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcp.c - per-CPU page lists.
 *
 * Notes (what this simplifies):
 *  - high and batch come from the recorded zoneinfo (or a policy); with
 *    6.7+ bounds (high_min/high_max) high is auto-tuned on refill and free
 *    and the refill batch grows with alloc_factor (up to batch <<
 *    scale_max, CONFIG_PCP_BATCH_SCALE_MAX); vmstat's decay of high is
 *    ps_pcp_decay_high, run by the replay once a second; ZONE_BELOW_HIGH
 *    (set by the allocator's walk, cleared after a drain leaves the zone
 *    above WMARK_HIGH) stops the growth and shrinks high on free.
 *  - ZONE_RECLAIM_ACTIVE (5.14+, kswapd running on the node) is the caller's
 *    flag: high capped at 4 * batch.
 *  - ≤ 4.14 hot/cold frees (cold at the tail) are treated as hot.
 *  - The drain amount is batch (≤ 5.13) or batch << free_factor clamped to
 *    [batch, high - batch] (5.14+; free_factor stops at scale_max, as in
 *    6.7+ and the stable trees); from 5.19 a free of order 1..3 after a
 *    drain empties the lists (free_high); from 6.7 only once they hold batch
 *    pages (PCPF_FREE_HIGH_BATCH, which a CPU has when its share of the
 *    last-level cache is over 3 * batch pages: no snapshot records cache
 *    sizes, so every CPU is taken to have it).
 *  - The cached migratetype of a pcp page is its pageblock's type when it was
 *    freed, or the requested type when it came from a refill.
 */
#include <stdint.h>
#include <string.h>

#include "lib/kver.h"
#include "sim/mm/lock.h"
#include "sim/mm/pcp.h"
#include "sim/mm/watermark.h"

/* A zone-lock section for the lock model, at the time and CPU of the request in progress. */
static void lock_section(struct ps_zone *z, int pages, int cause)
{
	if (z->lock)
		ps_lock_section(z->lock, z->index, z->now_cpu, z->now_ns, pages, cause);
}

void ps_pcp_init(struct ps_pcp *pcp, int high, int batch)
{
	memset(pcp, 0, sizeof(*pcp));
	pcp->high = high;
	pcp->batch = batch > 0 ? batch : 1;
	pcp->scale_max = PS_PCP_BATCH_SCALE_MAX;
	for (int i = 0; i < PS_NR_PCP_LISTS; i++)
		pcp->lists[i].head = pcp->lists[i].tail = PS_NIL;
}

/*
 * zone_highsize() of 5.14+, a CPU coming online excluded: the zone's low
 * watermark (@fraction 0) or its managed pages / @fraction, split over the
 * CPUs of the zone's node (all CPUs for a node without any), at least
 * 4 * batch.
 */
static int zone_highsize(uint64_t managed, long low_wmark, long fraction, int node_cpus, int nr_cpus, int batch)
{
	uint64_t total = fraction ? managed / (uint64_t)fraction : (low_wmark > 0 ? (uint64_t)low_wmark : 0);
	int split = node_cpus > 0 ? node_cpus : nr_cpus > 0 ? nr_cpus : 1;
	uint64_t high = total / (uint64_t)split;

	if (high < (uint64_t)batch << 2)
		high = (uint64_t)batch << 2;
	return high > INT32_MAX ? INT32_MAX : (int)high;
}

int ps_pcp_high_fraction(int kver, uint64_t managed, long low_wmark, long fraction, int node_cpus, int nr_cpus,
			 int batch, int *high, int *high_min, int *high_max)
{
	if (kver < PS_KVER(5, 14, 0) || (fraction && fraction < PS_PCP_MIN_HIGH_FRACTION))
		return -1;
	if (kver < PS_KVER(6, 7, 0)) {
		/* zone_set_pageset_high_and_batch(): one high for every CPU */
		*high = zone_highsize(managed, low_wmark, fraction, node_cpus, nr_cpus, batch);
		*high_min = *high_max = 0;
		return 0;
	}
	/* 6.7+: a fraction fixes high (auto-tuning off); without one, high moves between the two */
	*high_min = zone_highsize(managed, low_wmark, fraction, node_cpus, nr_cpus, batch);
	*high_max = fraction ? *high_min
			     : zone_highsize(managed, low_wmark, PS_PCP_MIN_HIGH_FRACTION, node_cpus, nr_cpus, batch);
	*high = *high_min;
	return 0;
}

/* CONFIG_PCP_BATCH_SCALE_MAX as the 6.7+ code reads it (the Kconfig's range is 0..6) */
static int scale_max(const struct ps_pcp *pcp)
{
	return pcp->scale_max > 6 ? 6 : pcp->scale_max;
}

void ps_pcp_set_adaptive(struct ps_pcp *pcp, int high_min, int high_max)
{
	if (high_min <= 0 || high_max < high_min)
		return;
	pcp->high_min = high_min;
	pcp->high_max = high_max;
	if (pcp->high < high_min)
		pcp->high = high_min;
	if (pcp->high > high_max)
		pcp->high = high_max;
}

int ps_pcp_refill_blocks(struct ps_pcp *pcp, int order, int below_high)
{
	int b;

	if (!pcp->high_max) {
		b = order ? ((pcp->batch >> order) > 2 ? pcp->batch >> order : 2) : pcp->batch;
		return pcp->high < pcp->batch ? 1 : b;
	}
	/* 6.7+ nr_pcp_alloc() */
	if (pcp->high < pcp->batch)
		return 1;
	b = order ? pcp->batch : pcp->batch << pcp->alloc_factor;
	if (pcp->high_min != pcp->high_max && !below_high) {
		pcp->high += b;
		if (pcp->high > pcp->high_max)
			pcp->high = pcp->high_max;
	}
	if (!order) {
		int maxn = pcp->high - pcp->count - pcp->batch;

		if (maxn < pcp->batch)
			maxn = pcp->batch;
		if (b <= maxn && pcp->alloc_factor < scale_max(pcp))
			pcp->alloc_factor++;
		if (b > maxn)
			b = maxn;
	}
	if (b > 1) {
		b >>= order;
		if (b < 2)
			b = 2;
	}
	return b;
}

void ps_pcp_note_alloc(struct ps_pcp *pcp)
{
	pcp->free_factor >>= 1;
	pcp->free_count >>= 1;
}

void ps_pcp_drained(struct ps_zone *z, long pending)
{
	if (z->below_high && ps_zone_watermark_ok(z->kver, z, 0, z->wmark_high + z->watermark_boost - pending,
						  PS_ZONE_MOVABLE, 0))
		z->below_high = 0;
}

int ps_pcp_drain_pages(struct ps_pcp *pcp, const struct ps_profile *prof, int order, int reclaim_active,
		       int below_high)
{
	int n, high;

	reclaim_active &= prof->pcp_high_orders;	/* ZONE_RECLAIM_ACTIVE came with 5.14 */

	if (pcp->high_max) {
		/* 6.7+ free_frozen_page_commit(): nr_pcp_high() and nr_pcp_free() */
		int free_high;

		high = pcp->high;

		pcp->alloc_factor >>= 1;
		/*
		 * free_high: a high-order free following another one, with free_count
		 * over batch (6.7-6.13) or batch + high_min / 2 (by 6.18), and the lists
		 * holding batch pages or more: PCPF_FREE_HIGH_BATCH, set for a CPU whose
		 * data-cache slice is over 3 * batch pages (setup_pcp_cacheinfo), taken
		 * as set
		 */
		free_high = order && order <= 3 && pcp->prev_free_high &&
			    pcp->free_count >= pcp->batch + (prof->defrag_mode ? pcp->high_min / 2 : 0) &&
			    pcp->count >= pcp->batch;
		pcp->prev_free_high = order && order <= 3;
		if (pcp->free_count < (pcp->batch << scale_max(pcp)))
			pcp->free_count += 1 << order;
		if (free_high) {
			int h = pcp->high - (pcp->batch << scale_max(pcp));

			pcp->high = h < pcp->high_min ? pcp->high_min : h;
			high = 0;
		} else if (reclaim_active) {
			int h = pcp->high - (pcp->free_count > pcp->batch ? pcp->free_count : pcp->batch);

			pcp->high = h < pcp->high_min ? pcp->high_min : h;
			high = pcp->batch << 2 < pcp->high ? pcp->batch << 2 : pcp->high;
		} else if (below_high && pcp->high_min != pcp->high_max) {
			/* ZONE_BELOW_HIGH: high shrinks by the frees' worth, and the lists drain to high_min */
			int h = pcp->high - (pcp->free_count > pcp->batch ? pcp->free_count : pcp->batch);

			pcp->high = h < pcp->high_min ? pcp->high_min : h;
			high = pcp->count > pcp->high_min ? pcp->count : pcp->high_min;
		} else if (pcp->count >= pcp->high && pcp->high_min != pcp->high_max) {
			int want = pcp->free_count + pcp->batch;

			if (want > pcp->high_max)
				want = pcp->high_max;
			if (want > pcp->high)
				pcp->high = want;
			high = pcp->high;
		}
		if (pcp->count < high)
			return 0;
		if (free_high)
			return pcp->count < (pcp->batch << scale_max(pcp)) ? pcp->count : pcp->batch << scale_max(pcp);
		if (high < pcp->batch)
			return 1;
		n = pcp->free_count;
		if (n < pcp->batch)
			n = pcp->batch;
		if (n > high - pcp->batch)
			n = high - pcp->batch;
		return n > 0 ? n : 1;
	}
	/* 5.19-6.6: a high-order free after a drain empties the lists (free_high) */
	if (prof->pcp_drain_from_freed && pcp->free_factor && order && order <= 3)
		return pcp->count + pcp->batch;
	high = pcp->high;
	if (reclaim_active && pcp->batch << 2 < high)
		high = pcp->batch << 2;
	if (pcp->count < high)
		return 0;
	if (!prof->pcp_high_orders) {
		n = pcp->batch;
	} else {
		/* nr_pcp_free(): batch << free_factor within [batch, high - batch] */
		long max = high - pcp->batch, b = (long)pcp->batch << pcp->free_factor;

		if (b < max && pcp->free_factor < pcp->scale_max)
			pcp->free_factor++;
		n = (int)(b > max ? max : b);
		if (n < pcp->batch)
			n = pcp->batch;
	}
	if (high < pcp->batch)
		n = 1;
	return n;
}

int ps_pcp_decay_high(struct ps_pcp *pcp, int *changed)
{
	if (pcp->high > pcp->high_min) {
		long h = pcp->high - (pcp->high >> 3), c = (long)pcp->count - ((long)pcp->batch << scale_max(pcp));

		if (c > h)
			h = c;
		pcp->high = (int)(h > pcp->high_min ? h : pcp->high_min);
		*changed |= pcp->high > pcp->high_min;
	}
	return pcp->count > pcp->high ? pcp->count - pcp->high : 0;
}

int ps_pcp_allowed(const struct ps_profile *prof, int order, int pageblock_order)
{
	if (!prof->pcp_high_orders)
		return order == 0;
	return order <= 3 || order == pageblock_order;
}

int ps_pcp_nr_lists(const struct ps_profile *prof)
{
	if (!prof->pcp_high_orders)
		return PS_MIGRATE_PCPTYPES;
	return prof->split_large_free ? 14 : 13;
}

int ps_pcp_index(const struct ps_zone *z, int order, int mt)
{
	if (mt >= PS_MIGRATE_PCPTYPES || mt < 0)
		mt = PS_MT_MOVABLE;	/* HIGHATOMIC and CMA pages sit on the movable list */
	if (!z->prof->pcp_high_orders)
		return mt;
	if (order <= 3)
		return order * PS_MIGRATE_PCPTYPES + mt;
	/* the pageblock order: one list, two from 6.10 (movable and the rest) */
	return z->prof->split_large_free && mt != PS_MT_MOVABLE ? 13 : 12;
}

static void drain_one(struct ps_zone *z, uint32_t idx)
{
	int order = PG_ORDER(z->state[idx]);
	int mt = z->prof->pcp_mt_cache ? z->mt[idx] : ps_pageblock_mt(z, idx);

	ps_zone_mark(z, idx, order, PG_ALLOC, mt);
	ps_zone_pcp_add(z, -(int64_t)(1u << order));
	ps_free_one_page(z, idx, order, mt, 0);
}

/* Returns the block at the tail (the oldest) of @l to the buddy; its pages. */
static int drain_tail(struct ps_zone *z, struct ps_pcp *pcp, struct ps_list *l)
{
	uint32_t idx = l->tail;
	int pages = 1 << PG_ORDER(z->state[idx]);

	ps_list_del(z, l, idx);
	pcp->count -= pages;
	pcp->drain_pages += pages;
	drain_one(z, idx);
	return pages;
}

/* Whether any of @pcp's @nl lists holds a block. */
static int pcp_listed(const struct ps_pcp *pcp, int nl)
{
	for (int i = 0; i < nl; i++)
		if (pcp->lists[i].tail != PS_NIL)
			return 1;
	return 0;
}

void ps_pcp_drain(struct ps_zone *z, struct ps_pcp *pcp, int n, int start_list)
{
	int nl = ps_pcp_nr_lists(z->prof), pi = start_list;
	uint64_t pages0 = pcp->drain_pages;

	if (n <= 0 || pcp->count <= 0)
		return;
	/* count says pages are listed: a list must hold one, or the walks below would not end */
	if (!pcp_listed(pcp, nl))
		return;
	z->lock_acquisitions++;
	pcp->drains++;
	if (!z->prof->pcp_drain_from_freed) {
		/* <= 5.18: round robin, batch_free growing with every list visited */
		int batch_free = 0;

		pi = -1;
		while (n > 0 && pcp->count > 0) {
			struct ps_list *l;
			int nonempty = 0;

			do {
				batch_free++;
				pi = pi + 1 < nl ? pi + 1 : (pi + 1) % nl;
			} while (pcp->lists[pi].tail == PS_NIL);
			for (int i = 0; i < nl; i++)
				nonempty += pcp->lists[i].tail != PS_NIL;
			if (nonempty == 1)
				batch_free = n;
			l = &pcp->lists[pi];
			do {
				n -= drain_tail(z, pcp, l);
			} while (--batch_free > 0 && n > 0 && l->tail != PS_NIL);
			if (!pcp_listed(pcp, nl))
				break;
		}
		lock_section(z, (int)(pcp->drain_pages - pages0), PS_LOCK_DRAIN);
		return;
	}
	/* 5.19+: list by list, starting at the freed page's list */
	if (pi < 0 || pi >= nl)
		pi = 0;
	while (n > 0 && pcp->count > 0) {
		struct ps_list *l;

		while (pcp->lists[pi].tail == PS_NIL)
			pi = pi + 1 < nl ? pi + 1 : (pi + 1) % nl;
		l = &pcp->lists[pi];
		while (n > 0 && l->tail != PS_NIL)
			n -= drain_tail(z, pcp, l);
		if (!pcp_listed(pcp, nl))
			break;
	}
	lock_section(z, (int)(pcp->drain_pages - pages0), PS_LOCK_DRAIN);
}

/* A block just taken from the buddy onto the tail of list @l, as rmqueue_bulk puts it. */
static void list_block(struct ps_zone *z, struct ps_pcp *pcp, struct ps_list *l, uint32_t b, int order, int mt)
{
	ps_zone_mark(z, b, order, PG_PCP, mt);
	ps_list_add_tail(z, l, b);
	pcp->count += 1 << order;
	ps_zone_pcp_add(z, 1u << order);
}

int ps_pcp_seed(struct ps_zone *z, struct ps_pcp *pcp, int pages, int mt)
{
	struct ps_list *l = &pcp->lists[ps_pcp_index(z, 0, mt)];
	int got = 0;

	for (; got < pages; got++) {
		uint32_t b = ps_rmqueue_smallest(z, 0, mt);

		if (b == PS_NIL)
			break;
		list_block(z, pcp, l, b, 0, mt);
	}
	return got;
}

int ps_pcp_seed_block(struct ps_zone *z, struct ps_pcp *pcp, const struct ps_profile *prof, uint32_t idx,
		      int order, int mt)
{
	if (!ps_pcp_allowed(prof, order, z->pageblock_order) || ps_zone_take_free(z, idx, order))
		return 0;
	if (mt < 0 || mt >= PS_MIGRATE_PCPTYPES)
		mt = PS_MT_MOVABLE;
	list_block(z, pcp, &pcp->lists[ps_pcp_index(z, order, mt)], idx, order, mt);
	return 1 << order;
}

uint32_t ps_pcp_alloc(struct ps_zone *z, struct ps_pcp *pcp, int order, int mt)
{
	struct ps_list *l = &pcp->lists[ps_pcp_index(z, order, mt)];
	uint32_t idx;

	if (l->head == PS_NIL) {
		int n = ps_pcp_refill_blocks(pcp, order, z->below_high), mode = 0, got = 0;
		uint64_t fallbacks = z->fallbacks;

		z->lock_acquisitions++;	/* rmqueue_bulk takes the lock even when it finds nothing */
		for (int i = 0; i < n; i++) {
			uint32_t b = ps_rmqueue(z, order, mt, &mode);

			if (b == PS_NIL)
				break;
			list_block(z, pcp, l, b, order, mt);
			pcp->refill_pages += 1 << order;
			got++;
		}
		if (got)
			pcp->refills++;	/* what the trace would show as a refill */
		lock_section(z, got << order,
			     z->fallbacks != fallbacks ? PS_LOCK_FALLBACK : PS_LOCK_REFILL);
		if (l->head == PS_NIL)
			return PS_NIL;
	}
	idx = l->head;
	ps_list_del(z, l, idx);
	pcp->count -= 1 << order;
	ps_zone_pcp_add(z, -(int64_t)(1u << order));
	ps_pcp_note_alloc(pcp);
	ps_zone_mark(z, idx, order, PG_ALLOC, mt);
	return idx;
}

void ps_pcp_free(struct ps_zone *z, struct ps_pcp *pcp, uint32_t idx, int order)
{
	int mt = ps_pageblock_mt(z, idx), pi = ps_pcp_index(z, order, mt);

	if (mt == PS_MT_ISOLATE) {
		z->lock_acquisitions++;
		lock_section(z, 1 << order, PS_LOCK_DIRECT_FREE);
		ps_free_block(z, idx, order);
		return;
	}
	ps_zone_mark(z, idx, order, PG_PCP, mt);
	ps_list_add(z, &pcp->lists[pi], idx);
	pcp->count += 1 << order;
	ps_zone_pcp_add(z, 1u << order);
	{
		int n = ps_pcp_drain_pages(pcp, z->prof, order, z->reclaim_active, z->below_high);

		if (n > 0) {
			ps_pcp_drain(z, pcp, n, pi);
			ps_pcp_drained(z, 0);
		}
	}
}
