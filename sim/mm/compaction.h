/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compaction.h - free pages taken off the free lists with no event, as
 * compaction's free scanner isolates them (isolate_freepages), and held
 * until given back: migration targets, and the engine's untraced use.
 */
#ifndef PS_COMPACTION_H
#define PS_COMPACTION_H

#include <stdint.h>

#include "sim/mm/mm.h"

/* Room for @cap pages held at once; 0, or -1 with a message in @err. */
int ps_isolated_init(struct ps_mm *mm, uint64_t cap, char *err, int len);

/*
 * One free page of @z taken with no event, as compaction's free scanner
 * does: from the smallest free block, movable ones first, no fallback.
 * PS_NIL if the zone has nothing free.
 */
uint32_t ps_isolate_free_page(struct ps_zone *z);

/* Holds page @idx of zone @zi (the pool has room: ps_isolated_init). */
void ps_isolated_push(struct ps_mm *mm, int zi, uint32_t idx);

/* The page of zone @zi held last, no longer held; PS_NIL if none is. */
uint32_t ps_isolated_pop(struct ps_mm *mm, int zi);

/* Whether zone @zi holds a page. */
static inline int ps_isolated_holds(const struct ps_mm *mm, int zi)
{
	return mm->iso.top[zi] != PS_NIL;
}

/*
 * kcompactd moved a page of @z: its data went to a free page of the same
 * zone the free scanner isolated, held until the trace frees a page it
 * never showed taken.
 */
void ps_compaction_migrate(struct ps_mm *mm, struct ps_zone *z);

#endif
