// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * follow.c - follow mode's pass 2: the trace decides where every
 * block goes; the model checks each event against its state (defects), and
 * keeps a shadow of the per-CPU list counts the kernel's rules would keep,
 * to compare with the trace's refill and drain sections.
 *
 * Simplifies: a block on a per-CPU list is a state, not a list position (the
 * trace says when pages enter and leave the lists); the shadow is per list,
 * seeded from the start's unknown pages; a watermark boost ends when the
 * recorded kswapd's run is taken to end (its next wake or sleep, or a quiet
 * spell), balance_pgdat's own end leaving no event.  See docs/replay.md.
 */
#include "sim/mm/page_alloc.h"
#include "sim/mm/vmscan.h"
#include "sim/mm/vmstat.h"
#include "sim/mm/watermark.h"
#include "sim/mm/zonelist.h"
#include "sim/replay/engine.h"

static void account_invisible(struct ps_replay *r, struct ps_zone *z, uint32_t h, int k, const struct ps_event *ev)
{
	struct ps_event a = *ev;
	uint32_t cpu = z->next[h];

	a.type = PS_EV_ALLOC;
	a.pfn = z->start_pfn + h;
	a.order = 0;
	a.gfp = 0;
	a.cpu = cpu != PS_NIL ? cpu : ev->cpu;
	/* the bulk allocator counts numa events per page */
	for (int i = 0; i < (1 << k); i++) {
		a.pfn = z->start_pfn + h + i;
		ps_counters_event(&r->inv, &a);
	}
	r->invisible_pages += 1u << k;
	ps_zone_pcp_add(z, -(int64_t)(1u << k));
	ps_zone_mark(z, h, k, PG_ALLOC, z->mt[h]);
}

/*
 * The per-CPU list counts the kernel's rules would keep in follow mode (a
 * shadow of the trace): refills when a list is empty, drains when the count
 * reaches high; compared with the refill and drain sections the trace shows.
 */
/* The shadow's per-list block counts of @cpu's lists of @z, indexed by ps_pcp_index(). */
static int *shadow_lists(struct ps_replay *r, const struct ps_zone *z, int cpu)
{
	return &r->shadow[((size_t)z->index * r->mm.nr_cpus + ps_mm_cpu(&r->mm, cpu)) * PS_NR_PCP_LISTS];
}

static int *shadow_list(struct ps_replay *r, const struct ps_zone *z, int cpu, int order, int mt)
{
	return shadow_lists(r, z, cpu) + ps_pcp_index(z, order, mt);
}

static int *shadow_seed(struct ps_replay *r, const struct ps_zone *z, int cpu)
{
	return &r->shadow_seed[(size_t)z->index * r->mm.nr_cpus + ps_mm_cpu(&r->mm, cpu)];
}

/*
 * The recorded lists' contents at the start: zoneinfo gives each CPU's
 * count per zone, not which lists hold it.  An allocation from a list the
 * shadow holds empty takes one of those pages if the trace served it with
 * no refill of its own (@refilled: the CPU's previous event was a refill),
 * until they run out; drains take them after the known lists.
 */
static int shadow_seed_take(struct ps_replay *r, struct ps_pcp *pcp, int *seed, int pages, int refilled)
{
	if (refilled || *seed < pages)
		return 0;
	*seed -= pages;
	pcp->count -= pages;
	r->seed_used += (uint64_t)pages;
	return 1;
}

static void shadow_alloc(struct ps_replay *r, struct ps_zone *z, int cpu, int order, int mt, int refilled)
{
	struct ps_pcp *pcp = ps_mm_pcp(&r->mm, z, cpu);
	int *cnt = shadow_list(r, z, cpu, order, mt);

	if (*cnt <= 0 && shadow_seed_take(r, pcp, shadow_seed(r, z, cpu), 1 << order, refilled)) {
		ps_pcp_note_alloc(pcp);
		return;
	}
	if (*cnt <= 0) {
		int n = ps_pcp_refill_blocks(pcp, order, z->below_high);

		pcp->refills++;
		*cnt += n;
		pcp->count += n << order;
	}
	(*cnt)--;
	pcp->count -= 1 << order;
	ps_pcp_note_alloc(pcp);
}

/* free_pcppages_bulk on the shadow: @n pages from list @li on, then the start pages. */
static void shadow_drain(struct ps_replay *r, struct ps_zone *z, int cpu, int n, int li)
{
	struct ps_pcp *pcp = ps_mm_pcp(&r->mm, z, cpu);
	int *base = shadow_lists(r, z, cpu), nl = ps_pcp_nr_lists(r->o.profile);

	if (n <= 0 || pcp->count <= 0)
		return;
	pcp->drains++;
	for (int k = 0; k < nl && n > 0; k++) {
		int l = li + k < nl ? li + k : (li + k) % nl, o = l < 12 ? l / PS_MIGRATE_PCPTYPES : z->pageblock_order;

		if (!r->o.profile->pcp_high_orders)
			o = 0;
		while (base[l] > 0 && n > 0) {
			base[l]--;
			pcp->count -= 1 << o;
			n -= 1 << o;
		}
	}
	if (n > 0) {
		int *seed = shadow_seed(r, z, cpu), t = n < *seed ? n : *seed;

		*seed -= t;
		pcp->count -= t;
		r->seed_used += (uint64_t)t;
	}
}

/* vmstat_update's drain of @cpu's lists of @z, on the shadow (vmstat.c). */
void rp_follow_vmstat_drain(void *ctx, struct ps_zone *z, int cpu, int n, uint64_t now)
{
	shadow_drain(ctx, z, cpu, n, 0);
}

static void shadow_free(struct ps_replay *r, struct ps_zone *z, int cpu, int order, int mt, int reclaim_active)
{
	struct ps_pcp *pcp = ps_mm_pcp(&r->mm, z, cpu);
	int n;

	(*shadow_list(r, z, cpu, order, mt))++;
	pcp->count += 1 << order;
	n = ps_pcp_drain_pages(pcp, r->o.profile, order, reclaim_active, z->below_high);
	if (n > 0) {	/* most frees drain nothing */
		shadow_drain(r, z, cpu, n, ps_pcp_index(z, order, mt));
		ps_pcp_drained(z, n);	/* the trace's drain events bring those pages to the buddy next */
	}
}

/*
 * ZONE_RECLAIM_ACTIVE in follow mode.  balance_pgdat leaves no event of its
 * own: node N's zones count as under reclaim for the recorded kswapdN's own
 * frees, and for others' frees until FOLLOW_KSWAPD_GAP_NS after kswapdN's
 * latest event.  Measured on numa2-zrm1 (DMA32, batch 3, high 59): of the
 * drains by other tasks sized for the capped high (9 pages), 236 came
 * within 5 ms of kswapd0's latest event and 34 later; of those sized for
 * the normal one (12, 24 pages), 45 within 5 ms and 599 later.
 */
#define FOLLOW_KSWAPD_GAP_NS 5000000ull

/* kswapdN ran at @now (an event of its own). */
static void kswapd_note(struct ps_replay *r, int node, uint64_t now)
{
	r->kswapd_seen_ns[node] = now;
	r->kswapd_seen[node] = 1;
}

/* ns from kswapdN's latest event to @now; -1 before its first, or for an earlier @now. */
static int64_t kswapd_age(const struct ps_replay *r, int node, uint64_t now)
{
	return r->kswapd_seen[node] && now >= r->kswapd_seen_ns[node] ? (int64_t)(now - r->kswapd_seen_ns[node]) : -1;
}

/* The node whose kswapd @ev is, or -1; notes the time. */
static int follow_kswapd(struct ps_replay *r, const struct ps_event *ev)
{
	int node = ev->task_node;

	if (ev->task != PS_TASK_KSWAPD || node < 0 || node >= PS_MAX_NODES)
		return -1;
	kswapd_note(r, node, ev->ts_ns);
	return node;
}

static int follow_reclaim_active(const struct ps_replay *r, int node, int kswapd_node, uint64_t now)
{
	int64_t age;

	if (node == kswapd_node)
		return 1;
	age = kswapd_age(r, node, now);
	return age >= 0 && age < (int64_t)FOLLOW_KSWAPD_GAP_NS;
}

/*
 * Watermark boosts and ZONE_BELOW_HIGH in follow mode (6.7+, where the
 * per-CPU lists read them; r->follow_boosts).  A fallback of the trace below
 * pageblock order boosts its zone, as steal_suitable_fallback() does.  The
 * recorded kswapdN's run takes back the boosts it started with when it ends
 * (balance_pgdat), which leaves no event: the run starts at its
 * mm_vmscan_kswapd_wake and ends at the node's next wake or sleep, or
 * FOLLOW_KSWAPD_GAP_NS after kswapdN's latest event.  Without a trace of
 * kswapd's runs no boost would end, and none is tracked.
 */
static void follow_kswapd_run(struct ps_replay *r, const struct ps_event *ev)
{
	int node = ev->x.ks.nid;

	if (!r->follow_boosts || node < 0 || node >= PS_MAX_NODES)
		return;
	if (r->boost_run[node])
		ps_kswapd_boost_end(&r->mm, node);
	r->boost_run[node] = ev->type == PS_EV_KSWAPD_WAKE;
	if (!r->boost_run[node])
		return;
	kswapd_note(r, node, ev->ts_ns);	/* its own event, whether or not the trace names its task */
	/* zid is the kernel's zone index: pagesim's type order up to Normal (no HIGHMEM on 64-bit) */
	ps_kswapd_boost_start(&r->mm, node, ev->x.ks.zid >= 0 && ev->x.ks.zid < PS_ZONE_NR ? ev->x.ks.zid : PS_ZONE_NR - 1);
}

static void follow_kswapd_quiet(struct ps_replay *r, int node, uint64_t now)
{
	/* a run is open only after its wake, which noted kswapdN */
	if (r->boost_run[node] && kswapd_age(r, node, now) >= (int64_t)FOLLOW_KSWAPD_GAP_NS) {
		ps_kswapd_boost_end(&r->mm, node);
		r->boost_run[node] = 0;
	}
}

/*
 * The walk of @ev's allocation marks ZONE_BELOW_HIGH on each zone it tested
 * (ps_zone_walk_high): those of its zonelist up to @z, the zone it took
 * from (only @z when @z is not on that list).
 */
static void follow_walk_high(struct ps_replay *r, struct ps_zone *z, const struct ps_event *ev)
{
	const struct ps_zoneref *refs;
	int high = ps_mm_gfp_zone(&r->mm, ev->gfp), node = ps_machine_cpu_node(r->m, ev->cpu);
	int nr = node >= 0 ? ps_node_zonelist(r->mm.zl, node, ev->gfp, &refs) : 0;
	int first = nr ? ps_zonelist_first(refs, nr, high) : -1, last = -1;
	unsigned int flags = ps_gfp_to_alloc_flags(ev->gfp, ev->order, r->mm.kver, 0);

	for (int i = first; i >= 0 && i < nr && last < 0; i++)
		if (ps_mm_zoneref_zone(&r->mm, refs[i].node, refs[i].type, high) == z->index)
			last = i;
	if (last < 0) {
		ps_zone_walk_high(&r->mm, z, ev->order, high, flags);
		return;
	}
	for (int i = first; i <= last; i++) {
		int zi = ps_mm_zoneref_zone(&r->mm, refs[i].node, refs[i].type, high);

		if (zi >= 0)
			ps_zone_walk_high(&r->mm, &r->mm.zones[zi], ev->order, high, flags);
	}
}

/*
 * Tracks the CPU's refill and drain sections; returns the section @ev
 * follows (1: a refill, 2: a drain).  @refill: @ev is an extfrag event
 * that takes a page for a per-CPU list, as a zone_locked refill would.
 */
static int follow_sections(struct ps_replay *r, const struct ps_event *ev, int refill)
{
	uint8_t *sec;
	int prev;

	if (ev->cpu >= r->mm.nr_cpus)
		return 0;
	sec = &r->section[ev->cpu];
	prev = *sec;
	if ((ev->type == PS_EV_ZONE_LOCKED && ev->percpu_refill) || refill) {
		if (*sec != 1)
			r->trace_refills++;
		*sec = 1;
	} else if (ev->type == PS_EV_PCPU_DRAIN) {
		if (*sec != 2)
			r->trace_drains++;
		*sec = 2;
	} else if (ev->type != PS_EV_EXTFRAG) {
		*sec = 0;
	}
	return prev;
}

/*
 * zone_locked takes a block that is part of a larger pcp block, or made of
 * free and pcp pieces: the pcp blocks were freed straight to the buddy (6.1+
 * free_unref_page falls back to free_one_page, with no mm_page_pcpu_drain,
 * when the pcp trylock fails) and merged.  Puts them there and returns 1 if
 * the block at @idx is then free whole; 0, changing nothing, if any piece is
 * neither free nor on a list (or a free piece reaches outside the block); -1
 * if the pieces went to the buddy but did not merge into the block.
 */
static int resync_free_or_pcp(struct ps_replay *r, struct ps_zone *z, uint32_t idx, int order)
{
	uint32_t end = idx + (1u << order), h;
	int k, any = 0;

	for (uint32_t q = idx; q < end; q = h + (1u << k)) {
		int kind = ps_zone_block_of(z, q, &h, &k);
		int inside = h >= idx && h + (1u << k) <= end;
		int holds = h <= idx && h + (1u << k) >= end;	/* a pcp block may hold the whole block */

		if (!(kind == PG_FREE && inside) && !(kind == PG_PCP && (inside || holds)))
			return 0;
		any |= kind == PG_PCP;
	}
	if (!any)
		return 0;
	for (uint32_t q = idx, next; q < end; q = next) {
		int kind = ps_zone_block_of(z, q, &h, &k);

		next = h + (1u << k);	/* the block holds q (a merge may start it before q) */
		if (kind != PG_PCP)
			continue;
		r->pcp_resyncs++;
		ps_zone_pcp_add(z, -(int64_t)(1u << k));
		ps_zone_mark(z, h, k, PG_ALLOC, z->mt[h]);
		ps_free_one_page(z, h, k, ps_pageblock_mt(z, h), 0);
	}
	return ps_zone_block_of(z, idx, &h, &k) == PG_FREE && k >= order ? 1 : -1;
}

/*
 * A block of @order at @idx leaves the buddy under the zone lock (what
 * zone_locked, or a 6.10+ fallback that bypasses __rmqueue_smallest(),
 * reports): it goes on @ev's CPU's per-CPU list, or stays in transit there
 * for a direct buddy allocation, until mm_page_alloc or a drain.  @mt is
 * the requested type (-1: the pageblock's); @what names the event for a
 * defect.
 */
static void take_from_buddy(struct ps_replay *r, struct ps_zone *z, const struct ps_event *ev, uint32_t idx, int order,
			    int mt, const char *what)
{
	uint32_t h;
	int k, kind = ps_zone_block_of(z, idx, &h, &k), resync;
	char msg[96];

	if (kind == PG_FREE && k >= order) {
		ps_zone_take_free_at(z, idx, order, h, k);	/* marked below */
	} else if (kind == PG_PCP && h == idx && k == order) {
		/* freed straight to the buddy (pcp trylock failed) without our knowing */
		r->pcp_resyncs++;
		ps_zone_pcp_add(z, -(int64_t)(1u << k));
	} else if ((resync = resync_free_or_pcp(r, z, idx, order)) > 0) {
		ps_zone_take_free(z, idx, order);
	} else {
		if (resync < 0)		/* the pieces moved: look again */
			kind = ps_zone_block_of(z, idx, &h, &k);
		snprintf(msg, sizeof(msg), "%s takes a block the model does not hold as free", what);
		rp_defect(r, PS_DEF_ALLOC_NOT_FREE, ev, msg);
		if (kind == PG_PCP)
			ps_zone_pcp_add(z, -(int64_t)(1u << k));
		if (kind != PG_ALLOC || ps_zone_reshape_alloc(z, idx, order) < 0)
			return;
	}
	ps_zone_mark(z, idx, order, PG_PCP, mt >= 0 ? mt : ps_pageblock_mt(z, idx));
	z->next[idx] = ev->cpu;
	ps_zone_pcp_add(z, 1u << order);
}

static inline __attribute__((always_inline)) void follow_event(struct ps_replay *r, const struct ps_event *ev)
{
	const struct ps_profile *p = r->o.profile;
	struct ps_zone *z;
	uint32_t idx, h;
	int k, kind, kswapd_node, after, takes = 0;

	if (ev->type == PS_EV_FREE_BATCHED || ev->pfn == PS_PFN_NONE) {
		/* it ends the CPU's section and may be kswapd's; the model holds no block by it */
		follow_sections(r, ev, 0);
		follow_kswapd(r, ev);
		if (ev->type == PS_EV_KSWAPD_WAKE || ev->type == PS_EV_KSWAPD_SLEEP)
			follow_kswapd_run(r, ev);
		return;
	}
	z = zone_of(r, ev->pfn, &idx);
	if (z && rp_extfrag_takes(p, ev, z->pageblock_order))
		takes = ev->alloc_migratetype >= 0 && ev->alloc_migratetype < PS_MIGRATE_PCPTYPES &&
			ps_pcp_allowed(p, ev->alloc_order, z->pageblock_order) ? 2 : 1;
	after = follow_sections(r, ev, takes == 2);
	kswapd_node = follow_kswapd(r, ev);
	if (!z)
		return;		/* counted by the counters as pfn_outside_zones */
	if (ev->order >= PS_NR_PAGE_ORDERS || (idx & ((1u << ev->order) - 1)) || idx + (1u << ev->order) > z->nr_pages) {
		rp_defect(r, PS_DEF_SHAPE, ev, "order out of range or misaligned");
		return;
	}
	kind = ps_zone_block_of(z, idx, &h, &k);
	ps_vmstat_touch(&r->mm, z->index, ev->cpu);
	if (r->follow_boosts) {
		follow_kswapd_quiet(r, z->node, ev->ts_ns);
		if (ev->type == PS_EV_ALLOC)
			follow_walk_high(r, z, ev);
		else if (ev->type == PS_EV_EXTFRAG && ev->fallback_order < z->pageblock_order &&
			 !(p->skip_highatomic_steal && ev->fallback_migratetype == PS_MT_HIGHATOMIC))
			ps_zone_boost_watermark(z);
	}
	if (ps_pcp_allowed(p, ev->order, z->pageblock_order)) {
		if (ev->type == PS_EV_ALLOC)
			shadow_alloc(r, z, ev->cpu, ev->order, ev->migratetype, after == 1);
		else if (ev->type == PS_EV_FREE && ps_pageblock_mt(z, idx) != PS_MT_ISOLATE)
			shadow_free(r, z, ev->cpu, ev->order, ps_pageblock_mt(z, idx), follow_reclaim_active(r, z->node, kswapd_node, ev->ts_ns));
	}
	switch (ev->type) {
	case PS_EV_ZONE_LOCKED:
		z->lock_acquisitions++;
		take_from_buddy(r, z, ev, idx, ev->order, ev->migratetype, "zone_locked");
		break;
	case PS_EV_ALLOC:
		if (kind == PG_PCP && h == idx && k == ev->order) {
			ps_zone_pcp_add(z, -(int64_t)(1u << k));
		} else if (kind == PG_FREE && k >= ev->order) {
			ps_zone_take_free(z, idx, ev->order);
			r->untraced_buddy_allocs++;
		} else if (kind == PG_PCP) {
			/* pcp blocks of another shape: take the pages one by one */
			uint32_t end = idx + (1u << ev->order);

			for (uint32_t q = idx; q < end;) {
				if (ps_zone_block_of(z, q, &h, &k) != PG_PCP) {
					rp_defect(r, PS_DEF_SHAPE, ev, "allocation spans pcp and other blocks");
					return;
				}
				ps_zone_pcp_add(z, -(int64_t)(1u << k));
				ps_zone_mark(z, h, k, PG_ALLOC, z->mt[h]);
				q = h + (1u << k);
			}
			if (ps_zone_reshape_alloc(z, idx, ev->order) < 0) {
				rp_defect(r, PS_DEF_SHAPE, ev, "allocation of a block of another shape");
				return;
			}
		} else {
			rp_defect(r, PS_DEF_ALLOC_NOT_FREE, ev, "allocation of a block the model holds as allocated");
			if (kind != PG_ALLOC || ps_zone_reshape_alloc(z, idx, ev->order) < 0)
				return;
		}
		ps_zone_mark(z, idx, ev->order, PG_ALLOC, ev->migratetype >= 0 ? ev->migratetype : ps_pageblock_mt(z, idx));
		break;
	case PS_EV_FREE:
		if (kind == PG_PCP) {
			/* handed out with no mm_page_alloc: the bulk allocator */
			uint32_t end = idx + (1u << ev->order);

			for (uint32_t q = idx; q < end;) {
				if (ps_zone_block_of(z, q, &h, &k) != PG_PCP)
					break;
				account_invisible(r, z, h, k, ev);
				q = h + (1u << k);
			}
			kind = ps_zone_block_of(z, idx, &h, &k);
		}
		if (kind == PG_FREE && k >= ev->order) {
			/*
			 * Compaction's free scanner (and page reporting) take free pages
			 * out of the buddy with no event; what they do not use comes back
			 * through mm_page_free.  Take the block out, then free it.
			 */
			ps_zone_take_free(z, idx, ev->order);
			r->isolated_pages += 1u << ev->order;
			kind = PG_ALLOC;
		}
		if (kind == PG_FREE) {
			rp_defect(r, PS_DEF_FREE_NOT_ALLOC, ev, "free of a block the model holds as free");
			return;
		}
		if (ps_zone_reshape_alloc(z, idx, ev->order) < 0) {
			rp_defect(r, PS_DEF_SHAPE, ev, "free of a range that is not wholly allocated");
			return;
		}
		if (ps_pcp_allowed(p, ev->order, z->pageblock_order) && ps_pageblock_mt(z, idx) != PS_MT_ISOLATE) {
			ps_zone_mark(z, idx, ev->order, PG_PCP, ps_pageblock_mt(z, idx));
			z->next[idx] = ev->cpu;
			ps_zone_pcp_add(z, 1u << ev->order);
		} else {
			z->lock_acquisitions++;
			ps_free_block(z, idx, ev->order);
		}
		break;
	case PS_EV_PCPU_DRAIN:
		if (kind == PG_PCP && h == idx && k == ev->order) {
			ps_zone_pcp_add(z, -(int64_t)(1u << k));
		} else {
			rp_defect(r, PS_DEF_DRAIN_NOT_PCP, ev, "drain of a block not on a per-CPU list");
			if (kind != PG_ALLOC || ps_zone_reshape_alloc(z, idx, ev->order) < 0)
				return;
		}
		ps_zone_mark(z, idx, ev->order, PG_ALLOC, z->mt[idx]);
		ps_free_one_page(z, idx, ev->order,
				 p->pcp_mt_cache && ev->migratetype >= 0 ? ev->migratetype : ps_pageblock_mt(z, idx), 0);
		break;
	case PS_EV_EXTFRAG: {
		int start = ev->alloc_migratetype, pb = z->pageblock_order;

		if (start < 0 || start >= PS_MIGRATE_PCPTYPES)
			break;
		if (ev->change_ownership) {
			uint32_t n = 1u << (ev->fallback_order > pb ? ev->fallback_order : pb);
			uint32_t b0 = idx & ~(n - 1);

			for (uint32_t b = b0; b < b0 + n && b < z->nr_pages; b += 1u << pb)
				ps_set_pageblock_mt(z, b, start);
			if (ev->fallback_order < pb)
				ps_move_freepages_block(z, idx, start, NULL);
		} else if (p->fallback == PS_FB_MOVE_RETRY || p->fallback == PS_FB_STEAL_RETURN) {
			if (ev->fallback_order < pb && (ev->fallback_order >= pb / 2 || start != PS_MT_MOVABLE))
				ps_move_freepages_block(z, idx, start, NULL);
		}
		if (takes) {
			int ao = ev->alloc_order;

			if (ao >= PS_NR_PAGE_ORDERS || (idx & ((1u << ao) - 1)) || idx + (1u << ao) > z->nr_pages) {
				rp_defect(r, PS_DEF_SHAPE, ev, "order out of range or misaligned");
				break;
			}
			kind = ps_zone_block_of(z, idx, &h, &k);
			if (ev->change_ownership && kind == PG_FREE && z->mt[h] != start) {
				/* a claimed range: expand() leaves the remainder on the new type's lists */
				ps_del_free(z, h);
				ps_add_free(z, h, k, start, 0);
			}
			z->lock_acquisitions++;
			take_from_buddy(r, z, ev, idx, ao, start, "extfrag");
		}
		break;
	}
	}
}

void rp_follow_event(struct ps_replay *r, const struct ps_event *ev)
{
	follow_event(r, ev);
}

void rp_follow_events(struct ps_replay *r, const struct ps_event *evs, int n)
{
	for (int i = 0; i < n; i++) {
		rp_clock(r, &evs[i]);
		follow_event(r, &evs[i]);
	}
}
