// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compaction.c - compaction's free scanner as far as the trace shows it:
 * kcompactd's moves free the source page with mm_page_free, but take their
 * target off the free lists with no event; the model takes a free page of
 * the same zone for each and holds it.
 *
 * Simplifies: the scanner takes the smallest free block, movable ones
 * first, wherever it lies (the kernel scans from the zone's end down);
 * direct compaction's moves carry the allocating task's name and are not
 * told apart from ordinary frees; compaction never moves a page itself.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/event.h"
#include "sim/mm/compaction.h"

int ps_isolated_init(struct ps_mm *mm, uint64_t cap, char *err, int len)
{
	struct ps_isolated *iso = &mm->iso;

	if (!cap)
		return 0;
	if (cap >= PS_NIL) {
		snprintf(err, len, "too many pages held with no event (%llu)", (unsigned long long)cap);
		return -1;
	}
	iso->pool = malloc(cap * sizeof(*iso->pool));
	iso->top = malloc((size_t)(mm->nr_zones ? mm->nr_zones : 1) * sizeof(*iso->top));
	if (!iso->pool || !iso->top) {
		snprintf(err, len, "out of memory for the pages held with no event");
		return -1;
	}
	for (uint32_t i = 0; i < cap; i++)
		iso->pool[i].next = i + 1 < cap ? i + 1 : PS_NIL;
	for (int zi = 0; zi < mm->nr_zones; zi++)
		iso->top[zi] = PS_NIL;
	iso->free = 0;
	iso->on = 1;
	return 0;
}

uint32_t ps_isolate_free_page(struct ps_zone *z)
{
	static const int mts[] = { PS_MT_MOVABLE, PS_MT_RECLAIMABLE, PS_MT_UNMOVABLE };
	uint32_t idx = PS_NIL;

	for (int o = 0; o < PS_NR_PAGE_ORDERS && idx == PS_NIL; o++)
		for (size_t m = 0; m < sizeof(mts) / sizeof(mts[0]) && idx == PS_NIL; m++)
			idx = z->free_area[o].free_list[mts[m]].head;
	if (idx == PS_NIL || ps_zone_take_free(z, idx, 0) < 0)
		return PS_NIL;
	ps_zone_mark(z, idx, 0, PG_ALLOC, ps_pageblock_mt(z, idx));
	return idx;
}

void ps_isolated_push(struct ps_mm *mm, int zi, uint32_t idx)
{
	struct ps_isolated *iso = &mm->iso;
	uint32_t e = iso->free;

	iso->free = iso->pool[e].next;
	iso->pool[e].idx = idx;
	iso->pool[e].next = iso->top[zi];
	iso->top[zi] = e;
}

uint32_t ps_isolated_pop(struct ps_mm *mm, int zi)
{
	struct ps_isolated *iso = &mm->iso;
	uint32_t e = iso->top[zi];

	if (e == PS_NIL)
		return PS_NIL;
	iso->top[zi] = iso->pool[e].next;
	iso->pool[e].next = iso->free;
	iso->free = e;
	return iso->pool[e].idx;
}

void ps_compaction_migrate(struct ps_mm *mm, struct ps_zone *z)
{
	uint32_t idx = mm->iso.free == PS_NIL ? PS_NIL : ps_isolate_free_page(z);

	if (idx == PS_NIL) {
		mm->mig_failed++;
		return;
	}
	ps_isolated_push(mm, z->index, idx);
	mm->mig_taken++;
}
