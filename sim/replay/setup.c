// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * setup.c - the replay's model built from the machine and the policy: the
 * tunables resolved against the recorded ones, the model of every zone
 * (sim/mm/mm.c), the traced machine's address space, the engine's tables,
 * the per-CPU lists' recorded contents (follow mode) and the zone-lock
 * model.
 */
#include "sim/mm/lock.h"
#include "sim/replay/engine.h"

/* The release whose rules the model follows: opts.kver, else the recorded kernel's within the profile. */
static int model_kver(const struct ps_replay *r)
{
	const struct ps_profile *p = r->o.profile;
	int k = r->o.kver ? r->o.kver : (r->o.traced ? r->o.traced : r->m)->kver;

	return k >= p->kver_min && k <= p->kver_max ? k : p->kver_min;
}

/*
 * The model's tunables under the policy.  Watermarks: the recorded zoneinfo
 * holds the kernel's own values under the recorded tunables and kernel;
 * they are kept unless the policy changes vm.min_free_kbytes or
 * vm.watermark_scale_factor, or picks a release whose watermark rule
 * differs (before 4.6: low = min + min/4, high = min + min/2), in which case
 * every zone's watermarks and lowmem_reserve are recomputed by that
 * release's rules (watermark.c).
 */
static void resolve_tunables(const struct ps_replay *r, struct ps_mm_tunables *t)
{
	const struct ps_policy *p = &r->o.policy, *rec = &r->o.recorded;
	int kver = model_kver(r), old_rule = kver < PS_KVER(4, 6, 0) || p->wmark_legacy == 1;
	int rec_old_rule = r->m->kver && r->m->kver < PS_KVER(4, 6, 0);

	memset(t, 0, sizeof(*t));
	t->wmark_recompute = old_rule != rec_old_rule ||
			     (p->min_free_kbytes != PS_UNSET && p->min_free_kbytes != rec->min_free_kbytes) ||
			     (p->watermark_scale_factor != PS_UNSET &&
			      p->watermark_scale_factor != rec->watermark_scale_factor);
	t->wmark_kver = old_rule ? PS_KVER(4, 5, 255) : kver;
	t->min_free_kbytes = p->min_free_kbytes;
	t->watermark_scale_factor = p->watermark_scale_factor;
	t->watermark_boost_factor = p->watermark_boost_factor != PS_UNSET ? p->watermark_boost_factor : 15000;
	t->zone_reclaim_mode = p->zone_reclaim_mode != PS_UNSET ? p->zone_reclaim_mode : 0;
	t->defrag_mode = r->o.defrag_mode;
	t->min_unmapped_ratio = p->min_unmapped_ratio != PS_UNSET ? p->min_unmapped_ratio : 1;
	t->min_slab_ratio = p->min_slab_ratio != PS_UNSET ? p->min_slab_ratio : 5;
	t->swap = r->m->swap_total_kb > 0;
	t->lru_gen = r->m->lru_gen_enabled > 0 && (r->m->lru_gen_enabled & 1) && kver >= PS_KVER(6, 1, 0);
	t->dirty_ratio = p->dirty_ratio != PS_UNSET ? p->dirty_ratio : 20;
	t->dirty_bytes = p->dirty_bytes != PS_UNSET ? p->dirty_bytes : 0;
	t->dirty_expire_cs = p->dirty_expire_centisecs != PS_UNSET ? p->dirty_expire_centisecs : 3000;
	t->dirty_writeback_cs = p->dirty_writeback_centisecs != PS_UNSET ? p->dirty_writeback_centisecs : 500;
	t->pcp_batch = p->pcp_batch;
	t->pcp_high = p->pcp_high;
	t->percpu_pagelist_high_fraction = p->percpu_pagelist_high_fraction != rec->percpu_pagelist_high_fraction ?
						   p->percpu_pagelist_high_fraction : PS_UNSET;
	t->recorded_high_fraction = rec->percpu_pagelist_high_fraction > 0 ? rec->percpu_pagelist_high_fraction : 0;
	t->pcp_batch_scale_max = p->pcp_batch_scale_max;
	t->kswapd_rate = p->kswapd_rate != PS_UNSET ? p->kswapd_rate : PS_KSWAPD_RATE_DEFAULT;
	t->node_reclaim_rate = p->node_reclaim_rate != PS_UNSET ? p->node_reclaim_rate : PS_NODE_RECLAIM_RATE_DEFAULT;
	t->kswapd_wake_latency_us = p->kswapd_wake_latency_us > 0 ? p->kswapd_wake_latency_us : 0;
	t->kswapd_slice_us = p->kswapd_slice_us > 0 ? p->kswapd_slice_us : 0;
	t->kswapd_wake_jitter_us = r->o.ensemble_member ? PS_ENSEMBLE_WAKE_JITTER_US : 0;
	t->vmstat_drift = p->vmstat_drift == 1;
	t->kswapd_sleep_check = p->kswapd_sleep_check == 1;
	t->kswapd_nap_ignores_boost = p->kswapd_nap_boost_check == 0;
}

static void model_extfrag(void *ctx, const struct ps_event *ev)
{
	struct ps_replay *r = ctx;

	ps_counters_event(&r->cnt, ev);
	if (r->view)
		rp_view_extfrag(r, ev);
}

static void engine_arm(void *ctx, int what, int arg, uint64_t at)
{
	struct ps_replay *r = ctx;
	int cls = what == PS_MM_TIMER_KSWAPD	   ? PS_TIMER_KSWAPD :
		  what == PS_MM_TIMER_WRITEBACK ? PS_TIMER_WRITEBACK :
						  PS_TIMER_RECLAIM_LOCK;

	if (at == PS_MM_NEVER)
		ps_timer_cancel(&r->timers, cls, arg);
	else
		ps_timer_arm(&r->timers, cls, arg, at);
}

/* The traced machine's address space: its zones' page arrays, in one global index. */
static int traced_space(struct ps_replay *r)
{
	r->nr_tz = r->tm->nr_zones;
	r->tz = calloc(r->nr_tz ? r->nr_tz : 1, sizeof(*r->tz));
	if (!r->tz)
		return -1;
	for (int i = 0; i < r->nr_tz; i++) {
		const struct ps_zone_desc *d = &r->tm->zones[i];
		uint64_t base, end;

		ps_zone_desc_blocks(d, &base, &end);
		r->tz[i].base = base;
		r->tz[i].nr_pages = end - base;
		r->tz[i].node = d->node;
		r->tz[i].gbase = r->traced_pages;
		r->traced_pages += end - base;
	}
	if (r->cross) {
		r->ttouch = calloc(r->nr_tz, sizeof(*r->ttouch));
		if (!r->ttouch)
			return -1;
		for (int i = 0; i < r->nr_tz; i++)
			if (!(r->ttouch[i] = calloc(r->tz[i].nr_pages, 1)))
				return -1;
	}
	return 0;
}

/* Pass 1's per-page and per-pageblock tables of the model's zones. */
static int pass1_tables(struct ps_replay *r)
{
	int nz = r->mm.nr_zones;

	r->touch = calloc(nz ? nz : 1, sizeof(*r->touch));
	r->pb_evidence = calloc(nz ? nz : 1, sizeof(*r->pb_evidence));
	r->pb_changed = calloc(nz ? nz : 1, sizeof(*r->pb_changed));
	if (!r->touch || !r->pb_evidence || !r->pb_changed)
		return -1;
	for (int i = 0; i < nz; i++) {
		const struct ps_zone *z = &r->mm.zones[i];

		r->touch[i] = calloc(z->nr_pages, 1);
		r->pb_evidence[i] = malloc(z->nr_pageblocks);
		r->pb_changed[i] = calloc(z->nr_pageblocks, 1);
		if (!r->touch[i] || !r->pb_evidence[i] || !r->pb_changed[i])
			return -1;
		memset(r->pb_evidence[i], 0xff, z->nr_pageblocks);
	}
	return 0;
}

/*
 * The recorded lists at the start (zoneinfo): 6.7+, each CPU's own
 * auto-tuned high, within its bounds (unless the policy sets them); in
 * follow mode also the pages they held, lists unknown.
 */
static void seed_pcp_counts(struct ps_replay *r, int counts)
{
	const struct ps_machine *m = r->m;

	for (int s = 0; s < m->nr_pcp_seed; s++) {
		const struct ps_pcp_seed *sd = &m->pcp_seed[s];
		int i = ps_machine_zone_index(m, sd->node, sd->type);
		struct ps_pcp *pcp;

		if (i < 0 || sd->cpu >= r->mm.nr_cpus)
			continue;
		pcp = &r->mm.pcps[(size_t)i * r->mm.nr_cpus + sd->cpu];
		if (counts) {
			r->shadow_seed[(size_t)i * r->mm.nr_cpus + sd->cpu] += sd->count;
			pcp->count += sd->count;
			r->seed_pages += (uint64_t)sd->count;
		}
		/* bounds only with the lists' own high (init_pcps): a set pcp.high has none */
		if (pcp->high_max && r->mm.t.percpu_pagelist_high_fraction < 0 &&
		    sd->high >= pcp->high_min && sd->high <= pcp->high_max)
			pcp->high = sd->high;
	}
}

int rp_setup_model(struct ps_replay *r, char *err, int len)
{
	const struct ps_machine *m = r->m;
	const struct ps_replay_opts *o = &r->o;
	struct ps_mm_tunables t;
	size_t zc;

	resolve_tunables(r, &t);
	if (ps_mm_create(&r->mm, m, o->profile, model_kver(r), &t, o->mode == PS_REPLAY_SIMULATE, err, len) < 0)
		return -1;
	/* the engine's clock, and in simulate mode word of what the model reclaimed (reclaim.c) */
	r->mm.ops = (struct ps_mm_ops){ .arm = engine_arm, .ctx = r };
	if (o->mode == PS_REPLAY_SIMULATE)
		r->mm.ops.reclaimed = rp_reclaimed;
	for (int i = 0; i < r->mm.nr_zones; i++) {
		struct ps_zone *z = &r->mm.zones[i];

		z->extfrag = model_extfrag;
		z->extfrag_ctx = r;
		if (r->mm.nr_zones <= 64) {
			z->pcp_changed = &r->pcp_changed;
			z->pcp_changed_bit = 1ull << i;
		}
	}
	if (pass1_tables(r) < 0)
		goto nomem;
	r->tm = o->traced ? o->traced : m;
	r->cross = o->traced && o->traced != m;
	/* how the trace's events were made: the recorded kernel's profile, the model's when unknown */
	r->trace_profile = r->tm->kver != PS_KVER_UNKNOWN ? ps_profile_for_kver(r->tm->kver) : o->profile;
	ps_zone_table_init(&r->zt, m);
	ps_zone_table_init(&r->tzt, r->tm);
	if (r->cross && o->mode != PS_REPLAY_SIMULATE) {
		snprintf(err, len, "follow mode replays a trace on the machine it was recorded on; use --mode simulate with --machine");
		return -1;
	}
	if (traced_space(r) < 0)
		goto nomem;
	if (o->mode == PS_REPLAY_SIMULATE) {
		if (r->mm.total_pages >= MAP_PCP_LOW - 1 || r->traced_pages >= PS_NIL) {
			snprintf(err, len, "%s is too large for the simulate-mode table (%llu pages)%s",
				 r->traced_pages < PS_NIL ? "the machine" : "the recorded machine's address space",
				 (unsigned long long)(r->traced_pages < PS_NIL ? r->mm.total_pages : r->traced_pages),
				 r->tm->assumed ? ": its layout is assumed; give --sysroot" : "");
			return -1;
		}
		r->map = calloc(r->traced_pages, sizeof(*r->map));
		if (!r->map || rp_reclaim_create(r) < 0)
			goto nomem;
	}
	zc = (size_t)m->nr_zones * r->mm.nr_cpus;
	r->shadow = calloc(zc * PS_NR_PCP_LISTS, sizeof(*r->shadow));
	r->shadow_seed = calloc(zc, sizeof(*r->shadow_seed));
	r->net_pages = calloc((size_t)m->nr_zones, sizeof(*r->net_pages));
	r->untraced_target = calloc((size_t)m->nr_zones, sizeof(*r->untraced_target));
	r->untraced_taken = calloc((size_t)m->nr_zones, sizeof(*r->untraced_taken));
	r->mig_expected = calloc((size_t)m->nr_zones, sizeof(*r->mig_expected));
	r->section = calloc(r->mm.nr_cpus, 1);
	if (!r->shadow || !r->shadow_seed || !r->section || !r->net_pages || !r->untraced_target ||
	    !r->untraced_taken || !r->mig_expected)
		goto nomem;
	if (!r->cross)
		seed_pcp_counts(r, o->mode == PS_REPLAY_FOLLOW);
	{
		struct ps_error lerr;

		r->lock = ps_lock_create(&o->lock, m->nr_zones, r->mm.nr_cpus, &lerr);
		if (!r->lock) {
			snprintf(err, len, "%s", lerr.msg);
			return -1;
		}
		if (o->mode == PS_REPLAY_FOLLOW) {
			r->lockf = ps_lock_follow_create(r->lock, m, o->profile, m->pageblock_order);
			if (!r->lockf)
				goto nomem;
		} else {
			r->mm.lock = r->lock;
			for (int i = 0; i < r->mm.nr_zones; i++)
				r->mm.zones[i].lock = r->lock;
		}
	}
	ps_counters_init(&r->cnt, m, m->pageblock_order);
	ps_counters_init(&r->inv, m, m->pageblock_order);
	r->cnt.numa_rule = r->inv.numa_rule = o->profile->numa_stat;	/* zone_statistics of the profile's kernel */
	rp_build_cpu_map(r);
	/*
	 * The dirty pages at the start, as recorded (the model's own machine
	 * only); the page cache then comes with the pages that stand for it
	 * (rp_lru_start)
	 */
	for (int i = 0; o->mode == PS_REPLAY_SIMULATE && i < r->mm.nr_zones && !r->cross; i++)
		ps_dirty_start(&r->mm.dirty, i, m->zones[i].nr_dirty, m->zones[i].nr_dirty);
	r->last_pcp_pages = calloc(r->mm.nr_zones > 0 ? (size_t)r->mm.nr_zones : 1, sizeof(*r->last_pcp_pages));
	if (!r->last_pcp_pages)
		goto nomem;
	for (int i = 0; i < r->mm.nr_zones; i++)
		r->last_pcp_pages[i] = UINT64_MAX;	/* every zone reports at the first event */
	r->pcp_changed = ~0ull;
	return 0;
nomem:
	snprintf(err, len, "out of memory building the model");
	return -1;
}
