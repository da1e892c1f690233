// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay.c - a replay's model built and started: the zones of one machine
 * (or another, --machine), pass 1 over the trace, the initial state, and
 * the entry each event takes (ps_replay_event).  The modes' work is in
 * replay_follow.c, replay_simulate.c and replay_reclaim.c (replay_priv.h
 * lists the files).
 *
 * Notes (what this simplifies):
 *  - Initial state (ps_replay_start): a page whose first event is a free was
 *    allocated at the start; a page first taken by mm_page_alloc_zone_locked
 *    was free in the buddy; a page first handed out by mm_page_alloc without
 *    a zone_locked event, or first drained, was on a per-CPU list.  Free
 *    blocks of the before/ snapshot (pagetypeinfo per order and type, else
 *    buddyinfo) that the trace does not account for are placed in pages the
 *    trace never touches, highest order first, from the top of the zone's
 *    memory down (its first `present` pages, or up to the highest page the
 *    trace touches: holes are not recorded).  Pageblock types come from the
 *    first zone_locked/drain event in a block (before any extfrag event
 *    there), then from pagetypeinfo's block counts: missing UNMOVABLE and
 *    RECLAIMABLE blocks go to the lowest blocks without evidence, the rest
 *    are MOVABLE.  See docs/replay.md.
 */
#include "sim/replay/replay_priv.h"

static void model_extfrag(void *ctx, const struct ps_event *ev)
{
	struct ps_replay *r = ctx;

	ps_counters_event(&r->cnt, ev);
}

int ps_replay_parse_cpu_map(const char *text, int16_t *map)
{
	const char *p = text;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b, node;

		if (end == p || a < 0 || a >= PS_MAX_CPUS)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= PS_MAX_CPUS)
				return -1;
			p = end;
		}
		if (*p != ':')
			return -1;
		node = strtol(p + 1, &end, 10);
		if (end == p + 1 || node < 0 || node >= PS_MAX_NODES)
			return -1;
		p = end;
		for (long c = a; c <= b; c++)
			map[c] = node;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

/*
 * Traced CPUs onto the model machine.  Same machine: identity.  Another
 * machine: traced CPU c of traced node n goes to model node n modulo the
 * model's nodes (or the node --cpu-map names), as that node's k-th CPU
 * (modulo its CPU count), k being c's rank among n's CPUs.  A traced node
 * maps to the model node of its first CPU.
 */
static void build_cpu_map(struct ps_replay *r, const struct ps_replay_opts *o)
{
	const struct ps_machine *m = r->m, *tm = r->tm;
	int rank[PS_MAX_NODES] = { 0 };

	for (int n = 0; n < PS_MAX_NODES; n++)
		r->node_to_node[n] = m->nr_nodes ? n % m->nr_nodes : 0;
	for (int c = 0; c < PS_MAX_CPUS; c++)
		r->cpu_to_cpu[c] = c;
	if (!r->cross)
		return;
	for (int c = 0; c < PS_MAX_CPUS; c++) {
		int tn = c < tm->nr_cpus ? tm->cpu_node[c] : -1, mn, k, cnt;

		mn = o->cpu_node_map[c] >= 0 ? o->cpu_node_map[c] : (tn >= 0 ? tn % (m->nr_nodes ? m->nr_nodes : 1) : 0);
		k = tn >= 0 ? rank[tn]++ : c;
		cnt = ps_machine_node_cpus(m, mn);
		r->cpu_to_cpu[c] = m->nr_cpus ? c % m->nr_cpus : 0;
		if (cnt) {
			k %= cnt;
			for (int mc = 0; mc < m->nr_cpus; mc++)
				if (m->cpu_node[mc] == mn && k-- == 0) {
					r->cpu_to_cpu[c] = mc;
					break;
				}
		}
		if (tn >= 0 && rank[tn] == 1)
			r->node_to_node[tn] = mn;
	}
}

/*
 * ALLOC_NOFRAGMENT (5.1+, alloc_flags_nofragment): the fast path sets it when
 * the walk starts at a Normal zone and the machine has one node or that
 * zone's node has a populated DMA32 zone.  Per (__GFP_THISNODE, preferred
 * node, class zone): the node of that first zone, or -1 for no flag.
 */
static void build_nofrag_node(struct ps_replay *r)
{
	for (int thisnode = 0; thisnode < 2; thisnode++)
		for (int node = 0; node < PS_MAX_NODES; node++)
			for (int high = 0; high < PS_ZONE_NR; high++) {
				int nr = thisnode ? 1 : r->nr_node_order[node], fn = -1, ft = -1;

				/* the first zone of the walk */
				for (int ni = 0; ni < nr && fn < 0; ni++) {
					int n = thisnode ? node : r->node_order[node][ni];

					for (int t = high; t >= 0 && n < PS_MAX_NODES && fn < 0; t--)
						if (r->node_zone[n][t] >= 0)
							fn = n, ft = t;
				}
				r->nofrag_node[thisnode][node][high] =
					(int8_t)(ft == PS_ZONE_NORMAL && r->o.profile->nofragment &&
						 (r->m->nr_nodes == 1 || r->node_zone[fn][PS_ZONE_DMA32] >= 0) ? fn : -1);
			}
}

/* Node order of each node's ZONELIST_FALLBACK, by the profile's kernel rules (zonelist.c). */
static void build_node_order(struct ps_replay *r)
{
	const struct ps_machine *m = r->m;
	struct ps_zonelists *zl = malloc(sizeof(*zl));

	if (zl && ps_zonelists_build(zl, m, r->o.profile->kver_min, PS_ZONELIST_ORDER_NODE) == 0) {
		for (int n = 0; n < m->nr_nodes && n < PS_MAX_NODES; n++) {
			r->nr_node_order[n] = zl->nr_node_order[n];
			for (int i = 0; i < zl->nr_node_order[n]; i++)
				r->node_order[n][i] = zl->node_order[n][i];
		}
		free(zl);
		return;
	}
	free(zl);
	/* fallback: own node first, then by distance, ties by node id */
	for (int n = 0; n < m->nr_nodes; n++) {
		int cnt = 0;

		if (!(m->node_online & (1ull << n)))
			continue;
		for (int d = 0; d <= 255 && cnt < m->nr_nodes; d++)
			for (int k = 0; k < m->nr_nodes; k++) {
				int dist = k == n ? 0 : m->distance[n][k];

				if (!(m->node_online & (1ull << k)) || dist != d)
					continue;
				r->node_order[n][cnt++] = k;
			}
		r->nr_node_order[n] = cnt;
	}
}

/*
 * Watermarks under the policy.  The recorded zoneinfo holds the kernel's own
 * values under the recorded tunables and kernel; they are kept unless the
 * policy changes vm.min_free_kbytes or vm.watermark_scale_factor, or picks a
 * profile whose watermark rule differs (before 4.6: low = min + min/4,
 * high = min + min/2), in which case every zone's watermarks and
 * lowmem_reserve are recomputed by the profile's kernel rules (watermark.c).
 */
static void apply_policy(struct ps_replay *r)
{
	const struct ps_policy *p = &r->o.policy, *rec = &r->o.recorded;
	int old_rule = r->o.profile->kver_max < PS_KVER(4, 6, 0) || p->wmark_legacy == 1;
	int rec_old_rule = r->m->kver && r->m->kver < PS_KVER(4, 6, 0);
	int changed = old_rule != rec_old_rule;
	struct ps_wmark_tunables t;
	struct ps_wmarks *w;

	if (p->min_free_kbytes != PS_UNSET && p->min_free_kbytes != rec->min_free_kbytes)
		changed = 1;
	if (p->watermark_scale_factor != PS_UNSET && p->watermark_scale_factor != rec->watermark_scale_factor)
		changed = 1;
	for (int i = 0; i < r->nr_zones; i++)
		r->zones[i].boost_factor = p->watermark_boost_factor != PS_UNSET ? p->watermark_boost_factor : 15000;
	if (!changed)
		return;
	ps_wmark_tunables_default(&t, old_rule ? PS_KVER(4, 5, 255) : r->o.profile->kver_max);
	if (p->min_free_kbytes != PS_UNSET)
		t.min_free_kbytes = p->min_free_kbytes;
	if (p->watermark_scale_factor != PS_UNSET)
		t.watermark_scale_factor = p->watermark_scale_factor;
	w = malloc(sizeof(*w));
	if (!w || ps_wmark_setup(w, r->m, &t) < 0) {
		free(w);
		return;		/* no managed counts (an assumed layout): keep the recorded values */
	}
	for (int i = 0; i < r->nr_zones; i++) {
		struct ps_zone *z = &r->zones[i];
		const struct ps_wmark_zone *wz = &w->zone[z->node][z->type];

		z->wmark_min = wz->mark[PS_WMARK_MIN];
		z->wmark_low = wz->mark[PS_WMARK_LOW];
		z->wmark_high = wz->mark[PS_WMARK_HIGH];
		memcpy(z->lowmem_reserve, wz->lowmem_reserve, sizeof(z->lowmem_reserve));
	}
	free(w);
}

/* The model's pages on node @n (its zones' page arrays). */
static uint64_t node_pages(const struct ps_replay *r, int n)
{
	uint64_t pages = 0;

	for (int i = 0; i < r->nr_zones; i++)
		if (r->zones[i].node == n)
			pages += r->zones[i].nr_pages;
	return pages;
}

struct ps_replay *ps_replay_create(const struct ps_machine *m, const struct ps_replay_opts *o, char *err, int len)
{
	struct ps_replay *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	r->o = *o;
	r->m = m;
	r->nr_zones = m->nr_zones;
	r->zones = calloc(m->nr_zones, sizeof(*r->zones));
	r->gbase = calloc(m->nr_zones, sizeof(*r->gbase));
	r->touch = calloc(m->nr_zones, sizeof(*r->touch));
	r->pb_evidence = calloc(m->nr_zones, sizeof(*r->pb_evidence));
	r->pb_changed = calloc(m->nr_zones, sizeof(*r->pb_changed));
	r->verbose_left = 100;
	if (!r->zones || !r->gbase || !r->touch || !r->pb_evidence || !r->pb_changed)
		goto nomem;
	for (int i = 0; i < m->nr_zones; i++) {
		struct ps_zone *z = &r->zones[i];

		if (ps_zone_create(z, &m->zones[i], i, o->profile, m->pageblock_order) < 0) {
			snprintf(err, len, "cannot model zone %s of node %d (%llu pages): out of memory or too large",
				 ps_zone_names[m->zones[i].type], m->zones[i].node,
				 (unsigned long long)m->zones[i].spanned);
			ps_replay_destroy(r);
			return NULL;
		}
		z->extfrag = model_extfrag;
		z->extfrag_ctx = r;
		if (m->nr_zones <= 64) {
			z->pcp_changed = &r->pcp_changed;
			z->pcp_changed_bit = 1ull << i;
		}
		r->gbase[i] = r->total_pages;
		r->total_pages += z->nr_pages;
		r->touch[i] = calloc(z->nr_pages, 1);
		r->pb_evidence[i] = malloc(z->nr_pageblocks);
		r->pb_changed[i] = calloc(z->nr_pageblocks, 1);
		if (!r->touch[i] || !r->pb_evidence[i] || !r->pb_changed[i])
			goto nomem;
		memset(r->pb_evidence[i], 0xff, z->nr_pageblocks);
	}
	/* the traced machine's address space */
	for (int n = 0; n < PS_MAX_NODES; n++) {
		r->kswapd[n].req_zoneidx = -1;
		r->kswapd[n].zoneidx = PS_ZONE_NORMAL;
	}
	r->tm = o->traced ? o->traced : m;
	r->cross = o->traced && o->traced != m;
	ps_zone_table_init(&r->zt, m);
	ps_zone_table_init(&r->tzt, r->tm);
	if (r->cross && o->mode != PS_REPLAY_SIMULATE) {
		snprintf(err, len, "follow mode replays a trace on the machine it was recorded on; use --mode simulate with --machine");
		ps_replay_destroy(r);
		return NULL;
	}
	r->nr_tz = r->tm->nr_zones;
	r->tz = calloc(r->nr_tz ? r->nr_tz : 1, sizeof(*r->tz));
	if (!r->tz)
		goto nomem;
	for (int i = 0; i < r->nr_tz; i++) {
		const struct ps_zone_desc *d = &r->tm->zones[i];
		uint64_t base = d->start_pfn & ~1023ull, end = (d->start_pfn + d->spanned + 1023) & ~1023ull;

		r->tz[i].base = base;
		r->tz[i].nr_pages = end - base;
		r->tz[i].node = d->node;
		r->tz[i].gbase = r->traced_pages;
		r->traced_pages += end - base;
	}
	if (r->cross) {
		r->ttouch = calloc(r->nr_tz, sizeof(*r->ttouch));
		if (!r->ttouch)
			goto nomem;
		for (int i = 0; i < r->nr_tz; i++)
			if (!(r->ttouch[i] = calloc(r->tz[i].nr_pages, 1)))
				goto nomem;
	}
	r->kswapd_takeover = o->policy.kswapd_takeover != PS_UNSET ? (int)o->policy.kswapd_takeover : 1;
	r->kswapd_ahead = r->kswapd_takeover && o->mode == PS_REPLAY_SIMULATE &&
			  o->policy.kswapd_ahead == 1;
	if (o->mode == PS_REPLAY_SIMULATE) {
		if (r->total_pages >= MAP_PCP_LOW - 1 || r->traced_pages >= PS_NIL) {
			snprintf(err, len, "%s is too large for the simulate-mode table (%llu pages)%s",
				 r->traced_pages < PS_NIL ? "the machine" : "the recorded machine's address space",
				 (unsigned long long)(r->traced_pages < PS_NIL ? r->total_pages : r->traced_pages),
				 r->tm->assumed ? ": its layout is assumed; give --sysroot" : "");
			ps_replay_destroy(r);
			return NULL;
		}
		r->map = calloc(r->traced_pages, sizeof(*r->map));
		if (!r->map)
			goto nomem;
		if (r->kswapd_ahead && !(r->alloc_of = calloc(r->traced_pages, sizeof(*r->alloc_of))))
			goto nomem;
		for (int n = 0; n < m->nr_nodes && n < PS_MAX_NODES; n++) {
			uint64_t pages = node_pages(r, n);

			/*
			 * A quarter slot per page for the list kswapd reclaims from:
			 * the deferred list under kswapd.takeover (its oldest block is
			 * freed when it is full), else the page-cache ring (its oldest
			 * entries drop out); under the takeover the ring serves only a
			 * node the recorded kswapd has not yet reclaimed on, or a trace
			 * that does not name its tasks, and gets an eighth.
			 */
			r->kswapd[n].cap = (uint32_t)(pages / (r->kswapd_takeover ? 8 : 4) + 1);
			r->kswapd[n].ring = malloc(sizeof(uint32_t) * r->kswapd[n].cap);
			if (r->kswapd_takeover) {
				r->kswapd[n].dcap = (uint32_t)(pages / 4 + 1);
				r->kswapd[n].deferred = malloc(sizeof(uint32_t) * r->kswapd[n].dcap);
			}
			if (!r->kswapd[n].ring || (r->kswapd_takeover && !r->kswapd[n].deferred))
				goto nomem;
		}
	}
	/* per-CPU lists: real ones in simulate mode, counts only in follow mode */
	r->nr_cpus = m->nr_cpus > 0 ? m->nr_cpus : 1;
	if (r->nr_cpus > PS_MAX_CPUS)
		r->nr_cpus = PS_MAX_CPUS;
	r->pcps = calloc((size_t)m->nr_zones * r->nr_cpus, sizeof(*r->pcps));
	r->shadow = calloc((size_t)m->nr_zones * r->nr_cpus * PS_NR_PCP_LISTS, sizeof(*r->shadow));
	r->shadow_seed = calloc((size_t)m->nr_zones * r->nr_cpus, sizeof(*r->shadow_seed));
	r->vm_expire = calloc((size_t)m->nr_zones * r->nr_cpus, 1);
	r->vm_touched = calloc((size_t)m->nr_zones * r->nr_cpus, 1);
	r->vm_queued = calloc(r->nr_cpus, 1);
	r->net_pages = calloc((size_t)m->nr_zones, sizeof(*r->net_pages));
	r->untraced_target = calloc((size_t)m->nr_zones, sizeof(*r->untraced_target));
	r->untraced_taken = calloc((size_t)m->nr_zones, sizeof(*r->untraced_taken));
	r->mig_expected = calloc((size_t)m->nr_zones, sizeof(*r->mig_expected));
	r->section = calloc(r->nr_cpus, 1);
	if (!r->pcps || !r->shadow || !r->shadow_seed || !r->section || !r->vm_expire || !r->vm_touched || !r->vm_queued ||
	    !r->net_pages || !r->untraced_target || !r->untraced_taken || !r->mig_expected)
		goto nomem;
	for (int i = 0; i < m->nr_zones; i++) {
		const struct ps_zone_desc *d = &m->zones[i];
		int batch = d->pcp_batch > 0 ? d->pcp_batch : 63;
		int high = d->pcp_high >= 0 ? d->pcp_high : 6 * batch;

		if (o->policy.pcp_batch != PS_UNSET)
			batch = o->policy.pcp_batch;
		if (o->policy.pcp_high != PS_UNSET)
			high = o->policy.pcp_high;

		for (int c = 0; c < r->nr_cpus; c++) {
			ps_pcp_init(&r->pcps[(size_t)i * r->nr_cpus + c], high, batch);
			if (o->policy.pcp_batch_scale_max != PS_UNSET)
				r->pcps[(size_t)i * r->nr_cpus + c].scale_max = (int)o->policy.pcp_batch_scale_max;
			if (o->policy.pcp_high == PS_UNSET)
				ps_pcp_set_adaptive(&r->pcps[(size_t)i * r->nr_cpus + c], d->pcp_high_min, d->pcp_high_max);
		}
	}
	/* follow: the pages the recorded lists held at the start (zoneinfo), lists unknown */
	for (int s = 0; o->mode == PS_REPLAY_FOLLOW && s < m->nr_pcp_seed; s++) {
		const struct ps_pcp_seed *sd = &m->pcp_seed[s];

		for (int i = 0; i < m->nr_zones && sd->cpu < r->nr_cpus; i++)
			if (m->zones[i].node == sd->node && m->zones[i].type == sd->type) {
				struct ps_pcp *pcp = &r->pcps[(size_t)i * r->nr_cpus + sd->cpu];

				r->shadow_seed[(size_t)i * r->nr_cpus + sd->cpu] += sd->count;
				pcp->count += sd->count;
				r->seed_pages += (uint64_t)sd->count;
				/* 6.7+: the CPU's own auto-tuned high, within its bounds */
				if (pcp->high_max && sd->high >= pcp->high_min && sd->high <= pcp->high_max)
					pcp->high = sd->high;
			}
	}
	apply_policy(r);
	{
		struct ps_error lerr;

		r->lock = ps_lock_create(&o->lock, m->nr_zones, r->nr_cpus, &lerr);
		if (!r->lock) {
			snprintf(err, len, "%s", lerr.msg);
			ps_replay_destroy(r);
			return NULL;
		}
		if (o->mode == PS_REPLAY_FOLLOW) {
			r->lockf = ps_lock_follow_create(r->lock, m, o->profile, m->pageblock_order);
			if (!r->lockf)
				goto nomem;
		} else {
			for (int i = 0; i < r->nr_zones; i++)
				r->zones[i].lock = r->lock;
		}
	}
	ps_counters_init(&r->cnt, m, m->pageblock_order);
	ps_counters_init(&r->inv, m, m->pageblock_order);
	r->cnt.numa_rule = r->inv.numa_rule = o->profile->numa_stat;	/* zone_statistics of the profile's kernel */
	build_node_order(r);
	build_cpu_map(r, o);
	for (int n = 0; n < PS_MAX_NODES; n++)
		for (int t = 0; t < PS_ZONE_NR; t++)
			r->node_zone[n][t] = -1;
	for (int i = 0; i < r->nr_zones; i++)
		if (r->zones[i].node < PS_MAX_NODES)
			r->node_zone[r->zones[i].node][r->zones[i].type] = i;
	build_nofrag_node(r);
	if (o->mode == PS_REPLAY_SIMULATE) {
		const struct ps_policy *pol = &r->o.policy;

		/* the fair zone policy's batches start full, as after setup_per_zone_wmarks */
		for (int i = 0; i < r->nr_zones && o->profile->fair; i++)
			r->zones[i].nr_alloc_batch = alloc_batch_full(&r->zones[i]);

		/* the dirty limits: node_dirty_ok from 4.8, zone_dirty_ok before */
		if (ps_dirty_init(&r->dirty, r->zones, r->nr_zones, r->total_pages,
				  r->o.profile->kver_min >= PS_KVER(4, 8, 0),
				  pol->dirty_ratio != PS_UNSET ? pol->dirty_ratio : 20,
				  pol->dirty_bytes != PS_UNSET ? pol->dirty_bytes : 0) < 0)
			goto nomem;
		/* the page cache at the start, as recorded (the model's own machine only) */
		for (int i = 0; i < r->nr_zones && !r->cross; i++) {
			ps_dirty_start(&r->dirty, i, m->zones[i].nr_file, m->zones[i].nr_dirty);
			if (m->zones[i].node < PS_MAX_NODES)
				r->mapped[m->zones[i].node] += m->zones[i].nr_mapped;
		}
		/* node reclaim's floor: vm.min_unmapped_ratio percent of each zone's managed pages */
		for (int i = 0; i < r->nr_zones; i++)
			if (r->zones[i].node < PS_MAX_NODES)
				r->min_unmapped[r->zones[i].node] += (long)r->zones[i].managed *
					(pol->min_unmapped_ratio != PS_UNSET ? pol->min_unmapped_ratio : 1) / 100;
	}
	r->last_pcp_pages = calloc(r->nr_zones > 0 ? (size_t)r->nr_zones : 1, sizeof(*r->last_pcp_pages));
	if (!r->last_pcp_pages)
		goto nomem;
	for (int i = 0; i < r->nr_zones; i++)
		r->last_pcp_pages[i] = UINT64_MAX;	/* every zone reports at the first event */
	r->pcp_changed = ~0ull;
	return r;
nomem:
	snprintf(err, len, "out of memory building the model");
	ps_replay_destroy(r);
	return NULL;
}

static void free_pass1(struct ps_replay *r)
{
	for (int i = 0; i < r->nr_zones; i++) {
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

void ps_replay_destroy(struct ps_replay *r)
{
	if (!r)
		return;
	free_pass1(r);
	for (int i = 0; r->zones && i < r->nr_zones; i++)
		ps_zone_destroy(&r->zones[i]);
	free(r->zones);
	free(r->gbase);
	ps_dirty_free(&r->dirty);
	if (r->lockf)
		ps_lock_follow_destroy(r->lockf);
	if (r->lock)
		ps_lock_destroy(r->lock);
	free(r->last_pcp_pages);
	free(r->map);
	free(r->pcps);
	free(r->shadow);
	free(r->shadow_seed);
	free(r->vm_expire);
	free(r->vm_touched);
	free(r->vm_queued);
	free(r->net_pages);
	free(r->alloc_of);
	free(r->ahead_bits);
	free(r->hidden);
	free(r->hidden_top);
	free(r->mig_expected);
	free(r->untraced_target);
	free(r->untraced_taken);
	free(r->section);
	for (int i = 0; r->ttouch && i < r->nr_tz; i++)
		free(r->ttouch[i]);
	free(r->ttouch);
	free(r->tz);
	for (int n = 0; n < PS_MAX_NODES; n++) {
		free(r->kswapd[n].ring);
		free(r->kswapd[n].deferred);
		free(r->kswapd[n].ahead);
	}
	free(r);
}




/* ---- pass 1 ---- */



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
		r->kswapd[z->node].last_recorded_ns = ev->ts_ns;
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

/* ---- initial state ---- */

static void assign_pageblocks(struct ps_replay *r, int zi)
{
	struct ps_zone *z = &r->zones[zi];
	const struct ps_zone_desc *d = &r->m->zones[zi];
	uint64_t have[PS_MT_TYPES] = { 0 };
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

int rp_pcp_allowed(const struct ps_replay *r, int order)
{
	const struct ps_zone *z = &r->zones[0];

	if (!r->o.profile->pcp_high_orders)
		return order == 0;
	return order <= 3 || order == z->pageblock_order;
}

/* Places @need free blocks of (order, mt) in untouched pages, top of the zone down. */
static uint64_t place_blocks(struct ps_replay *r, int zi, int order, int mt, uint64_t need)
{
	struct ps_zone *z = &r->zones[zi];
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
		if (order < PS_NR_ORDERS - 1 && buddy < z->nr_pages && z->state[buddy] == PG_STATE(PG_FREE, 1, order))
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
static int64_t snapshot_free(const struct ps_machine *m, const struct ps_zone_desc *d)
{
	int64_t n = (int64_t)d->free_pages;

	for (int s = 0; s < m->nr_pcp_seed; s++)
		if (m->pcp_seed[s].node == d->node && m->pcp_seed[s].type == d->type)
			n += m->pcp_seed[s].count;
	return n;
}

static void build_zone(struct ps_replay *r, int zi)
{
	struct ps_zone *z = &r->zones[zi];
	const struct ps_zone_desc *d = &r->m->zones[zi];
	uint8_t *t = r->touch[zi];
	int simulate = r->o.mode == PS_REPLAY_SIMULATE;
	int64_t budget;

	assign_pageblocks(r, zi);
	/* every page allocated at first, typed like its block */
	for (uint32_t i = z->span_start; i < z->span_end; i++)
		z->mt[i] = ps_pageblock_mt(z, i);
	/* pages the trace shows free at the start */
	for (uint32_t i = z->span_start; i < z->span_end; i++) {
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
	budget = snapshot_free(r->m, d) - (int64_t)z->nr_free_pages - (int64_t)z->nr_pcp_pages;
	if (!d->free_pages)
		budget = INT64_MAX;	/* no free count in the snapshot: its blocks alone */
	for (int o = PS_NR_ORDERS - 1; o >= 0; o--) {
		for (int mt = 0; mt < PS_MT_TYPES; mt++) {
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

/* A block of @order on @node's zones (highest zone first); the zone, or NULL. */
static struct ps_zone *alloc_on_node(struct ps_replay *r, int node, int order, int mt, uint32_t *idx)
{
	for (int t = PS_ZONE_NR - 1; t >= 0; t--)
		for (int zi = 0; zi < r->nr_zones; zi++) {
			struct ps_zone *z = &r->zones[zi];

			if (z->node != node || z->type != t)
				continue;
			*idx = ps_rmqueue(z, order, mt, NULL);
			if (*idx != PS_NIL)
				return z;
		}
	return NULL;
}

/*
 * The initial state on another machine: every page of the model free (in
 * the largest aligned blocks, pageblocks MOVABLE, as after boot), then the
 * traced blocks allocated at the start of the trace (those it frees before
 * allocating) allocated on the mapped node, then as many more pages per
 * mapped node as the recorded machine had in use on the traced node
 * (managed - free in the before/ snapshot), as MOVABLE blocks.  What the
 * recorded machine's used memory was made of is not carried over.
 */
static void build_cross(struct ps_replay *r)
{
	uint64_t used[PS_MAX_NODES] = { 0 }, placed[PS_MAX_NODES] = { 0 };

	for (int zi = 0; zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];

		z->extfrag = NULL;	/* no events while setting up */
		for (uint32_t p = z->span_start; p < z->present_end;) {
			int o = PS_NR_ORDERS - 1;

			while (o > 0 && ((p & ((1u << o) - 1)) || p + (1u << o) > z->present_end))
				o--;
			ps_zone_mark(z, p, o, PG_ALLOC, PS_MT_MOVABLE);
			ps_free_one_page(z, p, o, PS_MT_MOVABLE, 0);
			p += 1u << o;
		}
	}
	for (int ti = 0; ti < r->nr_tz; ti++) {
		const uint8_t *t = r->ttouch[ti];
		int mn = r->node_to_node[r->tz[ti].node];

		for (uint32_t i = 0; i < r->tz[ti].nr_pages; i++) {
			uint32_t idx;
			struct ps_zone *z;
			int o;

			if (T_CLASS(t[i]) != T_FREED || !(t[i] & T_HEAD))
				continue;
			o = T_ORDER(t[i]);
			z = alloc_on_node(r, mn, o, PS_MT_MOVABLE, &idx);
			if (!z) {
				r->cross_unplaced_pages += 1u << o;
				continue;
			}
			for (uint32_t k = 0; k < (1u << o) && i + k < r->tz[ti].nr_pages; k++)
				r->map[r->tz[ti].gbase + i + k] = (uint32_t)(r->gbase[z->index] + idx + k + 1);
			placed[mn] += 1u << o;
		}
	}
	for (int i = 0; i < r->tm->nr_zones; i++) {
		const struct ps_zone_desc *d = &r->tm->zones[i];

		if (d->managed > d->free_pages)
			used[r->node_to_node[d->node]] += d->managed - d->free_pages;
	}
	for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
		uint64_t want = used[n] > placed[n] ? used[n] - placed[n] : 0;

		for (int o = PS_NR_ORDERS - 1; o >= 0 && want; o--)
			while (want >= (1ull << o)) {
				uint32_t idx;

				if (!alloc_on_node(r, n, o, PS_MT_MOVABLE, &idx))
					break;
				want -= 1ull << o;
				r->cross_preused_pages += 1ull << o;
			}
		r->cross_unplaced_pages += want;
	}
	for (int zi = 0; zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];

		z->extfrag = model_extfrag;
		z->fallbacks = z->fallbacks_fragmenting = z->claims = z->boosts = 0;
		z->watermark_boost = 0;
	}
}

/*
 * opts.after: per zone, the model's free pages at the start plus what the
 * trace frees less what it allocates there, less what the kernel held free
 * at the end, less kcompactd's migrations (rp_migration_target()): what is
 * left the kernel used with no event.
 */
static void untraced_targets(struct ps_replay *r)
{
	const struct ps_machine *a = r->o.after;

	r->untraced_next_ns = r->first_ns;
	if (!a || r->o.mode != PS_REPLAY_SIMULATE || r->last_ns <= r->first_ns)
		return;
	for (int zi = 0; zi < r->nr_zones; zi++) {
		const struct ps_zone *z = &r->zones[zi];
		int64_t end = (int64_t)z->nr_free_pages + (int64_t)z->nr_pcp_pages + r->net_pages[zi] -
			      r->mig_expected[zi], kernel;

		for (int i = 0; i < a->nr_zones; i++) {
			if (a->zones[i].node != z->node || a->zones[i].type != z->type)
				continue;
			kernel = snapshot_free(a, &a->zones[i]);
			if (end > kernel) {
				r->untraced_target[zi] = end - kernel;
				r->untraced_on = 1;
			}
		}
	}
}

/* The pool of hidden pages: room for every untraced page and migration target. */
static int hidden_pool(struct ps_replay *r, char *err, int len)
{
	uint64_t cap = r->mig_total;

	for (int zi = 0; zi < r->nr_zones; zi++)
		cap += (uint64_t)r->untraced_target[zi];
	if (!cap || r->o.mode != PS_REPLAY_SIMULATE)
		return 0;
	if (cap >= PS_NIL) {
		snprintf(err, len, "too many pages held with no event (%llu)", (unsigned long long)cap);
		return -1;
	}
	r->hidden = malloc(cap * sizeof(*r->hidden));
	r->hidden_top = malloc((size_t)r->nr_zones * sizeof(*r->hidden_top));
	if (!r->hidden || !r->hidden_top) {
		snprintf(err, len, "out of memory for the pages held with no event");
		return -1;
	}
	for (uint32_t i = 0; i < cap; i++)
		r->hidden[i].next = i + 1 < cap ? i + 1 : PS_NIL;
	for (int zi = 0; zi < r->nr_zones; zi++)
		r->hidden_top[zi] = PS_NIL;
	r->hidden_free = 0;
	r->hidden_on = 1;
	return 0;
}

/*
 * kswapd.ahead: a list per model node with room for every marked allocation,
 * up to the node's pages (a full list is first cleared of blocks no longer
 * held); the numbering starts again for pass 2.
 */
static int ahead_lists(struct ps_replay *r, char *err, int len)
{
	if (!r->kswapd_ahead || !r->ahead_marked) {
		r->kswapd_ahead = 0;
		free(r->alloc_of);
		free(r->ahead_bits);
		r->alloc_of = NULL;
		r->ahead_bits = NULL;
		r->ahead_nbits = 0;
		return 0;
	}
	for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
		uint64_t pages = node_pages(r, n);

		r->kswapd[n].acap = (uint32_t)((r->ahead_marked < pages ? r->ahead_marked : pages) + 1);
		r->kswapd[n].ahead = malloc(r->kswapd[n].acap * sizeof(*r->kswapd[n].ahead));
		if (!r->kswapd[n].ahead) {
			snprintf(err, len, "out of memory for kswapd's lists");
			return -1;
		}
	}
	memset(r->alloc_of, 0, r->traced_pages * sizeof(*r->alloc_of));
	r->alloc_seq = 0;
	return 0;
}

int ps_replay_start(struct ps_replay *r, char *err, int len)
{
	if (ahead_lists(r, err, len) < 0)
		return -1;
	if (r->cross) {
		build_cross(r);
		free_pass1(r);
		for (int zi = 0; zi < r->nr_zones; zi++)
			if (ps_zone_check(&r->zones[zi], err, len) < 0)
				return -1;
		return hidden_pool(r, err, len);
	}
	for (int zi = 0; zi < r->nr_zones; zi++)
		build_zone(r, zi);
	untraced_targets(r);
	if (hidden_pool(r, err, len) < 0)
		return -1;
	if (r->map) {
		/* pages allocated at the start map to themselves */
		for (int zi = 0; zi < r->nr_zones; zi++)
			for (uint32_t i = 0; i < r->zones[zi].nr_pages; i++)
				if (T_CLASS(r->touch[zi][i]) == T_FREED)
					r->map[r->gbase[zi] + i] = (uint32_t)(r->gbase[zi] + i + 1);
	}
	free_pass1(r);
	for (int zi = 0; zi < r->nr_zones; zi++)
		if (ps_zone_check(&r->zones[zi], err, len) < 0)
			return -1;
	return 0;
}


static inline void simulate_event(struct ps_replay *r, const struct ps_event *ev)
{
	r->now_ns = ev->ts_ns;
	if (r->untraced_on && ev->ts_ns >= r->untraced_next_ns)
		rp_untraced_use(r, ev->ts_ns);
	if (ev->ts_ns >= r->vm_next_ns)
		rp_vmstat_tick(r, ev->ts_ns);
	if (r->nr_awake)
		rp_run_kswapd(r, ev->ts_ns);
	if (ev->type == PS_EV_ALLOC || ev->type == PS_EV_FREE)
		rp_simulate_alloc_free(r, ev);
	else if (ev->type != PS_EV_EXTFRAG) {	/* the model makes its own */
		if (ev->type == PS_EV_ZONE_LOCKED || ev->type == PS_EV_PCPU_DRAIN)
			rp_trace_pcp_event(r, ev);
		r->cnt.events[ev->type]++;
	}
}

/* Tells the lock model the pages zone @zi holds on pcp lists, when they changed. */
static inline void report_pcp_pages(struct ps_replay *r, int zi, uint64_t t_ns)
{
	if (r->zones[zi].nr_pcp_pages != r->last_pcp_pages[zi]) {
		r->last_pcp_pages[zi] = r->zones[zi].nr_pcp_pages;
		ps_lock_pcp_pages(r->lock, zi, t_ns, r->zones[zi].nr_pcp_pages);
	}
}

int ps_replay_event(struct ps_replay *r, const struct ps_event *ev, char *err, int len)
{
	if (r->o.mode == PS_REPLAY_FOLLOW) {
		ps_lock_follow_event(r->lockf, ev);
		rp_follow_event(r, ev);
	} else {
		simulate_event(r, ev);
		/*
		 * The pages held on pcp lists change only with the zones this
		 * event touched: those of pcp_changed (every zone beyond 64).
		 */
		uint64_t changed = r->nr_zones <= 64 ? r->pcp_changed : ~0ull;

		r->pcp_changed = 0;
		for (; changed; changed &= changed - 1) {
			int zi = __builtin_ctzll(changed);

			if (zi >= r->nr_zones)
				break;
			report_pcp_pages(r, zi, ev->ts_ns);
		}
		for (int zi = 64; zi < r->nr_zones; zi++)
			report_pcp_pages(r, zi, ev->ts_ns);
	}
	if (r->o.check) {
		for (int zi = 0; zi < r->nr_zones; zi++)
			if (ps_zone_check(&r->zones[zi], err, len) < 0)
				return -1;
	}
	return 0;
}
