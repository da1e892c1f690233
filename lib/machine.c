// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/machine.h"

const char *const ps_zone_names[PS_ZONE_NR] = {
	[PS_ZONE_DMA] = "DMA",
	[PS_ZONE_DMA32] = "DMA32",
	[PS_ZONE_NORMAL] = "Normal",
	[PS_ZONE_HIGHMEM] = "HighMem",
	[PS_ZONE_MOVABLE] = "Movable",
	[PS_ZONE_DEVICE] = "Device",
};

void ps_machine_init(struct ps_machine *m)
{
	memset(m, 0, sizeof(*m));
	m->page_shift = 12;
	m->pageblock_order = 9;
	for (int i = 0; i < PS_MAX_CPUS; i++)
		m->cpu_node[i] = -1;
	memset(m->node, 0xff, sizeof(m->node));	/* every count -1: unknown */
	m->swap_total_kb = m->swap_free_kb = -1;
	m->lru_gen_enabled = -1;
}

void ps_machine_assume_x86_64(struct ps_machine *m, int nr_cpus)
{
	static const struct {
		int type;
		uint64_t start, end;
	} z[] = {
		{ PS_ZONE_DMA, 0, 1ull << 12 },
		{ PS_ZONE_DMA32, 1ull << 12, 1ull << 20 },
		{ PS_ZONE_NORMAL, 1ull << 20, 1ull << 40 },
	};

	ps_machine_init(m);
	m->nr_nodes = 1;
	m->node_online = 1;
	m->distance[0][0] = 10;
	m->nr_cpus = nr_cpus > 0 ? nr_cpus : 1;
	if (m->nr_cpus > PS_MAX_CPUS)
		m->nr_cpus = PS_MAX_CPUS;
	for (int i = 0; i < m->nr_cpus; i++)
		m->cpu_node[i] = 0;
	for (int i = 0; i < 3; i++) {
		struct ps_zone_desc *d = &m->zones[m->nr_zones++];

		d->node = 0;
		d->type = z[i].type;
		d->start_pfn = z[i].start;
		d->spanned = d->present = z[i].end - z[i].start;
	}
	m->source = "assumed x86-64 single-node layout";
	m->assumed = 1;
}

void ps_machine_assume_end(struct ps_machine *m, uint64_t end_pfn)
{
	uint64_t pb = 1ull << m->pageblock_order;
	int n = 0;

	end_pfn = (end_pfn + pb - 1) & ~(pb - 1);
	for (int i = 0; i < m->nr_zones; i++) {
		struct ps_zone_desc *d = &m->zones[i];

		if (d->start_pfn >= end_pfn)
			continue;
		if (d->start_pfn + d->spanned > end_pfn)
			d->spanned = d->present = end_pfn - d->start_pfn;
		m->zones[n++] = *d;
	}
	m->nr_zones = n;
}

void ps_machine_warn(struct ps_machine *m, const char *fmt, ...)
{
	va_list ap;

	if (m->nr_warnings >= PS_MACHINE_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(m->warnings[m->nr_warnings++], sizeof(m->warnings[0]), fmt, ap);
	va_end(ap);
}

static int zone_cmp(const void *a, const void *b)
{
	const struct ps_zone_desc *x = a, *y = b;

	if (x->start_pfn != y->start_pfn)
		return x->start_pfn < y->start_pfn ? -1 : 1;
	return x->node - y->node;
}

void ps_machine_finish(struct ps_machine *m)
{
	qsort(m->zones, m->nr_zones, sizeof(m->zones[0]), zone_cmp);
}

int ps_machine_zone_index(const struct ps_machine *m, int node, int type)
{
	for (int i = 0; i < m->nr_zones; i++)
		if (m->zones[i].node == node && m->zones[i].type == type)
			return i;
	return -1;
}

int ps_machine_zone_of(const struct ps_machine *m, uint64_t pfn)
{
	int lo = 0, hi = m->nr_zones - 1, found = -1;

	/* last zone whose start_pfn <= pfn */
	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (m->zones[mid].start_pfn <= pfn) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	/* spans may nest (a node's DMA32 span can cover another node's range): walk back */
	for (int i = found; i >= 0; i--) {
		const struct ps_zone_desc *z = &m->zones[i];

		if (pfn >= z->start_pfn && pfn < z->start_pfn + z->spanned)
			return i;
	}
	return -1;
}

void ps_zone_table_init(struct ps_zone_table *t, const struct ps_machine *m)
{
	uint64_t end = 0;
	int s = 0;

	t->m = m;
	for (int i = 0; i < m->nr_zones; i++)
		if (m->zones[i].start_pfn + m->zones[i].spanned > end)
			end = m->zones[i].start_pfn + m->zones[i].spanned;
	while ((end >> s) >= PS_ZONE_TABLE)
		s++;
	t->shift = s;
	t->len = (end >> s) + 1;
	for (uint32_t c = 0; c < t->len; c++)
		t->zt[c] = -1;
	/* one pass per zone: chunks it covers whole take its index, shared or cut ones -2 */
	for (int i = 0; i < m->nr_zones; i++) {
		uint64_t zs = m->zones[i].start_pfn, ze = zs + m->zones[i].spanned;

		if (ze <= zs)
			continue;
		for (uint64_t c = zs >> s; c <= (ze - 1) >> s; c++) {
			uint64_t lo = c << s, hi = lo + (1ull << s);

			if (zs > lo || ze < hi || t->zt[c] != -1)
				t->zt[c] = -2;
			else
				t->zt[c] = (int16_t)i;
		}
	}
}

int ps_machine_same(const struct ps_machine *a, const struct ps_machine *b, char *msg, size_t len)
{
	if (a->release[0] && b->release[0] && strcmp(a->release, b->release)) {
		snprintf(msg, len, "kernel %s, not %s", b->release, a->release);
		return 0;
	}
	if (a->nr_nodes != b->nr_nodes || a->nr_zones != b->nr_zones) {
		snprintf(msg, len, "%d nodes and %d zones, not %d and %d", b->nr_nodes, b->nr_zones, a->nr_nodes,
			 a->nr_zones);
		return 0;
	}
	for (int i = 0; i < a->nr_zones; i++) {
		const struct ps_zone_desc *x = &a->zones[i], *y = &b->zones[i];

		if (x->node != y->node || x->type != y->type || x->start_pfn != y->start_pfn || x->spanned != y->spanned) {
			snprintf(msg, len, "zone %s of node %d at pfn %llu-%llu, not %s of node %d at %llu-%llu",
				 ps_zone_names[y->type], y->node, (unsigned long long)y->start_pfn,
				 (unsigned long long)(y->start_pfn + y->spanned), ps_zone_names[x->type], x->node,
				 (unsigned long long)x->start_pfn, (unsigned long long)(x->start_pfn + x->spanned));
			return 0;
		}
	}
	return 1;
}
