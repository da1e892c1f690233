/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cacheline.h - the cache lines of every zone's struct zone: last writer and
 * the CPUs holding a valid copy; counts transfers.
 */
#ifndef PS_CACHELINE_H
#define PS_CACHELINE_H

#include <stdint.h>

#include "sim/mm/zone_layout.h"

#define PS_CL_NR_TAGS 8		/* transfers are counted per (zone, tag); tags are causes */

struct ps_cl;

/* Lines of @nr_zones zones for @nr_cpus CPUs; NULL on ENOMEM.  Free with ps_cl_destroy. */
struct ps_cl *ps_cl_create(int nr_zones, int nr_cpus);
void ps_cl_destroy(struct ps_cl *cl);

/*
 * One access by @cpu to @line of @zone.  A transfer is counted (against
 * @tag) when the line was last written by another CPU and @cpu holds no
 * valid copy since that write.  A write leaves the writer the only valid
 * copy; then every CPU spinning on that line (ps_cl_spin_begin) other than
 * the writer re-reads it, which counts against the spinner's own tag.
 * Returns the transfers this access caused (its own and the spinners').
 */
int ps_cl_access(struct ps_cl *cl, int zone, int line, int cpu, int write, int tag);

/*
 * @n accesses by @cpu to lines of @zone, in order, as @n ps_cl_access()
 * calls with one @tag, when no CPU spins on any line of @zone (so a write
 * makes nobody re-read).
 */
struct ps_cl_use {
	int line, write;
};
void ps_cl_access_quiet(struct ps_cl *cl, int zone, int cpu, int tag, const struct ps_cl_use *use, int n);

/* @cpu starts / stops spinning on @line of @zone (at most one line per CPU). */
void ps_cl_spin_begin(struct ps_cl *cl, int zone, int line, int cpu, int tag);
void ps_cl_spin_end(struct ps_cl *cl, int zone, int cpu);

/* CPUs spinning on a line of @zone. */
int ps_cl_spinners(const struct ps_cl *cl, int zone);

uint64_t ps_cl_transfers(const struct ps_cl *cl, int zone, int tag);

#endif
