// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay_simulate.c - simulate mode's allocations and frees: the zone walk
 * of get_page_from_freelist per kernel version, the buddy and per-CPU list
 * takes, highatomic reserves, the trace's own per-CPU traffic (bulk
 * allocations with no event), and pages held with no event (untraced use,
 * compaction's migration targets).
 *
 * Simplifies: the walk tries zones in zonelist order against WMARK_LOW plus
 * boost, then WMARK_MIN plus boost (with the slow path's reductions for
 * __GFP_HIGH and ALLOC_HARDER: rp_zone_ok), then without watermarks
 * (standing in for direct reclaim and compaction); a failed request is
 * counted, not retried.  The fair zone policy (<= 4.7) is one form for
 * 4.0-4.7: a fair pass over the preferred node, then an unfair walk of
 * the whole zonelist, where the 4.6 and 4.7 code both end up.  See
 * docs/replay.md.
 */
#include "sim/replay/replay_priv.h"

/* ALLOC_HARDER: the slow path of an atomic request (__GFP_ATOMIC, or __GFP_HIGH without direct reclaim). */
static int alloc_harder(uint32_t gfp, int pass)
{
	if (pass == 0 || (gfp & PS_GFP_NOMEMALLOC))
		return 0;
	return (gfp & PS_GFP_ATOMIC) || (!(gfp & PS_GFP_DIRECT_RECLAIM) && (gfp & PS_GFP_HIGH));
}

/*
 * High-order atomic reserves (4.4+): a slow-path, non-blocking high-order
 * request (ALLOC_HARDER with __GFP_ATOMIC up to 6.2, ALLOC_HIGHATOMIC from
 * 6.3: no direct reclaim, __GFP_HIGH) tries the HIGHATOMIC lists first and,
 * once served, turns its pageblock into a reserve while the zone holds less
 * than 1% of its pages (plus one block) in reserves.
 */
static int highatomic_request(const struct ps_replay *r, uint32_t gfp, int order, int pass)
{
	return !r->o.profile->old_mt && order && alloc_harder(gfp, pass);
}

static void reserve_highatomic(struct ps_replay *r, struct ps_zone *z, uint32_t idx)
{
	long pbn = 1L << z->pageblock_order;
	int mt = ps_pageblock_mt(z, idx);

	if (z->nr_reserved_highatomic >= (long)(z->managed / 100) + pbn || mt >= PS_MT_PCPTYPES)
		return;
	ps_set_pageblock_mt(z, idx, PS_MT_HIGHATOMIC);
	ps_move_freepages_block(z, idx, PS_MT_HIGHATOMIC, NULL);
	z->nr_reserved_highatomic += pbn;
	r->highatomic_reserved++;
}

/* unreserve_highatomic_pageblock: before the last-resort pass, give one reserve back. */
static void unreserve_highatomic(struct ps_replay *r, struct ps_zone *z, int mt)
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
		r->highatomic_unreserved++;
		return;
	}
}

uint32_t rp_take(struct ps_replay *r, struct ps_zone *z, int cpu, int order, int mt, int highatomic)
{
	uint32_t idx = PS_NIL;

	if (ps_pcp_allowed(r->o.profile, order, z->pageblock_order)) {
		idx = ps_pcp_alloc(z, pcp_of(r, z, cpu), order, mt);
		if (idx != PS_NIL && highatomic)
			reserve_highatomic(r, z, idx);	/* get_page_from_freelist, after any success */
		if (idx != PS_NIL || !highatomic)
			return idx;
	}
	{
		uint64_t fallbacks = z->fallbacks;

		z->lock_acquisitions++;
		if (highatomic)
			idx = ps_rmqueue(z, order, PS_MT_HIGHATOMIC, NULL);
		if (idx == PS_NIL)
			idx = ps_rmqueue(z, order, mt, NULL);
		if (idx != PS_NIL) {
			ps_lock_section(z->lock, z->index, cpu, z->now_ns, 1,
					z->fallbacks != fallbacks ? PS_LOCK_FALLBACK : PS_LOCK_DIRECT_ALLOC);
			if (highatomic)
				reserve_highatomic(r, z, idx);
		}
		return idx;
	}
}

/*
 * The fair zone allocation policy (3.12-4.7): the preferred zone's node,
 * whose zones share the fast path in batches of high - low pages
 * (NR_ALLOC_BATCH); -1 when the zonelist has no zone up to @high.
 */
static int fair_node(const struct ps_replay *r, int node, int thisnode, int high)
{
	int nr;

	if (node < 0 || node >= PS_MAX_NODES || high < 0 || high >= PS_ZONE_NR)
		return -1;
	nr = thisnode ? 1 : r->nr_node_order[node];
	for (int ni = 0; ni < nr; ni++) {
		int n = thisnode ? node : r->node_order[node][ni];

		for (int t = high; t >= 0 && n < PS_MAX_NODES; t--)
			if (r->node_zone[n][t] >= 0)
				return n;
	}
	return -1;
}

/* reset_alloc_batches: the preferred node's zones up to @high get high - low again. */
static void fair_reset(struct ps_replay *r, int node, int high)
{
	for (int t = high; t >= 0; t--) {
		int zi = r->node_zone[node][t];

		if (zi >= 0)
			r->zones[zi].nr_alloc_batch = alloc_batch_full(&r->zones[zi]);
	}
	r->fair_resets++;
}

/* Tries the zonelist of @node for zone types <= @high; returns the zone or NULL. */
struct ps_zone *rp_walk(struct ps_replay *r, int cpu, int node, int thisnode, int high, int order, int mt,
			    uint32_t gfp, uint32_t *idx)
{
	int nr = thisnode ? 1 : r->nr_node_order[node];
	/* vm.defrag_mode (6.15+): no fragmenting fallback until reclaim has failed (pass 3) */
	int defrag = r->o.defrag_mode && r->o.profile->defrag_mode;
	int local = defrag || node < 0 || node >= PS_MAX_NODES || high < 0 || high >= PS_ZONE_NR ? -1 :
		    r->nofrag_node[thisnode][node][high];

	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1) {
			/* the slow path wakes kswapd on every node of the zonelist (ALLOC_KSWAPD) */
			for (int ni = 0; ni < nr && (gfp & PS_GFP_KSWAPD_RECLAIM); ni++)
				rp_wake_kswapd(r, thisnode ? node : r->node_order[node][ni], high, order, r->now_ns);
		}
		if (pass == 2 && !r->o.profile->old_mt) {
			/* before the last resort, the reserves go back */
			for (int ni = 0; ni < nr; ni++) {
				int n = thisnode ? node : r->node_order[node][ni];

				for (int t = high; t >= 0; t--)
					if (n < PS_MAX_NODES && r->node_zone[n][t] >= 0)
						unreserve_highatomic(r, &r->zones[r->node_zone[n][t]], mt);
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
		int fair = pass == 0 && r->o.profile->fair;
		int first = pass > 0 ? -1 : fair ? fair_node(r, node, thisnode, high) : local;

		for (int confined = first >= 0; confined >= 0; confined--) {
			int skipped = 0;

			for (int ni = 0; ni < nr; ni++) {
				int n = thisnode ? node : r->node_order[node][ni];

				if (confined && n != first)
					break;
				for (int t = high; t >= 0; t--) {
					int zi = n < PS_MAX_NODES ? r->node_zone[n][t] : -1;
					struct ps_zone *z;
					uint64_t boosts;

					if (zi < 0)
						continue;
					z = &r->zones[zi];
					if (confined && fair && z->nr_alloc_batch <= 0) {
						skipped = 1;	/* ZONE_FAIR_DEPLETED */
						r->fair_skipped++;
						continue;
					}
					/* spread_dirty_pages: the fast path skips a node (zone) over its dirty limit */
					if (pass == 0 && (gfp & PS_GFP_WRITE) && !ps_dirty_ok(&r->dirty, r->zones, zi)) {
						r->dirty.skips++;
						continue;
					}
					if (!rp_zone_ok(z, order, pass, high, gfp, alloc_harder(gfp, pass)) &&
					    !(pass == 0 && rp_node_reclaim(r, z, cpu, order, high, gfp)))
						continue;
					z->now_ns = r->now_ns;
					z->now_cpu = cpu;
					z->nofragment = (confined && !fair) || (defrag && pass < 2);
					boosts = z->boosts;
					*idx = rp_take(r, z, cpu, order, mt, highatomic_request(r, gfp, order, pass));
					z->nofragment = 0;
					/* ZONE_BOOSTED_WATERMARK: set only with ALLOC_KSWAPD */
					if (z->boosts != boosts && (gfp & PS_GFP_KSWAPD_RECLAIM))
						rp_wake_kswapd(r, z->node, z->type, 0, r->now_ns);
					if (*idx != PS_NIL) {
						if (pass == 2)
							r->sim_wmark_ignored++;
						if (r->o.profile->fair)
							z->nr_alloc_batch -= 1l << order;	/* every page taken, any pass */
						return z;
					}
				}
			}
			if (skipped)
				fair_reset(r, first, high);
		}
	}
	return NULL;
}

/*
 * A traced allocation (counted in @c): the model places it by its zone walk
 * and maps the traced block to the model's.
 */
static void simulate_alloc(struct ps_replay *r, const struct ps_event *ev, struct ps_counters *c, uint32_t seq)
{
	struct ps_zone *z;
	struct ps_event a = *ev;
	uint32_t tidx, idx;
	int ti, cpu = ev->cpu < PS_MAX_CPUS ? r->cpu_to_cpu[ev->cpu] : ev->cpu;
	int node, thisnode = !!(ev->gfp & PS_GFP_THISNODE), mt = ev->migratetype, ra;
	uint64_t tg;

	if (ev->pfn == PS_PFN_NONE) {
		r->sim_skipped_failed++;
		ps_counters_event(c, ev);
		return;
	}
	ti = tzone_of(r, ev->pfn, &tidx);
	if (ti < 0) {
		ps_counters_event(c, ev);	/* counted as outside */
		return;
	}
	tg = r->tz[ti].gbase + tidx;
	node = thisnode ? r->node_to_node[r->tz[ti].node] : ps_machine_cpu_node(r->m, cpu);
	if (node < 0)
		node = r->node_to_node[r->tz[ti].node];
	if (mt < 0)
		mt = PS_MT_MOVABLE;
	z = rp_walk(r, cpu, node, thisnode, rp_gfp_zone(ev->gfp), ev->order, mt, ev->gfp, &idx);
	if (!z) {
		r->sim_alloc_failed++;
		return;
	}
	ps_zone_mark(z, idx, ev->order, PG_ALLOC, mt);
	rp_vmstat_touch(r, z->index, cpu);
	for (uint32_t i = 0; i < (1u << ev->order) && tidx + i < r->tz[ti].nr_pages; i++)
		r->map[tg + i] = (uint32_t)(r->gbase[z->index] + idx + i + 1);
	ra = lru_page(ev->gfp);
	if (ra || (ev->gfp & PS_GFP_WRITE))
		ps_dirty_alloc(&r->dirty, r->gbase[z->index] + idx, z->index, ev->order,
			       !!(ev->gfp & PS_GFP_WRITE));
	if (ra)
		rp_lru_add(r, z->node, (uint32_t)tg);
	if (r->alloc_of) {
		r->alloc_of[tg] = seq;
		if (ahead_marked(r, seq))
			rp_ahead_add(r, z->node, (uint32_t)tg, seq);
	}
	a.pfn = z->start_pfn + idx;
	a.cpu = cpu;
	ps_counters_event(c, &a);
}

/*
 * The trace's own per-CPU list traffic (simulate mode): an order-0 refill
 * puts free traced pages on the refilling CPU's list, as an order-0 free
 * puts the page on the freeing CPU's (trace_pcp_put); a drain or a traced
 * allocation takes them off.  A free of a page still there was handed out by
 * the bulk allocator with no mm_page_alloc; simulate_invisible() replays it.
 */
void rp_trace_pcp_event(struct ps_replay *r, const struct ps_event *ev)
{
	uint32_t tidx, n = 1u << (ev->order < PS_NR_ORDERS ? ev->order : 0);
	int ti = tzone_of(r, ev->pfn, &tidx);
	uint64_t tg;

	if (ti < 0)
		return;
	tg = r->tz[ti].gbase + tidx;
	if (tidx + n > r->tz[ti].nr_pages)
		n = r->tz[ti].nr_pages - tidx;
	if (ev->type == PS_EV_ZONE_LOCKED) {
		if (ev->percpu_refill && ev->order == 0 && !r->map[tg] && ev->cpu < PS_MAX_CPUS &&
		    ev->migratetype >= 0 && ev->migratetype < PS_MT_PCPTYPES)
			r->map[tg] = MAP_PCP(ev->cpu, ev->migratetype);
		return;
	}
	for (uint32_t i = 0; i < n; i++)	/* PS_EV_PCPU_DRAIN */
		if (MAP_IS_PCP(r->map[tg + i]))
			r->map[tg + i] = 0;
}

/*
 * The trace's order-0 free @ev of traced page @tg put it on the freeing
 * CPU's list of migratetype @mt (the pageblock's; the model's block stands
 * for it), where the bulk allocator may take it with no event.
 */
static void trace_pcp_put(struct ps_replay *r, const struct ps_event *ev, uint64_t tg, int mt)
{
	if (ev->order || ev->cpu >= PS_MAX_CPUS)
		return;
	if (mt < 0 || mt >= PS_MT_PCPTYPES)
		mt = PS_MT_MOVABLE;	/* highatomic and CMA pages go on the movable list */
	r->map[tg] = MAP_PCP(ev->cpu, mt);
}

static void untraced_give_back(struct ps_replay *r, const struct ps_event *ev);
static struct ps_zone *hidden_zone(struct ps_replay *r, uint64_t pfn, int held);

/*
 * The order-0 page @ev frees came off the trace's list of a CPU with no
 * mm_page_alloc (the bulk allocator: vmalloc's pages, ...).  The request is
 * replayed as that CPU's order-0 GFP_KERNEL allocation of the list's
 * migratetype, now; it counts in the kernel's rows as the kernel counts
 * it, and apart (replay_invisible_*).  When it was made between the refill
 * and the free, the trace does not tell.
 */
static void simulate_invisible(struct ps_replay *r, const struct ps_event *ev, uint32_t g)
{
	struct ps_event a = *ev;
	uint32_t k = g - MAP_PCP_LOW;

	a.type = PS_EV_ALLOC;
	a.order = 0;
	a.cpu = (uint16_t)(k / PS_MT_PCPTYPES);
	a.migratetype = (int8_t)(k % PS_MT_PCPTYPES);
	a.gfp = PS_GFP_DIRECT_RECLAIM | PS_GFP_KSWAPD_RECLAIM | PS_GFP_IO | PS_GFP_FS;
	a.percpu_refill = 0;
	r->invisible_replayed++;
	r->invisible_pages++;
	simulate_alloc(r, &a, &r->inv, 0);
	untraced_give_back(r, ev);
}

/* An allocation or a free of the trace, in simulate mode. */
__attribute__((noinline)) void rp_simulate_alloc_free(struct ps_replay *r, const struct ps_event *ev)
{
	struct ps_zone *z;
	uint32_t tidx, idx;
	int ti, cpu = ev->cpu < PS_MAX_CPUS ? r->cpu_to_cpu[ev->cpu] : ev->cpu;
	uint32_t seq = ev->type == PS_EV_ALLOC && r->alloc_of ? ++r->alloc_seq : 0;	/* kswapd.ahead */

	if (ev->order >= PS_NR_ORDERS) {
		rp_defect(r, PS_DEF_SHAPE, ev, "order above the maximum");
		ps_counters_event(&r->cnt, ev);
		return;
	}
	if (ev->type == PS_EV_ALLOC) {
		simulate_alloc(r, ev, &r->cnt, seq);
		return;
	}
	r->trace_has_comm |= ev->comm != NULL;
	ti = tzone_of(r, ev->pfn, &tidx);
	if (ti < 0) {
		ps_counters_event(&r->cnt, ev);
		return;
	}
	{
		uint64_t tg = r->tz[ti].gbase + tidx, g = r->map[tg];
		uint32_t n = 1u << ev->order;
		struct ps_event f = *ev;

		if (tidx + n > r->tz[ti].nr_pages)
			n = r->tz[ti].nr_pages - tidx;
		if (r->alloc_of)
			r->alloc_of[tg] = 0;	/* off kswapd.ahead's list */
		if (MAP_IS_PCP(g)) {
			if (ev->order == 0)
				simulate_invisible(r, ev, (uint32_t)g);
			/* a larger block over list pages, or a request the model failed */
			for (uint32_t i = 0; i < n; i++)
				if (MAP_IS_PCP(r->map[tg + i]))
					r->map[tg + i] = 0;
			g = r->map[tg];
		}
		if (g == MAP_RECLAIMED) {
			/* the model's kswapd reclaimed it already */
			memset(&r->map[tg], 0, n * sizeof(*r->map));
			trace_pcp_put(r, ev, tg, PS_MT_MOVABLE);
			r->reclaimed_then_freed += 1u << ev->order;
			if (r->kswapd_takeover && ev->task == PS_TASK_KSWAPD)
				r->kswapd[r->node_to_node[r->tz[ti].node]].handed++;	/* it has reclaimed here */
			r->cnt.events[PS_EV_FREE]++;
			return;
		}
		if (!g) {
			/*
			 * Never allocated in the trace nor at its start: compaction's
			 * free scanner isolated it (taken with no event, given back
			 * here), or the bulk allocator took it from a list the trace
			 * did not show being filled.
			 */
			trace_pcp_put(r, ev, tg, PS_MT_MOVABLE);
			untraced_give_back(r, ev);
			if (ev->order == 0 && r->hidden_on && ev->task == PS_TASK_KCOMPACTD) {
				/* a migration target migrated again */
				struct ps_zone *tz = hidden_zone(r, ev->pfn, 0);

				if (tz)
					rp_migration_target(r, tz);
			}
			r->invisible_frees++;
			r->invisible_pages += 1u << ev->order;
			r->cnt.events[PS_EV_FREE]++;
			return;
		}
		z = zone_of_global(r, g - 1, &idx);
		if (n == 1)
			r->map[tg] = 0;
		else
			memset(&r->map[tg], 0, n * sizeof(*r->map));
		trace_pcp_put(r, ev, tg, z->mt[idx]);
		if ((idx & ((1u << ev->order) - 1)) || rp_reshape_alloc(z, idx, ev->order) < 0) {
			rp_defect(r, PS_DEF_SHAPE, ev, "free of a traced block the model did not allocate whole");
			return;
		}
		if (ev->order == 0 && r->hidden_on && ev->task == PS_TASK_KCOMPACTD)
			rp_migration_target(r, z);
		if (r->kswapd_takeover && ev->task == PS_TASK_KSWAPD && r->kswapd[z->node].deferred) {
			rp_defer_kswapd_free(r, z, idx);
			r->cnt.events[PS_EV_FREE]++;
			return;
		}
		z->now_ns = ev->ts_ns;
		z->now_cpu = cpu;
		rp_vmstat_touch(r, z->index, cpu);
		ps_dirty_release(&r->dirty, r->gbase[z->index] + idx, z->index, ev->order);
		if (ps_pcp_allowed(r->o.profile, ev->order, z->pageblock_order)) {
			ps_pcp_free(z, pcp_of(r, z, cpu), idx, ev->order);
		} else {
			z->lock_acquisitions++;
			ps_lock_section(z->lock, z->index, cpu, ev->ts_ns, 1, PS_LOCK_DIRECT_FREE);
			ps_free_block(z, idx, ev->order);
		}
		f.pfn = z->start_pfn + idx;
		f.cpu = cpu;
		ps_counters_event(&r->cnt, &f);
	}
}

/*
 * The model zone that stands for traced page @pfn's zone among the pages held
 * with no event: its own zone on the recorded machine; on another machine
 * (--machine) a zone of the node the traced node maps to, the highest one
 * holding pages when @held (else any zone holding pages), the highest one
 * otherwise.
 */
static struct ps_zone *hidden_zone(struct ps_replay *r, uint64_t pfn, int held)
{
	uint32_t idx;
	int ti, node;

	if (!r->cross)
		return zone_of(r, pfn, &idx);
	ti = tzone_of(r, pfn, &idx);
	node = ti < 0 ? -1 : r->node_to_node[r->tz[ti].node];
	for (int zi = r->nr_zones - 1; zi >= 0; zi--)
		if (r->zones[zi].node == node && r->zones[zi].managed &&
		    (!held || r->hidden_top[zi] != PS_NIL))
			return &r->zones[zi];
	for (int zi = r->nr_zones - 1; held && zi >= 0; zi--)
		if (r->hidden_top[zi] != PS_NIL)
			return &r->zones[zi];
	return NULL;
}

/* Holds page @idx of zone @zi, taken with no event. */
static void hidden_push(struct ps_replay *r, int zi, uint32_t idx)
{
	uint32_t e = r->hidden_free;

	r->hidden_free = r->hidden[e].next;	/* the pool has room for every page held */
	r->hidden[e].idx = idx;
	r->hidden[e].next = r->hidden_top[zi];
	r->hidden_top[zi] = e;
}

/* The page of zone @zi held last, no longer held; PS_NIL if none is. */
static uint32_t hidden_pop(struct ps_replay *r, int zi)
{
	uint32_t e = r->hidden_top[zi];

	if (e == PS_NIL)
		return PS_NIL;
	r->hidden_top[zi] = r->hidden[e].next;
	r->hidden[e].next = r->hidden_free;
	r->hidden_free = e;
	return r->hidden[e].idx;
}

/*
 * Takes the untraced use due by @now (a share of each zone's target in
 * proportion to the trace's time gone): single pages from the smallest free
 * blocks, movable ones first (compaction's free scanner isolates from
 * movable blocks), with no fallback and no event.  Checked every 1 ms.
 */
void rp_untraced_use(struct ps_replay *r, uint64_t now)
{
	double f = (double)(now - r->first_ns) / (double)(r->last_ns - r->first_ns);

	r->untraced_next_ns = now + 1000000;
	if (f > 1)
		f = 1;
	for (int zi = 0; zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];
		int64_t due = (int64_t)(f * (double)r->untraced_target[zi]);

		while (r->untraced_taken[zi] < due) {
			uint32_t idx = rp_take_hidden(z);

			if (idx == PS_NIL) {
				r->untraced_target[zi] = r->untraced_taken[zi];	/* the zone has nothing free */
				break;
			}
			hidden_push(r, zi, idx);
			r->untraced_taken[zi]++;
		}
	}
}

/*
 * kcompactd freed order-0 page @ev, a migration's source: its data went to
 * a free page of the same zone that the free scanner isolated with no
 * event.  The model takes that page from @z, where it holds the source,
 * and holds it until the trace frees a page it never showed taken.
 * Direct compaction's frees carry the allocating task's name and are not
 * told apart.
 */
void rp_migration_target(struct ps_replay *r, struct ps_zone *z)
{
	uint32_t idx = r->hidden_free == PS_NIL ? PS_NIL : rp_take_hidden(z);

	if (idx == PS_NIL) {
		r->mig_failed++;
		return;
	}
	hidden_push(r, z->index, idx);
	r->mig_taken++;
}

/*
 * The trace freed order-0 page @ev that it never showed being taken: a
 * migration target freed, a page compaction's free scanner isolated and
 * did not use, or the bulk allocator's (replayed as its own request).  The
 * model's latest page held with no event in that zone goes back, as this
 * free; when none is held, the untraced use takes one fewer.
 */
static void untraced_give_back(struct ps_replay *r, const struct ps_event *ev)
{
	uint32_t idx;
	struct ps_zone *z = !r->hidden_on || ev->order ? NULL : hidden_zone(r, ev->pfn, 1);
	int zi, cpu = ev->cpu < PS_MAX_CPUS ? r->cpu_to_cpu[ev->cpu] : ev->cpu;

	if (!z)
		return;
	zi = z->index;
	idx = hidden_pop(r, zi);
	if (idx == PS_NIL) {
		if (r->untraced_target[zi] > r->untraced_taken[zi])
			r->untraced_target[zi]--;
		return;
	}
	r->untraced_returned++;
	rp_reclaim_block(r, z->node, z, idx, 0, ev->ts_ns, cpu);	/* a plain free through the CPU's lists */
}
