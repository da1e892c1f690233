// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * page-writeback.c - page-cache and dirty pages per zone, and the dirty limits of the
 * zone walk (page-writeback.h has what this simplifies).
 *
 * The limit (mm/page-writeback.c): dirtyable memory is the free pages less
 * the reserve (per zone: high watermark plus its largest lowmem_reserve, at
 * most the managed pages; totalreserve_pages summed over a node) plus the
 * page cache; the limit is vm.dirty_ratio percent of it, or with
 * vm.dirty_bytes set, that many pages shared in proportion to the node's
 * part of the machine's dirtyable memory.  A node (zone) is within its limit
 * while its dirty pages do not exceed it.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/mm/page-writeback.h"

int ps_dirty_init(struct ps_dirty *d, const struct ps_zone *zones, int nr_zones, uint64_t pages,
		  int per_node, long ratio, long bytes)
{
	size_t words = (size_t)(pages / 64 + 1);

	memset(d, 0, sizeof(*d));
	d->nr_zones = nr_zones;
	d->per_node = per_node;
	d->ratio = ratio;
	d->bytes = bytes;
	d->file = calloc(words, sizeof(uint64_t));
	d->dirty = calloc(words, sizeof(uint64_t));
	d->z = calloc(nr_zones > 0 ? (size_t)nr_zones : 1, sizeof(*d->z));
	if (!d->file || !d->dirty || !d->z) {
		ps_dirty_free(d);
		return -1;
	}
	for (int zi = 0; zi < nr_zones; zi++) {
		long max = 0;

		for (int t = 0; t < PS_ZONE_NR; t++)
			if (zones[zi].lowmem_reserve[t] > max)
				max = zones[zi].lowmem_reserve[t];
		max += zones[zi].wmark_high;
		if (max > (long)zones[zi].managed)
			max = (long)zones[zi].managed;
		d->z[zi].reserve = max;
	}
	return 0;
}

void ps_dirty_free(struct ps_dirty *d)
{
	free(d->file);
	free(d->dirty);
	free(d->z);
	d->file = d->dirty = NULL;
	d->z = NULL;
}

void ps_dirty_start(struct ps_dirty *d, int zi, long file, long dirty)
{
	if (zi < 0 || zi >= d->nr_zones)
		return;
	d->z[zi].file += file;
	d->z[zi].dirty += dirty;
}

void ps_dirty_alloc(struct ps_dirty *d, uint64_t g, int zi, int order, int dirty)
{
	uint64_t n = 1ull << order;

	if (!d->file)
		return;
	for (uint64_t i = g; i < g + n; i++) {
		d->file[i / 64] |= 1ull << (i % 64);
		if (dirty)
			d->dirty[i / 64] |= 1ull << (i % 64);
	}
	d->z[zi].file += (long)n;
	if (dirty)
		d->z[zi].dirty += (long)n;
}

void ps_dirty_release(struct ps_dirty *d, uint64_t g, int zi, int order)
{
	uint64_t n = 1ull << order;

	if (!d->file)
		return;
	for (uint64_t i = g; i < g + n; i++) {
		uint64_t bit = 1ull << (i % 64);

		if (!(d->file[i / 64] & bit))
			continue;
		d->file[i / 64] &= ~bit;
		d->z[zi].file--;
		if (d->dirty[i / 64] & bit) {
			d->dirty[i / 64] &= ~bit;
			d->z[zi].dirty--;
		}
	}
}

void ps_dirty_node(const struct ps_dirty *d, const struct ps_zone *zones, int node, long *file, long *dirty)
{
	*file = *dirty = 0;
	for (int i = 0; d->z && i < d->nr_zones; i++)
		if (zones[i].node == node) {
			*file += d->z[i].file;
			*dirty += d->z[i].dirty;
		}
}

/* Dirtyable memory and dirty pages of zone @zi alone, or of its node (node < 0: the whole machine). */
static void sum(const struct ps_dirty *d, const struct ps_zone *zones, int zi, int node, long *dirtyable,
		long *dirty)
{
	long free = 0, reserve = 0, file = 0;

	*dirty = 0;
	for (int i = 0; i < d->nr_zones; i++) {
		if (zi >= 0 ? i != zi : (node >= 0 && zones[i].node != node))
			continue;
		free += (long)zones[i].nr_free_pages;
		reserve += d->z[i].reserve;
		file += d->z[i].file;
		*dirty += d->z[i].dirty;
	}
	free -= free < reserve ? free : reserve;
	*dirtyable = free + file;
}

int ps_dirty_ok(const struct ps_dirty *d, const struct ps_zone *zones, int zi)
{
	long dirtyable, dirty, limit;

	if (!d->z || zi < 0 || zi >= d->nr_zones)
		return 1;
	sum(d, zones, d->per_node ? -1 : zi, zones[zi].node, &dirtyable, &dirty);
	if (d->bytes > 0) {
		long global, gdirty;

		sum(d, zones, -1, -1, &global, &gdirty);
		limit = global > 0 ? (long)((d->bytes + 4095) / 4096 * (double)dirtyable / (double)global) : 0;
	} else {
		limit = d->ratio * dirtyable / 100;
	}

	return dirty <= limit;
}
