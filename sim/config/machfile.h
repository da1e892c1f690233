/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * machfile.h - machine files (configs/machines/NAME.machine): a machine's
 * layout in `key = value` lines, loaded into struct ps_machine the way
 * trace/sysroot.c fills it from a real /proc/zoneinfo.  The format, its
 * keys and the rules that derive what a file leaves out (zones from
 * memory_mb, managed pages, watermarks, lowmem_reserve, per-CPU list
 * sizes) are documented in docs/configs.md.
 *
 * What it simplifies: x86-64 only (4 KiB pages, zones DMA, DMA32, Normal,
 * Movable); zones derived from memory_mb follow a fixed layout (the first
 * node with memory holds DMA and DMA32 with a 3-4 GiB PCI hole, the later
 * ones Normal only, one after the other); managed pages are present pages
 * less a memmap and boot-reserve estimate; per-CPU list sizes are the
 * boot values (6.7+ auto-tuning starts from them).
 */
#ifndef PS_MACHFILE_H
#define PS_MACHFILE_H

#include <stdint.h>

#include "lib/error.h"
#include "lib/machine.h"

/*
 * Loads machine file @path into @m (initialised here).  Returns 0, or -1
 * with @err naming the file, the line and the key at fault (unknown or
 * duplicate key, bad or out-of-range value, inconsistent machine).
 * m->source points to a copy of @path that lives as long as the program.
 */
int ps_machine_load(const char *path, struct ps_machine *m, struct ps_error *err);

/* The same over text already read; @name is the file name for messages and m->source. */
int ps_machine_parse(const char *text, const char *name, struct ps_machine *m,
		     struct ps_error *err);

/*
 * zone_batchsize() of kernel @kver (PS_KVER_UNKNOWN: the newest rules) for a
 * zone of @managed 4 KiB pages: min(managed / 1024, CAP / 4 KiB) / 4, at
 * least 1, then rounddown_pow_of_two(b + b / 2) - 1; CAP is 512 KiB up to
 * 4.18 and 1 MiB from 4.19.  May be 0 (a zone under 4 MiB).
 */
int ps_pcp_zone_batchsize(int kver, uint64_t managed);

/*
 * The per-CPU list high and batch a kernel @kver sets for a zone when
 * vm.percpu_pagelist_(high_)fraction is 0: batch = max(1, zone_batchsize);
 * high = 6 * zone_batchsize up to 5.13; from 5.14 (zone_highsize)
 * max(@low_wmark / CPUs, 4 * batch), CPUs being @node_cpus (the CPUs of the
 * zone's node) or @nr_cpus when the node has none.  From 6.7 that is
 * high_min, the value pcp->high starts at.
 */
void ps_pcp_zone_default(int kver, uint64_t managed, long low_wmark, int node_cpus, int nr_cpus,
			 int *high, int *batch);

#endif
