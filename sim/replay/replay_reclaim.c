// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay_reclaim.c - simulate mode's watermark checks and reclaim: kswapd
 * as a timed activity per node (woken, balance_pgdat passes, boosts, naps,
 * failures), the lists it reclaims from, and node reclaim
 * (vm.zone_reclaim_mode).
 *
 * Simplifies: reclaim runs at a fixed rate (kswapd.reclaim_pages_per_ms);
 * what is reclaimable comes from the trace (the recorded kswapd's frees
 * under kswapd.takeover, or the oldest page cache read during the trace),
 * not from modelled LRU lists; no writeback, no swap, no slab shrinking.
 * Zone-based kswapd (<= 4.7) does not tell unreclaimable zones apart.
 * See docs/replay.md, "kswapd".
 */
#include "sim/replay/replay_priv.h"

/* gfp_zone(): the highest zone type a request may use. */
int rp_gfp_zone(uint32_t gfp)
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

/*
 * zone_watermark_ok in the zone walk: WMARK_LOW plus boost (pass 0, the
 * fast path), WMARK_MIN plus boost (1, the slow path: 5.0+ boosts MIN too),
 * none (2).  In the slow path __GFP_HIGH (ALLOC_HIGH, 6.3+ ALLOC_MIN_RESERVE)
 * halves MIN and @harder (ALLOC_HARDER, 6.3+ ALLOC_NON_BLOCK) takes a
 * quarter off what is left; 5.10+ lets an order-0 GFP_ATOMIC request
 * failing the boosted MIN try the unboosted one (zone_watermark_fast; up to
 * 6.2 __GFP_ATOMIC, from 6.3, which dropped that flag, ALLOC_MIN_RESERVE:
 * here __GFP_HIGH without __GFP_DIRECT_RECLAIM, which is GFP_ATOMIC there).
 */
static long slow_path_min(long min, uint32_t gfp, int harder)
{
	if (gfp & PS_GFP_HIGH)
		min -= min / 2;
	if (harder)
		min -= min / 4;
	return min;
}

int rp_zone_ok(const struct ps_zone *z, int order, int pass, int classzone, uint32_t gfp, int harder)
{
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
 * Zone-based kswapd (<= 4.7): the node is balanced when every zone up to
 * the class zone passes WMARK_HIGH at @order, or with @quarter (an order > 0
 * run's pgdat_balanced) when the zones that pass hold a quarter of those
 * zones' managed pages.  Each zone is judged as its own class zone
 * (zone_balanced(zone, order, 0, i) in pgdat_balanced, (.., 0, 0) in
 * wakeup_kswapd), so no lowmem_reserve counts.  Zones the kernel would
 * deem unreclaimable are not told apart.
 */
static int zones_balanced(struct ps_replay *r, int node, int classzone, int order, int quarter)
{
	uint64_t managed = 0, balanced = 0;

	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		if (z->node != node || !z->managed || z->type > classzone)
			continue;
		managed += z->managed;
		if (wmark_ok(z, order, z->wmark_high + (long)z->watermark_boost, z->type, 0))
			balanced += z->managed;
	}
	return quarter ? balanced * 4 >= managed : balanced == managed;
}

/*
 * pgdat_balanced: some zone of the node up to the class zone passes
 * zone_watermark_ok_safe at WMARK_HIGH plus boost, at @order (a free block
 * of that order on a list, 4.4+); a node with no such zone needs no
 * balancing.  Up to 4.7 zones_balanced() instead.
 */
static int node_balanced(struct ps_replay *r, int node, int classzone, int order)
{
	int eligible = 0;

	if (r->o.profile->kswapd_per_zone)
		return zones_balanced(r, node, classzone, order, order > 0);

	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		if (z->node != node || !z->managed || z->type > classzone)
			continue;
		eligible = 1;
		if (wmark_ok(z, order, z->wmark_high + (long)z->watermark_boost, classzone, 0))
			return 1;
	}
	return !eligible;
}

/* The node's boosts summed; non-zero: pgdat_watermark_boosted (5.0+). */
static long node_boost(const struct ps_replay *r, int node)
{
	long sum = 0;

	for (int zi = 0; zi < r->nr_zones; zi++)
		if (r->zones[zi].node == node)
			sum += (long)r->zones[zi].watermark_boost;
	return sum;
}

/* ZONE_RECLAIM_ACTIVE on (or off) for the node's zones up to @zoneidx: pcp high capped (pcp.h). */
static void set_reclaim_active(struct ps_replay *r, int node, int zoneidx, int on)
{
	for (int zi = 0; zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];

		if (z->node == node)
			z->reclaim_active = on && z->type <= zoneidx;
	}
}

/* balance_pgdat starts: the boost to reclaim is snapshot, rounds start afresh. */
static void kswapd_run_start(struct ps_replay *r, int node, uint64_t now)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];

	k->napping = 0;
	k->runs++;
	if (k->req_zoneidx >= 0)
		k->zoneidx = k->req_zoneidx;
	k->req_zoneidx = -1;
	k->order = k->req_order;
	k->req_order = 0;
	k->woken_at = now;
	k->last_run = now;
	k->budget_milli = 0;
	k->round_left = 0;
	k->pass_got = 0;
	k->run_got = 0;
	k->priority = PS_DEF_PRIORITY;
	k->raise = -1;		/* no pass yet */
	k->done = 0;
	set_reclaim_active(r, node, k->zoneidx, 1);
	/* nr_boost_reclaim: the boosts of the zones up to the class zone, kept per zone */
	k->boost_left = 0;
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		if (z->node != node || z->type >= PS_ZONE_NR)
			continue;
		k->zboost[z->type] = z->type <= k->zoneidx ? z->watermark_boost : 0;
		k->boost_left += (long)k->zboost[z->type];
	}
}

/*
 * wakeup_kswapd: not for a node that is balanced and not boosted; a wake
 * during kswapd's short sleep ends it (the kernel's
 * kswapd_low_wmark_hit_quickly).  kswapd reads the order and class zone
 * asked for when it runs, not when it is woken: its run starts at the first
 * event kswapd.wake_latency_us (default 0) after the wake, and the wakes
 * until then, such as a second zone's fallback in the same zone walk, merge
 * into it (kswapd_order, kswapd_highest_zoneidx: the highest asked for).
 */
void rp_wake_kswapd(struct ps_replay *r, int node, int classzone, int order, uint64_t now)
{
	typeof(r->kswapd[0]) *k;

	if (node < 0 || node >= PS_MAX_NODES)
		return;
	k = &r->kswapd[node];
	/* kswapd_highest_zoneidx and kswapd_order: the highest asked for since kswapd last looked */
	if (k->req_zoneidx < classzone)
		k->req_zoneidx = classzone;
	if (k->req_order < order)
		k->req_order = order;
	/* up to 4.7 one wake per zone: any zone of the node short of its high watermark wakes */
	if ((k->awake && !k->napping) || k->failures >= PS_MAX_RECLAIM_RETRIES ||
	    ((r->o.profile->kswapd_per_zone ? zones_balanced(r, node, classzone, order, 0) :
	      node_balanced(r, node, classzone, order)) && !node_boost(r, node)))
		return;
	if (k->napping) {
		k->hit_quickly_low++;
		k->napping = 0;
	} else {
		k->awake = 1;
		r->nr_awake++;
		k->wakeups++;
	}
	k->pending = 1;
	k->start_at = now + 1000ull * (uint64_t)(r->o.policy.kswapd_wake_latency_us > 0 ? r->o.policy.kswapd_wake_latency_us : 0);
}

/* kswapd_shrink_node's nr_to_reclaim: the sum over the node's zones up to reclaim_idx of max(HIGH + boost, 32). */
static long round_pages(const struct ps_replay *r, int node, int reclaim_idx)
{
	long sum = 0;

	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];
		long high = z->wmark_high + (long)z->watermark_boost;

		if (z->node == node && z->managed && z->type <= reclaim_idx)
			sum += high > 32 ? high : 32;
	}
	return sum;
}

/* What shrink_node scans at a priority: the node's pages in use stand in for its LRU lists. */
static long lru_scan(const struct ps_replay *r, int node, int priority)
{
	long used = 0;

	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];

		if (z->node == node && z->managed > z->nr_free_pages)
			used += (long)(z->managed - z->nr_free_pages);
	}
	used >>= priority;
	return used > 0 ? used : 1;
}

/*
 * One turn of balance_pgdat's loop between shrink_node passes: account the
 * pass just done, then stop (returns 0, k->done set) or start the next pass.
 */
static int kswapd_next_pass(struct ps_replay *r, int node)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];
	long want, scan;
	int balanced;

	if (k->raise >= 0) {		/* a pass ended */
		if (k->boost_left > 0 && !k->pass_got) {
			k->done = 1;	/* boosted reclaim that made no progress */
			return 0;
		}
		k->boost_left -= k->boost_left < k->pass_got ? k->boost_left : k->pass_got;
		/* kswapd_shrink_node: once compact_gap() is reclaimed, balance at order 0 */
		if (k->order && k->run_got >= (2L << k->order))
			k->order = 0;
		if (k->raise || !k->pass_got)
			k->priority--;
		if (k->priority < 1) {
			k->done = 1;
			return 0;
		}
	}
	balanced = node_balanced(r, node, k->zoneidx, k->order);
	if (!balanced && k->boost_left > 0) {
		/* imbalanced: boosting is ignored, reclaim restarts for the watermarks */
		k->boost_left = 0;
		k->priority = PS_DEF_PRIORITY;
	}
	if (k->boost_left <= 0 && balanced) {
		k->done = 1;
		return 0;
	}
	/* kswapd_shrink_node: nr_to_reclaim is the sum of max(high, 32); a pass stops there */
	want = round_pages(r, node, k->zoneidx);
	scan = lru_scan(r, node, k->priority);
	k->raise = !(scan >= want) && !(k->boost_left > 0 && k->priority == PS_DEF_PRIORITY - 2);
	k->round_left = scan < want ? scan : want;
	k->pass_got = 0;
	return 1;
}


void rp_lru_add(struct ps_replay *r, int node, uint32_t tg)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];

	if (!k->ring)
		return;
	if (k->count == k->cap) {	/* full: the oldest entry drops out */
		k->head = (k->head + 1) % k->cap;
		k->count--;
	}
	k->ring[(k->head + k->count) % k->cap] = tg;
	k->count++;
}


/*
 * One free page of @z taken with no event, as compaction's free scanner does
 * (it isolates from movable blocks): from the smallest free block, movable
 * ones first, no fallback.  PS_NIL if the zone has nothing free.
 */
uint32_t rp_take_hidden(struct ps_zone *z)
{
	static const int mts[] = { PS_MT_MOVABLE, PS_MT_RECLAIMABLE, PS_MT_UNMOVABLE };
	uint32_t idx = PS_NIL;

	for (int o = 0; o < PS_NR_ORDERS && idx == PS_NIL; o++)
		for (size_t m = 0; m < sizeof(mts) / sizeof(mts[0]) && idx == PS_NIL; m++)
			idx = z->free_area[o].free_list[mts[m]].head;
	if (idx == PS_NIL || ps_zone_take_free(z, idx, 0) < 0)
		return PS_NIL;
	ps_zone_mark(z, idx, 0, PG_ALLOC, ps_pageblock_mt(z, idx));
	return idx;
}

/* Frees model block @idx of @z as reclaim on @node does: through @cpu's pcp lists (-1: the node's first CPU, for kswapd). */
void rp_reclaim_block(struct ps_replay *r, int node, struct ps_zone *z, uint32_t idx, int order,
			  uint64_t now, int cpu)
{
	for (int c = 0; cpu < 0 && c < r->m->nr_cpus; c++)
		if (r->m->cpu_node[c] == node)
			cpu = c;
	if (cpu < 0)
		cpu = 0;
	z->now_ns = now;
	z->now_cpu = cpu;
	ps_dirty_release(&r->dirty, r->gbase[z->index] + idx, z->index, order);
	if (ps_pcp_allowed(r->o.profile, order, z->pageblock_order)) {
		ps_pcp_free(z, pcp_of(r, z, cpu), idx, order);
	} else {
		z->lock_acquisitions++;
		ps_free_block(z, idx, order);
	}
}

/* Takes the oldest deferred block of @node off its list onto @cpu's lists (reclaim_block); returns its pages, or -1 if none. */
static int reclaim_deferred(struct ps_replay *r, int node, uint64_t now, int cpu)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];

	while (k->dcount) {
		uint32_t g = k->deferred[k->dhead], idx, h;
		struct ps_zone *z = zone_of_global(r, g, &idx);
		int order;

		k->dhead = (k->dhead + 1) % k->dcap;
		k->dcount--;
		if (ps_zone_block_of(z, idx, &h, &order) != PG_ALLOC || h != idx)
			continue;	/* cannot happen: nothing else frees a deferred block */
		rp_reclaim_block(r, node, z, idx, order, now, cpu);
		return 1 << order;
	}
	return -1;
}

/*
 * Reclaims the model block traced block @tg stands for, if the model still
 * holds it whole on @node (reclaim_block); the trace's later free of it is
 * absorbed (MAP_RECLAIMED).  Returns its pages, or -1.
 */
static int reclaim_traced(struct ps_replay *r, int node, uint32_t tg, uint64_t now, int cpu)
{
	uint32_t g = r->map[tg], idx, h;
	struct ps_zone *z;
	int order;

	if (!MAP_IS_MODEL(g))
		return -1;	/* freed by the trace since */
	z = zone_of_global(r, g - 1, &idx);
	if (z->node != node || ps_zone_block_of(z, idx, &h, &order) != PG_ALLOC || h != idx)
		return -1;
	for (uint32_t i = 0; i < (1u << order) && tg + i < r->traced_pages; i++)
		r->map[tg + i] = MAP_RECLAIMED;
	rp_reclaim_block(r, node, z, idx, order, now, cpu);
	return 1 << order;
}

/*
 * kswapd.ahead: takes the oldest block of @node's list that the model still
 * holds as that allocation (reclaim_block); the trace's later free of it by
 * the recorded kswapd is absorbed.  Returns its pages, or -1 if none.
 */
static int reclaim_ahead(struct ps_replay *r, int node, uint64_t now, int cpu)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];

	while (k->ahead_count) {
		struct ahead_ent e = k->ahead[k->ahead_head];
		int got;

		k->ahead_head = (k->ahead_head + 1) % k->acap;
		k->ahead_count--;
		if (r->alloc_of[e.tg] != e.seq || (got = reclaim_traced(r, node, e.tg, now, cpu)) < 0)
			continue;	/* freed by the trace since, or held otherwise */
		r->alloc_of[e.tg] = 0;
		r->ahead_taken += (uint64_t)got;
		return got;
	}
	return -1;
}

/* kswapd.ahead: queues traced block @tg, allocation @seq, held on @node. */
void rp_ahead_add(struct ps_replay *r, int node, uint32_t tg, uint32_t seq)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];

	if (!k->ahead)
		return;
	if (k->ahead_count == k->acap) {
		/* full: keep only the blocks still held as queued, in order */
		uint32_t n = 0;

		for (uint32_t i = 0; i < k->ahead_count; i++) {
			struct ahead_ent e = k->ahead[(k->ahead_head + i) % k->acap];

			if (r->alloc_of[e.tg] == e.seq && MAP_IS_MODEL(r->map[e.tg]))
				k->ahead[(k->ahead_head + n++) % k->acap] = e;
		}
		k->ahead_count = n;
		if (n == k->acap) {	/* cannot happen: a node holds fewer blocks than it has pages */
			k->ahead_head = (k->ahead_head + 1) % k->acap;
			k->ahead_count--;
			r->ahead_dropped++;
		}
	}
	k->ahead[(k->ahead_head + k->ahead_count) % k->acap] = (struct ahead_ent){ tg, seq };
	k->ahead_count++;
}

/*
 * Reclaims one block of @node at @now onto @cpu's lists (-1: the node's
 * kswapd's): first what the recorded kswapd freed and the model has not yet
 * (kswapd.takeover), then the oldest reclaimable block; returns pages
 * freed, -1 if there is nothing left to reclaim.
 */
static int reclaim_one(struct ps_replay *r, int node, int cpu, uint64_t now)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[node];
	int got = reclaim_deferred(r, node, now, cpu);

	if (got <= 0 && cpu < 0)
		got = reclaim_ahead(r, node, now, cpu);
	if (got > 0)
		return got;
	/*
	 * What the recorded kswapd did not reclaim was not reclaimable, once
	 * it has reclaimed on this node at all; before that the trace holds
	 * no sign of it, and the node's oldest page cache goes, as with the
	 * takeover off.
	 */
	if (r->kswapd_takeover && r->trace_has_comm && k->handed)
		return -1;
	/*
	 * Node reclaim when the recorded kernel ran it too: its reclaim is in
	 * the trace already, as the allocating tasks' own frees, replayed as
	 * they come; taking the oldest page cache besides would reclaim twice.
	 */
	if (cpu >= 0 && r->kswapd_takeover && r->trace_has_comm && r->o.recorded.zone_reclaim_mode != PS_UNSET &&
	    (r->o.recorded.zone_reclaim_mode & 1))
		return -1;
	while (k->count) {
		uint32_t tg = k->ring[k->head];

		k->head = (k->head + 1) % k->cap;
		k->count--;
		if ((got = reclaim_traced(r, node, tg, now, cpu)) > 0)
			return got;
	}
	return -1;
}

/*
 * kswapd.takeover: the trace's free of model block @idx of @z was the
 * recorded kswapd's.  The block stays allocated until the model's kswapd
 * (or node reclaim) reclaims it; when the list is full its oldest block is
 * freed now, as recorded.
 */
void rp_defer_kswapd_free(struct ps_replay *r, struct ps_zone *z, uint32_t idx)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[z->node];

	if (k->dcount == k->dcap) {
		reclaim_deferred(r, z->node, r->now_ns, -1);
		r->kswapd_deferred_overflow++;
	}
	k->deferred[(k->dhead + k->dcount) % k->dcap] = (uint32_t)(r->gbase[z->index] + idx);
	k->handed++;
	k->dcount++;
	r->kswapd_frees_deferred++;
}

/*
 * kswapd.takeover: the model's kswapd has taken over all the recorded
 * kswapd freed on node @n so far, but the trace shows it freeing there again
 * later: the recorded kswapd was still at work, so the model's waits for its
 * next free instead of giving up, unless the node is balanced and no boost
 * is left, when balance_pgdat stops anyway.  A boosted run that waits first
 * gives up its boosts (end_boost, in rp_run_kswapd).
 */
static int kswapd_waits(struct ps_replay *r, int n)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[n];

	return r->kswapd_takeover && r->trace_has_comm && k->handed && k->last_run < k->last_recorded_ns &&
	       !(k->boost_left <= 0 && node_balanced(r, n, k->zoneidx, k->order));
}

/* The boosts @n's kswapd run started with go (balance_pgdat's out: label). */
static void end_boost(struct ps_replay *r, int n)
{
	typeof(r->kswapd[0]) *k = &r->kswapd[n];

	for (int zi = 0; zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];
		unsigned long b;

		if (z->node != n || z->type >= PS_ZONE_NR || !k->zboost[z->type])
			continue;
		b = k->zboost[z->type];
		z->watermark_boost -= z->watermark_boost < b ? z->watermark_boost : b;
		k->zboost[z->type] = 0;
		k->boost_resets++;
	}
	k->boost_left = 0;
}

/*
 * kswapd, a timed activity per node (mm/vmscan.c of 4.9+): woken by the slow
 * path and by a boosted watermark (wake_kswapd), it runs balance_pgdat at
 * kswapd.reclaim_pages_per_ms in shrink_node passes (kswapd_next_pass), and
 * between passes stops once the boost it was woken with is reclaimed and the
 * node is balanced, or at once when there is nothing left to reclaim (a
 * failure if the run reclaimed nothing; MAX_RECLAIM_RETRIES of them in a row
 * and the node is no longer woken) and the recorded kswapd has nothing more
 * to hand over (kswapd_waits).
 * Then the boosts it started with go and kswapd takes the HZ/10 short sleep of
 * kswapd_try_to_sleep: a wake during it starts a new run at once
 * (kswapd_low_wmark_hit_quickly), and at its end kswapd runs again if the
 * node is no longer balanced (kswapd_high_wmark_hit_quickly), or sleeps.
 *
 * What it reclaims: with kswapd.takeover (the default when the trace names
 * its tasks), the blocks whose trace free was the recorded kswapd's, in the
 * recorded order and no sooner than the recorded kswapd freed them: the model
 * moves the recorded reclaim in time but does not invent more of it.
 * Without, the oldest page-cache blocks allocated during the trace.  The
 * trace's own later frees of blocks the model reclaimed are absorbed
 * (replay_reclaimed_then_freed_pages).
 */
void rp_run_kswapd(struct ps_replay *r, uint64_t now)
{
	long rate = reclaim_rate(r);

	for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
		typeof(r->kswapd[0]) *k = &r->kswapd[n];

		if (!k->awake)
			continue;
		if (k->pending) {
			if (now < k->start_at)
				continue;
			k->pending = 0;
			kswapd_run_start(r, n, k->start_at);
		}
		if (k->napping) {
			if (now < k->nap_end)
				continue;
			/* kswapd_try_to_sleep after HZ/10: sleep for good only if still balanced */
			if (k->req_zoneidx >= 0)
				k->zoneidx = k->req_zoneidx;
			if (node_balanced(r, n, k->zoneidx, k->order) && !node_boost(r, n)) {
				k->awake = 0;
				k->napping = 0;
				r->nr_awake--;
				continue;
			}
			k->hit_quickly_high++;
			kswapd_run_start(r, n, k->nap_end);
		}
		if (now > k->last_run) {
			k->budget_milli += (now - k->last_run) * rate / 1000;
			k->last_run = now;
		}
		/*
		 * balance_pgdat: passes of shrink_node at falling priority;
		 * between passes it stops once the node is balanced and the
		 * boost it was woken with is reclaimed
		 */
		while (k->budget_milli >= 1000 && !k->done) {
			int got;

			if (k->round_left <= 0 && !kswapd_next_pass(r, n))
				break;
			got = reclaim_one(r, n, -1, k->last_run);
			if (got > 0) {
				k->reclaimed += got;
				k->failures = 0;
			}
			if (got < 0 && kswapd_waits(r, n)) {
				/*
				 * a boosted pass with no progress ends the boosted
				 * reclaim (balance_pgdat's break) and the boosts the
				 * run started with go; the run waits on unboosted
				 */
				if (k->boost_left > 0)
					end_boost(r, n);
				k->budget_milli = 0;
				break;
			}
			if (got < 0) {
				/* no progress: balance_pgdat gives up; the boosts go all the same */
				k->round_left = 0;
				k->done = 1;
				break;
			}
			k->round_left -= got;
			k->pass_got += got;
			k->run_got += got;
			k->budget_milli -= got * 1000ull < k->budget_milli ? got * 1000ull : k->budget_milli;
		}
		if (!k->done)
			continue;
		if (!k->run_got)
			k->failures++;	/* at MAX_RECLAIM_RETRIES the node is left alone */
		/* done: the boosts it started with go, and kswapd takes its short sleep */
		set_reclaim_active(r, n, k->zoneidx, 0);
		k->awake_ns += now - k->woken_at;
		end_boost(r, n);
		k->napping = 1;
		k->nap_end = now + 100000000ull;
	}
}

/*
 * node_pagecache_reclaimable without RECLAIM_UNMAP and RECLAIM_WRITE: the
 * node's page cache less its mapped pages (constant: the recorded nr_mapped)
 * and less its dirty pages (dirty.h).
 */
static long node_pagecache_reclaimable(const struct ps_replay *r, int node)
{
	long file, dirty, n;

	ps_dirty_node(&r->dirty, r->zones, node, &file, &dirty);
	n = file > r->mapped[node] ? file - r->mapped[node] : 0;
	if (!(r->o.policy.zone_reclaim_mode & 2))
		n -= dirty < n ? dirty : n;
	return n;
}

/*
 * vm.zone_reclaim_mode & 1: a zone below its watermark on the allocating
 * CPU's own node is reclaimed in place (node_reclaim: max(2^order, 32) pages
 * of its page cache) before the walk moves on; a remote node with CPUs is
 * never scanned, nor is anything for a request that may not block (no
 * __GFP_DIRECT_RECLAIM).  One reclaim at a time per node
 * (PGDAT_RECLAIM_LOCKED): it holds the node for the pages it reclaimed at
 * the model's reclaim speed (kswapd.reclaim_pages_per_ms), and another
 * CPU's request meanwhile does not scan (NODE_RECLAIM_NOSCAN) but moves on
 * down the zonelist.  The reclaimed pages go to the reclaiming CPU's lists,
 * so the zone's free count does not see them at once.  Returns whether the
 * zone now passes.
 */
int rp_node_reclaim(struct ps_replay *r, struct ps_zone *z, int cpu, int order, int classzone, uint32_t gfp)
{
	long want = 1L << order;
	int got = 0, node = z->node;

	if (r->o.policy.zone_reclaim_mode == PS_UNSET || !(r->o.policy.zone_reclaim_mode & 1))
		return 0;
	if (!(gfp & PS_GFP_DIRECT_RECLAIM))
		return 0;	/* the allocation may not block: NODE_RECLAIM_NOSCAN */
	if (node != ps_machine_cpu_node(r->m, cpu))
		return 0;
	if (node_pagecache_reclaimable(r, node) <= r->min_unmapped[node]) {
		r->node_reclaim_full++;	/* NODE_RECLAIM_FULL: too little unmapped page cache */
		return 0;
	}
	if (r->now_ns < r->node_reclaim_until[node] && r->node_reclaim_cpu[node] != cpu) {
		r->node_reclaim_locked++;	/* PGDAT_RECLAIM_LOCKED: NODE_RECLAIM_NOSCAN */
		return 0;
	}
	if (want < 32)
		want = 32;
	r->node_reclaims++;
	while (got < want) {
		int n = reclaim_one(r, node, cpu, r->now_ns);

		if (n < 0)
			break;
		got += n;
	}
	r->node_reclaimed += got;
	r->node_reclaim_until[node] = r->now_ns + (uint64_t)(got > want ? got : want) * 1000000ull / (uint64_t)reclaim_rate(r);
	r->node_reclaim_cpu[node] = cpu;
	return rp_zone_ok(z, order, 0, classzone, 0, 0);
}
