// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmscan.c - kswapd as a timed activity per node (woken, balance_pgdat
 * passes, boosts, naps, failures) and node reclaim (vm.zone_reclaim_mode).
 *
 * Simplifies: reclaim runs at a fixed rate (kswapd.reclaim_pages_per_ms);
 * which blocks it takes comes from the engine (struct ps_mm_ops: the
 * recorded kswapd's frees, or the oldest page cache read during the trace),
 * not from modelled LRU lists; no writeback, no swap, no slab shrinking.
 * Zone-based kswapd (<= 4.7) does not tell unreclaimable zones apart.
 * See docs/replay.md, "kswapd".
 */
#include "lib/event.h"
#include "sim/mm/page_alloc.h"
#include "sim/mm/vmscan.h"
#include "sim/mm/watermark.h"

/*
 * Zone-based kswapd (<= 4.7): the node is balanced when every zone up to
 * the class zone passes WMARK_HIGH at @order, or with @quarter (an order > 0
 * run's pgdat_balanced) when the zones that pass hold a quarter of those
 * zones' managed pages.  Each zone is judged as its own class zone
 * (zone_balanced(zone, order, 0, i) in pgdat_balanced, (.., 0, 0) in
 * wakeup_kswapd), so no lowmem_reserve counts.  Zones the kernel would
 * deem unreclaimable are not told apart.
 */
static int zones_balanced(const struct ps_mm *mm, int node, int classzone, int order, int quarter)
{
	uint64_t managed = 0, balanced = 0;

	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];

		if (z->node != node || !z->managed || z->type > classzone)
			continue;
		managed += z->managed;
		if (ps_zone_watermark_ok(mm->kver, z, order, z->wmark_high + z->watermark_boost, z->type, 0))
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
static int node_balanced(const struct ps_mm *mm, int node, int classzone, int order)
{
	int eligible = 0;

	if (mm->prof->kswapd_per_zone)
		return zones_balanced(mm, node, classzone, order, order > 0);

	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];

		if (z->node != node || !z->managed || z->type > classzone)
			continue;
		eligible = 1;
		if (ps_zone_watermark_ok(mm->kver, z, order, z->wmark_high + z->watermark_boost, classzone, 0))
			return 1;
	}
	return !eligible;
}

/* The node's boosts summed; non-zero: pgdat_watermark_boosted (5.0+). */
static long node_boost(const struct ps_mm *mm, int node)
{
	long sum = 0;

	for (int zi = 0; zi < mm->nr_zones; zi++)
		if (mm->zones[zi].node == node)
			sum += (long)mm->zones[zi].watermark_boost;
	return sum;
}

/* ZONE_RECLAIM_ACTIVE on (or off) for the node's zones up to @zoneidx: pcp high capped (pcp.h). */
static void set_reclaim_active(struct ps_mm *mm, int node, int zoneidx, int on)
{
	for (int zi = 0; zi < mm->nr_zones; zi++) {
		struct ps_zone *z = &mm->zones[zi];

		if (z->node == node)
			z->reclaim_active = on && z->type <= zoneidx;
	}
}

/* balance_pgdat starts: the boost to reclaim is snapshot, rounds start afresh. */
static void kswapd_run_start(struct ps_mm *mm, int node, uint64_t now)
{
	struct ps_kswapd *k = &mm->node[node].kswapd;

	k->napping = 0;
	k->runs++;
	if (k->req_zoneidx >= 0)
		k->zoneidx = k->req_zoneidx;
	k->req_zoneidx = -1;
	k->order = k->req_order;
	k->req_order = 0;
	k->woken_at = now;
	k->last_run = now;
	k->credit = 0;
	k->round_left = 0;
	k->pass_got = 0;
	k->run_got = 0;
	k->priority = PS_DEF_PRIORITY;
	k->raise = -1;		/* no pass yet */
	k->done = 0;
	set_reclaim_active(mm, node, k->zoneidx, 1);
	/* nr_boost_reclaim: the boosts of the zones up to the class zone, kept per zone */
	k->boost_left = 0;
	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];

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
void ps_wakeup_kswapd(struct ps_mm *mm, int node, int classzone, int order, uint64_t now)
{
	struct ps_kswapd *k;

	if (node < 0 || node >= PS_MAX_NODES)
		return;
	k = &mm->node[node].kswapd;
	/* kswapd_highest_zoneidx and kswapd_order: the highest asked for since kswapd last looked */
	if (k->req_zoneidx < classzone)
		k->req_zoneidx = classzone;
	if (k->req_order < order)
		k->req_order = order;
	/* up to 4.7 one wake per zone: any zone of the node short of its high watermark wakes */
	if ((k->awake && !k->napping) || k->failures >= PS_MAX_RECLAIM_RETRIES ||
	    ((mm->prof->kswapd_per_zone ? zones_balanced(mm, node, classzone, order, 0) :
	      node_balanced(mm, node, classzone, order)) && !node_boost(mm, node)))
		return;
	if (k->napping) {
		k->hit_quickly_low++;
		k->napping = 0;
	} else {
		k->awake = 1;
		mm->nr_awake++;
		k->wakeups++;
	}
	k->pending = 1;
	k->start_at = now + 1000ull * (uint64_t)(mm->t.kswapd_wake_latency_us > 0 ? mm->t.kswapd_wake_latency_us : 0);
	mm->ops.arm(mm->ops.ctx, PS_MM_TIMER_KSWAPD, node, k->start_at);
}

/* kswapd_shrink_node's nr_to_reclaim: the sum over the node's zones up to reclaim_idx of max(HIGH + boost, 32). */
static long round_pages(const struct ps_mm *mm, int node, int reclaim_idx)
{
	long sum = 0;

	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];
		long high = z->wmark_high + (long)z->watermark_boost;

		if (z->node == node && z->managed && z->type <= reclaim_idx)
			sum += high > PS_SWAP_CLUSTER_MAX ? high : PS_SWAP_CLUSTER_MAX;
	}
	return sum;
}

/* What shrink_node scans at a priority: the node's pages in use stand in for its LRU lists. */
static long lru_scan(const struct ps_mm *mm, int node, int priority)
{
	long used = 0;

	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];

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
static int kswapd_next_pass(struct ps_mm *mm, int node)
{
	struct ps_kswapd *k = &mm->node[node].kswapd;
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
	balanced = node_balanced(mm, node, k->zoneidx, k->order);
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
	want = round_pages(mm, node, k->zoneidx);
	scan = lru_scan(mm, node, k->priority);
	k->raise = !(scan >= want) && !(k->boost_left > 0 && k->priority == PS_DEF_PRIORITY - 2);
	k->round_left = scan < want ? scan : want;
	k->pass_got = 0;
	return 1;
}

void ps_reclaim_block(struct ps_mm *mm, int node, struct ps_zone *z, uint32_t idx, int order, uint64_t now, int cpu)
{
	for (int c = 0; cpu < 0 && c < mm->m->nr_cpus; c++)
		if (mm->m->cpu_node[c] == node)
			cpu = c;
	if (cpu < 0)
		cpu = 0;
	ps_free_pages(mm, z, idx, order, cpu, now, 0);
}

/*
 * Reclaims one block of @node at @now onto @cpu's lists (-1: the node's
 * kswapd's): the block the engine names from the trace; returns pages
 * freed, -1 if there is nothing left to reclaim.
 */
static int reclaim_one(struct ps_mm *mm, int node, int cpu, uint64_t now)
{
	struct ps_zone *z;
	uint32_t idx;
	int order;

	if (!mm->ops.reclaim_victim)
		return -1;
	z = mm->ops.reclaim_victim(mm->ops.ctx, node, cpu, now, &idx, &order);
	if (!z)
		return -1;
	ps_reclaim_block(mm, node, z, idx, order, now, cpu);
	return 1 << order;
}

/*
 * The model's kswapd is out of blocks to reclaim on node @n, but the trace
 * shows more coming (the engine says): it waits for them instead of giving
 * up, unless the node is balanced and no boost is left, when balance_pgdat
 * stops anyway.  A boosted run that waits first gives up its boosts
 * (end_boost, in ps_run_kswapd).
 */
static int kswapd_waits(const struct ps_mm *mm, int n)
{
	const struct ps_kswapd *k = &mm->node[n].kswapd;

	return mm->ops.kswapd_waits && mm->ops.kswapd_waits(mm->ops.ctx, n, k->last_run) &&
	       !(k->boost_left <= 0 && node_balanced(mm, n, k->zoneidx, k->order));
}

/* The boosts @n's kswapd run started with go (balance_pgdat's out: label). */
static void end_boost(struct ps_mm *mm, int n)
{
	struct ps_kswapd *k = &mm->node[n].kswapd;

	for (int zi = 0; zi < mm->nr_zones; zi++) {
		struct ps_zone *z = &mm->zones[zi];
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

/* A page of reclaim costs this much credit: ns x (pages per ms). */
#define PAGE_CREDIT 1000000ull

/* When @node's kswapd next has work: its run's start, its nap's end, or its next page earned. */
static void kswapd_arm(struct ps_mm *mm, int n)
{
	struct ps_kswapd *k = &mm->node[n].kswapd;
	uint64_t at, rate = (uint64_t)mm->t.kswapd_rate;

	if (!k->awake)
		at = PS_MM_NEVER;
	else if (k->pending)
		at = k->start_at;
	else if (k->napping)
		at = k->nap_end;
	else
		at = k->last_run + (k->credit >= PAGE_CREDIT ? 0 : (PAGE_CREDIT - k->credit + rate - 1) / rate);
	mm->ops.arm(mm->ops.ctx, PS_MM_TIMER_KSWAPD, n, at);
}

/*
 * kswapd, a timed activity per node (mm/vmscan.c of 4.9+): woken by the slow
 * path and by a boosted watermark (wakeup_kswapd), it runs balance_pgdat at
 * kswapd.reclaim_pages_per_ms in shrink_node passes (kswapd_next_pass), and
 * between passes stops once the boost it was woken with is reclaimed and the
 * node is balanced, or at once when there is nothing left to reclaim (a
 * failure if the run reclaimed nothing; MAX_RECLAIM_RETRIES of them in a row
 * and the node is no longer woken) and the trace shows nothing more coming
 * (kswapd_waits).  Then the boosts it started with go and kswapd takes the
 * HZ/10 short sleep of kswapd_try_to_sleep: a wake during it starts a new
 * run at once (kswapd_low_wmark_hit_quickly), and at its end kswapd runs
 * again if the node is no longer balanced (kswapd_high_wmark_hit_quickly),
 * or sleeps.  Each step is a timer (kswapd_arm): the reclaim earned up to
 * the engine's clock is done when it runs.
 */
void ps_kswapd_run(struct ps_mm *mm, int n, uint64_t now)
{
	uint64_t rate = (uint64_t)mm->t.kswapd_rate;
	struct ps_kswapd *k = &mm->node[n].kswapd;

	if (!k->awake)
		return;
	if (k->pending) {
		if (now < k->start_at)
			goto arm;
		k->pending = 0;
		kswapd_run_start(mm, n, k->start_at);
	}
	if (k->napping) {
		if (now < k->nap_end)
			goto arm;
		/* kswapd_try_to_sleep after HZ/10: sleep for good only if still balanced */
		if (k->req_zoneidx >= 0)
			k->zoneidx = k->req_zoneidx;
		if (node_balanced(mm, n, k->zoneidx, k->order) && !node_boost(mm, n)) {
			k->awake = 0;
			k->napping = 0;
			mm->nr_awake--;
			goto arm;
		}
		k->hit_quickly_high++;
		kswapd_run_start(mm, n, k->nap_end);
	}
	if (now > k->last_run) {
		k->credit += (now - k->last_run) * rate;
		k->last_run = now;
	}
	/*
	 * balance_pgdat: passes of shrink_node at falling priority; between
	 * passes it stops once the node is balanced and the boost it was woken
	 * with is reclaimed
	 */
	while (k->credit >= PAGE_CREDIT && !k->done) {
		int got;

		if (k->round_left <= 0 && !kswapd_next_pass(mm, n))
			break;
		got = reclaim_one(mm, n, -1, k->last_run);
		if (got > 0) {
			k->reclaimed += got;
			k->failures = 0;
		}
		if (got < 0 && kswapd_waits(mm, n)) {
			/*
			 * a boosted pass with no progress ends the boosted reclaim
			 * (balance_pgdat's break) and the boosts the run started
			 * with go; the run waits on unboosted
			 */
			if (k->boost_left > 0)
				end_boost(mm, n);
			k->credit = 0;
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
		k->credit -= (uint64_t)got * PAGE_CREDIT < k->credit ? (uint64_t)got * PAGE_CREDIT : k->credit;
	}
	if (k->done) {
		if (!k->run_got)
			k->failures++;	/* at MAX_RECLAIM_RETRIES the node is left alone */
		/* done: the boosts it started with go, and kswapd takes its short sleep */
		set_reclaim_active(mm, n, k->zoneidx, 0);
		k->awake_ns += now - k->woken_at;
		end_boost(mm, n);
		k->napping = 1;
		k->nap_end = now + 100000000ull;
	}
arm:
	kswapd_arm(mm, n);
}

/*
 * node_pagecache_reclaimable without RECLAIM_UNMAP and RECLAIM_WRITE: the
 * node's page cache less its mapped pages (constant: the recorded nr_mapped)
 * and less its dirty pages (page-writeback.h).
 */
static long node_pagecache_reclaimable(const struct ps_mm *mm, int node)
{
	long file, dirty, n;

	ps_dirty_node(&mm->dirty, mm->zones, node, &file, &dirty);
	n = file > mm->node[node].nr_mapped ? file - mm->node[node].nr_mapped : 0;
	if (!(mm->t.zone_reclaim_mode & 2))
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
int ps_node_reclaim(struct ps_mm *mm, struct ps_zone *z, int cpu, int order, int classzone, uint32_t gfp)
{
	long want = 1L << order;
	int got = 0, node = z->node;
	struct ps_pgdat *pgdat = &mm->node[node];

	if (!(mm->t.zone_reclaim_mode & 1))
		return 0;
	if (!(gfp & PS_GFP_DIRECT_RECLAIM))
		return 0;	/* the allocation may not block: NODE_RECLAIM_NOSCAN */
	if (node != ps_machine_cpu_node(mm->m, cpu))
		return 0;
	if (node_pagecache_reclaimable(mm, node) <= pgdat->min_unmapped_pages) {
		mm->node_reclaim_full++;	/* NODE_RECLAIM_FULL: too little unmapped page cache */
		return 0;
	}
	if (pgdat->reclaim_locked && pgdat->reclaim_cpu != cpu) {
		mm->node_reclaim_locked++;	/* PGDAT_RECLAIM_LOCKED: NODE_RECLAIM_NOSCAN */
		return 0;
	}
	if (want < PS_SWAP_CLUSTER_MAX)
		want = PS_SWAP_CLUSTER_MAX;
	mm->node_reclaims++;
	while (got < want) {
		int n = reclaim_one(mm, node, cpu, mm->now_ns);

		if (n < 0)
			break;
		got += n;
	}
	mm->node_reclaimed += got;
	pgdat->reclaim_locked = 1;
	pgdat->reclaim_cpu = cpu;
	mm->ops.arm(mm->ops.ctx, PS_MM_TIMER_RECLAIM_LOCK, node,
		    mm->now_ns + (uint64_t)(got > want ? got : want) * 1000000ull / (uint64_t)mm->t.kswapd_rate);
	return ps_zone_ok(mm, z, order, 0, classzone, ps_gfp_to_alloc_flags(gfp, order, mm->kver, 0));
}

void ps_node_reclaim_unlock(struct ps_mm *mm, int node)
{
	mm->node[node].reclaim_locked = 0;
}
