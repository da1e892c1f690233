// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reclaim.c - simulate mode's reclaim as the engine sees it.  The model
 * (sim/mm/vmscan.c) decides what to reclaim from its own LRU lists, under
 * the recorded policy and a changed one alike; the engine feeds those lists
 * from the trace and keeps the trace's own reclaim from being replayed:
 *
 *  - the trace's page-cache and LRU events go to the model's page cache and
 *    lists (a trace without them: the allocation's gfp flags say, below);
 *  - the kernel's reclaim shows as mm_filemap_delete_from_page_cache inside
 *    a reclaim context (a kswapd thread, or a direct or node reclaim window
 *    the trace shows open on the CPU) followed by the page's free: that free
 *    is absorbed, and the model keeps the page until its own reclaim takes it;
 *  - a block the model's reclaim freed is marked in the map (MAP_RECLAIMED):
 *    the trace's later free of it is absorbed, and an activation of it
 *    (the workload touching the page again) counts as a refault.
 *
 * Without page-cache and LRU events (older traces): an allocation with the
 * readahead flags (page cache read in: __GFP_HARDWALL, __GFP_NORETRY and
 * __GFP_NOWARN, not __GFP_ZERO) or with __GFP_WRITE goes on the inactive
 * file list, any other user allocation (__GFP_HARDWALL) on the inactive
 * anon list, kernel allocations on none; the kernel's reclaim is taken to
 * be the frees of file pages by kswapd threads, and, when the recording ran
 * node reclaim (vm.zone_reclaim_mode & 1), by any task.
 *
 * The pages on the LRU before the trace (the snapshot's nr_*_file per node)
 * are stood for by pages the trace never touches (rp_lru_start).
 */
#include "sim/mm/page-writeback.h"
#include "sim/mm/vmscan.h"
#include "sim/replay/engine.h"

void rp_reclaimed(void *ctx, struct ps_zone *z, uint32_t idx, int order)
{
	struct ps_replay *r = ctx;
	uint64_t g = r->mm.gbase[z->index] + idx;
	uint32_t o = r->owner[g];

	if (!o) {
		r->stand_ins_reclaimed += 1ull << order;
		return;		/* a page the trace never named: a stand-in for page cache from before the trace */
	}
	r->owner[g] = 0;
	/* the trace still holds the block it stood for: its later free is absorbed */
	if (r->map[o - 1] == (uint32_t)(g + 1))
		for (uint32_t i = 0; i < (1u << order) && o - 1 + i < r->traced_pages; i++)
			r->map[o - 1 + i] = MAP_RECLAIMED;
}

int rp_reclaim_create(struct ps_replay *r)
{
	r->owner = calloc(r->mm.total_pages ? r->mm.total_pages : 1, sizeof(*r->owner));
	r->kreclaimed = calloc(r->traced_pages / 64 + 1, sizeof(uint64_t));
	return r->owner && r->kreclaimed ? 0 : -1;
}

/* The model block traced pfn @pfn stands for: its zone and index, or NULL (and *@tg its traced index). */
static struct ps_zone *model_block(struct ps_replay *r, uint64_t pfn, uint64_t *tg, uint32_t *idx)
{
	uint32_t tidx, g;
	int ti = tzone_of(r, pfn, &tidx);

	if (ti < 0)
		return NULL;
	*tg = r->tz[ti].gbase + tidx;
	g = r->map[*tg];
	if (!MAP_IS_MODEL(g))
		return NULL;
	return ps_mm_zone_of_global(&r->mm, g - 1, idx);
}

/* The page-cache, LRU and reclaim events of the trace, in simulate mode. */
void rp_reclaim_event(struct ps_replay *r, const struct ps_event *ev)
{
	struct ps_zone *z;
	uint64_t tg;
	uint32_t idx;

	if (ev->type >= PS_EV_KSWAPD_WAKE && ev->type < PS_EV_NR)
		r->trace_vmscan_events++;
	switch (ev->type) {
	case PS_EV_DIRECT_BEGIN:
	case PS_EV_NODE_RECLAIM_BEGIN:
	case PS_EV_DIRECT_END:
	case PS_EV_NODE_RECLAIM_END:
		rp_reclaim_window(r->in_reclaim, ev);
		return;
	case PS_EV_LRU_ISOLATE:
		r->trace_lru_skipped += ev->x.rc.nr_skipped;
		return;
	case PS_EV_WAKEUP_KSWAPD:
		/* the slow path passes the request's gfp_flags, rmqueue's wake for a boosted watermark none */
		if (!ev->gfp && ev->x.ks.nid >= 0 && ev->x.ks.nid < PS_MAX_NODES)
			r->trace_boost_wakeups[ev->x.ks.nid]++;
		return;
	case PS_EV_PC_ADD:
		if (!(z = model_block(r, ev->pfn, &tg, &idx)) || ev->order >= PS_NR_PAGE_ORDERS)
			return;
		if (!ps_dirty_is_file(&r->mm.dirty, r->mm.gbase[z->index] + idx))
			ps_dirty_alloc(&r->mm.dirty, r->mm.gbase[z->index] + idx, z->index, ev->order, 0, r->mm.now_ns);
		return;
	case PS_EV_PC_DEL:
		/* the kernel's reclaim: the free that follows is absorbed, the model keeps the page */
		if (rp_reclaim_context(r->in_reclaim, ev) && ev->pfn != PS_PFN_NONE) {
			uint32_t tidx;
			int ti = tzone_of(r, ev->pfn, &tidx);

			if (ti >= 0) {
				tg = r->tz[ti].gbase + tidx;
				r->kreclaimed[tg / 64] |= 1ull << (tg % 64);
				r->trace_reclaimed_zone[ti] += 1ull << (ev->order < PS_NR_PAGE_ORDERS ? ev->order : 0);
			}
		}
		return;
	case PS_EV_LRU_ADD:
		if ((z = model_block(r, ev->pfn, &tg, &idx)))
			ps_lru_add(&r->mm, z, idx, ev->x.lru.lru, ev->x.lru.flags);
		return;
	case PS_EV_LRU_ACTIVATE:
		if ((z = model_block(r, ev->pfn, &tg, &idx))) {
			ps_lru_activate(&r->mm, z, idx);
		} else if (ev->pfn != PS_PFN_NONE) {
			uint32_t tidx;
			int ti = tzone_of(r, ev->pfn, &tidx);

			/* the workload touched a page the model reclaimed: a refault */
			if (ti >= 0 && r->map[r->tz[ti].gbase + tidx] == MAP_RECLAIMED)
				r->refaults++;
		}
		return;
	default:
		return;
	}
}

/*
 * Whether the trace's free of traced block @tg was the kernel's reclaim (its
 * page-cache deletion was seen in a reclaim context; consumed here).
 */
int rp_kernel_reclaimed(struct ps_replay *r, uint64_t tg, int order)
{
	uint64_t bit = 1ull << (tg % 64);

	if (!(r->kreclaimed[tg / 64] & bit))
		return 0;
	r->kreclaimed[tg / 64] &= ~bit;
	return 1;
}

/* A trace without LRU events: the block's list from its allocation's gfp flags (see the top). */
void rp_lru_from_gfp(struct ps_replay *r, struct ps_zone *z, uint32_t idx, int order, uint32_t gfp)
{
	uint64_t g = r->mm.gbase[z->index] + idx;

	if (lru_page(gfp) || (gfp & PS_GFP_WRITE)) {
		ps_dirty_alloc(&r->mm.dirty, g, z->index, order, !!(gfp & PS_GFP_WRITE), r->mm.now_ns);
		ps_lru_add(&r->mm, z, idx, PS_LRU_INACTIVE_FILE, 0);
	} else if (gfp & PS_GFP_HARDWALL) {
		ps_lru_add(&r->mm, z, idx, PS_LRU_INACTIVE_ANON, PS_PAGEMAP_SWAPBACKED | PS_PAGEMAP_MAPPED);
	}
}

/*
 * The trace frees [idx, 2^order) of @z in a shape the model may not have:
 * every allocated block overlapping it leaves its LRU list first (the
 * lists count whole blocks).
 */
void rp_lru_forget(struct ps_replay *r, struct ps_zone *z, uint32_t idx, int order)
{
	uint32_t end = idx + (1u << order), h;
	int k;

	if (!z->lru)
		return;
	for (uint32_t p = idx; p < end && p < z->nr_pages; p = h + (1u << k)) {
		if (ps_zone_block_of(z, p, &h, &k) < 0) {
			h = p;
			k = 0;
			continue;
		}
		if (h + (1u << k) <= p)	/* cannot happen: the block holds p */
			break;
		ps_lru_del(&r->mm, z, h);
	}
}

/* The next page of zone @zi from *@at up that may stand for page cache from before the trace, or -1. */
static int64_t next_stand_in(struct ps_replay *r, int zi, uint32_t *at)
{
	struct ps_zone *z = &r->mm.zones[zi];

	for (; *at < z->present_end; (*at)++)
		if (T_CLASS(r->touch[zi][*at]) == T_NONE && z->state[*at] == PG_STATE(PG_ALLOC, 1, 0) &&
		    !(z->lru[*at] & PS_LRUF_LIST))
			return (*at)++;
	return -1;
}

/*
 * Stand-ins for @want[zi] pages of each zone of node @n on list @l, the
 * zones interleaved by their shares (the oldest end holds all of them
 * alike), every page of @mapped_per_page (parts per 2^16) mapped.
 */
static void stand_ins(struct ps_replay *r, int n, long *want, uint32_t *at, int l, uint32_t mapped_per_page)
{
	long total = 0, done[PS_MAX_ZONES] = { 0 };
	uint32_t acc = 0;

	for (int zi = 0; zi < r->mm.nr_zones; zi++)
		if (r->mm.zones[zi].node == n && want[zi] > 0)
			total += want[zi];
	for (long k = 0; k < total; k++) {
		int best = -1;
		int64_t i;

		/* the zone furthest behind its share */
		for (int zi = 0; zi < r->mm.nr_zones; zi++)
			if (r->mm.zones[zi].node == n && done[zi] < want[zi] &&
			    (best < 0 || (done[zi] + 1) * want[best] < (done[best] + 1) * want[zi]))
				best = zi;
		if (best < 0)
			break;
		done[best]++;
		if ((i = next_stand_in(r, best, &at[best])) < 0) {
			want[best] = done[best];	/* the zone has no more */
			continue;
		}
		acc += mapped_per_page;
		ps_dirty_alloc(&r->mm.dirty, r->mm.gbase[best] + (uint64_t)i, best, 0, 0, 0);
		ps_lru_add_start(&r->mm, &r->mm.zones[best], (uint32_t)i, l, acc >> 16 ? PS_PAGEMAP_MAPPED : 0);
		acc &= 0xffff;
	}
}

/*
 * The page cache on the LRU when the trace began, by the snapshot's counts
 * per zone (nr_zone_*_file) and node (the active share, nr_mapped):
 *  - oldest, the pages the trace shows the kernel's reclaim taking first
 *    (pass 1: their page-cache deletion by a reclaimer, or in a trace
 *    without page-cache events a reclaimer's free), in the order it took
 *    them, on the inactive list: the model's reclaim meets them in the
 *    order the kernel did;
 *  - then stand-ins, allocated pages the trace never touches, for the rest
 *    of each zone's count, inactive ones first, the zones of a node
 *    interleaved, the node's mapped share of them mapped.
 * They are page cache, so the model's reclaim may take them.
 */
void rp_lru_start(struct ps_replay *r)
{
	long want[PS_MAX_ZONES], inactive[PS_MAX_ZONES];
	uint32_t at[PS_MAX_ZONES];

	if (r->cross || !r->mm.nr_zones || !r->mm.zones[0].lru)
		return;
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		want[zi] = r->m->zones[zi].nr_file > 0 ? r->m->zones[zi].nr_file : 0;
		inactive[zi] = want[zi];
		at[zi] = r->mm.zones[zi].span_start;
	}
	for (uint32_t k = 0; k < r->nr_lru_pre; k++) {
		uint32_t v = r->lru_pre[k], g = v & ~PRE_BY_FREE, idx;
		struct ps_zone *z;

		if (!(v & PRE_BY_FREE) != !!r->lru_events || g >= r->mm.total_pages)
			continue;	/* by their deletions where the trace has them, else by the frees */
		z = ps_mm_zone_of_global(&r->mm, g, &idx);
		if (z->state[idx] != PG_STATE(PG_ALLOC, 1, 0) || (z->lru[idx] & PS_LRUF_LIST))
			continue;
		ps_dirty_alloc(&r->mm.dirty, g, z->index, 0, 0, 0);
		ps_lru_add_start(&r->mm, z, idx, PS_LRU_INACTIVE_FILE, 0);
		want[z->index]--;
		inactive[z->index]--;
		r->lru_pre_placed++;
	}
	for (int n = 0; n < PS_MAX_NODES; n++) {
		const struct ps_node_desc *nd = &r->m->node[n];
		long active[PS_MAX_ZONES];
		uint32_t mapped = 0;
		int any = 0;

		for (int zi = 0; zi < r->mm.nr_zones; zi++) {
			if (r->mm.zones[zi].node != n)
				continue;
			any = 1;
			if (want[zi] < 0)
				want[zi] = 0;
			/* the node's active share of the zone's count; the pages placed above were inactive */
			active[zi] = 0;
			if (nd->nr_inactive_file >= 0 && nd->nr_active_file > 0)
				active[zi] = (long)((double)r->m->zones[zi].nr_file * nd->nr_active_file /
						    (double)(nd->nr_inactive_file + nd->nr_active_file));
			if (active[zi] > want[zi])
				active[zi] = want[zi];
			inactive[zi] = want[zi] - active[zi];
		}
		if (!any)
			continue;
		if (nd->nr_mapped > 0 && nd->nr_file_pages > 0)
			mapped = (uint32_t)(65536.0 * (nd->nr_mapped < nd->nr_file_pages ? nd->nr_mapped : nd->nr_file_pages) /
					    (double)nd->nr_file_pages);
		stand_ins(r, n, inactive, at, PS_LRU_INACTIVE_FILE, mapped);
		stand_ins(r, n, active, at, PS_LRU_ACTIVE_FILE, mapped);
	}
}
