/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kvfile.h - "name value" lines (/proc/vmstat, nodeN/numastat, pagesim's
 * own vmstat-style output) as an ordered list of named 64-bit counters.
 */
#ifndef PS_KVFILE_H
#define PS_KVFILE_H

#include <stdint.h>

#include "lib/error.h"

struct ps_kv_item {
	char name[64];
	int64_t value;
};

struct ps_kv {
	struct ps_kv_item *items;
	int nr, cap;
	int *idx;		/* open-addressed hash of names -> item index + 1 */
	int idx_cap;		/* a power of two, at least twice @cap; 0: no index */
};

void ps_kv_init(struct ps_kv *kv);
void ps_kv_free(struct ps_kv *kv);
/* Sets (or adds) @name; returns 0 or -1 on allocation failure. */
int ps_kv_set(struct ps_kv *kv, const char *name, int64_t value);
/* In a function returning int: sets @name in the ps_kv *kv in scope, or returns -1. */
#define PS_KV_SET(name, v)                                 \
	do {                                               \
		if (ps_kv_set(kv, name, (int64_t)(v)) < 0) \
			return -1;                         \
	} while (0)

/* Returns the item or NULL. */
const struct ps_kv_item *ps_kv_get(const struct ps_kv *kv, const char *name);
/* Rebuilds the name index after names were changed in place in @kv->items. */
int ps_kv_reindex(struct ps_kv *kv);

/*
 * Parses "name value" lines; '#' lines and blank lines are ignored.
 * @prefix (may be NULL) is prepended to every name.  A line that is not
 * "name integer" is an error naming @file and the line.
 */
int ps_kv_parse(struct ps_kv *kv, const char *text, const char *file, const char *prefix,
		struct ps_error *err);
int ps_kv_load(struct ps_kv *kv, const char *path, const char *prefix, struct ps_error *err);

/* Whether @name ("numa_hit", "node1.local_node") is an event counter, which the kernel only raises. */
int ps_kv_counter_rises(const char *name);

/*
 * Snapshots of one machine, @before then @after (named for messages): -1
 * with @err naming the first event counter that is lower in @after.
 */
int ps_kv_check_rises(const struct ps_kv *before, const struct ps_kv *after, const char *bname, const char *aname,
		      struct ps_error *err);

#endif
