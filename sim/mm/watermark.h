/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * watermark.h - zone watermarks (WMARK_MIN/LOW/HIGH/PROMO), lowmem_reserve
 * ("protection" in /proc/zoneinfo), the boot default of vm.min_free_kbytes,
 * watermark boosting and the watermark test, each as a given kernel release
 * computes them.  Pure functions over plain data: a machine (sim/machine.h),
 * tunables, and free counts the caller passes in.
 *
 * The rules and their version boundaries: docs/kernel-rules.md,
 * lowmem_reserve, Watermarks and Watermark boost.  Zone indices are
 * pagesim's enum ps_zone_type throughout; the kernel's own index differs
 * (x86-64 has no ZONE_HIGHMEM) but keeps the same order, so "zone i lies
 * under zone j" is the same comparison.
 */
#ifndef PS_WATERMARK_H
#define PS_WATERMARK_H

#include <stdint.h>

#include "lib/kver.h"
#include "lib/machine.h"
#include "sim/mm/buddy.h"

enum ps_wmark_which {
	PS_WMARK_MIN,
	PS_WMARK_LOW,
	PS_WMARK_HIGH,
	PS_WMARK_PROMO, /* 6.0+ (memory tiering); 0 before */
	PS_NR_WMARK
};

/* Zone types an x86-64 kernel is built with (bit per enum ps_zone_type). */
#define PS_ZONE_TYPES_X86_64                                                    \
	((1u << PS_ZONE_DMA) | (1u << PS_ZONE_DMA32) | (1u << PS_ZONE_NORMAL) | \
	 (1u << PS_ZONE_MOVABLE) | (1u << PS_ZONE_DEVICE))

/* What the setup reads; the kernel's sysctl names. */
struct ps_wmark_tunables {
	int kver;			      /* PS_KVER; PS_KVER_UNKNOWN: the newest rules */
	long min_free_kbytes;		      /* vm.min_free_kbytes; < 0: the boot default */
	int thp_at_boot;		      /* for the boot default: THP "always" or "madvise" */
	int watermark_scale_factor;	      /* vm.watermark_scale_factor (used 4.6+) */
	int watermark_boost_factor;	      /* vm.watermark_boost_factor (used 5.0+) */
	int lowmem_reserve_ratio[PS_ZONE_NR]; /* by enum ps_zone_type */
	unsigned int zone_types;	      /* zone types the kernel has, bit per PS_ZONE_* */
};

/* One zone's result. */
struct ps_wmark_zone {
	long mark[PS_NR_WMARK];		 /* _watermark[], without the boost */
	long lowmem_reserve[PS_ZONE_NR]; /* by the class zone's enum ps_zone_type */
};

/* The result for a machine: zones by [node][enum ps_zone_type]; absent zones are empty. */
struct ps_wmarks {
	int kver;
	long min_free_kbytes;  /* the value used (the default if none was given) */
	uint64_t lowmem_pages; /* managed pages the min share is spread over */
	struct ps_wmark_zone zone[PS_MAX_NODES][PS_ZONE_NR];
};

/*
 * The kernel's defaults for @kver on x86-64: min_free_kbytes -1 (boot
 * default), THP on, watermark_scale_factor 10, watermark_boost_factor 15000
 * (0 before 5.0), lowmem_reserve_ratio DMA 256, DMA32 256, Normal 32,
 * HighMem 32 up to 4.18 and 0 from 4.19, Movable 0.
 */
void ps_wmark_tunables_default(struct ps_wmark_tunables *t, int kver);

/*
 * Sets lowmem_reserve_ratio from the values of /proc/sys/vm/lowmem_reserve_ratio,
 * which lists one per zone type the kernel has (t->zone_types), lowest
 * first; up to 4.18 the top zone has none.  Returns 0, or -1 when @n fits
 * neither count (t is then unchanged).
 */
int ps_wmark_set_ratios(struct ps_wmark_tunables *t, const long *v, int n);

/*
 * Managed pages of zone (@node, @type) of @m, 0 if @m has no such zone.
 * A zone is "populated" when its present pages (or, if the source gave no
 * present count, its managed pages) are not 0.
 */
uint64_t ps_wmark_managed(const struct ps_machine *m, int node, int type);
int ps_wmark_populated(const struct ps_machine *m, int node, int type);

/*
 * nr_free_buffer_pages(): the sum over zones up to Normal (gfp_zone(GFP_USER))
 * on every node of max(managed - WMARK_HIGH, 0), with WMARK_HIGH from @w, or
 * 0 when @w is NULL (as at boot, before the first watermark setup).
 */
uint64_t ps_wmark_nr_free_buffer_pages(const struct ps_machine *m, const struct ps_wmarks *w);

/*
 * calculate_min_free_kbytes(): int_sqrt(16 * free buffer memory in KiB)
 * clamped to [128, 65536] (<= 5.6) or [128, 262144] (5.7+).  The kernel
 * runs it at boot (@free_buffer_pages with no watermarks yet), on memory
 * hotplug and, from 6.1, when THP is switched to "never" (with the
 * watermarks then in force).
 */
long ps_wmark_min_free_kbytes_sqrt(uint64_t free_buffer_pages, int kver, int page_shift);

/*
 * set_recommended_min_free_kbytes() (khugepaged start): returns
 * max(@cur, recommended), recommended = pageblock pages * zones * 11 (zones:
 * populated ones, from 4.19 only those up to Normal) capped at 5% of
 * nr_free_buffer_pages with the watermarks @w, in KiB.
 */
long ps_wmark_min_free_kbytes_thp(const struct ps_machine *m, const struct ps_wmarks *w, int kver,
				  long cur);

/*
 * The value after boot: the sqrt rule over the managed pages, then (if
 * t->thp_at_boot and the machine has at least 512 MiB, below which the
 * kernel switches THP off) the THP raise with the watermarks of the first
 * value.  The kernel runs this when init memory (initrd, __init sections)
 * is not yet freed, so a sysroot's final managed counts give a slightly
 * larger value than the boot did.
 */
long ps_wmark_min_free_kbytes_default(const struct ps_machine *m,
				      const struct ps_wmark_tunables *t);

/*
 * __setup_per_zone_wmarks() and setup_per_zone_lowmem_reserve() for every
 * zone of @m under @t (min_free_kbytes < 0: the boot default).  Fills @w
 * (about 30 KiB: allocate it).  Returns 0, or -1 when @m has no managed
 * lowmem page (the kernel would divide by zero); @w is then all zero.
 */
int ps_wmark_setup(struct ps_wmarks *w, const struct ps_machine *m,
		   const struct ps_wmark_tunables *t);

/*
 * boost_watermark() (5.0+): the zone's boost after one fragmenting
 * fallback, from its current @boost, unboosted WMARK_HIGH @high and
 * @managed pages.  Returns @boost unchanged when boosting does not apply
 * (before 5.0, factor 0, from 5.7 zones under 4 pageblocks, or a zero
 * HIGH*factor/10000); *@boosted (if not NULL) is then 0, else 1 (the
 * kernel's return value, on which ZONE_BOOSTED_WATERMARK is set), also
 * when the boost was at its maximum already.
 */
long ps_wmark_boost(int kver, int boost_factor, uint64_t managed, long high, long boost,
		    int pageblock_order, int *boosted);

/*
 * Allocation flags the watermark test reads; pagesim's own bits, mapped
 * to the kernel's per version.
 */
enum ps_alloc_flags {
	PS_ALLOC_HIGH = 1u << 0,   /* __GFP_HIGH: ALLOC_HIGH (<= 6.2), ALLOC_MIN_RESERVE (6.3+) */
	PS_ALLOC_HARDER = 1u << 1, /* <= 6.2: ALLOC_HARDER (atomic, or an RT task) */
	PS_ALLOC_NON_BLOCK = 1u << 2,  /* 6.3+: caller cannot block */
	PS_ALLOC_HIGHATOMIC = 1u << 3, /* 6.3+: may use MIGRATE_HIGHATOMIC blocks */
	PS_ALLOC_OOM = 1u << 4,	       /* 4.14+: OOM victim (ALLOC_OOM) */
	PS_ALLOC_CMA = 1u << 5,	       /* may use MIGRATE_CMA (movable request) */
	PS_ALLOC_GFP_ATOMIC = 1u << 6, /* <= 6.2: gfp has __GFP_ATOMIC (the 5.10+ boost bypass) */
};

/*
 * The flags the kernel derives from @gfp (PS_GFP_*): the fast path
 * (@slowpath 0) sets only ALLOC_CMA for movable requests; the slow path
 * (gfp_to_alloc_flags) adds HIGH, HARDER (<= 6.2: __GFP_ATOMIC, <= 4.3:
 * no __GFP_WAIT) or NON_BLOCK/HIGHATOMIC (6.3+: no __GFP_DIRECT_RECLAIM;
 * HIGHATOMIC only for @order > 0), none of them with __GFP_NOMEMALLOC.
 * RT-task and OOM-victim cases are not derivable from gfp and are left out.
 */
unsigned int ps_gfp_to_alloc_flags(uint32_t gfp, int order, int kver, int slowpath);

/*
 * __zone_watermark_ok(): whether model zone @z may serve an allocation of
 * @order against @mark (a WMARK_* value, boost included if the caller
 * wants it) for class zone @classzone (enum ps_zone_type: the preferred
 * zone's type <= 5.6, gfp_zone() from 5.7), whose reserve comes from
 * z->lowmem_reserve.  @flags: enum ps_alloc_flags.  Follows @kver: the
 * per-order subtraction up to 4.3, the "order-0 mark and one free block of
 * the order" check from 4.4, the highatomic reserve as unusable from 4.4
 * (its pages as reserved up to 6.12, only the free ones from 6.13:
 * nr_free_highatomic), ALLOC_OOM from 4.14, the 6.3 split of ALLOC_HARDER.
 * It reads NR_FREE_PAGES (z->nr_free_pages), NR_FREE_CMA_PAGES
 * (z->nr_free_cma) and the free lists' block counts.
 */
int ps_zone_watermark_ok(int kver, const struct ps_zone *z, int order, long mark, int classzone,
			 unsigned int flags);

/*
 * zone_watermark_fast() (4.7+; zone_watermark_ok() before): the order-0
 * shortcut (free minus CMA, from 5.10 minus all unusable pages, above mark
 * plus reserve), then the full test, then (5.10+, order 0, WMARK_MIN, the
 * zone boosted, a GFP_ATOMIC caller <= 6.2 or ALLOC_MIN_RESERVE 6.3+) the
 * test again at @min_unboosted.  @mark_is_min says @mark is WMARK_MIN
 * (plus the zone's boost).
 */
int ps_zone_watermark_fast_full(int kver, const struct ps_zone *z, int order, long mark, int classzone,
				unsigned int flags, int mark_is_min, long min_unboosted);

/* The allocation flags that lower the mark in __zone_watermark_ok() of @kver. */
static inline unsigned int ps_alloc_flags_lowering(int kver)
{
	return kver && kver < PS_KVER(6, 3, 0) ? PS_ALLOC_HIGH | PS_ALLOC_HARDER | PS_ALLOC_OOM :
						   PS_ALLOC_HIGH | PS_ALLOC_OOM;
}

/*
 * ps_zone_watermark_fast_full() with its common case decided here, where
 * the walk calls it for every zone it passes: an order-0 request on a zone
 * with no highatomic reserve and no free CMA pages counts every free page,
 * so it passes above mark plus reserve, and below fails unless its flags
 * lower the mark or the boosted-MIN retry applies.
 */
static inline int ps_zone_watermark_fast(int kver, const struct ps_zone *z, int order, long mark,
					 int classzone, unsigned int flags, int mark_is_min,
					 long min_unboosted)
{
	if (!order && !z->nr_reserved_highatomic && !z->nr_free_cma &&
	    (!kver || kver >= PS_KVER(4, 7, 0))) {
		long reserve = classzone >= 0 && classzone < PS_ZONE_NR ? z->lowmem_reserve[classzone] : 0;

		if ((long)z->nr_free_pages + z->free_drift > mark + reserve)
			return 1;
		if (!(flags & ps_alloc_flags_lowering(kver)) && !(mark_is_min && z->watermark_boost))
			return 0;
	}
	return ps_zone_watermark_fast_full(kver, z, order, mark, classzone, flags, mark_is_min,
					   min_unboosted);
}

#endif
