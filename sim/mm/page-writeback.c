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
 *
 * The flusher's periodic writeback (fs/fs-writeback.c's wb_workfn and
 * wb_check_old_data_flush): see page-writeback.h.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/mm/mm.h"
#include "sim/mm/page-writeback.h"

#define NS_PER_SEC 1000000000ull

int ps_dirty_init(struct ps_dirty *d, const struct ps_zone *zones, int nr_zones, const uint64_t *gbase,
		  uint64_t pages, int per_node, long ratio, long bytes)
{
	size_t words = (size_t)(pages / 64 + 1);

	memset(d, 0, sizeof(*d));
	d->nr_zones = nr_zones;
	d->per_node = per_node;
	d->ratio = ratio;
	d->bytes = bytes;
	d->next_flush = UINT64_MAX;
	d->file = calloc(words, sizeof(uint64_t));
	d->dirty = calloc(words, sizeof(uint64_t));
	d->when = malloc((size_t)(pages ? pages : 1) * sizeof(*d->when));
	d->z = calloc(nr_zones > 0 ? (size_t)nr_zones : 1, sizeof(*d->z));
	if (!d->file || !d->dirty || !d->when || !d->z) {
		ps_dirty_free(d);
		return -1;
	}
	for (int zi = 0; zi < nr_zones; zi++) {
		long max = 0;

		d->z[zi].gbase = gbase[zi];
		d->z[zi].pages = zones[zi].nr_pages;

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
	free(d->when);
	free(d->z);
	d->file = d->dirty = NULL;
	d->when = NULL;
	d->z = NULL;
}

void ps_writeback_init(struct ps_dirty *d, long expire_cs, long writeback_cs)
{
	d->expire_cs = expire_cs;
	d->writeback_cs = writeback_cs;
}

static inline uint64_t cs_to_ns(long cs)
{
	return (uint64_t)cs * (NS_PER_SEC / 100);
}

void ps_writeback_start(struct ps_dirty *d, uint64_t start_ns)
{
	d->base_ns = start_ns;
	d->next_flush = d->writeback_cs > 0 ? start_ns + cs_to_ns(d->writeback_cs) : UINT64_MAX;
}

/* The second of @now, from the trace's start, mod 2^16 (ages stay below 2^15 s: policy.c's range). */
static inline uint16_t second_of(const struct ps_dirty *d, uint64_t now)
{
	return (uint16_t)(now > d->base_ns ? (now - d->base_ns) / NS_PER_SEC : 0);
}

void ps_dirty_start(struct ps_dirty *d, int zi, long file, long dirty)
{
	if (zi < 0 || zi >= d->nr_zones)
		return;
	d->z[zi].file += file;
	d->z[zi].dirty += dirty;
	d->z[zi].start_dirty += dirty;
}

/* The pages of a block of 2^@order at @g within zone @zi (a trace's block may reach past its end). */
static uint64_t zone_span(const struct ps_dirty *d, uint64_t g, int zi, int order)
{
	uint64_t end, n = 1ull << (order < PS_NR_PAGE_ORDERS ? order : 0);

	if (zi < 0 || zi >= d->nr_zones || g < d->z[zi].gbase)
		return 0;
	end = d->z[zi].gbase + d->z[zi].pages;
	return g >= end ? 0 : end - g < n ? end - g : n;
}

void ps_dirty_alloc(struct ps_dirty *d, uint64_t g, int zi, int order, int dirty, uint64_t now)
{
	uint64_t n = zone_span(d, g, zi, order);
	uint16_t sec = second_of(d, now);

	if (!d->file || !n)
		return;
	for (uint64_t i = g; i < g + n; i++) {
		d->file[i / 64] |= 1ull << (i % 64);
		if (dirty) {
			d->dirty[i / 64] |= 1ull << (i % 64);
			d->when[i] = sec;
		}
	}
	d->z[zi].file += (long)n;
	if (dirty) {
		d->z[zi].dirty += (long)n;
		d->dirtied += n;
		d->last_dirtied_ns = now;
	}
}

void ps_dirty_release(struct ps_dirty *d, uint64_t g, int zi, int order)
{
	uint64_t n = zone_span(d, g, zi, order);

	if (!d->file || !n)
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

/* Writes the recorded dirty pages of every zone back; returns how many. */
static long write_start_dirty(struct ps_dirty *d)
{
	long done = 0;

	for (int zi = 0; zi < d->nr_zones; zi++) {
		d->z[zi].dirty -= d->z[zi].start_dirty;
		done += d->z[zi].start_dirty;
		d->z[zi].start_dirty = 0;
	}
	d->written += (uint64_t)done;
	return done;
}

/* Writes back the pages dirtied @min_age seconds or more before @now_s, zone by zone; returns how many. */
static long write_old(struct ps_dirty *d, uint16_t now_s, long min_age)
{
	long done = 0;

	for (int zi = 0; zi < d->nr_zones; zi++) {
		uint64_t g = d->z[zi].gbase, end = g + d->z[zi].pages;

		while (g < end) {
			uint64_t w = d->dirty[g / 64] >> (g % 64);
			int span = (int)(64 - g % 64);

			if (end - g < (uint64_t)span) {
				span = (int)(end - g);
				w &= (1ull << span) - 1;
			}
			while (w) {
				int b = __builtin_ctzll(w);
				uint64_t i = g + (uint64_t)b;

				w &= w - 1;
				if ((uint16_t)(now_s - d->when[i]) >= min_age) {
					d->dirty[i / 64] &= ~(1ull << (i % 64));
					d->z[zi].dirty--;
					done++;
				}
			}
			g += (uint64_t)span;
		}
	}
	d->written += (uint64_t)done;
	return done;
}

uint64_t ps_wb_workfn(struct ps_dirty *d, uint64_t now)
{
	uint64_t iv = cs_to_ns(d->writeback_cs), expire = cs_to_ns(d->expire_cs);
	long n = 0;

	if (!d->z || now < d->next_flush)
		return d->z ? d->next_flush : UINT64_MAX;
	/*
	 * The runs due up to @now, as one: the last of them writes what all
	 * would have (a gap in the trace of any length costs one run)
	 */
	if (iv && now - d->next_flush >= iv)
		now = d->next_flush + (now - d->next_flush) / iv * iv;
	if (now - d->base_ns >= expire)
		n += write_start_dirty(d);
	/* every page expired (and ages past 2^16 s, which second_of() folds, with them) */
	n += write_old(d, second_of(d, now),
			 now >= d->last_dirtied_ns && now - d->last_dirtied_ns >= expire ? 0 : d->expire_cs / 100);
	d->flushes += n > 0;
	d->next_flush = iv && now <= UINT64_MAX - iv ? now + iv : UINT64_MAX;
	return d->next_flush;
}

void ps_mm_writeback_start(struct ps_mm *mm, uint64_t start_ns)
{
	if (!mm->dirty.z)
		return;
	ps_writeback_start(&mm->dirty, start_ns);
	if (mm->dirty.next_flush != UINT64_MAX)
		mm->ops.arm(mm->ops.ctx, PS_MM_TIMER_WRITEBACK, 0, mm->dirty.next_flush);
}

void ps_mm_writeback(struct ps_mm *mm, uint64_t now)
{
	uint64_t next = ps_wb_workfn(&mm->dirty, now);

	mm->ops.arm(mm->ops.ctx, PS_MM_TIMER_WRITEBACK, 0, next == UINT64_MAX ? PS_MM_NEVER : next);
}
