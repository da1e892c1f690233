/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * page-writeback.h - page-cache and dirty pages per zone, for the dirty limits of the
 * zone walk (get_page_from_freelist's spread_dirty_pages): a __GFP_WRITE
 * request on the fast path skips a node over its dirty limit (4.8+:
 * node_dirty_ok) or a zone over its own (before: zone_dirty_ok).
 *
 * And the flusher's periodic writeback (wb_workfn's
 * wb_check_old_data_flush) that cleans them: every
 * vm.dirty_writeback_centisecs, the pages dirtied more than
 * vm.dirty_expire_centisecs ago.
 *
 * What it simplifies: a page is page cache if its allocation was (readahead
 * or __GFP_WRITE, docs/replay.md) and dirty if it was allocated with
 * __GFP_WRITE, until it is freed, reclaimed or written back.  A page's age
 * is its own (the kernel's expiry goes by the inode's dirtied_when), counted
 * in whole seconds; the periodic writeback completes at once.  Background
 * writeback (over vm.dirty_background_ratio) is not modelled: how soon it
 * brings NR_FILE_DIRTY + NR_WRITEBACK down depends on the device, which the
 * trace does not show, and until it does the pages count against the dirty
 * limit as they do here.  The dirty pages of the recorded zoneinfo count as
 * dirtied at the trace's start; what the workload's own sync or fsync
 * writes, which no event shows, stays dirty until the flusher takes it.  The page cache and dirty pages at the start of the trace come from
 * the recorded zoneinfo and stay as a constant part of each zone's count
 * (less the dirty ones, once written).
 */
#ifndef PS_DIRTY_H
#define PS_DIRTY_H

#include <stdint.h>

#include "sim/mm/buddy.h"

struct ps_dirty {
	int nr_zones;
	int per_node;			/* 4.8+: the node's limit, before: the zone's */
	long ratio, bytes;		/* vm.dirty_ratio, vm.dirty_bytes */
	/* the flusher: vm.dirty_expire_centisecs, vm.dirty_writeback_centisecs (0: no periodic flush) */
	long expire_cs, writeback_cs;
	uint64_t *file, *dirty;		/* bitmaps over the model's global page index */
	uint16_t *when;			/* per page: the second it was dirtied, from base_ns, mod 2^16 */
	uint64_t base_ns;		/* second 0: the trace's first event */
	uint64_t last_dirtied_ns;	/* the latest page dirtied */
	uint64_t next_flush;		/* when the periodic flush is due (UINT64_MAX: none) */
	struct ps_dirty_zone {
		long file, dirty;	/* NR_*_FILE, NR_FILE_DIRTY + NR_WRITEBACK */
		long reserve;		/* the zone's part of totalreserve_pages */
		long start_dirty;	/* of dirty: the recorded ones, not yet written */
		uint64_t gbase, pages;	/* the zone's global page indices */
	} *z;
	uint64_t skips;			/* zones a __GFP_WRITE request walked past */
	uint64_t dirtied, written;	/* nr_dirtied, nr_written (the flusher's writes) */
	uint64_t flushes;		/* the flusher's runs that wrote a page */
};

/*
 * Per zone of @zones, zone i's pages at global index @gbase[i]; @pages: the
 * model's global page count.  0, or -1 out of memory.
 */
int ps_dirty_init(struct ps_dirty *d, const struct ps_zone *zones, int nr_zones, const uint64_t *gbase,
		  uint64_t pages, int per_node, long ratio, long bytes);

/* The flusher's tunables. */
void ps_writeback_init(struct ps_dirty *d, long expire_cs, long writeback_cs);

/* Second 0 of the pages' ages, @start_ns (the trace's first event): the periodic flush is due one interval later. */
void ps_writeback_start(struct ps_dirty *d, uint64_t start_ns);
void ps_dirty_free(struct ps_dirty *d);

/* Page cache (and dirty) at the start: the recorded zone's counts. */
void ps_dirty_start(struct ps_dirty *d, int zi, long file, long dirty);

/*
 * A page-cache block (dirty or not) of 2^@order pages at global index @g in
 * zone @zi was allocated at @now; any block is freed.
 */
void ps_dirty_alloc(struct ps_dirty *d, uint64_t g, int zi, int order, int dirty, uint64_t now);
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

/*
 * The flusher at @now: the periodic flush if due (of the runs due by @now,
 * the last).  Returns when it is next due (UINT64_MAX: never).
 */
uint64_t ps_wb_workfn(struct ps_dirty *d, uint64_t now);

#endif
