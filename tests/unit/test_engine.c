// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_engine.c - the replay engine driven on small synthetic traces: the
 * placements it makes come from the model's shared rules (the watermark
 * test of sim/mm/watermark.c, the zone walk of sim/mm/page_alloc.c), so a
 * change to those rules moves them.
 *
 * The machine: two nodes, one Normal zone of 2048 pages each, CPU 0 on
 * node 0 and CPU 1 on node 1, watermarks MIN 100, LOW 125, HIGH 150, no
 * lowmem_reserve.  Per-CPU lists hold nothing (high 0, batch 1), so every
 * order-0 request takes one page from the buddy after the watermark test.
 * In simulate mode a page the trace first allocates was free at the start:
 * the trace's own allocations set how much each node has free.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/kvfile.h"
#include "lib/kver.h"
#include "sim/config/machfile.h"
#include "sim/config/policy.h"
#include "sim/mm/profile.h"
#include "sim/replay/replay.h"
#include "check.h"

static const char machine_text[] =
	"name = engine-test\n"
	"page_size = 4096\n"
	"pageblock_order = 9\n"
	"kernel = %s\n"
	"nodes = 2\n"
	"node0.cpus = 0\n"
	"node0.distance = 10 20\n"
	"node0.zone.Normal = start_pfn=1048576 spanned=2048 present=2048 managed=2048\n"
	"node0.zone.Normal.wmark = 100 125 150\n"
	"node1.cpus = 1\n"
	"node1.distance = 20 10\n"
	"node1.zone.Normal = start_pfn=1050624 spanned=2048 present=2048 managed=2048\n"
	"node1.zone.Normal.wmark = 100 125 150\n";

#define NODE0_PFN 1048576ull
#define NODE1_PFN 1050624ull

static struct ps_event evs[8192];
static int nr_evs;

static uint64_t last_ts;

static void alloc_ev(int cpu, uint64_t pfn, uint32_t gfp)
{
	struct ps_event *e = &evs[nr_evs++];

	memset(e, 0, sizeof(*e));
	e->ts_ns = last_ts = 1000000ull + (uint64_t)nr_evs * 1000;
	e->cpu = (uint16_t)cpu;
	e->type = PS_EV_ALLOC;
	e->pfn = pfn;
	e->gfp = gfp;
	e->pid = -1;
	e->migratetype = PS_MT_MOVABLE;	/* the blocks' own type: no fallback, no boost */
}

/* Replays evs[] in simulate mode under profile @prof; the counter @name, or -1. */
static long long replay_counter(const struct ps_machine *m, const char *prof, const char *name)
{
	struct ps_replay_opts o;
	struct ps_replay *r;
	struct ps_kv kv;
	char err[256];
	long long v = -1;
	const struct ps_kv_item *p;

	memset(&o, 0, sizeof(o));
	o.mode = PS_REPLAY_SIMULATE;
	o.profile = ps_profile_by_name(prof);
	ps_policy_init(&o.policy);
	ps_policy_init(&o.recorded);
	o.policy.pcp_high = 0;
	o.policy.pcp_batch = 1;
	for (int c = 0; c < PS_MAX_CPUS; c++)
		o.cpu_node_map[c] = -1;
	ps_lock_params_init(&o.lock);
	r = ps_replay_create(m, &o, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "ps_replay_create: %s\n", err);
		return -1;
	}
	ps_replay_prepass(r, evs, nr_evs);
	if (ps_replay_start(r, err, sizeof(err)) < 0) {
		fprintf(stderr, "ps_replay_start: %s\n", err);
		ps_replay_destroy(r);
		return -1;
	}
	for (int i = 0; i < nr_evs; i++)
		if (ps_replay_event(r, &evs[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "ps_replay_event: %s\n", err);
			break;
		}
	ps_kv_init(&kv);
	if (ps_replay_counters(r, &kv) == 0 && (p = ps_kv_get(&kv, name)))
		v = p->value;
	ps_kv_free(&kv);
	ps_replay_destroy(r);
	return v;
}

/* One node of two zones, for where reclaim takes its pages: DMA32 then Normal, the same watermarks. */
static const char two_zone_text[] =
	"name = engine-test-2z\n"
	"page_size = 4096\n"
	"pageblock_order = 9\n"
	"kernel = %s\n"
	"nodes = 1\n"
	"node0.cpus = 0\n"
	"node0.distance = 10\n"
	"node0.zone.DMA32 = start_pfn=4096 spanned=2048 present=2048 managed=2048\n"
	"node0.zone.DMA32.wmark = 100 125 150\n"
	"node0.zone.Normal = start_pfn=1048576 spanned=2048 present=2048 managed=2048\n"
	"node0.zone.Normal.wmark = 100 125 150\n";

#define DMA32_PFN 4096ull

/*
 * A page-cache page: its allocation (the model places it) and its insertion
 * on the inactive file list, with the PS_PAGEMAP_* @flags.
 */
static void page_cache_ev(uint64_t pfn, uint32_t gfp, unsigned int flags)
{
	struct ps_event *e;

	alloc_ev(0, pfn, gfp);
	e = &evs[nr_evs++];
	*e = evs[nr_evs - 2];
	e->type = PS_EV_LRU_ADD;
	e->x.lru.lru = PS_LRU_INACTIVE_FILE;
	e->x.lru.flags = (uint8_t)flags;
}

/* The machine of @two_zones' text under @kernel. */
static int load_text(struct ps_machine *m, int two_zones, const char *kernel)
{
	char text[sizeof(two_zone_text) > sizeof(machine_text) ? sizeof(two_zone_text) + 32 : sizeof(machine_text) + 32];
	struct ps_error err;

	if (two_zones)
		snprintf(text, sizeof(text), two_zone_text, kernel);
	else
		snprintf(text, sizeof(text), machine_text, kernel);
	if (ps_machine_parse(text, "engine-test", m, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static int load(struct ps_machine *m, const char *kernel)
{
	return load_text(m, 0, kernel);
}

int main(void)
{
	const uint32_t kernel = PS_GFP_DIRECT_RECLAIM | PS_GFP_IO | PS_GFP_FS;
	/* the recorded kernel: its watermarks are kept under a profile of the same watermark rule */
	struct ps_machine m40, m44, m61;

	if (load(&m40, "4.0.0") < 0 || load(&m44, "4.6.0") < 0 || load(&m61, "6.1.0") < 0)
		return 1;

	/*
	 * Node 0 starts with 200 free pages, node 1 with 300; CPU 0 asks for
	 * 200 order-0 pages.  The fast path's test passes while free > LOW
	 * (125): node 0 serves 75 (200 down to 126), node 1 the other 125.
	 */
	nr_evs = 0;
	for (int i = 0; i < 200; i++)
		alloc_ev(0, NODE0_PFN + 1024 + i, kernel);
	for (int i = 0; i < 300; i++)	/* node 1's pages, allocated later by its own CPU */
		alloc_ev(1, NODE1_PFN + 1024 + i, kernel);
	CHECK_EQ(replay_counter(&m61, "5.10", "node0.numa_hit"), 75);
	CHECK_EQ(replay_counter(&m61, "5.10", "node1.numa_miss"), 125);

	/*
	 * Node 1 has nothing free: CPU 0's 200 requests stay on node 0 and the
	 * slow path's MIN decides how many the last resort (no watermark)
	 * serves.  A request that may not wait (no __GFP_DIRECT_RECLAIM, no
	 * __GFP_KSWAPD_RECLAIM) is ALLOC_HARDER up to 4.3 (gfp_to_alloc_flags'
	 * "atomic"), so MIN 100 becomes 75: pass 0 serves 200..126 (75),
	 * pass 1 125..76 (50), the last resort the other 75.  From 4.4 it
	 * needs __GFP_ATOMIC: pass 1 serves 125..101 (25), the last resort 100.
	 */
	nr_evs = 0;
	for (int i = 0; i < 200; i++)
		alloc_ev(0, NODE0_PFN + 1024 + i, 0);
	CHECK_EQ(replay_counter(&m40, "4.0", "replay_sim_watermarks_ignored"), 75);
	CHECK_EQ(replay_counter(&m44, "4.4", "replay_sim_watermarks_ignored"), 100);
	CHECK_EQ(replay_counter(&m61, "5.10", "replay_sim_watermarks_ignored"), 100);
	/* GFP_ATOMIC up to 6.2: __GFP_HIGH halves MIN, ALLOC_HARDER takes a quarter more: 100 -> 38 */
	nr_evs = 0;
	for (int i = 0; i < 200; i++)
		alloc_ev(0, NODE0_PFN + 1024 + i, PS_GFP_HIGH | PS_GFP_ATOMIC);
	CHECK_EQ(replay_counter(&m61, "5.10", "replay_sim_watermarks_ignored"), 38);

	/*
	 * A 6.1 recording replayed under the 4.4 profile follows 4.4's rules:
	 * the watermarks are recomputed by the pre-4.6 rule (low = min +
	 * min/4, high = min + min/2) instead of keeping zoneinfo's
	 */
	{
		long long min = replay_counter(&m61, "4.4", "model_wmark_min.node0.Normal");
		long long low = replay_counter(&m61, "4.4", "model_wmark_low.node0.Normal");
		long long high = replay_counter(&m61, "4.4", "model_wmark_high.node0.Normal");

		CHECK(min > 0 && min != 100);
		CHECK_EQ(low, min + (min >> 2));
		CHECK_EQ(high, min + (min >> 1));
		CHECK_EQ(replay_counter(&m61, "5.10", "model_wmark_low.node0.Normal"), 125);
	}

	/*
	 * kswapd at 100 pages per ms earns a page every 10 us, however dense
	 * the events.  Node 0 starts with 174 free pages (the trace allocates
	 * them first), node 1 with none.  CPU 0's 50 page-cache requests take
	 * node 0 down to LOW: the 50th fails the fast path and the slow path
	 * wakes kswapd0, with the page cache on its inactive file list to reclaim.
	 * 3,000 inert events 5 ns apart (15 us) follow; the other 124 pages are
	 * allocated at the very end, with no time passing.  kswapd0 reclaims
	 * one page in those 15 us; a budget rounded down at each event earned
	 * nothing.
	 */
	{
		const uint32_t ra = PS_GFP_HARDWALL | PS_GFP_NORETRY | PS_GFP_NOWARN | PS_GFP_MOVABLE |
				    PS_GFP_HIGHMEM | kernel | PS_GFP_KSWAPD_RECLAIM;
		uint64_t t;

		nr_evs = 0;
		for (int i = 0; i < 50; i++)
			alloc_ev(0, NODE0_PFN + i, ra);
		t = last_ts;
		for (int i = 0; i < 3000; i++) {
			struct ps_event *e = &evs[nr_evs++];

			memset(e, 0, sizeof(*e));
			e->ts_ns = t + 5 * (uint64_t)(i + 1);
			e->type = PS_EV_FREE_BATCHED;
			e->pfn = PS_PFN_NONE;
			e->pid = -1;
		}
		t = evs[nr_evs - 1].ts_ns;
		for (int i = 0; i < 124; i++) {
			alloc_ev(1, NODE0_PFN + 100 + i, kernel);
			evs[nr_evs - 1].ts_ns = t;
		}
		CHECK_EQ(replay_counter(&m61, "5.10", "model_kswapd_wakeups.node0"), 1);
		CHECK_EQ(replay_counter(&m61, "5.10", "model_kswapd_reclaimed_pages.node0"), 1);
	}
	/*
	 * A free of order 3 at a page the trace allocated alone: the other
	 * seven traced pages of the block were never allocated, and the
	 * model pages beside the first one's belong to other traced pages.
	 * The free is a shape defect and frees nothing; freeing the model's
	 * eight pages would free the others' too (and, later, twice).
	 */
	nr_evs = 0;
	for (int i = 0; i < 300; i++)
		alloc_ev(0, NODE0_PFN + 8 * i, kernel);
	{
		struct ps_event *e = &evs[nr_evs++];

		*e = evs[0];
		e->type = PS_EV_FREE;
		e->order = 3;
		e->ts_ns = last_ts + 1000;
	}
	CHECK_EQ(replay_counter(&m61, "5.10", "replay_defects_block_shape"), 1);
	CHECK_EQ(replay_counter(&m61, "5.10", "model_nr_free_pages.node0.Normal"), 0);

	/*
	 * Where kswapd takes its pages: the classic LRU's oldest pages, the
	 * multi-generational LRU's oldest generation zone by zone from the
	 * class zone down.  DMA32 starts with 500 free pages, Normal with
	 * 700.  350 page-cache pages go to DMA32 first (__GFP_DMA32), then 400
	 * to Normal, then 300 kernel pages take Normal to LOW and DMA32 too:
	 * the slow path wakes kswapd for the class zone Normal, and 20 ms of
	 * events follow.  Classic LRU: the DMA32 pages are the oldest and go
	 * first; multi-generational LRU: every page cache page is in one
	 * generation (the second oldest of four), and Normal's go first.
	 */
	{
		const uint32_t ra = PS_GFP_HARDWALL | PS_GFP_NORETRY | PS_GFP_NOWARN | PS_GFP_MOVABLE |
				    PS_GFP_HIGHMEM | kernel | PS_GFP_KSWAPD_RECLAIM;
		struct ps_machine classic, mglru;
		uint64_t t;

		if (load_text(&classic, 1, "6.12.0") < 0 || load_text(&mglru, 1, "6.12.0") < 0)
			return 1;
		classic.lru_gen_enabled = 0;
		mglru.lru_gen_enabled = 7;
		nr_evs = 0;
		for (int i = 0; i < 350; i++)
			page_cache_ev(DMA32_PFN + i, (ra & ~(PS_GFP_MOVABLE | PS_GFP_HIGHMEM)) | PS_GFP_DMA32, 0);
		for (int i = 0; i < 400; i++)
			page_cache_ev(NODE0_PFN + i, ra, 0);
		for (int i = 0; i < 300; i++)
			alloc_ev(0, NODE0_PFN + 400 + i, kernel | PS_GFP_KSWAPD_RECLAIM);
		for (int i = 0; i < 150; i++)	/* DMA32's other free pages, allocated at the end */
			alloc_ev(0, DMA32_PFN + 350 + i, kernel);
		t = evs[nr_evs - 451].ts_ns;
		for (int i = 0; i < 150; i++)
			evs[nr_evs - 150 + i].ts_ns = t + 20000000ull + (uint64_t)i;
		CHECK_EQ(replay_counter(&classic, "6.10", "model_kswapd_wakeups.node0"), 1);
		CHECK(replay_counter(&classic, "6.10", "model_reclaimed_pages.node0.DMA32") > 0);
		CHECK_EQ(replay_counter(&classic, "6.10", "model_reclaimed_pages.node0.Normal"), 0);
		CHECK_EQ(replay_counter(&mglru, "6.10", "model_kswapd_wakeups.node0"), 1);
		CHECK(replay_counter(&mglru, "6.10", "model_reclaimed_pages.node0.Normal") > 0);
		CHECK_EQ(replay_counter(&mglru, "6.10", "model_reclaimed_pages.node0.DMA32"), 0);
		CHECK_EQ(replay_counter(&mglru, "6.10", "model_nr_inactive_file.node0") +
			 replay_counter(&mglru, "6.10", "model_reclaimed_pages.node0.Normal"), 750);
		CHECK_EQ(replay_counter(&mglru, "6.10", "model_lru_gen_aging"), 0);

		/*
		 * The same with every page-cache page mapped: each goes to the
		 * youngest generation (taken as faulted in), and reclaim meeting
		 * one takes it as referenced and moves it back there.  kswapd's
		 * passes find the oldest generations empty and age instead
		 * (get_nr_to_scan: the youngest holds more than half the pages);
		 * nothing is reclaimed.
		 */
		for (int i = 0; i < nr_evs; i++)
			if (evs[i].type == PS_EV_LRU_ADD)
				evs[i].x.lru.flags = PS_PAGEMAP_MAPPED;
		CHECK_EQ(replay_counter(&mglru, "6.10", "model_kswapd_wakeups.node0"), 1);
		CHECK(replay_counter(&mglru, "6.10", "model_lru_gen_aging") > 0);
		CHECK_EQ(replay_counter(&mglru, "6.10", "model_reclaimed_pages.node0.Normal") +
			 replay_counter(&mglru, "6.10", "model_reclaimed_pages.node0.DMA32"), 0);
		CHECK(replay_counter(&mglru, "6.10", "model_lru_activated") > 0);
		CHECK_EQ(replay_counter(&mglru, "6.10", "model_nr_active_file.node0") +
			 replay_counter(&mglru, "6.10", "model_nr_inactive_file.node0"), 750);
	}
	CHECK_DONE();
}
