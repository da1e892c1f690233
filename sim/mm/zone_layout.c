// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zone_layout.c - where the fields the zone lock's users touch lie in
 * struct zone, and so which of them share a cache line.
 *
 * Models x86-64 with CONFIG_NUMA, CMA and MEMORY_ISOLATION and no lock
 * debugging: the built-in 3.17 and 4.0 layouts, or any layout given as
 * `key = value` lines.  Simplifies: only the offsets of zone->lock,
 * free_area[] (list heads and nr_free), flags, the watermark head and
 * vm_stat[] are kept, and a field counts on the line of its first byte.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mm/zone_layout.h"
#include "lib/event.h"
#include "lib/file.h"
#include "lib/machine.h"
#include "lib/strtrim.h"


#define FREE_AREA_NR_ORDERS PS_NR_PAGE_ORDERS
#define LIST_HEAD_SIZE 16

static int free_area_size(const struct ps_zone_layout *l)
{
	return l->nr_mt * LIST_HEAD_SIZE + 8;
}

/*
 * x86-64 with CONFIG_NUMA, CMA, MEMORY_ISOLATION (MIGRATE_TYPES = 6, so a
 * free_area is 6 x 16 + 8 = 104 bytes) and no lock debugging.  The
 * read-mostly head (watermark[], lowmem_reserve[], node, zone_pgdat,
 * pageset, spans, name, wait_table...) fills three lines, so the
 * cache-aligned allocator section starts at 192.  3.17 (3484b2de9499): lock,
 * free_area[], flags.  4.0 (a368ab67aa55): free_area[], flags, lock.  The
 * reclaim section follows; vm_stat[] starts the last aligned section.  Only
 * which fields share a line matters to the model, not the exact offsets.
 */
int ps_zone_layout_builtin(struct ps_zone_layout *l, const char *name)
{
	memset(l, 0, sizeof(*l));
	l->line_size = 64;
	l->lock_size = 4;
	l->nr_mt = 6;
	l->watermark_offset = 0;
	l->vm_stat_offset = 1664;
	if (!strcmp(name, "3.17")) {
		l->lock_offset = 192;
		l->free_area_offset = 200;
		l->flags_offset = 200 + FREE_AREA_NR_ORDERS * 104;
	} else if (!strcmp(name, "4.0")) {
		l->free_area_offset = 192;
		l->flags_offset = 192 + FREE_AREA_NR_ORDERS * 104;
		l->lock_offset = l->flags_offset + 8;
	} else {
		return -1;
	}
	snprintf(l->name, sizeof(l->name), "%s", name);
	return 0;
}

int ps_zone_layout_set(struct ps_zone_layout *l, const char *key, const char *value, const char *where,
		       struct ps_error *err)
{
	static const struct {
		const char *key;
		size_t off;
		long min, max;
	} keys[] = {
		{ "line_size", offsetof(struct ps_zone_layout, line_size), 16, 4096 },
		{ "lock.offset", offsetof(struct ps_zone_layout, lock_offset), 0, 65535 },
		{ "lock.size", offsetof(struct ps_zone_layout, lock_size), 1, 64 },
		{ "free_area.offset", offsetof(struct ps_zone_layout, free_area_offset), 0, 65535 },
		{ "free_area.nr_mt", offsetof(struct ps_zone_layout, nr_mt), 3, 8 },
		{ "watermark.offset", offsetof(struct ps_zone_layout, watermark_offset), 0, 65535 },
		{ "flags.offset", offsetof(struct ps_zone_layout, flags_offset), 0, 65535 },
		{ "vm_stat.offset", offsetof(struct ps_zone_layout, vm_stat_offset), 0, 65535 },
	};
	char *end;
	long v;

	if (!strcmp(key, "base")) {
		char name[64];

		snprintf(name, sizeof(name), "%s", l->name);
		if (ps_zone_layout_builtin(l, value) < 0) {
			ps_zone_layout_builtin(l, name[0] ? name : "4.0");
			return ps_err(err, "%s: no built-in layout '%s' (use 3.17 or 4.0)", where, value);
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(key, keys[i].key))
			continue;
		v = strtol(value, &end, 0);
		if (end == value || *end || v < keys[i].min || v > keys[i].max)
			return ps_err(err, "%s: %s must be an integer in %ld..%ld, not '%s'", where, key, keys[i].min,
				      keys[i].max, value);
		*(int *)((char *)l + keys[i].off) = (int)v;
		if (!strstr(l->name, "(modified)") && strlen(l->name) < sizeof(l->name) - 12)
			strcat(l->name, l->name[0] ? " (modified)" : "file");
		return 0;
	}
	return 1;
}

int ps_zone_layout_load(struct ps_zone_layout *l, const char *path, struct ps_error *err)
{
	char *text = ps_read_file(path, NULL, err), *line, *next, where[600], *eq, *k, *v;
	int n = 0, r;

	if (!text)
		return -1;
	ps_zone_layout_builtin(l, "4.0");
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? (*next = 0, next + 1) : line + strlen(line);
		n++;
		snprintf(where, sizeof(where), "%s:%d", path, n);
		if (strlen(line) > 510) {
			free(text);
			return ps_err(err, "%s: line too long (at most %d characters)", where, 510);
		}
		k = ps_trim(line);
		if (!*k || *k == '#')
			continue;
		eq = strchr(k, '=');
		if (!eq) {
			free(text);
			return ps_err(err, "%s: expected 'key = value'", where);
		}
		*eq = 0;
		v = ps_trim(eq + 1);
		k = ps_trim(k);
		r = ps_zone_layout_set(l, k, v, where, err);
		if (r) {
			if (r > 0)
				ps_err(err, "%s: unknown layout key '%s' (docs/lock-model.md lists them)", where, k);
			free(text);
			return -1;
		}
	}
	free(text);
	snprintf(l->name, sizeof(l->name), "%.40s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	return ps_zone_layout_check(l, err) < 0 ? ps_err(err, "%s: %s", path, err->msg) : 0;
}

static int overlaps(int a, int alen, int b, int blen)
{
	return a < b + blen && b < a + alen;
}

int ps_zone_layout_check(const struct ps_zone_layout *l, struct ps_error *err)
{
	int fa_len = FREE_AREA_NR_ORDERS * free_area_size(l), limit = PS_CL_MAX_LINES * l->line_size;
	struct {
		const char *name;
		int off, len;
	} f[] = {
		{ "lock", l->lock_offset, l->lock_size },
		{ "free_area", l->free_area_offset, fa_len },
		{ "flags", l->flags_offset, 8 },
		{ "watermark", l->watermark_offset, 56 },
		{ "vm_stat", l->vm_stat_offset, 8 },
	};
	int n = sizeof(f) / sizeof(f[0]);

	for (int i = 0; i < n; i++) {
		if (f[i].off + f[i].len > limit)
			return ps_err(err, "%s (offset %d, %d bytes) lies beyond %d lines of %d bytes", f[i].name,
				      f[i].off, f[i].len, PS_CL_MAX_LINES, l->line_size);
		for (int j = 0; j < i; j++)
			if (overlaps(f[i].off, f[i].len, f[j].off, f[j].len))
				return ps_err(err, "%s (offset %d, %d bytes) overlaps %s (offset %d, %d bytes)",
					      f[i].name, f[i].off, f[i].len, f[j].name, f[j].off, f[j].len);
	}
	return 0;
}

int ps_zone_layout_line(const struct ps_zone_layout *l, int field, int order, int mt)
{
	int off = 0;

	if (mt < 0 || mt >= l->nr_mt)
		mt = PS_MT_MOVABLE;
	if (order < 0 || order >= FREE_AREA_NR_ORDERS)
		order = 0;
	switch (field) {
	case PS_ZF_LOCK: off = l->lock_offset; break;
	case PS_ZF_FREE_LIST: off = l->free_area_offset + order * free_area_size(l) + mt * LIST_HEAD_SIZE; break;
	case PS_ZF_NR_FREE: off = l->free_area_offset + order * free_area_size(l) + l->nr_mt * LIST_HEAD_SIZE; break;
	case PS_ZF_FLAGS: off = l->flags_offset; break;
	case PS_ZF_WATERMARK: off = l->watermark_offset; break;
	case PS_ZF_VM_STAT: off = l->vm_stat_offset; break;
	}
	off /= l->line_size;
	return off < PS_CL_MAX_LINES ? off : PS_CL_MAX_LINES - 1;
}
