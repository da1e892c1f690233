// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * watermark.c - zone watermarks, lowmem_reserve, the min_free_kbytes
 * default, watermark boost and the watermark test, per kernel release.
 *
 * Notes (what this simplifies):
 *  - Pure arithmetic over the managed/present counts the caller gives; no
 *    memory hotplug.  The allocator's checks add z->free_drift to the free
 *    count: 0 (exact) unless vmstat.drift=1 (vmstat.c) or an ensemble
 *    member perturbs it.
 *  - The boot default of min_free_kbytes is computed from the managed
 *    counts given; the kernel computes it before init memory is freed, so
 *    from a running machine's counts it comes out a little larger.
 *  - THP sizing assumes x86-64 (MIGRATE_PCPTYPES 3, the pageblock order of
 *    the machine).  CONFIG_UNACCEPTED_MEMORY (6.5+) is not modelled.
 *  - Version boundaries not pinned to one release are those of
 *    docs/kernel-rules.md (Watermarks, Sources); the uncertain ones are
 *    marked here.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/event.h"
#include "lib/kver.h"
#include "sim/mm/buddy.h"
#include "sim/mm/watermark.h"

#define KV_NEWEST PS_KVER(255, 255, 255)
#define SWAP_CLUSTER_MAX 32
#define MIGRATE_PCPTYPES 3

static int kv(int kver)
{
	return kver == PS_KVER_UNKNOWN ? KV_NEWEST : kver;
}

static int has_type(unsigned int types, int t)
{
	return (types >> t) & 1;
}

void ps_wmark_tunables_default(struct ps_wmark_tunables *t, int kver)
{
	int v = kv(kver);

	memset(t, 0, sizeof(*t));
	t->kver = kver;
	t->min_free_kbytes = -1;
	t->thp_at_boot = 1;
	t->watermark_scale_factor = 10;
	t->watermark_boost_factor = v >= PS_KVER(5, 0, 0) ? 15000 : 0;
	t->lowmem_reserve_ratio[PS_ZONE_DMA] = 256;
	t->lowmem_reserve_ratio[PS_ZONE_DMA32] = 256;
	t->lowmem_reserve_ratio[PS_ZONE_NORMAL] = 32;
	/* <= 4.18: the array has no HighMem slot of its own but NORMAL's 32 is repeated */
	t->lowmem_reserve_ratio[PS_ZONE_HIGHMEM] = v >= PS_KVER(4, 19, 0) ? 0 : 32;
	t->lowmem_reserve_ratio[PS_ZONE_MOVABLE] = 0;
	t->lowmem_reserve_ratio[PS_ZONE_DEVICE] = 0;
	t->zone_types = PS_ZONE_TYPES_X86_64;
}

int ps_wmark_set_ratios(struct ps_wmark_tunables *t, const long *v, int n)
{
	int nt = __builtin_popcount(t->zone_types), i = 0;

	if (n != nt && n != nt - 1)
		return -1;
	for (int type = 0; type < PS_ZONE_NR; type++) {
		if (!has_type(t->zone_types, type))
			continue;
		t->lowmem_reserve_ratio[type] = i < n ? (int)v[i] : 0;
		i++;
	}
	return 0;
}

static const struct ps_zone_desc *find_zone(const struct ps_machine *m, int node, int type)
{
	int i = ps_machine_zone_index(m, node, type);

	return i < 0 ? NULL : &m->zones[i];
}

uint64_t ps_wmark_managed(const struct ps_machine *m, int node, int type)
{
	const struct ps_zone_desc *z = find_zone(m, node, type);

	return z ? z->managed : 0;
}

int ps_wmark_populated(const struct ps_machine *m, int node, int type)
{
	const struct ps_zone_desc *z = find_zone(m, node, type);

	return z && (z->present ? z->present : z->managed) > 0;
}

static int node_online(const struct ps_machine *m, int node)
{
	if (!m->node_online)
		return node < m->nr_nodes;
	return node < 64 && ((m->node_online >> node) & 1);
}

uint64_t ps_wmark_nr_free_buffer_pages(const struct ps_machine *m, const struct ps_wmarks *w)
{
	uint64_t sum = 0;

	for (int i = 0; i < m->nr_zones; i++) {
		const struct ps_zone_desc *z = &m->zones[i];
		uint64_t high = 0;

		if (z->type > PS_ZONE_NORMAL || z->node < 0 || z->node >= PS_MAX_NODES)
			continue;
		if (w && w->zone[z->node][z->type].mark[PS_WMARK_HIGH] > 0)
			high = (uint64_t)w->zone[z->node][z->type].mark[PS_WMARK_HIGH];
		if (z->managed > high)
			sum += z->managed - high;
	}
	return sum;
}

/* floor(sqrt(x)), as int_sqrt() */
static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

long ps_wmark_min_free_kbytes_sqrt(uint64_t free_buffer_pages, int kver, int page_shift)
{
	uint64_t kb = page_shift >= 10 ? free_buffer_pages << (page_shift - 10) : free_buffer_pages;
	long v = (long)isqrt(kb * 16);
	/* ee8eb9a5fe863: the cap went from 64 MiB to 256 MiB in 5.7 */
	long cap = kv(kver) >= PS_KVER(5, 7, 0) ? 262144 : 65536;

	if (v < 128)
		v = 128;
	if (v > cap)
		v = cap;
	return v;
}

long ps_wmark_min_free_kbytes_thp(const struct ps_machine *m, const struct ps_wmarks *w, int kver,
				  long cur)
{
	uint64_t nr_zones = 0, pb = 1ull << m->pageblock_order, rec;

	for (int i = 0; i < m->nr_zones; i++) {
		const struct ps_zone_desc *z = &m->zones[i];

		if (!(z->present ? z->present : z->managed))
			continue;
		/*
		 * Zones above gfp_zone(GFP_USER) (Movable, HighMem) stopped
		 * counting between 4.14 (absent in 4.14.177) and 4.19.
		 */
		if (kv(kver) >= PS_KVER(4, 19, 0) && z->type > PS_ZONE_NORMAL)
			continue;
		nr_zones++;
	}
	rec = pb * nr_zones * 2 + pb * nr_zones * MIGRATE_PCPTYPES * MIGRATE_PCPTYPES;
	if (rec > ps_wmark_nr_free_buffer_pages(m, w) / 20)
		rec = ps_wmark_nr_free_buffer_pages(m, w) / 20;
	rec <<= m->page_shift - 10;
	return (long)rec > cur ? (long)rec : cur;
}

static uint64_t totalram_pages(const struct ps_machine *m)
{
	uint64_t sum = 0;

	for (int i = 0; i < m->nr_zones; i++)
		sum += m->zones[i].managed;
	return sum;
}

long ps_wmark_min_free_kbytes_default(const struct ps_machine *m, const struct ps_wmark_tunables *t)
{
	long v = ps_wmark_min_free_kbytes_sqrt(ps_wmark_nr_free_buffer_pages(m, NULL), t->kver,
					       m->page_shift);
	struct ps_wmark_tunables t2;
	struct ps_wmarks *w;

	/* hugepage_init(): THP is switched off below 512 MiB of RAM */
	if (!t->thp_at_boot || totalram_pages(m) < (512ull << (20 - m->page_shift)))
		return v;
	w = malloc(sizeof(*w));
	if (!w)
		return v;
	t2 = *t;
	t2.min_free_kbytes = v;
	if (ps_wmark_setup(w, m, &t2) == 0)
		v = ps_wmark_min_free_kbytes_thp(m, w, t->kver, v);
	free(w);
	return v;
}

/* is_highmem(), and from 6.7 ZONE_MOVABLE too: min is a small constant, not a share */
static int min_like_highmem(int v, int type)
{
	return type == PS_ZONE_HIGHMEM || (type == PS_ZONE_MOVABLE && v >= PS_KVER(6, 7, 0));
}

static void setup_lowmem_reserve(struct ps_wmarks *w, const struct ps_machine *m,
				 const struct ps_wmark_tunables *t, int node)
{
	int v = kv(t->kver), types[PS_ZONE_NR], nt = 0;
	uint64_t managed[PS_ZONE_NR];

	for (int type = 0; type < PS_ZONE_NR; type++) {
		if (!has_type(t->zone_types, type))
			continue;
		types[nt] = type;
		managed[nt] = ps_wmark_managed(m, node, type);
		nt++;
	}
	for (int j = 0; j < nt; j++) {
		uint64_t sum = managed[j];

		/* lower zone i against upper zone j: managed of zones i+1..j over ratio[i] */
		for (int i = j - 1; i >= 0; i--) {
			long ratio = t->lowmem_reserve_ratio[types[i]];
			long *res = &w->zone[node][types[i]].lowmem_reserve[types[j]];

			if (v < PS_KVER(4, 19, 0)) {
				/* <= 4.18: a ratio below 1 is forced to 1 */
				*res = (long)(sum / (uint64_t)(ratio < 1 ? 1 : ratio));
			} else if (v < PS_KVER(5, 9, 0)) {
				/* 4.19: a ratio below 1 means no protection */
				*res = ratio < 1 ? 0 : (long)(sum / (uint64_t)ratio);
			} else if (v < PS_KVER(5, 11, 0)) {
				/*
				 * 5.9-5.10 [release of the change uncertain: absent
				 * 5.4, present 5.10]: an empty lower zone or ratio 0
				 * gives 0, and that zone's pages are then not added
				 * to the sum the zones below it see.
				 */
				if (ratio < 1 || !managed[i]) {
					*res = 0;
					continue;
				}
				*res = (long)(sum / (uint64_t)ratio);
			} else {
				/* 5.11+: the same test, the sum always over i+1..j */
				*res = ratio < 1 || !managed[i] ? 0 : (long)(sum / (uint64_t)ratio);
			}
			sum += managed[i];
		}
	}
}

int ps_wmark_setup(struct ps_wmarks *w, const struct ps_machine *m,
		   const struct ps_wmark_tunables *t)
{
	int v = kv(t->kver);
	long mfk = t->min_free_kbytes >= 0 ? t->min_free_kbytes :
					     ps_wmark_min_free_kbytes_default(m, t);
	uint64_t pages_min = (uint64_t)mfk >> (m->page_shift - 10), lowmem = 0;

	memset(w, 0, sizeof(*w));
	w->kver = t->kver;
	w->min_free_kbytes = mfk;
	for (int i = 0; i < m->nr_zones; i++) {
		const struct ps_zone_desc *z = &m->zones[i];

		if (z->node < 0 || z->node >= PS_MAX_NODES || !has_type(t->zone_types, z->type))
			continue;
		if (!min_like_highmem(v, z->type))
			lowmem += z->managed;
	}
	w->lowmem_pages = lowmem;
	if (!lowmem)
		return -1;
	for (int node = 0; node < m->nr_nodes && node < PS_MAX_NODES; node++) {
		if (!node_online(m, node))
			continue;
		for (int type = 0; type < PS_ZONE_NR; type++) {
			struct ps_wmark_zone *wz = &w->zone[node][type];
			uint64_t managed = ps_wmark_managed(m, node, type);
			uint64_t tmp = pages_min * managed / lowmem;
			uint64_t d;

			if (!has_type(t->zone_types, type))
				continue;
			if (min_like_highmem(v, type)) {
				uint64_t mp = managed / 1024;

				mp = mp < SWAP_CLUSTER_MAX ? SWAP_CLUSTER_MAX : mp > 128 ? 128 : mp;
				wz->mark[PS_WMARK_MIN] = (long)mp;
			} else {
				wz->mark[PS_WMARK_MIN] = (long)tmp;
			}
			if (v < PS_KVER(4, 6, 0)) {
				wz->mark[PS_WMARK_LOW] = wz->mark[PS_WMARK_MIN] + (long)(tmp >> 2);
				wz->mark[PS_WMARK_HIGH] = wz->mark[PS_WMARK_MIN] + (long)(tmp >> 1);
				continue;
			}
			/* 795ae7a0de: spacing max(share/4, managed * wsf / 10000) */
			d = managed * (uint64_t)t->watermark_scale_factor / 10000;
			if (tmp >> 2 > d)
				d = tmp >> 2;
			wz->mark[PS_WMARK_LOW] = wz->mark[PS_WMARK_MIN] + (long)d;
			wz->mark[PS_WMARK_HIGH] = wz->mark[PS_WMARK_LOW] + (long)d;
			/* WMARK_PROMO: present in 6.1, absent 5.15 [6.0 assumed] */
			if (v >= PS_KVER(6, 0, 0))
				wz->mark[PS_WMARK_PROMO] = wz->mark[PS_WMARK_HIGH] + (long)d;
		}
		setup_lowmem_reserve(w, m, t, node);
	}
	return 0;
}

long ps_wmark_boost(int kver, int boost_factor, uint64_t managed, long high, long boost,
		    int pageblock_order, int *boosted)
{
	long pb = 1L << pageblock_order, max_boost;

	if (boosted)
		*boosted = 0;
	if (kv(kver) < PS_KVER(5, 0, 0) || boost_factor <= 0)
		return boost;
	/*
	 * zones under four pageblocks are not boosted: "mm: limit
	 * boost_watermark on small zones", mainline 5.7, taken by the stable
	 * trees (5.4.59 has it)
	 */
	if (kv(kver) >= PS_KVER(5, 7, 0) && (uint64_t)pb * 4 > managed)
		return boost;
	max_boost = high > 0 ? (long)((uint64_t)high * (uint64_t)boost_factor / 10000) : 0;
	if (!max_boost)
		return boost;
	if (max_boost < pb)
		max_boost = pb;
	if (boosted)
		*boosted = 1;
	return boost + pb < max_boost ? boost + pb : max_boost;
}

unsigned int ps_gfp_to_alloc_flags(uint32_t gfp, int order, int kver, int slowpath)
{
	int v = kv(kver);
	unsigned int flags = 0;

	if ((gfp & PS_GFP_MOVABLE) && !(gfp & PS_GFP_RECLAIMABLE))
		flags |= PS_ALLOC_CMA;
	if ((gfp & PS_GFP_ATOMIC) && v < PS_KVER(6, 3, 0))
		flags |= PS_ALLOC_GFP_ATOMIC;
	if (!slowpath)
		return flags;
	if (gfp & PS_GFP_HIGH)
		flags |= PS_ALLOC_HIGH;
	if (gfp & PS_GFP_NOMEMALLOC)
		return flags;
	if (v < PS_KVER(4, 4, 0)) {
		/* "atomic" = no __GFP_WAIT and no __GFP_NO_KSWAPD; the trace keeps no NO_KSWAPD */
		if (!(gfp & PS_GFP_DIRECT_RECLAIM))
			flags |= PS_ALLOC_HARDER;
	} else if (v < PS_KVER(6, 3, 0)) {
		if (gfp & PS_GFP_ATOMIC)
			flags |= PS_ALLOC_HARDER;
	} else if (!(gfp & PS_GFP_DIRECT_RECLAIM)) {
		flags |= PS_ALLOC_NON_BLOCK;
		if (order > 0)
			flags |= PS_ALLOC_HIGHATOMIC;
	}
	return flags;
}

/* The caller may use the highatomic reserve (and its free lists). */
static int may_use_highatomic(int v, unsigned int flags)
{
	if (v >= PS_KVER(6, 3, 0))
		return !!(flags & (PS_ALLOC_NON_BLOCK | PS_ALLOC_HIGH | PS_ALLOC_HIGHATOMIC |
				   PS_ALLOC_OOM));
	return !!(flags & PS_ALLOC_HARDER) || (v >= PS_KVER(4, 14, 0) && (flags & PS_ALLOC_OOM));
}

/*
 * The highatomic pages the watermark test counts as unusable: every page of
 * the reserved pageblocks up to 6.12, only those free from 6.13
 * (nr_free_highatomic, "mm/page_alloc: keep track of free highatomic").
 */
static long highatomic_pages(int v, const struct ps_zone *z)
{
	long n = 0;

	if (v < PS_KVER(6, 13, 0))
		return z->nr_reserved_highatomic;
	for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
		n += (long)(z->free_area[o].nr_free_mt[PS_MT_HIGHATOMIC] << o);
	return n;
}

/* Pages the caller cannot count (4.4+): the highatomic reserve, free CMA. */
static long unusable_free(int v, const struct ps_zone *z, unsigned int flags)
{
	long u = 0;

	if (v >= PS_KVER(4, 4, 0) && !may_use_highatomic(v, flags))
		u += highatomic_pages(v, z);
	if (!(flags & PS_ALLOC_CMA))
		u += z->nr_free_cma;
	return u;
}

static long reserve_of(const struct ps_zone *z, int classzone)
{
	if (classzone < 0 || classzone >= PS_ZONE_NR)
		return 0;
	return z->lowmem_reserve[classzone];
}

static int nonempty(const struct ps_zone *z, int o, int mt)
{
	return z->free_area[o].nr_free_mt[mt] > 0;
}

int ps_zone_watermark_ok(int kver, const struct ps_zone *z, int order, long mark, int classzone,
			 unsigned int flags)
{
	int v = kv(kver);
	long free = (long)z->nr_free_pages - ((1L << order) - 1);
	long min = mark, reserve = reserve_of(z, classzone);

	if (v < PS_KVER(4, 4, 0)) {
		/* <= 4.3: CMA only in the order-0 test, then per-order subtraction */
		if (flags & PS_ALLOC_HIGH)
			min -= min / 2;
		if (flags & PS_ALLOC_HARDER)
			min -= min / 4;
		if (free - (flags & PS_ALLOC_CMA ? 0 : z->nr_free_cma) <= min + reserve)
			return 0;
		for (int o = 0; o < order && o < PS_NR_PAGE_ORDERS; o++) {
			free -= (long)(z->free_area[o].nr_free << o);
			min >>= 1;
			if (free <= min)
				return 0;
		}
		return 1;
	}
	free -= unusable_free(v, z, flags);
	if (v < PS_KVER(6, 3, 0)) {
		if (flags & PS_ALLOC_HIGH)
			min -= min / 2;
		if (may_use_highatomic(v, flags))
			min -= (v >= PS_KVER(4, 14, 0) && (flags & PS_ALLOC_OOM)) ? min / 2 :
										    min / 4;
	} else {
		if (flags & PS_ALLOC_HIGH) {
			min -= min / 2;
			if (flags & PS_ALLOC_NON_BLOCK)
				min -= min / 4;
		}
		if (flags & PS_ALLOC_OOM)
			min -= min / 2;
	}
	if (free <= min + reserve)
		return 0;
	if (!order)
		return 1;
	/* 4.4+: the order-0 mark holds; is there a free block of at least @order it may use? */
	for (int o = order; o < PS_NR_PAGE_ORDERS; o++) {
		int atomic_ok = v >= PS_KVER(6, 3, 0) ?
					!!(flags & (PS_ALLOC_HIGHATOMIC | PS_ALLOC_OOM)) :
					may_use_highatomic(v, flags);

		for (int mt = 0; mt < MIGRATE_PCPTYPES; mt++)
			if (nonempty(z, o, mt))
				return 1;
		if ((flags & PS_ALLOC_CMA) && nonempty(z, o, PS_MT_CMA))
			return 1;
		if (atomic_ok && nonempty(z, o, PS_MT_HIGHATOMIC))
			return 1;
	}
	return 0;
}

int ps_zone_watermark_fast_full(int kver, const struct ps_zone *z, int order, long mark, int classzone,
				unsigned int flags, int mark_is_min, long min_unboosted)
{
	int v = kv(kver);
	long reserve = reserve_of(z, classzone);

	if (v < PS_KVER(4, 7, 0))
		return ps_zone_watermark_ok(kver, z, order, mark, classzone, flags);
	if (!order) {
		long usable = (long)z->nr_free_pages + z->free_drift;

		if (v < PS_KVER(5, 10, 0))
			usable -= flags & PS_ALLOC_CMA ? 0 : z->nr_free_cma;
		else
			usable -= unusable_free(v, z, flags);
		if (usable > mark + reserve)
			return 1;
		/*
		 * The full test cannot pass where the shortcut failed unless
		 * the flags lower the mark: it counts no more free pages.
		 */
		if (!(flags & ps_alloc_flags_lowering(v)))
			goto boosted;
	}
	if (ps_zone_watermark_ok(kver, z, order, mark, classzone, flags))
		return 1;
boosted:
	if (v >= PS_KVER(5, 10, 0) && !order && z->watermark_boost && mark_is_min &&
	    (v < PS_KVER(6, 3, 0) ? (flags & PS_ALLOC_GFP_ATOMIC) : (flags & PS_ALLOC_HIGH)))
		return ps_zone_watermark_ok(kver, z, order, min_unboosted, classzone, flags);
	return 0;
}
