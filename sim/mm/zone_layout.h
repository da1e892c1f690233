/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zone_layout.h - which fields of struct zone share a cache line: the
 * built-in 3.17 and 4.0 layouts, or `key = value` files.
 */
#ifndef PS_ZONE_LAYOUT_H
#define PS_ZONE_LAYOUT_H

#include "lib/error.h"

#define PS_CL_MAX_LINES 64	/* struct zone fits in 4 KiB */

enum ps_zone_field {
	PS_ZF_LOCK,		/* zone->lock */
	PS_ZF_FREE_LIST,	/* free_area[order].free_list[mt] (the list head) */
	PS_ZF_NR_FREE,		/* free_area[order].nr_free */
	PS_ZF_FLAGS,		/* zone->flags */
	PS_ZF_WATERMARK,	/* _watermark[], lowmem_reserve[] (read-mostly) */
	PS_ZF_VM_STAT,		/* vm_stat[NR_FREE_PAGES] */
};

/* Byte offsets in struct zone (x86-64); plain data. */
struct ps_zone_layout {
	char name[64];
	int line_size;		/* 64 */
	int lock_offset, lock_size;
	int free_area_offset;	/* free_area[0] */
	int nr_mt;		/* list heads per free_area (MIGRATE_TYPES) */
	int watermark_offset, flags_offset, vm_stat_offset;
};

/* The built-in layout @name ("3.17", "4.0"); -1 if there is none. */
int ps_zone_layout_builtin(struct ps_zone_layout *l, const char *name);

/*
 * One key of a layout (`base` = a built-in name to start from, line_size,
 * lock.offset, lock.size, free_area.offset, free_area.nr_mt,
 * watermark.offset, flags.offset, vm_stat.offset).  @where names the place
 * for messages.  Returns 0, 1 if @key is not a layout key, -1 on a bad value.
 */
int ps_zone_layout_set(struct ps_zone_layout *l, const char *key, const char *value, const char *where,
		       struct ps_error *err);

/* A layout file: `key = value` lines, '#' comments (starts from the 4.0 layout). */
int ps_zone_layout_load(struct ps_zone_layout *l, const char *path, struct ps_error *err);

/* Checks that every field lies in PS_CL_MAX_LINES lines and nothing overlaps the lock. */
int ps_zone_layout_check(const struct ps_zone_layout *l, struct ps_error *err);

/* The cache line (0..PS_CL_MAX_LINES-1) holding the first byte of a field. */
int ps_zone_layout_line(const struct ps_zone_layout *l, int field, int order, int mt);

#endif
