/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * page-writeback.h - page-cache and dirty pages per zone, for the dirty limits of the
 * zone walk (get_page_from_freelist's spread_dirty_pages): a __GFP_WRITE
 * request on the fast path skips a node over its dirty limit (4.8+:
 * node_dirty_ok) or a zone over its own (before: zone_dirty_ok).
 *
 * What it simplifies: a page is page cache if its allocation was (readahead
 * or __GFP_WRITE, docs/replay.md) and dirty if it was allocated with
 * __GFP_WRITE, from then until it is freed or reclaimed; writeback never
 * cleans a page (the traces are seconds long against the 30 s of
 * vm.dirty_expire_centisecs; background writeback is not modelled).  The
 * page cache and dirty pages at the start of the trace come from the
 * recorded zoneinfo and stay as a constant part of each zone's count.
 */
#ifndef PS_DIRTY_H
#define PS_DIRTY_H

#include <stdint.h>

#include "sim/mm/buddy.h"

struct ps_dirty {
	int nr_zones;
	int per_node;			/* 4.8+: the node's limit, before: the zone's */
	long ratio, bytes;		/* vm.dirty_ratio, vm.dirty_bytes */
	uint64_t *file, *dirty;		/* bitmaps over the model's global page index */
	struct ps_dirty_zone {
		long file, dirty;	/* NR_*_FILE, NR_FILE_DIRTY + NR_WRITEBACK */
		long reserve;		/* the zone's part of totalreserve_pages */
	} *z;
	uint64_t skips;			/* zones a __GFP_WRITE request walked past */
};

/* Per zone of @zones; @pages: the model's global page count.  0, or -1 out of memory. */
int ps_dirty_init(struct ps_dirty *d, const struct ps_zone *zones, int nr_zones, uint64_t pages,
		  int per_node, long ratio, long bytes);
void ps_dirty_free(struct ps_dirty *d);

/* Page cache (and dirty) at the start: the recorded zone's counts. */
void ps_dirty_start(struct ps_dirty *d, int zi, long file, long dirty);

/* A page-cache block (dirty or not) of 2^@order pages at global index @g in zone @zi was allocated; any block is freed. */
void ps_dirty_alloc(struct ps_dirty *d, uint64_t g, int zi, int order, int dirty);
void ps_dirty_release(struct ps_dirty *d, uint64_t g, int zi, int order);

/* Whether global page @g is page cache, is dirty. */
static inline int ps_dirty_is_file(const struct ps_dirty *d, uint64_t g)
{
	return d->file && (d->file[g / 64] >> (g % 64)) & 1;
}

static inline int ps_dirty_is_dirty(const struct ps_dirty *d, uint64_t g)
{
	return d->dirty && (d->dirty[g / 64] >> (g % 64)) & 1;
}

/* Page cache and dirty pages of @node's zones. */
void ps_dirty_node(const struct ps_dirty *d, const struct ps_zone *zones, int node, long *file, long *dirty);

/* Whether zone @zi may take a dirty page: its node (4.8+) or itself is within its limit. */
int ps_dirty_ok(const struct ps_dirty *d, const struct ps_zone *zones, int zi);

#endif
