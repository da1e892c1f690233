/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpulist.h - the kernel's list format ("0-3,8,10-11"), as in nodeN/cpulist. */
#ifndef PS_CPULIST_H
#define PS_CPULIST_H

#include <stdint.h>

/*
 * Walks a list in that format, ended by its NUL or a newline, calling
 * @range(a, b, @arg) for each range a-b (a single number: a == b) in order.
 * Returns 0 when the whole list was read (an empty one too), -1 on a
 * syntax error (a trailing comma is one), -2 for a number at or above
 * @limit, or the first non-zero value @range returned.  Ranges before the
 * one that failed have been given to @range.
 */
int ps_list_ranges(const char *text, long limit, int (*range)(long a, long b, void *arg), void *arg);

/*
 * "0-3,8,10-11": sets cpu_node[cpu] = @node for each CPU listed and raises
 * *@max_cpu to the highest CPU + 1; -1 on a syntax error, -2 for a CPU at
 * or above PS_MAX_CPUS (nothing set from that range on).
 */
int ps_parse_cpulist(const char *text, int16_t *cpu_node, int node, int *max_cpu);

#endif
