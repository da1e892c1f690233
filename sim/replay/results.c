// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * results.c - what a replay reports: the kernel's counters from the
 * model (vmstat, numastat per node), the model's own counters, and
 * buddyinfo, pagetypeinfo, unusable and extfrag index in /proc's layouts.
 */
#include <ctype.h>

#include "sim/mm/vmscan.h"
#include "sim/replay/engine.h"

/* A fidelity defect of @kind at @ev, printed while -v has budget left. */
void rp_defect(struct ps_replay *r, int kind, const struct ps_event *ev, const char *what)
{
	r->defects[kind]++;
	if (r->o.verbose && r->verbose_left > 0) {
		r->verbose_left--;
		fprintf(stderr, "pagesim: defect: %s: %s pfn %#llx order %d cpu %d at %llu.%09llu\n", what,
			ps_event_names[ev->type], (unsigned long long)ev->pfn, ev->order, ev->cpu,
			(unsigned long long)(ev->ts_ns / 1000000000ull),
			(unsigned long long)(ev->ts_ns % 1000000000ull));
	}
}

static const char *const defect_names[PS_DEF_NR] = {
	[PS_DEF_ALLOC_NOT_FREE] = "replay_defects_alloc_not_free",
	[PS_DEF_FREE_NOT_ALLOC] = "replay_defects_free_not_allocated",
	[PS_DEF_DRAIN_NOT_PCP] = "replay_defects_drain_not_pcp",
	[PS_DEF_SHAPE] = "replay_defects_block_shape",
};

uint64_t ps_replay_defects(const struct ps_replay *r)
{
	uint64_t n = 0;

	for (int i = 0; i < PS_DEF_NR; i++)
		n += r->defects[i];
	return n;
}

double ps_replay_bytes_per_page(const struct ps_replay *r)
{
	double b = r->mm.nr_zones ? ps_zone_bytes_per_page(&r->mm.zones[0]) : 0;
	uint64_t ring = 0;

	if (r->map)
		b += (double)r->traced_pages * sizeof(*r->map) / (r->mm.total_pages ? r->mm.total_pages : 1);
	if (r->owner)		/* the owner of each model page, the kernel-reclaimed bits */
		ring += r->mm.total_pages + r->traced_pages / 32;
	b += (double)ring * sizeof(uint32_t) / (r->mm.total_pages ? r->mm.total_pages : 1);
	if (r->mm.dirty.file)	/* the page-cache and dirty bitmaps */
		b += 2.0 * (double)(r->mm.total_pages / 64 + 1) * sizeof(uint64_t) / (r->mm.total_pages ? r->mm.total_pages : 1);
	return b;
}

int ps_replay_counters(struct ps_replay *r, struct ps_kv *kv)
{
	struct ps_kv inv;
	char name[128];
	uint64_t pcp = 0, lock = 0, fb = 0, fbf = 0, claims = 0, boosts = 0;

	if (r->o.fold_invisible || r->o.mode == PS_REPLAY_SIMULATE) {
		/*
		 * Bulk allocations count like traced ones in the kernel's rows;
		 * simulate mode made them, so it always does.
		 */
		r->cnt.numa_hit += r->inv.numa_hit;
		r->cnt.numa_miss += r->inv.numa_miss;
		r->cnt.numa_foreign += r->inv.numa_foreign;
		r->cnt.numa_local += r->inv.numa_local;
		r->cnt.numa_other += r->inv.numa_other;
		for (int z = 0; z < PS_ZONE_NR; z++)
			r->cnt.pgalloc[z] += r->inv.pgalloc[z];
		for (int n = 0; n < PS_MAX_NODES; n++) {
			r->cnt.node[n].numa_hit += r->inv.node[n].numa_hit;
			r->cnt.node[n].numa_miss += r->inv.node[n].numa_miss;
			r->cnt.node[n].numa_foreign += r->inv.node[n].numa_foreign;
			r->cnt.node[n].local_node += r->inv.node[n].local_node;
			r->cnt.node[n].other_node += r->inv.node[n].other_node;
		}
	}
	if (!r->lock_finished) {
		if (r->lockf)
			ps_lock_follow_finish(r->lockf);
		ps_lock_finish(r->lock);
		r->lock_finished = 1;
	}
	if (r->o.mode == PS_REPLAY_SIMULATE) {
		/* the kernel's reclaim rows: the model's own reclaim (the trace's is not replayed) */
		r->cnt.have_reclaim = 1;
		r->cnt.pgsteal_kswapd = r->mm.pgsteal_kswapd;
		r->cnt.pgsteal_direct = r->mm.pgsteal_direct;
		r->cnt.pgscan_kswapd = r->mm.pgscan_kswapd;
		r->cnt.pgscan_direct = r->mm.pgscan_direct;
		r->cnt.node_reclaim_calls = r->mm.node_reclaims;
		r->cnt.zone_reclaim_failed = r->mm.zone_reclaim_failed;
		r->cnt.pageoutrun = r->cnt.kswapd_low_wmark_hit_quickly = r->cnt.kswapd_high_wmark_hit_quickly = 0;
		for (int n = 0; n < PS_MAX_NODES; n++) {
			r->cnt.pageoutrun += r->mm.node[n].kswapd.runs;
			r->cnt.kswapd_low_wmark_hit_quickly += r->mm.node[n].kswapd.hit_quickly_low;
			r->cnt.kswapd_high_wmark_hit_quickly += r->mm.node[n].kswapd.hit_quickly_high;
		}
	}
	if (ps_counters_to_kv(&r->cnt, kv) < 0)
		return -1;
	PS_KV_SET("replay_defects", ps_replay_defects(r));
	for (int i = 0; i < PS_DEF_NR; i++)
		PS_KV_SET(defect_names[i], r->defects[i]);
	PS_KV_SET("replay_invisible_alloc_pages", r->invisible_pages);
	ps_kv_init(&inv);
	if (ps_counters_to_kv(&r->inv, &inv) < 0) {
		ps_kv_free(&inv);
		return -1;
	}
	for (int i = 0; i < inv.nr; i++) {
		const char *n = inv.items[i].name;

		if (strncmp(n, "numa_", 5) && strncmp(n, "pgalloc_", 8) && !strstr(n, ".numa_") &&
		    !strstr(n, "_node"))
			continue;
		snprintf(name, sizeof(name), "replay_invisible_%s", n);
		PS_KV_SET(name, inv.items[i].value);
	}
	ps_kv_free(&inv);
	if (r->o.mode == PS_REPLAY_FOLLOW) {
		PS_KV_SET("replay_alloc_from_buddy_without_zone_locked", r->untraced_buddy_allocs);
		PS_KV_SET("replay_pcp_resyncs", r->pcp_resyncs);
		PS_KV_SET("replay_untraced_isolated_pages", r->isolated_pages);
	} else {
		PS_KV_SET("replay_sim_invisible_replayed_pages", r->invisible_replayed);
		PS_KV_SET("replay_sim_alloc_failed", r->sim_alloc_failed);
		PS_KV_SET("replay_sim_skipped_failed_allocs", r->sim_skipped_failed);
		PS_KV_SET("replay_sim_watermarks_ignored", r->mm.wmark_ignored);
		if (r->o.profile->fair) {
			int64_t batch = 0;

			PS_KV_SET("model_fair_skipped_zones", r->mm.fair_skipped);
			PS_KV_SET("model_fair_batch_resets", r->mm.fair_resets);
			/* as /proc/vmstat's nr_alloc_batch: the zones' sum, 0 when negative */
			for (int zi = 0; zi < r->mm.nr_zones; zi++)
				batch += r->mm.zones[zi].nr_alloc_batch;
			PS_KV_SET("model_nr_alloc_batch", batch > 0 ? batch : 0);
		}
		if (r->cross) {
			PS_KV_SET("replay_cross_preused_pages", r->cross_preused_pages);
			PS_KV_SET("replay_cross_unplaced_pages", r->cross_unplaced_pages);
		}
		PS_KV_SET("replay_reclaimed_then_freed_pages", r->reclaimed_then_freed);
		{
			uint64_t u = 0;

			for (int zi = 0; zi < r->mm.nr_zones; zi++)
				u += (uint64_t)r->untraced_taken[zi];
			PS_KV_SET("replay_untraced_use_pages", u);
			PS_KV_SET("replay_untraced_use_returned_pages", r->untraced_returned);
			PS_KV_SET("replay_compaction_targets_pages", r->mm.mig_taken);
			PS_KV_SET("replay_compaction_targets_failed", r->mm.mig_failed);
			for (int zi = 0; r->untraced_on && zi < r->mm.nr_zones; zi++) {
				snprintf(name, sizeof(name), "replay_untraced_use_pages.node%d.%s", r->mm.zones[zi].node,
					 ps_zone_names[r->mm.zones[zi].type]);
				PS_KV_SET(name, r->untraced_taken[zi]);
			}
		}
		PS_KV_SET("replay_kernel_reclaim_absorbed_pages", r->kernel_reclaim_absorbed);
		PS_KV_SET("replay_lru_start_reclaimed_pages", r->lru_pre_placed);
		PS_KV_SET("replay_lru_stand_ins_reclaimed_pages", r->stand_ins_reclaimed);
		PS_KV_SET("replay_refaults", r->refaults);
		/* where reclaim took its pages: the kernel's (its page-cache deletions) and the model's */
		for (int ti = 0; r->lru_events && ti < r->nr_tz && ti < PS_MAX_ZONES; ti++) {
			snprintf(name, sizeof(name), "trace_reclaimed_pages.node%d.%s", r->tm->zones[ti].node,
				 ps_zone_names[r->tm->zones[ti].type]);
			PS_KV_SET(name, r->trace_reclaimed_zone[ti]);
		}
		for (int zi = 0; zi < r->mm.nr_zones; zi++) {
			snprintf(name, sizeof(name), "model_reclaimed_pages.node%d.%s", r->mm.zones[zi].node,
				 ps_zone_names[r->mm.zones[zi].type]);
			PS_KV_SET(name, r->mm.zone_reclaimed[zi]);
		}
		/* where the fallbacks were (mm_page_alloc_extfrag): the whole trace's and the model's */
		for (int ti = 0; ti < r->nr_tz && ti < PS_MAX_ZONES; ti++) {
			snprintf(name, sizeof(name), "trace_fallbacks.node%d.%s", r->tm->zones[ti].node,
				 ps_zone_names[r->tm->zones[ti].type]);
			PS_KV_SET(name, r->trace_fallbacks_zone[ti]);
		}
		for (int zi = 0; zi < r->mm.nr_zones; zi++) {
			snprintf(name, sizeof(name), "model_fallbacks.node%d.%s", r->mm.zones[zi].node,
				 ps_zone_names[r->mm.zones[zi].type]);
			PS_KV_SET(name, r->mm.zones[zi].fallbacks);
		}
		/* pgskip_<zone>: pages reclaim passed over for a zone above its class zone */
		if (r->trace_vmscan_events)
			PS_KV_SET("trace_lru_skipped_pages", r->trace_lru_skipped);
		PS_KV_SET("trace_kswapd_reclaim_pages_per_ms", r->trace_kswapd_rate);
		PS_KV_SET("model_kswapd_reclaim_pages_per_ms", r->mm.t.kswapd_rate);
		PS_KV_SET("trace_node_reclaim_pages_per_ms", r->trace_node_reclaim_rate);
		PS_KV_SET("trace_node_reclaim_mean_pages_per_ms", ps_node_reclaim_speed_mean(&r->node_reclaim_speed));
		PS_KV_SET("model_node_reclaim_pages_per_ms", r->mm.t.node_reclaim_rate);
		for (int t = 0; t < PS_ZONE_NR; t++) {
			int have = 0;

			for (int zi = 0; zi < r->mm.nr_zones; zi++)
				have |= r->mm.zones[zi].type == t;
			if (!have)
				continue;
			snprintf(name, sizeof(name), "model_pgskip_%s", ps_zone_names[t]);
			for (char *c = name; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			PS_KV_SET(name, r->mm.pgskip[t]);
		}
		PS_KV_SET("model_lru_gen_aging", r->mm.lru_gen_aging);
		PS_KV_SET("replay_lru_from_gfp", !r->lru_events);
		PS_KV_SET("model_direct_reclaims", r->mm.direct_reclaims);
		PS_KV_SET("model_lru_activated", r->mm.nr_activate);
		PS_KV_SET("model_lru_deactivated", r->mm.nr_deactivate);
		PS_KV_SET("model_lru_dirty_kept", r->mm.nr_dirty_kept);
		PS_KV_SET("model_lru_rotated", r->mm.nr_rotated);
		PS_KV_SET("model_node_reclaim_calls", r->mm.node_reclaims);
		PS_KV_SET("model_node_reclaimed_pages", r->mm.node_reclaimed);
		PS_KV_SET("model_node_reclaim_full", r->mm.node_reclaim_full);
		PS_KV_SET("model_node_reclaim_locked", r->mm.node_reclaim_locked);
		PS_KV_SET("model_highatomic_reserved_blocks", r->mm.highatomic_reserved);
		PS_KV_SET("model_highatomic_unreserved_blocks", r->mm.highatomic_unreserved);
		for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES; n++) {
			if (!(r->m->node_online & (1ull << n)))
				continue;
			snprintf(name, sizeof(name), "model_kswapd_wakeups.node%d", n);
			PS_KV_SET(name, r->mm.node[n].kswapd.wakeups);
			snprintf(name, sizeof(name), "model_kswapd_boost_wakeups.node%d", n);
			PS_KV_SET(name, r->mm.node[n].kswapd.boost_wakeups);
			snprintf(name, sizeof(name), "trace_kswapd_boost_wakeups.node%d", n);
			PS_KV_SET(name, r->trace_boost_wakeups[n]);
			snprintf(name, sizeof(name), "model_kswapd_boost_resets.node%d", n);
			PS_KV_SET(name, r->mm.node[n].kswapd.boost_resets);
			snprintf(name, sizeof(name), "model_kswapd_awake_ms.node%d", n);
			PS_KV_SET(name, r->mm.node[n].kswapd.awake_ns / 1000000);
			snprintf(name, sizeof(name), "model_kswapd_reclaimed_pages.node%d", n);
			PS_KV_SET(name, r->mm.node[n].kswapd.reclaimed);
			snprintf(name, sizeof(name), "model_pageoutrun.node%d", n);
			PS_KV_SET(name, r->mm.node[n].kswapd.runs);
			snprintf(name, sizeof(name), "model_kswapd_low_wmark_hit_quickly.node%d", n);
			PS_KV_SET(name, r->mm.node[n].kswapd.hit_quickly_low);
			snprintf(name, sizeof(name), "model_kswapd_high_wmark_hit_quickly.node%d", n);
			PS_KV_SET(name, r->mm.node[n].kswapd.hit_quickly_high);
			/* the LRU lists at the end (the kernel's nr_inactive_anon ... nr_unevictable) */
			for (int l = 0; l < PS_NR_LRU; l++) {
				static const char *const lru_names[PS_NR_LRU] = {
					"inactive_anon", "active_anon", "inactive_file", "active_file", "unevictable"
				};

				snprintf(name, sizeof(name), "model_nr_%s.node%d", lru_names[l], n);
				PS_KV_SET(name, ps_lru_pages(&r->mm, n, l));
			}
		}
		/* page cache and dirty pages per node at the end (the kernel's nr_*_file, nr_dirty) */
		PS_KV_SET("model_dirty_limit_skips", r->mm.dirty.skips);
		/* the flusher: the kernel's nr_dirtied and nr_written, and its runs that wrote */
		PS_KV_SET("model_nr_dirtied", r->mm.dirty.dirtied);
		PS_KV_SET("model_nr_written", r->mm.dirty.written);
		PS_KV_SET("model_writeback_flushes", r->mm.dirty.flushes);
		for (int n = 0; n < r->m->nr_nodes && n < PS_MAX_NODES && r->mm.dirty.z; n++) {
			long file, dirty;

			if (!(r->m->node_online & (1ull << n)))
				continue;
			ps_dirty_node(&r->mm.dirty, r->mm.zones, n, &file, &dirty);
			snprintf(name, sizeof(name), "model_nr_file_pages.node%d", n);
			PS_KV_SET(name, (uint64_t)(file > 0 ? file : 0));
			snprintf(name, sizeof(name), "model_nr_dirty.node%d", n);
			PS_KV_SET(name, (uint64_t)(dirty > 0 ? dirty : 0));
		}
	}
	PS_KV_SET("replay_initial_placed_blocks", r->placed_blocks);
	PS_KV_SET("replay_initial_placed_pages", r->placed_pages);
	PS_KV_SET("replay_initial_unplaced_blocks", r->unplaced_blocks);
	PS_KV_SET("replay_initial_capped_blocks", r->capped_blocks);
	if (rp_pcp_snapshot_lists(r)) {
		PS_KV_SET("replay_initial_pcp_pages", r->pcp_seeded);	/* pcp.snapshot_lists */
		PS_KV_SET("replay_initial_pcp_capped_pages", r->pcp_capped);
	}
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		const struct ps_zone *z = &r->mm.zones[zi];

		pcp += z->nr_pcp_pages;
		lock += z->lock_acquisitions;
		fb += z->fallbacks;
		fbf += z->fallbacks_fragmenting;
		claims += z->claims;
		boosts += z->boosts;
	}
	PS_KV_SET("model_pcp_pages", pcp);
	if (r->mm.pcps) {
		uint64_t refills = 0, drains = 0;

		for (size_t i = 0; i < (size_t)r->mm.nr_zones * r->mm.nr_cpus; i++) {
			refills += r->mm.pcps[i].refills;
			drains += r->mm.pcps[i].drains;
		}
		PS_KV_SET("model_pcp_refills", refills);
		PS_KV_SET("model_pcp_drains", drains);
		PS_KV_SET("model_pcp_remote_drains", r->mm.remote_drains);
		PS_KV_SET("model_pcp_decay_drains", r->mm.decay_drains);
		if (r->o.mode == PS_REPLAY_FOLLOW) {
			PS_KV_SET("trace_pcp_refill_sections", r->trace_refills);
			PS_KV_SET("trace_pcp_drain_sections", r->trace_drains);
			PS_KV_SET("replay_pcp_start_pages", r->seed_pages);
			PS_KV_SET("replay_pcp_start_pages_used", r->seed_used);
			if (r->m->pcp_seed_dropped)	/* lists zoneinfo shows beyond PS_MAX_PCP_SEED */
				PS_KV_SET("replay_pcp_start_lists_unread", r->m->pcp_seed_dropped);
		}
	}
	PS_KV_SET("model_zone_lock_acquisitions", lock);
	PS_KV_SET("model_fallbacks", fb);
	PS_KV_SET("model_fallbacks_fragmenting", fbf);
	PS_KV_SET("model_pageblock_claims", claims);
	PS_KV_SET("model_watermark_boosts", boosts);
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		const struct ps_zone *z = &r->mm.zones[zi];

		snprintf(name, sizeof(name), "model_nr_free_pages.node%d.%s", z->node, ps_zone_names[z->type]);
		PS_KV_SET(name, z->nr_free_pages);
		snprintf(name, sizeof(name), "model_wmark_min.node%d.%s", z->node, ps_zone_names[z->type]);
		PS_KV_SET(name, z->wmark_min);
		snprintf(name, sizeof(name), "model_wmark_low.node%d.%s", z->node, ps_zone_names[z->type]);
		PS_KV_SET(name, z->wmark_low);
		snprintf(name, sizeof(name), "model_wmark_high.node%d.%s", z->node, ps_zone_names[z->type]);
		PS_KV_SET(name, z->wmark_high);
		snprintf(name, sizeof(name), "model_watermark_boost.node%d.%s", z->node, ps_zone_names[z->type]);
		PS_KV_SET(name, z->watermark_boost);
	}
	if (ps_lock_counters(r->lock, r->m, kv) < 0)
		return -1;
	return 0;
}

void ps_replay_write_buddyinfo(const struct ps_replay *r, FILE *f)
{
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		const struct ps_zone *z = &r->mm.zones[zi];

		fprintf(f, "Node %d, zone %8s ", z->node, ps_zone_names[z->type]);
		for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
			fprintf(f, "%6llu ", (unsigned long long)z->free_area[o].nr_free);
		fputc('\n', f);
	}
}

void ps_replay_write_pagetypeinfo(const struct ps_replay *r, FILE *f)
{
	static const int shown[] = { PS_MT_UNMOVABLE, PS_MT_MOVABLE, PS_MT_RECLAIMABLE, PS_MT_HIGHATOMIC, PS_MT_ISOLATE };
	const int nshown = sizeof(shown) / sizeof(shown[0]);
	int pb = r->m->pageblock_order;

	fprintf(f, "Page block order: %d\nPages per block:  %d\n\n", pb, 1 << pb);
	fprintf(f, "Free pages count per migrate type at order ");
	for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
		fprintf(f, "%6d ", o);
	fputc('\n', f);
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		const struct ps_zone *z = &r->mm.zones[zi];

		for (int i = 0; i < nshown; i++) {
			fprintf(f, "Node %4d, zone %8s, type %12s ", z->node, ps_zone_names[z->type],
				ps_migratetype_names[shown[i]]);
			for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
				fprintf(f, "%6llu ", (unsigned long long)z->free_area[o].nr_free_mt[shown[i]]);
			fputc('\n', f);
		}
	}
	fprintf(f, "\nNumber of blocks type    ");
	for (int i = 0; i < nshown; i++)
		fprintf(f, " %12s", ps_migratetype_names[shown[i]]);
	fputc('\n', f);
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		const struct ps_zone *z = &r->mm.zones[zi];
		uint64_t n[PS_MIGRATE_TYPES] = { 0 };

		for (uint32_t b = z->span_start >> pb; b <= (z->span_end - 1) >> pb; b++)
			if (z->pb_mt[b] < PS_MIGRATE_TYPES)
				n[z->pb_mt[b]]++;
		fprintf(f, "Node %d, zone %8s ", z->node, ps_zone_names[z->type]);
		for (int i = 0; i < nshown; i++)
			fprintf(f, " %12llu", (unsigned long long)n[shown[i]]);
		fputc('\n', f);
	}
}

/* Free blocks of at least @order and the pages they hold. */
static void suitable(const struct ps_zone *z, int order, uint64_t *blocks, uint64_t *pages)
{
	*blocks = *pages = 0;
	for (int o = 0; o < PS_NR_PAGE_ORDERS; o++) {
		*pages += z->free_area[o].nr_free << o;
		if (o >= order)
			*blocks += z->free_area[o].nr_free << (o - order);
	}
}

/* debugfs extfrag/unusable_index: free pages unusable for @order, in thousandths */
void ps_replay_write_unusable_index(const struct ps_replay *r, FILE *f)
{
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		const struct ps_zone *z = &r->mm.zones[zi];

		fprintf(f, "Node %d, zone %8s ", z->node, ps_zone_names[z->type]);
		for (int o = 0; o < PS_NR_PAGE_ORDERS; o++) {
			uint64_t blocks, pages, idx;

			suitable(z, o, &blocks, &pages);
			idx = pages ? (pages - (blocks << o)) * 1000 / pages : 1000;
			fprintf(f, "%llu.%03llu ", (unsigned long long)(idx / 1000), (unsigned long long)(idx % 1000));
		}
		fputc('\n', f);
	}
}

/* debugfs extfrag/extfrag_index: -1.000 when a block of the order is free */
void ps_replay_write_extfrag_index(const struct ps_replay *r, FILE *f)
{
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		const struct ps_zone *z = &r->mm.zones[zi];

		fprintf(f, "Node %d, zone %8s ", z->node, ps_zone_names[z->type]);
		for (int o = 0; o < PS_NR_PAGE_ORDERS; o++) {
			uint64_t suitable_blocks = 0, pages = 0, total_blocks = 0;
			long idx;

			for (int k = 0; k < PS_NR_PAGE_ORDERS; k++) {
				total_blocks += z->free_area[k].nr_free;
				pages += z->free_area[k].nr_free << k;
				if (k >= o)
					suitable_blocks += z->free_area[k].nr_free << (k - o);
			}
			if (!total_blocks)
				idx = 0;
			else if (suitable_blocks)
				idx = -1000;
			else
				idx = 1000 - (long)((1000 + pages * 1000 / (1u << o)) / total_blocks);
			if (idx < 0 && idx != -1000)
				idx = 0;
			fprintf(f, "%s%ld.%03ld ", idx < 0 ? "-" : "", labs(idx) / 1000, labs(idx) % 1000);
		}
		fputc('\n', f);
	}
}
