// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcp.c - per-CPU page lists.
 *
 * Notes (what this simplifies):
 *  - high and batch are fixed, from the recorded zoneinfo (or a policy):
 *    6.7's adaptive high (alloc_factor, free_count, decay) and
 *    ZONE_RECLAIM_ACTIVE are not modelled.
 *  - ≤ 4.14 hot/cold frees (cold at the tail) are treated as hot.
 *  - The drain amount is batch (≤ 5.13) or batch << free_factor clamped to
 *    [batch, high - batch] (5.14+); from 5.19 a free of order 1..3 after a
 *    drain empties the lists (free_high).
 *  - The cached migratetype of a pcp page is its pageblock's type when it was
 *    freed, or the requested type when it came from a refill.
 */
#include <string.h>

#include "lock.h"
#include "pcp.h"

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
	for (int i = 0; i < PS_NR_PCP_LISTS; i++)
		pcp->lists[i].head = pcp->lists[i].tail = PS_NIL;
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
		return PS_MT_PCPTYPES;
	return prof->split_large_free ? 14 : 13;
}

int ps_pcp_index(const struct ps_zone *z, int order, int mt)
{
	if (mt >= PS_MT_PCPTYPES || mt < 0)
		mt = PS_MT_MOVABLE;	/* HIGHATOMIC and CMA pages sit on the movable list */
	if (!z->prof->pcp_high_orders)
		return mt;
	if (order <= 3)
		return order * PS_MT_PCPTYPES + mt;
	/* the pageblock order: one list, two from 6.10 (movable and the rest) */
	return z->prof->split_large_free && mt != PS_MT_MOVABLE ? 13 : 12;
}

static void drain_one(struct ps_zone *z, uint32_t idx)
{
	int order = PG_ORDER(z->state[idx]);
	int mt = z->prof->pcp_mt_cache ? z->mt[idx] : ps_pageblock_mt(z, idx);

	ps_zone_mark(z, idx, order, PG_ALLOC, mt);
	z->nr_pcp_pages -= 1u << order;
	ps_free_one_page(z, idx, order, mt, 0);
}

void ps_pcp_drain(struct ps_zone *z, struct ps_pcp *pcp, int n, int start_list)
{
	int nl = ps_pcp_nr_lists(z->prof), pi = start_list;
	uint64_t pages0 = pcp->drain_pages;

	if (n <= 0 || pcp->count <= 0)
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
				pi = (pi + 1) % nl;
			} while (pcp->lists[pi].tail == PS_NIL);
			for (int i = 0; i < nl; i++)
				nonempty += pcp->lists[i].tail != PS_NIL;
			if (nonempty == 1)
				batch_free = n;
			l = &pcp->lists[pi];
			do {
				uint32_t idx = l->tail;
				int pages = 1 << PG_ORDER(z->state[idx]);

				ps_list_del(z, l, idx);
				pcp->count -= pages;
				pcp->drain_pages += pages;
				n -= pages;
				drain_one(z, idx);
			} while (--batch_free > 0 && n > 0 && l->tail != PS_NIL);
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
			pi = (pi + 1) % nl;
		l = &pcp->lists[pi];
		while (n > 0 && l->tail != PS_NIL) {
			uint32_t idx = l->tail;
			int pages = 1 << PG_ORDER(z->state[idx]);

			ps_list_del(z, l, idx);
			pcp->count -= pages;
			pcp->drain_pages += pages;
			n -= pages;
			drain_one(z, idx);
		}
	}
	lock_section(z, (int)(pcp->drain_pages - pages0), PS_LOCK_DRAIN);
}

uint32_t ps_pcp_alloc(struct ps_zone *z, struct ps_pcp *pcp, int order, int mt)
{
	struct ps_list *l = &pcp->lists[ps_pcp_index(z, order, mt)];
	uint32_t idx;

	if (l->head == PS_NIL) {
		int n = pcp->batch, mode = 0, got = 0;
		uint64_t fallbacks = z->fallbacks;

		if (order > 0)
			n = (pcp->batch >> order) > 2 ? pcp->batch >> order : 2;
		if (pcp->high < pcp->batch)
			n = 1;
		z->lock_acquisitions++;
		pcp->refills++;
		for (int i = 0; i < n; i++) {
			uint32_t b = ps_rmqueue(z, order, mt, &mode);

			if (b == PS_NIL)
				break;
			ps_zone_mark(z, b, order, PG_PCP, mt);
			ps_list_add_tail(z, l, b);
			pcp->count += 1 << order;
			pcp->refill_pages += 1 << order;
			z->nr_pcp_pages += 1u << order;
			got++;
		}
		lock_section(z, got << order, z->fallbacks != fallbacks ? PS_LOCK_FALLBACK : PS_LOCK_REFILL);
		if (l->head == PS_NIL)
			return PS_NIL;
	}
	idx = l->head;
	ps_list_del(z, l, idx);
	pcp->count -= 1 << order;
	z->nr_pcp_pages -= 1u << order;
	pcp->free_factor >>= 1;
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
	z->nr_pcp_pages += 1u << order;
	/* 5.19+: a high-order free after a drain empties the lists (free_high) */
	if (z->prof->pcp_drain_from_freed && pcp->free_factor && order && order <= 3) {
		ps_pcp_drain(z, pcp, pcp->count + pcp->batch, pi);
		return;
	}
	if (pcp->count < pcp->high)
		return;
	if (!z->prof->pcp_high_orders) {
		ps_pcp_drain(z, pcp, pcp->batch, pi);
	} else {
		int n = pcp->batch << pcp->free_factor, max = pcp->high - pcp->batch;

		if (n < max)
			pcp->free_factor++;
		if (n > max)
			n = max;
		if (n < pcp->batch)
			n = pcp->batch;
		if (pcp->high < pcp->batch)
			n = 1;
		ps_pcp_drain(z, pcp, n, pi);
	}
}
