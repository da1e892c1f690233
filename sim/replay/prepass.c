// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * prepass.c - pass 1 over the trace: what the initial state needs (the
 * first event of every page and pageblock), what simulate mode's reclaim
 * needs (which frees were the recorded kswapd's and kcompactd's, the
 * kswapd.ahead numbering), and each zone's net use for --untraced-use.
 */
#include "sim/replay/engine.h"

void rp_free_pass1(struct ps_replay *r)
{
	for (int i = 0; i < r->mm.nr_zones; i++) {
		if (r->touch)
			free(r->touch[i]);
		if (r->pb_evidence)
			free(r->pb_evidence[i]);
		if (r->pb_changed)
			free(r->pb_changed[i]);
	}
	free(r->touch);
	free(r->pb_evidence);
	free(r->pb_changed);
	r->touch = NULL;
	r->pb_evidence = r->pb_changed = NULL;
}

/*
 * kswapd.ahead, pass 1: numbers the allocations and marks those whose block
 * the recorded kswapd freed.  Off for good when a number would wrap or the
 * bitmap cannot grow (the replay then runs as with kswapd.ahead = 0).
 */
static void prepass_ahead(struct ps_replay *r, const struct ps_event *ev)
{
	uint32_t tidx, n;
	uint64_t tg;
	int ti;

	if (ev->type == PS_EV_ALLOC && ++r->alloc_seq == UINT32_MAX)
		r->kswapd_ahead = 0;
	if (ev->pfn == PS_PFN_NONE || (ev->type != PS_EV_ALLOC && ev->type != PS_EV_FREE) ||
	    ev->order >= PS_NR_ORDERS || (ti = tzone_of(r, ev->pfn, &tidx)) < 0)
		return;
	tg = r->tz[ti].gbase + tidx;
	n = 1u << ev->order;
	if (tidx + n > r->tz[ti].nr_pages)
		n = r->tz[ti].nr_pages - tidx;
	if (ev->type == PS_EV_FREE) {
		uint32_t seq = r->alloc_of[tg];

		if (seq && ev->task == PS_TASK_KSWAPD) {
			if (seq >= r->ahead_nbits) {
				uint32_t nb = r->ahead_nbits ? r->ahead_nbits : 1u << 16;
				uint64_t *b;

				while (nb <= seq && nb < (1u << 31))
					nb *= 2;
				if (nb <= seq || !(b = realloc(r->ahead_bits, nb / 8))) {
					r->kswapd_ahead = 0;
					return;
				}
				memset((char *)b + r->ahead_nbits / 8, 0, (nb - r->ahead_nbits) / 8);
				r->ahead_bits = b;
				r->ahead_nbits = nb;
			}
			if (!(r->ahead_bits[seq / 64] & (1ull << (seq % 64))))
				r->ahead_marked++;
			r->ahead_bits[seq / 64] |= 1ull << (seq % 64);
		}
		memset(&r->alloc_of[tg], 0, n * sizeof(*r->alloc_of));
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		r->alloc_of[tg + i] = r->alloc_seq;
}

static inline void prepass_event(struct ps_replay *r, const struct ps_event *ev)
{
	struct ps_zone *z;
	uint32_t idx, n;
	int cls, zi, order = ev->order, mig;

	if (!r->first_ns)
		r->first_ns = ev->ts_ns ? ev->ts_ns : 1;
	r->last_ns = ev->ts_ns;
	if (r->kswapd_ahead)
		prepass_ahead(r, ev);
	if (ev->pfn == PS_PFN_NONE || ev->type == PS_EV_FREE_BATCHED)
		return;
	mig = ev->type == PS_EV_FREE && order == 0 && ev->task == PS_TASK_KCOMPACTD;
	r->mig_total += mig;
	if (r->cross) {
		/* another machine: only which traced blocks were allocated at the start matters */
		int ti = tzone_of(r, ev->pfn, &idx);
		uint8_t *t;

		if (ti < 0 || ev->type == PS_EV_EXTFRAG)
			return;
		t = r->ttouch[ti];
		if (order >= PS_NR_ORDERS || (idx & ((1u << order) - 1)))
			order = 0;
		cls = ev->type == PS_EV_FREE ? T_FREED : T_BUDDY;
		n = 1u << order;
		if (idx + n > r->tz[ti].nr_pages)
			n = r->tz[ti].nr_pages - idx;
		if (!t[idx])
			t[idx] = cls | T_HEAD | order << T_ORDER_SHIFT;
		for (uint32_t i = 1; i < n; i++)
			if (!t[idx + i])
				t[idx + i] = cls;
		return;
	}
	z = zone_of(r, ev->pfn, &idx);
	if (!z)
		return;
	zi = z->index;
	if ((ev->type == PS_EV_ALLOC || ev->type == PS_EV_FREE) && order < PS_NR_ORDERS)
		r->net_pages[zi] += ev->type == PS_EV_FREE ? (int64_t)1 << order : -((int64_t)1 << order);
	r->trace_has_comm |= ev->comm != NULL;	/* simulate mode reads task names in pass 1 too */
	if (ev->type == PS_EV_FREE && ev->task == PS_TASK_KSWAPD)
		r->tnode[z->node].last_recorded_ns = ev->ts_ns;
	r->mig_expected[zi] += mig;
	if (ev->type == PS_EV_EXTFRAG) {
		uint32_t pbs = 1u << (ev->fallback_order > z->pageblock_order ? ev->fallback_order - z->pageblock_order : 0);

		for (uint32_t b = 0; b < pbs && (idx >> z->pageblock_order) + b < z->nr_pageblocks; b++)
			r->pb_changed[zi][(idx >> z->pageblock_order) + b] = 1;
		return;
	}
	switch (ev->type) {
	case PS_EV_FREE: cls = T_FREED; break;
	case PS_EV_ALLOC: cls = T_PCP_ALLOC; break;
	case PS_EV_ZONE_LOCKED: cls = T_BUDDY; break;
	case PS_EV_PCPU_DRAIN: cls = T_DRAIN; break;
	default: return;
	}
	if ((ev->type == PS_EV_ZONE_LOCKED || ev->type == PS_EV_PCPU_DRAIN) && ev->migratetype >= 0 &&
	    ev->migratetype < PS_MT_PCPTYPES) {
		uint32_t pb = idx >> z->pageblock_order;

		if (!r->pb_changed[zi][pb] && r->pb_evidence[zi][pb] == 0xff)
			r->pb_evidence[zi][pb] = ev->migratetype;
	}
	if (order >= PS_NR_ORDERS || (idx & ((1u << order) - 1)))
		order = 0;
	n = 1u << order;
	if (idx + n > z->nr_pages)
		n = z->nr_pages - idx;
	if (idx + n > z->present_end && idx + n <= z->span_end)
		z->present_end = idx + n;	/* the trace shows memory there */
	/* a block first seen whole keeps its order (a pcp block at the start) */
	if (!r->touch[zi][idx])
		r->touch[zi][idx] = cls | T_HEAD | order << T_ORDER_SHIFT;
	for (uint32_t i = 1; i < n; i++)
		if (!r->touch[zi][idx + i])
			r->touch[zi][idx + i] = cls;
}

void ps_replay_prepass(struct ps_replay *r, const struct ps_event *evs, int n)
{
	for (int i = 0; i < n; i++)
		prepass_event(r, &evs[i]);
}
