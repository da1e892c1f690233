// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * simulate.c - simulate mode's pass 2: the trace gives requests and frees,
 * the model (sim/mm/page_alloc.c) places every request, and a table maps
 * each traced block to the model's.  Also what the trace shows besides its
 * requests: its own per-CPU list traffic (bulk allocations with no event,
 * replayed as requests), compaction's moves, the recorded kswapd's frees
 * (handed to the model's reclaim, victims.c), and pages held with no event
 * (--untraced-use).
 *
 * Simplifies: a failed request is counted and skipped; the bulk
 * allocator's requests are replayed at the free that reveals them, not when
 * they were made.  See docs/replay.md.
 */
#include "sim/mm/compaction.h"
#include "sim/mm/lock.h"
#include "sim/mm/page_alloc.h"
#include "sim/mm/vmscan.h"
#include "sim/mm/vmstat.h"
#include "sim/replay/engine.h"

/*
 * A traced allocation (counted in @c): the model places it by its zone walk
 * and maps the traced block to the model's.
 */
static void simulate_alloc(struct ps_replay *r, const struct ps_event *ev, struct ps_counters *c)
{
	struct ps_zone *z;
	struct ps_event a = *ev;
	uint32_t tidx, idx;
	int ti, cpu = ev->cpu < PS_MAX_CPUS ? r->cpu_to_cpu[ev->cpu] : ev->cpu;
	int node, thisnode = !!(ev->gfp & PS_GFP_THISNODE), mt = ev->migratetype;
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
	z = ps_alloc_pages(&r->mm, cpu, node, thisnode, ps_mm_gfp_zone(&r->mm, ev->gfp), ev->order, mt, ev->gfp, &idx);
	if (!z) {
		r->sim_alloc_failed++;
		return;
	}
	ps_zone_mark(z, idx, ev->order, PG_ALLOC, mt);
	ps_vmstat_touch(&r->mm, z->index, cpu);
	for (uint32_t i = 0; i < (1u << ev->order) && tidx + i < r->tz[ti].nr_pages; i++)
		r->map[tg + i] = (uint32_t)(r->mm.gbase[z->index] + idx + i + 1);
	r->owner[r->mm.gbase[z->index] + idx] = (uint32_t)(tg + 1);
	if (!r->lru_events)
		rp_lru_from_gfp(r, z, idx, ev->order, ev->gfp);
	else if (ev->gfp & PS_GFP_WRITE)	/* write_begin's page: page cache, dirty (its add event follows) */
		ps_dirty_alloc(&r->mm.dirty, r->mm.gbase[z->index] + idx, z->index, ev->order, 1, r->mm.now_ns);
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
	uint32_t tidx, n = 1u << (ev->order < PS_NR_PAGE_ORDERS ? ev->order : 0);
	int ti = tzone_of(r, ev->pfn, &tidx);
	uint64_t tg;

	if (ti < 0)
		return;
	tg = r->tz[ti].gbase + tidx;
	if (tidx + n > r->tz[ti].nr_pages)
		n = r->tz[ti].nr_pages - tidx;
	if (ev->type == PS_EV_ZONE_LOCKED) {
		if (ev->percpu_refill && ev->order == 0 && !r->map[tg] && ev->cpu < PS_MAX_CPUS &&
		    ev->migratetype >= 0 && ev->migratetype < PS_MIGRATE_PCPTYPES)
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
	if (mt < 0 || mt >= PS_MIGRATE_PCPTYPES)
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
	a.cpu = (uint16_t)(k / PS_MIGRATE_PCPTYPES);
	a.migratetype = (int8_t)(k % PS_MIGRATE_PCPTYPES);
	a.gfp = PS_GFP_DIRECT_RECLAIM | PS_GFP_KSWAPD_RECLAIM | PS_GFP_IO | PS_GFP_FS;
	a.percpu_refill = 0;
	r->invisible_replayed++;
	r->invisible_pages++;
	simulate_alloc(r, &a, &r->inv);
	untraced_give_back(r, ev);
}

/*
 * The trace's free of traced block @tg (model block @idx of @z) is the
 * kernel's reclaim of a page-cache page: the free is absorbed and the model
 * keeps the page, on its LRU list, until its own reclaim takes it (the
 * block stays the owner's; the map forgets it).  Without the page-cache
 * events, a free of a file page by a kswapd thread, or by any task when the
 * recording ran node reclaim, is taken for the kernel's reclaim.
 */
static int kernel_reclaim_free(struct ps_replay *r, const struct ps_event *ev, uint64_t tg, struct ps_zone *z,
			       uint32_t idx)
{
	int file;

	if (r->lru_events) {
		if (!rp_kernel_reclaimed(r, tg, ev->order))
			return 0;
	} else {
		file = ps_is_file_lru(ps_lru_list(z, idx));
		if (!file || !(ev->task == PS_TASK_KSWAPD ||
			       (r->o.recorded.zone_reclaim_mode != PS_UNSET && (r->o.recorded.zone_reclaim_mode & 1))))
			return 0;
	}
	if (ps_lru_list(z, idx) < 0)
		return 0;	/* not on the model's lists: nothing for its reclaim to take, free it */
	r->kernel_reclaim_absorbed += 1u << ev->order;
	return 1;
}

/* An allocation or a free of the trace, in simulate mode. */
__attribute__((noinline)) void rp_simulate_alloc_free(struct ps_replay *r, const struct ps_event *ev)
{
	struct ps_zone *z;
	uint32_t tidx, idx;
	int ti, cpu = ev->cpu < PS_MAX_CPUS ? r->cpu_to_cpu[ev->cpu] : ev->cpu;

	if (ev->order >= PS_NR_PAGE_ORDERS) {
		rp_defect(r, PS_DEF_SHAPE, ev, "order above the maximum");
		ps_counters_event(&r->cnt, ev);
		return;
	}
	if (ev->type == PS_EV_ALLOC) {
		simulate_alloc(r, ev, &r->cnt);
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
		uint32_t n = 1u << ev->order, whole;
		struct ps_event f = *ev;

		if (tidx + n > r->tz[ti].nr_pages)
			n = r->tz[ti].nr_pages - tidx;
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
			/* the model's reclaim took it already */
			memset(&r->map[tg], 0, n * sizeof(*r->map));
			trace_pcp_put(r, ev, tg, PS_MT_MOVABLE);
			r->reclaimed_then_freed += 1u << ev->order;
			rp_kernel_reclaimed(r, tg, ev->order);
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
			if (ev->order == 0 && r->mm.iso.on && ev->task == PS_TASK_KCOMPACTD) {
				/* a migration target migrated again */
				struct ps_zone *tz = hidden_zone(r, ev->pfn, 0);

				if (tz)
					ps_compaction_migrate(&r->mm, tz);
			}
			r->invisible_frees++;
			r->invisible_pages += 1u << ev->order;
			r->cnt.events[PS_EV_FREE]++;
			return;
		}
		z = ps_mm_zone_of_global(&r->mm, g - 1, &idx);
		/* the block's traced pages that map to consecutive model pages from @g: all, if the model allocated it whole */
		for (whole = 1; whole < n && r->map[tg + whole] == g + whole; whole++)
			;
		if (n == 1)
			r->map[tg] = 0;
		else
			memset(&r->map[tg], 0, n * sizeof(*r->map));
		if (kernel_reclaim_free(r, ev, tg, z, idx)) {
			r->cnt.events[PS_EV_FREE]++;
			return;
		}
		trace_pcp_put(r, ev, tg, z->mt[idx]);
		rp_lru_forget(r, z, idx, ev->order);
		if (whole < n || (idx & ((1u << ev->order) - 1)) || ps_zone_reshape_alloc(z, idx, ev->order) < 0) {
			rp_defect(r, PS_DEF_SHAPE, ev, "free of a traced block the model did not allocate whole");
			return;
		}
		if (ev->order == 0 && r->mm.iso.on && ev->task == PS_TASK_KCOMPACTD)
			ps_compaction_migrate(&r->mm, z);
		ps_free_pages(&r->mm, z, idx, ev->order, cpu, ev->ts_ns, 1);
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
	for (int zi = r->mm.nr_zones - 1; zi >= 0; zi--)
		if (r->mm.zones[zi].node == node && r->mm.zones[zi].managed &&
		    (!held || ps_isolated_holds(&r->mm, zi)))
			return &r->mm.zones[zi];
	for (int zi = r->mm.nr_zones - 1; held && zi >= 0; zi--)
		if (ps_isolated_holds(&r->mm, zi))
			return &r->mm.zones[zi];
	return NULL;
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

	ps_timer_arm(&r->timers, PS_TIMER_UNTRACED, 0, now + 1000000);
	if (f > 1)
		f = 1;
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		struct ps_zone *z = &r->mm.zones[zi];
		int64_t due = (int64_t)(f * (double)r->untraced_target[zi]);

		while (r->untraced_taken[zi] < due) {
			uint32_t idx = ps_isolate_free_page(z);

			if (idx == PS_NIL) {
				r->untraced_target[zi] = r->untraced_taken[zi];	/* the zone has nothing free */
				break;
			}
			ps_isolated_push(&r->mm, zi, idx);
			r->untraced_taken[zi]++;
		}
	}
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
	struct ps_zone *z = !r->mm.iso.on || ev->order ? NULL : hidden_zone(r, ev->pfn, 1);
	int zi, cpu = ev->cpu < PS_MAX_CPUS ? r->cpu_to_cpu[ev->cpu] : ev->cpu;

	if (!z)
		return;
	zi = z->index;
	idx = ps_isolated_pop(&r->mm, zi);
	if (idx == PS_NIL) {
		if (r->untraced_target[zi] > r->untraced_taken[zi])
			r->untraced_target[zi]--;
		return;
	}
	r->untraced_returned++;
	ps_free_pages(&r->mm, z, idx, 0, cpu, ev->ts_ns, 0);	/* a plain free through the CPU's lists */
}

/* vmstat_update's drain of @cpu's lists of @z (vmstat.c). */
void rp_sim_vmstat_drain(void *ctx, struct ps_zone *z, int cpu, int n, uint64_t now)
{
	struct ps_replay *r = ctx;

	ps_drain_zone_pages(&r->mm, z, cpu, n, now);
}
