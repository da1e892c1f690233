/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysroot.h - a machine's files laid out as on the live machine
 * (DIR/proc/zoneinfo, DIR/sys/devices/system/node/node0/cpulist, ...).
 * "/" reads the live machine.
 */
#ifndef PS_SYSROOT_H
#define PS_SYSROOT_H

#include "lib/machine.h"
#include "lib/cpulist.h"
#include "lib/error.h"
#include "lib/file.h"
#include "lib/kvfile.h"

/*
 * Fills @m from DIR: proc/zoneinfo (required: zones, pfn ranges,
 * spanned/present/managed, watermarks, pcp high/batch), proc/pagetypeinfo,
 * proc/buddyinfo, sys/devices/system/node/node*\/{cpulist,distance},
 * proc/sys/kernel/osrelease (optional); what reclaim depends on (optional):
 * node*\/vmstat (m->node[]), proc/meminfo's swap, sys/kernel/mm/lru_gen/enabled.
 * Returns 0 or -1 with @err naming the file and line.
 */
int ps_sysroot_load_machine(const char *dir, struct ps_machine *m, struct ps_error *err);

/*
 * Where sysroot files come from: a directory, or the snapshots stored in a
 * pagesim trace file.  read() returns a malloc'd NUL-terminated text for a
 * path relative to the sysroot ("proc/zoneinfo"), or NULL with @err filled.
 */
struct ps_fsrc {
	char *(*read)(void *ctx, const char *rel, size_t *len, struct ps_error *err);
	int (*exists)(void *ctx, const char *rel);	/* whether @rel is there at all */
	void *ctx;
	const char *name;	/* for messages: "sysroot DIR", "FILE (before/)" */
};

/* A source over directory @dir (ctx is the dir string). */
void ps_fsrc_dir(struct ps_fsrc *src, const char *dir);

struct ps_reader;
/* A source over the snapshots stored in a trace, under @prefix ("before" or "after"). */
void ps_fsrc_reader(struct ps_fsrc *src, struct ps_reader *r, const char *prefix, const char *name);

/*
 * A file the sysroot may lack: NULL with *@absent set when it has none;
 * NULL with @err when it has one that cannot be read (a fifo, a directory,
 * binary data), which is an error, not an absence.
 */
char *ps_fsrc_read_opt(const struct ps_fsrc *src, const char *rel, size_t *len, int *absent, struct ps_error *err);

int ps_sysroot_load_machine_src(const struct ps_fsrc *src, struct ps_machine *m, struct ps_error *err);
int ps_sysroot_load_counters_src(const struct ps_fsrc *src, struct ps_kv *kv, struct ps_error *err);

/*
 * @asrc must be a snapshot of the machine of @bsrc (@before: that machine,
 * already loaded, or NULL to load it): the same kernel, nodes and zones
 * (lib/machine.h's ps_machine_same).  -1 with @err saying what differs; 0
 * also when either has no proc/zoneinfo to compare.
 */
int ps_sysroot_same_machine(const struct ps_machine *before, const struct ps_fsrc *bsrc, const struct ps_fsrc *asrc,
			    struct ps_error *err);

/* Parsers of single files, exposed for tests and fuzzing; @name is for messages. */
int ps_parse_zoneinfo(const char *text, const char *name, struct ps_machine *m, struct ps_error *err);
int ps_parse_pagetypeinfo(const char *text, const char *name, struct ps_machine *m, struct ps_error *err);
int ps_parse_buddyinfo(const char *text, const char *name, struct ps_machine *m, struct ps_error *err);

/*
 * The kernel's counters of a sysroot: proc/vmstat as-is, plus each node's
 * numastat as "node<N>.<name>".  Missing numastat files are not an error
 * (a kernel without NUMA has none); a missing proc/vmstat is.
 */
int ps_sysroot_load_counters(const char *dir, struct ps_kv *kv, struct ps_error *err);


#endif
