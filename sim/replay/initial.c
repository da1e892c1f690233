// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * initial.c - the model's state at the start of the trace, on the machine
 * the trace was recorded on.
 *
 * Notes (what this simplifies):
 *  - A page whose first event is a free was allocated at the start; a page
 *    first taken by mm_page_alloc_zone_locked, or by a 6.10+ fallback's
 *    mm_page_alloc_extfrag alone, was free in the buddy; a page
 *    first handed out by mm_page_alloc without a zone_locked event, or first
 *    drained, was on a per-CPU list.
 *  - Free blocks of the before/ snapshot (pagetypeinfo per order and type,
 *    else buddyinfo) that the trace does not account for are placed in
 *    pages the trace never touches, highest order first, from the top of
 *    the zone's memory down (its first `present` pages, or up to the highest
 *    page the trace touches: holes are not recorded), up to the snapshot's
 *    free pages.
 *  - Pageblock types come from the first zone_locked/drain event in a block
 *    (before any extfrag event there), then from pagetypeinfo's block
 *    counts: missing UNMOVABLE and RECLAIMABLE blocks go to the lowest
 *    blocks without evidence, the rest are MOVABLE.  See docs/replay.md.
 */
#include "lib/bytescan.h"
#include "sim/replay/engine.h"

static void assign_pageblocks(struct ps_replay *r, int zi)
{
	struct ps_zone *z = &r->mm.zones[zi];
	const struct ps_zone_desc *d = &r->m->zones[zi];
	uint64_t have[PS_MIGRATE_TYPES] = { 0 };
	uint32_t first = z->span_start >> z->pageblock_order;
	uint32_t last = (z->span_end - 1) >> z->pageblock_order;

	for (uint32_t b = first; b <= last; b++) {
		int e = r->pb_evidence[zi][b];

		if (e != 0xff) {
			z->pb_mt[b] = e;
			have[e]++;
		} else {
			z->pb_mt[b] = 0xfe;	/* to assign */
		}
	}
	if (d->have_pagetypeinfo) {
		static const int order_of_fill[] = { PS_MT_UNMOVABLE, PS_MT_RECLAIMABLE, PS_MT_HIGHATOMIC };

		for (size_t i = 0; i < sizeof(order_of_fill) / sizeof(order_of_fill[0]); i++) {
			int mt = order_of_fill[i];
			uint64_t want = d->nr_blocks[mt];

			for (uint32_t b = first; b <= last && have[mt] < want; b++)
				if (z->pb_mt[b] == 0xfe) {
					z->pb_mt[b] = mt;
					have[mt]++;
				}
		}
	}
	for (uint32_t b = first; b <= last; b++)
		if (z->pb_mt[b] == 0xfe)
			z->pb_mt[b] = PS_MT_MOVABLE;
	for (uint32_t b = 0; b < z->nr_pageblocks; b++)
		if (z->pb_mt[b] == PS_MT_ISOLATE)
			z->nr_isolate_pageblock++;
}

/* Places @need free blocks of (order, mt) in untouched pages, top of the zone down. */
static uint64_t place_blocks(struct ps_replay *r, int zi, int order, int mt, uint64_t need)
{
	struct ps_zone *z = &r->mm.zones[zi];
	uint32_t n = 1u << order, placed = 0;
	uint8_t *t = r->touch[zi];

	if (!need)
		return 0;
	for (int64_t b = (int64_t)((z->present_end - n) & ~(n - 1)); b >= (int64_t)z->span_start && placed < need;
	     b -= n) {
		uint32_t i, buddy;

		if (b < (int64_t)z->span_start || b + n > z->present_end)
			continue;
		if (order < z->pageblock_order && ps_pageblock_mt(z, b) != mt)
			continue;
		for (i = 0; i < n; i++)
			if (T_CLASS(t[b + i]) != T_NONE || z->state[b + i] != PG_STATE(PG_ALLOC, 1, 0))
				break;
		if (i < n)
			continue;
		buddy = b ^ n;
		if (order < PS_NR_PAGE_ORDERS - 1 && buddy < z->nr_pages && z->state[buddy] == PG_STATE(PG_FREE, 1, order))
			continue;	/* would have merged */
		if (order >= z->pageblock_order)
			for (uint32_t p = b; p < b + n; p += 1u << z->pageblock_order)
				ps_set_pageblock_mt(z, p, mt);
		ps_add_free(z, b, order, mt, 1);
		for (i = 0; i < n; i++)
			t[b + i] = T_BUDDY;	/* taken */
		placed++;
	}
	return placed;
}

/* The pages a machine's zone @d held free at its snapshot: buddy and per-CPU lists. */
int64_t rp_snapshot_free(const struct ps_machine *m, const struct ps_zone_desc *d)
{
	int64_t n = (int64_t)d->free_pages;

	for (int s = 0; s < m->nr_pcp_seed; s++)
		if (m->pcp_seed[s].node == d->node && m->pcp_seed[s].type == d->type)
			n += m->pcp_seed[s].count;
	return n;
}

void rp_build_zone(struct ps_replay *r, int zi)
{
	struct ps_zone *z = &r->mm.zones[zi];
	const struct ps_zone_desc *d = &r->m->zones[zi];
	uint8_t *t = r->touch[zi];
	int simulate = r->o.mode == PS_REPLAY_SIMULATE;
	int64_t budget;

	assign_pageblocks(r, zi);
	/* every page allocated at first, typed like its block */
	for (uint32_t i = z->span_start, end; i < z->span_end; i = end) {
		end = ((i >> z->pageblock_order) + 1) << z->pageblock_order;
		if (end > z->span_end)
			end = z->span_end;
		memset(z->mt + i, ps_pageblock_mt(z, i), end - i);
	}
	/* pages the trace shows free at the start (untouched ones, skipped, stay allocated) */
	for (uint32_t i = ps_bytes_skip(t, z->span_start, z->span_end, 0); i < z->span_end;
	     i = ps_bytes_skip(t, i + 1, z->span_end, 0)) {
		int c = T_CLASS(t[i]), on_pcp = !simulate && (c == T_PCP_ALLOC || c == T_DRAIN);

		if (c == T_BUDDY || (simulate && (c == T_PCP_ALLOC || c == T_DRAIN))) {
			ps_free_one_page(z, i, 0, ps_pageblock_mt(z, i), 0);
		} else if (on_pcp && (t[i] & T_HEAD)) {
			int o = T_ORDER(t[i]);

			if (i + (1u << o) > z->span_end)
				o = 0;
			ps_zone_mark(z, i, o, PG_PCP, ps_pageblock_mt(z, i));
			z->next[i] = PS_NIL;
			ps_zone_pcp_add(z, 1u << o);
			i += (1u << o) - 1;
		} else if (on_pcp) {
			/* a tail first seen alone */
			ps_zone_mark(z, i, 0, PG_PCP, ps_pageblock_mt(z, i));
			z->next[i] = PS_NIL;
			ps_zone_pcp_add(z, 1);
		}
	}
	/*
	 * The snapshot's free blocks the trace does not account for, largest
	 * first, up to the zone's free pages in the snapshot (buddy and
	 * per-CPU lists): the pages the trace shows free at the start were
	 * mostly parts of the snapshot's larger blocks, which its requests
	 * take page by page, so placing every block besides them would start
	 * the zone with more free memory than the kernel had (numa2-frag's
	 * node 1 by 1,800 pages).  What does not fit is counted
	 * (replay_initial_capped_blocks).
	 */
	budget = rp_snapshot_free(r->m, d) - (int64_t)z->nr_free_pages - (int64_t)z->nr_pcp_pages;
	if (!d->free_pages)
		budget = INT64_MAX;	/* no free count in the snapshot: its blocks alone */
	for (int o = PS_NR_PAGE_ORDERS - 1; o >= 0; o--) {
		for (int mt = 0; mt < PS_MIGRATE_TYPES; mt++) {
			uint64_t want, have = z->free_area[o].nr_free_mt[mt], got;

			if (d->have_pagetypeinfo)
				want = d->nr_free[o][mt];
			else if (d->have_buddyinfo && mt == PS_MT_MOVABLE)
				want = d->buddy[o];
			else
				continue;
			if (want <= have)
				continue;
			if (budget < (int64_t)((want - have) << o)) {
				uint64_t fit = budget > 0 ? (uint64_t)budget >> o : 0;

				r->capped_blocks += want - have - fit;
				want = have + fit;
				if (!fit)
					continue;
			}
			got = place_blocks(r, zi, o, mt, want - have);
			budget -= (int64_t)(got << o);
			r->placed_blocks += got;
			r->placed_pages += got << o;
			r->unplaced_blocks += want - have - got;
		}
	}
}

int rp_pcp_snapshot_lists(const struct ps_replay *r)
{
	long v = r->o.policy.pcp_snapshot_lists;

	if (r->o.mode != PS_REPLAY_SIMULATE || r->cross)
		return 0;
	if (v != PS_UNSET)
		return v == 1;
	return r->tm->kver >= PS_KVER(6, 7, 0);	/* an unknown release (0) is not */
}

/*
 * pcp.snapshot_lists=1 (simulate): each CPU's lists as the snapshot counts
 * them, taken out of the buddy that rp_build_zone() filled, so the zones'
 * free counts start at the kernel's NR_FREE_PAGES.  First the blocks the
 * trace shows on a list at the start (pass 1), on the list of the CPU
 * whose event first showed them and of their pageblock's type, in the
 * order the trace showed them, as long as they fit in that CPU's snapshot
 * count (the trace may show more: the lists change between the snapshot
 * and the first event); then, up to the count, order-0 pages of the
 * Movable list, since the snapshot gives a count per CPU and zone, not the
 * lists.  No list starts above the model's high (another profile's, or
 * pcp.high), which its first free would drain.
 */
void rp_seed_pcp_lists(struct ps_replay *r)
{
	const struct ps_machine *m = r->m;
	int nz = r->mm.nr_zones, nc = r->mm.nr_cpus;
	int64_t *room;

	if (!rp_pcp_snapshot_lists(r) || !nz || !nc)
		return;
	/* room[zone * nc + cpu]: the snapshot's count, less what is seeded */
	room = calloc((size_t)nz * nc, sizeof(*room));
	if (!room)
		return;
	for (int s = 0; s < m->nr_pcp_seed; s++) {
		const struct ps_pcp_seed *sd = &m->pcp_seed[s];
		int i = ps_machine_zone_index(m, sd->node, sd->type);

		if (i >= 0 && sd->cpu < nc) {
			int high = r->mm.pcps[(size_t)i * nc + sd->cpu].high;

			room[(size_t)i * nc + sd->cpu] = (int64_t)sd->count < high ? (int64_t)sd->count : high;
		}
	}
	for (uint32_t k = 0; k < r->nr_pcp_start; k++) {
		const struct rp_pcp_start *ps = &r->pcp_start[k];
		struct ps_zone *z;
		int64_t *left;
		int got;

		if (ps->zone >= (uint32_t)nz || ps->cpu >= nc)
			continue;
		left = &room[(size_t)ps->zone * nc + ps->cpu];
		if (*left < 1L << ps->order) {
			r->pcp_capped += 1ull << ps->order;
			continue;
		}
		z = &r->mm.zones[ps->zone];
		got = ps_pcp_seed_block(z, &r->mm.pcps[(size_t)ps->zone * nc + ps->cpu], r->mm.prof, ps->idx,
					ps->order, ps_pageblock_mt(z, ps->idx));
		*left -= got;
		r->pcp_seeded += got;
	}
	for (size_t i = 0; i < (size_t)nz * nc; i++)
		if (room[i] > 0)
			r->pcp_seeded += ps_pcp_seed(&r->mm.zones[i / nc], &r->mm.pcps[i], (int)room[i], PS_MT_MOVABLE);
	free(room);
}
