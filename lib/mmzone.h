/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mmzone.h - the counts of include/linux/mmzone.h that every part of
 * pagesim sizes its arrays by: buddy orders and migratetypes.  Defined here
 * once, with the kernel's names.
 *
 * They are fixed, not read per trace: every x86-64 kernel pagesim reads has
 * orders 0..10, whatever the name (MAX_ORDER 11, a count, before v6.4;
 * MAX_ORDER 10 in v6.4 to v6.7; MAX_PAGE_ORDER 10 since v6.8), and the
 * v4.4+ migratetype numbering below.  Readers refuse an order above PS_MAX_PAGE_ORDER as a
 * bad field rather than count 2^order pages of nothing.
 */
#ifndef PAGESIM_LIB_MMZONE_H
#define PAGESIM_LIB_MMZONE_H

#define PS_MAX_PAGE_ORDER 10				/* MAX_PAGE_ORDER */
#define PS_NR_PAGE_ORDERS (PS_MAX_PAGE_ORDER + 1)	/* NR_PAGE_ORDERS */

/* Migratetypes in the v4.4..v6.18 numbering. */
enum ps_migratetype {
	PS_MT_UNMOVABLE = 0,
	PS_MT_MOVABLE = 1,
	PS_MT_RECLAIMABLE = 2,
	PS_MT_HIGHATOMIC = 3,	/* MIGRATE_PCPTYPES */
	PS_MT_CMA = 4,
	PS_MT_ISOLATE = 5,
	PS_MT_RESERVE = 6,	/* v4.0-4.3 only (MIGRATE_RESERVE) */
	PS_MIGRATETYPE_NAMES = 7,	/* the numbers with a name, RESERVE included */
	PS_MT_UNKNOWN = -1
};

#define PS_MIGRATE_PCPTYPES 3	/* MIGRATE_PCPTYPES: the types with pcp lists */
/*
 * MIGRATE_TYPES with CONFIG_CMA and CONFIG_MEMORY_ISOLATION: the free lists
 * of a free_area and the columns of pagetypeinfo pagesim keeps.
 */
#define PS_MIGRATE_TYPES 6

#endif
