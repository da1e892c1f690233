/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * machine.h - a machine's layout as plain data: nodes, their zones and pfn
 * ranges, CPUs per node, node distances, page size and pageblock order, and
 * the kernel release.  Filled from a sysroot (trace/sysroot.c), a machine
 * file, or a pagesim trace file; read by the counters and the model.
 */
#ifndef PS_MACHINE_H
#define PS_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/mmzone.h"

#define PS_MAX_NODES 64
#define PS_MAX_CPUS 1024
#define PS_MAX_ZONES 256
#define PS_MAX_PCP_SEED 4096
#define PS_MACHINE_WARNINGS 8

enum ps_zone_type {
	PS_ZONE_DMA,
	PS_ZONE_DMA32,
	PS_ZONE_NORMAL,
	PS_ZONE_HIGHMEM,
	PS_ZONE_MOVABLE,
	PS_ZONE_DEVICE,
	PS_ZONE_NR
};

extern const char *const ps_zone_names[PS_ZONE_NR];

struct ps_zone_desc {
	int node;
	int type;			/* enum ps_zone_type */
	uint64_t start_pfn;
	uint64_t spanned, present, managed;
	uint64_t free_pages;		/* "pages free" */
	long wmark_min, wmark_low, wmark_high, wmark_boost;
	long protection[PS_ZONE_NR];	/* as printed: by the kernel's zone index */
	int nr_protection;
	long lowmem_reserve[PS_ZONE_NR];	/* the same, by enum ps_zone_type of the class zone */
	int pcp_high, pcp_batch;	/* of the first CPU listed */
	int pcp_high_min, pcp_high_max;	/* 6.7+ auto-tuning bounds; 0 before */
	long nr_file, nr_dirty;		/* nr_zone_{in,}active_file, nr_zone_write_pending */
	long nr_mapped;			/* the node's nr_mapped (per-node stats, in its first zone) */
	/* pagetypeinfo: free blocks per order and migratetype; blocks per type */
	uint64_t nr_free[PS_NR_PAGE_ORDERS][PS_MIGRATE_TYPES];
	uint64_t nr_blocks[PS_MIGRATE_TYPES];
	int have_pagetypeinfo;
	/* buddyinfo: free blocks per order */
	uint64_t buddy[PS_NR_PAGE_ORDERS];
	int have_buddyinfo;
};

/*
 * What reclaim depends on, per node, from the snapshot's nodeN/vmstat
 * (pages; -1 where the snapshot does not say).
 */
struct ps_node_desc {
	long nr_inactive_anon, nr_active_anon, nr_inactive_file, nr_active_file, nr_unevictable;
	long nr_file_pages, nr_mapped, nr_dirty, nr_writeback, nr_shmem;
	long nr_slab_reclaimable;	/* pages (nr_slab_reclaimable_b in 5.9+ is bytes: converted) */
};

struct ps_machine {
	char release[128];		/* "6.1.0-57-amd64", "" when unknown */
	int kver;			/* PS_KVER, 0 when unknown */
	int page_shift;			/* 12 */
	int pageblock_order;		/* 9 on x86-64 with hugetlb */
	int nr_nodes;			/* highest node id + 1 */
	uint64_t node_online;		/* bitmap of nodes that exist */
	int distance[PS_MAX_NODES][PS_MAX_NODES];
	int nr_cpus;			/* highest CPU id + 1 */
	int16_t cpu_node[PS_MAX_CPUS];	/* -1 when unknown */
	int nr_zones;			/* populated zones (spanned > 0), sorted by start_pfn */
	struct ps_zone_desc zones[PS_MAX_ZONES];
	/*
	 * zoneinfo's per-CPU list counts (pages on the pcp lists of a zone of
	 * a CPU when it was read) with that CPU's high (6.7+ tunes it per
	 * CPU; -1 if not printed), non-zero counts only, the first
	 * PS_MAX_PCP_SEED
	 */
	int nr_pcp_seed, pcp_seed_dropped;
	struct ps_pcp_seed {
		int8_t node, type;
		int16_t cpu;
		int32_t count, high;
	} pcp_seed[PS_MAX_PCP_SEED];
	const char *source;		/* where it came from, for messages */
	int assumed;			/* layout assumed, not read */
	struct ps_node_desc node[PS_MAX_NODES];
	long swap_total_kb, swap_free_kb;	/* /proc/meminfo SwapTotal, SwapFree; -1 unknown */
	int lru_gen_enabled;		/* /sys/kernel/mm/lru_gen/enabled as a number; -1 unknown (or no MGLRU) */
	/*
	 * What the reader found odd but the kernel itself can produce (an
	 * asymmetric distance table, watermarks above a zone's pages), for the
	 * caller to print; the first PS_MACHINE_WARNINGS.
	 */
	int nr_warnings;
	char warnings[PS_MACHINE_WARNINGS][256];
};

/* Empty machine: no zones, no CPUs; page_shift 12, pageblock_order 9. */
void ps_machine_init(struct ps_machine *m);

/*
 * A stand-in when no layout is given: one node, x86-64 zone boundaries
 * (DMA below 16 MiB, DMA32 below 4 GiB, Normal above), CPUs on node 0.
 */
void ps_machine_assume_x86_64(struct ps_machine *m, int nr_cpus);

/*
 * Ends an assumed layout at @end_pfn (exclusive), rounded up to a
 * pageblock: zones wholly above it are dropped, the last one shortened.
 * For a replay that only needs the trace's pfns told apart.
 */
void ps_machine_assume_end(struct ps_machine *m, uint64_t end_pfn);

/* Index of the zone holding @pfn, or -1 (outside every zone's span). */
int ps_machine_zone_of(const struct ps_machine *m, uint64_t pfn);

/* Index of node @node's zone of type @type (PS_ZONE_*), or -1 (none). */
int ps_machine_zone_index(const struct ps_machine *m, int node, int type);

/*
 * pfn -> zone index in one load: the machine's pfn range cut into at most
 * PS_ZONE_TABLE chunks; a chunk no zone starts or ends inside (and that no
 * two zones' spans share) holds its zone's index (-1: no zone), the others
 * -2, and then ps_machine_zone_of() decides.  Made from a machine that does
 * not change afterwards.
 */
#define PS_ZONE_TABLE 1024

struct ps_zone_table {
	const struct ps_machine *m;
	int shift;
	uint32_t len;
	int16_t zt[PS_ZONE_TABLE];
};

void ps_zone_table_init(struct ps_zone_table *t, const struct ps_machine *m);

static inline int ps_zone_table_lookup(const struct ps_zone_table *t, uint64_t pfn)
{
	uint64_t c = pfn >> t->shift;

	if (__builtin_expect(c < t->len && t->zt[c] != -2, 1))
		return t->zt[c];
	return ps_machine_zone_of(t->m, pfn);
}

/*
 * The pfns [*@base, *@end) of @d's span widened to whole MAX_ORDER blocks:
 * what a model zone (and the traced address space) holds of it.
 */
static inline void ps_zone_desc_blocks(const struct ps_zone_desc *d, uint64_t *base, uint64_t *end)
{
	const uint64_t align = 1ull << PS_MAX_PAGE_ORDER;

	*base = d->start_pfn & ~(align - 1);
	*end = (d->start_pfn + d->spanned + align - 1) & ~(align - 1);
}

/* Node of @cpu, or -1. */
static inline int ps_machine_cpu_node(const struct ps_machine *m, int cpu)
{
	return cpu >= 0 && cpu < m->nr_cpus ? m->cpu_node[cpu] : -1;
}

/* How many of the machine's CPUs @node has. */
static inline int ps_machine_node_cpus(const struct ps_machine *m, int node)
{
	int n = 0;

	for (int c = 0; c < m->nr_cpus && c < PS_MAX_CPUS; c++)
		n += m->cpu_node[c] == node;
	return n;
}

/* Adds a warning to @m (printf format); past PS_MACHINE_WARNINGS they are dropped. */
void ps_machine_warn(struct ps_machine *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Whether @a and @b describe one machine (one boot): the same kernel
 * release where both name one, nodes, and zones at the same pfns.  If not,
 * @msg says what @b has instead.  Managed pages and CPUs may differ
 * (ballooning, hotplug).
 */
int ps_machine_same(const struct ps_machine *a, const struct ps_machine *b, char *msg, size_t len);

/* Sorts zones by start_pfn; call after adding zones. */
void ps_machine_finish(struct ps_machine *m);

#endif
